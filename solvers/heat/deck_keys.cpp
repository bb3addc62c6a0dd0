#include "deck_keys.hpp"

namespace camber::solvers::heat {

using deck::IntRange;
using deck::Keys;
using deck::Range;

const Keys<HeatProblem>& heat_problem_keys() {
  static const Keys<HeatProblem> keys =
      Keys<HeatProblem>()
          .real("conductivity_W_per_mK", &HeatProblem::conductivity, Range::positive(),
                "Thermal conductivity k, in W/(m K).")
          .choice("manufactured_solution", &HeatProblem::manufactured, heat_manufactured_solutions(),
                  "Exact solution that defines f and g. sin_exp: T = sin(pi x/Lx) exp(y/Ly) + x "
                  "y/(Lx Ly). linear: T = 1 + 2 x/Lx - 3 y/Ly (reproduced to round-off on "
                  "orthogonal meshes).");
  return keys;
}

const Keys<petsc::LinearSolverOptions>& linear_solver_keys() {
  using petsc::LinearSolverOptions;
  static const Keys<LinearSolverOptions> keys =
      Keys<LinearSolverOptions>()
          .choice("method", &LinearSolverOptions::method, {"cg", "gmres", "bcgs", "preonly"},
                  "Krylov method (PETSc KSPType). preonly with preconditioner lu is a direct solve.")
          .choice("preconditioner", &LinearSolverOptions::preconditioner,
                  {"hypre", "gamg", "bjacobi", "jacobi", "lu", "none"},
                  "Preconditioner (PETSc PCType). hypre is BoomerAMG; lu needs one rank.")
          .real("rel_tolerance", &LinearSolverOptions::rel_tolerance, Range(1e-16, 1.0).and_less_than(1.0),
                "Stop when the residual norm falls by this factor.")
          .integer("max_iterations", &LinearSolverOptions::max_iterations, IntRange::positive(),
                   "Fail when not converged after this many iterations.");
  return keys;
}

}  // namespace camber::solvers::heat
