// The device path's operators on solvers/linear's vectors (no PETSc): the
// first-order matrix assembled by a kernel, the exact second-order Newton
// operator matrix-free, and its transpose by the reverse sweep
// (residual_transpose.hpp). Shared by the steady solver's linear system
// (device_newton_system.cpp) and the adjoint's (device_adjoint_system.cpp).
#pragma once

#include <Kokkos_Core.hpp>

#include <camber/core/tensor.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/linear/block_sparse_matrix.hpp>
#include <camber/solvers/linear/linear_operator.hpp>

#include "residual_transpose.hpp"

namespace camber::solvers::euler::detail {

// The first-order matrix on disc's mesh: owned row i holds i and its face
// neighbours (owned or ghost), each block the exact first-order Jacobian's
// (DiscretizationKernels::face_jacobians), plus a shift on the diagonal;
// or its transpose (the same pattern: face neighbours are mutual).
// Assembled in place by one kernel, one thread per row adding its faces in
// face order (no atomics; the same bits on any thread count).
class DeviceFirstOrderMatrix {
 public:
  explicit DeviceFirstOrderMatrix(const Discretization& disc);
  // A = diag(shift_c) + the face blocks (shift: {n_owned}, or empty for
  // none), or A^T when `transpose`. Collective: none (rank-local rows).
  void assemble(const Tensor& face_blocks, const Kokkos::View<const double*>& shift, bool transpose);
  const linear::BlockSparseMatrix& matrix() const noexcept { return A_; }

 private:
  int nv_;
  linear::BlockSparseMatrix A_;
  // Each owned row's faces, in face order: the face, the side the row's
  // cell is on (0 left, 1 right), and the row's block for the cell across
  // (-1 on a boundary face).
  Kokkos::View<index_t*> row_faces_ptr_, row_face_, row_face_side_, row_face_other_;
};

// y = diag(shift_c) x + (dR/dU) x at *state, matrix-free (one Dual
// residual evaluation per product); no shift until set() gives one.
class MatrixFreeNewton final : public linear::LinearOperator {
 public:
  MatrixFreeNewton(const Discretization& disc, Tensor& state);
  void set(const Discretization& active, const Kokkos::View<double*>& shift);
  index_t local_size() const override { return disc_->n_owned() * disc_->n_vars(); }
  void apply(linear::ConstVector x, linear::Vector y) const override;

 private:
  const Discretization* disc_;
  Tensor* state_;
  mutable Tensor direction_, residual_, tangent_;
  Kokkos::View<double*> shift_;
};

// y = (dR/dU)^T x at the transpose's linearization, matrix-free.
class MatrixFreeTranspose final : public linear::LinearOperator {
 public:
  explicit MatrixFreeTranspose(const ResidualTranspose& transpose, const Discretization& disc);
  index_t local_size() const override { return n_; }
  void apply(linear::ConstVector x, linear::Vector y) const override;

 private:
  const ResidualTranspose* transpose_;
  index_t n_;
  mutable Tensor in_, out_;
};

}  // namespace camber::solvers::euler::detail
