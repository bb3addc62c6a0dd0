/// @file
/// camber::solvers::ode::Arkode: SUNDIALS' ARKODE additive Runge-Kutta methods
/// on dy/dt = f_E(t, y, p) + f_I(t, y, p): explicit (ERKStep, f_I = 0),
/// diagonally implicit (ARKStep, f_E = 0) or IMEX (ARKStep, both), with
/// adaptive steps, the Newton systems' dense Jacobian df_I/dy from Dual
/// evaluations of the user's templated f_I, and failures as errors naming
/// the time reached and ARKODE's flag.
///
/// @code
///   // y' = lambda y + 1/(1+t^2) - lambda atan(t): stiff, all implicit
///   auto f = [](double t, const auto* y, const auto* p, auto* ydot) {
///     ydot[0] = p[0] * y[0] + 1.0 / (1.0 + t * t) - p[0] * std::atan(t);
///   };
///   solvers::ode::ArkodeOptions o;
///   o.method = solvers::ode::ArkMethod::implicit;
///   solvers::ode::Arkode ark(solvers::ode::make_implicit_system(1, {-100.0}, f), o);
///   ark.reset(0.0, {0.0});
///   std::vector<double> y;
///   ark.advance(1.0, y);
/// @endcode
///
/// IMEX splits a problem into a stiff part (f_I, solved by Newton's
/// method) and a non-stiff one (f_E, explicit):
/// make_imex_system(n, p, f_explicit, f_implicit). tests/ode replays
/// SUNDIALS' ark_analytic (DIRK) and ark_analytic_nonlin (ERK) examples
/// and checks an IMEX problem against its exact solution.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <camber/solvers/ode/cvodes.hpp>

namespace camber::solvers::ode {

/// dy/dt = f_E + f_I with parameters p; either part may be empty.
struct ArkodeSystem {
  int n = 0;
  std::vector<double> p;
  std::function<void(double t, const double* y, const double* p, double* ydot)> explicit_rhs;
  std::function<void(double t, const double* y, const double* p, double* ydot)> implicit_rhs;
  /// f_I on Duals: the Jacobian df_I/dy (one column per evaluation).
  std::function<void(double t, const OdeDual* y, const OdeDual* p, OdeDual* ydot)> implicit_rhs_dual;
};

/// All explicit: f(t, const double* y, const double* p, double* ydot).
template <class F>
ArkodeSystem make_explicit_system(int n, std::vector<double> p, F f) {
  ArkodeSystem s;
  s.n = n;
  s.p = std::move(p);
  s.explicit_rhs = [f](double t, const double* y, const double* q, double* ydot) { f(t, y, q, ydot); };
  return s;
}
/// All implicit: f templated on the scalar (double and OdeDual).
template <class F>
ArkodeSystem make_implicit_system(int n, std::vector<double> p, F f) {
  ArkodeSystem s;
  s.n = n;
  s.p = std::move(p);
  s.implicit_rhs = [f](double t, const double* y, const double* q, double* ydot) { f(t, y, q, ydot); };
  s.implicit_rhs_dual = [f](double t, const OdeDual* y, const OdeDual* q, OdeDual* ydot) { f(t, y, q, ydot); };
  return s;
}
/// IMEX: fe on double, fi templated on the scalar.
template <class FE, class FI>
ArkodeSystem make_imex_system(int n, std::vector<double> p, FE fe, FI fi) {
  ArkodeSystem s = make_implicit_system(n, std::move(p), fi);
  s.explicit_rhs = [fe](double t, const double* y, const double* q, double* ydot) { fe(t, y, q, ydot); };
  return s;
}

enum class ArkMethod { explicit_rk, implicit, imex };

struct ArkodeOptions {
  ArkMethod method = ArkMethod::implicit;
  double rtol = 1e-6;
  std::vector<double> atol{1e-10};  ///< one value, or one per component
  long max_steps = 500;             ///< per advance() call
  /// f_I is linear in y (one Newton iteration per stage); with
  /// jacobian_time_dependent false, its Jacobian is also constant in t and
  /// is re-evaluated only when ARKODE's heuristics ask.
  bool linear_implicit = false;
  bool jacobian_time_dependent = true;
};

struct ArkodeStats {
  long steps = 0, attempts = 0;
  long explicit_rhs_evals = 0, implicit_rhs_evals = 0;
  long lin_setups = 0, jac_evals = 0, nonlin_iters = 0, nonlin_fails = 0, error_test_fails = 0;
  double last_step = 0.0;
};

class Arkode {
 public:
  Arkode(ArkodeSystem system, ArkodeOptions options);
  ~Arkode();
  Arkode(const Arkode&) = delete;
  Arkode& operator=(const Arkode&) = delete;

  /// (Re)starts at t0 with y0 (finite, n values).
  void reset(double t0, const std::vector<double>& y0);
  /// Integrates to tout; `y` gets y(tout). Returns the time reached.
  double advance(double tout, std::vector<double>& y);
  ArkodeStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace camber::solvers::ode
