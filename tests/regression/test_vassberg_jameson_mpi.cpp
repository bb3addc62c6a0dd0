// The NACA 0012 Euler cases of Vassberg and Jameson's grid-convergence
// study ("In Pursuit of Grid Convergence for Two-Dimensional Euler
// Solutions", J. Aircraft 47(4), 2010) on their Karman-Trefftz O-grids, at
// the sizes CI affords (the 256^2 to 1024^2 grids are a benchmark:
// benchmarks/euler-grid-study.sh). Second order, Roe, the smooth
// Venkatakrishnan-Wang limiter; far field 150 chords, no vortex correction,
// reference chord 1, moment about (0.25, 0). CFL3D on those grids (the
// paper's Tables 7-8), the outside reference:
//
//   M = 0.5, alpha = 1.25 deg: CL 0.178367 (256^2), 0.179125 (512^2)
//   M = 0.8, alpha = 1.25 deg: CL 0.359073 (256^2), 0.357581 (512^2),
//                              0.355944 (1024^2), 0.354593 (2048^2)
//
// The 128^2 grid is one level coarser than CFL3D's first. Subsonic CL
// moves little with the grid (0.4% from 256^2 to 1024^2), so CL at 128^2
// is held within 1% of CFL3D's 256^2 value; transonic CL moves more (1.3%
// from 256^2 to 2048^2, and each code approaches the limit from its own
// side), so CL at 128^2 is held within 1% of the band CFL3D's sequence
// spans, [0.354593, 0.359073] (the 1% at 256^2 and above is the
// benchmark's). Also: the spurious drag of the subsonic flow falls at
// second order or better from 64^2 to 128^2; the transonic solution does
// not depend on the rank count or the solver path (CL to 1e-10 relative);
// the triangle grid at alpha 0 gives zero lift, and at M 0.8 the lift of
// the quads within 1.5%; the project's conformal_ogrid on V&J's airfoil
// gives their grid's answer.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/karman_trefftz_ogrid.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace {

using namespace camber;
using namespace camber::solvers::euler;

struct Solution {
  Forces forces;
  int steps = 0;
  bool converged = false;
  double orders = 0;
};

// Solver options of the cases: up to 300 steps to a relative drop of
// rel_tolerance, the defaults otherwise.
SteadyOptions vj_options(double rel_tolerance = 1e-10) {
  SteadyOptions options;
  options.max_iterations = 300;
  options.rel_tolerance = rel_tolerance;
  return options;
}

Solution solve_on(const mesh::Mesh& m, double mach, MPI_Comm comm,
                  const SteadyOptions& options = vj_options(), double alpha_deg = 1.25) {
  mesh::DistributedMesh dm(m, comm);
  FlowConditions flow;
  flow.mach = mach;
  flow.alpha_deg = alpha_deg;
  const Discretization disc = test_utils::airfoil_discretization(dm, flow);
  Tensor U = disc.free_stream_field();
  const SteadyResult r = solve_steady(disc, U, options);
  Solution s;
  s.forces = r.forces;
  s.steps = r.iterations;
  s.converged = r.converged;
  s.orders = std::log10(r.history.front().residual_density / r.history.back().residual_density);
  return s;
}

Solution solve_vj(int n, double mach, mesh::CellShape shape, MPI_Comm comm,
                  const SteadyOptions& options = vj_options(), double alpha_deg = 1.25) {
  return solve_on(mesh::karman_trefftz_ogrid(n, shape), mach, comm, options, alpha_deg);
}

void report(const char* what, int n, const Solution& s) {
  test::say("[vj] %s, %d^2: CL %.6f CD %.6f CM %.6f, %d steps, %.1f orders%s\n", what, n,
            s.forces.cl, s.forces.cd, s.forces.cm, s.steps, s.orders,
            s.converged ? "" : " (NOT converged)");
}

TEST(VassbergJameson, SubsonicLiftAndSpuriousDrag) {
  const Solution s64 = solve_vj(64, 0.5, mesh::CellShape::quads, test::world());
  const Solution s128 = solve_vj(128, 0.5, mesh::CellShape::quads, test::world());
  report("M 0.5", 64, s64);
  report("M 0.5", 128, s128);
  ASSERT_TRUE(s64.converged && s128.converged);
  EXPECT_NEAR(s128.forces.cl / 0.178367, 1.0, 0.01);
  // Inviscid subsonic drag is zero; the computed one is discretization
  // error, which a second-order scheme cuts by 4 per grid doubling (3:
  // order 1.6, margin for the pre-asymptotic coarse grid).
  test::say("[vj] M 0.5 spurious drag ratio 64^2 / 128^2: %.2f (order %.2f)\n",
            s64.forces.cd / s128.forces.cd, std::log2(s64.forces.cd / s128.forces.cd));
  EXPECT_GE(s64.forces.cd / s128.forces.cd, 3.0);
}

TEST(VassbergJameson, TransonicLift) {
  const Solution q = solve_vj(128, 0.8, mesh::CellShape::quads, test::world());
  report("M 0.8", 128, q);
  ASSERT_TRUE(q.converged);
  EXPECT_GE(q.forces.cl, 0.99 * 0.354593);
  EXPECT_LE(q.forces.cl, 1.01 * 0.359073);
}

TEST(VassbergJameson, ProjectsConformalGeneratorGivesTheFamilysAnswer) {
  // conformal_ogrid builds the same kind of grid around any sharp-edged
  // section from its polygon (the map's constants estimated from it). On
  // V&J's airfoil, at their far field, the transonic answer is theirs: CL,
  // CD and CM within 0.05% (measured: 1.4e-5 of CL at 64^2, 1.3e-4 at
  // 128^2 with a 150-chord far field).
  const int n = 64;
  mesh::KarmanTrefftzInfo info;
  const mesh::Mesh kt = mesh::karman_trefftz_ogrid(n, mesh::CellShape::quads, &info);
  const mesh::Mesh cf = mesh::conformal_ogrid(mesh::vassberg_jameson_naca0012(), n, n,
                                              info.farfield_radius / info.map.x_te);
  const Solution a = solve_on(kt, 0.8, test::world());
  const Solution b = solve_on(cf, 0.8, test::world());
  report("M 0.8 Karman-Trefftz", n, a);
  report("M 0.8 conformal_ogrid", n, b);
  ASSERT_TRUE(a.converged && b.converged);
  EXPECT_NEAR(b.forces.cl / a.forces.cl, 1.0, 5e-4);
  EXPECT_NEAR(b.forces.cd / a.forces.cd, 1.0, 5e-4);
  EXPECT_NEAR(b.forces.cm / a.forces.cm, 1.0, 5e-4);
}

TEST(VassbergJameson, TransonicSolutionDoesNotDependOnTheRankCount) {
  // Newton on the smooth limiter to 1e-11 (the round-off floor of this
  // grid's residual is near 1e-11.6) at every rank count; rank 0 also
  // solves alone. The converged CL agrees to 1e-10 relative.
  const Solution all = solve_vj(64, 0.8, mesh::CellShape::quads, test::world(), vj_options(1e-11));
  double alone_cl = 0.0;
  if (test::rank() == 0)
    alone_cl =
        solve_vj(64, 0.8, mesh::CellShape::quads, MPI_COMM_SELF, vj_options(1e-11)).forces.cl;
  CAMBER_CHECK_MPI(MPI_Bcast(&alone_cl, 1, MPI_DOUBLE, 0, test::world()));
  report("M 0.8, all ranks", 64, all);
  test::say("[vj] M 0.8, 64^2 on %d ranks against one: CL differs by %.2e relative\n",
            test::size(), std::abs(all.forces.cl / alone_cl - 1.0));
  ASSERT_TRUE(all.converged);
  EXPECT_LE(std::abs(all.forces.cl / alone_cl - 1.0), 1e-10);
}

TEST(VassbergJameson, TransonicSolutionDoesNotDependOnTheSolverPath) {
  // A limited scheme may have several discrete solutions, and then the
  // Newton path picks one. With the default threshold of the smooth
  // limiter this case has one: four paths (the defaults: matrix-free,
  // preconditioned by the first-order matrix; the assembled operator; the
  // same without the cap on the change per step; the matrix-free operator
  // preconditioned by the assembled second-order Jacobian refreshed every
  // fifth step, after a first-order phase to 1e-8 and a slow CFL ramp;
  // the second-order phase started at CFL 1e4 instead of cfl_start, which
  // takes 16 second-order steps here against 49) converge to the same CL
  // within 1e-10. (With face-neighbour gradients and wang_epsilon 0.05 the
  // second and third converged to CL 0.3577044 and 0.3577255 here.)
  std::vector<SteadyOptions> paths(5, vj_options(1e-11));
  paths[1].newton_operator = SteadyOptions::NewtonOperator::assembled;
  paths[2].newton_operator = SteadyOptions::NewtonOperator::assembled;
  paths[2].max_update = 0;
  paths[3].preconditioner = SteadyOptions::Preconditioner::second_order;
  paths[3].jacobian_refresh = 5;
  paths[3].first_order_drop = 1e-8;
  paths[3].second_order_cfl_growth = 2;
  paths[4].second_order_cfl_start = 1e4;
  double first = 0;
  for (size_t p = 0; p < paths.size(); ++p) {
    const Solution s = solve_vj(128, 0.8, mesh::CellShape::quads, test::world(), paths[p]);
    report(("M 0.8, path " + std::to_string(p)).c_str(), 128, s);
    ASSERT_TRUE(s.converged) << "path " << p;
    if (p == 0) first = s.forces.cl;
    EXPECT_LE(std::abs(s.forces.cl / first - 1.0), 1e-10) << "path " << p;
  }
}

TEST(VassbergJameson, TrianglesAtZeroIncidenceGiveZeroLift) {
  // The triangle grid is symmetric about the chord, so the symmetric flow
  // at alpha 0 is a discrete solution; a limiter with several solutions
  // can converge to an asymmetric one instead (with face-neighbour
  // gradients and wang_epsilon 0.05 or 0.1 on this grid: CL 1e-4 to 9e-4).
  // A unique one gives CL 0 to round-off.
  const Solution s =
      solve_vj(64, 0.5, mesh::CellShape::triangles, test::world(), vj_options(), 0.0);
  report("M 0.5, triangles, alpha 0", 64, s);
  ASSERT_TRUE(s.converged);
  EXPECT_LE(std::abs(s.forces.cl), 1e-10);
}

TEST(VassbergJameson, TrianglesAgreeWithQuads) {
  // The same nodes, each quad split into two triangles (symmetrically about
  // the chord): the transonic CL of the two grids within 1.5% of each
  // other. 1% is asked at 256^2 (a benchmark); 64^2 is the size CI
  // affords, and the two grids' discretization errors differ most there:
  // with the default stencil (node neighbours for the triangles) the
  // triangles are 1.07% below the quads here and 1.08% above them at
  // 128^2. With face-neighbour gradients they were 3.5% below at threshold
  // 0.05 and 12% above at 0.3 (docs/performance.md), which this bound
  // rejects.
  const Solution q = solve_vj(64, 0.8, mesh::CellShape::quads, test::world());
  const Solution t = solve_vj(64, 0.8, mesh::CellShape::triangles, test::world());
  report("M 0.8, quads", 64, q);
  report("M 0.8, triangles", 64, t);
  ASSERT_TRUE(q.converged);
  ASSERT_TRUE(t.converged);
  EXPECT_LE(std::abs(t.forces.cl / q.forces.cl - 1.0), 0.015);
}

}  // namespace
