// Internal to Camber::ode: SUNDIALS objects held by unique_ptr, each
// released by its own destroy function, and CVODES' counters.
#pragma once

#include <cvodes/cvodes.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#include <memory>
#include <type_traits>

#include <camber/solvers/ode/cvodes.hpp>

namespace camber::solvers::detail {

struct ContextDeleter {
  void operator()(SUNContext c) const { SUNContext_Free(&c); }
};
struct VectorDeleter {
  void operator()(N_Vector v) const { N_VDestroy(v); }
};
struct MatrixDeleter {
  void operator()(SUNMatrix m) const { SUNMatDestroy(m); }
};
struct SolverDeleter {
  void operator()(SUNLinearSolver s) const { SUNLinSolFree(s); }
};
struct CvodeMemoryDeleter {
  void operator()(void* m) const { CVodeFree(&m); }
};

using Context = std::unique_ptr<std::remove_pointer_t<SUNContext>, ContextDeleter>;
using Vec = std::unique_ptr<std::remove_pointer_t<N_Vector>, VectorDeleter>;
using Matrix = std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixDeleter>;
using Solver = std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, SolverDeleter>;
using CvodeMemory = std::unique_ptr<void, CvodeMemoryDeleter>;

inline OdeStats cvode_stats(void* mem) {
  OdeStats s;
  CVodeGetNumSteps(mem, &s.steps);
  CVodeGetNumRhsEvals(mem, &s.rhs_evals);
  CVodeGetNumJacEvals(mem, &s.jac_evals);
  CVodeGetNumLinSolvSetups(mem, &s.lin_setups);
  CVodeGetNumErrTestFails(mem, &s.error_test_fails);
  CVodeGetNumNonlinSolvIters(mem, &s.nonlin_iters);
  CVodeGetNumNonlinSolvConvFails(mem, &s.nonlin_fails);
  CVodeGetNumGEvals(mem, &s.root_evals);
  CVodeGetLastOrder(mem, &s.last_order);
  CVodeGetLastStep(mem, &s.last_step);
  return s;
}

}  // namespace camber::solvers::detail
