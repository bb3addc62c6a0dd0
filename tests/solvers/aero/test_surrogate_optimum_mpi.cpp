// solvers/aero/surrogate_optimum.hpp at 1, 2 and 4 ranks, on a linear
// surrogate whose optima are known in closed form: y0 = x0 + x1,
// y1 = x0 - x1 (one linear layer, W symmetric, no normalisation) on the
// box [0, 5]^2.
//  - minimize y0: x = (0, 0), y0 = 0; maximize y0: x = (5, 5), y0 = 10;
//  - minimize y0 with y1 >= 2: the linear program's vertex x = (2, 0),
//    y0 = 2 (SLSQP to 1e-6);
//  - the result is the same on every rank, bit for bit;
//  - an output index out of range and bounds of the wrong length are bad
//    input.
#include <gtest/gtest.h>

#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/aero/surrogate_optimum.hpp>
#include "tests/mpi_test_utils.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;

nn::Surrogate sum_and_difference() {
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 2;
  return nn::Surrogate(spec, {Tensor::from_host({2, 2}, {1.0, 1.0, 1.0, -1.0}), Tensor::from_host({2}, {0.0, 0.0})},
                       {{"a", "b"}, {"", ""}}, {{"s", "d"}, {"", ""}}, {{0.0, 0.0}, {1.0, 1.0}},
                       {{0.0, 0.0}, {1.0, 1.0}});
}

const std::vector<double> lower{0.0, 0.0}, upper{5.0, 5.0};

TEST(SurrogateOptimum, BoundsDecideAnUnconstrainedLinearObjective) {
  aero::SurrogateOptimumSettings s;
  s.objective = 0;
  aero::SurrogateOptimum r = aero::optimize_surrogate(sum_and_difference(), lower, upper, s, test::world());
  EXPECT_NEAR(r.x[0], 0.0, 1e-6);
  EXPECT_NEAR(r.x[1], 0.0, 1e-6);
  EXPECT_NEAR(r.y[0], 0.0, 1e-6);
  EXPECT_TRUE(test::same_on_every_rank(r.x));
  s.maximize = true;
  r = aero::optimize_surrogate(sum_and_difference(), lower, upper, s, test::world());
  EXPECT_NEAR(r.x[0], 5.0, 1e-6);
  EXPECT_NEAR(r.x[1], 5.0, 1e-6);
  EXPECT_NEAR(r.y[0], 10.0, 1e-6);
}

TEST(SurrogateOptimum, TheConstraintMovesTheOptimumToTheVertex) {
  aero::SurrogateOptimumSettings s;
  s.objective = 0;
  s.constraint = 1;
  s.constraint_min = 2.0;
  const aero::SurrogateOptimum r =
      aero::optimize_surrogate(sum_and_difference(), lower, upper, s, test::world());
  EXPECT_NEAR(r.x[0], 2.0, 1e-6);
  EXPECT_NEAR(r.x[1], 0.0, 1e-6);
  EXPECT_NEAR(r.y[0], 2.0, 1e-6);
  EXPECT_GE(r.y[1], 2.0 - 1e-6);
  EXPECT_GT(r.evaluations, 0);
  EXPECT_TRUE(test::same_on_every_rank(r.x));
}

TEST(SurrogateOptimum, BadRequestsAreBadInput) {
  aero::SurrogateOptimumSettings s;
  s.objective = 2;
  try {
    aero::optimize_surrogate(sum_and_difference(), lower, upper, s, test::world());
    FAIL() << "output 2 of 2";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
  }
  s.objective = 0;
  try {
    aero::optimize_surrogate(sum_and_difference(), {0.0}, upper, s, test::world());
    FAIL() << "one lower bound for two inputs";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
  }
}

}  // namespace
}  // namespace camber
