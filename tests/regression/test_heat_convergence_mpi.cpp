// Validation of the steady heat-conduction solver against the outside
// world's reference, a manufactured solution, at 1, 2 and 4 ranks:
//   (a) the discrete L2 error falls at second order under refinement;
//   (b) the solution does not depend on the rank count beyond the linear
//       solver's tolerance (solves on sub-communicators of every size that
//       divides the world size, compared with the solve on the world).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <camber/solvers/heat_conduction.hpp>
#include <camber/error.hpp>
#include <camber/runtime.hpp>
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers {
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

// The smooth, non-symmetric manufactured solution on a non-square domain
// (Lx = 1.5, Ly = 1), so cells are not square either.
HeatProblem smooth_problem(index_t n) {
  HeatProblem p;
  p.nx = n;
  p.ny = n;
  p.length_x_m = 1.5;
  p.length_y_m = 1.0;
  p.conductivity = 2.0;
  p.manufactured = "sin_exp";
  return p;
}

// The whole solution in global cell order, on every rank of comm.
std::vector<double> allgather_solution(const HeatResult& r, MPI_Comm comm) {
  const int size = comm_size(comm);
  const int local = static_cast<int>(r.cell_end - r.cell_begin);
  std::vector<int> counts(static_cast<size_t>(size));
  CAMBER_CHECK_MPI(MPI_Allgather(&local, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
  std::vector<int> offsets(static_cast<size_t>(size), 0);
  for (size_t q = 1; q < counts.size(); ++q) offsets[q] = offsets[q - 1] + counts[q - 1];
  std::vector<double> all(static_cast<size_t>(offsets.back() + counts.back()));
  const auto mine = r.temperature.to_vector();
  CAMBER_CHECK_MPI(MPI_Allgatherv(mine.data(), local, MPI_DOUBLE, all.data(), counts.data(),
                                  offsets.data(), MPI_DOUBLE, comm));
  return all;
}

// The whole solution in global cell order on rank 0 of comm (empty elsewhere).
std::vector<double> gather_solution(const HeatResult& r, MPI_Comm comm) {
  const int size = comm_size(comm);
  const int rank = comm_rank(comm);
  const int local = static_cast<int>(r.cell_end - r.cell_begin);
  std::vector<int> counts(static_cast<size_t>(size));
  CAMBER_CHECK_MPI(MPI_Gather(&local, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  std::vector<int> offsets(static_cast<size_t>(size), 0);
  std::vector<double> all;
  if (rank == 0) {
    for (size_t q = 1; q < counts.size(); ++q) offsets[q] = offsets[q - 1] + counts[q - 1];
    all.resize(static_cast<size_t>(offsets.back() + counts.back()));
  }
  const auto mine = r.temperature.to_vector();
  CAMBER_CHECK_MPI(MPI_Gatherv(mine.data(), local, MPI_DOUBLE, all.data(), counts.data(),
                               offsets.data(), MPI_DOUBLE, 0, comm));
  return all;
}

// (a) Cell-centred two-point finite volumes on a uniform grid: the interior
// truncation error is O(h^2); at boundary cells the half-cell one-sided
// flux has an O(h) flux error, which perturbs the solution by only O(h^2)
// (the discrete Green's function is O(h) within a cell of the boundary),
// so e_h = C h^2 + O(h^3) in the discrete L2 norm. Observed orders
// log2(e_h / e_{h/2}) must lie in [1.9, 2.1]: the O(h^3) remainder shifts
// the order by O(h) (a few percent at 16 cells). The linear solver's error
// (relative 1e-12 of ||T||_2 ~ 200 on the finest grid, so <~ 1e-9 in any
// cell; see the next test) is 4 orders below e_h there (~1e-5), so it does
// not pollute the orders.
TEST(HeatConvergence, DiscreteL2ErrorIsSecondOrder) {
  const std::vector<index_t> sizes = {16, 32, 64, 128};
  std::vector<double> l2;
  std::vector<double> max_error;
  for (index_t n : sizes) {
    const HeatResult r = solve_heat(smooth_problem(n), MPI_COMM_WORLD);
    l2.push_back(r.l2_error);
    max_error.push_back(r.max_error);
    if (comm_rank(MPI_COMM_WORLD) == 0)
      std::printf("heat convergence: n = %3ld  L2 error = %.6e  max error = %.6e  "
                  "iterations = %d  ||b - A T|| = %.3e\n",
                  static_cast<long>(n), r.l2_error, r.max_error, r.iterations,
                  r.residual_norm);
  }
  for (size_t g = 0; g + 1 < sizes.size(); ++g) {
    const double order = std::log2(l2[g] / l2[g + 1]);
    const double max_order = std::log2(max_error[g] / max_error[g + 1]);
    if (comm_rank(MPI_COMM_WORLD) == 0)
      std::printf("heat convergence: %3ld -> %3ld  L2 order = %.4f  max order = %.4f\n",
                  static_cast<long>(sizes[g]), static_cast<long>(sizes[g + 1]), order,
                  max_order);
    EXPECT_GE(order, 1.9) << "between n = " << sizes[g] << " and " << sizes[g + 1];
    EXPECT_LE(order, 2.1) << "between n = " << sizes[g] << " and " << sizes[g + 1];
  }
}

// (b) Every sub-communicator size k dividing the world size solves the same
// problem (colour = rank / k gives world_size / k groups of k ranks); each
// group's rank 0 compares the gathered solution with the world solve.
//
// Tolerance: the solves differ only through the linear solver, since the
// assembled system is identical (each entry computed the same way on any
// rank). CG stops at ||B r|| <= rtol ||B b|| with BoomerAMG B ~ A^-1 and
// kappa(B A) = O(1) (a few), so ||T_k - T||_2 <~ kappa(B A) rtol ||T||_2.
// Here ||T||_2 ~ sqrt(64 * 64) * 1.5 ~ 100 (PETSc's initial preconditioned
// residual ||B b|| is ~90, as B ~ A^-1); with rtol = 1e-13 each solve is
// within ~1e-11 of the discrete solution in the 2-norm (hence max-norm),
// and two solves differ by well under 1e-10.
TEST(HeatConvergence, SolutionAgreesAcrossRankCounts) {
  HeatProblem p = smooth_problem(64);
  p.solver.rel_tolerance = 1e-13;
  const int world = comm_size(MPI_COMM_WORLD);
  const int rank = comm_rank(MPI_COMM_WORLD);
  const HeatResult whole = solve_heat(p, MPI_COMM_WORLD);
  const std::vector<double> reference = allgather_solution(whole, MPI_COMM_WORLD);
  ASSERT_EQ(static_cast<index_t>(reference.size()), p.nx * p.ny);

  for (int k = 1; k <= world; ++k) {
    if (world % k != 0) continue;
    SplitComm sub(MPI_COMM_WORLD, rank / k, rank);
    ASSERT_EQ(comm_size(sub.get()), k);
    const HeatResult part = solve_heat(p, sub.get());
    const std::vector<double> gathered = gather_solution(part, sub.get());
    double difference = 0.0;
    if (comm_rank(sub.get()) == 0) {
      EXPECT_EQ(gathered.size(), reference.size());
      for (size_t c = 0; c < std::min(gathered.size(), reference.size()); ++c)
        difference = std::max(difference, std::abs(gathered[c] - reference[c]));
    }
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

}  // namespace
}  // namespace camber::solvers
