// The one list of problems the command line knows.
#include "euler_case.hpp"
#include "heat_case.hpp"
#include "heat_inverse_case.hpp"
#include "ode_case.hpp"
#include "problem.hpp"
#include "surrogate_case.hpp"

namespace camber::app {

const std::vector<Problem>& problems() {
  static const std::vector<Problem> list = {heat_problem(), euler_problem(), surrogate_problem(), ode_problem(),
                                             heat_inverse_problem()};
  return list;
}

}  // namespace camber::app
