/// @file
/// camber::solvers::ode::Cvodes: CVODES (SUNDIALS' variable-order, variable-step
/// BDF and Adams methods) on a dense system dy/dt = f(t, y), with the
/// Jacobian df/dy from the AD engine and root finding.
///
/// Write the right-hand side once, as a template on the scalar type; it is
/// evaluated with double for f and with ad::Dual<double, 1> for the
/// Jacobian (one column per evaluation), so no Jacobian is written by hand:
/// @code
///   auto robertson = [](double, const auto* y, auto* ydot) {
///     ydot[0] = -0.04 * y[0] + 1.0e4 * y[1] * y[2];
///     ydot[2] = 3.0e7 * y[1] * y[1];
///     ydot[1] = -ydot[0] - ydot[2];
///   };
///   solvers::ode::CvodesOptions o;
///   o.rtol = 1e-4;
///   o.atol = {1e-8, 1e-14, 1e-6};
///   solvers::ode::Cvodes cv(solvers::ode::make_ode_system(3, robertson), o);
///   cv.reset(0.0, {1.0, 0.0, 0.0});
///   std::vector<double> y(3);
///   double t = cv.advance(0.4, y);       // y at t = 0.4 (or at a root before it)
/// @endcode
///
/// A failure of the integrator (too much work, error test or convergence
/// failures, a step size too small) is a camber::Error naming the time
/// reached, SUNDIALS' flag name and its message; bad options or initial
/// values are bad input (exit code 2 in apps). An exception thrown by the
/// right-hand side propagates out of advance().
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include <camber/autodiff/dual.hpp>
#include <camber/core/enum_names.hpp>

namespace camber::solvers::ode {

using OdeDual = ad::Dual<double, 1>;
/// Four tangents at once: Jacobians and adjoint products take one
/// evaluation per four columns instead of one per column.
using OdeDual4 = ad::Dual<double, 4>;
/// Nested Duals: second derivatives (Hessian-vector products).
using OdeDual2 = ad::Dual<ad::Dual<double, 1>, 1>;

/// dy/dt = f(t, y, p) of n equations with parameters p, and optional root
/// functions g_i(t, y) whose sign changes stop advance() (events).
struct OdeSystem {
  int n = 0;
  std::vector<double> p;  ///< the parameters' values (may be empty)
  std::function<void(double t, const double* y, const double* p, double* ydot)> rhs;
  /// The same f on Duals: Jacobians with respect to y and p by forward
  /// mode. Without it CVODES approximates df/dy by difference quotients
  /// (and adjoint gradients are not available).
  std::function<void(double t, const OdeDual* y, const OdeDual* p, OdeDual* ydot)> rhs_dual;
  /// Optional: the same on four-tangent Duals (make_ode_system sets it);
  /// used in place of rhs_dual for Jacobians and adjoint products.
  std::function<void(double t, const OdeDual4* y, const OdeDual4* p, OdeDual4* ydot)> rhs_dual4;
  /// Optional: the same on nested Duals, for integral_hvp.
  std::function<void(double t, const OdeDual2* y, const OdeDual2* p, OdeDual2* ydot)> rhs_dual2;
  int n_roots = 0;
  std::function<void(double t, const double* y, double* g)> roots;
};

/// An OdeSystem from one callable templated on the scalar:
/// f(double t, const S* y, const S* p, S* ydot) for S = double and OdeDual.
template <class F>
OdeSystem make_ode_system(int n, std::vector<double> p, F f) {
  OdeSystem s;
  s.n = n;
  s.p = std::move(p);
  s.rhs = [f](double t, const double* y, const double* q, double* ydot) { f(t, y, q, ydot); };
  s.rhs_dual = [f](double t, const OdeDual* y, const OdeDual* q, OdeDual* ydot) { f(t, y, q, ydot); };
  s.rhs_dual4 = [f](double t, const OdeDual4* y, const OdeDual4* q, OdeDual4* ydot) { f(t, y, q, ydot); };
  s.rhs_dual2 = [f](double t, const OdeDual2* y, const OdeDual2* q, OdeDual2* ydot) { f(t, y, q, ydot); };
  return s;
}
/// Without parameters: f(double t, const S* y, S* ydot).
template <class F>
OdeSystem make_ode_system(int n, F f) {
  return make_ode_system(n, {}, [f](double t, const auto* y, const auto*, auto* ydot) { f(t, y, ydot); });
}

/// An integrand g(t, y, p) for G = integral of g dt, on double and OdeDual.
struct OdeIntegrand {
  std::function<double(double t, const double* y, const double* p)> g;
  std::function<OdeDual(double t, const OdeDual* y, const OdeDual* p)> g_dual;
  std::function<OdeDual4(double t, const OdeDual4* y, const OdeDual4* p)> g_dual4;  ///< optional
  std::function<OdeDual2(double t, const OdeDual2* y, const OdeDual2* p)> g_dual2;  ///< optional
};
template <class G>
OdeIntegrand make_integrand(G g) {
  return {[g](double t, const double* y, const double* p) { return g(t, y, p); },
          [g](double t, const OdeDual* y, const OdeDual* p) { return g(t, y, p); },
          [g](double t, const OdeDual4* y, const OdeDual4* p) { return g(t, y, p); },
          [g](double t, const OdeDual2* y, const OdeDual2* p) { return g(t, y, p); }};
}

enum class OdeMethod { bdf, adams };
/// The methods' names (the deck's integration.method values), the default
/// first.
inline constexpr std::array<EnumName<OdeMethod>, 2> ode_method_names{
    {{OdeMethod::bdf, "bdf"}, {OdeMethod::adams, "adams"}}};

struct CvodesOptions {
  OdeMethod method = OdeMethod::bdf;
  double rtol = 1e-6;
  /// One value for every component, or one per component.
  std::vector<double> atol{1e-10};
  long max_steps = 500;       ///< per advance() call (CVODES' mxstep)
  double max_step = 0.0;      ///< 0: no limit
  double initial_step = 0.0;  ///< 0: CVODES' estimate
};

/// CVODES' counters since reset().
struct OdeStats {
  long steps = 0;
  long rhs_evals = 0;
  long jac_evals = 0;
  long lin_setups = 0;
  long error_test_fails = 0;
  long nonlin_iters = 0;
  long nonlin_fails = 0;
  long root_evals = 0;
  int last_order = 0;
  double last_step = 0.0;
};

/// Tolerances of the backward (adjoint) problem and of the quadratures.
struct AdjointOptions {
  double rtol = 1e-6;       ///< adjoint variables
  double atol = 1e-8;
  double quad_rtol = 1e-6;  ///< G (forward) and dG/dp (backward)
  double quad_atol = 1e-6;
  long checkpoint_steps = 150;  ///< forward steps between two checkpoints
};

/// G = integral from t0 to t_end of g(t, y, p) dt and its gradients.
struct IntegralGradient {
  double t_end = 0.0;
  double value = 0.0;              ///< G
  std::vector<double> d_dp;        ///< dG/dp
  std::vector<double> d_dy0;       ///< dG/dy(t0): the adjoint at t0
  OdeStats backward;
};

/// One forward integration from (t0, y0) to the last of `t_ends`, storing
/// checkpoints, then one backward (adjoint) integration per end time:
/// lambda' = -(df/dy)^T lambda - (dg/dy)^T from lambda(t_end) = 0 to t0,
/// and dG/dp = integral of (df/dp)^T lambda + (dg/dp)^T dt along it (CVODES'
/// adjoint sensitivity analysis; every derivative from the Dual versions of
/// f and g). `forward` gives the forward tolerances and method.
std::vector<IntegralGradient> integral_gradients(const OdeSystem& system,
                                                 const OdeIntegrand& integrand,
                                                 const CvodesOptions& forward, double t0,
                                                 const std::vector<double>& y0,
                                                 const std::vector<double>& t_ends,
                                                 const AdjointOptions& adjoint = {},
                                                 OdeStats* forward_stats = nullptr);

enum class SensitivityCorrector { simultaneous, staggered, staggered1 };

struct SensitivityOptions {
  SensitivityCorrector corrector = SensitivityCorrector::staggered1;
  /// Sensitivities in the error test (CVODES' "full error control").
  bool error_control = true;
  /// Scales of the parameters for the sensitivities' tolerances (CVODES'
  /// pbar); empty: |p| (1 where p is 0).
  std::vector<double> pbar;
};

/// y(t) and S(t) = dy/dp at each output time.
struct SensitivitySolution {
  std::vector<double> t;
  std::vector<std::vector<double>> y;  ///< y[k][i]
  std::vector<std::vector<double>> s;  ///< s[k][j * n + i] = dy_i / dp_j at t[k]
  std::vector<long> steps;             ///< steps taken up to t[k]
  OdeStats stats;
};

/// Forward sensitivity analysis (CVODES): the sensitivity equations
/// S_j' = (df/dy) S_j + df/dp_j solved with y, their right-hand sides from
/// one Dual evaluation of f per parameter (the tangent seeded with S_j and
/// e_j). Output times ascending, after t0.
SensitivitySolution forward_sensitivities(const OdeSystem& system, const CvodesOptions& options,
                                          double t0, const std::vector<double>& y0,
                                          const std::vector<double>& times,
                                          const SensitivityOptions& sensitivity = {});

/// G, dG/dp and the Hessian-vector product (d2G/dp2) v, for G = integral
/// from t0 to t_end of g(t, y, p) dt (y0 independent of p). Forward over
/// adjoint: one forward run with the directional sensitivity s = (dy/dp) v
/// stored at the checkpoints, then one backward sweep of the adjoint
/// lambda and its directional derivative mu,
///   mu' = -(df/dy)^T mu - d/de[(df/dy)^T lambda + (dg/dy)^T],
///   Hv  = integral of (df/dp)^T mu + d/de[(df/dp)^T lambda + (dg/dp)^T] dt,
/// where d/de differentiates along y + e s, p + e v; every term from one
/// nested-Dual evaluation of f and g per component (rhs_dual2, g_dual2).
struct IntegralHvp {
  double value = 0.0;
  std::vector<double> gradient;  ///< dG/dp
  std::vector<double> hvp;       ///< (d2G/dp2) v
};
IntegralHvp integral_hvp(const OdeSystem& system, const OdeIntegrand& integrand,
                         const CvodesOptions& forward, double t0, const std::vector<double>& y0,
                         double t_end, const std::vector<double>& v,
                         const AdjointOptions& adjoint = {});

/// The solution y(t_k) at output times, and its derivative products.
/// Y = [y(t_1), ..., y(t_K)], K x n, from y(t0) = y0 with parameters p.
/// solution_jvp: dY = (dY/dy0) dy0 + (dY/dp) dp, by one directional
/// forward sensitivity. solution_vjp: (dY/dy0)^T W and (dY/dp)^T W for a
/// K x n cotangent W, by one adjoint sweep from t_K to t0 whose adjoint
/// jumps by W_k at each t_k. Row-major vectors.
std::vector<double> solution_values(const OdeSystem& system, const CvodesOptions& options,
                                    double t0, const std::vector<double>& y0,
                                    const std::vector<double>& times);
std::vector<double> solution_jvp(const OdeSystem& system, const CvodesOptions& options, double t0,
                                 const std::vector<double>& y0, const std::vector<double>& times,
                                 const std::vector<double>& dy0, const std::vector<double>& dp);
struct SolutionVjp {
  std::vector<double> d_y0, d_p;
};
SolutionVjp solution_vjp(const OdeSystem& system, const CvodesOptions& options, double t0,
                         const std::vector<double>& y0, const std::vector<double>& times,
                         const std::vector<double>& w, const AdjointOptions& adjoint = {});

class Cvodes {
 public:
  Cvodes(OdeSystem system, CvodesOptions options);
  ~Cvodes();
  Cvodes(const Cvodes&) = delete;
  Cvodes& operator=(const Cvodes&) = delete;

  /// (Re)starts at t0 with y0 (finite, n values).
  void reset(double t0, const std::vector<double>& y0);
  /// Integrates towards tout; returns the time reached: tout, or the time
  /// of a root before it. `y` gets the solution there (resized to n); with
  /// `roots`, which root functions changed sign (+1 rising, -1 falling, 0
  /// none; empty unless a root stopped the step).
  double advance(double tout, std::vector<double>& y, std::vector<int>* roots = nullptr);
  OdeStats stats() const;
  const OdeSystem& system() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace camber::solvers::ode
