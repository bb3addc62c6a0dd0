// Tests of solvers/euler/reconstruction.hpp: the limiter's kernels
// (detail/reconstruction_kernels.hpp), the smooth limiter's extremes.
// Shared helpers and the units of every tolerance: flux_test_utils.hpp.
#include "flux_test_utils.hpp"
#include "tests/common/central_difference.hpp"

// The limiter's kernel pieces are internals (not installed).
#include "solvers/euler/detail/reconstruction_kernels.hpp"

namespace camber_test_euler_flux {

// The smooth maximum and minimum of venkatakrishnan_smooth keep the
// bounds they are written with: max <= smax <= max + delta / 2, and
// min <= smin <= min(max, min + delta / 2) with smin(a, a) = a (so a cell
// whose faces all give phi = 1 keeps 1: linear data stay exact).
TEST(EulerLimiter, SmoothExtremesKeepTheirBounds) {
  const double delta = 0.05;
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int t = 0; t < 1000; ++t) {
    const double a = u(gen), b = t % 10 == 0 ? a : u(gen);
    const double smax = eu::detail::smooth_max_above(a, b, delta);
    const double smin = eu::detail::smooth_min_between(a, b, delta);
    EXPECT_GE(smax, std::max(a, b));
    EXPECT_LE(smax, std::max(a, b) + 0.5 * delta + 1e-15);
    EXPECT_GE(smin, std::min(a, b) - 1e-15);
    EXPECT_LE(smin, std::min(std::max(a, b), std::min(a, b) + 0.5 * delta) + 1e-15);
  }
  EXPECT_DOUBLE_EQ(eu::detail::smooth_min_between(1.0, 1.0, delta), 1.0);
  EXPECT_DOUBLE_EQ(eu::detail::smooth_min_between(0.3, 0.3, delta), 0.3);
}

// Where two faces of a cell tie for the smallest limiter value, the Wang
// form's phi has a kink (its one-sided slopes in the gradient differ), and
// the smooth form has none: its Dual derivative equals the central
// difference there (h = 1e-6: truncation ~h^2 times the third derivative,
// ~1e-10; tolerance 1e-7) and its one-sided slopes agree to O(h).
TEST(EulerLimiter, SmoothFormHasNoKinkWhereFacesTie) {
  using D1 = ad::Dual<double, 1>;
  const double to_face[2][2] = {{1.0, 0.0}, {0.0, 1.0}};
  const auto tf = [&](camber::index_t j, int d) { return to_face[j][d]; };
  const double d_max = 0.3, d_min = -0.2, eps2 = 0.01, g = 0.5;  // d2 = 0.5 on both faces: limited
  const auto phi = [&](eu::detail::LimiterForm form, double gx) {
    const double grad[2] = {gx, g};
    return eu::detail::venkatakrishnan_cell(d_max, d_min, grad, tf, 0, 2, form, eps2);
  };
  const double h = 1e-6;
  const auto one_sided = [&](eu::detail::LimiterForm form) {
    return std::array<double, 2>{(phi(form, g) - phi(form, g - h)) / h,
                                 (phi(form, g + h) - phi(form, g)) / h};
  };
  const auto wang = one_sided(eu::detail::LimiterForm::wang);
  EXPECT_GT(std::abs(wang[1] - wang[0]), 0.1) << "the Wang form should switch faces here";
  D1 gx(g);
  gx.der(0) = 1.0;
  const D1 grad[2] = {gx, D1(g)};
  const D1 p = eu::detail::venkatakrishnan_cell(D1(d_max), D1(d_min), grad, tf, 0, 2,
                                                eu::detail::LimiterForm::smooth, eps2);
  const double fd = camber::test::central_difference(
      [&](double x) { return phi(eu::detail::LimiterForm::smooth, x); }, g, h);
  EXPECT_LT(p.val(), 1.0);
  EXPECT_NEAR(p.der(0), fd, 1e-7);
  const auto smooth = one_sided(eu::detail::LimiterForm::smooth);
  EXPECT_NEAR(smooth[1], smooth[0], 1e-5);
}

}  // namespace camber_test_euler_flux
