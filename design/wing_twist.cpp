#include <camber/design/wing_twist.hpp>

#include <algorithm>
#include <cmath>

#include <camber/core/error.hpp>
#include <camber/design/ffd_volume.hpp>

namespace camber::design {

namespace {

constexpr double pi = 3.14159265358979323846;

Kokkos::View<const double**> host_points(const Tensor& points) {
  CAMBER_REQUIRE(points.rank() == 2 && points.dim(1) == 3,
                 "WingTwist: points must have shape {n, 3}, got " << shape_string(points.shape()));
  const auto h = points.host();
  Kokkos::View<double**> v("wing_twist_points", static_cast<size_t>(points.dim(0)), 3);
  const auto vh = Kokkos::create_mirror_view(v);
  for (index_t p = 0; p < points.dim(0); ++p)
    for (int d = 0; d < 3; ++d) vh(p, d) = h(3 * p + d);
  Kokkos::deep_copy(v, vh);
  return v;
}

}  // namespace

void WingTwist::check(const WingTwistOptions& o) {
  CAMBER_INPUT_REQUIRE(!o.stations.empty(), "WingTwist: no stations");
  for (size_t k = 0; k < o.stations.size(); ++k) {
    CAMBER_INPUT_REQUIRE(o.stations[k] > 0.0 && o.stations[k] <= 1.0,
                         "WingTwist: station " << k << " = " << o.stations[k]
                                               << " is not a fraction of the span in (0, 1]");
    CAMBER_INPUT_REQUIRE(k == 0 || o.stations[k] > o.stations[k - 1],
                         "WingTwist: the stations must increase, but station "
                             << k << " = " << o.stations[k] << " follows " << o.stations[k - 1]);
  }
  CAMBER_INPUT_REQUIRE(o.axis_chord_fraction >= 0.0 && o.axis_chord_fraction <= 1.0,
                       "WingTwist: axis_chord_fraction = " << o.axis_chord_fraction
                                                           << " is outside [0, 1]");
  CAMBER_INPUT_REQUIRE(o.blend > 0.0, "WingTwist: blend = " << o.blend << " must be positive");
}

WingTwistAxis WingTwist::axis_around(const mesh::DistributedMesh& dm,
                                     const std::vector<std::string>& markers,
                                     const WingTwistOptions& options) {
  check(options);
  const FfdVolumeBox box = FfdVolume::box_around(dm, markers, 0.0);
  WingTwistAxis a;
  a.lo = box.lo;
  a.hi = box.hi;
  const double chord = box.hi[0] - box.lo[0];
  a.x_axis = box.lo[0] + options.axis_chord_fraction * chord;
  a.z_axis = 0.5 * (box.lo[2] + box.hi[2]);
  a.blend_width = options.blend * chord;
  return a;
}

WingTwist::WingTwist(const WingTwistAxis& axis, const Tensor& points,
                     const WingTwistOptions& options)
    : WingTwist(axis, host_points(points), options) {}

WingTwist::WingTwist(const WingTwistAxis& axis, const Kokkos::View<const double**>& points,
                     const WingTwistOptions& options)
    : axis_(axis), options_(options), n_points_(static_cast<index_t>(points.extent(0))) {
  check(options_);
  CAMBER_INPUT_REQUIRE(axis_.hi[1] > axis_.lo[1] && axis_.blend_width > 0.0,
                       "WingTwist: the walls' box has span [" << axis_.lo[1] << ", " << axis_.hi[1]
                                                              << "] and blend width "
                                                              << axis_.blend_width);
  CAMBER_REQUIRE(points.extent(0) == 0 || points.extent(1) == 3,
                 "WingTwist: points must have 3 columns, got " << points.extent(1));
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), points);
  for (index_t p = 0; p < n_points_; ++p) {
    const double w = weight(x(p, 0), x(p, 1), x(p, 2));
    if (!(w > 0.0)) continue;
    Moved m{};
    m.p = p;
    coefficients(x(p, 1), m.k0, m.c0, m.k1, m.c1);
    const double s = w * pi / 180.0;
    m.c0 *= s;
    m.c1 *= s;
    m.dx_axis = x(p, 0) - axis_.x_axis;
    m.dz_axis = x(p, 2) - axis_.z_axis;
    moved_.push_back(m);
  }
}

void WingTwist::coefficients(double y, int& k0, double& c0, int& k1, double& c1) const {
  const std::vector<double>& eta = options_.stations;
  const double span = axis_.hi[1] - axis_.lo[1];
  const double e = (y - axis_.lo[1]) / span;
  const int n = static_cast<int>(eta.size());
  if (e >= eta.back()) {
    k0 = n - 1, c0 = 1.0, k1 = n - 1, c1 = 0.0;
    return;
  }
  // The interval [eta_{k-1}, eta_k) holding e, eta_{-1} = 0 (the root,
  // twist 0); a point inboard of the root (none on a half-wing) is held
  // at 0 too.
  if (e <= 0.0) {
    k0 = 0, c0 = 0.0, k1 = 0, c1 = 0.0;
    return;
  }
  const int k = static_cast<int>(std::upper_bound(eta.begin(), eta.end(), e) - eta.begin());
  const double e0 = k == 0 ? 0.0 : eta[static_cast<size_t>(k - 1)];
  const double t = (e - e0) / (eta[static_cast<size_t>(k)] - e0);
  k0 = k == 0 ? 0 : k - 1;
  c0 = k == 0 ? 0.0 : 1.0 - t;
  k1 = k;
  c1 = t;
}

double WingTwist::twist_at(double y, const std::vector<double>& a) const {
  CAMBER_REQUIRE(static_cast<index_t>(a.size()) == n_design(),
                 "WingTwist::twist_at: " << a.size() << " values for " << n_design() << " stations");
  int k0 = 0, k1 = 0;
  double c0 = 0.0, c1 = 0.0;
  coefficients(y, k0, c0, k1, c1);
  return c0 * a[static_cast<size_t>(k0)] + c1 * a[static_cast<size_t>(k1)];
}

double WingTwist::weight(double x, double y, double z) const {
  const double p[3] = {x, y, z};
  double d2 = 0.0;
  for (size_t d = 0; d < 3; ++d) {
    const double out = std::max({axis_.lo[d] - p[d], 0.0, p[d] - axis_.hi[d]});
    d2 += out * out;
  }
  const double t = std::sqrt(d2) / axis_.blend_width;
  if (t >= 1.0) return 0.0;
  // 1 - (10 t^3 - 15 t^4 + 6 t^5): C2 at both ends.
  return 1.0 - t * t * t * (10.0 - 15.0 * t + 6.0 * t * t);
}

Tensor WingTwist::apply(const Tensor& a) const {
  CAMBER_REQUIRE(a.shape() == (Shape{n_design()}), "WingTwist::apply: a has shape "
                                                       << shape_string(a.shape()) << ", expected {"
                                                       << n_design() << "}");
  const auto ah = a.host();
  std::vector<double> y(static_cast<size_t>(n_points_) * 3, 0.0);
  for (const Moved& m : moved_) {
    const double theta = m.c0 * ah(m.k0) + m.c1 * ah(m.k1);
    double* out = &y[static_cast<size_t>(m.p) * 3];
    out[0] = theta * m.dz_axis;
    out[2] = -theta * m.dx_axis;
  }
  return Tensor::from_host({n_points_, 3}, y);
}

Tensor WingTwist::apply_transpose(const Tensor& y) const {
  CAMBER_REQUIRE(y.shape() == (Shape{n_points_, 3}), "WingTwist::apply_transpose: y has shape "
                                                         << shape_string(y.shape())
                                                         << ", expected {" << n_points_ << ", 3}");
  const auto yh = y.host();
  std::vector<double> g(static_cast<size_t>(n_design()), 0.0);
  for (const Moved& m : moved_) {
    const double s = yh(3 * m.p) * m.dz_axis - yh(3 * m.p + 2) * m.dx_axis;
    g[static_cast<size_t>(m.k0)] += m.c0 * s;
    g[static_cast<size_t>(m.k1)] += m.c1 * s;
  }
  return Tensor::from_host({n_design()}, g);
}

}  // namespace camber::design
