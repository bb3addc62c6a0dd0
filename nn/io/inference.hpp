/// @file
/// camber::nn::io inference on files — a trained model's predictions for
/// every row of a CSV table or an HDF5 data set, written as either: what
/// `camber infer` runs.
///
/// Each rank predicts its block of rows (nn::local_rows; a data set is read
/// a block at a time, a CSV table is parsed on every rank, so that its
/// line numbers are in every message), `batch` rows per Surrogate::predict
/// call, and the rows are written in rank order, so the file does not
/// depend on the number of ranks. When the input is a data set holding the
/// model's outputs, the result carries the root-mean-square error of the
/// predictions against them (output_rmse over every row).
///
/// @code
///   const nn::io::Model model = nn::io::load_model("out/naca_model.h5");
///   const nn::io::InferenceResult r =
///       nn::io::infer_file(model, "flows.h5", "out/predicted.csv", 4096, comm);
///   // r.rows rows in r.seconds s; r.rmse[k]: output k against flows.h5's
/// @endcode
///
/// Every fault is bad_input on every rank (collective_guard): an input or
/// output that is neither .csv nor .h5, a batch that is not positive, a
/// missing input, a data set whose inputs are not the model's, every
/// fault read_input_csv and read_dataset report, an input the model
/// refuses (PredictionCheck: not finite, or outside the card's training
/// range under extrapolation: refuse; checked before any row is
/// predicted) and an output that is not finite, each naming the row
/// (counted from 0 in the input's order, blank and comment lines not
/// counted) and the column.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/nn/io/model_file.hpp>

namespace camber::nn::io {

/// What infer_file did.
struct InferenceResult {
  index_t rows = 0;      ///< rows of the input, over all ranks
  double seconds = 0.0;  ///< the slowest rank's time predicting (not reading or writing)
  /// Per output, against the data set's outputs: empty when the input is
  /// a CSV table or a data set without the model's outputs.
  std::vector<double> rmse;
};

/// Called on every rank as infer_file goes; either may be empty.
struct InferenceHooks {
  /// The input is read: its rows over all ranks (before predicting).
  std::function<void(index_t rows)> read;
  /// The rows are predicted (the result complete), before the output is written.
  std::function<void(const InferenceResult&)> predicted;
};

/// The checks infer_file makes before it reads anything: extensions, the
/// batch and that the input exists. For a caller that loads the model
/// after them (a missing input is reported before a model's faults).
/// Collective.
void check_inference_files(const std::string& input, const std::string& output, index_t batch,
                           MPI_Comm comm);

/// Predicts every row of `input` (.csv or .h5) with `model` and writes the
/// inputs and predictions to `output` (.csv: write_rows_csv, .h5:
/// write_dataset), `batch` rows per call; a progress line (camber::Progress,
/// label "infer") on long runs. Collective.
InferenceResult infer_file(const Model& model, const std::string& input, const std::string& output,
                           index_t batch, MPI_Comm comm, const InferenceHooks& hooks = {});

}  // namespace camber::nn::io
