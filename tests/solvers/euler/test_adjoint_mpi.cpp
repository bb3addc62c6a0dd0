// The discrete adjoint of the steady Euler equations
// (solvers/euler/adjoint.hpp) at 1, 2 and 4 ranks.
//
// Expected values are math: the adjoint sensitivity dJ/dalpha of a
// converged second-order solution equals
//   * the central difference of J between two converged solutions at
//     alpha +- 0.01 degree (truncation ~ (0.01 deg)^2 J''' / 6 and the
//     solutions converged to round-off: measured 3e-7 of the lift slope;
//     tolerance 2e-6 of it), and
//   * the tangent (forward) sensitivity, one linear solve with dR/dU instead
//     of its transpose: the two differ only by the linear solve tolerances
//     (the dot-product identity of the whole chain; 1e-8 relative);
// with either linear solver (AdjointOptions::linear_solver: PETSc's, where
// the build has PETSc, and the device path's, which needs none).
// The limiter is frozen at the baseline solution, so the residual is smooth
// in U and alpha and the same residual is solved at alpha +- h.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/tensor.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include <camber/core/config.hpp>
#if CAMBER_WITH_PETSC
#include "tests/solvers/petsc_environment.hpp"
#endif

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

TEST(EulerAdjoint, AlphaSensitivityMatchesFiniteDifferencesAndTheTangent) {
  mesh::DistributedMesh dm(
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0),
      world());
  FlowConditions flow;
  flow.mach = 0.5;
  flow.alpha_deg = 1.25;
  Tensor phi;
  Solved base = solve_frozen(dm, flow, phi, nullptr);
  const double h = 0.01;  // degrees
  // CL, CD, CM converged at alpha +- h, each from the base state.
  const std::vector<double> by_fd_all = camber::test::central_difference(
      [&](double alpha) {
        FlowConditions turned = flow;
        turned.alpha_deg = alpha;
        const Forces f = solve_frozen(dm, turned, phi, &base.U).forces;
        return std::vector<double>{f.cl, f.cd, f.cm};
      },
      flow.alpha_deg, h);

  SpatialOptions spatial;
  spatial.order = 2;
  Discretization disc(dm, flow, airfoil_conditions, FluxScheme::roe, spatial);
  disc.set_limiter(phi);
  std::vector<SteadyOptions::LinearSolver> solvers = {SteadyOptions::LinearSolver::kokkos};
  if (CAMBER_WITH_PETSC) solvers.push_back(SteadyOptions::LinearSolver::petsc);
  for (const SteadyOptions::LinearSolver solver : solvers) {
    AdjointOptions options;
    options.linear_solver = solver;
    const char* path = solver == SteadyOptions::LinearSolver::petsc ? "petsc" : "kokkos";
    Adjoint adjoint(disc, options);
    for (ForceCoefficient j : {ForceCoefficient::cl, ForceCoefficient::cd, ForceCoefficient::cm}) {
      const AdjointSolution a = adjoint.solve(base.U, j);
      EXPECT_TRUE(a.converged) << path;
      const double by_adjoint = adjoint.alpha_derivative(base.U, a);
      int tangent_iterations = 0;
      const double by_tangent = adjoint.alpha_derivative_tangent(base.U, j, &tangent_iterations);
      const double by_fd =
          by_fd_all[j == ForceCoefficient::cl ? 0 : j == ForceCoefficient::cd ? 1 : 2];
      const char* name =
          j == ForceCoefficient::cl ? "CL" : j == ForceCoefficient::cd ? "CD" : "CM";
      say("[adjoint] %s: d%s/dalpha per degree: adjoint %.10e (%d its, %.2f s), tangent %.10e "
          "(%d its), central difference %.10e\n",
          path, name, by_adjoint, a.iterations, a.seconds, by_tangent, tangent_iterations, by_fd);
      // Scale: dCL/dalpha ~ 0.13 per degree here; CD and CM derivatives are
      // smaller, so the tolerances are relative to the lift slope.
      const double scale = 0.1;
      EXPECT_NEAR(by_adjoint, by_fd, 2e-6 * scale) << path << " " << name;
      EXPECT_NEAR(by_adjoint, by_tangent, 1e-8 * scale) << path << " " << name;
    }
  }
}

#if CAMBER_WITH_PETSC
// The transonic case's converged state (the smooth limiter live) on disc,
// or an empty Tensor if the solve did not converge.
Tensor transonic_solution(const Discretization& disc) {
  Tensor U = disc.free_stream_field();
  SteadyOptions so;
  so.max_iterations = 200;
  so.rel_tolerance = 1e-11;
  return solve_steady(disc, U, so).converged ? U : Tensor();
}

// The default iterative transpose solve (right-preconditioned GMRES, block-
// Jacobi ILU(1) in RCM order), the LU, and the iterative solve cut off after
// 2 iterations (so that it falls back to the LU) give one adjoint: psi to
// 1e-8 of its largest entry (the solves' tolerance 1e-10 of the right-hand
// side, times the condition of the system), at a transonic second-order
// state with the smooth limiter live.
TEST(EulerAdjoint, IterativeSolveAndItsLuFallbackGiveTheLusAdjoint) {
  mesh::DistributedMesh dm(naca_ogrid_48x24(), world());
  Discretization disc(dm, transonic_flow(), airfoil_conditions, FluxScheme::roe,
                      smooth_limited_second_order());
  Tensor U = transonic_solution(disc);
  ASSERT_FALSE(U.empty());
  AdjointOptions iterative, direct, cut;
  direct.direct = true;
  cut.max_iterations = 2;
  const AdjointSolution a = Adjoint(disc, iterative).solve(U, ForceCoefficient::cd);
  const AdjointSolution b = Adjoint(disc, direct).solve(U, ForceCoefficient::cd);
  const AdjointSolution c = Adjoint(disc, cut).solve(U, ForceCoefficient::cd);
  EXPECT_TRUE(a.converged && b.converged && c.converged);
  EXPECT_FALSE(a.fell_back);
  EXPECT_TRUE(c.fell_back);
  const auto pa = a.psi.host(), pb = b.psi.host(), pc = c.psi.host();
  double largest = 0.0, diff_a = 0.0, diff_c = 0.0;
  for (index_t i = 0; i < disc.n_owned() * disc.n_vars(); ++i) {
    largest = std::max(largest, std::abs(pb(i)));
    diff_a = std::max(diff_a, std::abs(pa(i) - pb(i)));
    diff_c = std::max(diff_c, std::abs(pc(i) - pb(i)));
  }
  largest = par::allreduce_max(largest, world());
  diff_a = par::allreduce_max(diff_a, world());
  diff_c = par::allreduce_max(diff_c, world());
  say("[adjoint solvers] CD adjoint: iterative %d its (%.3f s), LU %d its (%.3f s), cut-off %d "
      "its then LU; max |psi - psi_LU| / max |psi_LU|: %.2e, %.2e\n",
      a.iterations, a.seconds, b.iterations, b.seconds, c.iterations, diff_a / largest,
      diff_c / largest);
  EXPECT_LT(diff_a, 1e-8 * largest);
  EXPECT_LT(diff_c, 1e-8 * largest);
}

// The device path's adjoint (AdjointOptions::linear_solver kokkos: the
// transposed Jacobian by the reverse sweep, camber's GMRES and the
// transposed first-order matrix's ILU(1), no PETSc) against PETSc's LU
// adjoint of the assembled exact Jacobian, at the transonic state with the
// smooth limiter live: psi to 1e-8 of its largest entry (both solves stop
// at 1e-10 of the right-hand side; the system's condition takes the rest),
// dCD/dalpha to 1e-8 of the lift slope's size, and the device path's
// tangent dCD/dalpha equal to its adjoint's (the dot-product identity of
// the whole chain, 1e-8).
TEST(EulerAdjoint, TheDevicePathGivesPetscsAdjoint) {
  mesh::DistributedMesh dm(naca_ogrid_48x24(), world());
  Discretization disc(dm, transonic_flow(), airfoil_conditions, FluxScheme::roe,
                      smooth_limited_second_order());
  Tensor U = transonic_solution(disc);
  ASSERT_FALSE(U.empty());
  AdjointOptions device, direct;
  device.linear_solver = SteadyOptions::LinearSolver::kokkos;
  direct.direct = true;
  Adjoint on_device(disc, device), by_lu(disc, direct);
  const AdjointSolution a = on_device.solve(U, ForceCoefficient::cd);
  const AdjointSolution b = by_lu.solve(U, ForceCoefficient::cd);
  EXPECT_TRUE(a.converged && b.converged);
  const auto pa = a.psi.host(), pb = b.psi.host();
  const auto ga = a.objective_gradient.host(), gb = b.objective_gradient.host();
  double largest = 0.0, diff = 0.0, g_largest = 0.0, g_diff = 0.0;
  for (index_t i = 0; i < disc.n_owned() * disc.n_vars(); ++i) {
    largest = std::max(largest, std::abs(pb(i)));
    diff = std::max(diff, std::abs(pa(i) - pb(i)));
    g_largest = std::max(g_largest, std::abs(gb(i)));
    g_diff = std::max(g_diff, std::abs(ga(i) - gb(i)));
  }
  largest = par::allreduce_max(largest, world());
  diff = par::allreduce_max(diff, world());
  g_largest = par::allreduce_max(g_largest, world());
  g_diff = par::allreduce_max(g_diff, world());
  const double da = on_device.alpha_derivative(U, a), db = by_lu.alpha_derivative(U, b);
  int tangent_iterations = 0;
  const double dt = on_device.alpha_derivative_tangent(U, ForceCoefficient::cd, &tangent_iterations);
  say("[adjoint device] CD adjoint: device %d its (%.3f s), LU %d its (%.3f s); max |psi - "
      "psi_LU| / max |psi_LU| %.2e, dCD/dU %.2e; dCD/dalpha device %.12e, LU %.12e, device "
      "tangent %.12e (%d its)\n",
      a.iterations, a.seconds, b.iterations, b.seconds, diff / largest, g_diff / g_largest, da,
      db, dt, tangent_iterations);
  EXPECT_LT(g_diff, 1e-12 * g_largest);  // the same derivative by two sweeps: round-off
  EXPECT_LT(diff, 1e-8 * largest);
  const double scale = 0.1;  // the lift slope's size per degree
  EXPECT_NEAR(da, db, 1e-8 * scale);
  EXPECT_NEAR(da, dt, 1e-8 * scale);
}

#endif  // CAMBER_WITH_PETSC

}  // namespace
}  // namespace camber::solvers::euler
