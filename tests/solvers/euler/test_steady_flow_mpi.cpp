// solvers/euler/steady_flow.hpp at 1, 2 and 4 ranks: the converged flow as
// a differentiable op of the node coordinates, on a NACA 0012 O-grid
// (48 x 24, M 0.5, alpha 1 deg, first order):
//  - its coefficients are solve_steady's with the same settings (1e-10);
//  - a second evaluation at the same coordinates is a warm start that
//    stops at once (at most one Newton step);
//  - dCD/dX from its VJP (one adjoint solve and the shape derivative),
//    along a smooth vertical displacement of the nodes near the airfoil,
//    agrees with the central difference of converged solutions
//    (CD(X + h dX) - CD(X - h dX)) / 2h, h = 1e-6, to 1e-5 relative.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <vector>

#include <Kokkos_Core.hpp>

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace eu = camber::solvers::euler;

eu::SteadyFlowSettings settings() {
  eu::SteadyFlowSettings s;
  s.flow.mach = 0.5;
  s.flow.alpha_deg = 1.0;
  s.conditions = {{"airfoil", eu::BoundaryKind::slip_wall}, {"farfield", eu::BoundaryKind::far_field}};
  s.spatial.order = 1;
  s.steady.rel_tolerance = 1e-13;
  s.steady.max_iterations = 200;
  return s;
}

Tensor coordinates(const mesh::Mesh& m) {
  const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  std::vector<double> x(c.extent(0) * 2);
  for (size_t i = 0; i < c.extent(0); ++i) {
    x[2 * i] = c(i, 0);
    x[2 * i + 1] = c(i, 1);
  }
  return Tensor::from_host({static_cast<index_t>(c.extent(0)), 2}, x);
}

// A smooth vertical displacement, largest at mid-chord on the airfoil.
std::vector<double> bump(const Tensor& X) {
  const std::vector<double> x = X.to_vector();
  std::vector<double> d(x.size(), 0.0);
  for (size_t i = 0; i < x.size(); i += 2)
    d[i + 1] = std::exp(-((x[i] - 0.5) * (x[i] - 0.5) + x[i + 1] * x[i + 1]) / 0.05);
  return d;
}

Tensor moved(const Tensor& X, const std::vector<double>& d, double h) {
  std::vector<double> x = X.to_vector();
  for (size_t i = 0; i < x.size(); ++i) x[i] += h * d[i];
  return Tensor::from_host(X.shape(), x);
}

TEST(SteadyFlow, IsTheSolversFlowAndWarmStartsAtOnce) {
  const mesh::Mesh m =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 30.0);
  eu::SteadyFlow flow(m, test::world(), settings());
  const Tensor X0 = coordinates(m);
  const std::vector<double> c = flow.coefficients(X0).to_vector();
  EXPECT_TRUE(flow.report().converged);
  {
    mesh::DistributedMesh dm(m, test::world());
    const eu::SteadyFlowSettings s = settings();
    eu::Discretization disc(dm, s.flow, s.conditions, s.scheme, s.spatial);
    Tensor U = disc.free_stream_field();
    const eu::SteadyResult r = eu::solve_steady(disc, U, s.steady);
    EXPECT_NEAR(c[0], r.forces.cl, 1e-10);
    EXPECT_NEAR(c[1], r.forces.cd, 1e-10);
    EXPECT_NEAR(c[2], r.forces.cm, 1e-10);
  }
  const std::vector<double> again = flow.coefficients(X0).to_vector();
  EXPECT_LE(flow.report().newton_iterations, 1);
  EXPECT_NEAR(again[1], c[1], 1e-12);
}

TEST(SteadyFlow, TheDragGradientIsTheDifferenceOfConvergedFlows) {
  const mesh::Mesh m =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 30.0);
  eu::SteadyFlow flow(m, test::world(), settings());
  const Tensor X0 = coordinates(m);
  const std::vector<double> d = bump(X0);
  const ad::ValueAndGrad vg = ad::value_and_grad(
      [&](const ad::Var& X) { return ad::slice(flow.coefficients(X), 0, 1, 2); }, ad::variable(X0));
  const std::vector<double> g = vg.grads[0].value().to_vector();
  double adjoint = 0.0;
  for (size_t i = 0; i < g.size(); ++i) adjoint += g[i] * d[i];
  const double h = 1e-6;
  const double difference = camber::test::central_difference(
      [&](double t) { return flow.coefficients(moved(X0, d, t)).to_vector()[1]; }, 0.0, h);
  test::say("dCD along the bump: adjoint %.10e, difference %.10e\n", adjoint, difference);
  EXPECT_NEAR(adjoint, difference, 1e-5 * std::abs(difference));
  EXPECT_GT(std::abs(difference), 1e-3);  // the direction moves the drag
}

}  // namespace
}  // namespace camber
