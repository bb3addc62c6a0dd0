// The airfoil design problem of solvers/aero at 1, 2 and 4 ranks.
//
// 1. What the optimizer differentiates is what it evaluates: the adjoint
//    gradients of the objective (CD) and of the lift constraint, from the
//    problem's own evaluate(), against central differences of evaluate()
//    itself (every point a full flow solve, warm-started from the last one
//    as the optimizer's are; the smooth limiter live, transonic), at the
//    baseline and at a design away from it, for all 10 variables.
// 2. A run cut short after 2 designs and restarted from its checkpoint
//    reaches the design of the uninterrupted run (to 1e-12; its objective
//    to 1e-9 relative).
// 3. The lift held equal to a target by trimming alpha, with moment, area
//    and leading-edge radius bounds: gradients of all five functions in
//    all 11 variables against central differences of evaluate(), and a run
//    that ends on the target.
// 4. Two operating points, each trimmed to the lift target: the weighted
//    objective's and both equalities' gradients, and a run on the target.
// 5. The lift fixed (every evaluation trims alpha to the target): the drag
//    at constant lift and the moment bound against central differences of
//    evaluate() in all 10 bumps at the baseline and away from it, the lift
//    of every evaluation on the target, and a run cut short and restarted
//    that reaches the uninterrupted run's design and alpha.
// 7. A sample of the design space (AirfoilDesign::sample, what `camber
//    sample` writes over shape variables): CL, CD, CM and the largest
//    thickness, and their gradients in all 10 bumps, the Mach number and
//    alpha (three adjoint solves), against central differences of sample()
//    itself (1e-6 of each gradient's largest component; the thickness's
//    exact, 1e-9), subsonic, at a design away from the baseline.
// 6. The mesh read in parallel from a file (no rank holds the whole mesh):
//    the gathered wall and anchors are the whole mesh's exactly, the
//    evaluations and gradients are those of the design on the whole mesh,
//    and the deformed mesh written by all ranks (mesh::write_su2) holds
//    the nodes of the whole mesh deformed by one rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <camber/design/design_boundary.hpp>
#include <camber/design/cst.hpp>
#include <camber/design/ffd.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/su2_reader.hpp>
#include <camber/mesh/su2_writer.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
using test::say;

// M 0.8, alpha 1.25 deg on a 48x24 NACA 0012 O-grid, second order, the
// smooth limiter live; 5 bumps per surface; thickness at every station at
// least the baseline's and CL at least the baseline's.
mesh::Mesh grid() {
  return mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
}

aero::AirfoilDesignSettings transonic_settings() {
  aero::AirfoilDesignSettings s;
  s.flow.flow.mach = 0.8;
  s.flow.flow.alpha_deg = 1.25;
  s.flow.conditions = {{"airfoil", eu::BoundaryKind::slip_wall},
                       {"farfield", eu::BoundaryKind::far_field}};
  s.flow.spatial.order = 2;
  s.flow.spatial.limiter = eu::LimiterKind::venkatakrishnan_smooth;
  s.flow.steady.max_iterations = 200;
  s.flow.steady.rel_tolerance = 1e-12;
  s.objective = aero::Coefficient::cd;
  s.thickness_fraction = 1.0;
  s.lift = aero::LiftConstraint::at_least;
  s.bound = 0.004;
  s.optimizer = opt::Options{};  // NLopt's tolerances (1e-8) and 100 evaluations
  return s;
}

std::unique_ptr<design::ShapeParametrization> bumps(const mesh::Mesh& m) {
  return std::make_unique<design::HicksHenne>(m, std::vector<std::string>{"airfoil"},
                                              design::evenly_spaced_bumps(5));
}

// The run of s cut after `cut` designs (checkpoint `prefix`), then
// restarted from its checkpoint to s.optimizer.max_evaluations; replayed:
// how many designs the restart replayed.
aero::AirfoilDesignResult cut_and_restarted(const mesh::Mesh& m, aero::AirfoilDesignSettings s,
                                            const std::string& prefix, int cut, int& replayed) {
  const int total = s.optimizer.max_evaluations;
  s.checkpoint = prefix;
  s.optimizer.max_evaluations = cut;
  {
    aero::AirfoilDesign first(m, test::world(), bumps(m), s);
    first.run();
  }
  s.optimizer.max_evaluations = total;
  aero::AirfoilDesign resumed(m, test::world(), bumps(m), s);
  replayed = 0;
  return resumed.run([&](const opt::Record& r, const aero::DesignCosts*) { replayed += r.replayed; },
                     /*restart=*/true);
}

TEST(AirfoilDesign, SampleGivesValuesAndAdjointGradientsInShapeMachAndAlpha) {
  const mesh::Mesh m = grid();
  aero::AirfoilDesignSettings s = transonic_settings();
  s.flow.spatial.limiter = eu::LimiterKind::none;  // subsonic: smooth without one
  s.flow.steady.linear_rel_tolerance = 1e-10;
  aero::AirfoilDesign problem(m, test::world(), bumps(m), s);
  const index_t n = problem.n_design();
  std::vector<double> a(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) a[static_cast<size_t>(k)] = 1e-3 * std::sin(0.7 + 1.3 * k);
  const double mach = 0.55, alpha = 2.0;
  const aero::DesignSample base = problem.sample(a, mach, alpha);
  const char* names[4] = {"CL", "CD", "CM", "t_max"};
  for (int m2 = 0; m2 < 4; ++m2) ASSERT_EQ(base.gradients[static_cast<size_t>(m2)].size(), static_cast<size_t>(n + 2));
  std::array<double, 4> largest{}, worst{};
  for (int o = 0; o < 4; ++o)
    for (double g : base.gradients[static_cast<size_t>(o)]) largest[static_cast<size_t>(o)] = std::max(largest[static_cast<size_t>(o)], std::abs(g));
  // Inputs: the bumps (step 1e-5), Mach (1e-5), alpha (1e-4 degrees).
  for (index_t k = 0; k < n + 2; ++k) {
    const double h = k < n ? 1e-5 : k == n ? 1e-5 : 1e-4;
    const std::vector<double> fd_all = test::central_difference(
        [&](double t) {
          std::vector<double> ap = a;
          double mp = mach, al = alpha;
          if (k < n) ap[static_cast<size_t>(k)] += t;
          if (k == n) mp += t;
          if (k == n + 1) al += t;
          const std::array<double, 4> v = problem.sample(ap, mp, al).values;
          return std::vector<double>(v.begin(), v.end());
        },
        0.0, h);
    for (int o = 0; o < 4; ++o) {
      const double fd = fd_all[static_cast<size_t>(o)];
      const double g = base.gradients[static_cast<size_t>(o)][static_cast<size_t>(k)];
      const double tol = (o == 3 ? 1e-9 : 1e-6) * largest[static_cast<size_t>(o)];
      worst[static_cast<size_t>(o)] = std::max(worst[static_cast<size_t>(o)], std::abs(g - fd) / largest[static_cast<size_t>(o)]);
      EXPECT_NEAR(g, fd, tol) << names[o] << " d/dx_" << k;
    }
  }
  say("[airfoil sample] M %.2f alpha %.1f: CL %.6f CD %.6f CM %.6f t %.6f; largest |adjoint - "
      "central difference| / max|g|: CL %.2e, CD %.2e, CM %.2e, t %.2e; %d adjoint iterations\n",
      mach, alpha, base.values[0], base.values[1], base.values[2], base.values[3], worst[0], worst[1],
      worst[2], worst[3], base.adjoint_iterations);
  EXPECT_GT(base.gradients[0][static_cast<size_t>(n + 1)], 0.05);  // dCL/dalpha per degree
  const std::vector<double> t = problem.thickness(a);
  EXPECT_EQ(base.values[3], *std::max_element(t.begin(), t.end()));
}

// camber sample with CST and FFD: the same sample() through their
// parametrizations, checked by central differences in three of their
// variables (first, middle, last) and the Mach number, to 1e-4 of each
// output's largest gradient component (the thickness's to 1e-9). Observed:
// CST 5.1e-6, FFD 4.2e-7; CST's gap is the same with steps of 1e-4 and
// 1e-5 (so not truncation or solver noise), where Hicks-Henne bumps agree
// to 3e-8 (the test above), also with bumps peaking at 0.03 and 0.97
// chords: the cause of CST's larger gap is not found.
TEST(AirfoilDesign, SampleGradientsThroughCstAndFfd) {
  const mesh::Mesh m = grid();
  aero::AirfoilDesignSettings s = transonic_settings();
  s.flow.spatial.limiter = eu::LimiterKind::none;
  s.flow.steady.linear_rel_tolerance = 1e-10;
  double worst[2] = {0.0, 0.0};
  for (int kind = 0; kind < 2; ++kind) {
    std::unique_ptr<design::ShapeParametrization> shape;
    if (kind == 0) {
      design::CstOptions o;
      o.order = 3;
      shape = std::make_unique<design::Cst>(m, std::vector<std::string>{"airfoil"}, o);
    } else {
      design::FfdOptions o;
      o.degree_x = 4;
      shape = std::make_unique<design::FreeFormDeformation>(m, std::vector<std::string>{"airfoil"}, o);
    }
    aero::AirfoilDesign problem(m, test::world(), std::move(shape), s);
    const index_t n = problem.n_design();
    std::vector<double> a(static_cast<size_t>(n));
    for (index_t k = 0; k < n; ++k) a[static_cast<size_t>(k)] = 5e-4 * std::sin(0.3 + 1.1 * k);
    const double mach = 0.5, alpha = 1.5;
    const aero::DesignSample base = problem.sample(a, mach, alpha);
    std::array<double, 4> largest{};
    for (int o = 0; o < 4; ++o)
      for (double g : base.gradients[static_cast<size_t>(o)])
        largest[static_cast<size_t>(o)] = std::max(largest[static_cast<size_t>(o)], std::abs(g));
    for (index_t k : {index_t{0}, n / 2, n - 1, n}) {
      const double h = 1e-5;
      const std::vector<double> fd_all = test::central_difference(
          [&](double t) {
            std::vector<double> ap = a;
            double mp = mach;
            if (k < n) ap[static_cast<size_t>(k)] += t;
            else mp += t;
            const std::array<double, 4> v = problem.sample(ap, mp, alpha).values;
            return std::vector<double>(v.begin(), v.end());
          },
          0.0, h);
      for (int o = 0; o < 4; ++o) {
        const double fd = fd_all[static_cast<size_t>(o)];
        const double g = base.gradients[static_cast<size_t>(o)][static_cast<size_t>(k)];
        worst[kind] = std::max(worst[kind], o == 3 ? 0.0 : std::abs(g - fd) / largest[static_cast<size_t>(o)]);
        EXPECT_NEAR(g, fd, (o == 3 ? 1e-9 : 1e-4) * largest[static_cast<size_t>(o)])
            << (kind == 0 ? "cst" : "ffd") << " output " << o << " d/dx_" << k << " of " << n
            << ": adjoint " << g << ", central difference " << fd << ", largest " << largest[static_cast<size_t>(o)];
      }
    }
  }
  say("[airfoil sample, cst and ffd] largest |adjoint - central difference| / max|g| over CL, "
      "CD, CM: cst %.2e, ffd %.2e\n", worst[0], worst[1]);
}

TEST(AirfoilDesign, GradientsAreThoseOfTheFunctionsTheOptimizerEvaluates) {
  const mesh::Mesh m = grid();
  // The case has neighbouring discrete solutions; with inexact linear
  // solves (GMRES to 1e-3, block-Jacobi ILU over the ranks) the Newton path,
  // and so the solution reached, can depend on the partition. Solved to
  // 1e-10 the path is the same on every partition, and the check is of the
  // gradients of one function.
  aero::AirfoilDesignSettings s = transonic_settings();
  s.flow.steady.linear_rel_tolerance = 1e-10;
  aero::AirfoilDesign problem(m, test::world(), bumps(m), s);
  const opt::Problem p = problem.problem();
  const index_t n = problem.n_design();
  ASSERT_EQ(n, 10);
  const int lift = p.n_inequality - 1;  // the last constraint: CL0 - CL <= 0
  const double h = 1e-6;
  for (const double away : {0.0, 1.0}) {
    const char* where = away > 0.0 ? "away" : "baseline";
    std::vector<double> a(static_cast<size_t>(n));
    for (index_t k = 0; k < n; ++k) a[static_cast<size_t>(k)] = away * 1e-3 * std::sin(0.7 + 1.3 * k);
    const opt::Evaluation e = p.evaluate(a);
    const std::vector<double>& gf = e.objective_gradient;
    const std::vector<double>& gl = e.inequality_gradients[static_cast<size_t>(lift)];
    double max_f = 0.0, max_l = 0.0, worst_f = 0.0, worst_l = 0.0;
    for (index_t k = 0; k < n; ++k) {
      max_f = std::max(max_f, std::abs(gf[static_cast<size_t>(k)]));
      max_l = std::max(max_l, std::abs(gl[static_cast<size_t>(k)]));
    }
    for (index_t k = 0; k < n; ++k) {
      const std::vector<double> fd = test::central_partial(
          [&](const std::vector<double>& y) {
            const opt::Evaluation ey = p.evaluate(y);
            return std::vector<double>{ey.objective, ey.inequality[static_cast<size_t>(lift)]};
          },
          a, static_cast<size_t>(k), h);
      const double fd_f = fd[0], fd_l = fd[1];
      worst_f = std::max(worst_f, std::abs(gf[static_cast<size_t>(k)] - fd_f) / max_f);
      worst_l = std::max(worst_l, std::abs(gl[static_cast<size_t>(k)] - fd_l) / max_l);
      EXPECT_NEAR(gf[static_cast<size_t>(k)], fd_f, 1e-5 * max_f) << where << " dCD/da_" << k;
      EXPECT_NEAR(gl[static_cast<size_t>(k)], fd_l, 1e-5 * max_l) << where << " d(-CL)/da_" << k;
    }
    say("[airfoil design, %s] largest |adjoint - central difference| / max|g|: CD %.2e (max|g| "
        "%.3e), lift constraint %.2e (max|g| %.3e)\n",
        where, worst_f, max_f, worst_l, max_l);
  }
}

TEST(AirfoilDesign, RestartFromACheckpointReachesTheUninterruptedDesign) {
  const mesh::Mesh m = grid();
  const std::string dir = test::scratch_dir(CAMBER_TEST_SCRATCH, "restart").string();
  aero::AirfoilDesignSettings s = transonic_settings();
  s.optimizer.max_evaluations = 5;
  s.checkpoint = dir + "/whole";
  aero::AirfoilDesign whole(m, test::world(), bumps(m), s);
  const aero::AirfoilDesignResult r_whole = whole.run();

  int replayed = 0;
  const aero::AirfoilDesignResult r_resumed = cut_and_restarted(m, s, dir + "/cut", 2, replayed);
  EXPECT_EQ(replayed, 2);
  ASSERT_EQ(r_resumed.optimizer.x.size(), r_whole.optimizer.x.size());
  for (size_t k = 0; k < r_whole.optimizer.x.size(); ++k)
    EXPECT_NEAR(r_resumed.optimizer.x[k], r_whole.optimizer.x[k], 1e-12) << k;
  // The objective to the flow solves' tolerance (1e-12 of the reference
  // residual, times the conditioning): at several ranks the assembly's sums
  // arrive in any order, so a solve repeated from the same warm start
  // differs in round-off (measured: up to 4e-11 relative at 4 ranks).
  EXPECT_NEAR(r_resumed.optimizer.objective, r_whole.optimizer.objective,
              1e-9 * std::abs(r_whole.optimizer.objective));
  say("[airfoil design restart] CD %.8f -> %.8f (whole run), %.8f (cut after 2, restarted); CL "
      "%.6f -> %.6f\n",
      r_whole.baseline[1], r_whole.final[1], r_resumed.optimizer.objective, r_whole.baseline[0],
      r_whole.final[0]);
  // The lift held at the design returned (the constraint's tolerance:
  // 1e-8 of CL0).
  EXPECT_GE(r_whole.final[0], r_whole.baseline[0] * (1.0 - 1e-8));
  EXPECT_DOUBLE_EQ(r_whole.final[1], r_whole.optimizer.objective);
}

// The lift held equal to a target by trimming the angle of attack (the
// last design variable), with pitching-moment, area and leading-edge
// radius bounds: the
// gradients of the objective, of the moment and area constraints and of the
// lift equality with respect to all 11 variables (10 bumps and alpha)
// against central differences of evaluate() (1e-5 of the largest
// component), and a short run that ends on the target (within 0.5%, the
// issue's figure) with less drag than the baseline, both bounds held.
TEST(AirfoilDesign, TrimmedAlphaHoldsTheLiftTargetWithTheGradientsOfWhatItEvaluates) {
  const mesh::Mesh m = grid();
  aero::AirfoilDesignSettings s = transonic_settings();
  s.lift = aero::LiftConstraint::equal;
  s.lift_target = 0.3;
  s.cm_min = -0.2;
  s.area_fraction = 1.0;
  s.le_radius_fraction = 1.0;
  aero::AirfoilDesign problem(m, test::world(), bumps(m), s);
  const opt::Problem p = problem.problem();
  const index_t n = problem.n_variables();
  ASSERT_EQ(n, 11);
  ASSERT_EQ(p.n_equality, 1);
  const int moment = p.n_inequality - 1;  // cm_min - CM <= 0
  const int radius = p.n_inequality - 2;  // r0 - r <= 0 (leading edge)
  const int area = p.n_inequality - 3;    // A0 - A <= 0
  std::vector<double> x(p.x0);
  for (index_t k = 0; k + 1 < n; ++k) x[static_cast<size_t>(k)] = 1e-3 * std::sin(0.7 + 1.3 * k);
  x.back() = 1.1;
  const opt::Evaluation e = p.evaluate(x);
  const std::vector<double>* g[5] = {&e.objective_gradient,
                                     &e.inequality_gradients[static_cast<size_t>(moment)],
                                     &e.equality_gradients[0],
                                     &e.inequality_gradients[static_cast<size_t>(area)],
                                     &e.inequality_gradients[static_cast<size_t>(radius)]};
  const char* names[5] = {"CD", "CM bound", "CL - target", "area bound", "LE radius bound"};
  double g_max[5] = {0.0, 0.0, 0.0, 0.0, 0.0}, worst[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  for (int j = 0; j < 5; ++j)
    for (double v : *g[j]) g_max[j] = std::max(g_max[j], std::abs(v));
  for (index_t k = 0; k < n; ++k) {
    const double h = k + 1 == n ? 1e-4 : 1e-6;  // degrees for alpha, chords for the bumps
    // In the order of g: objective, moment, lift equality, area, radius.
    const std::vector<double> fd = test::central_partial(
        [&](const std::vector<double>& y) {
          const opt::Evaluation ey = p.evaluate(y);
          return std::vector<double>{ey.objective, ey.inequality[static_cast<size_t>(moment)],
                                     ey.equality[0], ey.inequality[static_cast<size_t>(area)],
                                     ey.inequality[static_cast<size_t>(radius)]};
        },
        x, static_cast<size_t>(k), h);
    for (int j = 0; j < 5; ++j) {
      const double gk = (*g[j])[static_cast<size_t>(k)];
      worst[j] = std::max(worst[j], std::abs(gk - fd[j]) / g_max[j]);
      EXPECT_NEAR(gk, fd[j], 1e-5 * g_max[j]) << names[j] << " variable " << k;
    }
  }
  for (int j = 0; j < 5; ++j)
    say("[airfoil design, alpha trimmed] %s: largest |adjoint - central difference| / max|g| "
        "%.2e (max|g| %.3e)\n",
        names[j], worst[j], g_max[j]);

  s.optimizer.max_evaluations = 10;
  aero::AirfoilDesign run(m, test::world(), bumps(m), s);
  const aero::AirfoilDesignResult r = run.run();
  say("[airfoil design, alpha trimmed] CL %.6f -> %.6f (target 0.3), CD %.6f -> %.6f, alpha "
      "%.4f -> %.4f deg, CM %.5f -> %.5f, %d evaluations\n",
      r.baseline[0], r.final[0], r.baseline[1], r.final[1], r.baseline_alpha_deg,
      r.final_alpha_deg, r.baseline[2], r.final[2], r.optimizer.n_evaluations);
  EXPECT_NEAR(r.final[0], 0.3, 0.005 * 0.3);
  EXPECT_LT(r.final[1], r.baseline[1]);
  EXPECT_GE(r.final[2], -0.2);
  EXPECT_GE(r.final_area, r.baseline_area * (1.0 - 1e-6));
  EXPECT_GE(r.final_le_radius, r.baseline_le_radius * (1.0 - 1e-6));
  EXPECT_DOUBLE_EQ(r.final_alpha_deg, r.optimizer.x.back());
}

// Two operating points (M 0.72 and 0.75, weights 1 and 2), each holding CL
// = 0.3 by its own alpha: the gradients of the weighted objective and of
// both lift equalities against central differences of evaluate() in both
// alphas and three bumps (1e-5 of the largest component), and a short run
// that ends with both points on the target (within 0.5%).
TEST(AirfoilDesign, TwoOperatingPointsEachTrimmedToTheLiftTarget) {
  const mesh::Mesh m = grid();
  aero::AirfoilDesignSettings s = transonic_settings();
  s.lift = aero::LiftConstraint::equal;
  s.lift_target = 0.3;
  s.points = {{0.72, 1.25, 1.0}, {0.75, 1.25, 2.0}};
  aero::AirfoilDesign problem(m, test::world(), bumps(m), s);
  const opt::Problem p = problem.problem();
  ASSERT_EQ(problem.n_variables(), 12);
  ASSERT_EQ(p.n_equality, 2);
  std::vector<double> x(p.x0);
  for (index_t k = 0; k < 10; ++k) x[static_cast<size_t>(k)] = 1e-3 * std::sin(0.7 + 1.3 * k);
  x[10] = 1.1;
  x[11] = 1.2;
  const opt::Evaluation e = p.evaluate(x);
  // The objective is the weighted mean of the points' CD.
  const double cd0 = problem.flow(0).report().forces.cd, cd1 = problem.flow(1).report().forces.cd;
  EXPECT_NEAR(e.objective, (cd0 + 2.0 * cd1) / 3.0, 1e-14);
  const std::vector<double>* g[3] = {&e.objective_gradient, &e.equality_gradients[0],
                                     &e.equality_gradients[1]};
  const char* names[3] = {"weighted CD", "CL(M 0.72) - target", "CL(M 0.75) - target"};
  double g_max[3] = {0.0, 0.0, 0.0};
  for (int j = 0; j < 3; ++j)
    for (double v : *g[j]) g_max[j] = std::max(g_max[j], std::abs(v));
  // An alpha moves only its own point's lift.
  EXPECT_EQ((*g[1])[11], 0.0);
  EXPECT_EQ((*g[2])[10], 0.0);
  for (const size_t k : {0, 4, 7, 10, 11}) {
    const double h = k >= 10 ? 1e-4 : 1e-6;
    const std::vector<double> fd = test::central_partial(
        [&](const std::vector<double>& y) {
          const opt::Evaluation ey = p.evaluate(y);
          return std::vector<double>{ey.objective, ey.equality[0], ey.equality[1]};
        },
        x, k, h);
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR((*g[j])[k], fd[j], 1e-5 * g_max[j]) << names[j] << " variable " << k;
  }

  s.optimizer.max_evaluations = 10;
  aero::AirfoilDesign run(m, test::world(), bumps(m), s);
  const aero::AirfoilDesignResult r = run.run();
  ASSERT_EQ(r.final_points.size(), 2u);
  say("[airfoil design, two points] %d evaluations, %d failed, violation %.2e: %s\n",
      r.optimizer.n_evaluations, r.optimizer.n_failures, r.optimizer.max_violation,
      r.optimizer.message.c_str());
  for (size_t i = 0; i < 2; ++i) {
    say("[airfoil design, two points] M %.2f: CL %.6f -> %.6f, CD %.6f -> %.6f, alpha %.4f deg\n",
        s.points[i].mach, r.baseline_points[i][0], r.final_points[i][0], r.baseline_points[i][1],
        r.final_points[i][1], r.final_alpha_points[i]);
    EXPECT_NEAR(r.final_points[i][0], 0.3, 0.005 * 0.3) << "point " << i;
  }
  const double base = (r.baseline_points[0][1] + 2.0 * r.baseline_points[1][1]) / 3.0;
  EXPECT_LT(r.optimizer.objective, base);
}

// The lift fixed at CL = 0.3 (the baseline's alpha 1.25 deg gives 0.329 on
// this grid): every evaluation trims alpha by Newton to within the trim
// tolerance, and the optimizer sees the drag (and the moment) at that
// lift. Their gradients (one adjoint each, of CD - (CD_alpha / CL_alpha)
// CL) against central differences of evaluate() itself, each point a full
// trim, at the baseline and at a design away from it, all 10 bumps (1e-5
// of the largest component); then at M 0.72 a run of 6 designs cut after
// 3 and restarted: the same final design and alpha, the lift on the
// target.
TEST(AirfoilDesign, FixedLiftTrimsEveryDesignWithTheGradientAtConstantLift) {
  const mesh::Mesh m = grid();
  aero::AirfoilDesignSettings s = transonic_settings();
  s.lift = aero::LiftConstraint::fixed;
  s.lift_target = 0.3;
  s.cm_min = -0.2;
  aero::AirfoilDesign problem(m, test::world(), bumps(m), s);
  const opt::Problem p = problem.problem();
  const index_t n = problem.n_variables();
  ASSERT_EQ(n, 10);
  ASSERT_EQ(p.n_equality, 0);
  const int moment = p.n_inequality - 1;  // cm_min - CM <= 0
  const double h = 1e-6;
  for (const double away : {0.0, 1.0}) {
    const char* where = away > 0.0 ? "away" : "baseline";
    std::vector<double> x(static_cast<size_t>(n));
    for (index_t k = 0; k < n; ++k) x[static_cast<size_t>(k)] = away * 1e-3 * std::sin(0.7 + 1.3 * k);
    const opt::Evaluation e = p.evaluate(x);
    EXPECT_NEAR(problem.last_costs().coefficients[0], 0.3, s.trim_tolerance) << where;
    say("[airfoil design, lift fixed, %s] CL %.10f at alpha %.6f deg, CD %.8f, %d trim solves\n",
        where, problem.last_costs().coefficients[0], problem.last_costs().point_alpha_deg[0],
        e.objective, problem.last_costs().trim_solves);
    const std::vector<double>* g[2] = {&e.objective_gradient,
                                       &e.inequality_gradients[static_cast<size_t>(moment)]};
    const char* names[2] = {"CD at CL 0.3", "CM bound at CL 0.3"};
    double g_max[2] = {0.0, 0.0}, worst[2] = {0.0, 0.0};
    for (int j = 0; j < 2; ++j)
      for (double v : *g[j]) g_max[j] = std::max(g_max[j], std::abs(v));
    for (index_t k = 0; k < n; ++k) {
      // Each evaluation trimmed to the target.
      const std::vector<double> fd = test::central_partial(
          [&](const std::vector<double>& y) {
            const opt::Evaluation ey = p.evaluate(y);
            EXPECT_NEAR(problem.last_costs().coefficients[0], 0.3, s.trim_tolerance);
            return std::vector<double>{ey.objective, ey.inequality[static_cast<size_t>(moment)]};
          },
          x, static_cast<size_t>(k), h);
      for (int j = 0; j < 2; ++j) {
        const double gk = (*g[j])[static_cast<size_t>(k)];
        worst[j] = std::max(worst[j], std::abs(gk - fd[j]) / g_max[j]);
        EXPECT_NEAR(gk, fd[j], 1e-5 * g_max[j]) << where << " " << names[j] << " variable " << k;
      }
    }
    for (int j = 0; j < 2; ++j)
      say("[airfoil design, lift fixed, %s] %s: largest |adjoint - central difference| / max|g| "
          "%.2e (max|g| %.3e)\n",
          where, names[j], worst[j], g_max[j]);
  }

  // The run and its restart at M 0.72, where the flow of every design is
  // one flow: at M 0.8 this grid has more than one, and at 4 ranks a
  // design whose trim crosses between them can fail in one run and not in
  // the other (the assembly's sums arrive in any order).
  const std::string dir = test::scratch_dir(CAMBER_TEST_SCRATCH, "fixed_lift").string();
  s.flow.flow.mach = 0.72;
  s.optimizer.max_evaluations = 6;
  s.checkpoint = dir + "/whole";
  aero::AirfoilDesign whole(m, test::world(), bumps(m), s);
  const aero::AirfoilDesignResult r = whole.run();
  say("[airfoil design, lift fixed, M 0.72] CD at CL 0.3 %.6f -> %.6f, alpha %.4f deg, CM %.5f, %d "
      "evaluations, %d failed\n",
      whole.history().front().values.objective, r.optimizer.objective, r.final_alpha_deg,
      r.final[2], r.optimizer.n_evaluations, r.optimizer.n_failures);
  EXPECT_NEAR(r.final[0], 0.3, s.trim_tolerance);
  EXPECT_LT(r.optimizer.objective, whole.history().front().values.objective);
  EXPECT_GE(r.final[2], -0.2);

  int replayed = 0;
  const aero::AirfoilDesignResult r2 = cut_and_restarted(m, s, dir + "/cut", 3, replayed);
  EXPECT_EQ(replayed, 3);
  ASSERT_EQ(r2.optimizer.x.size(), r.optimizer.x.size());
  for (size_t k = 0; k < r.optimizer.x.size(); ++k)
    EXPECT_NEAR(r2.optimizer.x[k], r.optimizer.x[k], 1e-12) << k;
  EXPECT_NEAR(r2.final_alpha_deg, r.final_alpha_deg, 1e-9);
  EXPECT_NEAR(r2.optimizer.objective, r.optimizer.objective, 1e-9 * std::abs(r.optimizer.objective));
}

// The volume mesh moved by radial basis functions instead of IDW: the
// drag's gradient against central differences of evaluate() in four bumps
// at a design away from the baseline (1e-5 of the largest component), at
// M 0.72 (one flow per design on this grid; at M 0.8 one difference at 2
// ranks jumped between two flows).
TEST(AirfoilDesign, RbfDeformationGivesTheGradientOfWhatItEvaluates) {
  const mesh::Mesh m = grid();
  aero::AirfoilDesignSettings s = transonic_settings();
  s.flow.flow.mach = 0.72;
  s.deformation.method = design::DeformationMethod::rbf;
  aero::AirfoilDesign problem(m, test::world(), bumps(m), s);
  const opt::Problem p = problem.problem();
  std::vector<double> x(p.x0);
  for (size_t k = 0; k < x.size(); ++k) x[k] = 1e-3 * std::sin(0.7 + 1.3 * static_cast<double>(k));
  const opt::Evaluation e = p.evaluate(x);
  double g_max = 0.0, worst = 0.0;
  for (double v : e.objective_gradient) g_max = std::max(g_max, std::abs(v));
  const double h = 1e-6;
  for (const size_t k : {0, 3, 6, 9}) {
    const double fd = test::central_partial(
        [&](const std::vector<double>& y) { return p.evaluate(y).objective; }, x, k, h);
    worst = std::max(worst, std::abs(e.objective_gradient[k] - fd) / g_max);
    EXPECT_NEAR(e.objective_gradient[k], fd, 1e-5 * g_max) << "bump " << k;
  }
  say("[airfoil design, rbf] CD %.8f, largest |adjoint - central difference| / max|g| %.2e\n",
      e.objective, worst);
}

// 6. A mesh read in parallel.
TEST(AirfoilDesign, OnAMeshReadInParallelIsTheDesignOnTheWholeMesh) {
  const mesh::Mesh m = grid();
  const std::string dir = test::scratch_dir(CAMBER_TEST_SCRATCH, "parallel_read").string();
  if (test::rank() == 0) mesh::write_su2(m, dir + "/grid.su2");
  MPI_Barrier(test::world());
  mesh::DistributedMesh dm = mesh::DistributedMesh::read(dir + "/grid.su2", test::world());

  // The boundary gathered from the ranks' parts is the whole mesh's.
  const design::DesignBoundary whole = design::design_boundary(m, {"airfoil"});
  const design::DesignBoundary gathered = design::design_boundary(dm, {"airfoil"});
  EXPECT_EQ(gathered.n_mesh_nodes, m.n_nodes());
  EXPECT_EQ(gathered.wall_faces, whole.wall_faces);
  EXPECT_EQ(gathered.wall_nodes, whole.wall_nodes);
  EXPECT_EQ(gathered.wall_coords, whole.wall_coords);
  EXPECT_EQ(gathered.anchors, whole.anchors);
  EXPECT_EQ(gathered.anchor_coords, whole.anchor_coords);
  // 48 wall faces of a closed wall; the far field's 48 nodes are the anchors.
  EXPECT_EQ(whole.wall_faces.size(), 48u);
  EXPECT_EQ(whole.wall_nodes.size(), 48u);
  EXPECT_EQ(whole.anchors.size(), 48u);

  aero::AirfoilDesignSettings s = transonic_settings();
  s.flow.steady.linear_rel_tolerance = 1e-10;
  aero::AirfoilDesign on_whole(m, test::world(), bumps(m), s);
  aero::AirfoilDesign on_read(
      std::move(dm),
      std::make_unique<design::HicksHenne>(design::AirfoilWall(gathered), design::evenly_spaced_bumps(5)),
      s);
  std::vector<double> a(10);
  for (size_t k = 0; k < a.size(); ++k) a[k] = 1e-3 * std::sin(0.7 + 1.3 * static_cast<double>(k));
  const opt::Evaluation e_whole = on_whole.problem().evaluate(a);
  const opt::Evaluation e_read = on_read.problem().evaluate(a);
  // The same partition (chunks of the same ranges) and the same sums: the
  // flows agree to the solves' tolerance.
  EXPECT_NEAR(e_read.objective, e_whole.objective, 1e-10 * std::abs(e_whole.objective));
  double max_g = 0.0, worst = 0.0;
  for (double g : e_whole.objective_gradient) max_g = std::max(max_g, std::abs(g));
  for (size_t k = 0; k < a.size(); ++k)
    worst = std::max(worst, std::abs(e_read.objective_gradient[k] - e_whole.objective_gradient[k]));
  EXPECT_LT(worst, 1e-8 * max_g);
  say("[airfoil design, mesh read in parallel] CD %.12f against %.12f; largest gradient "
      "difference %.2e of max|g| %.3e\n",
      e_read.objective, e_whole.objective, worst, max_g);

  // The deformed mesh written by every rank against the whole mesh
  // deformed on one: the same node coordinates (as a set: the file's
  // numbering is the ranks'), the same cells and markers.
  mesh::write_su2(on_read.mesh_at(a), dir + "/deformed.su2");
  MPI_Barrier(test::world());
  if (test::rank() != 0) return;
  const mesh::Mesh back = mesh::read_su2(dir + "/deformed.su2");
  const design::HicksHenne hh(m, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(m, {"airfoil"});
  const std::vector<double> x = design::deformed_coordinates(hh, idw, Tensor::from_host({10}, a)).to_vector();
  ASSERT_EQ(back.n_nodes(), m.n_nodes());
  ASSERT_EQ(back.n_cells(), m.n_cells());
  const auto sorted_points = [](const std::vector<double>& flat) {
    std::vector<std::array<double, 2>> p(flat.size() / 2);
    for (size_t i = 0; i < p.size(); ++i) p[i] = {flat[2 * i], flat[2 * i + 1]};
    std::sort(p.begin(), p.end());
    return p;
  };
  const auto xb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.coords());
  std::vector<double> flat(static_cast<size_t>(2 * back.n_nodes()));
  for (index_t i = 0; i < back.n_nodes(); ++i)
    for (int d = 0; d < 2; ++d) flat[static_cast<size_t>(2 * i + d)] = xb(i, d);
  const auto pb = sorted_points(flat), pw = sorted_points(x);
  double worst_x = 0.0;
  for (size_t i = 0; i < pb.size(); ++i)
    for (int d = 0; d < 2; ++d) worst_x = std::max(worst_x, std::abs(pb[i][static_cast<size_t>(d)] - pw[i][static_cast<size_t>(d)]));
  EXPECT_LT(worst_x, 1e-15) << "the written nodes are the deformed whole mesh's";
  ASSERT_EQ(back.markers().size(), m.markers().size());
  for (size_t k = 0; k < m.markers().size(); ++k) {
    EXPECT_EQ(back.markers()[k].name, m.markers()[k].name);
    EXPECT_EQ(back.markers()[k].n_faces(), m.markers()[k].n_faces());
  }
}

}  // namespace
}  // namespace camber
