/// @file
/// camber::solvers::ode::Idas: IDAS (SUNDIALS' variable-order BDF for
/// differential-algebraic equations) on a dense system F(t, y, y', p) = 0,
/// with the iteration matrix dF/dy + c_j dF/dy' from the AD engine and root
/// finding.
///
/// The residual is written once, as a template on the scalar type, and
/// evaluated on double and on ad::Dual<double, 1> (one Dual evaluation per
/// column gives dF/dy + c_j dF/dy' by seeding y_c with 1 and y'_c with c_j):
/// @code
///   auto robertson = [](double, const auto* y, const auto* yp, const auto* p, auto* r) {
///     r[0] = -p[0] * y[0] + p[1] * y[1] * y[2];
///     r[1] = -r[0] - p[2] * y[1] * y[1] - yp[1];
///     r[0] = r[0] - yp[0];
///     r[2] = y[0] + y[1] + y[2] - 1.0;                       // algebraic
///   };
///   solvers::ode::Idas ida(solvers::ode::make_dae_system(3, {0.04, 1e4, 3e7}, robertson), o);
///   ida.reset(0.0, {1, 0, 0}, {-0.04, 0.04, 0});          // consistent y, y'
///   double t = ida.advance(0.4, y);
/// @endcode
/// Failures are errors naming the time reached and IDAS' flag, as for
/// Cvodes (cvodes.hpp); bad options and initial values are bad input.
/// dae_integral_gradients gives integrals' gradients by IDAS' adjoint
/// (tests/ode replays idasRoberts_ASAi_dns: the same 774 forward steps,
/// G, dG/dp and lambda(0) to the printed digits for both end times).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <camber/solvers/ode/cvodes.hpp>

namespace camber::solvers::ode {

/// F(t, y, y', p) = 0 of n equations, optional roots g_i(t, y).
struct DaeSystem {
  int n = 0;
  std::vector<double> p;
  std::function<void(double t, const double* y, const double* yp, const double* p, double* r)> residual;
  std::function<void(double t, const OdeDual* y, const OdeDual* yp, const OdeDual* p, OdeDual* r)>
      residual_dual;
  int n_roots = 0;
  std::function<void(double t, const double* y, double* g)> roots;
};

/// From one callable F(t, const S* y, const S* yp, const S* p, S* r),
/// S = double and OdeDual.
template <class F>
DaeSystem make_dae_system(int n, std::vector<double> p, F f) {
  DaeSystem s;
  s.n = n;
  s.p = std::move(p);
  s.residual = [f](double t, const double* y, const double* yp, const double* q, double* r) { f(t, y, yp, q, r); };
  s.residual_dual = [f](double t, const OdeDual* y, const OdeDual* yp, const OdeDual* q, OdeDual* r) {
    f(t, y, yp, q, r);
  };
  return s;
}

struct IdasOptions {
  double rtol = 1e-6;
  std::vector<double> atol{1e-10};  ///< one value, or one per component
  long max_steps = 500;             ///< per advance() call
};

/// G = integral from t0 to t_end of g(t, y, p) dt for a DAE, its value and
/// gradient by IDAS' adjoint sensitivity analysis: one forward run with
/// checkpoints to the last end time, then per end time one backward run of
///   (dF/dy')^T lambda' - (dF/dy)^T lambda + (dg/dy)^T = 0
/// from t_end to t0, with dG/dp = integral of (dg/dp)^T - (dF/dp)^T lambda
/// dt (y0 independent of p). The backward problem's initial values at
/// t_end are made consistent by IDACalcICB (the differential components
/// of lambda, those of the equations with a y' term, start at 0; the
/// algebraic ones and lambda' are solved for). Every derivative comes from
/// Dual evaluations of the residual and of g. Assumes dF/dy' constant along
/// the solution (a constant mass matrix, as in semi-explicit DAEs): the
/// adjoint equation above drops d/dt (dF/dy')^T lambda.
struct DaeIntegralGradient {
  double t_end = 0.0;
  double value = 0.0;                ///< G
  std::vector<double> d_dp;          ///< dG/dp
  std::vector<double> lambda0;       ///< lambda(t0)
  OdeStats backward;
};
std::vector<DaeIntegralGradient> dae_integral_gradients(const DaeSystem& system, const OdeIntegrand& integrand,
                                                        const IdasOptions& forward, double t0,
                                                        const std::vector<double>& y0,
                                                        const std::vector<double>& yp0,
                                                        const std::vector<double>& t_ends,
                                                        const AdjointOptions& adjoint = {},
                                                        OdeStats* forward_stats = nullptr);

class Idas {
 public:
  Idas(DaeSystem system, IdasOptions options);
  ~Idas();
  Idas(const Idas&) = delete;
  Idas& operator=(const Idas&) = delete;

  /// (Re)starts at t0 with y0 and y0' (consistent: F(t0, y0, y0') = 0).
  void reset(double t0, const std::vector<double>& y0, const std::vector<double>& yp0);
  /// As Cvodes::advance: to tout or to a root before it.
  double advance(double tout, std::vector<double>& y, std::vector<int>* roots = nullptr);
  /// Steps, residual evaluations (rhs_evals), Jacobians, order and step size.
  OdeStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace camber::solvers::ode
