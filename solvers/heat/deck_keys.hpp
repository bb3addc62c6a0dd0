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
///
/// The conductivity inverse problem's twin experiment (twin_experiment.hpp)
/// fills six sections (heat, source, truth, measurements, inversion,
/// integration):
///
/// @code
///   heat::declare_twin_experiment(schema);
///   const heat::TwinExperiment t = heat::read_twin_experiment(deck);  // after validate_twin_experiment
/// @endcode
#pragma once

#include <camber/deck/keys.hpp>
#include <camber/solvers/heat/heat_conduction.hpp>
#include <camber/solvers/heat/twin_experiment.hpp>
#include <camber/solvers/petsc/linear_solver.hpp>

namespace camber::solvers::heat {

/// conductivity_W_per_mK, manufactured_solution.
const deck::Keys<HeatProblem>& heat_problem_keys();
/// method, preconditioner, rel_tolerance, max_iterations (PETSc KSP).
const deck::Keys<petsc::LinearSolverOptions>& linear_solver_keys();

/// The sections heat, source, truth, measurements, inversion and
/// integration, with the defaults of TwinExperiment{}.
void declare_twin_experiment(deck::Schema& schema);
/// The checks that span keys, as errors naming the key and its line:
/// measurement times increase, min_conductivity < max_conductivity, the
/// initial guess within them.
void validate_twin_experiment(const deck::Deck& deck);
/// The settings of a deck that declare_twin_experiment's sections
/// validated.
TwinExperiment read_twin_experiment(const deck::Deck& deck);

}  // namespace camber::solvers::heat
