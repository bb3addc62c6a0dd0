// The reconstruction's kernel pieces: Venkatakrishnan's limiter of one
// face and of one cell in its three forms (classic, Wang's, the smooth
// one), the neighbours' range, the rows a kernel computes and the face
// states W + phi grad W . dx. Shared by the reconstruction
// (reconstruction.cpp), the residual (discretization.cpp) and the stencil
// assembly of the Jacobian (stencil_jacobian.cpp); not installed.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

#include <camber/solvers/euler/reconstruction.hpp>

namespace camber::solvers::euler::detail {

// Venkatakrishnan's limiter value of one face: d1 the neighbours' range
// (max_j W_j - W_i if d2 > 0, min_j W_j - W_i if d2 < 0), d2 the
// unlimited increment to the face. 1 at d2 = 0. May exceed 1 where d1 >
// 2 d2; callers take the min with 1.
template <class T, class E>
KOKKOS_INLINE_FUNCTION T venkatakrishnan_phi(const T& d1, const T& d2, const E& eps2) {
  const T d1_2 = d1 * d1;
  return (d1_2 + eps2 + 2.0 * d1 * d2) / (d1_2 + 2.0 * d2 * d2 + d1 * d2 + eps2);
}

// The smooth cap of venkatakrishnan_wang: x below 1 - delta, 1 above 1,
// and between them the cubic Hermite blend with value and slope matched at
// both ends (C^1, monotone, equal to 1 with slope 0 at x = 1). Venkatakrishnan's
// function is 1 for linear data and exceeds 1 where the neighbours' range
// is wide (up to ~1.06), so min(1, phi) puts smooth regions on a kink; the
// cap leaves them flat at 1.
template <class T>
KOKKOS_INLINE_FUNCTION T smooth_cap(const T& x, double delta = 0.5) {
  if (x >= 1.0) return T(1.0);
  if (x <= 1.0 - delta) return x;
  const T t = (x - (1.0 - delta)) / delta;
  const T t2 = t * t, t3 = t2 * t;
  return (1.0 - delta) * (2.0 * t3 - 3.0 * t2 + 1.0) + delta * (t3 - 2.0 * t2 + t) +
         (-2.0 * t3 + 3.0 * t2);
}

// Smooth maximum of a and b: (a + b + sqrt((a - b)^2 + delta^2)) / 2, at
// least max(a, b) and at most max(a, b) + delta / 2 (at a = b); C^infinity.
template <class T>
KOKKOS_INLINE_FUNCTION T smooth_max_above(const T& a, const T& b, double delta) {
  const T d = a - b;
  return 0.5 * (a + b + ad::sqrt(d * d + delta * delta));
}
// Smooth minimum of a and b that stays between them:
// (a + b + delta - sqrt((a - b)^2 + delta^2)) / 2, equal to a at a = b and
// within delta / 2 above min(a, b); C^infinity.
template <class T>
KOKKOS_INLINE_FUNCTION T smooth_min_between(const T& a, const T& b, double delta) {
  const T d = a - b;
  return 0.5 * (a + b + delta - ad::sqrt(d * d + delta * delta));
}

// The limiter's switches, from the most to the least switching.
enum class LimiterForm : int { classic, wang, smooth };

inline LimiterForm limiter_form(LimiterKind kind) {
  return kind == LimiterKind::venkatakrishnan_smooth ? LimiterForm::smooth
         : kind == LimiterKind::venkatakrishnan_wang ? LimiterForm::wang
                                                     : LimiterForm::classic;
}

// venkatakrishnan_smooth's width of the minimum over faces, in units of
// phi (that of the neighbours' extremes is SpatialOptions::smooth_width;
// 0.01 here instead of 0.05 did not change which solutions Newton found on
// the 48 x 24 grid of the design tests).
constexpr double smooth_face_width = 0.05;

// The limiter of one cell and variable: the smallest face value over the
// cell's faces, d_max and d_min the neighbours' largest and smallest values
// minus the cell's, g the unlimited gradient, to_face(j, .) = x_f - x_i for
// the cell's face entries j in [j0, j1), eps2 the threshold squared
// (venkatakrishnan_wang: the global one, with the smooth cap). The kinks
// (which face, d_max or d_min) are chosen on values, as ad::min does.
template <int Dim, class T, class TF, class E>
KOKKOS_INLINE_FUNCTION T venkatakrishnan_cell(const T& d_max, const T& d_min, const T (&g)[Dim],
                                              const TF& to_face, index_t j0, index_t j1,
                                              LimiterForm form, const E& eps2) {
  T p = T(1.0);
  for (index_t j = j0; j < j1; ++j) {
    T d2 = g[0] * to_face(j, 0);
    for (int d = 1; d < Dim; ++d) d2 += g[d] * to_face(j, d);
    if (form != LimiterForm::classic) {
      // Near d2 = 0 the function exceeds 1 on both sides, so the cap
      // removes the switch between d_max and d_min there too.
      if (!(d2 > 0.0) && !(d2 < 0.0)) continue;
      const T f = smooth_cap(venkatakrishnan_phi(d2 > 0.0 ? d_max : d_min, d2, eps2));
      p = form == LimiterForm::smooth ? smooth_min_between(p, f, smooth_face_width) : ad::min(p, f);
    } else if (d2 > 0.0) {
      p = ad::min(p, venkatakrishnan_phi(d_max, d2, eps2));
    } else if (d2 < 0.0) {
      p = ad::min(p, venkatakrishnan_phi(d_min, d2, eps2));
    }
  }
  return p;
}

// The adjugate, determinant and singularity floor of the least-squares
// fit's symmetric normal matrix m (only its upper triangle read): M^-1 =
// adj / det where det > det_floor = 1e-12 trace^Dim (Reconstruction's test
// of a stencil that spans the space; reconstruction.hpp).
template <int Dim, class T>
KOKKOS_INLINE_FUNCTION void normal_matrix_adjugate(const T (&m)[Dim][Dim], T (&adj)[Dim][Dim],
                                                   T& det, T& det_floor) {
  if constexpr (Dim == 2) {
    adj[0][0] = m[1][1];
    adj[0][1] = adj[1][0] = -m[0][1];
    adj[1][1] = m[0][0];
    det = m[0][0] * m[1][1] - m[0][1] * m[0][1];
    const T trace = m[0][0] + m[1][1];
    det_floor = 1e-12 * trace * trace;
  } else {
    adj[0][0] = m[1][1] * m[2][2] - m[1][2] * m[1][2];
    adj[0][1] = adj[1][0] = m[0][2] * m[1][2] - m[0][1] * m[2][2];
    adj[0][2] = adj[2][0] = m[0][1] * m[1][2] - m[0][2] * m[1][1];
    adj[1][1] = m[0][0] * m[2][2] - m[0][2] * m[0][2];
    adj[1][2] = adj[2][1] = m[0][1] * m[0][2] - m[0][0] * m[1][2];
    adj[2][2] = m[0][0] * m[1][1] - m[0][1] * m[0][1];
    det = m[0][0] * adj[0][0] + m[0][1] * adj[0][1] + m[0][2] * adj[0][2];
    const T trace = m[0][0] + m[1][1] + m[2][2];
    det_floor = 1e-12 * trace * trace * trace;
  }
}

// The cells holding the largest and the smallest value of variable k among
// cell c and its neighbours neighbor(j0 .. j1) (the first of equal values
// wins, as ad::max and ad::min choose), found on plain values.
template <class T, class N>
KOKKOS_INLINE_FUNCTION void neighbour_extremes(const Field<T>& W, index_t c, int k,
                                               const N& neighbor, index_t j0, index_t j1,
                                               index_t& c_max, index_t& c_min) {
  c_max = c;
  c_min = c;
  double v_max = ad::value(W(c, k)), v_min = v_max;
  for (index_t j = j0; j < j1; ++j) {
    const index_t nb = neighbor(j);
    const double v = ad::value(W(nb, k));
    if (v_max < v) {
      v_max = v;
      c_max = nb;
    }
    if (v < v_min) {
      v_min = v;
      c_min = nb;
    }
  }
}

// neighbour_extremes of all Nv variables of cell c in one pass over its
// neighbours (each neighbour's row read once, not once per variable): the
// same cells, ties broken the same way.
template <int Nv, class T, class N>
KOKKOS_INLINE_FUNCTION void neighbour_extremes_all(const Field<T>& W, index_t c, const N& neighbor,
                                                   index_t j0, index_t j1, index_t (&c_max)[Nv],
                                                   index_t (&c_min)[Nv]) {
  double v_max[Nv], v_min[Nv];
  for (int k = 0; k < Nv; ++k) {
    c_max[k] = c_min[k] = c;
    v_max[k] = v_min[k] = ad::value(W(c, k));
  }
  for (index_t j = j0; j < j1; ++j) {
    const index_t nb = neighbor(j);
    // Selects, not branches: which neighbour is the largest is data the
    // branch predictor cannot learn.
    for (int k = 0; k < Nv; ++k) {
      const double v = ad::value(W(nb, k));
      const bool above = v_max[k] < v, below = v < v_min[k];
      v_max[k] = above ? v : v_max[k];
      c_max[k] = above ? nb : c_max[k];
      v_min[k] = below ? v : v_min[k];
      c_min[k] = below ? nb : c_min[k];
    }
  }
}

// Adds one neighbour's difference d to venkatakrishnan_smooth's running
// d_max (smooth maximum) and d_min (smooth minimum).
template <class T>
KOKKOS_INLINE_FUNCTION void smooth_range_add(T& d_max, T& d_min, const T& d, double delta) {
  d_max = smooth_max_above(d_max, d, delta);
  d_min = -smooth_max_above(-d_min, -d, delta);
}

// venkatakrishnan_smooth's d_max and d_min of variable k at cell c: smooth
// maxima (minima) of W_j - W_c over the neighbours and the cell itself
// (0), folded in neighbour order; d_max >= the largest difference >= 0 and
// d_min <= the smallest <= 0, each within delta / 2 per neighbour.
template <class T, class N>
KOKKOS_INLINE_FUNCTION void smooth_neighbour_range(const Field<T>& W, index_t c, int k,
                                                   const N& neighbor, index_t j0, index_t j1,
                                                   double delta, T& d_max, T& d_min) {
  d_max = T(0.0);
  d_min = T(0.0);
  for (index_t j = j0; j < j1; ++j)
    smooth_range_add(d_max, d_min, T(W(neighbor(j), k) - W(c, k)), delta);
}

// The owned rows a reconstruction kernel computes: all n_owned of them
// (cells == nullptr) or the listed ones; row(i) for i in [0, n).
struct OwnedRows {
  OwnedRows(index_t n_owned, const Kokkos::View<const index_t*>* cells)
      : all(cells == nullptr),
        list(all ? Kokkos::View<const index_t*>() : *cells),
        n(all ? n_owned : static_cast<index_t>(list.extent(0))) {}
  KOKKOS_INLINE_FUNCTION index_t row(index_t i) const { return all ? i : list(i); }
  bool all;
  Kokkos::View<const index_t*> list;
  index_t n;
};

// The primitive state of row c of W ({rows, Dim + 2}).
template <int Dim, class T>
KOKKOS_INLINE_FUNCTION Primitive<T, Dim> primitive_row(const Field<T>& W, index_t c) {
  Primitive<T, Dim> w;
  w.rho = W(c, 0);
  for (int d = 0; d < Dim; ++d) w.vel[d] = W(c, 1 + d);
  w.p = W(c, Dim + 1);
  return w;
}

// W + L . dx for the cell row c of W (primitive, {rows, Dim + 2}) and of
// the limited gradients L ({rows, (Dim + 2) Dim}: L(c, Dim k + d) = phi_k
// dW_k/dx_d), or W itself where the result's density or pressure is not
// positive.
template <int Dim, class T, class G>
KOKKOS_INLINE_FUNCTION Primitive<T, Dim> reconstructed_state(const Field<T>& W, const Field<T>& L,
                                                             index_t c, const G (&dx)[Dim]) {
  T q[Dim + 2];
  for (int k = 0; k < Dim + 2; ++k) {
    q[k] = W(c, k);
    for (int d = 0; d < Dim; ++d) q[k] += L(c, Dim * k + d) * dx[d];
  }
  if (!(q[0] > 0.0) || !(q[Dim + 1] > 0.0)) return primitive_row<Dim>(W, c);
  Primitive<T, Dim> w;
  w.rho = q[0];
  for (int d = 0; d < Dim; ++d) w.vel[d] = q[1 + d];
  w.p = q[Dim + 1];
  return w;
}

// reconstructed_state at the midpoint of face f from the side of cell c:
// to_center(f, Dim side + d) = x_f - x_c (side 0: c is the face's left
// cell, 1: its right one).
template <int Dim, class T, class V>
KOKKOS_INLINE_FUNCTION auto face_state(const Field<T>& W, const Field<T>& L, index_t c,
                                       const V& to_center, index_t f, int side) {
  std::remove_const_t<typename V::value_type> dx[Dim];
  for (int d = 0; d < Dim; ++d) dx[d] = to_center(f, Dim * side + d);
  return reconstructed_state<Dim>(W, L, c, dx);
}

}  // namespace camber::solvers::euler::detail
