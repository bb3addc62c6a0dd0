// The one list of problems the command line knows. Each problem is built
// with the modules it needs (apps/camber/CMakeLists.txt): without SUNDIALS
// there is no heat, ode or heat_inverse problem, and the deck's `problem`
// key lists only those that are here.
#include "euler_case.hpp"
#include "problem.hpp"
#include "surrogate_case.hpp"

#include <camber/core/config.hpp>

#if CAMBER_WITH_SUNDIALS
#include "heat_case.hpp"
#include "heat_inverse_case.hpp"
#include "ode_case.hpp"
#endif

namespace camber::app {

const std::vector<Problem>& problems() {
  static const std::vector<Problem> list = {
#if CAMBER_WITH_SUNDIALS
      heat_problem(),
#endif
      euler_problem(),
      surrogate_problem(),
#if CAMBER_WITH_SUNDIALS
      ode_problem(),
      heat_inverse_problem(),
#endif
  };
  return list;
}

}  // namespace camber::app
