// The central differences every derivative test uses, on functions whose
// derivatives are known in closed form.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include <camber/core/tensor.hpp>

#include "tests/common/central_difference.hpp"

namespace {

using namespace camber::test;

// f = x0^2 x1 + sin(x2), for any x with operator[].
struct Cubic {
  template <class X>
  double operator()(const X& x) const {
    return x[0] * x[0] * x[1] + std::sin(x[2]);
  }
};

const std::vector<double> x0{0.7, -1.3, 0.4};
std::vector<double> exact_gradient(const std::vector<double>& x) {
  return {2 * x[0] * x[1], x[0] * x[0], std::cos(x[2])};
}

// The truncation error of a cubic is h^2 f''' / 6 exactly: x^3 at 2 with
// h = 1e-3 gives 12 + 1e-6, to rounding eps 8 / h ~ 2e-12.
TEST(CentralDifference, IsSecondOrderWithTheKnownTruncationError) {
  const double d = central_difference([](double x) { return x * x * x; }, 2.0, 1e-3);
  EXPECT_NEAR(d, 12.0 + 1e-6, 1e-11);
}

TEST(CentralDifference, VectorAndTensorValuesAreDifferencedEntryByEntry) {
  const auto f = [](double t) { return std::vector<double>{t * t, 3 * t}; };
  const std::vector<double> d = central_difference(f, 0.5, 1e-4);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_NEAR(d[0], 1.0, 1e-12);
  EXPECT_NEAR(d[1], 3.0, 1e-12);
  const auto g = [](double t) { return camber::Tensor::from_host({2}, {t * t, 3 * t}); };
  const std::vector<double> dt = central_difference(g, 0.5, 1e-4).to_vector();
  EXPECT_NEAR(dt[0], 1.0, 1e-12);
  EXPECT_NEAR(dt[1], 3.0, 1e-12);
}

TEST(CentralDifference, GradientOfVectorsArraysAndCArrays) {
  const std::vector<double> exact = exact_gradient(x0);
  const std::array<double, 3> a{x0[0], x0[1], x0[2]};
  const double c[3] = {x0[0], x0[1], x0[2]};
  // h = 1e-5: truncation h^2 |f'''| / 6 ~ 1e-10.
  for (const std::vector<double>& g : {central_gradient(Cubic{}, x0, 1e-5),
                                       central_gradient(Cubic{}, a, 1e-5),
                                       central_gradient(Cubic{}, c, 1e-5)}) {
    ASSERT_EQ(g.size(), 3u);
    for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(g[k], exact[k], 1e-9) << k;
  }
  EXPECT_NEAR(central_partial(Cubic{}, x0, 2, 1e-5), exact[2], 1e-9);
}

TEST(CentralDifference, StepsPerEntry) {
  // x0^2 x1 is quadratic in x0 and linear in x1: any step is exact there;
  // sin(x2) with h = 0.1 is off by h^2 |cos x2| / 6 ~ 1.5e-3.
  const std::vector<double> g = central_gradient(Cubic{}, x0, std::vector<double>{0.5, 2.0, 0.1});
  const std::vector<double> exact = exact_gradient(x0);
  EXPECT_NEAR(g[0], exact[0], 1e-14);
  EXPECT_NEAR(g[1], exact[1], 1e-14);
  EXPECT_NEAR(g[2], exact[2], 2e-3);
  EXPECT_GT(std::abs(g[2] - exact[2]), 1e-3);
}

TEST(CentralDifference, JacobianRowsAreTheValuesGradients) {
  const auto F = [](const std::vector<double>& x) {
    return std::vector<double>{Cubic{}(x), x[0] - 2 * x[2]};
  };
  const auto J = central_jacobian(F, x0, 1e-5);
  ASSERT_EQ(J.size(), 2u);
  const std::vector<double> exact = exact_gradient(x0), linear{1.0, 0.0, -2.0};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_NEAR(J[0][k], exact[k], 1e-9) << k;
    EXPECT_NEAR(J[1][k], linear[k], 1e-10) << k;
  }
}

TEST(CentralDifference, DirectionalDifferenceIsTheGradientAlongV) {
  const std::vector<double> v{0.3, -0.2, 1.1}, g = exact_gradient(x0);
  EXPECT_NEAR(directional_difference(Cubic{}, x0, v, 1e-5), g[0] * v[0] + g[1] * v[1] + g[2] * v[2],
              1e-9);
}

TEST(CentralDifference, PlusIsEvaluatedBeforeMinus) {
  std::vector<double> calls;
  (void)central_difference([&](double t) { calls.push_back(t); return t; }, 1.0, 0.5);
  EXPECT_EQ(calls, (std::vector<double>{1.5, 0.5}));
}

// The differences catch a wrong derivative: the cubic's gradient with the
// x0 term's factor 2 dropped disagrees by |x0 x1| = 0.91, far above 1e-9.
TEST(CentralDifference, CatchesAnInjectedBug) {
  std::vector<double> wrong = exact_gradient(x0);
  wrong[0] = x0[0] * x0[1];
  const std::vector<double> g = central_gradient(Cubic{}, x0, 1e-5);
  EXPECT_GT(std::abs(g[0] - wrong[0]), 0.9);
}

}  // namespace
