/// @file
/// Linear solves A x = b with a PETSc Krylov method (KSP) and preconditioner.
///
/// LinearSolverOptions names the method and preconditioner with PETSc's own
/// type names and sets the stopping test; solve_linear runs the solve and
/// raises camber::Error when it does not converge. The default, conjugate
/// gradients preconditioned by hypre's BoomerAMG, suits symmetric positive
/// definite systems from diffusion operators: its iteration count stays
/// nearly constant under mesh refinement and rank count.
///
/// @code
///   camber::solvers::petsc::LinearSolverOptions opts;        // cg + hypre
///   opts.rel_tolerance = 1e-10;
///   auto report = camber::solvers::petsc::solve_linear(A.get(), b.get(), x.get(),
///                                               opts, "heat_");
///   // report.iterations, report.residual_norm (= ||b - A x||_2)
/// @endcode
///
/// Stopping test (PETSc's default): ||r_k|| <= max(rel_tolerance * ||b||,
/// abs_tolerance), in the norm PETSc's method uses by default (for CG with a
/// left preconditioner B: the preconditioned norm ||B r_k||). With an AMG
/// preconditioner B ~ A^-1, so this norm tracks the error itself.
///
/// Command-line override: after applying the options, solve_linear calls
/// KSPSetFromOptions with the given prefix, so `-heat_ksp_type gmres
/// -heat_pc_type gamg -heat_ksp_monitor` on the command line (or in
/// PETSC_OPTIONS) win over the struct. Higher-level users call a
/// discretization's solve (e.g. solvers/heat/heat_conduction.hpp) instead.
#pragma once

#include <petscksp.h>

#include <string>

namespace camber::solvers::petsc {

struct LinearSolverOptions {
  std::string method = "cg";            ///< a KSPType: cg, gmres, bcgs, preonly, ...
  std::string preconditioner = "hypre"; ///< a PCType: hypre (BoomerAMG), gamg, ilu, lu, ...
  double rel_tolerance = 1e-12;         ///< relative to the norm of b
  double abs_tolerance = 1e-50;
  int max_iterations = 10000;
};

struct LinearSolveReport {
  int iterations = 0;
  double residual_norm = 0.0;  ///< true residual ||b - A x||_2, computed after the solve
  std::string reason;          ///< PETSc's converged reason, e.g.\ "CONVERGED_RTOL"
};

/// Solves A x = b on A's communicator (collective); x holds the initial
/// guess on entry (its values are used only with `-<prefix>ksp_initial_guess_nonzero`;
/// otherwise the guess is zero). Throws camber::Error: bad_input for an
/// unknown method/preconditioner or invalid tolerances, failure when PETSc
/// fails or the method diverges (message: reason, iteration count, residual).
LinearSolveReport solve_linear(Mat A, Vec b, Vec x, const LinearSolverOptions& options,
                               const std::string& options_prefix);

}  // namespace camber::solvers::petsc
