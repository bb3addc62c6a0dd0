// detail::DiscretizationKernels::jacobian_by_stencil (declared in
// detail/discretization_kernels.hpp): the exact Jacobian of the residual
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
// with A_f,c = dF_f/dW_f,c (an nv x nv Dual evaluation of the face flux,
// nv = dim + 2),
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
//
// Assembly: in chunks of consecutive owned cells (the buffer of their face
// blocks bounded at 8 MiB), one kernel computes each cell's face blocks and
// a second adds them into the owned rows they reach, one thread per row, in
// place in the target's block rows (PETSc's value arrays, from
// ExactJacobian): no atomics, and each entry summed in the same order on
// any number of threads. Ghost rows go to the host visitor.
#include <algorithm>
#include <vector>

#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/jacobian.hpp>
#include <camber/solvers/euler/discretization.hpp>

#include "detail/discretization_kernels.hpp"
#include "detail/face_flux.hpp"
#include "detail/reconstruction_kernels.hpp"

namespace camber::solvers::euler {

namespace {

using detail::ToPrimitive;
using detail::field_of;
using detail::outer_state;
using detail::LimiterForm;
using detail::limiter_form;
using detail::venkatakrishnan_cell;
using detail::neighbour_extremes;
using detail::smooth_range_add;
using detail::smooth_neighbour_range;
using detail::reconstructed_state;
using detail::face_state;

// Doubles per chunk of cells: bounds the buffer at 8 MiB.
constexpr index_t chunk_doubles = index_t{1} << 20;

}  // namespace

void detail::DiscretizationKernels::jacobian_by_stencil(const Discretization& disc, Tensor& U,
                                                        const StencilTarget& target,
                                                        const BlockVisitor& ghost_rows) {
  CAMBER_REQUIRE(U.shape() == (Shape{disc.n_local(), disc.n_vars()}),
                 "euler jacobian_by_stencil: U has shape "
                     << shape_string(U.shape()) << ", expected "
                     << shape_string({disc.n_local(), disc.n_vars()}));
  CAMBER_REQUIRE(static_cast<index_t>(target.row.extent(0)) == disc.n_owned() &&
                     static_cast<index_t>(target.column.extent(0)) == disc.n_local(),
                 "euler jacobian_by_stencil: the target has " << target.row.extent(0)
                     << " rows and " << target.column.extent(0) << " columns, expected "
                     << disc.n_owned() << " and " << disc.n_local());
  if (disc.dim() == 3)
    disc.stencil_blocks<3>(U, target, ghost_rows);
  else
    disc.stencil_blocks<2>(U, target, ghost_rows);
}

template <int Dim>
void Discretization::stencil_blocks(Tensor& U, const detail::StencilTarget& target,
                                    const BlockVisitor& ghost_rows) const {
  using D8 = ad::Dual<double, 8>;
  constexpr int nv = Dim + 2, bs = nv * nv;  // variables, doubles per block
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
  Field<double> W("euler::W", static_cast<size_t>(n_local), nv);
  Field<double> G("euler::G", static_cast<size_t>(reconstruct ? n_owned : 0), nv * Dim);
  Field<double> phi("euler::phi", static_cast<size_t>(reconstruct ? n_owned : 0), nv);
  Field<double> L("euler::L", static_cast<size_t>(n_local), nv * Dim);  // zero at first order
  if (reconstruct)
    limited_gradients<double, double>(reconstruction_.geometry(), u, W, L, G, phi);
  else
    primitive_field<double>(u, W);
  Field<double> P("euler::dW_dU", static_cast<size_t>(n_local), bs);
  Kokkos::parallel_for(
      "euler::stencil_dW_dU", Kokkos::RangePolicy<>(0, n_local), KOKKOS_LAMBDA(const index_t c) {
        double x[nv], y[nv], J[nv][nv];
        for (int k = 0; k < nv; ++k) x[k] = u(c, k);
        ad::jacobian(ToPrimitive<Dim>{gas}, x, y, J);
        for (int k = 0; k < nv; ++k)
          for (int b = 0; b < nv; ++b) P(c, nv * k + b) = J[k][b];
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
  const auto sign = cell_face_sign_;
  const auto h_sign = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sign);
  const auto h_left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), left);
  const auto h_right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), right);
  const auto h_nb_offset = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nb_offset);
  const auto h_nb_cell = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nb_cell);
  const auto members = [&](index_t c) {
    return reconstruct ? 1 + h_nb_offset(c + 1) - h_nb_offset(c) : index_t{1};
  };

  // Target: where each (row, column) block lies in its part.
  const auto t_row = target.row, t_column = target.column;
  const auto off0 = target.offset[0], off1 = target.offset[1];
  const auto col0 = target.columns[0], col1 = target.columns[1];
  const auto val0 = target.value[0], val1 = target.value[1];
  const auto t_shift = target.shift;
  const bool shifted = t_shift.extent(0) > 0;
  Kokkos::View<index_t> missing("euler::stencil_missing");

  std::vector<index_t> cols, rows, seen(static_cast<size_t>(n_owned), -1);
  std::vector<double> sum;
  // One buffer for all chunks (every entry is written before it is read).
  const index_t chunk_blocks = chunk_doubles / bs;
  index_t largest = 0;
  for (index_t c = 0; c < n_owned; ++c)
    largest = std::max(largest, (h_face_offset(c + 1) - h_face_offset(c)) * members(c));
  Kokkos::View<double*> blocks(Kokkos::view_alloc(Kokkos::WithoutInitializing, "euler::stencil_blocks"),
                               static_cast<size_t>(std::max(largest, chunk_blocks)) * bs);
  const auto h_blocks = Kokkos::create_mirror_view(blocks);
  for (index_t c0 = 0; c0 < n_owned;) {
    // Cells [c0, c1): their blocks start at base(c - c0). The owned rows
    // they add to: theirs and their owned face neighbours'.
    std::vector<index_t> base{0};
    rows.clear();
    index_t c1 = c0;
    bool any_ghost_row = false;
    while (c1 < n_owned) {
      const index_t n = (h_face_offset(c1 + 1) - h_face_offset(c1)) * members(c1);
      if (c1 > c0 && base.back() + n > chunk_blocks) break;
      base.push_back(base.back() + n);
      const auto add_row = [&](index_t o) {
        if (seen[static_cast<size_t>(o)] == c0) return;
        seen[static_cast<size_t>(o)] = c0;
        rows.push_back(o);
      };
      add_row(c1);
      for (index_t j = h_face_offset(c1); j < h_face_offset(c1 + 1); ++j) {
        const index_t f = h_faces(j);
        const index_t o = h_left(f) == c1 ? h_right(f) : h_left(f);
        any_ghost_row = any_ghost_row || o >= n_owned;
        if (o >= 0 && o < n_owned) add_row(o);
      }
      ++c1;
    }
    std::sort(rows.begin(), rows.end());
    Kokkos::View<index_t*> d_base("euler::stencil_base", base.size());
    Kokkos::deep_copy(d_base, Kokkos::View<index_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                  base.data(), base.size()));
    const Kokkos::View<const index_t*> d_rows = detail::to_device(rows, "euler::stencil_rows");

    // Pass 1: the blocks of each face of each cell, one thread per cell.
    Kokkos::parallel_for(
        "euler::stencil_blocks", Kokkos::RangePolicy<>(c0, c1), KOKKOS_LAMBDA(const index_t c) {
          const index_t j0 = face_offset(c), j1 = face_offset(c + 1);
          const index_t n0 = reconstruct ? nb_offset(c) : 0;
          const index_t nm = reconstruct ? 1 + nb_offset(c + 1) - n0 : 1;
          double* out = blocks.data() + d_base(c - c0) * bs;
          const auto member = [&](index_t i) { return i == 0 ? c : nb_cell(n0 + i - 1); };
          // x_f - x_c of face entry j, and whether c's state there fell back
          // to W_c (reconstructed_state's positivity test; always at first
          // order, where L is zero and the face state is W_c).
          const auto to_face_centre = [&](index_t j, double (&dx)[Dim]) {
            const index_t f = faces(j);
            const int side = left(f) == c ? 0 : 1;
            for (int d = 0; d < Dim; ++d) dx[d] = to_center(f, Dim * side + d);
          };
          const auto falls_back = [&](index_t j) {
            if (!reconstruct) return true;
            double dx[Dim];
            to_face_centre(j, dx);
            double rho = W(c, 0), p = W(c, nv - 1);
            for (int d = 0; d < Dim; ++d) {
              rho += L(c, d) * dx[d];
              p += L(c, Dim * (nv - 1) + d) * dx[d];
            }
            return !(rho > 0.0) || !(p > 0.0);
          };

          // 1. d[k] of each (face, member) on the diagonal of its block.
          for (index_t j = j0; j < j1; ++j) {
            double* row = out + (j - j0) * nm * bs;
            for (index_t i = 0; i < nm * bs; ++i) row[i] = 0.0;
            if (falls_back(j))
              for (int k = 0; k < nv; ++k) row[(nv + 1) * k] = 1.0;  // W_f,c = W_c
          }
          if (reconstruct) {
            const bool live = !frozen && !unlimited;
            for (int k = 0; k < nv; ++k) {
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
                D8 g[Dim];
                for (int d = 0; d < Dim; ++d) g[d] = D8(0.0);
                for (index_t i = 1; i < nm; ++i) {
                  const D8 dw = x(i) - x0;
                  for (int d = 0; d < Dim; ++d) g[d] += coefficient(n0 + i - 1, d) * dw;
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
                          ? venkatakrishnan_cell(d_max, d_min, g, to_face, j0, j1, form, eps2(c))
                          : venkatakrishnan_cell(d_max, d_min, g, to_face, j0, j1, form, wang_eps2);
                }
                D8 lg[Dim];
                for (int d = 0; d < Dim; ++d) lg[d] = p * g[d];
                for (index_t j = j0; j < j1; ++j) {
                  // A face whose state fell back to W_c keeps the diagonal set above.
                  if (falls_back(j)) continue;
                  double dx[Dim];
                  to_face_centre(j, dx);
                  double* row = out + (j - j0) * nm * bs;
                  D8 q = x0;
                  for (int d = 0; d < Dim; ++d) q += lg[d] * dx[d];
                  for (index_t i = q0; i < nm && i < q0 + 8; ++i)
                    row[i * bs + (nv + 1) * k] = q.der(static_cast<int>(i - q0));
                }
              }
            }
          }

          // 2. The flux's derivative through c's face state, then the chain.
          // The face states are reconstructed_state's (W itself at first
          // order, where L is zero).
          for (index_t j = j0; j < j1; ++j) {
            const index_t f = faces(j);
            const int side = left(f) == c ? 0 : 1;
            double A[nv][nv];
            detail::side_flux_jacobian<Dim>(gas, scheme, left, right, kind, outer, normal,
                                            to_center, W, L, f, side, A);
            double* row = out + (j - j0) * nm * bs;
            for (index_t i = 0; i < nm; ++i) {
              double* b = row + i * bs;
              const index_t m = member(i);
              double d[nv];
              for (int k = 0; k < nv; ++k) d[k] = b[(nv + 1) * k];
              for (int a = 0; a < nv; ++a)
                for (int e = 0; e < nv; ++e) {
                  double s = 0.0;
                  for (int k = 0; k < nv; ++k) s += A[a][k] * d[k] * P(m, nv * k + e);
                  b[nv * a + e] = s;
                }
            }
          }
        });

    // Pass 2: the sums into the owned rows, one thread per row: row r's
    // own faces' blocks, signed as the residual sums them (and the shift),
    // then the block of each face neighbour in [c0, c1) for their common
    // face, negated.
    Kokkos::parallel_for(
        "euler::stencil_rows", Kokkos::RangePolicy<>(0, d_rows.extent(0)),
        KOKKOS_LAMBDA(const index_t ir) {
          const index_t r = d_rows(ir);
          const index_t row = t_row(r);
          // Adds s b to block (row, m) of the target.
          const auto add = [&](index_t m, double s, const double* b) {
            const index_t k = t_column(m);
            const auto& off = k >= 0 ? off0 : off1;
            const auto& col = k >= 0 ? col0 : col1;
            const index_t key = k >= 0 ? k : -1 - k;
            index_t lo = off(row), hi = off(row + 1);
            while (lo < hi) {
              const index_t mid = lo + (hi - lo) / 2;
              if (col(mid) < key)
                lo = mid + 1;
              else
                hi = mid;
            }
            if (lo == off(row + 1) || col(lo) != key) {
              Kokkos::atomic_increment(&missing());
              return;
            }
            double* v = (k >= 0 ? val0 : val1).data() + lo * bs;
            for (int a = 0; a < nv; ++a)
              for (int e = 0; e < nv; ++e) v[a + nv * e] += s * b[nv * a + e];
          };
          const auto n_members = [&](index_t c) {
            return reconstruct ? 1 + nb_offset(c + 1) - nb_offset(c) : index_t{1};
          };
          const auto member = [&](index_t c, index_t i) {
            return i == 0 ? c : nb_cell(nb_offset(c) + i - 1);
          };
          const index_t j0 = face_offset(r), j1 = face_offset(r + 1);
          if (r >= c0 && r < c1) {
            const index_t nm = n_members(r);
            const double* out = blocks.data() + d_base(r - c0) * bs;
            double own[bs];
            for (index_t i = 0; i < nm; ++i) {
              for (int a = 0; a < bs; ++a) own[a] = 0.0;
              for (index_t j = j0; j < j1; ++j) {
                const double s = sign(j);
                const double* b = out + ((j - j0) * nm + i) * bs;
                for (int a = 0; a < bs; ++a) own[a] += s * b[a];
              }
              if (i == 0 && shifted)
                for (int a = 0; a < nv; ++a) own[(nv + 1) * a] += t_shift(r);
              add(member(r, i), 1.0, own);
            }
          }
          for (index_t j = j0; j < j1; ++j) {
            const index_t f = faces(j);
            const index_t o = left(f) == r ? right(f) : left(f);
            if (o < c0 || o >= c1) continue;
            index_t jo = face_offset(o);
            while (faces(jo) != f) ++jo;
            const index_t nm = n_members(o);
            const double* b = blocks.data() + (d_base(o - c0) + (jo - face_offset(o)) * nm) * bs;
            for (index_t i = 0; i < nm; ++i) add(member(o, i), -sign(jo), b + i * bs);
          }
        });
    Kokkos::fence();
    if (any_ghost_row) {
      // The rows of ghost cells across c's faces, to their owners.
      Kokkos::deep_copy(h_blocks, blocks);
      for (index_t c = c0; c < c1; ++c) {
        const index_t j0 = h_face_offset(c), j1 = h_face_offset(c + 1);
        const index_t nm = members(c);
        cols.resize(static_cast<size_t>(nm));
        cols[0] = c;
        for (index_t i = 1; i < nm; ++i)
          cols[static_cast<size_t>(i)] = h_nb_cell(h_nb_offset(c) + i - 1);
        const double* cb = h_blocks.data() + base[static_cast<size_t>(c - c0)] * bs;
        for (index_t j = j0; j < j1; ++j) {
          const index_t f = h_faces(j);
          const index_t o = h_left(f) == c ? h_right(f) : h_left(f);
          if (o < n_owned) continue;
          const double s = -h_sign(j);
          const double* b = cb + (j - j0) * nm * bs;
          sum.resize(static_cast<size_t>(nm) * bs);
          for (index_t a = 0; a < nm * bs; ++a) sum[static_cast<size_t>(a)] = s * b[a];
          ghost_rows(o, nm, cols.data(), sum.data());
        }
      }
    }
    c0 = c1;
  }
  index_t n_missing = 0;
  Kokkos::deep_copy(n_missing, missing);
  CAMBER_REQUIRE(n_missing == 0, "euler jacobian_by_stencil: " << n_missing
                                     << " blocks fall outside the target's sparsity");
}

template void Discretization::stencil_blocks<2>(Tensor&, const detail::StencilTarget&,
                                               const BlockVisitor&) const;
template void Discretization::stencil_blocks<3>(Tensor&, const detail::StencilTarget&,
                                               const BlockVisitor&) const;

}  // namespace camber::solvers::euler
