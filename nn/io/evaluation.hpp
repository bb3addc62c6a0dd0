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
/// @endcode
#pragma once

#include <mpi.h>

#include <utility>
#include <vector>

#include <camber/nn/io/dataset.hpp>
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

}  // namespace camber::nn::io
