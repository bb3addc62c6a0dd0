#include <camber/solvers/euler/adjoint.hpp>

#include <utility>

#include <petscksp.h>

#include <chrono>
#include <cmath>

#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

#include "detail/discretization_kernels.hpp"
#include "detail/first_order_matrix.hpp"

namespace camber::solvers::euler {

namespace {

constexpr double degree = M_PI / 180.0;

// Sum over owned rows ({n_local, nv} Tensors) and ranks of a . b.
double dot_owned(const Tensor& a, const Tensor& b, index_t n_owned, MPI_Comm comm) {
  const auto x = a.host();
  const auto y = b.host();
  const index_t nv = a.shape()[1];
  double s = 0.0;
  for (index_t i = 0; i < n_owned * nv; ++i) s += x(i) * y(i);
  return par::allreduce_sum(s, comm);
}

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

}  // namespace

Adjoint::Adjoint(const Discretization& disc, const AdjointOptions& options,
                 std::shared_ptr<const ExactJacobian::Pattern> pattern)
    : disc_(&disc), options_(options), jacobian_(disc, std::move(pattern)) {
  const bool first_order =
      options_.preconditioner == AdjointOptions::Preconditioner::first_order ||
      (options_.preconditioner == AdjointOptions::Preconditioner::automatic && disc.dim() == 3);
  if (first_order && !options_.direct) first_order_ = std::make_unique<detail::FirstOrderMatrix>(disc);
  CAMBER_REQUIRE(!disc.flow().far_field_vortex,
                 "Adjoint: the far-field vortex makes the residual depend on the lift, which "
                 "the adjoint does not differentiate; solve with FlowConditions::"
                 "far_field_vortex off");
}

Adjoint::~Adjoint() = default;

void Adjoint::make_ksp(petsc::KspHandle& ksp, bool direct, bool fallback) const {
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

void Adjoint::linearize(Tensor& U) {
  jacobian_.assemble(*disc_, U);
  if (first_order_)
    first_order_->assemble(detail::DiscretizationKernels::face_jacobians(*disc_, U), {});
  make_ksp(ksp_, options_.direct, false);
  lu_ = petsc::KspHandle();
  force_partials_ = jacobian_.force_partials(*disc_, U);
  linearized_ = true;
}

std::vector<Tensor> Adjoint::objective_gradients(
    Tensor& U, const std::vector<std::array<double, 3>>& weights) {
  if (!linearized_) linearize(U);
  return jacobian_.objective_gradients(force_partials_, weights);
}

struct Adjoint::Solve {
  int iterations = 0;
  bool converged = false;
  bool fell_back = false;
};

Adjoint::Solve Adjoint::solve_system(const Tensor& b, Tensor& x, bool transpose) {
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

AdjointSolution Adjoint::solve(Tensor& U, ForceCoefficient objective) {
  CAMBER_REQUIRE(objective != ForceCoefficient::weighted,
                 "Adjoint::solve: give the weights of a weighted objective");
  AdjointSolution a =
      solve(U, disc_->force_coefficient_weights()[static_cast<size_t>(objective)]);
  a.objective = objective;
  return a;
}

AdjointSolution Adjoint::solve(Tensor& U, const std::array<double, 3>& weights) {
  const auto start = std::chrono::steady_clock::now();
  const Discretization& disc = *disc_;
  AdjointSolution a;
  a.objective = ForceCoefficient::weighted;
  a.weights = weights;
  if (!linearized_) linearize(U);
  a.objective_gradient = objective_gradients(U, {weights}).front();
  a.psi = Tensor({disc.n_local(), disc.n_vars()});
  const Solve s = solve_system(a.objective_gradient, a.psi, true);
  a.iterations = s.iterations;
  a.converged = s.converged;
  a.fell_back = s.fell_back;
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return a;
}

namespace {

// Central difference of the explicit residual at U in one flow parameter.
Tensor residual_parameter_derivative(const Discretization& disc, Tensor& U,
                                     double FlowConditions::*parameter, double h) {
  FlowConditions plus = disc.flow(), minus = disc.flow();
  plus.*parameter += h;
  minus.*parameter -= h;
  Tensor r = disc.with_flow(plus).residual(U);
  r -= disc.with_flow(minus).residual(U);
  r *= 1.0 / (2.0 * h);
  return r;
}

}  // namespace

Tensor Adjoint::residual_alpha_derivative(Tensor& U) const {
  // Per degree.
  return residual_parameter_derivative(*disc_, U, &FlowConditions::alpha_deg, 1e-3);
}

Tensor Adjoint::residual_mach_derivative(Tensor& U) const {
  return residual_parameter_derivative(*disc_, U, &FlowConditions::mach, 1e-4 * disc_->flow().mach);
}

double Adjoint::mach_derivative(Tensor& U, const AdjointSolution& adjoint, double objective) const {
  const Tensor dr = residual_mach_derivative(U);
  return -2.0 * objective / disc_->flow().mach -
         dot_owned(adjoint.psi, dr, disc_->n_owned(), disc_->mesh().comm());
}

double Adjoint::objective_alpha_partial(const Tensor& U,
                                        const std::array<double, 3>& weights) const {
  // The force part of any weights is a combination of the lift and drag
  // directions, which turn with the free stream: d(w_x, w_y)/dalpha =
  // (-w_y, w_x) per radian (dCL/dalpha|_U = -CD, dCD/dalpha|_U = CL). The
  // moment's weight does not depend on alpha. The lift axis is y in 2-D,
  // z in 3-D.
  const Forces f = disc_->forces(U);
  const double f_up = disc_->dim() == 3 ? f.fz : f.fy;
  return (-weights[1] * f.fx + weights[0] * f_up) * degree;
}

double Adjoint::alpha_derivative(Tensor& U, const AdjointSolution& adjoint) const {
  const Tensor dr = residual_alpha_derivative(U);
  return objective_alpha_partial(U, adjoint.weights) -
         dot_owned(adjoint.psi, dr, disc_->n_owned(), disc_->mesh().comm());
}

Tensor Adjoint::solve_tangent(Tensor& U, const Tensor& rhs, int* iterations) {
  const Discretization& disc = *disc_;
  if (!linearized_) linearize(U);
  Tensor x({disc.n_local(), disc.n_vars()});
  const Solve s = solve_system(rhs, x, false);
  if (iterations) *iterations = s.iterations;
  return x;
}

double Adjoint::alpha_derivative_tangent(Tensor& U, ForceCoefficient objective, int* iterations) {
  const Discretization& disc = *disc_;
  Tensor rhs = residual_alpha_derivative(U);
  rhs *= -1.0;
  CAMBER_REQUIRE(objective != ForceCoefficient::weighted,
                 "Adjoint::alpha_derivative_tangent: the objective must be CL, CD or CM");
  const Tensor dU = solve_tangent(U, rhs, iterations);
  const std::array<double, 3> weights =
      disc.force_coefficient_weights()[static_cast<size_t>(objective)];
  const Tensor g = objective_gradients(U, {weights}).front();
  return objective_alpha_partial(U, weights) +
         dot_owned(g, dU, disc.n_owned(), disc.mesh().comm());
}

}  // namespace camber::solvers::euler
