// The `problem: heat` case: deck sections, and the run that solves, reports
// the error against the manufactured solution and writes the output.
#pragma once

#include <string>

#include "problem.hpp"

namespace camber::app {

// `problem: heat`: sections mesh, heat and solver; the run.
Problem heat_problem();

}  // namespace camber::app
