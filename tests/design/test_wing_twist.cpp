// design::WingTwist, the twist of a wing at spanwise stations.
//
// Expected values are math:
//   * inside the walls' box, beyond the last station, every point turns
//     about the axis by theta to first order: the map's displacement is
//     the exact rotation's up to (theta^2 / 2) r (r the distance from the
//     axis), and that gap falls as theta^2;
//   * the twist is piecewise linear through (root, 0) and the stations'
//     values, constant beyond the last;
//   * the blend: weight 1 in the box, 0 from blend_width beyond it, the
//     quintic 1 - (10 t^3 - 15 t^4 + 6 t^5) between; no node moves in y;
//   * the transpose: <apply(a), y> = <a, apply_transpose(y)> to round-off;
//   * bad options are bad_input errors naming the option.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/tensor.hpp>
#include <camber/design/wing_twist.hpp>

namespace camber::design {
namespace {

constexpr double pi = 3.14159265358979323846;

// A rectangular wing of chord 2 from x = 1, span 6 from y = 0, thickness
// 0.24 about z = 0.1.
WingTwistAxis axis_for(const WingTwistOptions& o) {
  WingTwistAxis a;
  a.lo = {1.0, 0.0, -0.02};
  a.hi = {3.0, 6.0, 0.22};
  a.x_axis = a.lo[0] + o.axis_chord_fraction * (a.hi[0] - a.lo[0]);
  a.z_axis = 0.5 * (a.lo[2] + a.hi[2]);
  a.blend_width = o.blend * (a.hi[0] - a.lo[0]);
  return a;
}

std::vector<double> points_in(const WingTwistAxis& a, int n, unsigned seed, double grow) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> p(static_cast<size_t>(3 * n));
  for (int q = 0; q < n; ++q)
    for (size_t d = 0; d < 3; ++d) {
      const double lo = a.lo[d] - grow, hi = a.hi[d] + grow;
      p[3 * q + d] = lo + (hi - lo) * u(gen);
    }
  return p;
}

TEST(WingTwist, TurnsSectionsBeyondTheLastStationAboutTheAxis) {
  WingTwistOptions o;
  o.stations = {0.25, 0.5};
  o.axis_chord_fraction = 0.25;
  const WingTwistAxis a = axis_for(o);
  // Points in the box beyond 50% of the span, where theta is the last
  // station's value.
  std::vector<double> p = points_in(a, 200, 3, 0.0);
  for (size_t q = 0; q < p.size() / 3; ++q) p[3 * q + 1] = 3.0 + 0.5 * p[3 * q + 1];
  const index_t n = static_cast<index_t>(p.size() / 3);
  const WingTwist twist(a, Tensor::from_host({n, 3}, p), o);
  double previous = 0.0;
  for (double deg : {2.0, 1.0, 0.5}) {
    const std::vector<double> dp =
        twist.apply(Tensor::from_host({2}, {0.3 * deg, deg})).to_vector();
    const double t = deg * pi / 180.0;
    double gap = 0.0;
    for (index_t q = 0; q < n; ++q) {
      const double x = p[3 * q] - a.x_axis, z = p[3 * q + 2] - a.z_axis;
      // Nose up by t: x' = x cos t + z sin t, z' = -x sin t + z cos t.
      const double ex = x * std::cos(t) + z * std::sin(t) - x;
      const double ez = -x * std::sin(t) + z * std::cos(t) - z;
      const double r = std::hypot(x, z);
      const double g = std::hypot(dp[3 * q] - ex, dp[3 * q + 2] - ez);
      EXPECT_LE(g, 0.5 * t * t * r * (1.0 + 1e-6) + 1e-15) << q;
      EXPECT_EQ(dp[3 * q + 1], 0.0);
      gap = std::max(gap, g / (t * t * std::max(r, 1e-12)));
    }
    // The gap over theta^2 r tends to 1/2 (x (cos t - 1) ~ -x t^2 / 2).
    EXPECT_NEAR(gap, 0.5, 0.01);
    if (previous > 0.0) {
      EXPECT_NEAR(gap, previous, 0.01);
    }
    previous = gap;
  }
  // Nose up: the leading edge (x < x_axis) rises.
  const std::vector<double> le = {1.0, 5.0, 0.1, 3.0, 5.0, 0.1};
  const WingTwist edges(a, Tensor::from_host({2, 3}, le), o);
  const std::vector<double> d = edges.apply(Tensor::from_host({2}, {0.0, 1.0})).to_vector();
  EXPECT_NEAR(d[2], 0.5 * pi / 180.0, 1e-15);
  EXPECT_NEAR(d[5], -1.5 * pi / 180.0, 1e-15);
}

TEST(WingTwist, TwistIsPiecewiseLinearFromZeroAtTheRoot) {
  WingTwistOptions o;
  o.stations = {0.25, 0.5, 1.0};
  const WingTwistAxis a = axis_for(o);
  const WingTwist twist(a, Tensor::from_host({0, 3}, std::vector<double>{}), o);
  const std::vector<double> v = {2.0, -1.0, 4.0};
  EXPECT_EQ(twist.twist_at(0.0, v), 0.0);
  EXPECT_DOUBLE_EQ(twist.twist_at(0.75, v), 1.0);   // half-way to station 0
  EXPECT_DOUBLE_EQ(twist.twist_at(1.5, v), 2.0);    // station 0
  EXPECT_DOUBLE_EQ(twist.twist_at(2.25, v), 0.5);   // half-way 0 -> 1
  EXPECT_DOUBLE_EQ(twist.twist_at(4.5, v), 1.5);    // half-way 1 -> 2
  EXPECT_DOUBLE_EQ(twist.twist_at(6.0, v), 4.0);
  EXPECT_DOUBLE_EQ(twist.twist_at(7.0, v), 4.0);    // beyond the tip
}

TEST(WingTwist, BlendFallsFromOneInTheBoxToZeroBeyondItsWidth) {
  WingTwistOptions o;
  o.blend = 1.5;
  const WingTwistAxis a = axis_for(o);
  const WingTwist twist(a, Tensor::from_host({0, 3}, std::vector<double>{}), o);
  const double w = a.blend_width;  // 3
  EXPECT_EQ(twist.weight(2.0, 3.0, 0.1), 1.0);
  EXPECT_EQ(twist.weight(3.0, 6.0, 0.22), 1.0);
  EXPECT_EQ(twist.weight(3.0 + w, 3.0, 0.1), 0.0);
  EXPECT_EQ(twist.weight(2.0, 3.0, 0.22 + 2.0 * w), 0.0);
  for (double t : {0.1, 0.5, 0.9}) {
    const double s = 1.0 - t * t * t * (10.0 - 15.0 * t + 6.0 * t * t);
    EXPECT_NEAR(twist.weight(2.0, 3.0, 0.22 + t * w), s, 1e-14);
    // Distance from the box's corner, beyond the tip.
    const double e = t * w / std::sqrt(3.0);
    EXPECT_NEAR(twist.weight(3.0 + e, 6.0 + e, 0.22 + e), s, 1e-14);
  }
  // Far-field points and the root plane's points stay put.
  const std::vector<double> p = {2.0, 3.0, 0.22 + 1.01 * w, 2.0, 0.0, 0.1, -9.0, 1.0, 0.0};
  const WingTwist moved(a, Tensor::from_host({3, 3}, p), o);
  o.stations = {0.2, 0.4, 0.6, 0.8, 1.0};
  const std::vector<double> d =
      moved.apply(Tensor::from_host({5}, {1.0, 2.0, 3.0, 4.0, 5.0})).to_vector();
  for (double v : d) EXPECT_EQ(v, 0.0);
}

TEST(WingTwist, TransposeIsTheAdjointOfTheMap) {
  WingTwistOptions o;
  o.stations = {0.1, 0.3, 0.55, 0.8, 1.0};
  o.axis_chord_fraction = 0.0;
  const WingTwistAxis a = axis_for(o);
  const int n = 400;
  const WingTwist twist(a, Tensor::from_host({n, 3}, points_in(a, n, 5, 1.0)), o);
  std::mt19937 gen(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(5), y(3 * n);
  for (double& x : v) x = u(gen);
  for (double& x : y) x = u(gen);
  const std::vector<double> jv = twist.apply(Tensor::from_host({5}, v)).to_vector();
  const std::vector<double> jty = twist.apply_transpose(Tensor::from_host({n, 3}, y)).to_vector();
  double lhs = 0.0, rhs = 0.0, size = 0.0;
  for (size_t i = 0; i < y.size(); ++i) {
    lhs += jv[i] * y[i];
    size += std::abs(jv[i] * y[i]);
  }
  for (size_t k = 0; k < v.size(); ++k) rhs += v[k] * jty[k];
  EXPECT_GT(size, 0.1);
  EXPECT_NEAR(lhs, rhs, 1e-14 * size);
}

TEST(WingTwist, BadOptionsAreBadInput) {
  const auto fails = [](WingTwistOptions o, const std::string& what) {
    try {
      WingTwist::check(o);
      ADD_FAILURE() << "expected a bad_input error: " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input);
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  WingTwistOptions o;
  o.stations = {};
  fails(o, "no stations");
  o.stations = {0.5, 0.5};
  fails(o, "must increase");
  o.stations = {0.0, 0.5};
  fails(o, "(0, 1]");
  o.stations = {0.5, 1.2};
  fails(o, "(0, 1]");
  o.stations = {0.5};
  o.axis_chord_fraction = 1.5;
  fails(o, "axis_chord_fraction");
  o.axis_chord_fraction = 0.25;
  o.blend = 0.0;
  fails(o, "blend");
}

}  // namespace
}  // namespace camber::design
