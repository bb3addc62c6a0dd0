// solvers/aero/surrogate_optimum.hpp at 1, 2 and 4 ranks, on a linear
// surrogate whose optima are known in closed form: y0 = x0 + x1,
// y1 = x0 - x1 (one linear layer, W symmetric, no normalisation) on the
// box [0, 5]^2.
//  - minimize y0: x = (0, 0), y0 = 0; maximize y0: x = (5, 5), y0 = 10;
//  - minimize y0 with y1 >= 2: the linear program's vertex x = (2, 0),
//    y0 = 2 (SLSQP to 1e-6);
//  - the result is the same on every rank, bit for bit;
//  - an output index out of range and bounds of the wrong length are bad
//    input;
//  - the same network saved as a model file and optimized over a data set
//    by output names (optimize_saved_surrogate): the bounds are the set's
//    input range [1, 4] x [-2, 3], so min s = -1 at (1, -2); with d >= 4,
//    min s = 0 at (2, -2) and max s = 4 at (4, 0) (the vertices of the
//    linear programs); an output the set does not hold goes to the reject
//    callback naming the member, and a model trained on other columns is
//    bad input naming both files.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/solvers/aero/surrogate_optimum.hpp>
#include "tests/mpi_test_utils.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;

nn::Surrogate sum_and_difference(const std::vector<std::string>& inputs = {"a", "b"}) {
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 2;
  return nn::Surrogate(spec, {Tensor::from_host({2, 2}, {1.0, 1.0, 1.0, -1.0}), Tensor::from_host({2}, {0.0, 0.0})},
                       {inputs, {"", ""}}, {{"s", "d"}, {"", ""}}, {{0.0, 0.0}, {1.0, 1.0}},
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

// A data set of s = a + b, d = a - b on the grid a = 1..4, b = -2..3 (rows
// spread over the ranks), and the network above saved as its model (with
// the inputs `inputs`).
struct SavedCase {
  std::string data, model;
};

SavedCase saved_case(const std::string& test, const std::vector<std::string>& inputs = {"a", "b"}) {
  const std::string dir = test::scratch_dir(CAMBER_TEST_SCRATCH, test).string();
  const index_t n = 4 * 6;
  const nn::RowRange rows = nn::local_rows(n, test::world());
  std::vector<double> x, y;
  for (index_t i = rows.begin; i < rows.end; ++i) {
    const double a = 1.0 + static_cast<double>(i / 6), b = -2.0 + static_cast<double>(i % 6);
    x.insert(x.end(), {a, b});
    y.insert(y.end(), {a + b, a - b});
  }
  SavedCase c{dir + "/set.h5", dir + "/model.h5"};
  nn::io::write_dataset(c.data, Tensor::from_host({rows.size(), 2}, x), Tensor::from_host({rows.size(), 2}, y),
                        {{"a", "b"}, {"", ""}}, {{"s", "d"}, {"", ""}}, test::world());
  if (test::rank() == 0) nn::io::save_model(c.model, sum_and_difference(inputs), nn::io::ModelCard{});
  MPI_Barrier(test::world());
  return c;
}

TEST(SavedSurrogateOptimum, TheDataSetsRangeBoundsTheOptimum) {
  const SavedCase c = saved_case("range");
  aero::SurrogateOptimumByName s;
  s.objective = "s";
  aero::SavedSurrogateOptimum r = aero::optimize_saved_surrogate(c.model, c.data, s, test::world());
  EXPECT_EQ(r.inputs.names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.outputs.names, (std::vector<std::string>{"s", "d"}));
  EXPECT_NEAR(r.optimum.x[0], 1.0, 1e-6);
  EXPECT_NEAR(r.optimum.x[1], -2.0, 1e-6);
  EXPECT_NEAR(r.optimum.y[0], -1.0, 1e-6);
  EXPECT_TRUE(test::same_on_every_rank(r.optimum.x));

  s.constraint = "d";
  s.optimum.constraint_min = 4.0;
  r = aero::optimize_saved_surrogate(c.model, c.data, s, test::world());
  EXPECT_NEAR(r.optimum.x[0], 2.0, 1e-6);
  EXPECT_NEAR(r.optimum.x[1], -2.0, 1e-6);
  EXPECT_NEAR(r.optimum.y[0], 0.0, 1e-6);
  EXPECT_GE(r.optimum.y[1], 4.0 - 1e-6);
  s.optimum.maximize = true;
  r = aero::optimize_saved_surrogate(c.model, c.data, s, test::world());
  EXPECT_NEAR(r.optimum.x[0], 4.0, 1e-6);
  EXPECT_NEAR(r.optimum.x[1], 0.0, 1e-6);
  EXPECT_NEAR(r.optimum.y[0], 4.0, 1e-6);
  EXPECT_TRUE(test::same_on_every_rank(r.optimum.x));
}

TEST(SavedSurrogateOptimum, AnUnknownOutputIsRejectedAtItsMember) {
  const SavedCase c = saved_case("names");
  aero::SurrogateOptimumByName s;
  s.objective = "s";
  s.constraint = "lift";
  std::string member;
  try {
    aero::optimize_saved_surrogate(c.model, c.data, s, test::world(),
                                   [&](const std::string& m, const std::string& what) {
                                     member = m;
                                     throw_bad_input(what);
                                   });
    FAIL() << "an output the data set does not hold";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_EQ(e.message(), "'lift' is not an output of the data set (s, d)");
  }
  EXPECT_EQ(member, "constraint");
  s = aero::SurrogateOptimumByName{};  // objective CD, not in the set
  try {
    aero::optimize_saved_surrogate(c.model, c.data, s, test::world());
    FAIL() << "the default objective CD is not in the set";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(e.message().find("objective: 'CD' is not an output"), std::string::npos) << e.message();
  }
}

TEST(SavedSurrogateOptimum, AModelOfOtherColumnsIsRefused) {
  const SavedCase c = saved_case("columns", {"mach", "alpha_deg"});
  aero::SurrogateOptimumByName s;
  s.objective = "s";
  try {
    aero::optimize_saved_surrogate(c.model, c.data, s, test::world());
    FAIL() << "a model trained on mach and alpha_deg for a set of a and b";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_EQ(e.message(), c.model + " was trained on other columns than " + c.data + " holds: train again");
  }
}

}  // namespace
}  // namespace camber
