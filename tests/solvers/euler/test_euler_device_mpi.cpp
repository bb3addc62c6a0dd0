// The steady solver on the device path (SteadyOptions::linear_solver
// kokkos: camber's own GMRES on Kokkos views, ILU(1) in blocks of the
// first-order matrix assembled by a kernel, the second-order operator
// matrix-free) at 1, 2 and 4 ranks. Needs no PETSc: the test a GPU
// machine's build runs (scripts/gpu-check). On a 32 x 16 NACA 0012 O-grid
// at M 0.5, alpha 1.25:
//  - the solve's contract, measured independently: the density residual
//    of the returned state, evaluated anew, is within rel_tolerance of the
//    initial state's;
//  - Newton's method with the exact Jacobian converges quadratically near
//    the root, at first order (the assembled first-order matrix is the
//    operator: a wrong block would make the rate linear) and at second
//    order (the matrix-free operator); the computed order
//    log(e_{k+1} / e_k) / log(e_k / e_{k-1}) >= 1.5 on the step before the
//    last (which round-off and the tolerance cut short);
//  - the same forces at every rank count (the partition changes only sums
//    and the preconditioner's blocks): the residual of 1e-12 of r0 bounds
//    CL's difference by ~1e-10 (CL moves by ~1e2 times the relative
//    residual a step removes), asserted at 1e-9.
// The PETSc build also compares this path with PETSc's on the same solves
// (test_pseudo_transient_newton_mpi).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include "tests/mpi_test_utils.hpp"

namespace camber::solvers::euler {
namespace {

const std::vector<BoundaryCondition> conditions = {{"airfoil", BoundaryKind::slip_wall},
                                                   {"farfield", BoundaryKind::far_field}};

FlowConditions subsonic() {
  FlowConditions flow;
  flow.mach = 0.5;
  flow.alpha_deg = 1.25;
  return flow;
}

double density_residual(const Discretization& disc, Tensor& U) {
  const std::vector<double> r = disc.residual(U).to_vector();
  const int nv = disc.n_vars();
  double s = 0.0;
  for (index_t c = 0; c < disc.n_owned(); ++c)
    s += r[static_cast<size_t>(c * nv)] * r[static_cast<size_t>(c * nv)];
  return std::sqrt(par::allreduce_sum(s, disc.mesh().comm()));
}

struct DeviceSolve {
  SteadyResult result;
  double r0 = 0.0, r_end = 0.0;  // independent evaluations
};

// Order 1 or 2 (unlimited: one discrete solution), Newton with a fast CFL
// ramp and tight linear solves, on comm.
DeviceSolve solve(MPI_Comm comm, int order) {
  mesh::DistributedMesh dm(
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 32, 16, 0.25 / 32, 20.0), comm);
  SpatialOptions spatial;
  spatial.order = order;
  spatial.limiter = LimiterKind::none;
  const Discretization disc(dm, subsonic(), conditions, FluxScheme::roe, spatial);
  SteadyOptions o;
  o.linear_solver = SteadyOptions::LinearSolver::kokkos;
  o.max_iterations = 100;
  o.rel_tolerance = 1e-12;
  o.abs_tolerance = 0.0;
  o.cfl_growth = o.second_order_cfl_growth = 1e12;
  o.cfl_max = 1e20;
  o.linear_rel_tolerance = 1e-10;
  o.linear_max_iterations = 2000;
  Tensor U = disc.free_stream_field();
  DeviceSolve run;
  run.r0 = density_residual(disc, U);
  run.result = solve_steady(disc, U, o);
  run.r_end = density_residual(disc, U);
  return run;
}

void check(const DeviceSolve& run, const char* name) {
  const SteadyResult& r = run.result;
  ASSERT_TRUE(r.converged) << name;
  EXPECT_LE(run.r_end, 1e-12 * run.r0) << name;
  const auto e = [&](size_t k) { return r.history[k].residual_density / run.r0; };
  const size_t last = r.history.size() - 1;
  ASSERT_GE(last, 3u) << name;
  const double order = std::log(e(last - 1) / e(last - 2)) / std::log(e(last - 2) / e(last - 3));
  std::string trail;
  for (size_t k = 0; k <= last; ++k) {
    char buf[16];
    std::snprintf(buf, sizeof buf, " %.1e", e(k));
    trail += buf;
  }
  if (test::rank() == 0)
    std::printf("[device] %s: %d steps, %d Krylov iterations, e_k:%s; order %.2f; CL %.15f\n", name,
                r.iterations, r.linear_iterations, trail.c_str(), order, r.forces.cl);
  EXPECT_GE(order, 1.5) << name;
}

double on_one_rank(int order) {
  double cl = 0.0;
  if (test::rank() == 0) cl = solve(MPI_COMM_SELF, order).result.forces.cl;
  return par::allreduce_sum(cl, test::world());
}

TEST(EulerDevicePath, FirstOrderNewtonConvergesQuadraticallyAtEveryRankCount) {
  const DeviceSolve run = solve(test::world(), 1);
  check(run, "first order");
  const double cl = on_one_rank(1);
  EXPECT_NEAR(run.result.forces.cl, cl, 1e-9 * std::abs(cl));
}

TEST(EulerDevicePath, SecondOrderMatrixFreeNewtonConvergesQuadraticallyAtEveryRankCount) {
  const DeviceSolve run = solve(test::world(), 2);
  check(run, "second order");
  // The first-order start: its entries, then the second-order ones.
  EXPECT_EQ(run.result.history.front().order, 1);
  EXPECT_EQ(run.result.history.back().order, 2);
  const double cl = on_one_rank(2);
  EXPECT_NEAR(run.result.forces.cl, cl, 1e-9 * std::abs(cl));
}

}  // namespace
}  // namespace camber::solvers::euler
