// The `problem: heat` case: deck sections, and the run that solves, reports
// the error against the manufactured solution and writes the output.
#pragma once

#include <string>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/runtime.hpp>

namespace camber::app {

// Declares the sections mesh, heat and solver.
void declare_heat_schema(deck::Schema& schema);

// Runs the case the deck describes (collective). Returns the exit code.
int run_case(const deck::Deck& deck, const Runtime& runtime, const std::string& petsc_options);

}  // namespace camber::app
