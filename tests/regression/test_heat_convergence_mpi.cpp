// Validation of the steady heat-conduction solver against the outside
// world's reference, a manufactured solution, at 1, 2 and 4 ranks:
//   (a) on the rectangle's quads (an orthogonal mesh) the discrete L2 error
//       falls at second order under refinement;
//   (b) the solution does not depend on the rank count beyond the linear
//       solver's tolerance (solves on sub-communicators of every size that
//       divides the world size, compared with the solve on the world);
//   (c) on the rectangle's right-isosceles triangles (a non-orthogonal
//       mesh) the two-point flux is inconsistent: the linear solution is not
//       reproduced, its error falls at first order with the constant that
//       the analysis below predicts, and the smooth solution is not
//       converged to at all.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/heat/heat_conduction.hpp>
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers::heat {
namespace {

// An MPI communicator freed when it goes out of scope.
class SplitComm {
 public:
  SplitComm(MPI_Comm parent, int color, int key) {
    CAMBER_CHECK_MPI(MPI_Comm_split(parent, color, key, &comm_));
  }
  ~SplitComm() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  SplitComm(const SplitComm&) = delete;
  SplitComm& operator=(const SplitComm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

bool root() { return comm_rank(MPI_COMM_WORLD) == 0; }

// The domain [0, 1.5] x [0, 1] (non-square, so x and y are not
// interchangeable), with the manufactured solution's Lx, Ly its sides.
constexpr double lx = 1.5;
constexpr double ly = 1.0;

HeatProblem problem_for(const char* manufactured) {
  HeatProblem p;
  p.length_x_m = lx;
  p.length_y_m = ly;
  p.conductivity = 2.0;
  p.manufactured = manufactured;
  return p;
}

// (a) Cell-centred two-point finite volumes on a uniform grid of n x n
// quads (non-square cells, hx = 1.5 hy): the interior truncation error is
// O(h^2); at boundary cells the half-cell one-sided flux has an O(h) flux
// error, which perturbs the solution by only O(h^2) (the discrete Green's
// function is O(h) within a cell of the boundary), so e_h = C h^2 + O(h^3)
// in the discrete L2 norm. Observed orders log2(e_h / e_{h/2}) must lie in
// [1.9, 2.1]: the O(h^3) remainder shifts the order by O(h) (a few percent
// at 16 cells). The linear solver's error (relative 1e-12 of ||T||_2 ~ 200
// on the finest grid, so <~ 1e-9 in any cell; see the next test) is 4 orders
// below e_h there (~1e-5), so it does not pollute the orders.
TEST(HeatConvergence, DiscreteL2ErrorIsSecondOrderOnQuads) {
  const std::vector<index_t> sizes = {16, 32, 64, 128};
  std::vector<double> l2;
  std::vector<double> max_error;
  for (index_t n : sizes) {
    const mesh::DistributedMesh dm(mesh::rectangle(n, n, lx, ly), MPI_COMM_WORLD);
    const HeatResult r = solve_heat(dm, problem_for("sin_exp"));
    EXPECT_LT(r.max_non_orthogonality_deg, 1e-6) << "the rectangle's quads are orthogonal";
    l2.push_back(r.l2_error);
    max_error.push_back(r.max_error);
    if (root())
      std::printf("heat convergence, quads: n = %3ld  L2 error = %.6e  max error = %.6e  "
                  "iterations = %d  ||b - A T|| = %.3e\n",
                  static_cast<long>(n), r.l2_error, r.max_error, r.iterations,
                  r.residual_norm);
  }
  for (size_t g = 0; g + 1 < sizes.size(); ++g) {
    const double order = std::log2(l2[g] / l2[g + 1]);
    const double max_order = std::log2(max_error[g] / max_error[g + 1]);
    if (root())
      std::printf("heat convergence, quads: %3ld -> %3ld  L2 order = %.4f  max order = %.4f\n",
                  static_cast<long>(sizes[g]), static_cast<long>(sizes[g + 1]), order,
                  max_order);
    EXPECT_GE(order, 1.9) << "between n = " << sizes[g] << " and " << sizes[g + 1];
    EXPECT_LE(order, 2.1) << "between n = " << sizes[g] << " and " << sizes[g + 1];
  }
}

// (b) Every sub-communicator size k dividing the world size solves the same
// problem (colour = rank / k gives world_size / k groups of k ranks); each
// group's rank 0 compares the solution, gathered in the mesh's global cell
// order, with the world solve.
//
// Tolerance: the solves differ only through the linear solver, since the
// assembled system is the same up to the numbering of the rows (each entry
// computed from the same centroids on any rank). CG stops at
// ||B r|| <= rtol ||B b|| with BoomerAMG B ~ A^-1 and kappa(B A) = O(1) (a
// few), so ||T_k - T||_2 <~ kappa(B A) rtol ||T||_2. Here
// ||T||_2 ~ sqrt(64 * 64) * 1.5 ~ 100 (PETSc's initial preconditioned
// residual ||B b|| is ~90, as B ~ A^-1); with rtol = 1e-13 each solve is
// within ~1e-11 of the discrete solution in the 2-norm (hence max-norm),
// and two solves differ by well under 1e-10.
TEST(HeatConvergence, SolutionAgreesAcrossRankCounts) {
  HeatProblem p = problem_for("sin_exp");
  p.solver.rel_tolerance = 1e-13;
  const mesh::Mesh global = mesh::rectangle(64, 64, lx, ly);
  const int world = comm_size(MPI_COMM_WORLD);
  const int rank = comm_rank(MPI_COMM_WORLD);
  const mesh::DistributedMesh whole_mesh(global, MPI_COMM_WORLD);
  const HeatResult whole = solve_heat(whole_mesh, p);
  const std::vector<double> reference =
      par::gather_owned(whole.temperature, whole_mesh.distribution()).to_vector();
  ASSERT_EQ(static_cast<index_t>(reference.size()), global.n_cells());

  for (int k = 1; k <= world; ++k) {
    if (world % k != 0) continue;
    SplitComm sub(MPI_COMM_WORLD, rank / k, rank);
    ASSERT_EQ(comm_size(sub.get()), k);
    const mesh::DistributedMesh part_mesh(global, sub.get());
    const HeatResult part = solve_heat(part_mesh, p);
    const std::vector<double> gathered =
        par::gather_owned(part.temperature, part_mesh.distribution()).to_vector();
    double difference = 0.0;
    EXPECT_EQ(gathered.size(), reference.size());
    for (size_t c = 0; c < std::min(gathered.size(), reference.size()); ++c)
      difference = std::max(difference, std::abs(gathered[c] - reference[c]));
    double worst = 0.0;
    CAMBER_CHECK_MPI(
        MPI_Allreduce(&difference, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    if (rank == 0)
      std::printf("heat across ranks: %d-rank solves vs %d-rank solve: max |dT| = %.3e "
                  "(iterations %d vs %d)\n",
                  k, world, worst, part.iterations, whole.iterations);
    EXPECT_LE(worst, 1e-10) << "sub-communicators of " << k << " ranks";
  }
}

// (c) Right-isosceles triangles: mesh::rectangle(3n/2, n, 1.5, 1,
// triangles) has square cells of side h = 1/n, each split along its
// (0,0)-(1,1) diagonal into a lower triangle A (centroid (2/3, 1/3) h in the
// square) and an upper one B (centroid (1/3, 2/3) h).
//
// Analysis. Across the diagonal the centroid line is normal to the face;
// across the square's sides it is not (A to the B below: (-1/3, -2/3) h
// against the normal (0, -1), an angle of atan(1/2) = 26.57 degrees; the
// same at boundary faces), so for T = G . x the two-point flux misses G's
// tangential part. As a periodic network (each A joined to three B's with
// weights k |S| / d = 3k across the diagonal and 3k/2 across a side, at
// offsets delta_e = (-1/3, 1/3) h, (-1/3, -2/3) h, (2/3, 1/3) h) the
// discrete solution for a linear T is T plus a periodic corrector phi: the
// balance at A, sum_e w_e (G . delta_e + phi_B - phi_A) = 0 with
// sum_e w_e delta_e = k h (-1/2, 1/2) and sum_e w_e = 6k, gives
//   phi_B - phi_A = h (G_x - G_y) / 12,   so   T_c = T(x_c) -+ h (G_x - G_y) / 24
// on A / B cells. A boundary face carries the same flux as the interior
// face it replaces (e.g. below an A cell: 3k ((G_x/6 + G_y/3) h - phi_A)
// = (3k/2) (T_A - T_B) of the missing B), so this holds in every cell, and
// its L2 norm is exactly C h with C = |G_x - G_y| / 24 sqrt(|Omega|): a linear
// T is not reproduced, and its error falls at order 1 exactly.
//
// Minimizing the network's energy per square over phi gives the effective
// conductivity the scheme converges to,
//   G . K_eff G = (3k/16) ((G_y - G_x)^2 + (G_x + 3 G_y)^2 / 2 + (3 G_x + G_y)^2 / 2),
//   K_eff = k [[9/8, 3/8], [3/8, 9/8]]  !=  k I,
// so for a curved T (sin_exp) the discrete solution tends to the solution u
// of -div(K_eff grad u) = f, u = g on the boundary, not to T. Outside
// reference for the limit: that problem solved independently by 9-point
// finite differences on the nodes of [0, 1.5] x [0, 1] (h = 1/60, 1/120,
// 1/240) gives ||u - T||_L2 = 0.059638, 0.059663, 0.059669 -> 0.05967.

// Per cell: T_c = T(x_c) -+ h (G_x - G_y) / 24 for "linear", G = (2/Lx, -3/Ly).
// Tolerance: the linear solver's error, <~ kappa(B A) 1e-12 ||T||_2 with
// ||T||_2 <= 5 sqrt(2 * 192 * 128) ~ 1100 cells' worth on the finest mesh:
// 1e-8; the analysis is exact, so any discretization-level deviation
// (>= 1e-5 at n = 128, where h (G_x - G_y) / 24 = 1.4e-3) would show.
TEST(HeatConvergence, LinearSolutionOnRightTrianglesHasThePredictedFirstOrderError) {
  const double gx = 2.0 / lx;
  const double gy = -3.0 / ly;
  const double c_predicted = std::abs(gx - gy) / 24.0 * std::sqrt(lx * ly);  // 0.22113
  const std::vector<index_t> sizes = {16, 32, 64, 128};
  std::vector<double> l2;
  for (index_t n : sizes) {
    const double h = 1.0 / static_cast<double>(n);
    const mesh::DistributedMesh dm(
        mesh::rectangle(3 * n / 2, n, lx, ly, mesh::CellShape::triangles), MPI_COMM_WORLD);
    const HeatResult r = solve_heat(dm, problem_for("linear"));
    EXPECT_NEAR(r.max_non_orthogonality_deg, std::atan(0.5) * 180.0 / std::acos(-1.0), 1e-9);

    const mesh::Geometry g = mesh::compute_geometry(dm.local());
    const auto centroid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_centroid);
    const auto t = r.temperature.host();
    double worst = 0.0;
    for (index_t c = 0; c < dm.n_local_cells(); ++c) {
      const double x = centroid(c, 0);
      const double y = centroid(c, 1);
      // A cells sit at 2/3 of their square in x, B cells at 1/3.
      const double s = x / h - std::floor(x / h);
      const double sign = s > 0.5 ? -1.0 : 1.0;
      const double expected = 1.0 + gx * x + gy * y + sign * h * (gx - gy) / 24.0;
      worst = std::max(worst, std::abs(t(c) - expected));
    }
    const double all = par::allreduce_max(worst, MPI_COMM_WORLD);
    EXPECT_LE(all, 1e-8) << "n = " << n;
    EXPECT_NEAR(r.max_error, h * std::abs(gx - gy) / 24.0, 1e-8) << "n = " << n;
    EXPECT_NEAR(r.l2_error / h, c_predicted, 1e-6) << "n = " << n;
    l2.push_back(r.l2_error);
    if (root())
      std::printf("heat convergence, triangles, linear: n = %3ld  L2 error = %.6e  "
                  "L2 / h = %.6f (predicted %.6f)  max error = %.6e  max |T - predicted| = "
                  "%.2e  iterations = %d\n",
                  static_cast<long>(n), r.l2_error, r.l2_error / h, c_predicted, r.max_error,
                  all, r.iterations);
  }
  for (size_t g = 0; g + 1 < sizes.size(); ++g) {
    const double order = std::log2(l2[g] / l2[g + 1]);
    if (root())
      std::printf("heat convergence, triangles, linear: %3ld -> %3ld  L2 order = %.4f\n",
                  static_cast<long>(sizes[g]), static_cast<long>(sizes[g + 1]), order);
    EXPECT_NEAR(order, 1.0, 1e-3) << "between n = " << sizes[g] << " and " << sizes[g + 1];
  }
}

// sin_exp on the same triangles: the L2 error tends to ||u - T|| = 0.05967
// (the analysis above), not to 0. The discrete error approaches that limit
// at O(h^2) (|e_h - 0.05967| = 8e-4, 2e-4, 5e-5, 1.3e-5 at n = 16 .. 128:
// ratio 4), so a 2% band holds at every n, with a margin of 1.5 at n = 16;
// and between the two finest meshes the observed order is below 0.05 (a
// consistent scheme of order >= 1 would give >= 1).
TEST(HeatConvergence, SmoothSolutionOnRightTrianglesIsNotConvergedTo) {
  const double limit = 0.05967;
  const std::vector<index_t> sizes = {16, 32, 64, 128};
  std::vector<double> l2;
  for (index_t n : sizes) {
    const mesh::DistributedMesh dm(
        mesh::rectangle(3 * n / 2, n, lx, ly, mesh::CellShape::triangles), MPI_COMM_WORLD);
    const HeatResult r = solve_heat(dm, problem_for("sin_exp"));
    l2.push_back(r.l2_error);
    if (root())
      std::printf("heat convergence, triangles, sin_exp: n = %3ld  L2 error = %.6e  "
                  "(homogenized limit %.5f)  max error = %.6e  iterations = %d\n",
                  static_cast<long>(n), r.l2_error, limit, r.max_error, r.iterations);
    EXPECT_NEAR(r.l2_error, limit, 0.02 * limit) << "n = " << n;
  }
  for (size_t g = 0; g + 1 < sizes.size(); ++g) {
    const double order = std::log2(l2[g] / l2[g + 1]);
    if (root())
      std::printf("heat convergence, triangles, sin_exp: %3ld -> %3ld  L2 order = %.4f\n",
                  static_cast<long>(sizes[g]), static_cast<long>(sizes[g + 1]), order);
  }
  EXPECT_LT(std::log2(l2[l2.size() - 2] / l2.back()), 0.05);
}

}  // namespace
}  // namespace camber::solvers::heat
