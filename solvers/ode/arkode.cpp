#include <camber/solvers/ode/arkode.hpp>

#include <arkode/arkode_arkstep.h>
#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include <camber/core/error.hpp>

#include "detail/callback_guard.hpp"
#include "detail/sundials_handles.hpp"

namespace camber::solvers::ode {

struct Arkode::Impl : detail::CallbackGuard {
  ArkodeSystem sys;
  ArkodeOptions o;
  detail::Context ctx;
  detail::Vec y, atol;
  detail::Matrix a;
  detail::Solver ls;
  void* mem = nullptr;
  double t = 0.0;
  bool started = false;

  bool erk() const { return o.method == ArkMethod::explicit_rk; }
  ~Impl() {
    if (mem == nullptr) return;
    if (erk())
      ERKStepFree(&mem);
    else
      ARKStepFree(&mem);
  }

  static Impl& of(void* d) { return *static_cast<Impl*>(d); }
  static int fe(sunrealtype t, N_Vector y, N_Vector ydot, void* d) {
    Impl& m = of(d);
    return m.guard([&] { m.sys.explicit_rhs(t, N_VGetArrayPointer(y), m.sys.p.data(), N_VGetArrayPointer(ydot)); });
  }
  static int fi(sunrealtype t, N_Vector y, N_Vector ydot, void* d) {
    Impl& m = of(d);
    return m.guard([&] { m.sys.implicit_rhs(t, N_VGetArrayPointer(y), m.sys.p.data(), N_VGetArrayPointer(ydot)); });
  }
  // df_I/dy, column c from one Dual evaluation.
  static int jac(sunrealtype t, N_Vector y, N_Vector, SUNMatrix j, void* d, N_Vector, N_Vector, N_Vector) {
    Impl& m = of(d);
    return m.guard([&] {
      const int n = m.sys.n;
      const double* yv = N_VGetArrayPointer(y);
      std::vector<OdeDual> yd(static_cast<size_t>(n)), fd(static_cast<size_t>(n));
      std::vector<OdeDual> pd(m.sys.p.begin(), m.sys.p.end());
      for (int c = 0; c < n; ++c) {
        for (int i = 0; i < n; ++i) yd[static_cast<size_t>(i)] = OdeDual(yv[i]);
        yd[static_cast<size_t>(c)].der(0) = 1.0;
        m.sys.implicit_rhs_dual(t, yd.data(), pd.data(), fd.data());
        for (int i = 0; i < n; ++i) SM_ELEMENT_D(j, i, c) = fd[static_cast<size_t>(i)].der(0);
      }
    });
  }
  static void on_error(int, const char*, const char* function, char* msg, void* d) { of(d).record(function, msg); }
  std::string flag_name(int flag) const {
    return detail::take_name(erk() ? ERKStepGetReturnFlagName(flag) : ARKStepGetReturnFlagName(flag));
  }
  void check(int flag, const char* call) const {
    rethrow();
    if (flag >= 0) return;
    CAMBER_REQUIRE(false, "ARKODE: " << call << " failed with " << flag_name(flag) << detail());
  }
};

Arkode::Arkode(ArkodeSystem system, ArkodeOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.sys = std::move(system);
  m.o = std::move(options);
  const int n = m.sys.n;
  const bool has_e = static_cast<bool>(m.sys.explicit_rhs), has_i = static_cast<bool>(m.sys.implicit_rhs);
  CAMBER_INPUT_REQUIRE(n > 0, "arkode: a system needs n > 0 equations");
  CAMBER_INPUT_REQUIRE(m.o.method != ArkMethod::explicit_rk || (has_e && !has_i),
                       "arkode: the explicit method needs an explicit right-hand side only (make_explicit_system)");
  CAMBER_INPUT_REQUIRE(m.o.method != ArkMethod::implicit || (has_i && !has_e && m.sys.implicit_rhs_dual),
                       "arkode: the implicit method needs an implicit right-hand side on double and Duals only "
                       "(make_implicit_system)");
  CAMBER_INPUT_REQUIRE(m.o.method != ArkMethod::imex || (has_e && has_i && m.sys.implicit_rhs_dual),
                       "arkode: IMEX needs an explicit and an implicit right-hand side (make_imex_system)");
  detail::check_tolerances("arkode", n, m.o.rtol, m.o.atol, m.o.max_steps);
  m.ctx = detail::make_context("ARKODE");
  m.y = detail::make_vector(n, m.ctx.get(), "ARKODE");
  m.atol = detail::absolute_tolerances(m.o.atol, n, m.ctx.get(), "ARKODE");
}

Arkode::~Arkode() = default;

void Arkode::reset(double t0, const std::vector<double>& y0) {
  Impl& m = *impl_;
  const int n = m.sys.n;
  CAMBER_INPUT_REQUIRE(static_cast<int>(y0.size()) == n, "arkode: y0 has " << y0.size() << " values, the system " << n);
  for (double v : y0) CAMBER_INPUT_REQUIRE(std::isfinite(v), "arkode: y0 holds " << v);
  CAMBER_INPUT_REQUIRE(std::isfinite(t0), "arkode: t0 is " << t0);
  for (int i = 0; i < n; ++i) NV_Ith_S(m.y.get(), i) = y0[static_cast<size_t>(i)];
  m.clear();
  const bool scalar_atol = m.o.atol.size() == 1;
  if (m.erk()) {
    if (!m.started) {
      m.mem = ERKStepCreate(Impl::fe, t0, m.y.get(), m.ctx.get());
      CAMBER_REQUIRE(m.mem != nullptr, "ARKODE: ERKStepCreate failed");
      m.check(ERKStepSetErrHandlerFn(m.mem, Impl::on_error, &m), "ERKStepSetErrHandlerFn");
      m.check(ERKStepSetUserData(m.mem, &m), "ERKStepSetUserData");
      m.check(scalar_atol ? ERKStepSStolerances(m.mem, m.o.rtol, m.o.atol[0])
                          : ERKStepSVtolerances(m.mem, m.o.rtol, m.atol.get()),
              "ERKStep tolerances");
      m.check(ERKStepSetMaxNumSteps(m.mem, m.o.max_steps), "ERKStepSetMaxNumSteps");
    } else {
      m.check(ERKStepReInit(m.mem, Impl::fe, t0, m.y.get()), "ERKStepReInit");
    }
  } else {
    const ARKRhsFn fe = m.o.method == ArkMethod::imex ? Impl::fe : nullptr;
    if (!m.started) {
      m.mem = ARKStepCreate(fe, Impl::fi, t0, m.y.get(), m.ctx.get());
      CAMBER_REQUIRE(m.mem != nullptr, "ARKODE: ARKStepCreate failed");
      m.check(ARKStepSetErrHandlerFn(m.mem, Impl::on_error, &m), "ARKStepSetErrHandlerFn");
      m.check(ARKStepSetUserData(m.mem, &m), "ARKStepSetUserData");
      m.check(scalar_atol ? ARKStepSStolerances(m.mem, m.o.rtol, m.o.atol[0])
                          : ARKStepSVtolerances(m.mem, m.o.rtol, m.atol.get()),
              "ARKStep tolerances");
      m.a.reset(SUNDenseMatrix(n, n, m.ctx.get()));
      m.ls.reset(SUNLinSol_Dense(m.y.get(), m.a.get(), m.ctx.get()));
      CAMBER_REQUIRE(m.a && m.ls, "ARKODE: dense matrix or linear solver creation failed");
      m.check(ARKStepSetLinearSolver(m.mem, m.ls.get(), m.a.get()), "ARKStepSetLinearSolver");
      m.check(ARKStepSetJacFn(m.mem, Impl::jac), "ARKStepSetJacFn");
      if (m.o.linear_implicit)
        m.check(ARKStepSetLinear(m.mem, m.o.jacobian_time_dependent ? 1 : 0), "ARKStepSetLinear");
      m.check(ARKStepSetMaxNumSteps(m.mem, m.o.max_steps), "ARKStepSetMaxNumSteps");
    } else {
      m.check(ARKStepReInit(m.mem, fe, Impl::fi, t0, m.y.get()), "ARKStepReInit");
    }
  }
  m.started = true;
  m.t = t0;
}

double Arkode::advance(double tout, std::vector<double>& y) {
  Impl& m = *impl_;
  CAMBER_REQUIRE(m.started, "Arkode::advance before reset()");
  CAMBER_INPUT_REQUIRE(std::isfinite(tout), "arkode: output time " << tout);
  m.clear();
  double t = m.t;
  const int flag = m.erk() ? ERKStepEvolve(m.mem, tout, m.y.get(), &t, ARK_NORMAL)
                           : ARKStepEvolve(m.mem, tout, m.y.get(), &t, ARK_NORMAL);
  m.rethrow();
  CAMBER_REQUIRE(flag >= 0, "ARKODE failed at t = " << t << " (integrating from " << m.t << " to " << tout
                                                    << "): " << m.flag_name(flag) << m.detail());
  m.t = t;
  y.assign(N_VGetArrayPointer(m.y.get()), N_VGetArrayPointer(m.y.get()) + m.sys.n);
  return t;
}

ArkodeStats Arkode::stats() const {
  const Impl& m = *impl_;
  ArkodeStats s;
  if (!m.started) return s;
  if (m.erk()) {
    ERKStepGetNumSteps(m.mem, &s.steps);
    ERKStepGetNumStepAttempts(m.mem, &s.attempts);
    ERKStepGetNumRhsEvals(m.mem, &s.explicit_rhs_evals);
    ERKStepGetNumErrTestFails(m.mem, &s.error_test_fails);
    ERKStepGetLastStep(m.mem, &s.last_step);
    return s;
  }
  ARKStepGetNumSteps(m.mem, &s.steps);
  ARKStepGetNumStepAttempts(m.mem, &s.attempts);
  ARKStepGetNumRhsEvals(m.mem, &s.explicit_rhs_evals, &s.implicit_rhs_evals);
  ARKStepGetNumLinSolvSetups(m.mem, &s.lin_setups);
  ARKStepGetNumJacEvals(m.mem, &s.jac_evals);
  ARKStepGetNumNonlinSolvIters(m.mem, &s.nonlin_iters);
  ARKStepGetNumNonlinSolvConvFails(m.mem, &s.nonlin_fails);
  ARKStepGetNumErrTestFails(m.mem, &s.error_test_fails);
  ARKStepGetLastStep(m.mem, &s.last_step);
  return s;
}

}  // namespace camber::solvers::ode
