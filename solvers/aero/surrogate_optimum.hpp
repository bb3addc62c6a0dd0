/// @file
/// camber::solvers::aero::optimize_surrogate — the optimum of one output of
/// a trained surrogate over its inputs, within bounds, optionally with a
/// second output held at or above a value: what `camber optimize` does with
/// a surrogate deck, before re-checking the optimum with the flow solver.
///
/// SLSQP (opt::Optimizer) on the variables scaled by the bounds' width,
/// starting at the box's centre, with the exact gradients of the network
/// (Surrogate::jacobian). The network knows nothing outside the data it was
/// trained on, so the bounds are usually the data set's input range
/// (nn::io::input_range).
///
/// @code
///   const auto [lo, hi] = nn::io::input_range(data, comm);
///   aero::SurrogateOptimumSettings s;
///   s.objective = 1;          // CD, the second output
///   s.constraint = 0;         // CL ...
///   s.constraint_min = 0.3;   // ... at least 0.3
///   const aero::SurrogateOptimum best = aero::optimize_surrogate(model, lo, hi, s, comm);
///   // best.x: the inputs; best.y: every output there
/// @endcode
///
/// Collective over `comm` (rank 0 decides, every rank evaluates the same
/// point); the result is the same on every rank.
#pragma once

#include <mpi.h>

#include <vector>

#include <camber/nn/surrogate.hpp>
#include <camber/optimization/optimizer.hpp>

namespace camber::solvers::aero {

struct SurrogateOptimumSettings {
  int objective = 0;         ///< the output minimized (or maximized)
  bool maximize = false;
  int constraint = -1;       ///< an output kept >= constraint_min; -1: none
  double constraint_min = 0.0;
  int max_evaluations = 60;  ///< network evaluations (SLSQP iterations)
};

struct SurrogateOptimum {
  std::vector<double> x;  ///< the inputs, in the data's units
  std::vector<double> y;  ///< every output of the network at x
  int evaluations = 0;
  opt::Status status = opt::Status::success;
};

/// bad_input for an output index out of range, bounds of another length
/// than the inputs, or a lower bound above its upper one.
SurrogateOptimum optimize_surrogate(const nn::Surrogate& surrogate, const std::vector<double>& lower,
                                    const std::vector<double>& upper,
                                    const SurrogateOptimumSettings& settings, MPI_Comm comm);

}  // namespace camber::solvers::aero
