#include <camber/design/ffd_volume.hpp>

#include <mpi.h>

#include <algorithm>
#include <limits>

#include <camber/core/error.hpp>
#include <camber/design/airfoil_wall.hpp>

namespace camber::design {

FfdVolume::FfdVolume(const FfdVolumeBox& box, const Tensor& points, const FfdVolumeOptions& options)
    : FfdVolume(box,
                [&] {
                  CAMBER_REQUIRE(points.rank() == 2 && points.dim(1) == 3,
                                 "FfdVolume: points must have shape {n, 3}, got "
                                     << shape_string(points.shape()));
                  const auto h = points.host();
                  Kokkos::View<double**> v("ffd_volume_points", static_cast<size_t>(points.dim(0)), 3);
                  const auto vh = Kokkos::create_mirror_view(v);
                  for (index_t p = 0; p < points.dim(0); ++p)
                    for (int d = 0; d < 3; ++d) vh(p, d) = h(3 * p + d);
                  Kokkos::deep_copy(v, vh);
                  return Kokkos::View<const double**>(v);
                }(),
                options) {}

FfdVolume::FfdVolume(const FfdVolumeBox& box, const Kokkos::View<const double**>& points,
                     const FfdVolumeOptions& options)
    : box_(box), options_(options), n_points_(static_cast<index_t>(points.extent(0))) {
  const auto& deg = options_.degree;
  CAMBER_INPUT_REQUIRE(deg[0] >= 2 && deg[1] >= 2 && deg[2] >= 2,
                       "FfdVolume: every degree must be >= 2 (the control points on the box's "
                       "faces are fixed), got "
                           << deg[0] << ", " << deg[1] << ", " << deg[2]);
  CAMBER_INPUT_REQUIRE(options_.move[0] || options_.move[1] || options_.move[2],
                       "FfdVolume: no displacement direction to move (options.move)");
  for (int d = 0; d < 3; ++d)
    CAMBER_INPUT_REQUIRE(box_.hi[static_cast<size_t>(d)] > box_.lo[static_cast<size_t>(d)],
                         "FfdVolume: the box's " << "xyz"[d] << " extent is ["
                                                 << box_.lo[static_cast<size_t>(d)] << ", "
                                                 << box_.hi[static_cast<size_t>(d)] << "]");
  CAMBER_REQUIRE(points.extent(0) == 0 || points.extent(1) == 3,
                 "FfdVolume: points must have 3 columns, got " << points.extent(1));
  for (int d = 0; d < 3; ++d) {
    if (!options_.move[static_cast<size_t>(d)]) continue;
    for (int i = 1; i < deg[0]; ++i)
      for (int j = 1; j < deg[1]; ++j)
        for (int k = 1; k < deg[2]; ++k) variables_.push_back({i, j, k, d});
  }
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), points);
  for (index_t p = 0; p < n_points_; ++p) {
    double local[3];
    bool in = true;
    for (int d = 0; d < 3; ++d) {
      const double lo = box_.lo[static_cast<size_t>(d)], hi = box_.hi[static_cast<size_t>(d)];
      local[d] = (x(p, d) - lo) / (hi - lo);
      in = in && local[d] > 0.0 && local[d] < 1.0;
    }
    if (!in) continue;
    inside_.push_back(p);
    for (int i = 1; i < deg[0]; ++i) bs_.push_back(bernstein(deg[0], i, local[0]));
    for (int j = 1; j < deg[1]; ++j) bt_.push_back(bernstein(deg[1], j, local[1]));
    for (int k = 1; k < deg[2]; ++k) bu_.push_back(bernstein(deg[2], k, local[2]));
  }
}

FfdVolumeBox FfdVolume::box_around(const mesh::DistributedMesh& dm,
                                   const std::vector<std::string>& markers, double margin) {
  CAMBER_INPUT_REQUIRE(margin >= 0.0, "FfdVolume::box_around: margin must be >= 0, got " << margin);
  const mesh::Mesh& m = dm.local();
  CAMBER_REQUIRE(m.dim() == 3, "FfdVolume::box_around: the mesh is " << m.dim() << "-D");
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_offsets());
  const auto nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_nodes());
  // lo as -lo, so that one MPI_MAX reduces both.
  double bounds[6];
  std::fill(bounds, bounds + 6, -std::numeric_limits<double>::infinity());
  for (const std::string& name : markers)
    for (const index_t f : dm.owned_marker_faces(name))
      for (index_t a = off(f); a < off(f + 1); ++a)
        for (int d = 0; d < 3; ++d) {
          bounds[d] = std::max(bounds[d], -x(nodes(a), d));
          bounds[3 + d] = std::max(bounds[3 + d], x(nodes(a), d));
        }
  double all[6];
  CAMBER_CHECK_MPI(MPI_Allreduce(bounds, all, 6, MPI_DOUBLE, MPI_MAX, dm.comm()));
  std::string names;
  for (const std::string& n : markers) names += (names.empty() ? "" : ", ") + n;
  CAMBER_INPUT_REQUIRE(all[3] >= -all[0],
                       "FfdVolume::box_around: the markers " << names << " have no faces");
  FfdVolumeBox b;
  double extent = 0.0;
  for (int d = 0; d < 3; ++d) extent = std::max(extent, all[3 + d] + all[d]);
  for (int d = 0; d < 3; ++d) {
    b.lo[static_cast<size_t>(d)] = -all[d] - margin * extent;
    b.hi[static_cast<size_t>(d)] = all[3 + d] + margin * extent;
  }
  return b;
}

std::array<double, 3> FfdVolume::control_point(int i, int j, int k) const {
  const int ijk[3] = {i, j, k};
  std::array<double, 3> p{};
  for (size_t d = 0; d < 3; ++d)
    p[d] = box_.lo[d] + (box_.hi[d] - box_.lo[d]) * ijk[d] / options_.degree[d];
  return p;
}

Tensor FfdVolume::apply(const Tensor& a) const {
  CAMBER_REQUIRE(a.shape() == (Shape{n_design()}), "FfdVolume::apply: a has shape "
                                                       << shape_string(a.shape()) << ", expected {"
                                                       << n_design() << "}");
  const auto ah = a.host();
  const int ns = options_.degree[0] - 1, nt = options_.degree[1] - 1, nu = options_.degree[2] - 1;
  std::vector<double> y(static_cast<size_t>(n_points_) * 3, 0.0);
  for (size_t q = 0; q < inside_.size(); ++q) {
    const double* s = &bs_[q * static_cast<size_t>(ns)];
    const double* t = &bt_[q * static_cast<size_t>(nt)];
    const double* u = &bu_[q * static_cast<size_t>(nu)];
    double* out = &y[static_cast<size_t>(inside_[q]) * 3];
    for (size_t v = 0; v < variables_.size(); ++v) {
      const Variable& w = variables_[v];
      out[w.direction] += s[w.i - 1] * t[w.j - 1] * u[w.k - 1] * ah(static_cast<index_t>(v));
    }
  }
  return Tensor::from_host({n_points_, 3}, y);
}

Tensor FfdVolume::apply_transpose(const Tensor& y) const {
  CAMBER_REQUIRE(y.shape() == (Shape{n_points_, 3}), "FfdVolume::apply_transpose: y has shape "
                                                         << shape_string(y.shape())
                                                         << ", expected {" << n_points_ << ", 3}");
  const auto yh = y.host();
  const int ns = options_.degree[0] - 1, nt = options_.degree[1] - 1, nu = options_.degree[2] - 1;
  std::vector<double> g(variables_.size(), 0.0);
  for (size_t q = 0; q < inside_.size(); ++q) {
    const double* s = &bs_[q * static_cast<size_t>(ns)];
    const double* t = &bt_[q * static_cast<size_t>(nt)];
    const double* u = &bu_[q * static_cast<size_t>(nu)];
    const index_t p = inside_[q];
    for (size_t v = 0; v < variables_.size(); ++v) {
      const Variable& w = variables_[v];
      g[v] += s[w.i - 1] * t[w.j - 1] * u[w.k - 1] * yh(3 * p + w.direction);
    }
  }
  return Tensor::from_host({n_design()}, g);
}

}  // namespace camber::design
