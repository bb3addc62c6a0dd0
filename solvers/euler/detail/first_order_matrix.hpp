// The first-order Jacobian of the Euler residual as a PETSc block matrix:
// one n_vars x n_vars block per owned cell and per face neighbour, from the
// face blocks dF/dU_L, dF/dU_R (DiscretizationKernels::face_jacobians), plus a
// diagonal shift per owned cell (the pseudo-time term lambda / CFL). What
// the steady solver's Newton steps use (as operator or preconditioner) and
// what preconditions the adjoint's transposed solve on request.
#pragma once

#include <petscmat.h>

#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>

namespace camber::solvers::euler::detail {

class FirstOrderMatrix {
 public:
  // The preallocated matrix for disc's mesh (collective).
  explicit FirstOrderMatrix(const Discretization& disc);
  // A = diag(shift[c]) + dR/dU of the first-order residual, from J =
  // DiscretizationKernels::face_jacobians(disc, U) ({n_faces, nv, 2 nv});
  // `shift` has one value per owned cell, or none (zero). Collective.
  void assemble(const Tensor& face_blocks, const std::vector<double>& shift);
  Mat matrix() const noexcept { return matrix_.get(); }

 private:
  const Discretization* disc_;
  std::vector<PetscInt> block_;  // PETSc block of every local cell
  petsc::MatHandle matrix_;
};

}  // namespace camber::solvers::euler::detail
