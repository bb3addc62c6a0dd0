// The face fluxes as functions of the face states, shared by the residual
// (discretization.cpp), the stencil assembly of its Jacobian
// (stencil_jacobian.cpp) and its transpose (residual_transpose.cpp), and
// the views between Tensors and Fields.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

#include <camber/solvers/euler/boundary.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/flux.hpp>
#include <camber/autodiff/jacobian.hpp>

#include "reconstruction_kernels.hpp"

namespace camber::solvers::euler::detail {

// The numerical flux of an interior face as a function of (U_L, U_R): what
// both the residual (T = double, Dual<double, 1>) and the Jacobian blocks
// (ad::jacobian with Dual<double, 8>) evaluate.
// TN: the normal's scalar (a Dual for derivatives with respect to node
// coordinates).
template <class TN = double, int Dim = 2>
struct InteriorFlux {
  static constexpr int nv = Dim + 2;
  IdealGas gas;
  TN n[Dim];
  int scheme;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(const T (&x)[2 * nv], T (&y)[nv]) const {
    Conserved<T, Dim> ul, ur;
    for (int k = 0; k < nv; ++k) {
      ul[k] = x[k];
      ur[k] = x[nv + k];
    }
    const Conserved<T, Dim> f = scheme == static_cast<int>(FluxScheme::roe)
                                    ? roe_flux(gas, ul, ur, n)
                                    : hllc_flux(gas, ul, ur, n);
    for (int k = 0; k < nv; ++k) y[k] = f[k];
  }
};

// The flux through a boundary face as a function of the interior state.
template <class TN = double, int Dim = 2>
struct BoundaryFlux {
  static constexpr int nv = Dim + 2;
  IdealGas gas;
  TN n[Dim];
  int scheme;
  int kind;
  Conserved<double, Dim> free_stream;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(const T (&x)[nv], T (&y)[nv]) const {
    Conserved<T, Dim> u;
    for (int k = 0; k < nv; ++k) u[k] = x[k];
    Conserved<T, Dim> f;
    switch (static_cast<BoundaryKind>(kind)) {
      case BoundaryKind::slip_wall:
      case BoundaryKind::symmetry:
        f = slip_wall_flux(gas, u, n);
        break;
      case BoundaryKind::far_field: {
        const Conserved<T, Dim> ub = far_field_state(gas, u, free_stream, n);
        f = scheme == static_cast<int>(FluxScheme::roe) ? roe_flux(gas, u, ub, n)
                                                        : hllc_flux(gas, u, ub, n);
        break;
      }
      case BoundaryKind::supersonic_inflow:
        f = physical_flux(gas, state_cast<T>(free_stream), n);
        break;
      case BoundaryKind::supersonic_outflow:
        f = physical_flux(gas, u, n);
        break;
    }
    for (int k = 0; k < nv; ++k) y[k] = f[k];
  }
};

// The flux through one face as a function of one side's primitive face
// state, the other side's (conserved) state fixed.
template <int Dim>
struct SideFlux {
  static constexpr int nv = Dim + 2;
  IdealGas gas;
  double n[Dim];
  int scheme;
  int kind;  // -1: interior
  Conserved<double, Dim> outer;
  Conserved<double, Dim> other;
  bool left;  // the varied state is the face's left one
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(const T (&q)[nv], T (&y)[nv]) const {
    Primitive<T, Dim> w;
    w.rho = q[0];
    for (int d = 0; d < Dim; ++d) w.vel[d] = q[1 + d];
    w.p = q[Dim + 1];
    const Conserved<T, Dim> u = to_conserved(gas, w);
    if (kind >= 0) {
      T x[nv];
      for (int k = 0; k < nv; ++k) x[k] = u[k];
      BoundaryFlux<double, Dim> flux{gas, {}, scheme, kind, outer};
      for (int d = 0; d < Dim; ++d) flux.n[d] = n[d];
      flux(x, y);
      return;
    }
    T x[2 * nv];
    for (int k = 0; k < nv; ++k) {
      x[left ? k : nv + k] = u[k];
      x[left ? nv + k : k] = T(other[k]);
    }
    InteriorFlux<double, Dim> flux{gas, {}, scheme};
    for (int d = 0; d < Dim; ++d) flux.n[d] = n[d];
    flux(x, y);
  }
};

// (rho, u_1 .. u_Dim, p) of a conserved state: what the residual
// reconstructs.
template <int Dim>
struct ToPrimitive {
  static constexpr int nv = Dim + 2;
  IdealGas gas;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(const T (&x)[nv], T (&y)[nv]) const {
    Conserved<T, Dim> s;
    for (int k = 0; k < nv; ++k) s[k] = x[k];
    const Primitive<T, Dim> w = to_primitive(gas, s);
    y[0] = w.rho;
    for (int d = 0; d < Dim; ++d) y[1 + d] = w.vel[d];
    y[Dim + 1] = w.p;
  }
};

// Row f of the outer states as a Conserved.
template <int Dim = 2>
KOKKOS_INLINE_FUNCTION Conserved<double, Dim> outer_state(const Kokkos::View<double**>& outer,
                                                          index_t f) {
  Conserved<double, Dim> s;
  for (int k = 0; k < Dim + 2; ++k) s[k] = outer(f, k);
  return s;
}

// A[a][k] = dF_a/dq_k of face f's flux with respect to the primitive face
// state q of its side `side` (0: the left cell's), the other side's state
// fixed: both face states reconstructed from W and L (face_state), the
// boundary condition's flux on a boundary face. What the stencil assembly
// (stencil_jacobian.cpp) and the transposed sweep (residual_transpose.cpp)
// chain through.
template <int Dim, class I, class K, class O, class N, class C>
KOKKOS_INLINE_FUNCTION void side_flux_jacobian(const IdealGas& gas, int scheme, const I& left,
                                               const I& right, const K& kind, const O& outer,
                                               const N& normal, const C& to_center,
                                               const Field<double>& W, const Field<double>& L,
                                               index_t f, int side,
                                               double (&A)[Dim + 2][Dim + 2]) {
  constexpr int nv = Dim + 2;
  const index_t c = side == 0 ? left(f) : right(f);
  const Primitive<double, Dim> w = face_state<Dim>(W, L, c, to_center, f, side);
  double q[nv];
  q[0] = w.rho;
  for (int d = 0; d < Dim; ++d) q[1 + d] = w.vel[d];
  q[nv - 1] = w.p;
  SideFlux<Dim> flux{gas, {}, scheme, kind(f), outer_state<Dim>(outer, f),
                     Conserved<double, Dim>{}, side == 0};
  for (int d = 0; d < Dim; ++d) flux.n[d] = normal(f, d);
  const index_t o = side == 0 ? right(f) : left(f);
  if (o >= 0) {
    flux.other = to_conserved(gas, face_state<Dim>(W, L, o, to_center, f, 1 - side));
    flux.kind = -1;
  }
  double y[nv];
  ad::jacobian(flux, q, y, A);
}

// A {rows, n_vars} Tensor's storage as a Field (shared, unmanaged).
inline Field<double> field_of(const Tensor& t) {
  return Field<double>(t.data(), static_cast<size_t>(t.dim(0)), static_cast<size_t>(t.dim(1)));
}

// A Field<T>'s storage as a Tensor of doubles, {rows, cols * doubles per T}
// (shared): a Dual is its value and derivatives side by side, so a halo
// exchange of this Tensor moves whole Duals.
template <class T>
Tensor raw_tensor(const Field<T>& f) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) % sizeof(double) == 0,
                "raw_tensor: T must be a trivially copyable bundle of doubles");
  const index_t per = static_cast<index_t>(sizeof(T) / sizeof(double));
  return Tensor::wrap(reinterpret_cast<double*>(f.data()),
                      {static_cast<index_t>(f.extent(0)), static_cast<index_t>(f.extent(1)) * per});
}

}  // namespace camber::solvers::euler::detail
