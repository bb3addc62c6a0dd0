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
///
/// A model saved by training (nn::io::save_model) is optimized the same
/// way over the range of the data set it was trained on, its outputs named
/// as the data set names them: what `camber optimize` does with a
/// surrogate deck's design section (deck key table surrogate_optimum_keys,
/// deck_keys.hpp).
///
/// @code
///   aero::SurrogateOptimumByName s;
///   s.objective = "CD";
///   s.constraint = "CL";
///   s.optimum.constraint_min = 0.3;
///   const aero::SavedSurrogateOptimum best =
///       aero::optimize_saved_surrogate("out/case_model.h5", "samples.h5", s, comm);
///   // best.optimum.x, in the order of best.inputs.names
/// @endcode
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
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

/// The optimum asked of a saved model with its outputs by name.
struct SurrogateOptimumByName {
  std::string objective = "CD";  ///< the output minimized (or maximized), by name
  std::string constraint;        ///< an output kept >= optimum.constraint_min; "": none
  /// The goal, the constraint's bound and the evaluations; its objective
  /// and constraint indices are set from the names.
  SurrogateOptimumSettings optimum;
};

struct SavedSurrogateOptimum {
  SurrogateOptimum optimum;
  nn::Columns inputs, outputs;  ///< the model's columns, the data set's
};

/// Told the member of SurrogateOptimumByName (objective or constraint) and
/// what is wrong with it; must throw.
using SurrogateOptimumReject = std::function<void(const std::string& member, const std::string& what)>;

/// The optimum of the model saved at `model_path` over the range of each
/// input in the data set at `data_path` (nn::io::input_range), the
/// objective and the constraint named by the data set's outputs. An
/// output name the set does not hold goes to `reject` (by default: bad
/// input naming the member); a model trained on other columns than the set
/// holds, a missing or unreadable file, are bad input naming the files.
/// Collective over `comm`; the result is the same on every rank.
SavedSurrogateOptimum optimize_saved_surrogate(const std::string& model_path,
                                               const std::string& data_path,
                                               const SurrogateOptimumByName& settings, MPI_Comm comm,
                                               const SurrogateOptimumReject& reject = {});

}  // namespace camber::solvers::aero
