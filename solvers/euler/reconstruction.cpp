#include <camber/solvers/euler/reconstruction.hpp>

#include <cmath>

#include "detail/reconstruction_kernels.hpp"

namespace camber::solvers::euler {

using detail::LimiterForm;
using detail::OwnedRows;
using detail::limiter_form;

// The table's names are string literals: null-terminated.
const char* limiter_kind_name(LimiterKind kind) {
  return enum_name(limiter_kind_names, kind).data();
}

namespace detail {

// The weighted least-squares fit of every owned cell from its stencil
// neighbours' centroids (weights 1 / |d|^2), x_f - x_i, and eps^2, in the
// geometry's scalar. Returns the number of cells whose neighbours do not
// span the space (their coefficients are zero: a zero gradient).
template <int Dim, class Gs>
index_t build_stencil(const mesh::GeometryFields<Gs>& geometry, index_t n_owned,
                      const Kokkos::View<index_t*>& offset, const Kokkos::View<index_t*>& faces,
                      const Kokkos::View<index_t*>& nb_offset, const Kokkos::View<index_t*>& nb_cell,
                      double k, const StencilGeometry<Gs>& out) {
  const auto centroid = geometry.cell_centroid;
  const auto center = geometry.face_center;
  const auto volume = geometry.cell_volume;
  const auto coefficient = out.coefficient;
  const auto to_face = out.to_face;
  const auto eps2 = out.eps2;
  index_t degenerate = 0;
  Kokkos::parallel_reduce(
      "euler::recon_stencil", Kokkos::RangePolicy<>(0, n_owned),
      KOKKOS_LAMBDA(const index_t c, index_t& n_bad) {
        Gs xc[Dim];
        for (int d = 0; d < Dim; ++d) xc[d] = centroid(c, d);
        for (index_t j = offset(c); j < offset(c + 1); ++j) {
          const index_t f = faces(j);
          for (int d = 0; d < Dim; ++d) to_face(j, d) = center(f, d) - xc[d];
        }
        // d = x_nb - x_c of neighbour entry j and its weight 1 / |d|^2.
        const auto separation = [&](index_t j, Gs (&dv)[Dim]) {
          const index_t nb = nb_cell(j);
          for (int d = 0; d < Dim; ++d) dv[d] = centroid(nb, d) - xc[d];
          Gs dist2 = dv[0] * dv[0];
          for (int d = 1; d < Dim; ++d) dist2 += dv[d] * dv[d];
          return Gs(1.0 / dist2);
        };
        // Normal matrix M = sum_j w_j d_j d_j^T of the weighted fit (upper
        // triangle), then its adjugate (M^-1 = adj / det).
        Gs m[Dim][Dim] = {};
        for (index_t j = nb_offset(c); j < nb_offset(c + 1); ++j) {
          Gs dv[Dim];
          const Gs w = separation(j, dv);
          for (int r = 0; r < Dim; ++r)
            for (int s = r; s < Dim; ++s) m[r][s] += w * dv[r] * dv[s];
        }
        Gs adj[Dim][Dim], det, det_floor;  // singular below det_floor
        normal_matrix_adjugate<Dim>(m, adj, det, det_floor);
        const bool singular = !(det > det_floor);
        if (singular) ++n_bad;
        for (index_t j = nb_offset(c); j < nb_offset(c + 1); ++j) {
          for (int d = 0; d < Dim; ++d) coefficient(j, d) = 0.0;
          if (singular) continue;
          Gs dv[Dim];
          const Gs w = separation(j, dv);
          // M^-1 w d
          for (int r = 0; r < Dim; ++r) {
            Gs a = adj[r][0] * dv[0];
            for (int s = 1; s < Dim; ++s) a += adj[r][s] * dv[s];
            coefficient(j, r) = w * a / det;
          }
        }
        // h = V^(1 / Dim).
        // (|V| read before the branch: CUDA's extended lambdas cannot first
        // capture a variable inside `if constexpr`.)
        const Gs v = ad::fabs(volume(c));
        Gs h;
        if constexpr (Dim == 2)
          h = ad::sqrt(v);
        else
          h = ad::cbrt(v);
        const Gs kh = k * h;
        eps2(c) = kh * kh * kh;
      },
      degenerate);
  return degenerate;
}

template <class Gs>
StencilGeometry<Gs> allocate_stencil(int dim, index_t n_entries, index_t n_neighbors,
                                     index_t n_owned) {
  StencilGeometry<Gs> s;
  s.coefficient = Kokkos::View<Gs**>("euler::recon_coefficient", n_neighbors, dim);
  s.to_face = Kokkos::View<Gs**>("euler::recon_to_face", n_entries, dim);
  s.eps2 = Kokkos::View<Gs*>("euler::recon_eps2", n_owned);
  return s;
}

// build_stencil in dim (2 or 3) dimensions.
template <class Gs>
index_t fit_stencil(int dim, const mesh::GeometryFields<Gs>& geometry, index_t n_owned,
                    const Kokkos::View<index_t*>& offset, const Kokkos::View<index_t*>& faces,
                    const Kokkos::View<index_t*>& nb_offset,
                    const Kokkos::View<index_t*>& nb_cell, double k,
                    const StencilGeometry<Gs>& out) {
  return dim == 3
             ? build_stencil<3, Gs>(geometry, n_owned, offset, faces, nb_offset, nb_cell, k, out)
             : build_stencil<2, Gs>(geometry, n_owned, offset, faces, nb_offset, nb_cell, k, out);
}

// Owned rows (those of `rows`) of the least-squares gradients G from W.
template <int Dim, class T, class Gs>
void lsq_gradients(const Kokkos::View<index_t*>& offset, const Kokkos::View<index_t*>& neighbor,
                   const Kokkos::View<Gs**>& coefficient, const OwnedRows& rows,
                   const Field<T>& W, const Field<T>& G) {
  constexpr int nv = Dim + 2, ng = nv * Dim;
  Kokkos::parallel_for(
      "euler::lsq_gradients", Kokkos::RangePolicy<>(0, rows.n), KOKKOS_LAMBDA(const index_t i) {
        const index_t c = rows.row(i);
        T g[ng] = {};
        for (index_t j = offset(c); j < offset(c + 1); ++j) {
          const index_t nb = neighbor(j);
          Gs cf[Dim];
          for (int d = 0; d < Dim; ++d) cf[d] = coefficient(j, d);
          for (int k = 0; k < nv; ++k) {
            const T dw = W(nb, k) - W(c, k);
            for (int d = 0; d < Dim; ++d) g[Dim * k + d] += cf[d] * dw;
          }
        }
        for (int m = 0; m < ng; ++m) G(c, m) = g[m];
      });
}

// The limiter's settings, in the form the kernel takes them.
struct LimiterSettings {
  bool unlimited;
  LimiterForm form;
  double wang_eps2, extreme_width;
};

// Owned rows (those of `rows`) of Venkatakrishnan's phi from W and G.
template <int Dim, class T, class Gs>
void venkatakrishnan_limiters(const Kokkos::View<index_t*>& offset,
                              const Kokkos::View<index_t*>& nb_offset,
                              const Kokkos::View<index_t*>& neighbor,
                              const StencilGeometry<Gs>& geometry, const LimiterSettings& settings,
                              const OwnedRows& rows, const Field<T>& W, const Field<T>& G,
                              const Field<T>& phi) {
  const auto to_face = geometry.to_face;
  const auto eps2 = geometry.eps2;
  const bool unlimited = settings.unlimited;
  const LimiterForm form = settings.form;
  const double wang_eps2 = settings.wang_eps2;
  const double extreme_width = settings.extreme_width;
  Kokkos::parallel_for(
      "euler::venkatakrishnan", Kokkos::RangePolicy<>(0, rows.n), KOKKOS_LAMBDA(const index_t i) {
        const index_t c = rows.row(i);
        constexpr int nv = Dim + 2;
        if (unlimited) {
          for (int k = 0; k < nv; ++k) phi(c, k) = T(1.0);
          return;
        }
        // The stencil's extreme cells of every variable, in one pass.
        index_t c_max[nv], c_min[nv];
        if (form != LimiterForm::smooth)
          neighbour_extremes_all<nv>(W, c, neighbor, nb_offset(c), nb_offset(c + 1), c_max,
                                     c_min);
        for (int k = 0; k < nv; ++k) {
          T d_max, d_min;
          if (form == LimiterForm::smooth) {
            smooth_neighbour_range(W, c, k, neighbor, nb_offset(c), nb_offset(c + 1),
                                   extreme_width, d_max, d_min);
          } else {
            d_max = W(c_max[k], k) - W(c, k);
            d_min = W(c_min[k], k) - W(c, k);
          }
          T g[Dim];
          for (int d = 0; d < Dim; ++d) g[d] = G(c, Dim * k + d);
          const T p = form == LimiterForm::classic
                          ? venkatakrishnan_cell(d_max, d_min, g, to_face, offset(c),
                                                 offset(c + 1), form, eps2(c))
                          : venkatakrishnan_cell(d_max, d_min, g, to_face, offset(c),
                                                 offset(c + 1), form, wang_eps2);
          phi(c, k) = p;
        }
      });
}

}  // namespace detail

Reconstruction::Reconstruction(const mesh::Geometry& geometry, index_t n_owned,
                               const Kokkos::View<index_t*>& cell_face_offset,
                               const Kokkos::View<index_t*>& cell_face,
                               const SpatialOptions& options,
                               const Kokkos::View<index_t*>& neighbor_offset,
                               const Kokkos::View<index_t*>& neighbor_cell)
    : dim_(static_cast<int>(geometry.cell_centroid.extent(1))),
      n_owned_(n_owned),
      options_(options),
      offset_(cell_face_offset),
      face_(cell_face) {
  nb_offset_ = neighbor_offset;
  nb_cell_ = neighbor_cell;
  geometry_ = detail::allocate_stencil<double>(dim_, static_cast<index_t>(cell_face.extent(0)),
                                               static_cast<index_t>(nb_cell_.extent(0)), n_owned);
  n_degenerate_ = detail::fit_stencil<double>(dim_, geometry, n_owned, offset_, face_, nb_offset_,
                                              nb_cell_, options.venkatakrishnan_k, geometry_);
}

template <class Gs>
StencilGeometry<Gs> Reconstruction::stencil_geometry(
    const mesh::GeometryFields<Gs>& geometry) const {
  StencilGeometry<Gs> s = detail::allocate_stencil<Gs>(
      dim_, static_cast<index_t>(face_.extent(0)), static_cast<index_t>(nb_cell_.extent(0)),
      n_owned_);
  detail::fit_stencil<Gs>(dim_, geometry, n_owned_, offset_, face_, nb_offset_, nb_cell_,
                          options_.venkatakrishnan_k, s);
  return s;
}

template <class T, class Gs>
void Reconstruction::gradients_with(const StencilGeometry<Gs>& geometry, const Field<T>& W,
                                    const Field<T>& G,
                                    const Kokkos::View<const index_t*>* cells) const {
  const OwnedRows rows(n_owned_, cells);
  if (dim_ == 3)
    detail::lsq_gradients<3, T, Gs>(nb_offset_, nb_cell_, geometry.coefficient, rows, W, G);
  else
    detail::lsq_gradients<2, T, Gs>(nb_offset_, nb_cell_, geometry.coefficient, rows, W, G);
}

template <class T, class Gs>
void Reconstruction::limiters_with(const StencilGeometry<Gs>& geometry, const Field<T>& W,
                                   const Field<T>& G, const Field<T>& phi,
                                   const Kokkos::View<const index_t*>* cells) const {
  const detail::LimiterSettings settings{options_.limiter == LimiterKind::none,
                                         limiter_form(options_.limiter),
                                         options_.wang_epsilon * options_.wang_epsilon,
                                         options_.smooth_width * options_.wang_epsilon};
  const OwnedRows rows(n_owned_, cells);
  if (dim_ == 3)
    detail::venkatakrishnan_limiters<3, T, Gs>(offset_, nb_offset_, nb_cell_, geometry, settings,
                                               rows, W, G, phi);
  else
    detail::venkatakrishnan_limiters<2, T, Gs>(offset_, nb_offset_, nb_cell_, geometry, settings,
                                               rows, W, G, phi);
}

template void Reconstruction::gradients_with<double, double>(const StencilGeometry<double>&,
                                                             const Field<double>&,
                                                             const Field<double>&,
    const Kokkos::View<const index_t*>*) const;
template void Reconstruction::limiters_with<double, double>(const StencilGeometry<double>&,
                                                            const Field<double>&,
                                                            const Field<double>&,
                                                            const Field<double>&,
    const Kokkos::View<const index_t*>*) const;
template void Reconstruction::gradients_with<ad::Dual<double, 1>, double>(
    const StencilGeometry<double>&, const Field<ad::Dual<double, 1>>&,
    const Field<ad::Dual<double, 1>>&,
    const Kokkos::View<const index_t*>*) const;
template void Reconstruction::limiters_with<ad::Dual<double, 1>, double>(
    const StencilGeometry<double>&, const Field<ad::Dual<double, 1>>&,
    const Field<ad::Dual<double, 1>>&, const Field<ad::Dual<double, 1>>&,
    const Kokkos::View<const index_t*>*) const;
template void Reconstruction::gradients_with<ad::Dual<double, 4>, double>(
    const StencilGeometry<double>&, const Field<ad::Dual<double, 4>>&,
    const Field<ad::Dual<double, 4>>&,
    const Kokkos::View<const index_t*>*) const;
template void Reconstruction::limiters_with<ad::Dual<double, 4>, double>(
    const StencilGeometry<double>&, const Field<ad::Dual<double, 4>>&,
    const Field<ad::Dual<double, 4>>&, const Field<ad::Dual<double, 4>>&,
    const Kokkos::View<const index_t*>*) const;
template void Reconstruction::gradients_with<ad::Dual<double, 5>, double>(
    const StencilGeometry<double>&, const Field<ad::Dual<double, 5>>&,
    const Field<ad::Dual<double, 5>>&,
    const Kokkos::View<const index_t*>*) const;
template void Reconstruction::limiters_with<ad::Dual<double, 5>, double>(
    const StencilGeometry<double>&, const Field<ad::Dual<double, 5>>&,
    const Field<ad::Dual<double, 5>>&, const Field<ad::Dual<double, 5>>&,
    const Kokkos::View<const index_t*>*) const;
// Node-coordinate derivatives: state and geometry in Dual<double, Dim>.
#define CAMBER_RECONSTRUCTION_SHAPE(N)                                                    \
  template StencilGeometry<ad::Dual<double, N>> Reconstruction::stencil_geometry(         \
      const mesh::GeometryFields<ad::Dual<double, N>>&) const;                            \
  template void Reconstruction::gradients_with<ad::Dual<double, N>, ad::Dual<double, N>>( \
      const StencilGeometry<ad::Dual<double, N>>&, const Field<ad::Dual<double, N>>&,     \
      const Field<ad::Dual<double, N>>&, const Kokkos::View<const index_t*>*) const;      \
  template void Reconstruction::limiters_with<ad::Dual<double, N>, ad::Dual<double, N>>(  \
      const StencilGeometry<ad::Dual<double, N>>&, const Field<ad::Dual<double, N>>&,     \
      const Field<ad::Dual<double, N>>&, const Field<ad::Dual<double, N>>&,               \
      const Kokkos::View<const index_t*>*) const;
CAMBER_RECONSTRUCTION_SHAPE(1)
CAMBER_RECONSTRUCTION_SHAPE(2)
CAMBER_RECONSTRUCTION_SHAPE(3)
#undef CAMBER_RECONSTRUCTION_SHAPE

}  // namespace camber::solvers::euler
