// Camber's GMRES against PETSc's KSPGMRES on the same matrix (1, 2 and 4
// ranks): the grid system of grid_system.hpp as a PETSc MPIBAIJ matrix,
// both with point-block Jacobi, the same restart and tolerances. The two
// are the same algorithm (classical Gram-Schmidt, Givens rotations, the
// same convergence test), so their residual histories agree to round-off
// and their iteration counts to at most one near the threshold.
#include <gtest/gtest.h>

#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <camber/core/runtime.hpp>
#include <camber/parallel/halo_exchange.hpp>
#include <camber/solvers/linear/block_sparse_matrix.hpp>
#include <camber/solvers/linear/gmres.hpp>
#include <camber/solvers/linear/partitioned_ilu.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include "tests/solvers/linear/grid_system.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace lin = camber::solvers::linear;
using camber::index_t;
using camber::test::grid;
using camber::test::grid_matrix;

namespace {

struct PetscRun {
  std::vector<double> history, x;
  PetscInt iterations = 0;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
};

// The same system solved by PETSc: rows numbered rank by rank, the ghosts'
// numbers from their owners by a halo exchange.
// levels < 0: point-block Jacobi; otherwise block Jacobi (one block per
// rank) with ILU(levels) in natural order.
PetscRun petsc_solve(const lin::BlockSparseMatrix& A, const std::vector<double>& b, int restart,
                     double rtol, bool right, int levels) {
  const bool ilu = levels >= 0;
  const auto& dist = grid().dist;
  const int bs = A.block_size();
  PetscInt n = static_cast<PetscInt>(dist.n_owned()), offset = 0;
  MPI_Exscan(&n, &offset, 1, MPIU_INT, MPI_SUM, MPI_COMM_WORLD);
  if (camber::comm_rank(MPI_COMM_WORLD) == 0) offset = 0;
  camber::Tensor number({dist.n_local()});
  {
    std::vector<double> v(static_cast<size_t>(dist.n_local()), -1.0);
    for (index_t i = 0; i < dist.n_owned(); ++i) v[static_cast<size_t>(i)] = static_cast<double>(offset + i);
    number.assign(v);
    camber::par::HaloExchange(dist).forward(number);
  }
  const auto num = number.to_vector();
  Mat M;
  CAMBER_CHECK_PETSC(MatCreateBAIJ(MPI_COMM_WORLD, bs, n * bs, n * bs, PETSC_DETERMINE, PETSC_DETERMINE, 5,
                                   nullptr, 4, nullptr, &M));
  CAMBER_CHECK_PETSC(MatSetOption(M, MAT_ROW_ORIENTED, PETSC_FALSE));  // column-major blocks
  const auto ptr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.row_ptr());
  const auto col = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.columns());
  const auto val = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
  for (index_t i = 0; i < dist.n_owned(); ++i)
    for (index_t e = ptr(i); e < ptr(i + 1); ++e) {
      const PetscInt row = static_cast<PetscInt>(offset + i);
      const PetscInt c = static_cast<PetscInt>(num[static_cast<size_t>(col(e))]);
      CAMBER_CHECK_PETSC(MatSetValuesBlocked(M, 1, &row, 1, &c, &val(e * bs * bs), INSERT_VALUES));
    }
  CAMBER_CHECK_PETSC(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
  CAMBER_CHECK_PETSC(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  Vec vb, vx;
  CAMBER_CHECK_PETSC(MatCreateVecs(M, &vx, &vb));
  PetscScalar* a;
  CAMBER_CHECK_PETSC(VecGetArray(vb, &a));
  for (size_t e = 0; e < b.size(); ++e) a[e] = b[e];
  CAMBER_CHECK_PETSC(VecRestoreArray(vb, &a));
  KSP ksp;
  PC pc;
  CAMBER_CHECK_PETSC(KSPCreate(MPI_COMM_WORLD, &ksp));
  CAMBER_CHECK_PETSC(KSPSetOperators(ksp, M, M));
  CAMBER_CHECK_PETSC(KSPSetType(ksp, KSPGMRES));
  CAMBER_CHECK_PETSC(KSPGMRESSetRestart(ksp, restart));
  CAMBER_CHECK_PETSC(KSPGetPC(ksp, &pc));
  // Block Jacobi's default blocks: one per rank, ILU(0) in natural order.
  CAMBER_CHECK_PETSC(PCSetType(pc, ilu ? PCBJACOBI : PCPBJACOBI));
  if (right) CAMBER_CHECK_PETSC(KSPSetPCSide(ksp, PC_RIGHT));
  if (ilu) {
    CAMBER_CHECK_PETSC(KSPSetUp(ksp));
    KSP* sub = nullptr;
    PetscInt n_sub = 0;
    CAMBER_CHECK_PETSC(PCBJacobiGetSubKSP(pc, &n_sub, nullptr, &sub));
    PC sub_pc;
    CAMBER_CHECK_PETSC(KSPGetPC(sub[0], &sub_pc));
    CAMBER_CHECK_PETSC(PCSetType(sub_pc, PCILU));
    CAMBER_CHECK_PETSC(PCFactorSetLevels(sub_pc, levels));
  }
  CAMBER_CHECK_PETSC(KSPSetTolerances(ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscRun run;
  run.history.resize(2000);
  CAMBER_CHECK_PETSC(KSPSetResidualHistory(ksp, run.history.data(), 2000, PETSC_TRUE));
  CAMBER_CHECK_PETSC(KSPSolve(ksp, vb, vx));
  PetscInt nh = 0;
  CAMBER_CHECK_PETSC(KSPGetResidualHistory(ksp, nullptr, &nh));
  run.history.resize(static_cast<size_t>(nh));
  CAMBER_CHECK_PETSC(KSPGetIterationNumber(ksp, &run.iterations));
  CAMBER_CHECK_PETSC(KSPGetConvergedReason(ksp, &run.reason));
  const PetscScalar* xa;
  CAMBER_CHECK_PETSC(VecGetArrayRead(vx, &xa));
  run.x.assign(xa, xa + b.size());
  CAMBER_CHECK_PETSC(VecRestoreArrayRead(vx, &xa));
  KSPDestroy(&ksp);
  VecDestroy(&vb);
  VecDestroy(&vx);
  MatDestroy(&M);
  return run;
}

}  // namespace

// With point-block Jacobi (PCPBJACOBI), and with ILU(0) and ILU(1) in one
// block per rank (PartitionedIlu with one block against PCBJACOBI: one
// block per rank, ILU(k) in natural order): the same factor up to
// round-off.
TEST(GmresAgainstPetsc, SameResidualHistoryIterationsAndSolution) {
  const auto& dist = grid().dist;
  for (const int levels : {-1, 0, 1})
  for (const bool right : {false, true})
    for (int bs : {1, 4, 5})
      for (int restart : {10, 30}) {
        const auto A = grid_matrix(dist, bs);
        std::vector<double> b(static_cast<size_t>(A.local_size()));
        for (index_t i = 0; i < dist.n_owned(); ++i)
          for (int r = 0; r < bs; ++r)
            b[static_cast<size_t>(i * bs + r)] = std::sin(0.3 * static_cast<double>(dist.global_id(i)) + r);
        const double rtol = 1e-8;
        const bool ilu = levels >= 0;
        const PetscRun petsc = petsc_solve(A, b, restart, rtol, right, levels);

        lin::PointBlockJacobi jacobi(A);
        lin::PartitionedIlu iluk(A, 1, std::max(levels, 0));
        const lin::Preconditioner& M = ilu ? static_cast<const lin::Preconditioner&>(iluk) : jacobi;
        ASSERT_TRUE(ilu ? iluk.factor() : jacobi.factor());
        lin::GmresOptions o;
        o.restart = restart;
        o.rel_tolerance = rtol;
        o.side = right ? lin::PreconditionerSide::right : lin::PreconditionerSide::left;
        lin::GmresSolver gmres(A.local_size(), o);
        lin::Vector bv("b", b.size()), x("x", b.size());
        {
          const auto h = Kokkos::create_mirror_view(bv);
          for (size_t e = 0; e < b.size(); ++e) h(e) = b[e];
          Kokkos::deep_copy(bv, h);
        }
        const auto r = gmres.solve(A, M, bv, x, MPI_COMM_WORLD);
        const std::string what = (ilu ? "ILU(" + std::to_string(levels) + "), " : std::string("point-block Jacobi, ")) +
                                 (right ? "right" : "left") + ", block size " +
                                 std::to_string(bs) + ", restart " + std::to_string(restart);
        ASSERT_GT(petsc.reason, 0) << what;
        EXPECT_TRUE(r.converged()) << what << ": " << lin::to_string(r.reason);
        EXPECT_LE(std::abs(r.iterations - static_cast<int>(petsc.iterations)), 1) << what;
        if (!ilu) {
          EXPECT_GT(r.iterations, restart) << what;  // restarts were exercised
        }
        // Residual histories: the same numbers to round-off, step by step,
        // as long as both ran.
        const auto& h = gmres.history();
        const size_t common = std::min(h.size(), petsc.history.size());
        for (size_t j = 0; j < common; ++j)
          EXPECT_NEAR(h[j], petsc.history[j], 1e-9 * petsc.history[0]) << what << ", entry " << j;
        const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
        double diff = 0.0, size = 0.0;
        for (size_t e = 0; e < b.size(); ++e) {
          diff = std::max(diff, std::abs(xh(e) - petsc.x[e]));
          size = std::max(size, std::abs(petsc.x[e]));
        }
        double g[2] = {diff, size}, G[2];
        MPI_Allreduce(g, G, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        // Both solutions meet a 1e-8 relative residual; the matrix's
        // condition number is about 10.
        EXPECT_LE(G[0], 1e-6 * G[1]) << what;
      }
}
