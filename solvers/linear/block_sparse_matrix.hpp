/// @file
/// BlockSparseMatrix: a distributed block-sparse matrix (square bs x bs
/// blocks, bs 1 to 5) in the default execution space's memory, its product
/// with a vector, and PointBlockJacobi, the inverse of its diagonal blocks.
///
/// Rows are a CellDistribution's owned cells, columns its local cells
/// (owned, then ghosts), as a finite-volume Jacobian couples a cell to its
/// neighbours: block (i, j) couples the bs unknowns of owned cell i with
/// those of local cell j. The values are kept block by block in row order,
/// each block column-major (entry (r, c) of block b at b bs^2 + c bs + r),
/// the layout of PETSc's BAIJ, so that a kernel that fills one fills the
/// other. multiply() fetches the ghost values of x by a halo exchange
/// (collective) and computes each row on one thread, the row's blocks in
/// column order: the bits do not depend on the number of threads.
///
/// @code
///   namespace lin = camber::solvers::linear;
///   lin::BlockSparseMatrix A(dist, 4, row_ptr, columns);  // pattern, local ids
///   auto v = A.values();              // fill, e.g. a Jacobian assembly
///   lin::PointBlockJacobi M(A);
///   M.factor();                       // false: a singular diagonal block
///   A.apply(x, y);                    // y = A x (collective)
/// @endcode
#pragma once

#include <cstdint>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/parallel/cell_distribution.hpp>
#include <camber/parallel/halo_exchange.hpp>
#include <camber/solvers/linear/linear_operator.hpp>

namespace camber::solvers::linear {

class BlockSparseMatrix final : public LinearOperator {
 public:
  using IndexView = Kokkos::View<index_t*>;

  /// The pattern: row i's blocks are columns[row_ptr[i] .. row_ptr[i + 1]),
  /// local cell ids, ascending and distinct, each row holding its diagonal
  /// block; row_ptr has n_owned + 1 entries. Throws camber::Error naming the
  /// row for a pattern that breaks this. Values start at zero.
  BlockSparseMatrix(const par::CellDistribution& dist, int block_size,
                    const std::vector<index_t>& row_ptr, const std::vector<index_t>& columns);

  int block_size() const noexcept { return bs_; }
  index_t n_rows() const noexcept { return n_rows_; }
  index_t n_blocks() const noexcept { return static_cast<index_t>(columns_.extent(0)); }
  /// Unknowns per rank: n_rows * block_size.
  index_t local_size() const override { return n_rows_ * bs_; }
  MPI_Comm comm() const noexcept { return comm_; }

  const IndexView& row_ptr() const noexcept { return row_ptr_; }
  const IndexView& columns() const noexcept { return columns_; }
  /// Each row's diagonal block (an index into columns()).
  const IndexView& diagonal() const noexcept { return diagonal_; }
  /// n_blocks * bs^2 values, column-major blocks; writable.
  const Kokkos::View<double*>& values() const noexcept { return values_; }
  /// The block of (row, local column), or -1 where the pattern has none
  /// (host lookup, for assembly on the host and tests).
  index_t block_index(index_t row, index_t column) const;

  /// y = A x over the owned rows (x's ghost values by a halo exchange).
  void apply(ConstVector x, Vector y) const override;

 private:
  int bs_ = 0;
  index_t n_rows_ = 0;
  MPI_Comm comm_ = MPI_COMM_NULL;
  IndexView row_ptr_, columns_, diagonal_;
  std::vector<index_t> row_ptr_host_, columns_host_;
  Kokkos::View<double*> values_;
  mutable par::HaloExchange halo_;
  mutable Tensor ghosted_;  // {n_local, bs}: x with its ghost rows
};

/// y = D^-1 x with D the matrix's diagonal blocks (point-block Jacobi):
/// every row on its own thread, so as fast on a GPU as on threads.
class PointBlockJacobi final : public Preconditioner {
 public:
  explicit PointBlockJacobi(const BlockSparseMatrix& A);
  /// Inverts the diagonal blocks of A's current values (Gauss-Jordan with
  /// partial pivoting). False, and no usable inverse, when a block on any
  /// rank is singular (a zero pivot) or holds a value that is not finite;
  /// collective.
  bool factor();
  void apply(ConstVector x, Vector y) const override;

 private:
  const BlockSparseMatrix* A_;
  Kokkos::View<double*> inverse_;  // n_rows * bs^2, column-major blocks
};

}  // namespace camber::solvers::linear
