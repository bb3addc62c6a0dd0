/// @file
/// Ideal-gas states for the compressible Euler equations, templated on the
/// scalar type so one source gives values (double) and exact derivatives
/// (camber::ad::Dual, nested for second order).
///
/// A state lives in two forms, in Dim = 2 or 3 space dimensions:
///
///   conserved  U = (rho, rho u_1 .. rho u_Dim, rho E)      Conserved<T, Dim>
///   primitive  W = (rho, u_1 .. u_Dim, p)                  Primitive<T, Dim>
///   p = (gamma - 1) (rho E - rho |u|^2 / 2),   c^2 = gamma p / rho,
///   H = (rho E + p) / rho,   M = |u| / c,   s = p / rho^gamma.
///
///   namespace eu = camber::solvers::euler;
///   const eu::IdealGas air{1.4};
///   const eu::Primitive<double, 2> w{1.0, {0.8, 0.1}, 1.0 / 1.4};  // rho, u, p
///   const eu::Conserved<double, 2> u = eu::to_conserved(air, w);
///   const double c = eu::sound_speed(air, u), h = eu::total_enthalpy(air, u);
///
/// Conserved<T, Dim> is also the layout of a flux and of a residual (one
/// entry per conserved quantity), stored by value in a plain array q[Dim + 2]
/// so that a cell's state copies into ad::jacobian's input arrays. Most users
/// want the fluxes of solvers/euler/flux.hpp built on these functions.
///
/// Everything is KOKKOS_INLINE_FUNCTION on value types (no allocation, no
/// exceptions): callable inside kernels. Nothing checks that rho > 0 and
/// p > 0; a non-physical state gives NaN, not an error, as kernels cannot
/// throw. Derivatives: forward mode through any Dual; mach_number has an
/// infinite derivative at u = 0 (sqrt of |u|^2 at 0, see autodiff/dual.hpp),
/// every other function is smooth where rho > 0 and p > 0.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <utility>

#include <camber/autodiff/dual.hpp>

namespace camber::solvers::euler {

// The scalar type of an expression mixing A and B (double with a Dual, or a
// Dual with one of its inner levels): the type of a * b.
template <class A, class B>
using common_scalar_t = std::decay_t<decltype(std::declval<A>() * std::declval<B>())>;

// Calorically perfect gas. gamma is a plain number: a model constant, never
// differentiated.
struct IdealGas {
  double gamma = 1.4;
};

// A vector over the conserved quantities: a state (rho, rho u, rho E), a
// flux through a face, or a residual. An aggregate:
// Conserved<double, 2>{{rho, rho_u, rho_v, rho_E}}.
template <class T, int Dim>
struct Conserved {
  static_assert(Dim >= 1 && Dim <= 3, "Conserved<T, Dim>: Dim must be 1, 2 or 3");
  static constexpr int dim = Dim;
  static constexpr int n_vars = Dim + 2;

  T q[Dim + 2] = {};

  KOKKOS_INLINE_FUNCTION T& operator[](int i) { return q[i]; }
  KOKKOS_INLINE_FUNCTION const T& operator[](int i) const { return q[i]; }
  KOKKOS_INLINE_FUNCTION T& rho() { return q[0]; }
  KOKKOS_INLINE_FUNCTION const T& rho() const { return q[0]; }
  KOKKOS_INLINE_FUNCTION T& mom(int d) { return q[1 + d]; }
  KOKKOS_INLINE_FUNCTION const T& mom(int d) const { return q[1 + d]; }
  // Total energy per unit volume, rho E = p / (gamma - 1) + rho |u|^2 / 2.
  KOKKOS_INLINE_FUNCTION T& rho_E() { return q[Dim + 1]; }
  KOKKOS_INLINE_FUNCTION const T& rho_E() const { return q[Dim + 1]; }
};

// Density, velocity and pressure. An aggregate:
// Primitive<double, 2>{rho, {u, v}, p}.
template <class T, int Dim>
struct Primitive {
  static_assert(Dim >= 1 && Dim <= 3, "Primitive<T, Dim>: Dim must be 1, 2 or 3");
  static constexpr int dim = Dim;

  T rho = {};
  T vel[Dim] = {};
  T p = {};
};

namespace detail {
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T squared_norm(const T (&a)[Dim]) {
  T s = a[0] * a[0];
  for (int d = 1; d < Dim; ++d) s += a[d] * a[d];
  return s;
}
}  // namespace detail

// ------------------------------------------------------------ scalar types

// The state in another scalar type, e.g. a constant (zero-derivative) Dual
// copy of a double state: state_cast<ad::Dual<double, 4>>(u).
template <class R, class T, int Dim>
KOKKOS_INLINE_FUNCTION Conserved<R, Dim> state_cast(const Conserved<T, Dim>& u) {
  Conserved<R, Dim> r;
  for (int i = 0; i < Dim + 2; ++i) r.q[i] = u.q[i];
  return r;
}

// The state as Dim + 2 independent variables: entry k is seeded in
// direction k, so any function of the result carries d/dU_k in der(k).
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION Conserved<ad::Dual<T, Dim + 2>, Dim> make_variable_state(
    const Conserved<T, Dim>& u) {
  Conserved<ad::Dual<T, Dim + 2>, Dim> r;
  for (int i = 0; i < Dim + 2; ++i) r.q[i] = ad::make_variable<Dim + 2>(u.q[i], i);
  return r;
}

// ------------------------------------------------------------ conversions

template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T pressure(const IdealGas& gas, const Conserved<T, Dim>& u) {
  T m2 = u.q[1] * u.q[1];
  for (int d = 1; d < Dim; ++d) m2 += u.q[1 + d] * u.q[1 + d];
  return (gas.gamma - 1.0) * (u.rho_E() - 0.5 * m2 / u.rho());
}

// The pressure of a row of a state Tensor, u[0..nv) with nv = dim + 2
// conserved variables (2-D or 3-D, known at run time).
inline double pressure_of_row(const IdealGas& gas, const double* u, int nv) {
  if (nv == 5) {
    Conserved<double, 3> s;
    for (int k = 0; k < 5; ++k) s[k] = u[k];
    return pressure(gas, s);
  }
  Conserved<double, 2> s;
  for (int k = 0; k < 4; ++k) s[k] = u[k];
  return pressure(gas, s);
}

template <class T, int Dim>
KOKKOS_INLINE_FUNCTION Primitive<T, Dim> to_primitive(const IdealGas& gas,
                                                      const Conserved<T, Dim>& u) {
  Primitive<T, Dim> w;
  w.rho = u.rho();
  for (int d = 0; d < Dim; ++d) w.vel[d] = u.mom(d) / u.rho();
  w.p = (gas.gamma - 1.0) * (u.rho_E() - 0.5 * w.rho * detail::squared_norm(w.vel));
  return w;
}

template <class T, int Dim>
KOKKOS_INLINE_FUNCTION Conserved<T, Dim> to_conserved(const IdealGas& gas,
                                                      const Primitive<T, Dim>& w) {
  Conserved<T, Dim> u;
  u.rho() = w.rho;
  for (int d = 0; d < Dim; ++d) u.mom(d) = w.rho * w.vel[d];
  u.rho_E() = w.p / (gas.gamma - 1.0) + 0.5 * w.rho * detail::squared_norm(w.vel);
  return u;
}

// ------------------------------------------------------------ derived quantities

// c = sqrt(gamma p / rho).
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T sound_speed(const IdealGas& gas, const Primitive<T, Dim>& w) {
  return ad::sqrt(gas.gamma * w.p / w.rho);
}
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T sound_speed(const IdealGas& gas, const Conserved<T, Dim>& u) {
  return ad::sqrt(gas.gamma * pressure(gas, u) / u.rho());
}

// M = |u| / c. Its derivative is infinite at u = 0 (see the header comment).
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T mach_number(const IdealGas& gas, const Primitive<T, Dim>& w) {
  return ad::sqrt(detail::squared_norm(w.vel) * w.rho / (gas.gamma * w.p));
}
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T mach_number(const IdealGas& gas, const Conserved<T, Dim>& u) {
  return mach_number(gas, to_primitive(gas, u));
}

// H = (rho E + p) / rho = gamma / (gamma - 1) p / rho + |u|^2 / 2.
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T total_enthalpy(const IdealGas& gas, const Primitive<T, Dim>& w) {
  return gas.gamma / (gas.gamma - 1.0) * w.p / w.rho + 0.5 * detail::squared_norm(w.vel);
}
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T total_enthalpy(const IdealGas& gas, const Conserved<T, Dim>& u) {
  return (u.rho_E() + pressure(gas, u)) / u.rho();
}

// s = p / rho^gamma: constant along particle paths in smooth flow, so
// (s - s_inf) / s_inf measures the entropy a scheme generates.
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T entropy_measure(const IdealGas& gas, const Primitive<T, Dim>& w) {
  return w.p / ad::pow(w.rho, gas.gamma);
}
template <class T, int Dim>
KOKKOS_INLINE_FUNCTION T entropy_measure(const IdealGas& gas, const Conserved<T, Dim>& u) {
  return pressure(gas, u) / ad::pow(u.rho(), gas.gamma);
}

}  // namespace camber::solvers::euler
