/// @file
/// Numerical fluxes of the compressible Euler equations for finite volumes.
///
/// The flux of mass, momentum and energy through one face, written once as a
/// template on the scalar type: T = double gives the values, T =
/// ad::Dual<double, 4> the exact local Jacobians dF/dU_L and dF/dU_R that an
/// implicit (Newton-Krylov) solver assembles, and a nested Dual their second
/// derivatives. n is the area-weighted face normal (|n| = face length in
/// 2-D), pointing from the left state to the right one, as
/// mesh::compute_geometry gives it:
///
///   physical  F(U).n = (rho q, rho u q + p n, (rho E + p) q),    q = u.n
///   Roe       F = (F(U_L) + F(U_R)).n / 2 - |n| |A(U~, n^)| (U_R - U_L) / 2
///   HLLC      F = F_L, F*_L, F*_R or F_R by the signs of S_L, S*, S_R
///
/// with U~ Roe's average (weights sqrt(rho)) and n^ = n / |n|. Both are
/// consistent (F(U, U, n) = F(U).n), conservative (F(U_L, U_R, n) =
/// -F(U_R, U_L, -n)), rotationally invariant, upwind where every wave of U_L,
/// U_R and U~ moves one way (supersonic normal flow), and exact, to rounding,
/// on a stationary contact or slip line and on a stationary normal shock
/// (Roe's linearization maps the shock's jump to a zero eigenvalue q~ - c~,
/// which Einfeldt's S_L = min(q_L - c_L, q~ - c~) picks up too). All of this
/// is tested in tests/solvers/euler/test_flux.cpp (helpers in flux_test_utils.hpp).
///
///   namespace eu = camber::solvers::euler;
///   const eu::IdealGas air{1.4};
///   const double n[2] = {0.0, 0.1};                             // from mesh geometry
///   eu::Conserved<double, 2> f = eu::roe_flux(air, ul, ur, n);  // or hllc_flux
///   using D = camber::ad::Dual<double, 4>;                      // d/dU_L, U_R constant
///   auto fd = eu::roe_flux(air, eu::make_variable_state(ul), eu::state_cast<D>(ur), n);
///   // fd[i].val() == f[i], fd[i].der(k) == dF_i / dU_L[k]
///
/// Roe's entropy fix (Harten and Hyman, J. Comput. Phys. 50, 1983, as
/// LeVeque presents it in "Finite Volume Methods for Hyperbolic Problems",
/// 2002, ch. 15). Roe's
/// linearization lets an expansion shock stand where a rarefaction is
/// transonic, lambda_L < 0 < lambda_R. For the two acoustic fields
/// lambda = q -+ c (lambda_L, lambda_R from U_L and U_R, lambda~ from U~) the
/// wave is split into a left-going part beta at lambda_L and a right-going
/// part 1 - beta at lambda_R, beta = (lambda_R - lambda~) / (lambda_R -
/// lambda_L) clamped to [0, 1], so |lambda~| becomes
///   max(|lambda~|, (1 - beta) lambda_R - beta lambda_L)   if lambda_L < 0 < lambda_R,
/// and stays |lambda~| otherwise. The fix has no tuning parameter and is off
/// on shocks (lambda_L > lambda_R) and in supersonic flow (both signs equal),
/// which keeps the exact shock and the exact upwinding; it is continuous in
/// the states. The contact and shear waves (lambda = q, linearly degenerate)
/// get no fix, which keeps stationary contacts exact. A fixed-width Harten fix
/// such as delta = 0.1 (|q~| + c~) was not chosen: it would smear the
/// stationary shock (whose q~ - c~ = 0 lies inside delta), and the contact
/// too if applied to the q wave.
///
/// HLLC (Toro, "Riemann Solvers and Numerical Methods for Fluid Dynamics",
/// 3rd ed., ch. 10) with Einfeldt's wave speeds (SIAM J. Numer. Anal. 25,
/// 1988): S_L = min(q_L - c_L, q~ - c~), S_R = max(q_R + c_R, q~ + c~), and
/// S* = (p_R - p_L + rho_L q_L (S_L - q_L) - rho_R q_R (S_R - q_R)) /
///      (rho_L (S_L - q_L) - rho_R (S_R - q_R)).
/// Davis' estimates (min/max of the two states' own speeds only) were not
/// chosen: with them HLLC is not exact on the stationary shock.
///
/// Limits: rho > 0 and p > 0 on both sides and |n| > 0 are not checked (a
/// violation gives NaN, kernels cannot throw); Roe's average needs c~^2 > 0,
/// which holds for physical states. These are first-order fluxes of the two
/// face states they are given; second order comes from the reconstructed
/// and limited face states (solvers/euler/reconstruction.hpp) that the
/// residual passes in. The contact-wave eigenvalue |q~| vanishes for flow
/// along the face (stagnation points, boundary layers), where Roe's scheme
/// adds no dissipation to that wave.
///
/// Derivatives: forward mode through any Dual, conventions of
/// autodiff/dual.hpp. The physical flux is smooth. Roe's flux is continuous
/// but not differentiable where an eigenvalue changes sign (abs: Dual gives
/// sign(0) = 0, so at lambda~ = 0 exactly the derivative of |lambda~| is 0,
/// the mean of the two sides) and where the entropy fix switches on or clamps
/// (max and the comparisons take one side: max returns its first argument,
/// |lambda~|, on a tie). HLLC is continuous but not differentiable where S_L
/// or S_R switch between their two candidates (min/max: the first argument,
/// the left/right state's own speed, on a tie) and where S_L, S* or S_R cross
/// 0 (the branch taken at 0: 0 <= S_L gives F_L, else 0 <= S* gives F*_L).
/// Except for abs at 0, a Dual at such a point returns the derivative of the
/// side its comparison selects, not a mean or a subgradient.
///
/// Boundary fluxes (slip wall, far field) are in solvers/euler/boundary.hpp;
/// the gas model and state conversions in solvers/euler/ideal_gas.hpp.
#pragma once

#include <Kokkos_Core.hpp>

#include <camber/autodiff/dual.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>

namespace camber::solvers::euler {

namespace detail {

// a . b for a vector in T and a normal in TN.
template <class T, class TN, int Dim>
KOKKOS_INLINE_FUNCTION common_scalar_t<T, TN> dot(const T (&a)[Dim], const TN (&b)[Dim]) {
  common_scalar_t<T, TN> s = a[0] * b[0];
  for (int d = 1; d < Dim; ++d) s += a[d] * b[d];
  return s;
}

// Returns |n| and sets n^ = n / |n|.
template <class TN, int Dim>
KOKKOS_INLINE_FUNCTION TN unit_normal(const TN (&n)[Dim], TN (&n_hat)[Dim]) {
  const TN area = ad::sqrt(squared_norm(n));
  for (int d = 0; d < Dim; ++d) n_hat[d] = n[d] / area;
  return area;
}

// Roe's average of two states: weights sqrt(rho_L), sqrt(rho_R) on u and H.
template <class T, int Dim>
struct RoeAverage {
  T rho;       // sqrt(rho_L rho_R)
  T vel[Dim];  // u~
  T h;         // H~
  T c2;        // c~^2 = (gamma - 1) (H~ - |u~|^2 / 2)
  T c;
};

template <class T, int Dim>
KOKKOS_INLINE_FUNCTION RoeAverage<T, Dim> roe_average(const IdealGas& gas,
                                                      const Primitive<T, Dim>& wl,
                                                      const Primitive<T, Dim>& wr) {
  RoeAverage<T, Dim> a;
  const T sl = ad::sqrt(wl.rho), sr = ad::sqrt(wr.rho);
  const T weight_l = sl / (sl + sr), weight_r = sr / (sl + sr);
  a.rho = sl * sr;
  for (int d = 0; d < Dim; ++d) a.vel[d] = weight_l * wl.vel[d] + weight_r * wr.vel[d];
  a.h = weight_l * total_enthalpy(gas, wl) + weight_r * total_enthalpy(gas, wr);
  a.c2 = (gas.gamma - 1.0) * (a.h - 0.5 * squared_norm(a.vel));
  a.c = ad::sqrt(a.c2);
  return a;
}

// |lambda~| with the Harten-Hyman entropy fix (see the header comment):
// lambda~ the Roe eigenvalue, lambda_l and lambda_r those of the left and
// right states.
template <class R>
KOKKOS_INLINE_FUNCTION R harten_hyman_abs(const R& lambda, const R& lambda_l, const R& lambda_r) {
  const R magnitude = ad::abs(lambda);
  if (!(lambda_l < 0.0 && 0.0 < lambda_r)) return magnitude;
  R beta = (lambda_r - lambda) / (lambda_r - lambda_l);
  beta = ad::min(ad::max(beta, 0.0), 1.0);
  return ad::max(magnitude, R((1.0 - beta) * lambda_r - beta * lambda_l));
}

// Toro's HLLC star-region flux F*_K = F_K + S_K (U*_K - U_K), times the area
// (f_k is already area-weighted).
template <class R, class T, class TN, int Dim>
KOKKOS_INLINE_FUNCTION Conserved<R, Dim> hllc_star_flux(const Conserved<T, Dim>& u,
                                                        const Primitive<T, Dim>& w,
                                                        const Conserved<R, Dim>& f_k, const R& q,
                                                        const R& s, const R& s_star,
                                                        const TN (&n_hat)[Dim], const TN& area) {
  const R factor = w.rho * (s - q) / (s - s_star);
  Conserved<R, Dim> u_star;
  u_star[0] = factor;
  for (int d = 0; d < Dim; ++d) u_star[1 + d] = factor * (w.vel[d] + (s_star - q) * n_hat[d]);
  u_star[Dim + 1] =
      factor * (u.rho_E() / w.rho + (s_star - q) * (s_star + w.p / (w.rho * (s - q))));
  Conserved<R, Dim> f;
  for (int i = 0; i < Dim + 2; ++i) f[i] = f_k[i] + area * s * (u_star[i] - u[i]);
  return f;
}

}  // namespace detail

// ------------------------------------------------------------ physical flux

// F(U).n for the area-weighted normal n: (m.n, m (m.n) / rho + p n,
// (rho E + p) (m.n) / rho) with m = rho u.
template <class T, class TN, int Dim>
KOKKOS_INLINE_FUNCTION Conserved<common_scalar_t<T, TN>, Dim> physical_flux(
    const IdealGas& gas, const Conserved<T, Dim>& u, const TN (&n)[Dim]) {
  using R = common_scalar_t<T, TN>;
  const T p = pressure(gas, u);
  R mass = u.mom(0) * n[0];
  for (int d = 1; d < Dim; ++d) mass += u.mom(d) * n[d];
  const R q = mass / u.rho();  // (u.n) |n|
  Conserved<R, Dim> f;
  f[0] = mass;
  for (int d = 0; d < Dim; ++d) f[1 + d] = u.mom(d) * q + p * n[d];
  f[Dim + 1] = (u.rho_E() + p) * q;
  return f;
}

namespace detail {

// What Roe's and HLLC's fluxes both start from: the unit normal and the
// face length, both sides' primitive states and sound speeds, Roe's
// average, and the normal velocities of the three.
template <class T, class TN, int Dim>
struct FaceWaves {
  using R = common_scalar_t<T, TN>;
  TN n_hat[Dim];
  TN area;
  Primitive<T, Dim> wl, wr;
  RoeAverage<T, Dim> a;
  T cl, cr;
  R ql, qr, qa;
  KOKKOS_INLINE_FUNCTION FaceWaves(const IdealGas& gas, const Conserved<T, Dim>& ul,
                                   const Conserved<T, Dim>& ur, const TN (&n)[Dim])
      : area(unit_normal(n, n_hat)),
        wl(to_primitive(gas, ul)),
        wr(to_primitive(gas, ur)),
        a(roe_average(gas, wl, wr)),
        cl(sound_speed(gas, wl)),
        cr(sound_speed(gas, wr)),
        ql(dot(wl.vel, n_hat)),
        qr(dot(wr.vel, n_hat)),
        qa(dot(a.vel, n_hat)) {}
};

}  // namespace detail

// ------------------------------------------------------------ Roe

// Roe's flux with the Harten-Hyman entropy fix on the acoustic waves.
template <class T, class TN, int Dim>
KOKKOS_INLINE_FUNCTION Conserved<common_scalar_t<T, TN>, Dim> roe_flux(const IdealGas& gas,
                                                                       const Conserved<T, Dim>& ul,
                                                                       const Conserved<T, Dim>& ur,
                                                                       const TN (&n)[Dim]) {
  using R = common_scalar_t<T, TN>;
  const detail::FaceWaves<T, TN, Dim> fw(gas, ul, ur, n);
  const auto& n_hat = fw.n_hat;
  const TN area = fw.area;
  const Primitive<T, Dim>&wl = fw.wl, &wr = fw.wr;
  const detail::RoeAverage<T, Dim>& a = fw.a;
  const T cl = fw.cl, cr = fw.cr;
  const R ql = fw.ql, qr = fw.qr, qa = fw.qa;

  // Wave strengths of the jump U_R - U_L in U~'s eigenvectors.
  const T d_rho = wr.rho - wl.rho, d_p = wr.p - wl.p;
  T d_vel[Dim];
  for (int d = 0; d < Dim; ++d) d_vel[d] = wr.vel[d] - wl.vel[d];
  const R d_q = qr - ql;
  const R alpha_minus = (d_p - a.rho * a.c * d_q) / (2.0 * a.c2);  // q - c wave
  const R alpha_plus = (d_p + a.rho * a.c * d_q) / (2.0 * a.c2);   // q + c wave
  const T alpha_entropy = d_rho - d_p / a.c2;                      // q wave

  const R abs_minus = detail::harten_hyman_abs(R(qa - a.c), R(ql - cl), R(qr - cr));
  const R abs_plus = detail::harten_hyman_abs(R(qa + a.c), R(ql + cl), R(qr + cr));
  const R abs_q = ad::abs(qa);

  // |A| (U_R - U_L) = sum of |lambda| alpha K over the waves, with the
  // shear waves rho~ (0, du - dq n^, u~.du - q~ dq).
  const R w_minus = abs_minus * alpha_minus, w_plus = abs_plus * alpha_plus;
  const R w_entropy = abs_q * alpha_entropy, w_shear = abs_q * a.rho;
  Conserved<R, Dim> diss;
  diss[0] = w_minus + w_entropy + w_plus;
  for (int d = 0; d < Dim; ++d)
    diss[1 + d] = w_minus * (a.vel[d] - a.c * n_hat[d]) + w_entropy * a.vel[d] +
                  w_plus * (a.vel[d] + a.c * n_hat[d]) + w_shear * (d_vel[d] - d_q * n_hat[d]);
  T ua_dot_dvel = a.vel[0] * d_vel[0];
  for (int d = 1; d < Dim; ++d) ua_dot_dvel += a.vel[d] * d_vel[d];
  diss[Dim + 1] = w_minus * (a.h - qa * a.c) + w_entropy * (0.5 * detail::squared_norm(a.vel)) +
                  w_plus * (a.h + qa * a.c) + w_shear * (ua_dot_dvel - qa * d_q);

  const Conserved<R, Dim> fl = physical_flux(gas, ul, n), fr = physical_flux(gas, ur, n);
  Conserved<R, Dim> f;
  for (int i = 0; i < Dim + 2; ++i) f[i] = 0.5 * (fl[i] + fr[i]) - 0.5 * area * diss[i];
  return f;
}

// ------------------------------------------------------------ HLLC

// Toro's HLLC flux with Einfeldt's wave-speed estimates.
template <class T, class TN, int Dim>
KOKKOS_INLINE_FUNCTION Conserved<common_scalar_t<T, TN>, Dim> hllc_flux(const IdealGas& gas,
                                                                        const Conserved<T, Dim>& ul,
                                                                        const Conserved<T, Dim>& ur,
                                                                        const TN (&n)[Dim]) {
  using R = common_scalar_t<T, TN>;
  const detail::FaceWaves<T, TN, Dim> fw(gas, ul, ur, n);
  const auto& n_hat = fw.n_hat;
  const TN area = fw.area;
  const Primitive<T, Dim>&wl = fw.wl, &wr = fw.wr;
  const detail::RoeAverage<T, Dim>& a = fw.a;
  const T cl = fw.cl, cr = fw.cr;
  const R ql = fw.ql, qr = fw.qr, qa = fw.qa;

  const R s_l = ad::min(R(ql - cl), R(qa - a.c));
  const R s_r = ad::max(R(qr + cr), R(qa + a.c));
  if (0.0 <= s_l) return physical_flux(gas, ul, n);
  if (s_r <= 0.0) return physical_flux(gas, ur, n);

  // Toro eq. 10.37; the denominator is <= -(rho_L c_L + rho_R c_R) < 0.
  const R s_star = (wr.p - wl.p + wl.rho * ql * (s_l - ql) - wr.rho * qr * (s_r - qr)) /
                   (wl.rho * (s_l - ql) - wr.rho * (s_r - qr));
  if (0.0 <= s_star)
    return detail::hllc_star_flux(ul, wl, physical_flux(gas, ul, n), ql, s_l, s_star, n_hat, area);
  return detail::hllc_star_flux(ur, wr, physical_flux(gas, ur, n), qr, s_r, s_star, n_hat, area);
}

}  // namespace camber::solvers::euler
