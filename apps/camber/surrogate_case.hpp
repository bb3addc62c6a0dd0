// The `problem: surrogate` case: a neural network fitted to an HDF5 data
// set (written by `camber sample` or nn::io::write_dataset), data parallel over
// the MPI ranks, with per-epoch progress, a CSV loss curve, checkpoints for
// --restart and the validation error per output in the data's units.
#pragma once

#include "problem.hpp"

namespace camber::app {

// `problem: surrogate`: sections data, network, training; `camber train`.
Problem surrogate_problem();

}  // namespace camber::app
