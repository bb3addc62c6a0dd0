// Internal to Camber::solvers_ode: SUNDIALS objects held by unique_ptr,
// each released by its own destroy function; the set-up every integrator
// shares (context, tolerance checks, the absolute-tolerance vector); and
// CVODES' counters.
#pragma once

#include <cvodes/cvodes.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#include <nvector/nvector_serial.h>

#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/ode/cvodes.hpp>

namespace camber::solvers::ode::detail {

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

// A new SUNDIALS context; `library` (CVODES, IDAS, ARKODE) names who failed.
inline Context make_context(const char* library) {
  SUNContext raw = nullptr;
  CAMBER_REQUIRE(SUNContext_Create(nullptr, &raw) == 0, library << ": SUNContext_Create failed");
  return Context(raw);
}

// The options every integrator takes, checked as bad input named by
// `prefix` ("ode", "dae", "arkode"): rtol > 0, atol one value or one per
// equation (each >= 0), max_steps > 0.
inline void check_tolerances(const char* prefix, int n, double rtol,
                             const std::vector<double>& atol, long max_steps) {
  CAMBER_INPUT_REQUIRE(std::isfinite(rtol) && rtol > 0.0,
                       prefix << ": rtol must be positive, got " << rtol);
  CAMBER_INPUT_REQUIRE(atol.size() == 1 || static_cast<int>(atol.size()) == n,
                       prefix << ": atol needs 1 or " << n << " values, got " << atol.size());
  for (double a : atol)
    CAMBER_INPUT_REQUIRE(std::isfinite(a) && a >= 0.0,
                         prefix << ": atol values must be >= 0, got " << a);
  CAMBER_INPUT_REQUIRE(max_steps > 0, prefix << ": max_steps must be positive, got " << max_steps);
}

// A serial vector of n values; `library` names who failed.
inline Vec make_vector(int n, SUNContext ctx, const char* library) {
  Vec v(N_VNew_Serial(n, ctx));
  CAMBER_REQUIRE(v != nullptr, library << ": N_VNew_Serial failed");
  return v;
}

// The absolute tolerances per equation: atol[0] for all, or atol[i].
inline Vec absolute_tolerances(const std::vector<double>& atol, int n, SUNContext ctx,
                               const char* library) {
  Vec v = make_vector(n, ctx, library);
  for (int i = 0; i < n; ++i)
    NV_Ith_S(v.get(), i) = atol.size() == 1 ? atol[0] : atol[static_cast<size_t>(i)];
  return v;
}

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

}  // namespace camber::solvers::ode::detail
