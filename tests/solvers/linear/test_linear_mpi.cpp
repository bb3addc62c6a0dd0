// solvers/linear: the block-sparse product against the matrix's definition,
// GMRES against exact solutions and the theory of Krylov spaces, the
// deterministic sums, and bad input (1, 2 and 4 ranks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/linear/block_sparse_matrix.hpp>
#include <camber/solvers/linear/gmres.hpp>
#include <camber/solvers/linear/partitioned_ilu.hpp>
#include "tests/solvers/linear/grid_system.hpp"

namespace lin = camber::solvers::linear;
using camber::index_t;
using camber::test::grid;
using camber::test::grid_field;
using camber::test::grid_matrix;
using camber::test::grid_product;

namespace {

lin::Vector from_host(const std::vector<double>& v) {
  lin::Vector d("v", v.size());
  const auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

std::vector<double> to_host(const lin::ConstVector& d) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  return std::vector<double>(h.data(), h.data() + h.extent(0));
}

// grid_field on the owned rows.
std::vector<double> owned_field(const camber::par::CellDistribution& dist, int bs) {
  std::vector<double> v(static_cast<size_t>(dist.n_owned() * bs));
  for (index_t i = 0; i < dist.n_owned(); ++i)
    for (int k = 0; k < bs; ++k) v[static_cast<size_t>(i * bs + k)] = grid_field(dist.global_id(i), k);
  return v;
}

double max_over_ranks(double v) {
  double g = 0.0;
  MPI_Allreduce(&v, &g, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return g;
}

}  // namespace

TEST(BlockSparseMatrix, ProductIsTheMatrixDefinitionForEveryBlockSize) {
  const auto& dist = grid().dist;
  for (int bs = 1; bs <= 5; ++bs) {
    const auto A = grid_matrix(dist, bs);
    const lin::Vector x = from_host(owned_field(dist, bs));
    lin::Vector y("y", static_cast<size_t>(A.local_size()));
    A.apply(x, y);
    const auto yh = to_host(y);
    double worst = 0.0;
    for (index_t i = 0; i < dist.n_owned(); ++i)
      for (int r = 0; r < bs; ++r)
        worst = std::max(worst, std::abs(yh[static_cast<size_t>(i * bs + r)] - grid_product(dist, i, r, bs)));
    // Sums of at most 25 products of O(1) numbers, in another order.
    EXPECT_LE(max_over_ranks(worst), 1e-13) << "block size " << bs;
  }
}

TEST(BlockSparseMatrix, RefusesAPatternWithoutItsDiagonalAndAWrongVector) {
  const auto& dist = grid().dist;
  std::vector<index_t> ptr(1, 0), cols;
  for (index_t i = 0; i < dist.n_owned(); ++i) {
    if (i != 0) cols.push_back(i);  // row 0 lacks its diagonal
    ptr.push_back(static_cast<index_t>(cols.size()));
  }
  try {
    lin::BlockSparseMatrix A(dist, 2, ptr, cols);
    ADD_FAILURE() << "no error";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 0 has no diagonal block"), std::string::npos) << e.what();
  }
  EXPECT_THROW(lin::BlockSparseMatrix(dist, 6, ptr, cols), camber::Error);
  const auto A = grid_matrix(dist, 2);
  lin::Vector small("x", 3), y("y", static_cast<size_t>(A.local_size()));
  EXPECT_THROW(A.apply(small, y), camber::Error);
}

TEST(LinearReductions, DotIsTheSumOfFixedChunksInOrder) {
  // 5,000 entries per rank: five chunks, the last one short.
  const int rank = camber::comm_rank(MPI_COMM_WORLD);
  std::vector<double> a(5000), b(5000);
  for (size_t e = 0; e < a.size(); ++e) {
    a[e] = std::sin(0.37 * static_cast<double>(e) + rank) * 1e3;
    b[e] = 1.0 / (1.0 + static_cast<double>(e) + 0.1 * rank);
  }
  double local = 0.0;
  for (size_t c = 0; c < a.size(); c += lin::reduction_chunk) {
    double s = 0.0;
    for (size_t e = c; e < std::min(a.size(), c + lin::reduction_chunk); ++e) s += a[e] * b[e];
    local += s;
  }
  double expected = 0.0;
  MPI_Allreduce(&local, &expected, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(lin::dot(from_host(a), from_host(b), MPI_COMM_WORLD), expected);  // bit for bit
  double three[3];
  lin::Basis V("V", a.size(), 3);
  const auto Vh = Kokkos::create_mirror_view(V);
  for (size_t e = 0; e < a.size(); ++e) {
    Vh(e, 0) = a[e];
    Vh(e, 1) = b[e];
    Vh(e, 2) = -a[e];
  }
  Kokkos::deep_copy(V, Vh);
  lin::dots(V, 3, from_host(b), MPI_COMM_WORLD, three);
  EXPECT_EQ(three[0], expected);
  EXPECT_EQ(three[2], -expected);
}

// For each side, each block size: x* = grid_field, b = A x* from the
// definition; GMRES(30) with point-block Jacobi to 1e-12.
TEST(Gmres, SolvesTheGridSystemToItsExactSolution) {
  const auto& dist = grid().dist;
  for (const auto side : {lin::PreconditionerSide::left, lin::PreconditionerSide::right})
    for (int bs : {1, 4, 5}) {
      auto A = grid_matrix(dist, bs);
      lin::PointBlockJacobi M(A);
      ASSERT_TRUE(M.factor());
      std::vector<double> bh(static_cast<size_t>(A.local_size()));
      for (index_t i = 0; i < dist.n_owned(); ++i)
        for (int r = 0; r < bs; ++r) bh[static_cast<size_t>(i * bs + r)] = grid_product(dist, i, r, bs);
      const lin::Vector b = from_host(bh);
      lin::Vector x("x", static_cast<size_t>(A.local_size()));
      lin::GmresOptions o;
      o.rel_tolerance = 1e-12;
      o.side = side;
      lin::GmresSolver gmres(A.local_size(), o);
      const auto r = gmres.solve(A, M, b, x, MPI_COMM_WORLD);
      const std::string what = std::string(side == lin::PreconditionerSide::left ? "left" : "right") +
                               ", block size " + std::to_string(bs);
      EXPECT_EQ(r.reason, lin::GmresReason::converged_relative) << what << ": " << lin::to_string(r.reason);
      EXPECT_LE(r.residual_norm, 1e-12 * r.initial_residual_norm) << what;
      EXPECT_GT(r.iterations, 10) << what;  // not trivially solved
      EXPECT_EQ(static_cast<size_t>(r.iterations) + 1, gmres.history().size()) << what;
      const auto xh = to_host(x);
      const auto exact = owned_field(dist, bs);
      double worst = 0.0;
      for (size_t e = 0; e < xh.size(); ++e) worst = std::max(worst, std::abs(xh[e] - exact[e]));
      // The error is below the condition number (about 10 here) times the
      // residual's 1e-12 relative drop.
      EXPECT_LE(max_over_ranks(worst), 1e-10) << what;
      // The true residual agrees with the one GMRES read from its rotations.
      lin::Vector ax("ax", static_cast<size_t>(A.local_size()));
      A.apply(x, ax);
      lin::axpy(-1.0, b, ax);
      if (side == lin::PreconditionerSide::right) {
        EXPECT_LE(lin::norm2(ax, MPI_COMM_WORLD), 1e-11 * lin::norm2(b, MPI_COMM_WORLD)) << what;
      }
    }
}

// A diagonal matrix with k distinct eigenvalues: the Krylov space of any
// vector has dimension at most k, so unpreconditioned GMRES reaches the
// exact solution at step k and not before (the residual after j < k steps
// is min over polynomials of degree j with p(0) = 1 of ||p(A) r0||, not 0).
TEST(Gmres, ConvergesInAsManyStepsAsTheMatrixHasDistinctEigenvalues) {
  const auto& dist = grid().dist;
  const double eigenvalues[] = {1.0, 2.0, 3.5, 5.0, 8.0, 13.0};
  for (int k : {3, 6}) {
    std::vector<index_t> ptr(1, 0), cols;
    for (index_t i = 0; i < dist.n_owned(); ++i) {
      cols.push_back(i);
      ptr.push_back(static_cast<index_t>(cols.size()));
    }
    lin::BlockSparseMatrix A(dist, 2, ptr, cols);
    const auto v = Kokkos::create_mirror_view(A.values());
    for (index_t i = 0; i < dist.n_owned(); ++i) {
      const auto g = dist.global_id(i);
      v(static_cast<size_t>(4 * i)) = eigenvalues[g % k];
      v(static_cast<size_t>(4 * i + 1)) = 0.0;
      v(static_cast<size_t>(4 * i + 2)) = 0.0;
      v(static_cast<size_t>(4 * i + 3)) = eigenvalues[(g + 1) % k];
    }
    Kokkos::deep_copy(A.values(), v);
    const lin::Vector b = from_host(owned_field(dist, 2));
    lin::Vector x("x", static_cast<size_t>(A.local_size()));
    lin::GmresOptions o;
    o.rel_tolerance = 1e-10;
    lin::GmresSolver gmres(A.local_size(), o);
    const auto r = gmres.solve(A, lin::IdentityPreconditioner{}, b, x, MPI_COMM_WORLD);
    EXPECT_TRUE(r.converged()) << lin::to_string(r.reason);
    EXPECT_EQ(r.iterations, k);
    for (int j = 1; j < k; ++j) EXPECT_GT(gmres.history()[static_cast<size_t>(j)], 1e-6 * r.initial_residual_norm);
  }
}

TEST(Gmres, CountsEveryArnoldiStepAcrossRestartsAndStopsAtTheLimit) {
  const auto& dist = grid().dist;
  auto A = grid_matrix(dist, 3);
  const lin::Vector b = from_host(owned_field(dist, 3));
  lin::Vector x("x", static_cast<size_t>(A.local_size()));
  lin::GmresOptions o;
  o.restart = 5;
  o.max_iterations = 12;
  o.rel_tolerance = 1e-14;
  lin::GmresSolver gmres(A.local_size(), o);
  const auto r = gmres.solve(A, lin::IdentityPreconditioner{}, b, x, MPI_COMM_WORLD);
  EXPECT_EQ(r.reason, lin::GmresReason::diverged_iterations);
  EXPECT_EQ(r.iterations, 12);
  ASSERT_EQ(gmres.history().size(), 13u);  // the initial norm and 12 steps
  // GMRES never increases the residual, across restarts too.
  for (size_t j = 1; j < 13; ++j) EXPECT_LE(gmres.history()[j], gmres.history()[j - 1] * (1 + 1e-12)) << j;
  // The solution formed at the end of the last (short) cycle has the
  // residual the rotations gave.
  lin::Vector res("r", static_cast<size_t>(A.local_size()));
  A.apply(x, res);
  lin::axpy(-1.0, b, res);
  EXPECT_NEAR(lin::norm2(res, MPI_COMM_WORLD), r.residual_norm, 1e-10 * r.initial_residual_norm);
  EXPECT_LT(r.residual_norm, 0.9 * r.initial_residual_norm);
}

TEST(Gmres, ANonFiniteRightHandSideStopsEveryRank) {
  const auto& dist = grid().dist;
  auto A = grid_matrix(dist, 2);
  auto bh = owned_field(dist, 2);
  if (camber::comm_rank(MPI_COMM_WORLD) == camber::comm_size(MPI_COMM_WORLD) - 1)
    bh[0] = std::numeric_limits<double>::quiet_NaN();
  lin::Vector x("x", static_cast<size_t>(A.local_size()));
  lin::GmresSolver gmres(A.local_size());
  const auto r = gmres.solve(A, lin::IdentityPreconditioner{}, from_host(bh), x, MPI_COMM_WORLD);
  EXPECT_EQ(r.reason, lin::GmresReason::diverged_not_finite);
  EXPECT_EQ(r.iterations, 0);
}

TEST(PointBlockJacobi, ASingularBlockOnOneRankFailsOnEveryRank) {
  const auto& dist = grid().dist;
  auto A = grid_matrix(dist, 3);
  lin::PointBlockJacobi M(A);
  EXPECT_TRUE(M.factor());
  // Rank 0's first diagonal block made singular (rows 1 1 1, 2 2 2, 2 2 2).
  if (camber::comm_rank(MPI_COMM_WORLD) == 0 && dist.n_owned() > 0) {
    const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
    const auto d = A.block_index(0, 0);
    for (int e = 0; e < 9; ++e) v(static_cast<size_t>(d * 9 + e)) = e % 3 == 0 ? 1.0 : 2.0;
    Kokkos::deep_copy(A.values(), v);
  }
  EXPECT_FALSE(M.factor());
}

TEST(PointBlockJacobi, AppliesTheInverseOfEachDiagonalBlock) {
  const auto& dist = grid().dist;
  for (int bs = 1; bs <= 5; ++bs) {
    auto A = grid_matrix(dist, bs);
    lin::PointBlockJacobi M(A);
    ASSERT_TRUE(M.factor());
    const auto x = owned_field(dist, bs);
    lin::Vector y("y", x.size());
    M.apply(from_host(x), y);
    const auto yh = to_host(y);
    // D y = x, row by row, from the definition of the diagonal blocks.
    double worst = 0.0;
    for (index_t i = 0; i < dist.n_owned(); ++i) {
      const auto g = dist.global_id(i);
      for (int r = 0; r < bs; ++r) {
        double s = 0.0;
        for (int c = 0; c < bs; ++c) s += camber::test::grid_entry(g, g, r, c, bs) * yh[static_cast<size_t>(i * bs + c)];
        worst = std::max(worst, std::abs(s - x[static_cast<size_t>(i * bs + r)]));
      }
    }
    EXPECT_LE(max_over_ranks(worst), 1e-14) << "block size " << bs;
  }
}

namespace {

// A chain of n cells on this rank alone (MPI_COMM_SELF): every block row
// couples a cell to its two neighbours, so ILU(0) in natural order has no
// fill to drop and is the exact LU factorization of each block.
struct Chain {
  explicit Chain(std::int64_t n)
      : graph(camber::test::grid_graph(n, 1)),
        dist(MPI_COMM_SELF, graph.xadj, graph.adjncy, std::vector<int>(static_cast<size_t>(n), 0)) {}
  camber::test::CsrGraph graph;
  camber::par::CellDistribution dist;
};

}  // namespace

// One block: A y = x exactly (the LU of a block-tridiagonal matrix has no
// fill); k blocks: each block's rows solved exactly with the couplings
// between blocks dropped, i.e. A_bd y = x with A_bd A's block diagonal.
TEST(PartitionedIlu, IsTheExactSolveOfEachBlockWhenThePatternHasNoFill) {
  const Chain chain(300);
  for (int bs : {1, 3, 5})
    for (int blocks : {1, 4}) {
      auto A = grid_matrix(chain.dist, bs);
      lin::PartitionedIlu M(A, blocks);
      ASSERT_EQ(M.blocks(), blocks);
      ASSERT_TRUE(M.factor());
      const auto x = owned_field(chain.dist, bs);
      lin::Vector y("y", x.size());
      M.apply(from_host(x), y);
      const auto yh = to_host(y);
      const auto& part = M.block_of_row();
      double worst = 0.0;
      for (index_t i = 0; i < chain.dist.n_owned(); ++i)
        for (int r = 0; r < bs; ++r) {
          double s = 0.0;
          for (index_t j = std::max<index_t>(0, i - 1); j <= std::min<index_t>(299, i + 1); ++j) {
            if (part[static_cast<size_t>(j)] != part[static_cast<size_t>(i)]) continue;
            for (int c = 0; c < bs; ++c)
              s += camber::test::grid_entry(i, j, r, c, bs) * yh[static_cast<size_t>(j * bs + c)];
          }
          worst = std::max(worst, std::abs(s - x[static_cast<size_t>(i * bs + r)]));
        }
      EXPECT_LE(worst, 1e-12) << "block size " << bs << ", " << blocks << " blocks";
      // METIS cuts a chain into segments: at least one coupling dropped.
      if (blocks > 1) {
        EXPECT_NE(part.front(), part.back());
      }
    }
}

// Blocks of one row each hold only their diagonal block: point-block Jacobi.
TEST(PartitionedIlu, BlocksOfOneRowArePointBlockJacobi) {
  const auto& dist = grid().dist;
  auto A = grid_matrix(dist, 4);
  lin::PartitionedIlu M(A, static_cast<int>(std::max<index_t>(1, dist.n_owned())));
  lin::PointBlockJacobi J(A);
  ASSERT_TRUE(M.factor());
  ASSERT_TRUE(J.factor());
  const lin::Vector x = from_host(owned_field(dist, 4));
  lin::Vector a("a", x.extent(0)), b("b", x.extent(0));
  M.apply(x, a);
  J.apply(x, b);
  const auto ah = to_host(a), bh = to_host(b);
  double worst = 0.0;
  for (size_t e = 0; e < ah.size(); ++e) worst = std::max(worst, std::abs(ah[e] - bh[e]));
  EXPECT_LE(max_over_ranks(worst), 1e-14);
}

// Stronger than point-block Jacobi, weaker as the blocks shrink, stronger
// with a level of fill: GMRES iterations on the grid system (left
// preconditioning, 1e-10).
TEST(PartitionedIlu, GmresNeedsFewerIterationsThanWithPointBlockJacobi) {
  const auto& dist = grid().dist;
  auto A = grid_matrix(dist, 4);
  const lin::Vector b = from_host(owned_field(dist, 4));
  lin::GmresOptions o;
  o.rel_tolerance = 1e-10;
  lin::GmresSolver gmres(A.local_size(), o);
  lin::Vector x("x", b.extent(0));
  lin::PointBlockJacobi J(A);
  ASSERT_TRUE(J.factor());
  const int jacobi = gmres.solve(A, J, b, x, MPI_COMM_WORLD).iterations;
  int previous = 0;
  for (int blocks : {64, 1}) {
    lin::PartitionedIlu M(A, blocks);
    ASSERT_TRUE(M.factor());
    const auto r = gmres.solve(A, M, b, x, MPI_COMM_WORLD);
    EXPECT_TRUE(r.converged()) << blocks << " blocks";
    EXPECT_LT(r.iterations, jacobi) << blocks << " blocks";
    if (previous > 0) {
      EXPECT_LE(r.iterations, previous) << blocks << " blocks";
    }
    previous = r.iterations;
    if (camber::comm_rank(MPI_COMM_WORLD) == 0)
      std::printf("[linear] GMRES iterations: point-block Jacobi %d, ILU(0) in %d blocks %d\n", jacobi,
                  blocks, r.iterations);
  }
  lin::PartitionedIlu M1(A, 1, 1);
  ASSERT_TRUE(M1.factor());
  lin::PartitionedIlu M0(A, 1, 0);
  // The grid couples each cell to four neighbours: ILU(1) fills in.
  EXPECT_GT(M1.factor_blocks(), M0.factor_blocks());
  const auto r1 = gmres.solve(A, M1, b, x, MPI_COMM_WORLD);
  EXPECT_TRUE(r1.converged());
  EXPECT_LT(r1.iterations, previous);
  if (camber::comm_rank(MPI_COMM_WORLD) == 0)
    std::printf("[linear] ILU(1) in 1 block: %d GMRES iterations\n", r1.iterations);
  EXPECT_THROW(lin::PartitionedIlu(A, 1, 9), camber::Error);

  // The basis grows with the iterations, in chunks, never past restart + 1:
  // a long restart that converges early holds one chunk.
  lin::GmresOptions long_restart;
  long_restart.restart = 200;
  long_restart.rel_tolerance = 1e-10;
  lin::GmresSolver lazy(A.local_size(), long_restart);
  EXPECT_EQ(lazy.allocated_columns(), 0);
  const auto r2 = lazy.solve(A, M1, b, x, MPI_COMM_WORLD);
  EXPECT_EQ(r2.iterations, r1.iterations);
  EXPECT_LT(r2.iterations + 1, lin::GmresSolver::basis_chunk);
  EXPECT_EQ(lazy.allocated_columns(), lin::GmresSolver::basis_chunk);
  lin::GmresOptions short_restart;
  short_restart.restart = 5;
  short_restart.rel_tolerance = 1e-10;
  lin::GmresSolver small(A.local_size(), short_restart);
  EXPECT_TRUE(small.solve(A, M1, b, x, MPI_COMM_WORLD).converged());
  EXPECT_EQ(small.allocated_columns(), 6);
}

TEST(PartitionedIlu, ASingularPivotOnOneRankFailsOnEveryRank) {
  const auto& dist = grid().dist;
  auto A = grid_matrix(dist, 2);
  lin::PartitionedIlu M(A, 3);
  EXPECT_TRUE(M.factor());
  if (camber::comm_rank(MPI_COMM_WORLD) == 0 && dist.n_owned() > 0) {
    const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A.values());
    const auto d = A.block_index(0, 0);
    for (int e = 0; e < 4; ++e) v(static_cast<size_t>(d * 4 + e)) = std::numeric_limits<double>::quiet_NaN();
    Kokkos::deep_copy(A.values(), v);
  }
  EXPECT_FALSE(M.factor());
  EXPECT_THROW(lin::PartitionedIlu(A, 0), camber::Error);
}
