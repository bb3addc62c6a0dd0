// The adjoint's linear algebra by PETSc (adjoint_system.hpp): the exact
// Jacobian assembled by the stencil, KSPSolve and KSPSolveTranspose with
// GMRES right-preconditioned by block-Jacobi ILU(1) (of the exact or the
// first-order matrix), falling back to a MUMPS LU.
#include "adjoint_system.hpp"

#include <petscksp.h>

#include <utility>

#include <camber/solvers/euler/exact_jacobian.hpp>
#include <camber/solvers/petsc/block_ilu.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

#include "discretization_kernels.hpp"
#include "first_order_matrix.hpp"

namespace camber::solvers::euler::detail {

namespace {

struct LinearSolve {
  int iterations = 0;
  bool converged = false;
};

// Solves A x = b (or A^T x = b) over the owned rows of {n_local, nv}
// Tensors with the KSP that holds A (its factorization or ILU is reused).
LinearSolve solve_with(KSP ksp, const Tensor& b, Tensor& x, bool transpose, index_t n_owned,
                       MPI_Comm comm) {
  const PetscInt nv = static_cast<PetscInt>(b.shape()[1]);
  Tensor rhs = b.clone();
  petsc::VecHandle bv, xv;
  CAMBER_CHECK_PETSC(
      VecCreateMPIWithArray(comm, nv, nv * n_owned, PETSC_DETERMINE, rhs.data(), bv.out()));
  CAMBER_CHECK_PETSC(
      VecCreateMPIWithArray(comm, nv, nv * n_owned, PETSC_DETERMINE, x.data(), xv.out()));
  x.fill(0.0);
  if (transpose)
    CAMBER_CHECK_PETSC(KSPSolveTranspose(ksp, bv.get(), xv.get()));
  else
    CAMBER_CHECK_PETSC(KSPSolve(ksp, bv.get(), xv.get()));
  PetscInt its = 0;
  CAMBER_CHECK_PETSC(KSPGetIterationNumber(ksp, &its));
  KSPConvergedReason reason;
  CAMBER_CHECK_PETSC(KSPGetConvergedReason(ksp, &reason));
  return {static_cast<int>(its), reason > 0};
}

class PetscAdjointSystem final : public AdjointSystem {
 public:
  PetscAdjointSystem(const Discretization& disc, const AdjointOptions& options,
                     std::shared_ptr<const ExactJacobian::Pattern> pattern)
      : disc_(&disc), options_(options), jacobian_(disc, std::move(pattern)) {
    const bool first_order =
        options_.preconditioner == AdjointOptions::Preconditioner::first_order ||
        (options_.preconditioner == AdjointOptions::Preconditioner::automatic && disc.dim() == 3);
    if (first_order && !options_.direct) first_order_ = std::make_unique<FirstOrderMatrix>(disc);
  }

  void linearize(Tensor& U) override {
    jacobian_.assemble(*disc_, U);
    if (first_order_)
      first_order_->assemble(DiscretizationKernels::face_jacobians(*disc_, U), {});
    make_ksp(ksp_, options_.direct, false);
    lu_ = petsc::KspHandle();
    force_partials_ = jacobian_.force_partials(*disc_, U);
  }

  std::vector<Tensor> objective_gradients(
      const std::vector<std::array<double, 3>>& weights) override {
    return jacobian_.objective_gradients(force_partials_, weights);
  }

  Solve solve(const Tensor& b, Tensor& x, bool transpose) override {
    const index_t n = disc_->n_owned();
    const MPI_Comm comm = disc_->mesh().comm();
    const LinearSolve s = solve_with(ksp_.get(), b, x, transpose, n, comm);
    Solve out{s.iterations, s.converged, false};
    if (s.converged || options_.direct) return out;
    // Every rank sees the same reason: all take the LU alike.
    if (!lu_) make_ksp(lu_, true, true);
    const LinearSolve d = solve_with(lu_.get(), b, x, transpose, n, comm);
    out.iterations += d.iterations;
    out.converged = d.converged;
    out.fell_back = true;
    return out;
  }

  const ExactJacobian* jacobian() const override { return &jacobian_; }

 private:
  void make_ksp(petsc::KspHandle& ksp, bool direct, bool fallback) const;

  const Discretization* disc_;
  AdjointOptions options_;
  ExactJacobian jacobian_;
  // The threaded ILU the iterative solve's PCSHELL points to (declared
  // before the solvers, so that it outlives them).
  mutable std::unique_ptr<petsc::BlockIlu> block_ilu_;
  petsc::KspHandle ksp_;
  petsc::KspHandle lu_;  // the fallback, built on first use
  std::unique_ptr<FirstOrderMatrix> first_order_;  // its preconditioner, if so chosen
  ExactJacobian::ForcePartials force_partials_;
};

void PetscAdjointSystem::make_ksp(petsc::KspHandle& ksp, bool direct, bool fallback) const {
  const MPI_Comm comm = disc_->mesh().comm();
  ksp = petsc::KspHandle();
  CAMBER_CHECK_PETSC(KSPCreate(comm, ksp.out()));
  CAMBER_CHECK_PETSC(KSPSetOptionsPrefix(ksp.get(), options_.options_prefix.c_str()));
  CAMBER_CHECK_PETSC(KSPSetType(ksp.get(), KSPGMRES));
  CAMBER_CHECK_PETSC(KSPGMRESSetRestart(ksp.get(), options_.restart));
  PC pc;
  CAMBER_CHECK_PETSC(KSPGetPC(ksp.get(), &pc));
  if (direct) {
    // LU by MUMPS (parallel), the same on every rank count up to pivoting
    // round-off; GMRES around it mops up that round-off.
    CAMBER_CHECK_PETSC(PCSetType(pc, PCLU));
    CAMBER_CHECK_PETSC(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  } else {
    // The steady solver's preconditioner of the assembled operator; right
    // preconditioning, so that GMRES stops on the true residual.
    petsc::set_option_default(options_.options_prefix, "sub_pc_factor_levels", "1");
    petsc::set_option_default(options_.options_prefix, "sub_pc_factor_mat_ordering_type", "rcm");
    const bool threaded = threaded_factorization(options_.factorization);
    if (threaded && !block_ilu_)
      block_ilu_ = petsc::block_ilu_from_options(options_.options_prefix, options_.ilu_blocks);
    if (threaded && block_ilu_)
      block_ilu_->attach(pc);
    else
      CAMBER_CHECK_PETSC(PCSetType(pc, PCBJACOBI));
    CAMBER_CHECK_PETSC(KSPSetPCSide(ksp.get(), PC_RIGHT));
  }
  CAMBER_CHECK_PETSC(KSPSetTolerances(ksp.get(), options_.rel_tolerance, 1e-50, PETSC_DEFAULT,
                                      options_.max_iterations));
  const Mat pc_matrix = first_order_ && !direct ? first_order_->matrix() : jacobian_.matrix();
  CAMBER_CHECK_PETSC(KSPSetOperators(ksp.get(), jacobian_.matrix(), pc_matrix));
  // The fallback is the LU whatever -adjoint_pc_type says.
  if (!fallback) CAMBER_CHECK_PETSC(KSPSetFromOptions(ksp.get()));
}

}  // namespace

std::unique_ptr<AdjointSystem> petsc_adjoint_system(
    const Discretization& disc, const AdjointOptions& options,
    std::shared_ptr<const ExactJacobian::Pattern> pattern) {
  return std::make_unique<PetscAdjointSystem>(disc, options, std::move(pattern));
}

}  // namespace camber::solvers::euler::detail
