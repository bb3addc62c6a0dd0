// The linear algebra of one Adjoint (adjoint.hpp): the linearization at a
// state, the objectives' gradients dJ/dU and the solves with dR/dU and its
// transpose. Two implementations, as the steady solver's
// (newton_linear_system.hpp): PETSc's (the assembled exact Jacobian and
// KSP; petsc_adjoint_system.cpp) and the device path's (the reverse sweep
// of residual_transpose.hpp and camber's GMRES, no PETSc;
// device_adjoint_system.cpp).
#pragma once

#include <array>
#include <memory>
#include <vector>

#include <camber/core/config.hpp>
#include <camber/core/tensor.hpp>
#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/discretization.hpp>

namespace camber::solvers::euler::detail {

class AdjointSystem {
 public:
  virtual ~AdjointSystem() = default;
  // dR/dU and the wall load's partials at U (collective).
  virtual void linearize(Tensor& U) = 0;
  // d(w . G)/dU for each weight vector at the linearized state
  // ({n_local, n_vars}, owned rows; collective).
  virtual std::vector<Tensor> objective_gradients(
      const std::vector<std::array<double, 3>>& weights) = 0;
  struct Solve {
    int iterations = 0;
    bool converged = false;
    bool fell_back = false;
  };
  // (dR/dU) x = b, or (dR/dU)^T x = b when `transpose` (owned rows of
  // {n_local, n_vars} Tensors; collective).
  virtual Solve solve(const Tensor& b, Tensor& x, bool transpose) = 0;
#if CAMBER_WITH_PETSC
  // The PETSc path's assembled Jacobian, or null.
  virtual const ExactJacobian* jacobian() const { return nullptr; }
#endif
};

#if CAMBER_WITH_PETSC
std::unique_ptr<AdjointSystem> petsc_adjoint_system(
    const Discretization& disc, const AdjointOptions& options,
    std::shared_ptr<const ExactJacobian::Pattern> pattern);
#endif
// Refuses (camber::Error) what the device path does not do: the LU
// (AdjointOptions::direct) and the exact Jacobian's ILU as preconditioner.
std::unique_ptr<AdjointSystem> device_adjoint_system(const Discretization& disc,
                                                     const AdjointOptions& options);

}  // namespace camber::solvers::euler::detail
