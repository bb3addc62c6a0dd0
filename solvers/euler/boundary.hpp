/// @file
/// Boundary conditions of the compressible Euler equations as face fluxes
/// and ghost states, templated on the scalar type like solvers/euler/flux.hpp.
///
/// Slip wall: no mass or energy crosses the wall, so only the pressure acts,
///   F_wall = (0, p n, 0),   p the interior pressure,
/// with n the area-weighted normal pointing out of the fluid.
///
/// Characteristic far field (Riemann invariants of the 1-D flow normal to
/// the face, n pointing out of the domain, q = u.n/|n|):
///   R+ = q_i + 2 c_i / (gamma - 1)   carried outward, from the interior
///   R- = q_inf - 2 c_inf / (gamma - 1)   carried inward, from the free stream
///   q_b = (R+ + R-) / 2,   c_b = (gamma - 1) (R+ - R-) / 4,
/// entropy s = p / rho^gamma and tangential velocity from the upstream side
/// (the interior where q_b >= w c_b, outflow; the free stream where
/// q_b <= -w c_b, inflow; in between the two sides' values weighted by
/// the C1 cubic 1/2 + x (3 - x^2) / 4 of x = q_b / (w c_b), w =
/// far_field_blend_width), rho_b = (c_b^2 / (gamma s))^(1 / (gamma - 1)),
/// p_b = rho_b c_b^2 / gamma. Supersonic normal flow takes every value from
/// upstream: q_i >= c_i returns the interior state, q_i <= -c_i the free
/// stream (both exactly).
///
/// Why the blend: where the flow is nearly tangent to the boundary (the
/// sides of a box-shaped far field, whatever the angle of attack) a hard
/// switch at q_b = 0 jumps by the difference between the interior's and
/// the free stream's entropy and tangential velocity, and the faces that
/// flip between the two from one Newton step to the next stall the
/// residual. On the M6's 17k-cell curvature-sized grid at M 0.5 the
/// second-order solve took 65 Newton steps to 1e-8 with the switch and
/// 52 with the blend (docs/performance.md, "The far field's switch, the tip cap and p3").
///
///   namespace eu = camber::solvers::euler;
///   const eu::IdealGas air{1.4};
///   const auto u_inf = eu::to_conserved(air, eu::Primitive<double, 2>{1.0, {0.5, 0.0}, 1 / 1.4});
///   const auto u_b = eu::far_field_state(air, u_interior, u_inf, n);  // ghost state
///   const auto f_far = eu::roe_flux(air, u_interior, u_b, n);         // far-field face
///   const auto f_wall = eu::slip_wall_flux(air, u_interior, n);       // wall face
///
/// Limits: the far-field state switches its data source at |q_i| = c_i, so
/// it is discontinuous there unless the interior is close to the free
/// stream (as it is where a far-field boundary belongs); it needs
/// R+ > R- (c_b > 0), which fails only for a strong expansion towards the
/// boundary. The wall pressure is the interior's (first order, no normal
/// Riemann problem). Not checked (kernels cannot throw); violations give NaN.
///
/// Derivatives: forward mode through any Dual. Both functions are smooth
/// inside each branch (the far-field state is C1 across the blend's ends);
/// at the supersonic switches a Dual takes the branch its value selects
/// (q_i = +-c_i counts as supersonic).
#pragma once

#include <Kokkos_Core.hpp>

#include <camber/autodiff/dual.hpp>
#include <camber/solvers/euler/flux.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>

namespace camber::solvers::euler {

// The half-width of the far-field state's blend between inflow and outflow
// data, as a fraction of the boundary's sound speed c_b (header comment).
inline constexpr double far_field_blend_width = 0.1;

// (0, p n, 0): the flux through a slip wall with area-weighted normal n.
template <class T, class TN, int Dim>
KOKKOS_INLINE_FUNCTION Conserved<common_scalar_t<T, TN>, Dim> slip_wall_flux(
    const IdealGas& gas, const Conserved<T, Dim>& u, const TN (&n)[Dim]) {
  const T p = pressure(gas, u);
  Conserved<common_scalar_t<T, TN>, Dim> f;
  for (int d = 0; d < Dim; ++d) f[1 + d] = p * n[d];
  return f;
}

// The boundary (ghost) state of a characteristic far field, from the
// interior state, the free stream and the outward normal n (any length).
template <class T, class TF, class TN, int Dim>
KOKKOS_INLINE_FUNCTION Conserved<common_scalar_t<common_scalar_t<T, TF>, TN>, Dim> far_field_state(
    const IdealGas& gas, const Conserved<T, Dim>& interior, const Conserved<TF, Dim>& free_stream,
    const TN (&n)[Dim]) {
  using R = common_scalar_t<common_scalar_t<T, TF>, TN>;
  TN n_hat[Dim];
  detail::unit_normal(n, n_hat);
  const Primitive<T, Dim> wi = to_primitive(gas, interior);
  const Primitive<TF, Dim> wf = to_primitive(gas, free_stream);
  const T ci = sound_speed(gas, wi);
  const TF cf = sound_speed(gas, wf);
  const R qi = detail::dot(wi.vel, n_hat);
  const R qf = detail::dot(wf.vel, n_hat);
  if (qi >= ci) return state_cast<R>(interior);
  if (qi <= -ci) return state_cast<R>(free_stream);

  const double g1 = gas.gamma - 1.0;
  const R r_out = qi + 2.0 * ci / g1;
  const R r_in = qf - 2.0 * cf / g1;
  const R qb = 0.5 * (r_out + r_in);
  const R cb = 0.25 * g1 * (r_out - r_in);
  Primitive<R, Dim> wb;
  // Outflow takes entropy and tangential velocity from the interior, inflow
  // from the free stream, blended by a C1 cubic across q_b = 0.
  const double width = far_field_blend_width;  // a value, not the variable: device code
  const R x = qb / (width * cb);
  const R w = x >= 1.0 ? R(1.0) : x <= -1.0 ? R(0.0) : R(0.5 + 0.25 * x * (3.0 - x * x));
  const R s = w * entropy_measure(gas, wi) + (1.0 - w) * entropy_measure(gas, wf);
  for (int d = 0; d < Dim; ++d)
    wb.vel[d] = w * (wi.vel[d] + (qb - qi) * n_hat[d]) +
                (1.0 - w) * (wf.vel[d] + (qb - qf) * n_hat[d]);
  wb.rho = ad::pow(R(cb * cb / (gas.gamma * s)), 1.0 / g1);
  wb.p = wb.rho * cb * cb / gas.gamma;
  return to_conserved(gas, wb);
}

}  // namespace camber::solvers::euler
