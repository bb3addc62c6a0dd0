/// @file
/// PartitionedIlu: ILU(k) of a BlockSparseMatrix's rank-local rows, cut into
/// blocks by a graph partition, every block factored and applied by one
/// thread of the default execution space (a GPU's as well as the host's).
///
/// Block Jacobi inside the rank: the rank's rows (couplings to ghosts
/// dropped, as between PETSc's block-Jacobi blocks) are cut into `blocks`
/// blocks by METIS on the matrix's pattern (par::partition_graph, fixed
/// seed), couplings between blocks are dropped as well, and each block gets
/// the incomplete LU factorization with fill up to `levels` (levels of fill
/// as PETSc counts them: 0 is the matrix's own pattern, a fill entry's level
/// is one more than the sum of the two it comes from), its rows in
/// ascending order: the rows a block holds are consecutive in
/// the factor's layout, so one thread sweeps them in sequence and the
/// blocks run at the same time. The inverse of each diagonal block of U is
/// stored, so the backward sweep multiplies. With one block it is PETSc's
/// ILU(k) of the rank's rows in natural order (PCBJACOBI with sub_pc ilu),
/// up to round-off; with blocks of one row, point-block Jacobi.
///
/// The answer depends on `blocks` (as block Jacobi's depends on the rank
/// count), not on the threads that run them: a fixed count gives the same
/// bits on any backend and thread count.
///
/// @code
///   namespace lin = camber::solvers::linear;
///   lin::PartitionedIlu M(A, 64, 1); // ILU(1) in 64 blocks: pattern, partition, fill
///   M.factor();                      // A's current values; false: a zero pivot
///   gmres.solve(A, M, b, x, comm);
/// @endcode
#pragma once

#include <vector>

#include <camber/solvers/linear/block_sparse_matrix.hpp>

namespace camber::solvers::linear {

class PartitionedIlu final : public Preconditioner {
 public:
  /// The pattern of A (its values may change between factor() calls, its
  /// pattern may not) cut into `blocks` blocks (at least 1; at most the
  /// rows, one row each), and each block's fill up to `levels` (0 to 8).
  PartitionedIlu(const BlockSparseMatrix& A, int blocks, int levels = 0);

  /// Factors A's current values. False when a pivot block is singular or
  /// not finite on any rank (the factor is then unusable); collective.
  bool factor();
  void apply(ConstVector x, Vector y) const override;

  int blocks() const noexcept { return static_cast<int>(block_start_.extent(0)) - 1; }
  int levels() const noexcept { return levels_; }
  /// Blocks stored in the factor (the matrix's within the blocks, and fill).
  index_t factor_blocks() const noexcept { return static_cast<index_t>(col_.extent(0)); }
  /// The block of each owned row.
  const std::vector<int>& block_of_row() const noexcept { return block_of_row_; }

  /// The number of blocks the steady solver's device path uses for n rows
  /// on the default execution space: its concurrency, at most n / 16 (at
  /// least 1): one block per thread on a CPU, blocks of 16 rows on a GPU.
  static int default_blocks(index_t n_rows);

 private:
  const BlockSparseMatrix* A_;
  int bs_;
  int levels_;
  // The factor by rows in block order: row r of the factor is the matrix's
  // row perm_(r); its entries (columns in factor order, ascending) are
  // col_ and, bs^2 values each, values_; source_ is each entry's block in A
  // (-1: fill).
  Kokkos::View<index_t*> block_start_, perm_, row_ptr_, col_, diag_, source_;
  Kokkos::View<double*> values_;
  Kokkos::View<index_t*> marker_;  // n rows, -1 between rows (numeric factorization)
  mutable Kokkos::View<double*> work_;  // the sweeps' vector, factor order
  std::vector<int> block_of_row_;
};

}  // namespace camber::solvers::linear
