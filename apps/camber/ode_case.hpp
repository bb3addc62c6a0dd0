// The `problem: ode` case: a built-in ODE model integrated by CVODES, with
// forward or adjoint sensitivities (Camber::ode).
#pragma once

#include "problem.hpp"

namespace camber::app {

// `problem: ode`: sections model, integration, sensitivity; the run.
Problem ode_problem();

}  // namespace camber::app
