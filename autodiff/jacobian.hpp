/// @file
/// Local Jacobians, gradients and Hessians of small kernel functions.
///
/// A flux, a residual or a constitutive law is written once as a template on
/// its scalar type; these helpers call it with seeded Duals and unpack the
/// derivatives into plain arrays, inside or outside a Kokkos kernel:
///
/// @code
///   y = f(x), x in R^N, y in R^M:   J[m][n] = dy_m / dx_n   (Dual<Real,N>)
///   s = g(x), x in R^N, s in R:     g_n = ds/dx_n, H[m][n] = d2s/dx_m dx_n
///                                   (Dual<Dual<Real,N>,N>)
///
///   struct Flux {  // any callable with a templated call operator
///     template <class T>
///     KOKKOS_INLINE_FUNCTION void operator()(const T (&u)[2], T (&f)[2]) const {
///       f[0] = u[0] * u[1];  f[1] = u[0] * u[0] + u[1];
///     }
///   };
///   double u[2] = {1, 2}, f[2], dfdu[2][2];
///   camber::ad::jacobian(Flux{}, u, f, dfdu);  // also inside parallel_for
/// @endcode
///
/// Cost: one evaluation of f with N directions (jacobian, gradient) or N^2
/// second-order directions (hessian), all on the stack: meant for the few
/// inputs of one cell or face (N up to ~10). Nothing is allocated and the
/// arrays belong to the caller. For global Jacobians and Hessian-vector
/// products of whole programs use the tensor-level autodiff instead.
/// Derivative conventions at kinks are those of autodiff/dual.hpp.
#pragma once

#include <camber/autodiff/dual.hpp>

namespace camber::ad {

/// y = f(x) and J = dy/dx. f is called as f(const Dual<Real,N> (&x)[N],
/// Dual<Real,N> (&y)[M]) and must set every y[m].
template <class F, class Real, int N, int M>
KOKKOS_INLINE_FUNCTION void jacobian(const F& f, const Real (&x)[N], Real (&y)[M],
                                     Real (&J)[M][N]) {
  using D = Dual<Real, N>;
  D xd[N];
  D yd[M];
  for (int n = 0; n < N; ++n) xd[n] = make_variable<N>(x[n], n);
  const D(&xin)[N] = xd;
  f(xin, yd);
  for (int m = 0; m < M; ++m) {
    y[m] = yd[m].val_;
    for (int n = 0; n < N; ++n) J[m][n] = yd[m].der_[n];
  }
}

/// Returns s = f(x) and sets g = ds/dx. f is called as
/// f(const Dual<Real,N> (&x)[N]) and returns a Dual<Real,N>.
template <class F, class Real, int N>
KOKKOS_INLINE_FUNCTION Real gradient(const F& f, const Real (&x)[N], Real (&g)[N]) {
  using D = Dual<Real, N>;
  D xd[N];
  for (int n = 0; n < N; ++n) xd[n] = make_variable<N>(x[n], n);
  const D(&xin)[N] = xd;
  const D s = f(xin);
  for (int n = 0; n < N; ++n) g[n] = s.der_[n];
  return s.val_;
}

/// Returns s = f(x) and sets its gradient g and Hessian H. f is called as
/// f(const Dual<Dual<Real,N>,N> (&x)[N]) and returns that type. The gradient
/// is bitwise the one gradient() gives; H is symmetrized, (H + H^T) / 2,
/// because the two orders of differentiation round differently.
template <class F, class Real, int N>
KOKKOS_INLINE_FUNCTION Real hessian(const F& f, const Real (&x)[N], Real (&g)[N],
                                    Real (&H)[N][N]) {
  using D = Dual<Dual<Real, N>, N>;
  D xd[N];
  for (int n = 0; n < N; ++n) xd[n] = make_nested_variable<D>(x[n], n);
  const D(&xin)[N] = xd;
  const D s = f(xin);
  for (int m = 0; m < N; ++m) {
    g[m] = s.val_.der_[m];
    H[m][m] = s.der_[m].der_[m];
    for (int n = 0; n < m; ++n) {
      const Real h = Real(0.5) * (s.der_[m].der_[n] + s.der_[n].der_[m]);
      H[m][n] = h;
      H[n][m] = h;
    }
  }
  return s.val_.val_;
}

}  // namespace camber::ad
