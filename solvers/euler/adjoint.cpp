#include <camber/solvers/euler/adjoint.hpp>

#include <chrono>
#include <cmath>
#include <utility>

#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>

#include "detail/adjoint_system.hpp"

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

void require_no_vortex(const Discretization& disc) {
  CAMBER_REQUIRE(!disc.flow().far_field_vortex,
                 "Adjoint: the far-field vortex makes the residual depend on the lift, which "
                 "the adjoint does not differentiate; solve with FlowConditions::"
                 "far_field_vortex off");
}

}  // namespace

Adjoint::Adjoint(const Discretization& disc, const AdjointOptions& options)
    : disc_(&disc), options_(options) {
  require_no_vortex(disc);
#if CAMBER_WITH_PETSC
  if (options_.linear_solver == SteadyOptions::LinearSolver::petsc) {
    system_ = detail::petsc_adjoint_system(disc, options_, nullptr);
    return;
  }
#else
  CAMBER_REQUIRE(options_.linear_solver == SteadyOptions::LinearSolver::kokkos,
                 "Adjoint: this build of Camber has no PETSc; use AdjointOptions::linear_solver "
                 "kokkos");
#endif
  system_ = detail::device_adjoint_system(disc, options_);
}

#if CAMBER_WITH_PETSC
Adjoint::Adjoint(const Discretization& disc, const AdjointOptions& options,
                 std::shared_ptr<const ExactJacobian::Pattern> pattern)
    : disc_(&disc), options_(options) {
  require_no_vortex(disc);
  system_ = options_.linear_solver == SteadyOptions::LinearSolver::petsc
                ? detail::petsc_adjoint_system(disc, options_, std::move(pattern))
                : detail::device_adjoint_system(disc, options_);
}

const ExactJacobian& Adjoint::jacobian() const {
  const ExactJacobian* j = system_->jacobian();
  CAMBER_REQUIRE(j != nullptr,
                 "Adjoint::jacobian: the device path (linear_solver kokkos) forms no Jacobian");
  return *j;
}
#endif

Adjoint::~Adjoint() = default;

void Adjoint::linearize(Tensor& U) {
  system_->linearize(U);
  linearized_ = true;
}

std::vector<Tensor> Adjoint::objective_gradients(
    Tensor& U, const std::vector<std::array<double, 3>>& weights) {
  if (!linearized_) linearize(U);
  return system_->objective_gradients(weights);
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
  const detail::AdjointSystem::Solve s = system_->solve(a.objective_gradient, a.psi, true);
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
  const detail::AdjointSystem::Solve s = system_->solve(rhs, x, false);
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
