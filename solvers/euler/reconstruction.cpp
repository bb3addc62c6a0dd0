#include <camber/solvers/euler/reconstruction.hpp>

#include <cmath>

namespace camber::solvers::euler {

const char* limiter_kind_name(LimiterKind kind) {
  switch (kind) {
    case LimiterKind::venkatakrishnan: return "venkatakrishnan";
    case LimiterKind::none: return "none";
  }
  return "unknown";
}

Reconstruction::Reconstruction(const mesh::Geometry& geometry, index_t n_owned,
                               const Kokkos::View<index_t*>& face_left,
                               const Kokkos::View<index_t*>& face_right,
                               const Kokkos::View<index_t*>& cell_face_offset,
                               const Kokkos::View<index_t*>& cell_face,
                               const Kokkos::View<double*>& cell_face_sign,
                               const SpatialOptions& options)
    : n_owned_(n_owned), options_(options), offset_(cell_face_offset) {
  const index_t n_entries = static_cast<index_t>(cell_face.extent(0));
  neighbor_ = Kokkos::View<index_t*>("euler::recon_neighbor", n_entries);
  coefficient_ = Kokkos::View<double**>("euler::recon_coefficient", n_entries, 2);
  to_face_ = Kokkos::View<double**>("euler::recon_to_face", n_entries, 2);
  eps2_ = Kokkos::View<double*>("euler::recon_eps2", n_owned);

  const auto offset = cell_face_offset;
  const auto faces = cell_face;
  const auto sign = cell_face_sign;
  const auto left = face_left, right = face_right;
  const auto centroid = geometry.cell_centroid;
  const auto center = geometry.face_center;
  const auto volume = geometry.cell_volume;
  const auto neighbor = neighbor_;
  const auto coefficient = coefficient_;
  const auto to_face = to_face_;
  const auto eps2 = eps2_;
  const double k = options.venkatakrishnan_k;
  index_t degenerate = 0;
  Kokkos::parallel_reduce(
      "euler::recon_stencil", Kokkos::RangePolicy<>(0, n_owned),
      KOKKOS_LAMBDA(const index_t c, index_t& n_bad) {
        const double xc = centroid(c, 0), yc = centroid(c, 1);
        // Normal matrix M = sum_j w_j d_j d_j^T of the weighted fit.
        double m00 = 0.0, m01 = 0.0, m11 = 0.0;
        for (index_t j = offset(c); j < offset(c + 1); ++j) {
          const index_t f = faces(j);
          const index_t nb = sign(j) > 0.0 ? right(f) : left(f);
          neighbor(j) = nb;
          to_face(j, 0) = center(f, 0) - xc;
          to_face(j, 1) = center(f, 1) - yc;
          if (nb < 0) continue;
          const double dx = centroid(nb, 0) - xc, dy = centroid(nb, 1) - yc;
          const double w = 1.0 / (dx * dx + dy * dy);
          m00 += w * dx * dx;
          m01 += w * dx * dy;
          m11 += w * dy * dy;
        }
        const double det = m00 * m11 - m01 * m01;
        const double trace = m00 + m11;
        const bool singular = !(det > 1e-12 * trace * trace);
        if (singular) ++n_bad;
        for (index_t j = offset(c); j < offset(c + 1); ++j) {
          const index_t nb = neighbor(j);
          coefficient(j, 0) = 0.0;
          coefficient(j, 1) = 0.0;
          if (nb < 0 || singular) continue;
          const double dx = centroid(nb, 0) - xc, dy = centroid(nb, 1) - yc;
          const double w = 1.0 / (dx * dx + dy * dy);
          // M^-1 w d
          coefficient(j, 0) = w * (m11 * dx - m01 * dy) / det;
          coefficient(j, 1) = w * (m00 * dy - m01 * dx) / det;
        }
        const double kh = k * kmath::sqrt(kmath::fabs(volume(c)));
        eps2(c) = kh * kh * kh;
      },
      degenerate);
  n_degenerate_ = degenerate;
}

template <class T>
void Reconstruction::gradients(const Field<T>& W, const Field<T>& G) const {
  const auto offset = offset_;
  const auto neighbor = neighbor_;
  const auto coefficient = coefficient_;
  Kokkos::parallel_for(
      "euler::lsq_gradients", Kokkos::RangePolicy<>(0, n_owned_), KOKKOS_LAMBDA(const index_t c) {
        T g[8] = {};
        for (index_t j = offset(c); j < offset(c + 1); ++j) {
          const index_t nb = neighbor(j);
          if (nb < 0) continue;
          const double cx = coefficient(j, 0), cy = coefficient(j, 1);
          for (int k = 0; k < 4; ++k) {
            const T dw = W(nb, k) - W(c, k);
            g[2 * k] += cx * dw;
            g[2 * k + 1] += cy * dw;
          }
        }
        for (int i = 0; i < 8; ++i) G(c, i) = g[i];
      });
}

template <class T>
void Reconstruction::limiters(const Field<T>& W, const Field<T>& G, const Field<T>& phi) const {
  const auto offset = offset_;
  const auto neighbor = neighbor_;
  const auto to_face = to_face_;
  const auto eps2 = eps2_;
  const bool unlimited = options_.limiter == LimiterKind::none;
  Kokkos::parallel_for(
      "euler::venkatakrishnan", Kokkos::RangePolicy<>(0, n_owned_), KOKKOS_LAMBDA(const index_t c) {
        for (int k = 0; k < 4; ++k) {
          if (unlimited) {
            phi(c, k) = T(1.0);
            continue;
          }
          const T wc = W(c, k);
          T w_max = wc, w_min = wc;
          for (index_t j = offset(c); j < offset(c + 1); ++j) {
            const index_t nb = neighbor(j);
            if (nb < 0) continue;
            w_max = ad::max(w_max, W(nb, k));
            w_min = ad::min(w_min, W(nb, k));
          }
          const T d_max = w_max - wc, d_min = w_min - wc;
          T p = T(1.0);
          for (index_t j = offset(c); j < offset(c + 1); ++j) {
            const T d2 = G(c, 2 * k) * to_face(j, 0) + G(c, 2 * k + 1) * to_face(j, 1);
            if (d2 > 0.0)
              p = ad::min(p, venkatakrishnan_phi(d_max, d2, eps2(c)));
            else if (d2 < 0.0)
              p = ad::min(p, venkatakrishnan_phi(d_min, d2, eps2(c)));
          }
          phi(c, k) = p;
        }
      });
}

template void Reconstruction::gradients<double>(const Field<double>&, const Field<double>&) const;
template void Reconstruction::limiters<double>(const Field<double>&, const Field<double>&,
                                               const Field<double>&) const;
template void Reconstruction::gradients<ad::Dual<double, 1>>(
    const Field<ad::Dual<double, 1>>&, const Field<ad::Dual<double, 1>>&) const;
template void Reconstruction::limiters<ad::Dual<double, 1>>(
    const Field<ad::Dual<double, 1>>&, const Field<ad::Dual<double, 1>>&,
    const Field<ad::Dual<double, 1>>&) const;

template void Reconstruction::gradients<ad::Dual<double, 4>>(
    const Field<ad::Dual<double, 4>>&, const Field<ad::Dual<double, 4>>&) const;
template void Reconstruction::limiters<ad::Dual<double, 4>>(
    const Field<ad::Dual<double, 4>>&, const Field<ad::Dual<double, 4>>&,
    const Field<ad::Dual<double, 4>>&) const;

}  // namespace camber::solvers::euler
