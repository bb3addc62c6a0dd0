// The PETSc implementation of a Newton step's linear system
// (newton_linear_system.hpp): GMRES from PETSc's KSP, preconditioned by
// block Jacobi with ILU (PETSc's, or camber's threaded BlockIlu), over the
// first-order matrix, the matrix-free exact operator or the assembled exact
// second-order Jacobian (pseudo_transient_newton.hpp says which when).
#include "newton_linear_system.hpp"

#include <petscksp.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <camber/solvers/euler/exact_jacobian.hpp>
#include <camber/solvers/petsc/block_ilu.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

#include "discretization_kernels.hpp"
#include "first_order_matrix.hpp"

namespace camber::solvers::euler::detail {

namespace {

// The exact Newton operator of a second-order residual, matrix-free:
// y = diag(lambda_i / CFL) x + (dR/dU) x, with (dR/dU) x from one Dual
// evaluation of the residual at *state (Discretization::residual_and_tangent).
// PETSc's vectors hold the owned rows only; the tangent needs ghost rows, so
// x is copied into a {n_local, 4} Tensor whose ghost rows the tangent fills
// by a halo exchange.
struct NewtonShell {
  const Discretization* disc = nullptr;
  Tensor* state = nullptr;
  std::vector<double> diagonal;  // lambda_i / CFL, per owned cell
  Tensor direction, residual, tangent;
  std::exception_ptr error;  // a C++ exception cannot cross PETSc's C frames
};

PetscErrorCode newton_shell_mult(Mat M, Vec x, Vec y) {
  NewtonShell* shell = nullptr;
  PetscCall(MatShellGetContext(M, &shell));
  const index_t n_owned = shell->disc->n_owned();
  const int nv = shell->disc->n_vars();
  const auto owned = std::make_pair(index_t{0}, n_owned * nv);
  const PetscScalar* xa = nullptr;
  PetscCall(VecGetArrayRead(x, &xa));
  try {
    const Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        xh(xa, static_cast<size_t>(n_owned * nv));
    Kokkos::deep_copy(Kokkos::subview(shell->direction.view(), owned), xh);
    shell->disc->residual_and_tangent(*shell->state, shell->direction, shell->residual,
                                      shell->tangent);
  } catch (...) {
    shell->error = std::current_exception();
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  if (shell->error)
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "the Euler tangent threw (rethrown after KSPSolve)");
  PetscScalar* ya = nullptr;
  PetscCall(VecGetArray(y, &ya));
  {
    const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> yh(
        ya, static_cast<size_t>(n_owned * nv));
    Kokkos::deep_copy(yh, Kokkos::subview(shell->tangent.view(), owned));
    const auto xh = shell->direction.host();
    for (index_t c = 0; c < n_owned; ++c)
      for (int k = 0; k < nv; ++k)
        ya[c * nv + k] += shell->diagonal[static_cast<size_t>(c)] * xh(c * nv + k);
  }
  PetscCall(VecRestoreArray(y, &ya));
  return 0;
}

class PetscNewtonSystem final : public NewtonLinearSystem {
 public:
  PetscNewtonSystem(const Discretization& disc, Tensor& U, const SteadyOptions& options);
  LinearStep solve(const Discretization& active, Tensor& U, const std::vector<double>& shift,
                   int step, int attempt, Tensor& minus_R, Tensor& dU) override;

 private:
  const SteadyOptions& options_;
  // The first-order matrix (a block per owned cell and face neighbour).
  FirstOrderMatrix first_order_;
  // The right-hand side and the update live in Tensors; PETSc's Vecs are
  // placed over their owned rows (the first n_owned * n_vars values).
  petsc::VecHandle b_, x_;
  bool matrix_free_ = false, second_order_pc_ = false;
  // The assembled exact second-order Jacobian: the operator (assembled),
  // or the preconditioner of the matrix-free operator (second_order
  // preconditioner, refreshed every jacobian_refresh steps).
  std::unique_ptr<ExactJacobian> exact_jacobian_;
  int assembled_at_ = -1;  // the step whose state the assembled matrix is of
  NewtonShell shell_;
  petsc::MatHandle exact_;
  // Threaded: the ILU the options name (declared before the solver that
  // points to it).
  std::unique_ptr<petsc::BlockIlu> block_ilu_;
  petsc::KspHandle ksp_;
  Tensor face_blocks_;      // the first-order face Jacobians at step face_blocks_step_
  int face_blocks_step_ = -1;
};

PetscNewtonSystem::PetscNewtonSystem(const Discretization& disc, Tensor& U,
                                     const SteadyOptions& options)
    : options_(options), first_order_(disc) {
  const MPI_Comm comm = disc.mesh().comm();
  const index_t n_owned = disc.n_owned();
  const int nv = disc.n_vars();
  CAMBER_CHECK_PETSC(
      VecCreateMPIWithArray(comm, nv, nv * n_owned, PETSC_DETERMINE, nullptr, b_.out()));
  CAMBER_CHECK_PETSC(
      VecCreateMPIWithArray(comm, nv, nv * n_owned, PETSC_DETERMINE, nullptr, x_.out()));

  // Order 2: the operator is the exact Newton matrix, matrix-free (or, with
  // defect_correction, the first-order matrix A itself); A preconditions.
  const bool exact_operator = disc.spatial().order == 2 && !options.defect_correction;
  matrix_free_ = exact_operator && uses_matrix_free_operator(options, disc);
  second_order_pc_ =
      matrix_free_ && options.preconditioner == SteadyOptions::Preconditioner::second_order;
  if ((exact_operator && !matrix_free_) || second_order_pc_)
    exact_jacobian_ = std::make_unique<ExactJacobian>(disc, options.jacobian_pattern);
  if (matrix_free_) {
    shell_.disc = &disc;
    shell_.state = &U;
    shell_.diagonal.assign(static_cast<size_t>(n_owned), 0.0);
    shell_.direction = Tensor({disc.n_local(), nv});
    CAMBER_CHECK_PETSC(MatCreate(comm, exact_.out()));
    CAMBER_CHECK_PETSC(MatSetSizes(exact_.get(), nv * n_owned, nv * n_owned, PETSC_DETERMINE,
                                   PETSC_DETERMINE));
    CAMBER_CHECK_PETSC(MatSetBlockSize(exact_.get(), nv));
    CAMBER_CHECK_PETSC(MatSetType(exact_.get(), MATSHELL));
    CAMBER_CHECK_PETSC(MatShellSetContext(exact_.get(), &shell_));
    CAMBER_CHECK_PETSC(MatShellSetOperation(
        exact_.get(), MATOP_MULT, reinterpret_cast<void (*)(void)>(newton_shell_mult)));
    CAMBER_CHECK_PETSC(MatSetUp(exact_.get()));
  }

  // The block-Jacobi blocks' ILU, unless the user chose (an option this
  // code wrote for an earlier solve does not count as the user's): the
  // assembled second-order Jacobian is far from diagonally dominant at large
  // CFL numbers, so ILU(1) in reverse Cuthill-McKee order (SU2's QuickStart
  // mesh, assembled operator: ILU(0) 2,001 Krylov iterations in 8.7 s,
  // ILU(1) 974 in 7.3 s, ILU(2) 919 in 12.3 s, the factorization being
  // most of ILU(2)'s time; one run each, docs/performance.md); the
  // first-order matrix gets ILU(1) in natural order: with ILU(0) the
  // first-order solve of the 256^2 triangle grid stalled at a residual drop
  // of 1.7 orders (GMRES at its 200 iterations every step), with ILU(1) it
  // converged in 71 steps, and SU2's QuickStart mesh took 1.9 s against
  // 3.8 s at first order.
  {
    const auto set_default = [&](const char* name, const char* value) {
      petsc::set_option_default(options.options_prefix, name, value);
    };
    const std::string first_order_levels = std::to_string(first_order_ilu_levels);
    set_default("sub_pc_factor_levels", exact_jacobian_ ? "1" : first_order_levels.c_str());
    set_default("sub_pc_factor_mat_ordering_type", exact_jacobian_ ? "rcm" : "natural");
  }
  if (threaded_factorization(options.factorization))
    block_ilu_ = petsc::block_ilu_from_options(options.options_prefix, options.ilu_blocks);
  CAMBER_CHECK_PETSC(KSPCreate(comm, ksp_.out()));
  CAMBER_CHECK_PETSC(KSPSetOptionsPrefix(ksp_.get(), options.options_prefix.c_str()));
  CAMBER_CHECK_PETSC(KSPSetType(ksp_.get(), KSPGMRES));
  CAMBER_CHECK_PETSC(KSPGMRESSetRestart(ksp_.get(), krylov_restart(options, exact_operator)));
  PC pc;
  CAMBER_CHECK_PETSC(KSPGetPC(ksp_.get(), &pc));
  if (block_ilu_)
    block_ilu_->attach(pc);
  else
    CAMBER_CHECK_PETSC(PCSetType(pc, PCBJACOBI));  // ILU in each block (levels above)
  // The assembled operator: right preconditioning, so that GMRES stops on
  // the true residual of the Newton system. Left-preconditioned, ILU(1) of
  // the second-order matrix met the tolerance on its preconditioned
  // residual in 1-3 iterations with steps that did not reduce R: the 48 x
  // 24 transonic O-grid on two ranks cycled at a residual of 6e-5 for 150
  // steps (converged in 43 with right preconditioning), and the 512^2 grid
  // stalled near 2e-5 (docs/performance.md).
  if (exact_jacobian_ && !matrix_free_) CAMBER_CHECK_PETSC(KSPSetPCSide(ksp_.get(), PC_RIGHT));
  CAMBER_CHECK_PETSC(KSPSetTolerances(ksp_.get(), options.linear_rel_tolerance, 1e-50,
                                      PETSC_DEFAULT, options.linear_max_iterations));
  CAMBER_CHECK_PETSC(KSPSetFromOptions(ksp_.get()));
}

LinearStep PetscNewtonSystem::solve(const Discretization& active, Tensor& U,
                                    const std::vector<double>& shift, int step, int attempt,
                                    Tensor& minus_R, Tensor& dU) {
  if (matrix_free_) {
    shell_.disc = &active;
    shell_.diagonal = shift;
  }
  // A = diag(lambda / CFL) + dR/dU, block by block; not needed when the
  // assembled second-order matrix preconditions (the operator being that
  // matrix or the matrix-free shell, whose diagonal is set above).
  if (exact_jacobian_) {
    // A preconditioner may lag (its ILU factors are kept while the matrix
    // is unchanged); the assembled operator may not.
    if (!second_order_pc_ || assembled_at_ < 0 || attempt > 0 ||
        step - assembled_at_ >= std::max(1, options_.jacobian_refresh)) {
      exact_jacobian_->assemble(active, U, &shift);
      assembled_at_ = step;
    }
    const Mat jm = exact_jacobian_->matrix();
    CAMBER_CHECK_PETSC(KSPSetOperators(ksp_.get(), matrix_free_ ? exact_.get() : jm, jm));
  } else {
    if (face_blocks_step_ != step) {
      face_blocks_ = DiscretizationKernels::face_jacobians(active, U);
      face_blocks_step_ = step;
    }
    first_order_.assemble(face_blocks_, shift);
    const Mat A = first_order_.matrix();
    CAMBER_CHECK_PETSC(KSPSetOperators(ksp_.get(), matrix_free_ ? exact_.get() : A, A));
  }
  CAMBER_CHECK_PETSC(VecPlaceArray(b_.get(), minus_R.data()));
  CAMBER_CHECK_PETSC(VecPlaceArray(x_.get(), dU.data()));
  const PetscErrorCode solved = KSPSolve(ksp_.get(), b_.get(), x_.get());
  CAMBER_CHECK_PETSC(VecResetArray(b_.get()));
  CAMBER_CHECK_PETSC(VecResetArray(x_.get()));
  if (shell_.error) std::rethrow_exception(std::exchange(shell_.error, nullptr));
  CAMBER_CHECK_PETSC(solved);
  dU.mark_modified();
  PetscInt lin = 0;
  CAMBER_CHECK_PETSC(KSPGetIterationNumber(ksp_.get(), &lin));
  KSPConvergedReason reason;
  CAMBER_CHECK_PETSC(KSPGetConvergedReason(ksp_.get(), &reason));
  return {static_cast<int>(lin), reason > 0};
}

}  // namespace

std::unique_ptr<NewtonLinearSystem> petsc_newton_system(const Discretization& disc, Tensor& U,
                                                        const SteadyOptions& options) {
  return std::make_unique<PetscNewtonSystem>(disc, U, options);
}

}  // namespace camber::solvers::euler::detail
