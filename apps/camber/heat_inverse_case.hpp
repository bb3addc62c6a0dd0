// The `problem: heat_inverse` case: a transient heat run on a distributed
// mesh makes synthetic sensor data from a known conductivity field, and the
// field is recovered from them (solvers/heat/conductivity_inverse.hpp),
// with the recovery error reported and both fields written for ParaView.
#pragma once

#include "problem.hpp"

namespace camber::app {

// `problem: heat_inverse`: sections mesh, heat, source, truth,
// measurements, inversion and integration; the run.
Problem heat_inverse_problem();

}  // namespace camber::app
