// solvers/aero/shape_design.hpp at 1, 2 and 4 ranks, through a design
// geometry of its own: the small NACA 0012 section (48 x 24, M 0.5, alpha
// 1 deg, first order) turned by theta and scaled by 1 + sigma as a rigid
// body about the moment point (test::RigidSectionDesign). Its coefficients
// are the undeformed section's at alpha - theta, CL and CD times 1 + sigma
// and CM times (1 + sigma)^2, so every value and gradient the problem
// gives has a closed form in one reference flow, solved beside it at the
// shifted angle (with its d/dalpha by a tangent solve):
//  1. the settings' defaults are the header's, and bad settings and bad
//     requests are bad input before any flow is solved;
//  2. lift at least the baseline's, moment bounded: the objective and the
//     three constraints (chord, lift, moment) and their gradients in
//     (theta, sigma) against the closed forms (1e-8 of each value, 1e-6 of
//     each gradient's largest component), and against central differences
//     of evaluate() itself (1e-5); the optimizer's scales; the evaluation
//     the same bits on every rank; a folded mesh reported as failed;
//  3. lift held equal by alpha as a third variable, CM the objective: the
//     equality, its gradient in alpha, and the rotation's invariance
//     dJ/dtheta = -(180 / pi) dJ/dalpha; central differences as in 2;
//  4. lift fixed (every evaluation trimmed): turning the section moves
//     the trimmed alpha by theta and leaves the drag and its gradient in
//     sigma unchanged, d/dtheta at constant lift is zero, and
//     d/dsigma = CD - CL (CD_alpha / CL_alpha) of the reference flow.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/aero/shape_design.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/aero/aero_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
using test::say;

constexpr double deg_per_rad = 180.0 / M_PI;
constexpr double theta = 0.006, sigma = -0.004;  // the design away from the baseline

// The undeformed section's flow, solved at a given alpha: its coefficients
// and their derivatives per degree of alpha.
struct Reference {
  std::array<double, 3> c{}, c_alpha{};
};

Reference reference_at(eu::SteadyFlow& flow, double alpha_deg) {
  const std::vector<double> c = flow.rank_coefficients(flow.row_coordinates(), alpha_deg).to_vector();
  return {{c[0], c[1], c[2]}, flow.alpha_tangent()};
}

// Throws camber::Error of kind bad_input (the check fails otherwise).
template <class F>
void expect_bad_input(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << what << ": no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input) << what << ": " << e.what();
  }
}

// A surrogate that is never asked anything (the run it is given to is
// refused first).
class UnusedModel : public opt::SurrogateModel {
 public:
  void fit(const opt::History&) override {}
  opt::Evaluation evaluate(const std::vector<double>&) override { return {}; }
};

TEST(ShapeDesign, SettingsDefaultsAndBadInput) {
  const opt::Options o = aero::design_optimizer_options();
  EXPECT_EQ(o.algorithm, "slsqp");
  EXPECT_EQ(o.max_evaluations, 30);
  EXPECT_EQ(o.ftol_rel, 1e-6);
  EXPECT_EQ(o.xtol_rel, 1e-6);
  EXPECT_EQ(o.constraint_tol, 1e-6);
  const aero::ShapeDesignSettings d;
  EXPECT_EQ(d.optimizer.algorithm, o.algorithm);
  EXPECT_EQ(d.optimizer.max_evaluations, o.max_evaluations);
  EXPECT_EQ(d.objective, aero::Coefficient::cd);
  EXPECT_EQ(d.lift, aero::LiftConstraint::none);
  EXPECT_TRUE(std::isnan(d.lift_target));
  EXPECT_TRUE(std::isinf(d.cm_min) && d.cm_min < 0.0);
  EXPECT_EQ(d.thickness_fraction, 1.0);
  EXPECT_TRUE(d.points.empty() && d.start.empty() && d.checkpoint.empty());
  // The default of each enum is the first of its names.
  EXPECT_EQ(aero::coefficient_names[0].value, aero::Coefficient::cd);
  EXPECT_EQ(aero::lift_constraint_names[0].value, aero::LiftConstraint::none);
  EXPECT_EQ(aero::lift_constraint_names[0].name, "free");

  const mesh::Mesh m = test::small_section_mesh();
  const auto bad = [&](aero::ShapeDesignSettings s, const std::string& what) {
    expect_bad_input([&] { test::RigidSectionDesign design(m, test::world(), s); }, what);
  };
  aero::ShapeDesignSettings s = test::rigid_section_settings();
  s.bound = 0.0;
  bad(s, "bound 0");
  s = test::rigid_section_settings();
  s.objective = aero::Coefficient::cl;
  s.lift = aero::LiftConstraint::at_least;
  bad(s, "CL the objective and held");
  s = test::rigid_section_settings();
  s.lift = aero::LiftConstraint::fixed;
  s.trim_tolerance = 0.0;
  bad(s, "trim tolerance 0");
  s = test::rigid_section_settings();
  s.lift = aero::LiftConstraint::equal;
  s.alpha_range_deg = 0.0;
  bad(s, "alpha range 0");
  s = test::rigid_section_settings();
  s.cm_min = std::numeric_limits<double>::quiet_NaN();
  bad(s, "cm_min NaN");
  s = test::rigid_section_settings();
  s.points = {{0.5, 1.0, 1.0}, {0.0, 1.0, 1.0}};
  bad(s, "a point at Mach 0");
  s.points = {{0.5, 1.0, 1.0}, {0.6, 1.0, -1.0}};
  bad(s, "a point of weight -1");

  // Two points, alpha trimmed at each: the shape's variables, then each
  // point's alpha, in degrees within the range.
  s = test::rigid_section_settings();
  s.lift = aero::LiftConstraint::equal;
  s.lift_target = 0.1;  // no baseline solve
  s.points = {{0.5, 1.0, 1.0}, {0.45, 2.0, 3.0}};
  test::RigidSectionDesign two(m, test::world(), s);
  EXPECT_EQ(two.n_points(), 2);
  EXPECT_EQ(two.n_design(), 2);
  EXPECT_EQ(two.n_variables(), 4);
  EXPECT_TRUE(two.trims_alpha());
  EXPECT_FALSE(two.fixes_lift());
  EXPECT_EQ(two.lift_target(1), 0.1);
  const opt::Problem p = two.problem();
  EXPECT_EQ(p.x0, (std::vector<double>{0.0, 0.0, 1.0, 2.0}));
  EXPECT_EQ(p.lower, (std::vector<double>{-0.01, -0.01, -2.0, -1.0}));
  EXPECT_EQ(p.upper, (std::vector<double>{0.01, 0.01, 4.0, 5.0}));
  EXPECT_EQ(p.n_inequality, 1);  // the chord
  EXPECT_EQ(p.n_equality, 2);    // the lift at each point
  expect_bad_input([&] { two.run({}, /*restart=*/true); }, "a restart without a checkpoint");
  EXPECT_THROW(two.history(), Error);  // before run()
  UnusedModel model;
  two.use_trust_region(&model, opt::TrustRegionOptions{});
  expect_bad_input([&] { two.run({}, /*restart=*/true); }, "a trust-region restart");

  // The start design: its length and bound are checked; it is the first x.
  s.points.clear();
  s.start = {0.001, 0.002};
  test::RigidSectionDesign started(m, test::world(), s);
  EXPECT_EQ(started.problem().x0, (std::vector<double>{0.001, 0.002, 1.0}));
  s.start = {0.001};
  test::RigidSectionDesign short_start(m, test::world(), s);
  expect_bad_input([&] { short_start.problem(); }, "a start of one variable for two");
  s.start = {0.0, 0.02};
  test::RigidSectionDesign far_start(m, test::world(), s);
  expect_bad_input([&] { far_start.problem(); }, "a start outside the bound");
}

// validate_design_start alone (no flow): the first fault, told the member,
// in the caller's words for the design and its bound; the bound itself is
// inside.
TEST(ShapeDesign, TheStartDesignsCheckTellsTheMemberInTheCallersWords) {
  aero::ShapeDesignSettings s;
  s.bound = 0.01;
  const auto fault = [&](index_t n, const std::vector<std::string>& names) {
    std::string told;
    try {
      const aero::ShapeDesignReject reject = [&](const std::string& member, const std::string& what) {
        told = member + ": " + what;
        throw_bad_input(told);
      };
      if (names.empty()) aero::validate_design_start(s, n, reject);
      else aero::validate_design_start(s, n, reject, names[0], names[1]);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    }
    return told;
  };
  EXPECT_EQ(fault(7, {}), "");  // no start: the undeformed shape, whatever the size
  s.start = {0.01, -0.01};
  EXPECT_EQ(fault(2, {}), "");
  s.start = {0.001};
  EXPECT_EQ(fault(2, {}), "start: holds 1 shape variables; the design makes 2");
  EXPECT_EQ(fault(2, {"this design section", "design.bound"}),
            "start: holds 1 shape variables; this design section makes 2");
  s.start = {0.0, -0.02, 0.03};
  EXPECT_EQ(fault(3, {}), "start: variable 1 = -0.02 lies outside bound = 0.01");
  EXPECT_EQ(fault(3, {"this design section", "design.bound"}),
            "start: variable 1 = -0.02 lies outside design.bound = 0.01");
}

TEST(ShapeDesign, LiftAtLeastAndMomentBoundAreThoseOfTheTurnedAndScaledSection) {
  const mesh::Mesh m = test::small_section_mesh();
  const aero::ShapeDesignSettings s =
      test::rigid_section_settings(aero::LiftConstraint::at_least, test::baseline_lift, -0.2);
  test::RigidSectionDesign design(m, test::world(), s);
  eu::SteadyFlow ref(m, test::world(), s.flow);
  const Reference r0 = reference_at(ref, 1.0);
  const std::array<double, 3>& b = design.baseline();
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(b[i], r0.c[i], 1e-8 * std::abs(r0.c[i])) << "baseline " << i;
  EXPECT_EQ(design.lift_target(), b[0]);

  const opt::Problem p = design.problem();
  ASSERT_EQ(p.n_inequality, 3);  // chord, lift, moment
  ASSERT_EQ(p.n_equality, 0);
  EXPECT_EQ(p.x0, (std::vector<double>{0.0, 0.0}));
  const opt::Options o = design.options();
  EXPECT_EQ(o.x_scale, (std::vector<double>{0.01, 0.01}));
  EXPECT_DOUBLE_EQ(o.objective_scale, 1.0 / b[1]);
  ASSERT_EQ(o.constraint_scale.size(), 3u);
  EXPECT_DOUBLE_EQ(o.constraint_scale[0], 1.0 / 0.01);
  EXPECT_DOUBLE_EQ(o.constraint_scale[1], 1.0 / b[0]);
  EXPECT_DOUBLE_EQ(o.constraint_scale[2], 1.0 / 0.2);

  const std::vector<double> x{theta, sigma};
  const opt::Evaluation e = p.evaluate(x);
  const Reference r = reference_at(ref, 1.0 - theta * deg_per_rad);
  const double k = 1.0 + sigma;
  // Values: (1+s) CD, the chord's -s, CL0 - (1+s) CL, cm_min - (1+s)^2 CM.
  const std::vector<double> want{k * r.c[1], -sigma, b[0] - k * r.c[0], -0.2 - k * k * r.c[2]};
  // Gradients in (theta, sigma): d/dtheta = -(180 / pi) d/dalpha.
  const std::vector<std::vector<double>> want_g{
      {-deg_per_rad * k * r.c_alpha[1], r.c[1]},
      {0.0, -1.0},
      {deg_per_rad * k * r.c_alpha[0], -r.c[0]},
      {deg_per_rad * k * k * r.c_alpha[2], -2.0 * k * r.c[2]}};
  const std::vector<double> v = test::values(e);
  const std::vector<std::vector<double>> g = test::gradients(e);
  ASSERT_EQ(v.size(), 4u);
  const char* names[4] = {"CD", "chord", "lift", "moment"};
  double worst = 0.0;
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_NEAR(v[j], want[j], 1e-8 * std::abs(b[j == 3 ? 2 : j == 2 ? 0 : 1]) + 1e-15) << names[j];
    const double largest = std::max(std::abs(want_g[j][0]), std::abs(want_g[j][1]));
    for (size_t i = 0; i < 2; ++i) {
      worst = std::max(worst, std::abs(g[j][i] - want_g[j][i]) / largest);
      EXPECT_NEAR(g[j][i], want_g[j][i], 1e-6 * largest) << names[j] << " variable " << i;
    }
  }
  EXPECT_EQ(e.inequality[0], -sigma);
  EXPECT_EQ(design.last_costs().point_alpha_deg, std::vector<double>{1.0});
  EXPECT_NEAR(design.last_costs().coefficients[0], k * r.c[0], 1e-8 * std::abs(r.c[0]));
  EXPECT_TRUE(test::same_on_every_rank(v));
  EXPECT_TRUE(test::same_on_every_rank(e.objective_gradient));

  const double fd = test::check_central_differences(p.evaluate, x, e, {1e-4, 1e-4}, 1e-5, "at least");
  say("[shape design, lift at least] CD %.8f; largest |adjoint - closed form| / max|g| %.2e, "
      "|adjoint - central difference| / max|g| %.2e\n", e.objective, worst, fd);

  // Every node at the moment point: every cell has zero area.
  EXPECT_THROW(p.evaluate({0.0, -1.0}), opt::EvaluationFailed);
}

TEST(ShapeDesign, LiftEqualTrimsAlphaAsAVariable) {
  const mesh::Mesh m = test::small_section_mesh();
  aero::ShapeDesignSettings s = test::rigid_section_settings(aero::LiftConstraint::equal, 0.1);
  s.objective = aero::Coefficient::cm;
  test::RigidSectionDesign design(m, test::world(), s);
  eu::SteadyFlow ref(m, test::world(), s.flow);
  const opt::Problem p = design.problem();
  ASSERT_EQ(design.n_variables(), 3);
  ASSERT_EQ(p.n_inequality, 1);
  ASSERT_EQ(p.n_equality, 1);
  const opt::Options o = design.options();
  EXPECT_EQ(o.x_scale, (std::vector<double>{0.01, 0.01, 1.0}));
  EXPECT_DOUBLE_EQ(o.objective_scale, 1.0 / std::abs(design.baseline()[2]));
  EXPECT_EQ(o.constraint_scale, (std::vector<double>{1.0 / 0.01, 1.0 / 0.1}));

  const double alpha = 1.5;
  const std::vector<double> x{theta, sigma, alpha};
  const opt::Evaluation e = p.evaluate(x);
  const Reference r = reference_at(ref, alpha - theta * deg_per_rad);
  const double k = 1.0 + sigma;
  EXPECT_NEAR(e.objective, k * k * r.c[2], 1e-8 * std::abs(r.c[2]));
  EXPECT_NEAR(e.equality[0], k * r.c[0] - 0.1, 1e-8 * std::abs(r.c[0]));
  EXPECT_EQ(e.inequality_gradients[0], (std::vector<double>{0.0, -1.0, 0.0}));
  const std::vector<double>& gh = e.equality_gradients[0];
  const std::vector<double>& gj = e.objective_gradient;
  EXPECT_NEAR(gh[2], k * r.c_alpha[0], 1e-6 * std::abs(r.c_alpha[0]));
  EXPECT_NEAR(gj[2], k * k * r.c_alpha[2], 1e-6 * std::abs(r.c_alpha[2]));
  EXPECT_NEAR(gh[1], r.c[0], 1e-6 * std::abs(r.c[0]));
  // Turning the section is lowering alpha: the shape derivative and the
  // alpha derivative (two different terms of the adjoint) agree.
  EXPECT_NEAR(gh[0], -deg_per_rad * gh[2], 1e-6 * deg_per_rad * std::abs(gh[2]));
  EXPECT_NEAR(gj[0], -deg_per_rad * gj[2], 1e-6 * deg_per_rad * std::abs(gj[2]));
  EXPECT_EQ(design.last_costs().point_alpha_deg, std::vector<double>{alpha});

  const double fd =
      test::check_central_differences(p.evaluate, x, e, {1e-4, 1e-4, 1e-3}, 1e-5, "alpha trimmed");
  say("[shape design, lift equal] CM %.8f, CL - target %.3e; largest |adjoint - central "
      "difference| / max|g| %.2e\n", e.objective, e.equality[0], fd);
}

TEST(ShapeDesign, FixedLiftDragDoesNotSeeTheSectionTurn) {
  const mesh::Mesh m = test::small_section_mesh();
  const aero::ShapeDesignSettings s = test::rigid_section_settings(aero::LiftConstraint::fixed, 0.1);
  test::RigidSectionDesign design(m, test::world(), s);
  const opt::Problem p = design.problem();
  ASSERT_EQ(design.n_variables(), 2);
  ASSERT_EQ(p.n_inequality, 1);
  ASSERT_EQ(p.n_equality, 0);

  const opt::Evaluation e0 = p.evaluate({0.0, 0.0});
  const aero::DesignCosts c0 = design.last_costs();
  EXPECT_NEAR(c0.coefficients[0], 0.1, s.trim_tolerance);
  EXPECT_GT(c0.trim_solves, 1);
  const double alpha0 = c0.point_alpha_deg[0];
  const opt::Evaluation e1 = p.evaluate({theta, 0.0});
  const aero::DesignCosts c1 = design.last_costs();
  EXPECT_NEAR(c1.coefficients[0], 0.1, s.trim_tolerance);
  // The trim's residual moves alpha by at most trim_tolerance / CL_alpha.
  EXPECT_NEAR(c1.point_alpha_deg[0], alpha0 + theta * deg_per_rad, 1e-6);
  // The drag seen is at the target to second order in the trim's residual.
  EXPECT_NEAR(e1.objective, e0.objective, 1e-9 * e0.objective);

  // The reference at the trimmed alpha: d/dsigma at constant lift is
  // CD + CD_alpha dalpha/dsigma, dalpha/dsigma = -CL / CL_alpha.
  eu::SteadyFlow ref(m, test::world(), s.flow);
  const Reference r = reference_at(ref, alpha0);
  EXPECT_NEAR(r.c[0], 0.1, 1e-7);
  const double d_sigma = r.c[1] - r.c[0] * r.c_alpha[1] / r.c_alpha[0];
  EXPECT_NEAR(e0.objective, r.c[1], 1e-8 * r.c[1]);
  for (const opt::Evaluation* e : {&e0, &e1}) {
    EXPECT_NEAR(e->objective_gradient[1], d_sigma, 1e-6 * std::abs(d_sigma));
    EXPECT_NEAR(e->objective_gradient[0], 0.0, 1e-6 * std::abs(d_sigma));
  }
  say("[shape design, lift fixed] alpha %.6f -> %.6f deg (turn %.6f), CD %.10f -> %.10f, "
      "dCD/dsigma %.6e (closed form %.6e), dCD/dtheta %.2e, %d + %d trim solves\n",
      alpha0, c1.point_alpha_deg[0], theta * deg_per_rad, e0.objective, e1.objective,
      e0.objective_gradient[1], d_sigma, e1.objective_gradient[0], c0.trim_solves, c1.trim_solves);
}

}  // namespace
}  // namespace camber
