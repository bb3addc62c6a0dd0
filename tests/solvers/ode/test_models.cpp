// solvers/ode/models.hpp: the built-in systems' right-hand sides are their
// equations at a point (exactly, hand-evaluated), Robertson's conserves
// y1 + y2 + y3 (the derivatives sum to zero), the Dual right-hand side
// gives the hand-derived partial derivatives, and an unknown name or a
// wrong parameter count is bad input.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <camber/autodiff/dual.hpp>
#include <camber/core/error.hpp>
#include <camber/solvers/ode/models.hpp>

namespace {

namespace ode = camber::solvers::ode;

TEST(OdeModels, RobertsonIsItsEquations) {
  const std::vector<double> p{0.04, 1e4, 3e7}, y{0.9, 2e-5, 0.1};
  const ode::OdeSystem s = ode::builtin_model("robertson", p);
  ASSERT_EQ(s.n, 3);
  std::vector<double> f(3);
  s.rhs(0.0, y.data(), s.p.data(), f.data());
  const double y1 = -p[0] * y[0] + p[1] * y[1] * y[2], y3 = p[2] * y[1] * y[1];
  EXPECT_EQ(f[0], y1);
  EXPECT_EQ(f[2], y3);
  EXPECT_EQ(f[1], -y1 - y3);
  EXPECT_EQ(f[0] + f[1] + f[2], 0.0);
  // d(y1')/d(y2) = p2 y3, by the Dual right-hand side.
  std::vector<ode::OdeDual> yd{y[0], camber::ad::make_variable<1>(y[1], 0), y[2]}, pd(p.begin(), p.end()), fd(3);
  s.rhs_dual(0.0, yd.data(), pd.data(), fd.data());
  EXPECT_EQ(fd[0].der(0), p[1] * y[2]);
  EXPECT_EQ(fd[2].der(0), 2.0 * p[2] * y[1]);
}

TEST(OdeModels, LotkaVolterraIsItsEquations) {
  const std::vector<double> p{1.5, 1.0, 3.0, 1.0}, y{2.0, 0.5};
  const ode::OdeSystem s = ode::builtin_model("lotka_volterra", p);
  ASSERT_EQ(s.n, 2);
  std::vector<double> f(2);
  s.rhs(0.0, y.data(), s.p.data(), f.data());
  EXPECT_EQ(f[0], 1.5 * 2.0 - 1.0 * 2.0 * 0.5);
  EXPECT_EQ(f[1], -3.0 * 0.5 + 1.0 * 2.0 * 0.5);
  EXPECT_EQ(ode::builtin_model_info("lotka_volterra").parameters, 4);
  EXPECT_EQ(ode::builtin_models().size(), 2u);
}

TEST(OdeModels, BadNamesAndCountsAreBadInput) {
  try {
    ode::builtin_model("brusselator", {1.0});
    FAIL();
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(e.message().find("robertson, lotka_volterra"), std::string::npos) << e.message();
  }
  try {
    ode::builtin_model("robertson", {1.0, 2.0});
    FAIL();
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(e.message().find("has 3 parameters, got 2"), std::string::npos) << e.message();
  }
}

}  // namespace
