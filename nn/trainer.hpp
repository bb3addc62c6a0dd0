/// @file
/// camber::nn::Trainer — epochs of shuffled mini-batches, data parallel over
/// MPI, with a validation split, early stopping, gradient clipping, a
/// learning-rate schedule, one progress line per epoch and a CSV loss curve.
///
/// Data. Each rank holds a Shard: rows [offset, offset + rows) of a global
/// data set of global_rows rows (shard_of() cuts them from a set held in
/// full; an HDF5 loader reads only them, nn/io/dataset.hpp). The last
/// validation_fraction of the global rows are the validation set; the others
/// are shuffled every epoch by the trainer's seeded Rng (Fisher-Yates over
/// the global indices, the same permutation on every rank).
///
/// A step. Global batch b takes the next batch_size indices of the
/// permutation; each rank evaluates the rows of it that it holds, its loss
/// is the sum over those rows' elements divided by the global batch's
/// element count, and the gradients are summed over the ranks
/// (data_parallel.hpp). The step is therefore the same on any number of
/// ranks, to round-off, for the same global data and seed.
///
/// Loss per epoch: the mean over the training rows (each batch weighted by
/// its rows); validation: the mean over the validation rows, without a
/// graph. A non-finite loss ends every rank with the same error.
///
/// Resuming (nn/io/checkpoint.hpp): epoch(), rng_state() and history() with
/// the model's and the optimizer's state are what a checkpoint holds;
/// resume() puts them back, and fit() continues with the next epoch.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <camber/nn/init.hpp>
#include <camber/nn/module.hpp>
#include <camber/nn/optim.hpp>
#include <camber/nn/schedule.hpp>

namespace camber::nn {

/// This rank's rows of a data set: inputs x {rows, in}, targets y {rows, out}.
struct Shard {
  Tensor x, y;
  index_t offset = 0;       ///< global index of the first row held here
  index_t global_rows = 0;  ///< rows over all ranks
  /// Optional: dy/dx per row, {rows, n_out, n_in} (gradient-enhanced
  /// training, TrainOptions::gradient_weight); Tensor() when none.
  Tensor dy;
};
/// Rows [begin, end) of t's first axis (a copy).
Tensor row_range(const Tensor& t, index_t begin, index_t end);
/// The contiguous share (local_rows) of a data set every rank holds in full.
Shard shard_of(const Tensor& x, const Tensor& y, MPI_Comm comm);

enum class LossKind { mse, l1, huber };
/// "mse", "l1", "huber"; a bad-input error listing them otherwise.
LossKind loss_from_name(const std::string& name);

struct TrainOptions {
  int epochs = 100;
  index_t batch_size = 32;            ///< global, over all ranks
  std::uint64_t seed = 0;             ///< shuffling
  double validation_fraction = 0.0;   ///< in [0, 1): the last rows of the set
  int patience = 0;                   ///< early stopping after this many epochs without improvement (0: off)
  double min_delta = 0.0;             ///< an improvement is a drop of the validation loss by more than this
  bool restore_best = true;           ///< with early stopping: end with the best epoch's weights
  double clip_norm = 0.0;             ///< clip the global gradient norm (0: off)
  Schedule schedule;                  ///< learning rate per step; empty: the optimizer's
  LossKind loss = LossKind::mse;
  double huber_delta = 1.0;
  /// > 0: gradient-enhanced (Sobolev) training: each step's loss adds
  /// gradient_weight times the mean squared misfit of the network's input
  /// Jacobian against Shard::dy (sum_squared_jacobian_error over rows,
  /// outputs and inputs, divided by rows * n_out * n_in), differentiated in
  /// the weights to second order. The validation loss stays the values'.
  double gradient_weight = 0.0;
  std::string csv;                    ///< loss curve written by rank 0 after every epoch ("" : none)
  bool progress = true;               ///< a line per epoch on rank 0
};

struct EpochRecord {
  int epoch = 0;                 ///< 1, 2, ...
  double train_loss = 0.0;
  double val_loss = std::numeric_limits<double>::quiet_NaN();  ///< NaN without validation rows
  double lr = 0.0;               ///< at the epoch's last step
  double samples_per_s = 0.0;    ///< training rows / wall time of the epoch
  double seconds = 0.0;
};

struct TrainResult {
  std::vector<EpochRecord> history;  ///< every epoch, resumed ones included
  int best_epoch = 0;                ///< lowest validation loss (0 without validation)
  bool stopped_early = false;
  std::string summary;               ///< one line: epochs, final and best losses, time
};

class Trainer {
 public:
  /// The model's parameters must be the optimizer's. Collective over comm.
  Trainer(Module& model, Optimizer& optimizer, TrainOptions options,
          MPI_Comm comm = MPI_COMM_WORLD);

  /// Runs epochs epoch() + 1 .. options.epochs (or until early stopping).
  /// Collective; every rank passes its own shard of the same global set.
  TrainResult fit(const Shard& data);

  /// Called on every rank after each epoch (checkpoints go here).
  void on_epoch(std::function<void(const EpochRecord&)> hook) { hook_ = std::move(hook); }

  int epoch() const { return static_cast<int>(history_.size()); }
  const std::vector<EpochRecord>& history() const { return history_; }
  std::string rng_state() const { return rng_.state(); }
  /// Puts back what a checkpoint saved (with the model's and optimizer's
  /// state restored by the caller): the completed epochs and the shuffling
  /// RNG. Also the early-stopping bookkeeping, rebuilt from the history.
  void resume(std::vector<EpochRecord> history, const std::string& rng_state);

 private:
  double evaluate(const Tensor& x, const Tensor& y, index_t global_count, index_t n_out) const;

  Module& model_;
  Optimizer& opt_;
  TrainOptions o_;
  MPI_Comm comm_;
  Rng rng_;
  std::vector<EpochRecord> history_;
  std::function<void(const EpochRecord&)> hook_;
  std::vector<Tensor> best_weights_;  ///< at the best epoch of this run (restore_best)
};

}  // namespace camber::nn
