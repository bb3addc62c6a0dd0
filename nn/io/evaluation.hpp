/// @file
/// camber::nn::io evaluation — a surrogate's errors on a data set read over
/// the ranks, and its int8 calibration on the set's rows: what `camber
/// train` reports on its validation rows and what `camber quantize` does.
///
/// Each rank holds its rows of the set (read_dataset); every function here
/// is collective over the communicator the set was read on and returns the
/// same figures on every rank, whatever their number. Rows are named by
/// their global index: [first, last) of the whole set.
///
/// @code
///   const nn::io::DataSet data = nn::io::read_dataset("flows.h5", comm);
///   const index_t rows = data.shard.global_rows, val = rows / 5;
///   std::vector<double> rmse = nn::io::output_rmse(s, data, rows - val, rows, comm);
///   // rmse[k]: output k, in the data's units
///   nn::Surrogate q = nn::io::calibrate_int8(s, data, 1000, comm);  // the first 1000 rows
///   nn::io::Int8Model m = nn::io::quantize_model(model, data, "flows.h5", 0, comm);  // all rows
///   nn::io::quantize_file(model, "flows.h5", "out/int8.h5", 0, comm);  // read, quantize, save
/// @endcode
#pragma once

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/surrogate.hpp>

namespace camber::nn::io {

/// The root-mean-square error of `s.predict` against the set's outputs over
/// the rows [first, last), per output, in the data's units. 0 for every
/// output when the range is empty.
std::vector<double> output_rmse(const Surrogate& s, const DataSet& data, index_t first,
                                index_t last, MPI_Comm comm);

/// The relative error of the network's input Jacobian against the set's
/// gradients over the rows [first, last), per output (Frobenius norms over
/// the rows; nn::jacobian_misfit). bad_input when the set holds no
/// gradients.
std::vector<double> jacobian_relative_error(const Surrogate& s, const DataSet& data,
                                            index_t first, index_t last, MPI_Comm comm);

/// The smallest and largest value of each input over every row of the set
/// (the box a surrogate trained on it may be trusted in). bad_input for an
/// empty set.
std::pair<std::vector<double>, std::vector<double>> input_range(const DataSet& data, MPI_Comm comm);

/// The int8 network of `s` (nn::quantize_int8) calibrated on the first
/// `rows` rows of the set (all of them when rows <= 0 or beyond the set):
/// the largest |input| of each dense layer over those rows of every rank.
Surrogate calibrate_int8(const Surrogate& s, const DataSet& data, index_t rows, MPI_Comm comm);

/// A trained model's int8 version (what `camber quantize` writes) and
/// the errors that tell what quantization cost.
struct Int8Model {
  Surrogate network;      ///< calibrate_int8 on the first calibration_rows rows
  /// The model's card for the int8 file: its validation error is the int8
  /// network's on the same validation rows when the set is the one the
  /// model was validated on (same rows, same SHA-256), else none (no
  /// rows, no error) rather than the float network's.
  ModelCard card;
  index_t calibration_rows = 0;
  std::vector<double> float_rmse, int8_rmse;  ///< on every row of the set, per output
  bool revalidated = false;                   ///< card holds the int8 validation error
  index_t set_rows = 0;                       ///< the set's rows, over all ranks
};

/// quantize_model(model, set, the set's file, rows): bad_input when the
/// set's columns are not the model's or the model is int8 already. rows
/// <= 0: all. Collective.
Int8Model quantize_model(const Model& model, const DataSet& data, const std::string& data_path,
                         index_t calibration_rows, MPI_Comm comm);

/// The checks quantize_file makes before it reads anything: both files
/// .h5, calibration_rows >= 0, the data set exists (bad_input). For a
/// caller that loads the model after them. Collective.
void check_quantize_files(const std::string& data_path, const std::string& output,
                          index_t calibration_rows, MPI_Comm comm);

/// Reads the data set at `data_path`, quantizes `model` on it
/// (quantize_model) and saves the int8 model and its card to `output`
/// (rank 0 writes): what `camber quantize` does. Collective.
Int8Model quantize_file(const Model& model, const std::string& data_path, const std::string& output,
                        index_t calibration_rows, MPI_Comm comm);

}  // namespace camber::nn::io
