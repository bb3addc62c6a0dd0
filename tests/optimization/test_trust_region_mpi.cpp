// camber::opt::TrustRegionOptimizer at 1, 2 and 4 ranks, on problems with
// known optima (problems.hpp) and models whose quality is known:
//  - a model that differs from the problem by affine terms: the first-order
//    correction makes it exact, so the first candidate is the published
//    optimum (HS71 to 1e-6) and the second subproblem stops there: two
//    expensive evaluations;
//  - a model that is zero: the corrected model is the linearization, the
//    loop is sequential linear programming in a trust region, which reaches
//    a vertex optimum (NLopt's tutorial problem, two active constraints) to
//    1e-6;
//  - gradients of the wrong sign: every prediction fails, the region
//    shrinks to min_radius, the status says it collapsed and the design is
//    the last accepted one (the start), bit for bit;
//  - a failed evaluation shrinks the region and the loop recovers;
//  - every rank ends with the same design and records.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/optimization/trust_region.hpp>
#include <camber/parallel/collectives.hpp>

#include "tests/mpi_test_utils.hpp"
#include "tests/optimization/problems.hpp"

namespace camber_test_trust_region_mpi {

namespace opt = camber::opt;
using camber::test::max_abs_difference;
using camber::test::rank;
using camber::test::same_on_every_rank;
using camber::test::size;
using camber::test::world;

// The problem's own functions plus c0 + c.x on every output (objective and
// constraints), or zero everywhere.
class AffinelyWrongModel : public opt::SurrogateModel {
 public:
  AffinelyWrongModel(opt::EvaluateFunction exact, bool zero) : exact_(std::move(exact)), zero_(zero) {}
  void fit(const opt::History& samples) override { fits = static_cast<int>(samples.size()); }
  opt::Evaluation evaluate(const std::vector<double>& x) override {
    opt::Evaluation e = exact_(x);
    const auto wrong = [&](double& v, std::vector<double>& g, double c0) {
      if (zero_) {
        v = 0.0;
        std::fill(g.begin(), g.end(), 0.0);
        return;
      }
      v += c0;
      for (size_t i = 0; i < x.size(); ++i) {
        v += (0.3 * static_cast<double>(i) - 1.0) * c0 * x[i];
        g[i] += (0.3 * static_cast<double>(i) - 1.0) * c0;
      }
    };
    wrong(e.objective, e.objective_gradient, 3.0);
    for (size_t i = 0; i < e.inequality.size(); ++i) wrong(e.inequality[i], e.inequality_gradients[i], -2.0);
    for (size_t j = 0; j < e.equality.size(); ++j) wrong(e.equality[j], e.equality_gradients[j], 0.7);
    return e;
  }
  int fits = 0;

 private:
  opt::EvaluateFunction exact_;
  bool zero_;
};

opt::TrustRegionOptions options(double radius) {
  opt::TrustRegionOptions o;
  o.initial_radius = radius;
  o.max_radius = 10.0;
  o.min_radius = 1e-6;
  o.xtol = 1e-9;
  o.subproblem.max_evaluations = 300;
  o.subproblem.ftol_rel = 1e-14;
  o.subproblem.xtol_rel = 1e-14;
  o.subproblem.constraint_tol = 1e-12;
  return o;
}

TEST(TrustRegion, AffinelyWrongModelIsCorrectedToTheOptimumInTwoEvaluations) {
  opt::Problem p = camber::test::hs71_problem();
  AffinelyWrongModel model(p.evaluate, /*zero=*/false);
  opt::TrustRegionOptimizer tr(p, model, options(4.0), world());
  std::vector<double> records;
  tr.on_evaluation([&](const opt::TrustRegionRecord& r) {
    records.push_back(r.objective);
    records.push_back(r.ratio);
  });
  const opt::TrustRegionResult r = tr.minimize();
  EXPECT_EQ(r.status, opt::Status::xtol_reached) << r.message;
  EXPECT_EQ(r.n_evaluations, 2);
  EXPECT_EQ(r.n_accepted, 1);
  EXPECT_NEAR(r.objective, camber::test::hs71_f_star, 1e-6);
  EXPECT_LT(max_abs_difference(r.x, camber::test::hs71_x_star), 1e-6);
  EXPECT_LT(r.max_violation, 1e-9);
  // The model was exact after correction: actual / predicted = 1.
  ASSERT_EQ(records.size(), 4u);
  EXPECT_NEAR(records[3], 1.0, 1e-6);
  EXPECT_EQ(model.fits, 2);
  EXPECT_TRUE(same_on_every_rank(r.x));
  EXPECT_TRUE(same_on_every_rank(records));
}

TEST(TrustRegion, ZeroModelIsSequentialLinearProgrammingToAVertexOptimum) {
  opt::Problem p = camber::test::tutorial_problem();
  AffinelyWrongModel model(p.evaluate, /*zero=*/true);
  opt::TrustRegionOptions o = options(1.0);
  o.max_evaluations = 40;
  opt::TrustRegionOptimizer tr(p, model, o, world());
  const opt::TrustRegionResult r = tr.minimize();
  EXPECT_EQ(r.status, opt::Status::xtol_reached) << r.message;
  EXPECT_LT(max_abs_difference(r.x, camber::test::tutorial_x_star), 1e-6);
  EXPECT_NEAR(r.objective, camber::test::tutorial_f_star, 1e-6);
  EXPECT_LT(r.max_violation, 1e-8);
  EXPECT_LE(r.n_evaluations, 40);
  EXPECT_TRUE(same_on_every_rank(r.x));
}

TEST(TrustRegion, GradientsOfTheWrongSignCollapseTheRegionAndKeepTheStart) {
  opt::Problem p = camber::test::rosenbrock_problem();
  p.evaluate = [](const std::vector<double>& x) {
    opt::Evaluation e = camber::test::rosenbrock_evaluation(x);
    for (double& g : e.objective_gradient) g = -g;
    return e;
  };
  AffinelyWrongModel model(p.evaluate, /*zero=*/true);
  opt::TrustRegionOptions o = options(0.5);
  o.min_radius = 1e-3;
  o.max_evaluations = 100;
  opt::TrustRegionOptimizer tr(p, model, o, world());
  int rejected = 0;
  tr.on_evaluation([&](const opt::TrustRegionRecord& r) {
    if (r.evaluation > 1 && !r.accepted) ++rejected;
  });
  const opt::TrustRegionResult r = tr.minimize();
  EXPECT_EQ(r.status, opt::Status::trust_region_collapsed) << r.message;
  EXPECT_NE(r.message.find("collapsed"), std::string::npos) << r.message;
  EXPECT_EQ(r.n_accepted, 0);
  EXPECT_EQ(rejected, r.n_evaluations - 1);
  EXPECT_LT(r.radius, 1e-3);
  // Each rejection halves the step: about log2(0.5 / 1e-3) of them.
  EXPECT_LE(r.n_evaluations, 12);
  ASSERT_EQ(r.x.size(), 2u);
  EXPECT_EQ(r.x[0], -1.2);
  EXPECT_EQ(r.x[1], 1.0);
  EXPECT_EQ(r.objective, camber::test::rosenbrock_evaluation({-1.2, 1.0}).objective);
}

TEST(TrustRegion, AFailedEvaluationOnOneRankShrinksTheRegionEverywhere) {
  opt::Problem p = camber::test::tutorial_problem();
  int calls = 0;
  p.evaluate = [&calls](const std::vector<double>& x) {
    // The first candidate fails on the last rank only.
    if (++calls == 2 && rank() == size() - 1) throw opt::EvaluationFailed("no convergence");
    return camber::test::tutorial_problem().evaluate(x);
  };
  AffinelyWrongModel model(camber::test::tutorial_problem().evaluate, /*zero=*/true);
  opt::TrustRegionOptions o = options(1.0);
  o.max_evaluations = 40;
  opt::TrustRegionOptimizer tr(p, model, o, world());
  std::vector<double> second;
  tr.on_evaluation([&](const opt::TrustRegionRecord& r) {
    if (r.evaluation == 2) second = {r.failed ? 1.0 : 0.0, r.step, r.radius, r.accepted ? 1.0 : 0.0};
  });
  const opt::TrustRegionResult r = tr.minimize();
  ASSERT_EQ(second.size(), 4u);
  EXPECT_EQ(second[0], 1.0);
  EXPECT_EQ(second[3], 0.0);
  EXPECT_DOUBLE_EQ(second[2], 0.5 * std::min(1.0, second[1]));
  EXPECT_EQ(r.n_failures, 1);
  EXPECT_LT(max_abs_difference(r.x, camber::test::tutorial_x_star), 1e-6);
  EXPECT_TRUE(same_on_every_rank(r.x));
  EXPECT_TRUE(same_on_every_rank(second));
}

TEST(TrustRegion, BadOptionsSayWhatToChange) {
  opt::Problem p = camber::test::tutorial_problem();
  AffinelyWrongModel model(p.evaluate, true);
  opt::TrustRegionOptions o = options(1.0);
  o.min_radius = 2.0;
  try {
    opt::TrustRegionOptimizer tr(p, model, o, world());
    FAIL() << "accepted min_radius > initial_radius";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("min_radius"), std::string::npos) << e.what();
  }
  o = options(1.0);
  o.shrink = 1.0;
  EXPECT_THROW(opt::TrustRegionOptimizer(p, model, o, world()), camber::Error);
}

}  // namespace camber_test_trust_region_mpi
