/// @file
/// BlockIlu: incomplete LU factorization of a block sparse (BAIJ) matrix,
/// its rows cut into blocks that are factored and applied at the same time
/// on the host execution space's threads.
///
/// PETSc's ILU runs on one thread per rank whatever Kokkos runs on. BlockIlu
/// is block Jacobi inside the rank: the rank's rows (the rank-local diagonal
/// part of the matrix, as PETSc's PCBJACOBI takes it) are cut into `blocks`
/// blocks by a graph partition of the matrix's pattern (METIS through
/// par::partition_graph, fixed seed), couplings between blocks are dropped,
/// and each block gets ILU(levels) of its own, in natural (the rows'
/// ascending) or reverse Cuthill-McKee order (PETSc's, MatGetOrdering on
/// the block's pattern, so that one block is the factor PETSc's ILU
/// computes in that order). A block is to a thread what a
/// rank's subdomain is to a rank. One block is ILU(levels) of the rank's
/// rows, as PETSc computes it.
///
/// The factors are kept by block row in the matrix's own block layout
/// (column-major bs x bs blocks); the inverse of each diagonal block is
/// stored, so the backward sweep multiplies instead of solving.
///
/// @code
///   camber::solvers::petsc::BlockIluOptions opts;  // ILU(1), one block per thread
///   camber::solvers::petsc::BlockIlu ilu(opts);
///   ilu.attach(pc);  // pc becomes a PCSHELL that factors its Pmat in PCSetUp
///   KSPSolve(ksp, b, x);
/// @endcode
///
/// The answer depends on `blocks` (as block Jacobi's depends on the rank
/// count), not on the number of threads that run them: a fixed `blocks`
/// gives the same bits on 1 or many threads (on one machine: METIS's
/// partition is deterministic for a fixed seed).
#pragma once

#include <petscksp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace camber::solvers::petsc {

enum class IluOrdering { natural, rcm };

struct BlockIluOptions {
  int levels = 1;  ///< fill kept up to this level (0: the matrix's own pattern)
  int blocks = 0;  ///< blocks per rank; 0: the host execution space's concurrency
  IluOrdering ordering = IluOrdering::natural;
};

class BlockIlu {
 public:
  explicit BlockIlu(BlockIluOptions options = {});

  /// Factors the rank-local diagonal part of A (MATSEQBAIJ, or MATMPIBAIJ's
  /// diagonal part; block size 1 to 5). The pattern is analysed on the first
  /// call and again when A is another matrix or its nonzero pattern changed;
  /// the values are factored every call. Returns false (and keeps no usable
  /// factor) when a diagonal block is singular; throws camber::Error for a
  /// matrix it cannot take.
  bool factor(Mat A);

  /// y = (LU)^-1 x on this rank's rows; x and y hold the local size and do
  /// not alias. One apply at a time per object.
  void apply(const double* x, double* y) const;
  /// y = (LU)^-T x, the same way (what a transposed solve, an adjoint,
  /// needs: KSPSolveTranspose calls it through attach()).
  void apply_transpose(const double* x, double* y) const;

  /// Makes pc a PCSHELL whose set-up factors its preconditioning matrix and
  /// whose apply is apply() (apply_transpose() transposed); a singular pivot is PETSc's
  /// PC_FACTOR_NUMERIC_ZEROPIVOT (the solve then diverges with
  /// KSP_DIVERGED_PC_FAILED, as with PETSc's own ILU). This object must
  /// outlive pc's use of it.
  void attach(PC pc);

  const BlockIluOptions& options() const { return options_; }
  int blocks() const { return static_cast<int>(parts_.size()); }
  /// The block of each local row (after the first factor()).
  const std::vector<int>& block_of_row() const { return block_of_row_; }
  int block_size() const { return bs_; }
  /// bs x bs entries stored in the factors of all blocks.
  std::size_t factor_blocks() const;

  struct Part {
    std::int64_t n = 0;                // rows in the block
    std::vector<std::int64_t> perm;    // position -> local row
    // Entries: rows' strictly lower parts in row order ([lptr[i], lptr[i + 1])),
    // then rows' diagonal and upper parts in reverse row order ([ubegin[i],
    // uend[i]), the diagonal first); columns are positions, ascending.
    std::vector<std::int64_t> lptr, ubegin, uend;
    std::vector<std::int64_t> col;
    std::vector<std::int64_t> source;  // the matrix's block entry, or -1 (fill)
    std::vector<double> value;         // bs * bs per entry; diagonal: inverse of U's
    mutable std::vector<double> work;  // bs * n, the sweeps' vector
    std::vector<std::int64_t> marker;  // n, -1 between rows (numeric factorization)
  };

 private:
  void analyse(const std::int64_t* ia, const std::int64_t* ja, std::int64_t n);

  BlockIluOptions options_;
  int bs_ = 0;
  std::int64_t n_ = 0;
  std::int64_t matrix_id_ = -1;
  std::int64_t nonzero_state_ = -1;
  std::vector<Part> parts_;
  std::vector<int> block_of_row_;
};

/// The BlockIlu that PETSc's options for a block-Jacobi ILU name:
/// -PREFIXsub_pc_factor_levels (0 when not given, as PETSc's) and
/// -PREFIXsub_pc_factor_mat_ordering_type (natural or rcm), with `blocks`
/// blocks per rank; so that one setting serves PETSc's path and this one.
/// Null when the options ask for what BlockIlu does not do (a
/// -PREFIXsub_pc_type other than ilu, another ordering): the caller then
/// runs PETSc's block Jacobi, which does it.
std::unique_ptr<BlockIlu> block_ilu_from_options(const std::string& prefix, int blocks);

}  // namespace camber::solvers::petsc
