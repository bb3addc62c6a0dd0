// The linear system of one pseudo-transient Newton step (the steady
// solver's, pseudo_transient_newton.cpp): A dU = -R with A = diag(lambda_c /
// CFL) + dR/dU as SteadyOptions say (the first-order matrix, or the exact
// second-order operator matrix-free or assembled, and what preconditions
// it), built at U and solved. Two implementations: PETSc's (KSP, block
// Jacobi with ILU or camber's BlockIlu; petsc_newton_system.cpp) and the
// device path's (solvers/linear: GMRES and ILU(1) in blocks on Kokkos
// views, no PETSc; device_newton_system.cpp).
#pragma once

#include <memory>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>

namespace camber::solvers::euler::detail {

struct LinearStep {
  int iterations = 0;      // Krylov iterations
  bool converged = true;   // the Krylov solver met its tolerance
};

class NewtonLinearSystem {
 public:
  virtual ~NewtonLinearSystem() = default;
  // Builds A for `active` (disc, or its frozen-limiter copy) at U with
  // shift[c] = lambda_c / CFL per owned cell, and solves A dU = minus_R on
  // the owned rows (dU zero on entry). `step` is the Newton step, `attempt`
  // the retry of that step (a rejected step retries at a smaller CFL
  // number, same state). Collective.
  virtual LinearStep solve(const Discretization& active, Tensor& U, const std::vector<double>& shift,
                           int step, int attempt, Tensor& minus_R, Tensor& dU) = 0;
};

// Order 2 with the exact Newton operator (no defect correction): whether it
// is applied matrix-free (SteadyOptions::newton_operator; automatic: on 3-D
// meshes).
inline bool uses_matrix_free_operator(const SteadyOptions& options, const Discretization& disc) {
  return options.newton_operator == SteadyOptions::NewtonOperator::matrix_free ||
         (options.newton_operator == SteadyOptions::NewtonOperator::automatic && disc.dim() == 3);
}

// The levels of fill of the first-order matrix's ILU on either path (PETSc's
// -PREFIXsub_pc_factor_levels default; PETSc's options override it there).
inline constexpr int first_order_ilu_levels = 1;

// GMRES's restart length: krylov_restart, or 200 with the exact second-order
// operator and 60 otherwise.
inline int krylov_restart(const SteadyOptions& options, bool exact_operator) {
  return options.krylov_restart > 0 ? options.krylov_restart : exact_operator ? 200 : 60;
}

// PETSc's KSP (needs a live PetscSession).
std::unique_ptr<NewtonLinearSystem> petsc_newton_system(const Discretization& disc, Tensor& U,
                                                        const SteadyOptions& options);
// Refuses (camber::Error, bad input, naming the deck keys) what the device
// path does not do: at second order the assembled operator and the
// second-order preconditioner.
void check_linear_solver(const Discretization& disc, const SteadyOptions& options);
// Camber's GMRES on Kokkos views (solvers/linear).
std::unique_ptr<NewtonLinearSystem> device_newton_system(const Discretization& disc, Tensor& U,
                                                         const SteadyOptions& options);

}  // namespace camber::solvers::euler::detail
