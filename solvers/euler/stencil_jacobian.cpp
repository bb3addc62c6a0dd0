// Discretization::jacobian_by_stencil: the exact Jacobian of the residual
// by the chain rule through the reconstruction, one owned cell at a time.
//
// The flux through face f depends on the two face states; cell c's face
// state W_f,c = W_c + phi_c (grad W_c . (x_f - x_c)) depends, variable by
// variable, on W_m for m in M(c) = {c} and c's reconstruction neighbours
// (through the least-squares gradient, and through the limiter's extremes
// and its face increments), and W_m on U_m alone. So
//
//   dF_f/dU_m (c's side) = A_f,c  diag(d_f,c,m)  P_m,
//
// with A_f,c = dF_f/dW_f,c (a 4x4 Dual evaluation of the face flux),
// d_f,c,m[k] = dW_f,c,k / dW_m,k (the reconstruction of variable k, by
// Dual<double, 8> over chunks of M(c)) and P_m = dW/dU at U_m. Each owned
// cell contributes its side of each of its faces to both cells' rows; the
// other side of a face is its own cell's contribution (on the rank that
// owns it). Where the residual takes a kink (the limiter's min/max, the
// positivity fallback) this follows the branch the residual's values took,
// as the Dual evaluation of the colouring does.
//
// Cost: per owned cell O(|M(c)| faces) small dense products, against one
// Dual<double, 4> residual per colour for the colouring (SU2's QuickStart
// mesh with node-neighbour stencils, 47 colours: 102 ms against 944 ms,
// docs/performance.md).
#include <algorithm>
#include <vector>

#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/jacobian.hpp>
#include <camber/solvers/euler/discretization.hpp>

#include "detail/face_flux.hpp"

namespace camber::solvers::euler {

namespace {

using detail::BoundaryFlux;
using detail::InteriorFlux;
using detail::field_of;
using detail::outer_state;

// The flux through one face as a function of one side's primitive face
// state, the other side's (conserved) state fixed.
struct SideFlux {
  IdealGas gas;
  double n[2];
  int scheme;
  int kind;  // -1: interior
  Conserved<double, 2> outer;
  Conserved<double, 2> other;
  bool left;  // the varied state is the face's left one
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(const T (&q)[4], T (&y)[4]) const {
    Primitive<T, 2> w;
    w.rho = q[0];
    w.vel[0] = q[1];
    w.vel[1] = q[2];
    w.p = q[3];
    const Conserved<T, 2> u = to_conserved(gas, w);
    if (kind >= 0) {
      T x[4];
      for (int k = 0; k < 4; ++k) x[k] = u[k];
      BoundaryFlux<>{gas, {n[0], n[1]}, scheme, kind, outer}(x, y);
      return;
    }
    T x[8];
    for (int k = 0; k < 4; ++k) {
      x[left ? k : 4 + k] = u[k];
      x[left ? 4 + k : k] = T(other[k]);
    }
    InteriorFlux<>{gas, {n[0], n[1]}, scheme}(x, y);
  }
};

// (rho, u, v, p) of a conserved state: what the residual reconstructs.
struct ToPrimitive {
  IdealGas gas;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(const T (&x)[4], T (&y)[4]) const {
    Conserved<T, 2> s;
    for (int k = 0; k < 4; ++k) s[k] = x[k];
    const Primitive<T, 2> w = to_primitive(gas, s);
    y[0] = w.rho;
    y[1] = w.vel[0];
    y[2] = w.vel[1];
    y[3] = w.p;
  }
};

// Blocks per chunk of cells (16 doubles each): bounds the buffer at 8 MiB.
constexpr index_t chunk_blocks = index_t{1} << 16;

}  // namespace

void Discretization::jacobian_by_stencil(Tensor& U, const BlockVisitor& visit) const {
  require_2d("jacobian_by_stencil");
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, n_vars()}),
                 "euler jacobian_by_stencil: U has shape " << shape_string(U.shape())
                                                           << ", expected "
                                                           << shape_string({n_local_, n_vars()}));
  using D8 = ad::Dual<double, 8>;
  dm_->halo().forward(U);
  const Field<double> u = field_of(U);
  const index_t n_local = n_local_, n_owned = n_owned_;
  const IdealGas gas = gas_;
  const bool reconstruct = spatial_.order == 2;
  const bool frozen = reconstruct && spatial_.freeze_limiter;
  const bool unlimited = spatial_.limiter == LimiterKind::none;
  const LimiterForm form = limiter_form(spatial_.limiter);
  const bool smooth = form == LimiterForm::smooth;
  const double wang_eps2 = spatial_.wang_epsilon * spatial_.wang_epsilon;
  const double extreme_width = spatial_.smooth_width * spatial_.wang_epsilon;

  // Values: W and P = dW/dU in every local cell; at second order the
  // gradients G and limiter phi of the owned cells and the limited
  // gradients L = phi G of every local cell (ghost rows from their owners).
  Field<double> W("euler::W", static_cast<size_t>(n_local), 4);
  Field<double> G("euler::G", static_cast<size_t>(reconstruct ? n_owned : 0), 8);
  Field<double> phi("euler::phi", static_cast<size_t>(reconstruct ? n_owned : 0), 4);
  Field<double> L("euler::L", static_cast<size_t>(n_local), 8);  // zero at first order
  if (reconstruct)
    limited_gradients<double, double>(reconstruction_.geometry(), u, W, L, G, phi);
  else
    primitive_field<double>(u, W);
  Field<double> P("euler::dW_dU", static_cast<size_t>(n_local), 16);
  Kokkos::parallel_for(
      "euler::stencil_dW_dU", Kokkos::RangePolicy<>(0, n_local), KOKKOS_LAMBDA(const index_t c) {
        double x[4], y[4], J[4][4];
        for (int k = 0; k < 4; ++k) x[k] = u(c, k);
        ad::jacobian(ToPrimitive{gas}, x, y, J);
        for (int k = 0; k < 4; ++k)
          for (int b = 0; b < 4; ++b) P(c, 4 * k + b) = J[k][b];
      });

  const auto face_offset = cell_face_offset_;
  const auto faces = cell_face_;
  const auto left = face_left_, right = face_right_;
  const auto kind = face_kind_;
  const auto normal = geometry_.face_normal;
  const auto to_center = face_to_center_;
  const auto outer = outer_state_;
  const int scheme = static_cast<int>(scheme_);
  const auto nb_offset = reconstruction_.neighbor_offset();
  const auto nb_cell = reconstruction_.neighbor_cell();
  const StencilGeometry<double>& sg = reconstruction_.geometry();
  const auto coefficient = sg.coefficient;
  const auto to_face = sg.to_face;
  const auto eps2 = sg.eps2;

  const auto h_face_offset = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), face_offset);
  const auto h_faces = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), faces);
  const auto h_sign = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cell_face_sign_);
  const auto h_left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), left);
  const auto h_right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), right);
  const auto h_nb_offset = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nb_offset);
  const auto h_nb_cell = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nb_cell);
  const auto members = [&](index_t c) {
    return reconstruct ? 1 + h_nb_offset(c + 1) - h_nb_offset(c) : index_t{1};
  };

  std::vector<index_t> cols;
  std::vector<double> sum;
  // One buffer for all chunks (every entry is written before it is read).
  index_t largest = 0;
  for (index_t c = 0; c < n_owned; ++c)
    largest = std::max(largest, (h_face_offset(c + 1) - h_face_offset(c)) * members(c));
  Kokkos::View<double*> blocks(Kokkos::view_alloc(Kokkos::WithoutInitializing, "euler::stencil_blocks"),
                               static_cast<size_t>(std::max(largest, chunk_blocks)) * 16);
  const auto h_blocks = Kokkos::create_mirror_view(blocks);
  for (index_t c0 = 0; c0 < n_owned;) {
    // Cells [c0, c1): their blocks start at base(c - c0).
    std::vector<index_t> base{0};
    index_t c1 = c0;
    while (c1 < n_owned) {
      const index_t n = (h_face_offset(c1 + 1) - h_face_offset(c1)) * members(c1);
      if (c1 > c0 && base.back() + n > chunk_blocks) break;
      base.push_back(base.back() + n);
      ++c1;
    }
    Kokkos::View<index_t*> d_base("euler::stencil_base", base.size());
    Kokkos::deep_copy(d_base, Kokkos::View<index_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                  base.data(), base.size()));

    Kokkos::parallel_for(
        "euler::stencil_blocks", Kokkos::RangePolicy<>(c0, c1), KOKKOS_LAMBDA(const index_t c) {
          const index_t j0 = face_offset(c), j1 = face_offset(c + 1);
          const index_t n0 = reconstruct ? nb_offset(c) : 0;
          const index_t nm = reconstruct ? 1 + nb_offset(c + 1) - n0 : 1;
          double* out = blocks.data() + d_base(c - c0) * 16;
          const auto member = [&](index_t i) { return i == 0 ? c : nb_cell(n0 + i - 1); };
          // x_f - x_c of face entry j, and whether c's state there fell back
          // to W_c (reconstructed_state's positivity test; always at first
          // order, where L is zero and the face state is W_c).
          const auto to_face_centre = [&](index_t j, double& dx, double& dy) {
            const index_t f = faces(j);
            const int side = left(f) == c ? 0 : 2;
            dx = to_center(f, side);
            dy = to_center(f, side + 1);
          };
          const auto falls_back = [&](index_t j) {
            if (!reconstruct) return true;
            double dx, dy;
            to_face_centre(j, dx, dy);
            const double rho = W(c, 0) + L(c, 0) * dx + L(c, 1) * dy;
            const double p = W(c, 3) + L(c, 6) * dx + L(c, 7) * dy;
            return !(rho > 0.0) || !(p > 0.0);
          };

          // 1. d[k] of each (face, member) on the diagonal of its block.
          for (index_t j = j0; j < j1; ++j) {
            double* row = out + (j - j0) * nm * 16;
            for (index_t i = 0; i < nm * 16; ++i) row[i] = 0.0;
            if (falls_back(j))
              for (int k = 0; k < 4; ++k) row[5 * k] = 1.0;  // W_f,c = W_c
          }
          if (reconstruct) {
            const bool live = !frozen && !unlimited;
            for (int k = 0; k < 4; ++k) {
              index_t i_max = 0, i_min = 0;
              if (live && !smooth) {
                index_t c_max, c_min;
                neighbour_extremes(W, c, k, nb_cell, n0, n0 + nm - 1, c_max, c_min);
                for (index_t i = 1; i < nm; ++i) {
                  if (member(i) == c_max && i_max == 0) i_max = i;
                  if (member(i) == c_min && i_min == 0) i_min = i;
                }
              }
              for (index_t q0 = 0; q0 < nm; q0 += 8) {
                const auto x = [&](index_t i) {
                  D8 v(W(member(i), k));
                  if (i >= q0 && i < q0 + 8) v.der(static_cast<int>(i - q0)) = 1.0;
                  return v;
                };
                const D8 x0 = x(0);
                D8 gx(0.0), gy(0.0);
                for (index_t i = 1; i < nm; ++i) {
                  const D8 dw = x(i) - x0;
                  gx += coefficient(n0 + i - 1, 0) * dw;
                  gy += coefficient(n0 + i - 1, 1) * dw;
                }
                D8 p(phi(c, k));
                if (live) {
                  D8 d_max = x(i_max) - x0, d_min = x(i_min) - x0;
                  if (smooth) {
                    // smooth_neighbour_range on the members' Duals.
                    d_max = D8(0.0);
                    d_min = D8(0.0);
                    for (index_t i = 1; i < nm; ++i)
                      smooth_range_add(d_max, d_min, D8(x(i) - x0), extreme_width);
                  }
                  p = form == LimiterForm::classic
                          ? venkatakrishnan_cell(d_max, d_min, gx, gy, to_face, j0, j1, form, eps2(c))
                          : venkatakrishnan_cell(d_max, d_min, gx, gy, to_face, j0, j1, form,
                                                 wang_eps2);
                }
                const D8 lx = p * gx, ly = p * gy;
                for (index_t j = j0; j < j1; ++j) {
                  // A face whose state fell back to W_c keeps the diagonal set above.
                  if (falls_back(j)) continue;
                  double dx, dy;
                  to_face_centre(j, dx, dy);
                  double* row = out + (j - j0) * nm * 16;
                  const D8 q = x0 + lx * dx + ly * dy;
                  for (index_t i = q0; i < nm && i < q0 + 8; ++i)
                    row[i * 16 + 5 * k] = q.der(static_cast<int>(i - q0));
                }
              }
            }
          }

          // 2. The flux's derivative through c's face state, then the chain.
          // The face states are reconstructed_state's (W itself at first
          // order, where L is zero).
          for (index_t j = j0; j < j1; ++j) {
            const index_t f = faces(j);
            const bool is_left = left(f) == c;
            const int side = is_left ? 0 : 2;
            const Primitive<double, 2> wc =
                reconstructed_state(W, L, c, to_center(f, side), to_center(f, side + 1));
            double q[4] = {wc.rho, wc.vel[0], wc.vel[1], wc.p};
            SideFlux flux{gas, {normal(f, 0), normal(f, 1)}, scheme, kind(f), outer_state(outer, f),
                          Conserved<double, 2>{}, is_left};
            const index_t o = is_left ? right(f) : left(f);
            if (o >= 0) {
              const int os = 2 - side;
              flux.other = to_conserved(
                  gas, reconstructed_state(W, L, o, to_center(f, os), to_center(f, os + 1)));
              flux.kind = -1;
            }
            double y[4], A[4][4];
            ad::jacobian(flux, q, y, A);
            double* row = out + (j - j0) * nm * 16;
            for (index_t i = 0; i < nm; ++i) {
              double* b = row + i * 16;
              const index_t m = member(i);
              double d[4];
              for (int k = 0; k < 4; ++k) d[k] = b[5 * k];
              for (int a = 0; a < 4; ++a)
                for (int e = 0; e < 4; ++e) {
                  double s = 0.0;
                  for (int k = 0; k < 4; ++k) s += A[a][k] * d[k] * P(m, 4 * k + e);
                  b[4 * a + e] = s;
                }
            }
          }
        });
    Kokkos::fence();
    Kokkos::deep_copy(h_blocks, blocks);

    for (index_t c = c0; c < c1; ++c) {
      const index_t j0 = h_face_offset(c), j1 = h_face_offset(c + 1);
      const index_t nm = members(c);
      cols.resize(static_cast<size_t>(nm));
      cols[0] = c;
      for (index_t i = 1; i < nm; ++i) cols[static_cast<size_t>(i)] = h_nb_cell(h_nb_offset(c) + i - 1);
      const double* cb = h_blocks.data() + base[static_cast<size_t>(c - c0)] * 16;
      sum.assign(static_cast<size_t>(nm) * 16, 0.0);
      for (index_t j = j0; j < j1; ++j) {
        const double s = h_sign(j);
        const double* b = cb + (j - j0) * nm * 16;
        for (index_t a = 0; a < nm * 16; ++a) sum[static_cast<size_t>(a)] += s * b[a];
      }
      visit(c, nm, cols.data(), sum.data());
      for (index_t j = j0; j < j1; ++j) {
        const index_t f = h_faces(j);
        const index_t o = h_left(f) == c ? h_right(f) : h_left(f);
        if (o < 0) continue;
        const double s = -h_sign(j);
        const double* b = cb + (j - j0) * nm * 16;
        for (index_t a = 0; a < nm * 16; ++a) sum[static_cast<size_t>(a)] = s * b[a];
        visit(o, nm, cols.data(), sum.data());
      }
    }
    c0 = c1;
  }
}

}  // namespace camber::solvers::euler
