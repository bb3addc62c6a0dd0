// design::FfdVolume, the trivariate free-form deformation box.
//
// Expected values are math:
//   * Bernstein polynomials reproduce the quadratic bubble: with every free
//     control point moved by f(P) = b(i / l) b(j / m) b(k / n), b(x) =
//     x (1 - x) (zero on the box's faces, where the control points are
//     fixed), a point of local coordinates (s, t, u) moves by
//     b(s) b(t) b(u) (l - 1) / l (m - 1) / m (n - 1) / n, since
//     sum_i B_{i,l}(s) (i / l)(1 - i / l) = s (1 - s) (l - 1) / l;
//   * the transpose: <apply(a), y> = <a, apply_transpose(y)> to round-off;
//   * points outside the box and on its faces do not move, and a point
//     just inside moves by O(its distance to the face);
//   * bad options are bad_input errors naming the option.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/tensor.hpp>
#include <camber/design/ffd_volume.hpp>

namespace camber::design {
namespace {

FfdVolumeBox unit_box() {
  FfdVolumeBox b;
  b.lo = {-1.0, 0.5, -0.25};
  b.hi = {2.0, 1.5, 0.75};
  return b;
}

std::vector<double> random_points(int n, unsigned seed, double lo = -0.2, double hi = 1.2) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  const FfdVolumeBox b = unit_box();
  std::vector<double> p(static_cast<size_t>(3 * n));
  for (int q = 0; q < n; ++q)
    for (size_t d = 0; d < 3; ++d) p[3 * q + d] = b.lo[d] + (b.hi[d] - b.lo[d]) * u(gen);
  return p;
}

double bubble(double x) { return x * (1.0 - x); }

TEST(FfdVolume, ReproducesTheQuadraticBubbleInEveryDirection) {
  FfdVolumeOptions o;
  o.degree = {5, 3, 4};
  o.move = {true, true, true};
  const int n = 200;
  const std::vector<double> p = random_points(n, 3, 0.0, 1.0);
  const FfdVolume ffd(unit_box(), Tensor::from_host({n, 3}, p), o);
  EXPECT_EQ(ffd.n_design(), 3 * 4 * 2 * 3);
  std::vector<double> a(static_cast<size_t>(ffd.n_design()));
  const double scale[3] = {1.0, -2.0, 0.5};  // per direction
  for (size_t v = 0; v < a.size(); ++v) {
    const auto& w = ffd.variables()[v];
    a[v] = scale[w.direction] * bubble(double(w.i) / o.degree[0]) *
           bubble(double(w.j) / o.degree[1]) * bubble(double(w.k) / o.degree[2]);
  }
  const std::vector<double> dp = ffd.apply(Tensor::from_host({ffd.n_design()}, a)).to_vector();
  const FfdVolumeBox b = unit_box();
  const double f = (o.degree[0] - 1.0) / o.degree[0] * (o.degree[1] - 1.0) / o.degree[1] *
                   (o.degree[2] - 1.0) / o.degree[2];
  double err = 0.0;
  for (int q = 0; q < n; ++q) {
    double g = f;
    for (size_t d = 0; d < 3; ++d) g *= bubble((p[3 * q + d] - b.lo[d]) / (b.hi[d] - b.lo[d]));
    for (int d = 0; d < 3; ++d) err = std::max(err, std::abs(dp[3 * q + d] - scale[d] * g));
  }
  EXPECT_LE(err, 1e-15);
}

TEST(FfdVolume, TransposeIsTheAdjointOfTheMap) {
  FfdVolumeOptions o;
  o.degree = {6, 4, 2};
  o.move = {true, false, true};
  const int n = 300;
  const FfdVolume ffd(unit_box(), Tensor::from_host({n, 3}, random_points(n, 5)), o);
  std::mt19937 gen(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(static_cast<size_t>(ffd.n_design())), y(3 * n);
  for (double& x : a) x = u(gen);
  for (double& x : y) x = u(gen);
  const std::vector<double> ja = ffd.apply(Tensor::from_host({ffd.n_design()}, a)).to_vector();
  const std::vector<double> jty = ffd.apply_transpose(Tensor::from_host({n, 3}, y)).to_vector();
  double lhs = 0.0, rhs = 0.0, size = 0.0;
  for (size_t i = 0; i < y.size(); ++i) {
    lhs += ja[i] * y[i];
    size += std::abs(ja[i] * y[i]);
  }
  for (size_t v = 0; v < a.size(); ++v) rhs += a[v] * jty[v];
  EXPECT_GT(size, 1.0);
  EXPECT_NEAR(lhs, rhs, 1e-14 * size);
}

TEST(FfdVolume, SpaceOutsideTheBoxStaysAndJoinsContinuously) {
  FfdVolumeOptions o;
  o.degree = {3, 3, 3};
  const FfdVolumeBox b = unit_box();
  // Outside, on a face, and 1e-6 inside each face, at the middle of it.
  std::vector<double> p;
  const double mid[3] = {0.5, 1.0, 0.25};
  for (int d = 0; d < 3; ++d)
    for (double off : {-1e-3, 0.0, 1e-6}) {
      double q[3] = {mid[0], mid[1], mid[2]};
      q[d] = b.lo[static_cast<size_t>(d)] + off;
      p.insert(p.end(), q, q + 3);
    }
  const index_t n = static_cast<index_t>(p.size() / 3);
  const FfdVolume ffd(b, Tensor::from_host({n, 3}, p), o);
  std::vector<double> a(static_cast<size_t>(ffd.n_design()), 1.0);
  const std::vector<double> dp = ffd.apply(Tensor::from_host({ffd.n_design()}, a)).to_vector();
  for (index_t q = 0; q < n; ++q) {
    const bool inside = q % 3 == 2;
    if (!inside) {
      EXPECT_EQ(dp[3 * q + 2], 0.0) << q;
    } else {
      // B_{1,3}(s) ~ 3 s near the face: O(1e-6) of the box, not O(1).
      EXPECT_GT(dp[3 * q + 2], 0.0) << q;
      EXPECT_LT(dp[3 * q + 2], 1e-5) << q;
    }
  }
}

TEST(FfdVolume, BadOptionsAreBadInput) {
  const std::vector<double> p = random_points(4, 1);
  const auto fails = [&](FfdVolumeBox b, FfdVolumeOptions o, const std::string& what) {
    try {
      FfdVolume ffd(b, Tensor::from_host({4, 3}, p), o);
      ADD_FAILURE() << "expected a bad_input error: " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input);
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  FfdVolumeOptions o;
  o.degree = {1, 3, 3};
  fails(unit_box(), o, "every degree must be >= 2");
  o = {};
  o.move = {false, false, false};
  fails(unit_box(), o, "no displacement direction");
  FfdVolumeBox b = unit_box();
  b.hi[1] = b.lo[1];
  fails(b, {}, "the box's y extent is [0.5, 0.5]");
}

}  // namespace
}  // namespace camber::design
