#include <camber/solvers/euler/reconstruction.hpp>

#include <cmath>

namespace camber::solvers::euler {

const char* limiter_kind_name(LimiterKind kind) {
  switch (kind) {
    case LimiterKind::venkatakrishnan: return "venkatakrishnan";
    case LimiterKind::none: return "none";
    case LimiterKind::venkatakrishnan_wang: return "venkatakrishnan_wang";
    case LimiterKind::venkatakrishnan_smooth: return "venkatakrishnan_smooth";
  }
  return "unknown";
}

namespace detail {

// The weighted least-squares fit of every owned cell from its stencil
// neighbours' centroids (weights 1 / |d|^2), x_f - x_i, and eps^2, in the
// geometry's scalar. Returns the number of cells whose neighbours do not
// span the plane (their coefficients are zero: a zero gradient).
template <class Gs>
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
        const Gs xc = centroid(c, 0), yc = centroid(c, 1);
        for (index_t j = offset(c); j < offset(c + 1); ++j) {
          const index_t f = faces(j);
          to_face(j, 0) = center(f, 0) - xc;
          to_face(j, 1) = center(f, 1) - yc;
        }
        // Normal matrix M = sum_j w_j d_j d_j^T of the weighted fit.
        Gs m00 = 0.0, m01 = 0.0, m11 = 0.0;
        for (index_t j = nb_offset(c); j < nb_offset(c + 1); ++j) {
          const index_t nb = nb_cell(j);
          const Gs dx = centroid(nb, 0) - xc, dy = centroid(nb, 1) - yc;
          const Gs w = 1.0 / (dx * dx + dy * dy);
          m00 += w * dx * dx;
          m01 += w * dx * dy;
          m11 += w * dy * dy;
        }
        const Gs det = m00 * m11 - m01 * m01;
        const Gs trace = m00 + m11;
        const bool singular = !(det > 1e-12 * trace * trace);
        if (singular) ++n_bad;
        for (index_t j = nb_offset(c); j < nb_offset(c + 1); ++j) {
          const index_t nb = nb_cell(j);
          coefficient(j, 0) = 0.0;
          coefficient(j, 1) = 0.0;
          if (singular) continue;
          const Gs dx = centroid(nb, 0) - xc, dy = centroid(nb, 1) - yc;
          const Gs w = 1.0 / (dx * dx + dy * dy);
          // M^-1 w d
          coefficient(j, 0) = w * (m11 * dx - m01 * dy) / det;
          coefficient(j, 1) = w * (m00 * dy - m01 * dx) / det;
        }
        const Gs kh = k * ad::sqrt(ad::fabs(volume(c)));
        eps2(c) = kh * kh * kh;
      },
      degenerate);
  return degenerate;
}

template <class Gs>
StencilGeometry<Gs> allocate_stencil(index_t n_entries, index_t n_neighbors, index_t n_owned) {
  StencilGeometry<Gs> s;
  s.coefficient = Kokkos::View<Gs**>("euler::recon_coefficient", n_neighbors, 2);
  s.to_face = Kokkos::View<Gs**>("euler::recon_to_face", n_entries, 2);
  s.eps2 = Kokkos::View<Gs*>("euler::recon_eps2", n_owned);
  return s;
}

}  // namespace detail

Reconstruction::Reconstruction(const mesh::Geometry& geometry, index_t n_owned,
                               const Kokkos::View<index_t*>& cell_face_offset,
                               const Kokkos::View<index_t*>& cell_face,
                               const SpatialOptions& options,
                               const Kokkos::View<index_t*>& neighbor_offset,
                               const Kokkos::View<index_t*>& neighbor_cell)
    : n_owned_(n_owned), options_(options), offset_(cell_face_offset), face_(cell_face) {
  nb_offset_ = neighbor_offset;
  nb_cell_ = neighbor_cell;
  geometry_ = detail::allocate_stencil<double>(static_cast<index_t>(cell_face.extent(0)),
                                               static_cast<index_t>(nb_cell_.extent(0)), n_owned);
  n_degenerate_ = detail::build_stencil<double>(geometry, n_owned, offset_, face_, nb_offset_,
                                                nb_cell_, options.venkatakrishnan_k, geometry_);
}

template <class Gs>
StencilGeometry<Gs> Reconstruction::stencil_geometry(
    const mesh::GeometryFields<Gs>& geometry) const {
  StencilGeometry<Gs> s = detail::allocate_stencil<Gs>(
      static_cast<index_t>(face_.extent(0)), static_cast<index_t>(nb_cell_.extent(0)), n_owned_);
  detail::build_stencil<Gs>(geometry, n_owned_, offset_, face_, nb_offset_, nb_cell_,
                            options_.venkatakrishnan_k, s);
  return s;
}

template <class T, class Gs>
void Reconstruction::gradients_with(const StencilGeometry<Gs>& geometry, const Field<T>& W,
                                    const Field<T>& G,
                                    const Kokkos::View<const index_t*>* cells) const {
  const auto offset = nb_offset_;
  const auto neighbor = nb_cell_;
  const auto coefficient = geometry.coefficient;
  const OwnedRows rows(n_owned_, cells);
  Kokkos::parallel_for(
      "euler::lsq_gradients", Kokkos::RangePolicy<>(0, rows.n), KOKKOS_LAMBDA(const index_t i) {
        const index_t c = rows.row(i);
        T g[8] = {};
        for (index_t j = offset(c); j < offset(c + 1); ++j) {
          const index_t nb = neighbor(j);
          const Gs cx = coefficient(j, 0), cy = coefficient(j, 1);
          for (int k = 0; k < 4; ++k) {
            const T dw = W(nb, k) - W(c, k);
            g[2 * k] += cx * dw;
            g[2 * k + 1] += cy * dw;
          }
        }
        for (int m = 0; m < 8; ++m) G(c, m) = g[m];
      });
}

template <class T, class Gs>
void Reconstruction::limiters_with(const StencilGeometry<Gs>& geometry, const Field<T>& W,
                                   const Field<T>& G, const Field<T>& phi,
                                   const Kokkos::View<const index_t*>* cells) const {
  const auto offset = offset_;
  const auto nb_offset = nb_offset_;
  const auto neighbor = nb_cell_;
  const auto to_face = geometry.to_face;
  const auto eps2 = geometry.eps2;
  const bool unlimited = options_.limiter == LimiterKind::none;
  const LimiterForm form = limiter_form(options_.limiter);
  const double wang_eps2 = options_.wang_epsilon * options_.wang_epsilon;
  const double extreme_width = options_.smooth_width * options_.wang_epsilon;
  const OwnedRows rows(n_owned_, cells);
  Kokkos::parallel_for(
      "euler::venkatakrishnan", Kokkos::RangePolicy<>(0, rows.n), KOKKOS_LAMBDA(const index_t i) {
        const index_t c = rows.row(i);
        for (int k = 0; k < 4; ++k) {
          if (unlimited) {
            phi(c, k) = T(1.0);
            continue;
          }
          T d_max, d_min;
          if (form == LimiterForm::smooth) {
            smooth_neighbour_range(W, c, k, neighbor, nb_offset(c), nb_offset(c + 1),
                                   extreme_width, d_max, d_min);
          } else {
            index_t c_max, c_min;
            neighbour_extremes(W, c, k, neighbor, nb_offset(c), nb_offset(c + 1), c_max, c_min);
            d_max = W(c_max, k) - W(c, k);
            d_min = W(c_min, k) - W(c, k);
          }
          const T gx = G(c, 2 * k), gy = G(c, 2 * k + 1);
          const T p = form == LimiterForm::classic
                          ? venkatakrishnan_cell(d_max, d_min, gx, gy, to_face, offset(c),
                                                 offset(c + 1), form, eps2(c))
                          : venkatakrishnan_cell(d_max, d_min, gx, gy, to_face, offset(c),
                                                 offset(c + 1), form, wang_eps2);
          phi(c, k) = p;
        }
      });
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
// Node-coordinate derivatives: state and geometry in Dual<double, 2>.
template StencilGeometry<ad::Dual<double, 2>> Reconstruction::stencil_geometry(
    const mesh::GeometryFields<ad::Dual<double, 2>>&) const;
template void Reconstruction::gradients_with<ad::Dual<double, 2>, ad::Dual<double, 2>>(
    const StencilGeometry<ad::Dual<double, 2>>&, const Field<ad::Dual<double, 2>>&,
    const Field<ad::Dual<double, 2>>&,
    const Kokkos::View<const index_t*>*) const;
template void Reconstruction::limiters_with<ad::Dual<double, 2>, ad::Dual<double, 2>>(
    const StencilGeometry<ad::Dual<double, 2>>&, const Field<ad::Dual<double, 2>>&,
    const Field<ad::Dual<double, 2>>&, const Field<ad::Dual<double, 2>>&,
    const Kokkos::View<const index_t*>*) const;

}  // namespace camber::solvers::euler
