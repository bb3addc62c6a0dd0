/// @file
/// camber::nn::Ensemble — several small networks of one architecture,
/// trained from different initialisations on the same data, whose mean is
/// the prediction and whose spread is its uncertainty: where the members
/// disagree, the data do not pin the function down, and that is where the
/// next expensive sample pays most (active learning), or where a
/// surrogate-based optimizer should not trust the model.
///
/// The data are values and, optionally, their input gradients (adjoint
/// gradients from a solver): with gradient_weight > 0 every member is
/// trained on both (gradient-enhanced, or Sobolev, training: Trainer's
/// TrainOptions::gradient_weight). The normalisation of inputs and outputs
/// is fixed when the ensemble is made, so fit() can be called again as
/// samples arrive and fine-tunes every member from its current weights and
/// optimizer state (a fresh cosine schedule per call) instead of starting
/// over.
///
/// MPI. Member k is trained on rank k mod size (on MPI_COMM_SELF) and its
/// weights are then broadcast, so every rank holds every member and the
/// result does not depend on the number of ranks: member k's training is
/// the same computation wherever it runs (tests/nn, 1 and 2 ranks).
///
/// @code
///   nn::EnsembleOptions o;  o.members = 4;  o.hidden = {32, 32};  o.gradient_weight = 1.0;
///   nn::Ensemble e(inputs, outputs, input_stats, output_stats, o, MPI_COMM_WORLD);
///   e.fit(x, y, dy);                  // collective; dy {rows, n_out, n_in} or Tensor()
///   Tensor mean = e.predict(xq);      // {rows, n_out}
///   Tensor spread = e.stddev(xq);     // {rows, n_out}: the members' sample deviation
///   Tensor jac = e.jacobian(xq);      // {rows, n_out, n_in}: of the mean
/// @endcode
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include <camber/nn/surrogate.hpp>

namespace camber::nn {

struct EnsembleOptions {
  int members = 4;                      ///< >= 1 (2 or more for a spread)
  std::string kind = "mlp";             ///< NetworkSpec::kind
  std::vector<index_t> hidden = {32, 32};
  Activation activation = Activation::tanh;
  int epochs = 300;                     ///< per fit() call
  index_t batch_size = 0;               ///< 0: all rows in one batch
  double learning_rate = 3e-3;          ///< Adam, cosine to min_learning_rate over each fit()
  double min_learning_rate = 1e-5;
  double gradient_weight = 1.0;         ///< used when fit() is given gradients
  std::uint64_t seed = 1;               ///< member k: initialisation and shuffling from seed and k
};

class Ensemble {
 public:
  /// The columns and normalisation of inputs and outputs (one per column;
  /// every std > 0). Builds the members (not yet trained). Collective.
  Ensemble(Columns inputs, Columns outputs, Normalization input_stats, Normalization output_stats,
           EnsembleOptions options, MPI_Comm comm);
  ~Ensemble();
  Ensemble(Ensemble&&) noexcept;
  Ensemble& operator=(Ensemble&&) noexcept;

  /// Trains every member for options.epochs on all rows, in physical
  /// units: x {rows, n_in}, y {rows, n_out} and dy {rows, n_out, n_in}
  /// (d y / d x; Tensor() for values only). The same data on every rank.
  /// Collective.
  void fit(const Tensor& x, const Tensor& y, const Tensor& dy = Tensor());

  /// The members' mean {rows, n_out}, its Jacobian {rows, n_out, n_in},
  /// and the members' sample standard deviation {rows, n_out} (zero with
  /// one member). Physical units; not collective; thread-safe.
  Tensor predict(const Tensor& x) const;
  Tensor jacobian(const Tensor& x) const;
  Tensor stddev(const Tensor& x) const;

  int size() const { return static_cast<int>(members_.size()); }
  /// Member k as a surrogate (for export, or a look at one network).
  const Surrogate& member(int k) const;
  /// fit() calls so far.
  int fits() const { return fits_; }
  /// The last fit()'s mean training loss (normalised units) of each member,
  /// values and gradient misfit as the trainer reports it.
  const std::vector<double>& last_losses() const { return losses_; }
  const EnsembleOptions& options() const { return o_; }

 private:
  struct Member;
  NetworkSpec spec() const;
  Columns inputs_, outputs_;
  Normalization input_stats_, output_stats_;
  EnsembleOptions o_;
  MPI_Comm comm_;
  std::vector<std::unique_ptr<Member>> members_;
  std::vector<double> losses_;
  int fits_ = 0;
};

/// Active learning: `count` of the candidate inputs {rows, n_in} where the
/// ensemble disagrees most, in order of choice. A candidate's score is the
/// sum over outputs of the members' deviation divided by output_scale[o]
/// (the outputs' spread in the data, so each output weighs alike), times
/// 1 - exp(-(d / spacing)^2) where d is its distance to the nearest
/// candidate already chosen, in units of input_scale per input (so one
/// region of disagreement does not take the whole batch). Not collective.
std::vector<index_t> most_disagreeing(const Ensemble& ensemble, const Tensor& candidates, int count,
                                      const std::vector<double>& input_scale,
                                      const std::vector<double>& output_scale, double spacing);

}  // namespace camber::nn
