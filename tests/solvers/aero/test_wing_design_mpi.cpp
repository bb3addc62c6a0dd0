// The wing design problem of solvers/aero at 1, 2 and 4 ranks, on a NACA
// 0012 wing between symmetry planes (hexahedra; span along y, lift along
// z) in an FFD box of degree (3, 2, 3) moved in z: 4 shape variables.
//
// 1. The thickness stations (design::WingThickness): with a box of degree
//    2 in z, a section symmetric about the box's mid-plane keeps its
//    thickness (T = 0 to round-off); with degree 3, t0 + T a is the
//    thickness of the deformed mesh measured again, to round-off.
// 2. What the optimizer differentiates is what it evaluates: with the
//    lift fixed (each evaluation trimmed to the target), the adjoint
//    gradient of the drag at constant lift and of the thickness
//    constraints against central differences of evaluate(), away from
//    the baseline.
//    The same with the twist at two stations (design::WingTwist) as the
//    variables, and the settings a twist design refuses.
// 3. A run with the lift fixed and the thickness held: the drag falls,
//    every station keeps its thickness, and a run cut after 2 designs and
//    restarted from its checkpoint reaches the uninterrupted run's design.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <camber/design/ffd_volume.hpp>
#include <camber/design/wing_thickness.hpp>
#include <camber/solvers/aero/wing_design.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
using eu::test_utils::extruded_wing;
using test::say;

aero::WingDesignSettings wing_settings() {
  aero::WingDesignSettings s;
  s.flow.flow = eu::test_utils::wing_flow();
  s.flow.flow.mach = 0.7;
  s.flow.conditions = eu::test_utils::wing_conditions;
  s.flow.spatial.order = 2;
  s.flow.spatial.limiter = eu::LimiterKind::venkatakrishnan_wang;
  s.flow.steady.max_iterations = 200;
  s.flow.steady.rel_tolerance = 1e-12;
  s.walls = {"airfoil"};
  s.ffd.degree = {3, 2, 3};
  s.margin = 0.05;
  s.objective = aero::Coefficient::cd;
  s.lift = aero::LiftConstraint::fixed;
  s.thickness_fraction = 1.0;
  s.bound = 0.01;  // chords
  s.optimizer = opt::Options{};  // NLopt's tolerances (1e-8) and 100 evaluations
  return s;
}

TEST(WingThickness, SymmetricBoxKeepsThicknessAndTheLinearChangeIsTheMeshs) {
  const mesh::Mesh global = extruded_wing(mesh::CellShape::quads);
  const mesh::DistributedMesh dm(global, test::world());
  const std::vector<double> etas = {0.2, 0.5, 0.8}, chord = {0.1, 0.3, 0.5, 0.7, 0.9};
  const design::WingThickness wt(dm, {"airfoil"}, etas, chord);
  ASSERT_EQ(wt.size(), etas.size() * chord.size());
  const design::FfdVolumeBox box = design::FfdVolume::box_around(dm, {"airfoil"}, 0.05);
  double t_max = 0.0;
  for (double t : wt.baseline()) {
    EXPECT_GT(t, 0.0);
    t_max = std::max(t_max, t);
  }
  // NACA 0012 thinned by at most a quarter: the thickest station is near
  // 0.3 chords at the root, 0.12 t(0.3) / 0.12 = 0.1198... less the thinning.
  EXPECT_GT(t_max, 0.09);
  EXPECT_LT(t_max, 0.121);

  design::FfdVolumeOptions symmetric;
  symmetric.degree = {3, 2, 2};
  for (const auto& row : wt.jacobian(box, symmetric))
    for (double v : row) EXPECT_NEAR(v, 0.0, 1e-15);

  design::FfdVolumeOptions o;
  o.degree = {3, 2, 3};
  const auto T = wt.jacobian(box, o);
  const design::FfdVolume ffd(box, global.coords(), o);
  std::vector<double> a(static_cast<size_t>(ffd.n_design()));
  for (size_t k = 0; k < a.size(); ++k) a[k] = 0.01 * std::sin(1.0 + 2.3 * static_cast<double>(k));
  const Tensor dx = ffd.apply(Tensor::from_host({ffd.n_design()}, a));
  std::vector<double> x = eu::test_utils::host_coords(global);
  const auto d = dx.host();
  for (size_t i = 0; i < x.size(); ++i) x[i] += d(static_cast<index_t>(i));
  const mesh::Mesh moved = global.with_coordinates(Tensor::from_host({global.n_nodes(), 3}, x));
  const design::WingThickness again(mesh::DistributedMesh(moved, test::world()), {"airfoil"}, etas,
                                    chord);
  const std::vector<double> predicted = wt.thickness(T, a), measured = again.baseline();
  double change = 0.0, worst = 0.0;
  for (size_t s = 0; s < predicted.size(); ++s) {
    change = std::max(change, std::abs(measured[s] - wt.baseline()[s]));
    worst = std::max(worst, std::abs(predicted[s] - measured[s]));
    EXPECT_NEAR(predicted[s], measured[s], 1e-14) << s;
  }
  EXPECT_GT(change, 1e-4);  // the box did change the thickness
  say("[wing thickness] %zu stations, largest t0 %.5f; degree 3 in z: largest change %.3e, "
      "|t0 + T a - t(moved mesh)| <= %.1e\n",
      wt.size(), t_max, change, worst);
}

TEST(WingDesign, GradientsAtFixedLiftAreThoseOfWhatItEvaluates) {
  aero::WingDesign problem(mesh::DistributedMesh(extruded_wing(mesh::CellShape::quads), test::world()),
                           wing_settings());
  const opt::Problem p = problem.problem();
  const index_t n = problem.n_variables();
  ASSERT_EQ(n, 4);
  ASSERT_EQ(p.n_equality, 0);
  ASSERT_EQ(p.n_inequality, 45);  // 5 x 9 thickness stations
  const double target = problem.lift_target();
  std::vector<double> x(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) x[static_cast<size_t>(k)] = 2e-3 * std::sin(0.7 + 1.3 * k);
  const opt::Evaluation e = p.evaluate(x);
  EXPECT_NEAR(problem.last_costs().coefficients[0], target, 1e-8);
  double g_max = 0.0, worst = 0.0, worst_t = 0.0;
  for (double v : e.objective_gradient) g_max = std::max(g_max, std::abs(v));
  const double h = 1e-5;
  for (index_t k = 0; k < n; ++k) {
    // The objective, then the thickness constraints; lift: that of each
    // evaluation, x + h first.
    std::vector<double> lift;
    const std::vector<double> fd_all = test::central_partial(
        [&](const std::vector<double>& y) {
          const opt::Evaluation ey = p.evaluate(y);
          lift.push_back(problem.last_costs().coefficients[0]);
          std::vector<double> v{ey.objective};
          v.insert(v.end(), ey.inequality.begin(), ey.inequality.end());
          return v;
        },
        x, static_cast<size_t>(k), h);
    EXPECT_NEAR(lift[0], target, 1e-8);
    const double fd = fd_all[0];
    const double gk = e.objective_gradient[static_cast<size_t>(k)];
    worst = std::max(worst, std::abs(gk - fd) / g_max);
    EXPECT_NEAR(gk, fd, 1e-5 * g_max) << "variable " << k;
    for (int c = 0; c < p.n_inequality; ++c) {
      const double fdc = fd_all[static_cast<size_t>(c) + 1];
      const double gc = e.inequality_gradients[static_cast<size_t>(c)][static_cast<size_t>(k)];
      worst_t = std::max(worst_t, std::abs(gc - fdc));
      EXPECT_NEAR(gc, fdc, 1e-9) << "station " << c << " variable " << k;
    }
  }
  say("[wing design, lift fixed] CL %.8f at alpha %.5f deg, CD %.7f; dCD/da at constant lift: "
      "|adjoint - central difference| / max|g| %.2e (max|g| %.3e); thickness: %.1e\n",
      problem.last_costs().coefficients[0], problem.last_costs().point_alpha_deg[0], e.objective,
      worst, g_max, worst_t);
}

TEST(WingDesign, TwistGradientsAtFixedLiftAreThoseOfWhatItEvaluates) {
  aero::WingDesignSettings s = wing_settings();
  s.parametrization = design::ParametrizationKind::wing_twist;
  s.twist.stations = {0.5, 1.0};
  s.twist.axis_chord_fraction = 1.0;  // the trailing edge
  s.twist.blend = 1.0;
  s.thickness_fraction = 0.0;
  s.bound = 5.0;  // degrees
  aero::WingDesign problem(mesh::DistributedMesh(extruded_wing(mesh::CellShape::quads), test::world()),
                           s);
  const opt::Problem p = problem.problem();
  ASSERT_EQ(problem.n_variables(), 2);
  ASSERT_EQ(p.n_inequality, 0);
  EXPECT_NEAR(problem.twist_axis().x_axis, problem.twist_axis().hi[0], 1e-15);
  const double target = problem.lift_target();
  const std::vector<double> x = {0.4, -0.3};  // degrees
  const opt::Evaluation e = p.evaluate(x);
  EXPECT_NEAR(problem.last_costs().coefficients[0], target, 1e-8);
  double g_max = 0.0, worst = 0.0;
  for (double v : e.objective_gradient) g_max = std::max(g_max, std::abs(v));
  for (size_t k = 0; k < 2; ++k) {
    const double fd = test::central_partial(
        [&](const std::vector<double>& y) { return std::vector<double>{p.evaluate(y).objective}; },
        x, k, 1e-3)[0];
    worst = std::max(worst, std::abs(e.objective_gradient[k] - fd) / g_max);
    EXPECT_NEAR(e.objective_gradient[k], fd, 1e-5 * g_max) << "station " << k;
  }
  say("[wing twist, lift fixed] CL %.8f at alpha %.5f deg, CD %.7f; dCD/dtheta at constant lift: "
      "|adjoint - central difference| / max|g| %.2e (max|g| %.3e per degree)\n",
      problem.last_costs().coefficients[0], problem.last_costs().point_alpha_deg[0], e.objective,
      worst, g_max);
  // A twist design holds no thickness, and a 2-D parametrization is no
  // wing's.
  s.thickness_fraction = 1.0;
  EXPECT_THROW(aero::WingDesign(mesh::DistributedMesh(extruded_wing(mesh::CellShape::quads),
                                                      test::world()),
                                s),
               Error);
  s.thickness_fraction = 0.0;
  s.parametrization = design::ParametrizationKind::cst;
  EXPECT_THROW(aero::WingDesign(mesh::DistributedMesh(extruded_wing(mesh::CellShape::quads),
                                                      test::world()),
                                s),
               Error);
}

TEST(WingDesign, RunHoldsLiftAndThicknessAndRestartsToTheSameDesign) {
  const mesh::Mesh global = extruded_wing(mesh::CellShape::quads);
  const std::string dir = test::scratch_dir(CAMBER_TEST_SCRATCH, "wing").string();
  aero::WingDesignSettings s = wing_settings();
  s.optimizer.max_evaluations = 5;
  s.checkpoint = dir + "/whole";
  aero::WingDesign whole(mesh::DistributedMesh(global, test::world()), s);
  const aero::WingDesignResult r = whole.run();
  const double cd0 = whole.history().front().values.objective;
  double ratio = 1e300;
  for (size_t k = 0; k < r.final_thickness.size(); ++k)
    ratio = std::min(ratio, r.final_thickness[k] / r.baseline_thickness[k]);
  say("[wing design run] CD at CL %.5f: %.7f -> %.7f (%.2f%%), alpha %.4f -> %.4f deg, lowest "
      "t / t0 %.8f, %d evaluations\n",
      whole.lift_target(), cd0, r.optimizer.objective, 100.0 * (r.optimizer.objective - cd0) / cd0,
      r.baseline_alpha_deg, r.final_alpha_deg, ratio, r.optimizer.n_evaluations);
  EXPECT_LT(r.optimizer.objective, cd0);
  EXPECT_NEAR(r.final[0], whole.lift_target(), 1e-8);
  EXPECT_GE(ratio, 1.0 - 1e-6);  // the optimizer's constraint tolerance, scaled by the bound

  s.checkpoint = dir + "/cut";
  s.optimizer.max_evaluations = 2;
  {
    aero::WingDesign first(mesh::DistributedMesh(global, test::world()), s);
    first.run();
  }
  s.optimizer.max_evaluations = 5;
  aero::WingDesign resumed(mesh::DistributedMesh(global, test::world()), s);
  int replayed = 0;
  const aero::WingDesignResult r2 = resumed.run(
      [&](const opt::Record& rec, const aero::DesignCosts*) { replayed += rec.replayed; }, true);
  EXPECT_EQ(replayed, 2);
  ASSERT_EQ(r2.optimizer.x.size(), r.optimizer.x.size());
  for (size_t k = 0; k < r.optimizer.x.size(); ++k)
    EXPECT_NEAR(r2.optimizer.x[k], r.optimizer.x[k], 1e-12) << k;
  EXPECT_NEAR(r2.final_alpha_deg, r.final_alpha_deg, 1e-9);
  EXPECT_NEAR(r2.optimizer.objective, r.optimizer.objective, 1e-9 * std::abs(r.optimizer.objective));
}

}  // namespace
}  // namespace camber
