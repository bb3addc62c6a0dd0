// The `problem: euler` case: steady compressible Euler flow around a body
// (an airfoil O-grid generated from the deck, or a mesh file), solved by
// pseudo-transient Newton on PETSc, with forces, surface Cp, convergence
// history, ParaView fields and PNG plots as output.
#pragma once

#include "problem.hpp"

namespace camber::app {

// `problem: euler`: sections mesh, flow, boundaries and solver; the run.
Problem euler_problem();

}  // namespace camber::app
