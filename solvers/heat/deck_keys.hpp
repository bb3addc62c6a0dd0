/// @file
/// camber::solvers::heat deck keys — the tables of deck keys of the steady
/// heat problem (HeatProblem) and its linear solver, from which `camber
/// run`'s heat sections are declared and read (deck/keys.hpp: the defaults
/// are the structs' own).
///
/// @code
///   heat::heat_problem_keys().declare(schema.section("heat", "Steady heat conduction."));
///   heat::linear_solver_keys().declare(schema.section("solver", "The linear solver."));
///   heat::HeatProblem p;
///   heat::heat_problem_keys().read(deck, "heat", p);
///   heat::linear_solver_keys().read(deck, "solver", p.solver);
/// @endcode
#pragma once

#include <camber/deck/keys.hpp>
#include <camber/solvers/heat/heat_conduction.hpp>
#include <camber/solvers/petsc/linear_solver.hpp>

namespace camber::solvers::heat {

/// conductivity_W_per_mK, manufactured_solution.
const deck::Keys<HeatProblem>& heat_problem_keys();
/// method, preconditioner, rel_tolerance, max_iterations (PETSc KSP).
const deck::Keys<petsc::LinearSolverOptions>& linear_solver_keys();

}  // namespace camber::solvers::heat
