/// @file
/// The solution of an ODE as an op of the AD engine, so a loss built on it
/// differentiates with ad::grad / ad::jvp like any other op:
///
/// @code
///   ad::Var p = ad::variable(Tensor::from_host({3}, {0.04, 1e4, 3e7}));
///   ad::Var y0 = ad::constant(Tensor::from_host({3}, {1, 0, 0}));
///   ad::Var Y = solvers::ode::ode_solution(system, y0, p, 0.0, {0.4, 4.0, 40.0}, options);  // {3, 3}
///   ad::Var loss = ad::sum(Y * Y);
///   Tensor dp = ad::grad(loss, {p})[0].value();  // one adjoint sweep
/// @endcode
///
/// The VJP is one CVODES adjoint sweep (solution_vjp), the JVP one
/// directional forward sensitivity (solution_jvp); tests/ode checks the two
/// against each other (dot-product test) and against finite differences.
/// Second derivatives through ode_solution (a VJP of its VJP,
/// Hessian-vector products) are not implemented: asking for one is an
/// error, not a zero. ode_integral has them with respect to p.
#pragma once

#include <vector>

#include <camber/autodiff/variable.hpp>
#include <camber/solvers/ode/cvodes.hpp>

namespace camber::solvers::ode {

/// Y = [y(t_1); ...; y(t_K)], shape {K, n}, from y(t0) = y0 ({n}) with
/// parameters p ({n_p}, replacing system.p), float64.
ad::Var ode_solution(const OdeSystem& system, const ad::Var& y0, const ad::Var& p, double t0,
                     const std::vector<double>& times, const CvodesOptions& options = {},
                     const AdjointOptions& adjoint = {});

/// G = integral from t0 to t_end of g(t, y, p) dt, a scalar ({1}), as an
/// op: its VJP and JVP come from one adjoint sweep (integral_gradients).
/// Second derivatives with respect to p work too: the gradient in p is
/// itself an op whose JVP and VJP are Hessian-vector products from
/// integral_hvp (forward over adjoint), so ad::hvp and reverse over reverse
/// both give H v. With respect to y0 the derivatives are first order only.
ad::Var ode_integral(const OdeSystem& system, const OdeIntegrand& integrand, const ad::Var& y0,
                     const ad::Var& p, double t0, double t_end, const CvodesOptions& options = {},
                     const AdjointOptions& adjoint = {});

}  // namespace camber::solvers::ode
