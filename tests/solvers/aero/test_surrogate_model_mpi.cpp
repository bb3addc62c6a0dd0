// solvers/aero/surrogate_model.hpp (NetworkModel) at 1, 2 and 4 ranks, on
// the rigidly turned and scaled section of test::RigidSectionDesign (two
// shape variables, the chord its one geometric constraint), fitted to
// histories made by hand from linear functions with exact gradients:
//  - before a fit every query is an error, and a fit with no successful
//    sample is one;
//  - the members' shape, input and output names, and normalisation: the
//    inputs divided by the problem's scales (the bound; alpha by one
//    degree), the outputs relative to the first successful sample in the
//    problem's scales (the baseline drag is 1), fixed at the first fit;
//  - a linear network (no hidden layer) trained on linear data reproduces
//    them: values and gradients to 1e-6 of each output's scale (the
//    least-squares minimum fits them exactly; 2000 epochs reach 3e-15, 400
//    stop at 8e-2);
//  - evaluate() is the members' mean (to 1e-14), objective_uncertainty()
//    their sample deviation, the geometry's constraint the exact one with
//    zero gradient in alpha, the same bits on every rank;
//  - the gradients against central differences of evaluate() (1e-8 for
//    the linear network, 1e-6 for a tanh one).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/aero/surrogate_model.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/aero/aero_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;

// An output y(x) = y0 + slope . x and its gradient.
struct Linear {
  double y0;
  std::vector<double> slope;
  double at(const std::vector<double>& x) const {
    double y = y0;
    for (size_t k = 0; k < x.size(); ++k) y += slope[k] * x[k];
    return y;
  }
};

// A history whose first entry failed, then one successful entry per x:
// the objective, the chord (-sigma, whatever the model makes of it), the
// flow's inequalities and equalities from the linear functions given.
opt::History linear_history(const std::vector<std::vector<double>>& xs, const Linear& objective,
                            const std::vector<Linear>& inequality, const std::vector<Linear>& equality) {
  opt::History h(1);
  h[0].x = xs.front();
  h[0].failed = true;
  h[0].failure = "a folded cell";
  for (const std::vector<double>& x : xs) {
    opt::HistoryEntry s;
    s.x = x;
    opt::Evaluation& e = s.values;
    e.objective = objective.at(x);
    e.objective_gradient = objective.slope;
    e.inequality.push_back(-x[1]);
    std::vector<double> chord(x.size(), 0.0);
    chord[1] = -1.0;
    e.inequality_gradients.push_back(chord);
    for (const Linear& g : inequality) {
      e.inequality.push_back(g.at(x));
      e.inequality_gradients.push_back(g.slope);
    }
    for (const Linear& g : equality) {
      e.equality.push_back(g.at(x));
      e.equality_gradients.push_back(g.slope);
    }
    h.push_back(s);
  }
  return h;
}

const std::vector<std::vector<double>> samples{{0.002, -0.003}, {0.01, 0.0},   {0.0, 0.01},
                                               {-0.007, 0.004}, {0.005, -0.008}, {-0.004, -0.006}};

TEST(NetworkModel, ALinearNetworkFitsLinearDataInTheProblemsScales) {
  const mesh::Mesh m = test::small_section_mesh();
  const aero::ShapeDesignSettings s =
      test::rigid_section_settings(aero::LiftConstraint::at_least, test::baseline_lift, -0.2);
  test::RigidSectionDesign design(m, test::world(), s);
  nn::EnsembleOptions o;
  o.members = 2;
  o.hidden = {};
  o.activation = nn::Activation::identity;
  o.epochs = 2000;  // Adam to the least-squares minimum, which fits the data exactly
  o.learning_rate = 1e-2;
  o.min_learning_rate = 1e-6;
  aero::NetworkModel model(design, o);
  EXPECT_EQ(model.ensemble_description(), "(2 -> 3, identity)");
  const std::vector<double> x{0.003, 0.006};
  EXPECT_THROW(model.evaluate(x), Error);
  EXPECT_THROW(model.objective_uncertainty(x), Error);
  EXPECT_THROW(model.ensemble(), Error);
  EXPECT_THROW(model.fit(opt::History{}), Error);
  opt::History only_failed(1);
  only_failed[0].x = x;
  only_failed[0].failed = true;
  EXPECT_THROW(model.fit(only_failed), Error);

  // Slopes of order one in the networks' units (x / 0.01, y / scale).
  const double cd0 = design.baseline()[1], cl0 = design.baseline()[0];
  const Linear cd{cd0, {80.0 * cd0, -50.0 * cd0}};
  const Linear lift{0.0, {-30.0 * cl0, 60.0 * cl0}};
  const Linear moment{-0.2 + 0.01, {-8.0, 4.0}};
  model.fit(linear_history(samples, cd, {lift, moment}, {}));
  const nn::Ensemble& ensemble = model.ensemble();
  ASSERT_EQ(ensemble.size(), 2);
  EXPECT_EQ(ensemble.fits(), 1);
  const nn::Surrogate& member = ensemble.member(0);
  EXPECT_EQ(member.inputs().names, (std::vector<std::string>{"x0", "x1"}));
  EXPECT_EQ(member.outputs().names, (std::vector<std::string>{"objective", "constraint0", "constraint1"}));
  EXPECT_EQ(member.input_stats().mean, (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(member.input_stats().stddev, (std::vector<double>{0.01, 0.01}));
  const std::vector<double>& first = samples.front();
  EXPECT_EQ(member.output_stats().mean, (std::vector<double>{cd.at(first), lift.at(first), moment.at(first)}));
  const std::vector<double> out_scale{cd0, cl0, 0.2};
  ASSERT_EQ(member.output_stats().stddev.size(), 3u);
  for (size_t j = 0; j < 3; ++j) EXPECT_NEAR(member.output_stats().stddev[j], out_scale[j], 1e-15 * out_scale[j]);

  // A point with a variable too many is bad input.
  std::vector<double> longer = x;
  longer.push_back(0.0);
  const auto wrong = test::error_from([&] { model.evaluate(longer); });
  ASSERT_TRUE(wrong.has_value());
  EXPECT_EQ(wrong->exit_code(), 2);

  // The linear functions, in the networks' scales.
  const opt::Evaluation e = model.evaluate(x);
  ASSERT_EQ(e.inequality.size(), 3u);
  ASSERT_TRUE(e.equality.empty());
  EXPECT_EQ(e.inequality[0], -x[1]);
  EXPECT_EQ(e.inequality_gradients[0], (std::vector<double>{0.0, -1.0}));
  const Linear* want[3] = {&cd, &lift, &moment};
  const std::vector<double> v = test::values(e);
  const std::vector<std::vector<double>> g = test::gradients(e);
  double worst = 0.0;
  for (size_t j = 0; j < 3; ++j) {
    const size_t f = j == 0 ? 0 : j + 1;  // the chord sits between
    const double value_err = std::abs(v[f] - want[j]->at(x)) / out_scale[j];
    worst = std::max(worst, value_err);
    EXPECT_LT(value_err, 1e-6) << "output " << j;
    for (size_t k = 0; k < 2; ++k) {
      const double slope_err = std::abs(g[f][k] - want[j]->slope[k]) * 0.01 / out_scale[j];
      worst = std::max(worst, slope_err);
      EXPECT_LT(slope_err, 1e-6) << "output " << j << " d/dx" << k;
    }
  }
  // The members' mean and sample deviation.
  const Tensor xt = Tensor::from_host({1, 2}, x);
  const std::vector<double> p0 = ensemble.member(0).predict(xt).to_vector();
  const std::vector<double> p1 = ensemble.member(1).predict(xt).to_vector();
  EXPECT_NEAR(e.objective, 0.5 * (p0[0] + p1[0]), 1e-14 * cd0);
  EXPECT_NEAR(e.inequality[1], 0.5 * (p0[1] + p1[1]), 1e-14 * cl0);
  EXPECT_NEAR(e.inequality[2], 0.5 * (p0[2] + p1[2]), 1e-14 * 0.2);
  EXPECT_NEAR(model.objective_uncertainty(x), std::abs(p0[0] - p1[0]) / std::sqrt(2.0), 1e-14 * cd0);
  EXPECT_TRUE(test::same_on_every_rank(v));
  EXPECT_TRUE(test::same_on_every_rank(e.objective_gradient));

  const auto evaluate = [&](const std::vector<double>& y) { return model.evaluate(y); };
  const double fd = test::check_central_differences(evaluate, x, e, {1e-3, 1e-3}, 1e-8, "linear");
  test::say("[network model, linear] largest error against the linear data %.2e of the output "
            "scale; |jacobian - central difference| / max|g| %.2e; fit %.2f s\n",
            worst, fd, model.fit_seconds());

  // A second fit fine-tunes: the normalisation stays the first fit's.
  std::vector<std::vector<double>> more(samples.rbegin(), samples.rend());
  model.fit(linear_history(more, cd, {lift, moment}, {}));
  EXPECT_EQ(model.ensemble().fits(), 2);
  EXPECT_EQ(model.ensemble().member(1).output_stats().mean,
            (std::vector<double>{cd.at(first), lift.at(first), moment.at(first)}));
}

TEST(NetworkModel, TrimmedAlphaIsAnInputAndTheLiftEqualityAnOutput) {
  const mesh::Mesh m = test::small_section_mesh();
  const aero::ShapeDesignSettings s = test::rigid_section_settings(aero::LiftConstraint::equal, 0.1);
  test::RigidSectionDesign design(m, test::world(), s);
  nn::EnsembleOptions o;
  o.members = 1;
  o.hidden = {8};
  o.epochs = 30;
  aero::NetworkModel model(design, o);
  EXPECT_EQ(model.ensemble_description(), "(3 -> 8 -> 2, tanh)");

  const double cd0 = design.baseline()[1];
  std::vector<std::vector<double>> xs;
  for (const std::vector<double>& x : samples) xs.push_back({x[0], x[1], 1.0 + 50.0 * x[0]});
  const Linear cd{cd0, {40.0 * cd0, -20.0 * cd0, 0.1 * cd0}};
  const Linear lift{0.02, {-3.0, 5.0, 0.11}};
  model.fit(linear_history(xs, cd, {}, {lift}));
  const nn::Surrogate& member = model.ensemble().member(0);
  EXPECT_EQ(member.inputs().names, (std::vector<std::string>{"x0", "x1", "x2"}));
  EXPECT_EQ(member.outputs().names, (std::vector<std::string>{"objective", "constraint0"}));
  EXPECT_EQ(member.input_stats().stddev, (std::vector<double>{0.01, 0.01, 1.0}));
  ASSERT_EQ(member.output_stats().stddev.size(), 2u);
  EXPECT_NEAR(member.output_stats().stddev[0], cd0, 1e-15 * cd0);
  EXPECT_NEAR(member.output_stats().stddev[1], 0.1, 1e-15);

  const std::vector<double> x{0.003, 0.006, 1.2};
  const opt::Evaluation e = model.evaluate(x);
  ASSERT_EQ(e.inequality.size(), 1u);
  ASSERT_EQ(e.equality.size(), 1u);
  EXPECT_EQ(e.inequality[0], -x[1]);
  EXPECT_EQ(e.inequality_gradients[0], (std::vector<double>{0.0, -1.0, 0.0}));
  EXPECT_EQ(model.objective_uncertainty(x), 0.0);  // one member
  EXPECT_TRUE(test::same_on_every_rank(test::values(e)));
  const auto evaluate = [&](const std::vector<double>& y) { return model.evaluate(y); };
  const double fd = test::check_central_differences(evaluate, x, e, {1e-5, 1e-5, 1e-3}, 1e-6, "tanh");
  test::say("[network model, tanh] |jacobian - central difference| / max|g| %.2e\n", fd);
}

}  // namespace
}  // namespace camber
