// BlockIlu (solvers/petsc/block_ilu.hpp) against PETSc's own factorizations
// on block matrices of a 2-D grid's 9-point stencil: one block is PETSc's
// ILU(0) and ILU(1) in natural order, full fill is the exact solve (natural
// and reverse Cuthill-McKee order), several blocks are block Jacobi with the
// couplings between blocks dropped, and on 2 and 4 ranks the rank-local
// factor is PETSc's block Jacobi with ILU in each block (1, 2 and 4 ranks;
// the sequential cases run on PETSC_COMM_SELF on every rank).
#include <gtest/gtest.h>
#include <mpi.h>
#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/petsc/block_ilu.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers::petsc {
namespace {

// The grid's nodes are the block rows, numbered along x then y; the
// coupling of row r and column c is a bs x bs block whose entries depend on
// (r, c) only, so every rank count builds the same matrix. Diagonal blocks
// are made dominant by `dominance` (1: weakly, as a pseudo-time Jacobian at
// a large CFL number; larger: strongly).
struct GridMatrix {
  int nx = 0, ny = 0, bs = 0;
  PetscInt rows() const { return static_cast<PetscInt>(nx) * ny; }
};

double entry(PetscInt r, PetscInt c, int i, int j) {
  std::uint64_t s = static_cast<std::uint64_t>(r) * 1000003u + static_cast<std::uint64_t>(c) * 7919u +
                    static_cast<std::uint64_t>(i) * 31u + static_cast<std::uint64_t>(j);
  std::mt19937_64 g(s);
  return std::uniform_real_distribution<double>(-1.0, 1.0)(g);
}

std::vector<PetscInt> neighbours(const GridMatrix& g, PetscInt r) {
  const int x = static_cast<int>(r % g.nx), y = static_cast<int>(r / g.nx);
  std::vector<PetscInt> out;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      const int xx = x + dx, yy = y + dy;
      if (xx >= 0 && xx < g.nx && yy >= 0 && yy < g.ny) out.push_back(yy * g.nx + xx);
    }
  return out;
}

// `keep(r, c)` false drops the block (r, c).
template <class Keep>
MatHandle make_matrix(MPI_Comm comm, const GridMatrix& g, double dominance, Keep keep) {
  int size = 1, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const PetscInt n = g.rows();
  const PetscInt first = n * rank / size, last = n * (rank + 1) / size;
  MatHandle A;
  CAMBER_CHECK_PETSC(MatCreateBAIJ(comm, g.bs, (last - first) * g.bs, (last - first) * g.bs,
                                   PETSC_DETERMINE, PETSC_DETERMINE, 9, nullptr, 9, nullptr,
                                   A.out()));
  std::vector<double> block(static_cast<size_t>(g.bs * g.bs));
  for (PetscInt r = first; r < last; ++r)
    for (PetscInt c : neighbours(g, r)) {
      if (!keep(r, c)) continue;
      for (int i = 0; i < g.bs; ++i)
        for (int j = 0; j < g.bs; ++j) {
          double v = entry(r, c, i, j);
          if (r == c && i == j) v += dominance * 9.0;
          block[static_cast<size_t>(i * g.bs + j)] = v;  // row-major for MatSetValuesBlocked
        }
      CAMBER_CHECK_PETSC(MatSetValuesBlocked(A.get(), 1, &r, 1, &c, block.data(), INSERT_VALUES));
    }
  CAMBER_CHECK_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  CAMBER_CHECK_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  return A;
}

MatHandle make_matrix(MPI_Comm comm, const GridMatrix& g, double dominance) {
  return make_matrix(comm, g, dominance, [](PetscInt, PetscInt) { return true; });
}

VecHandle right_hand_side(Mat A) {
  VecHandle b;
  CAMBER_CHECK_PETSC(MatCreateVecs(A, nullptr, b.out()));
  PetscInt lo = 0, hi = 0;
  CAMBER_CHECK_PETSC(VecGetOwnershipRange(b.get(), &lo, &hi));
  for (PetscInt i = lo; i < hi; ++i) {
    const double v = std::sin(0.37 * static_cast<double>(i)) + 0.5;
    CAMBER_CHECK_PETSC(VecSetValue(b.get(), i, v, INSERT_VALUES));
  }
  CAMBER_CHECK_PETSC(VecAssemblyBegin(b.get()));
  CAMBER_CHECK_PETSC(VecAssemblyEnd(b.get()));
  return b;
}

// y = M^-1 b by BlockIlu.
VecHandle apply_block_ilu(BlockIlu& ilu, Mat A, Vec b) {
  EXPECT_TRUE(ilu.factor(A));
  VecHandle y;
  CAMBER_CHECK_PETSC(VecDuplicate(b, y.out()));
  const PetscScalar* ba = nullptr;
  PetscScalar* ya = nullptr;
  CAMBER_CHECK_PETSC(VecGetArrayRead(b, &ba));
  CAMBER_CHECK_PETSC(VecGetArray(y.get(), &ya));
  ilu.apply(ba, ya);
  CAMBER_CHECK_PETSC(VecRestoreArray(y.get(), &ya));
  CAMBER_CHECK_PETSC(VecRestoreArrayRead(b, &ba));
  return y;
}

// y = M^-1 b by a PETSc preconditioner set up from options (`-test_...`).
// A solver that applies its preconditioner once (KSPPREONLY) on A; *pc its PC.
KspHandle preonly(Mat A, PC* pc) {
  KspHandle ksp;
  CAMBER_CHECK_PETSC(KSPCreate(PetscObjectComm(reinterpret_cast<PetscObject>(A)), ksp.out()));
  CAMBER_CHECK_PETSC(KSPSetOperators(ksp.get(), A, A));
  CAMBER_CHECK_PETSC(KSPSetType(ksp.get(), KSPPREONLY));
  CAMBER_CHECK_PETSC(KSPGetPC(ksp.get(), pc));
  return ksp;
}

VecHandle apply_petsc(Mat A, Vec b, const char* pc_type, PetscInt levels, const char* sub_type,
                      MatOrderingType ordering = MATORDERINGNATURAL, bool transpose = false) {
  PC pc;
  KspHandle ksp = preonly(A, &pc);
  CAMBER_CHECK_PETSC(PCSetType(pc, pc_type));
  if (std::string(pc_type) == PCILU) {
    CAMBER_CHECK_PETSC(PCFactorSetLevels(pc, levels));
    CAMBER_CHECK_PETSC(PCFactorSetMatOrderingType(pc, ordering));
  }
  CAMBER_CHECK_PETSC(KSPSetUp(ksp.get()));
  if (std::string(pc_type) == PCBJACOBI) {
    PetscInt blocks = 0;
    KSP* sub = nullptr;
    CAMBER_CHECK_PETSC(PCBJacobiGetSubKSP(pc, &blocks, nullptr, &sub));
    for (PetscInt k = 0; k < blocks; ++k) {
      PC subpc;
      CAMBER_CHECK_PETSC(KSPGetPC(sub[k], &subpc));
      CAMBER_CHECK_PETSC(PCSetType(subpc, sub_type));
      CAMBER_CHECK_PETSC(PCFactorSetLevels(subpc, levels));
      CAMBER_CHECK_PETSC(PCFactorSetMatOrderingType(subpc, MATORDERINGNATURAL));
    }
  }
  VecHandle y;
  CAMBER_CHECK_PETSC(VecDuplicate(b, y.out()));
  if (transpose)
    CAMBER_CHECK_PETSC(KSPSolveTranspose(ksp.get(), b, y.get()));
  else
    CAMBER_CHECK_PETSC(KSPSolve(ksp.get(), b, y.get()));
  return y;
}

// y = M^-T b by BlockIlu, through the PCSHELL as a transposed solve asks.
VecHandle apply_block_ilu_transpose(BlockIlu& ilu, Mat A, Vec b) {
  PC pc;
  KspHandle ksp = preonly(A, &pc);
  ilu.attach(pc);
  VecHandle y;
  CAMBER_CHECK_PETSC(VecDuplicate(b, y.out()));
  CAMBER_CHECK_PETSC(KSPSolveTranspose(ksp.get(), b, y.get()));
  return y;
}

// ||x - y||_inf / ||y||_inf
double relative_difference(Vec x, Vec y) {
  VecHandle d;
  CAMBER_CHECK_PETSC(VecDuplicate(x, d.out()));
  CAMBER_CHECK_PETSC(VecWAXPY(d.get(), -1.0, y, x));
  PetscReal dn = 0.0, yn = 0.0;
  CAMBER_CHECK_PETSC(VecNorm(d.get(), NORM_INFINITY, &dn));
  CAMBER_CHECK_PETSC(VecNorm(y, NORM_INFINITY, &yn));
  return dn / yn;
}

// ||b - A y|| / ||b||
double residual(Mat A, Vec b, Vec y) {
  VecHandle r;
  CAMBER_CHECK_PETSC(VecDuplicate(b, r.out()));
  CAMBER_CHECK_PETSC(MatMult(A, y, r.get()));
  CAMBER_CHECK_PETSC(VecAYPX(r.get(), -1.0, b));
  PetscReal rn = 0.0, bn = 0.0;
  CAMBER_CHECK_PETSC(VecNorm(r.get(), NORM_2, &rn));
  CAMBER_CHECK_PETSC(VecNorm(b, NORM_2, &bn));
  return rn / bn;
}

// On one rank, one block: PETSc's ILU(levels) in natural and in reverse
// Cuthill-McKee order, applied and applied transposed, for block sizes 1 to 5 (the Euler systems' 3, 4 and
// 5 among them). Tolerance: the two factorizations sum in different
// orders; 1e-11 relative is ~1e5 ulp of growth through a 144-row
// triangular solve of a weakly dominant matrix.
TEST(BlockIlu, OneBlockIsPetscsIlu) {
  for (int bs = 1; bs <= 5; ++bs)
    for (int levels : {0, 1, 2})
      for (IluOrdering ordering : {IluOrdering::natural, IluOrdering::rcm}) {
        const GridMatrix g{12, 12, bs};
        MatHandle A = make_matrix(PETSC_COMM_SELF, g, 1.0);
        VecHandle b = right_hand_side(A.get());
        BlockIluOptions opts;
        opts.levels = levels;
        opts.blocks = 1;
        opts.ordering = ordering;
        BlockIlu ilu(opts);
        VecHandle ours = apply_block_ilu(ilu, A.get(), b.get());
        VecHandle theirs =
            apply_petsc(A.get(), b.get(), PCILU, levels, nullptr,
                        ordering == IluOrdering::rcm ? MATORDERINGRCM : MATORDERINGNATURAL);
        EXPECT_LT(relative_difference(ours.get(), theirs.get()), 1e-11)
            << "bs " << bs << ", ILU(" << levels << ")"
            << (ordering == IluOrdering::rcm ? ", RCM" : ", natural");
        // Transposed, as an adjoint's solve applies it.
        VecHandle ours_t = apply_block_ilu_transpose(ilu, A.get(), b.get());
        VecHandle theirs_t =
            apply_petsc(A.get(), b.get(), PCILU, levels, nullptr,
                        ordering == IluOrdering::rcm ? MATORDERINGRCM : MATORDERINGNATURAL, true);
        EXPECT_LT(relative_difference(ours_t.get(), theirs_t.get()), 1e-11)
            << "transposed, bs " << bs << ", ILU(" << levels << ")";
        EXPECT_EQ(ilu.block_size(), bs);
        // ILU(0) keeps the pattern: 9-point stencil blocks only.
        if (levels == 0) {
          EXPECT_EQ(ilu.factor_blocks(), static_cast<std::size_t>(9 * 10 * 10 + 6 * 4 * 10 + 4 * 4));
        }
      }
}

// Full fill (levels >= rows) is the exact LU factorization: M^-1 b solves
// A y = b to round-off, in natural and in reverse Cuthill-McKee order.
TEST(BlockIlu, FullFillSolvesExactlyInEitherOrder) {
  const GridMatrix g{9, 7, 4};
  MatHandle A = make_matrix(PETSC_COMM_SELF, g, 1.0);
  VecHandle b = right_hand_side(A.get());
  for (IluOrdering ordering : {IluOrdering::natural, IluOrdering::rcm}) {
    BlockIluOptions opts;
    opts.levels = 1000;
    opts.blocks = 1;
    opts.ordering = ordering;
    BlockIlu ilu(opts);
    VecHandle y = apply_block_ilu(ilu, A.get(), b.get());
    EXPECT_LT(residual(A.get(), b.get(), y.get()), 1e-12);
  }
}

// Reverse Cuthill-McKee order fills less than natural order on a grid
// numbered along its long side: the band of an nx x ny grid with nx > ny is
// nx + 1 in natural order, about ny + 1 in RCM order, and full fill stores
// the band.
TEST(BlockIlu, ReverseCuthillMcKeeNarrowsTheFill) {
  const GridMatrix g{30, 4, 1};
  MatHandle A = make_matrix(PETSC_COMM_SELF, g, 2.0);
  BlockIluOptions opts;
  opts.levels = 1000;
  opts.blocks = 1;
  BlockIlu natural(opts);
  opts.ordering = IluOrdering::rcm;
  BlockIlu rcm(opts);
  ASSERT_TRUE(natural.factor(A.get()));
  ASSERT_TRUE(rcm.factor(A.get()));
  // Natural: each row stores its band, about 2 * 31 blocks; RCM about 2 * 5
  // to 2 * 9 (the breadth-first levels of a 9-point stencil).
  EXPECT_GT(natural.factor_blocks(), 120u * 40u);
  EXPECT_LT(rcm.factor_blocks(), 120u * 20u);
}

// Several blocks are block Jacobi: with full fill in each block, M^-1 b
// solves the matrix whose couplings between blocks are dropped. The blocks
// are a graph partition: balanced (METIS's 3% target, 10% allowed here) and
// each a connected piece of the grid.
TEST(BlockIlu, BlocksAreBlockJacobiWithinTheRank) {
  const GridMatrix g{11, 10, 5};
  const PetscInt n = g.rows();
  const int parts = 3;
  MatHandle A = make_matrix(PETSC_COMM_SELF, g, 1.0);
  VecHandle b = right_hand_side(A.get());
  BlockIluOptions opts;
  opts.levels = 1000;
  opts.blocks = parts;
  BlockIlu ilu(opts);
  VecHandle y = apply_block_ilu(ilu, A.get(), b.get());
  ASSERT_EQ(ilu.blocks(), parts);
  const std::vector<int> block = ilu.block_of_row();
  ASSERT_EQ(block.size(), static_cast<size_t>(n));
  for (int p = 0; p < parts; ++p) {
    const auto size = std::count(block.begin(), block.end(), p);
    EXPECT_GE(size, n / parts * 0.9) << "block " << p;
    EXPECT_LE(size, n / parts * 1.1) << "block " << p;
  }
  MatHandle D = make_matrix(PETSC_COMM_SELF, g, 1.0, [&](PetscInt r, PetscInt c) {
    return block[static_cast<size_t>(r)] == block[static_cast<size_t>(c)];
  });
  EXPECT_LT(residual(D.get(), b.get(), y.get()), 1e-12);
  EXPECT_GT(residual(A.get(), b.get(), y.get()), 1e-3);  // the dropped couplings matter

  // The same blocks, the same bits, on every later factorization.
  BlockIlu again(opts);
  VecHandle z = apply_block_ilu(again, A.get(), b.get());
  EXPECT_EQ(again.block_of_row(), block);
  EXPECT_EQ(relative_difference(z.get(), y.get()), 0.0);
}

// On every rank count: one block per rank is PETSc's block Jacobi with
// ILU(1) in natural order in each rank's block; and a factor is reused
// (same pattern) and redone (new values) as the matrix changes.
TEST(BlockIlu, OneBlockPerRankIsPetscsBlockJacobi) {
  const GridMatrix g{16, 13, 4};
  MatHandle A = make_matrix(MPI_COMM_WORLD, g, 1.0);
  VecHandle b = right_hand_side(A.get());
  BlockIluOptions opts;
  opts.levels = 1;
  opts.blocks = 1;
  BlockIlu ilu(opts);
  VecHandle ours = apply_block_ilu(ilu, A.get(), b.get());
  VecHandle theirs = apply_petsc(A.get(), b.get(), PCBJACOBI, 1, PCILU);
  EXPECT_LT(relative_difference(ours.get(), theirs.get()), 1e-11);

  // New values, same pattern: scale the matrix by 2, the answer halves.
  CAMBER_CHECK_PETSC(MatScale(A.get(), 2.0));
  VecHandle half = apply_block_ilu(ilu, A.get(), b.get());
  CAMBER_CHECK_PETSC(VecScale(half.get(), 2.0));
  EXPECT_LT(relative_difference(half.get(), ours.get()), 1e-14);
}

// The transposed application is the transpose of the application:
// <M^-1 x, y> = <x, M^-T y> for any x, y, with three blocks per rank and
// RCM order, on every rank count (to 1e-12 of the products' size: two
// sums of 1,500 terms in different orders).
TEST(BlockIlu, TheTransposedApplicationIsTheTranspose) {
  const GridMatrix g{15, 20, 5};
  MatHandle A = make_matrix(MPI_COMM_WORLD, g, 1.0);
  VecHandle x = right_hand_side(A.get()), y;
  CAMBER_CHECK_PETSC(VecDuplicate(x.get(), y.out()));
  PetscInt lo = 0, hi = 0;
  CAMBER_CHECK_PETSC(VecGetOwnershipRange(y.get(), &lo, &hi));
  for (PetscInt i = lo; i < hi; ++i)
    CAMBER_CHECK_PETSC(VecSetValue(y.get(), i, std::cos(1.3 * static_cast<double>(i)), INSERT_VALUES));
  CAMBER_CHECK_PETSC(VecAssemblyBegin(y.get()));
  CAMBER_CHECK_PETSC(VecAssemblyEnd(y.get()));
  BlockIluOptions opts;
  opts.blocks = 3;
  opts.ordering = IluOrdering::rcm;
  BlockIlu ilu(opts);
  VecHandle mx = apply_block_ilu(ilu, A.get(), x.get());
  VecHandle mty = apply_block_ilu_transpose(ilu, A.get(), y.get());
  PetscScalar left = 0.0, right = 0.0;
  CAMBER_CHECK_PETSC(VecDot(mx.get(), y.get(), &left));
  CAMBER_CHECK_PETSC(VecDot(x.get(), mty.get(), &right));
  PetscReal nx = 0.0, ny = 0.0, nmx = 0.0, nmty = 0.0;
  CAMBER_CHECK_PETSC(VecNorm(x.get(), NORM_2, &nx));
  CAMBER_CHECK_PETSC(VecNorm(y.get(), NORM_2, &ny));
  CAMBER_CHECK_PETSC(VecNorm(mx.get(), NORM_2, &nmx));
  CAMBER_CHECK_PETSC(VecNorm(mty.get(), NORM_2, &nmty));
  EXPECT_LT(std::abs(left - right), 1e-12 * std::max(nmx * ny, nx * nmty)) << left << " " << right;
  EXPECT_GT(std::abs(left), 1e-3 * nmx * ny);  // not a product that vanishes anyway
}

// In a Krylov solve, as a PCSHELL: GMRES converges to the solution in the
// iteration count of PETSc's block Jacobi + ILU(1) (the same preconditioner;
// at most one iteration apart from round-off), on every rank count; with
// two blocks per rank it still converges.
TEST(BlockIlu, PreconditionsGmresAsPetscsIluDoes) {
  const GridMatrix g{20, 18, 5};
  MatHandle A = make_matrix(MPI_COMM_WORLD, g, 0.5);
  VecHandle b = right_hand_side(A.get());
  const auto solve = [&](BlockIlu* ilu, PetscInt* iterations) {
    KspHandle ksp;
    CAMBER_CHECK_PETSC(KSPCreate(MPI_COMM_WORLD, ksp.out()));
    CAMBER_CHECK_PETSC(KSPSetOperators(ksp.get(), A.get(), A.get()));
    CAMBER_CHECK_PETSC(KSPSetType(ksp.get(), KSPGMRES));
    CAMBER_CHECK_PETSC(KSPSetTolerances(ksp.get(), 1e-10, 1e-50, PETSC_DEFAULT, 500));
    PC pc;
    CAMBER_CHECK_PETSC(KSPGetPC(ksp.get(), &pc));
    if (ilu) {
      ilu->attach(pc);
    } else {
      CAMBER_CHECK_PETSC(PCSetType(pc, PCBJACOBI));
      CAMBER_CHECK_PETSC(KSPSetUp(ksp.get()));
      PetscInt blocks = 0;
      KSP* sub = nullptr;
      CAMBER_CHECK_PETSC(PCBJacobiGetSubKSP(pc, &blocks, nullptr, &sub));
      PC subpc;
      CAMBER_CHECK_PETSC(KSPGetPC(sub[0], &subpc));
      CAMBER_CHECK_PETSC(PCSetType(subpc, PCILU));
      CAMBER_CHECK_PETSC(PCFactorSetLevels(subpc, 1));
      CAMBER_CHECK_PETSC(PCFactorSetMatOrderingType(subpc, MATORDERINGNATURAL));
    }
    VecHandle x;
    CAMBER_CHECK_PETSC(VecDuplicate(b.get(), x.out()));
    CAMBER_CHECK_PETSC(KSPSolve(ksp.get(), b.get(), x.get()));
    KSPConvergedReason reason;
    CAMBER_CHECK_PETSC(KSPGetConvergedReason(ksp.get(), &reason));
    EXPECT_GT(reason, 0);
    CAMBER_CHECK_PETSC(KSPGetIterationNumber(ksp.get(), iterations));
    EXPECT_LT(residual(A.get(), b.get(), x.get()), 1e-8);
  };
  PetscInt petsc_iterations = 0, ours_iterations = 0, two_block_iterations = 0;
  solve(nullptr, &petsc_iterations);
  BlockIluOptions opts;
  opts.blocks = 1;
  BlockIlu one(opts);
  solve(&one, &ours_iterations);
  EXPECT_LE(std::abs(ours_iterations - petsc_iterations), 1)
      << ours_iterations << " against PETSc's " << petsc_iterations;
  opts.blocks = 2;
  BlockIlu two(opts);
  solve(&two, &two_block_iterations);
  EXPECT_GE(two_block_iterations, ours_iterations);  // couplings dropped: no better
}

// A singular diagonal block with nothing to fill it: factor() says so, and
// a Krylov solve with the PCSHELL diverges with KSP_DIVERGED_PC_FAILED.
TEST(BlockIlu, ASingularPivotFailsTheSolveAsPetscsIluDoes) {
  MatHandle A;
  CAMBER_CHECK_PETSC(MatCreateBAIJ(PETSC_COMM_SELF, 2, 4, 4, 4, 4, 2, nullptr, 0, nullptr, A.out()));
  const PetscInt r0 = 0, r1 = 1;
  const double identity[4] = {1, 0, 0, 1}, singular[4] = {1, 2, 2, 4};
  CAMBER_CHECK_PETSC(MatSetValuesBlocked(A.get(), 1, &r0, 1, &r0, identity, INSERT_VALUES));
  CAMBER_CHECK_PETSC(MatSetValuesBlocked(A.get(), 1, &r1, 1, &r1, singular, INSERT_VALUES));
  CAMBER_CHECK_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  CAMBER_CHECK_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  BlockIlu ilu;
  EXPECT_FALSE(ilu.factor(A.get()));

  KspHandle ksp;
  CAMBER_CHECK_PETSC(KSPCreate(PETSC_COMM_SELF, ksp.out()));
  CAMBER_CHECK_PETSC(KSPSetOperators(ksp.get(), A.get(), A.get()));
  PC pc;
  CAMBER_CHECK_PETSC(KSPGetPC(ksp.get(), &pc));
  ilu.attach(pc);
  VecHandle b = right_hand_side(A.get()), x;
  CAMBER_CHECK_PETSC(VecDuplicate(b.get(), x.out()));
  CAMBER_CHECK_PETSC(KSPSolve(ksp.get(), b.get(), x.get()));
  KSPConvergedReason reason;
  CAMBER_CHECK_PETSC(KSPGetConvergedReason(ksp.get(), &reason));
  EXPECT_EQ(reason, KSP_DIVERGED_PC_FAILED);
}

// What it cannot take is an error naming it: a matrix not in block format,
// negative settings.
TEST(BlockIlu, RejectsWhatItCannotFactor) {
  MatHandle A;
  CAMBER_CHECK_PETSC(MatCreateSeqAIJ(PETSC_COMM_SELF, 3, 3, 1, nullptr, A.out()));
  for (PetscInt i = 0; i < 3; ++i) CAMBER_CHECK_PETSC(MatSetValue(A.get(), i, i, 1.0, INSERT_VALUES));
  CAMBER_CHECK_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
  CAMBER_CHECK_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));
  BlockIlu ilu;
  try {
    ilu.factor(A.get());
    ADD_FAILURE() << "an AIJ matrix was factored";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MATSEQBAIJ"), std::string::npos) << e.what();
  }
  BlockIluOptions bad;
  bad.levels = -1;
  EXPECT_THROW(BlockIlu{bad}, Error);
  bad.levels = 0;
  bad.blocks = -2;
  EXPECT_THROW(BlockIlu{bad}, Error);
}

}  // namespace
}  // namespace camber::solvers::petsc
