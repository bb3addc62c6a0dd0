// The shape derivative of the Euler residual and of the force coefficients
// (solvers/euler/shape_derivative.hpp) at 1, 2 and 4 ranks.
//
// Expected values are math:
//   * (dR/dX) V at fixed U against central differences of the residual on
//     meshes whose nodes moved by +-h V (the residual is an explicit smooth
//     function of the coordinates; the tolerance model of the state
//     derivatives, test_discretization_mpi.cpp: 1e-7 of the flux terms), first and
//     second order, limiter off, frozen and live;
//   * the total derivative dJ/dX . V of CL, CD and CM from the adjoint
//     against central differences of J between converged solutions on the
//     moved meshes (limiter frozen at the baseline's phi, so the same
//     residual is solved), 1e-5 relative as asked of a smooth objective.
//     The step is 2.5e-5 (the bump's amplitude): at 1e-4 the truncation
//     error of the difference of CD (whose derivative is small, 1.7e-3,
//     against 6.4 for CL) was 1.2e-4 relative, at 2.5e-5 it is 1.4e-7, the
//     h^2 scaling of a correct derivative.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/shape_derivative.hpp>
#include <camber/core/tensor.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

// The global mesh with its nodes moved by h V (V: {n_nodes, 2}).
mesh::Mesh moved(const mesh::Mesh& m, const Tensor& V, double h) {
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  const auto v = V.host();
  Kokkos::View<double**, Kokkos::HostSpace> y("moved", x.extent(0), 2);
  for (size_t n = 0; n < x.extent(0); ++n)
    for (int d = 0; d < 2; ++d) y(n, d) = x(n, d) + h * v(n * 2 + d);
  Kokkos::View<double**> yd("moved_device", x.extent(0), 2);
  Kokkos::deep_copy(yd, y);
  return m.with_coordinates(yd);
}

// V(n, d) uniform in [-1, 1), a function of the global node id only.
Tensor random_displacement(const mesh::Mesh& m, std::uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(m.n_nodes()) * 2);
  for (index_t n = 0; n < m.n_nodes(); ++n)
    for (int d = 0; d < 2; ++d) v[static_cast<size_t>(n * 2 + d)] = hashed_uniform(seed, n, d);
  return Tensor::from_host({m.n_nodes(), 2}, v);
}

struct Case {
  const char* name;
  int order;
  LimiterKind limiter;
  bool freeze;
};

TEST(EulerShapeDerivative, ResidualDirectionalDerivativeMatchesFiniteDifferences) {
  const Case cases[] = {{"first order", 1, LimiterKind::none, false},
                        {"second order, no limiter", 2, LimiterKind::none, false},
                        {"second order, Venkatakrishnan frozen", 2, LimiterKind::venkatakrishnan, true},
                        {"second order, Venkatakrishnan live", 2, LimiterKind::venkatakrishnan, false},
                        {"second order, Venkatakrishnan-Wang live", 2, LimiterKind::venkatakrishnan_wang, false},
                        {"second order, smooth Venkatakrishnan live", 2, LimiterKind::venkatakrishnan_smooth, false}};
  const mesh::Mesh global = derivative_mesh();
  const Tensor V = random_displacement(global, 77);
  const double h = 1e-6;
  const mesh::Mesh plus_mesh = moved(global, V, h), minus_mesh = moved(global, V, -h);
  for (const Case& c : cases)
    for (double mach : {0.5, 1.3}) {
      SpatialOptions spatial;
      spatial.order = c.order;
      spatial.limiter = c.limiter;
      spatial.wang_epsilon = derivative_wang_epsilon;
      mesh::DistributedMesh dm(global, world()), dmp(plus_mesh, world()), dmm(minus_mesh, world());
      Discretization disc(dm, derivative_flow(mach), derivative_conditions, FluxScheme::roe,
                          spatial);
      Discretization discp(dmp, derivative_flow(mach), derivative_conditions, FluxScheme::roe,
                           spatial);
      Discretization discm(dmm, derivative_flow(mach), derivative_conditions, FluxScheme::roe,
                           spatial);
      Tensor U = perturbed_state(disc);
      if (c.freeze) {
        disc.freeze_limiter(U);
        const Tensor phi = disc.limiter(U);
        discp.set_limiter(phi);
        discm.set_limiter(phi);
      }
      ShapeDerivative shape(disc);
      const Tensor dRV = shape.residual_directional(U, V);
      // The moved meshes are built once for all cases: +-h picks one.
      const Tensor fd = camber::test::central_difference(
          [&](double t) {
            Tensor u = U.clone();
            return (t > 0 ? discp : discm).residual(u);
          },
          0.0, h);
      const double e = max_error(disc, fd, dRV, residual_term_scale(disc));
      say("[shape] %s, M = %.1f: |FD - (dR/dX) V| = %.2e of the flux terms\n", c.name, mach, e);
      EXPECT_LE(e, 1e-7) << c.name << " M " << mach;
    }
}

// The reverse shape derivative (the default) against the node colouring's
// forward mode (its oracle) on the mixed mesh, every limiter live and
// frozen, subsonic and supersonic: dJ/dX of a hashed psi and a mixture of
// the CL, CD and CM weights, and (dR/dX) V, (dG/dX) V. The same derivative
// summed in different orders: 1e-12 of the largest entry.
TEST(EulerShapeDerivative, TheReverseSweepIsTheColouringsDerivative) {
  const mesh::Mesh global = derivative_mesh();
  const Tensor V = random_displacement(global, 79);
  for (const LimiterCase& c : limiter_cases)
    for (double mach : {0.5, 1.3}) {
      SpatialOptions spatial;
      spatial.order = c.order;
      spatial.limiter = c.limiter;
      spatial.wang_epsilon = derivative_wang_epsilon;
      spatial.smooth_width = c.smooth_width;
      mesh::DistributedMesh dm(global, world());
      Discretization disc(dm, derivative_flow(mach), derivative_conditions, FluxScheme::roe,
                          spatial);
      Tensor U = perturbed_state(disc);
      if (c.freeze) disc.freeze_limiter(U);
      const Tensor psi = random_field(disc, 43);
      const auto wc = disc.force_coefficient_weights();
      std::array<double, 3> w{};
      for (int j = 0; j < 3; ++j) w[j] = 0.7 * wc[0][j] + 0.3 * wc[1][j] - 0.5 * wc[2][j];
      const ShapeMethodsDifference d = compare_shape_methods(disc, U, psi, w, V);
      say("[shape] %s, M = %.1f: reverse against %d colours: dJ/dX %.1e of %.2e, (dR/dX) V %.1e "
          "of %.2e, (dG/dX) V %.1e of %.2e\n",
          c.name, mach, d.n_colors, d.err, d.top, d.dr_err, d.dr_top, d.dg_err, d.dg_top);
      EXPECT_GT(d.top, 0.0) << c.name;
      EXPECT_LE(d.err, 1e-12 * d.top) << c.name << " M " << mach;
      EXPECT_LE(d.dr_err, 1e-12 * d.dr_top) << c.name << " M " << mach;
      EXPECT_LE(d.dg_err, 1e-12 * d.dg_top) << c.name << " M " << mach;
    }
}

// A smooth displacement of the nodes near the airfoil, zero far away: a
// bump normal to the chord over the wall, decaying with distance.
Tensor smooth_displacement(const mesh::Mesh& m) {
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  std::vector<double> v(static_cast<size_t>(m.n_nodes()) * 2, 0.0);
  for (index_t n = 0; n < m.n_nodes(); ++n) {
    const double px = x(n, 0), py = x(n, 1);
    const double r2 = (px - 0.5) * (px - 0.5) + py * py;
    const double s = px > 0.0 && px < 1.0 ? std::sin(pi * px) : 0.0;
    v[static_cast<size_t>(n * 2 + 1)] = s * s * std::exp(-r2 / 0.25);
    v[static_cast<size_t>(n * 2)] = 0.3 * s * s * std::exp(-r2 / 0.25);
  }
  return Tensor::from_host({m.n_nodes(), 2}, v);
}

TEST(EulerShapeDerivative, AdjointShapeGradientMatchesFiniteDifferencesOfConvergedSolutions) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const Tensor V = smooth_displacement(global);
  const double h = 2.5e-5;
  mesh::DistributedMesh dm(global, world());
  mesh::DistributedMesh dmp(moved(global, V, h), world()), dmm(moved(global, V, -h), world());
  FlowConditions flow;
  flow.mach = 0.5;
  flow.alpha_deg = 1.25;
  Tensor phi;
  Solved base = solve_frozen(dm, flow, phi, nullptr);
  // CL, CD, CM converged on the meshes moved by +-h, each from the base
  // state; one pair of solves for all three.
  const std::vector<double> by_fd_all = camber::test::central_difference(
      [&](double t) {
        const Forces f = solve_frozen(t > 0 ? dmp : dmm, flow, phi, &base.U).forces;
        return std::vector<double>{f.cl, f.cd, f.cm};
      },
      0.0, h);

  SpatialOptions spatial;
  spatial.order = 2;
  Discretization disc(dm, flow, airfoil_conditions, FluxScheme::roe, spatial);
  disc.set_limiter(phi);
  Adjoint adjoint(disc);
  ShapeDerivative shape(disc);
  for (ForceCoefficient j : {ForceCoefficient::cl, ForceCoefficient::cd, ForceCoefficient::cm}) {
    const AdjointSolution a = adjoint.solve(base.U, j);
    EXPECT_TRUE(a.converged);
    const Tensor dJdX = shape.total_derivative(base.U, a);
    const auto g = dJdX.host();
    const auto v = V.host();
    double by_adjoint = 0.0;
    for (index_t i = 0; i < global.n_nodes() * 2; ++i) by_adjoint += g(i) * v(i);
    const double by_fd = by_fd_all[j == ForceCoefficient::cl ? 0 : j == ForceCoefficient::cd ? 1 : 2];
    const char* name = j == ForceCoefficient::cl ? "CL" : j == ForceCoefficient::cd ? "CD" : "CM";
    say("[shape] d%s/dX . V: adjoint %.10e, central difference %.10e\n", name, by_adjoint, by_fd);
    EXPECT_NEAR(by_adjoint, by_fd, 1e-5 * std::abs(by_fd)) << name;
  }
}

}  // namespace
}  // namespace camber::solvers::euler
