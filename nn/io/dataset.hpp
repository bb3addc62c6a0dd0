/// @file
/// Data sets for camber::nn in HDF5: inputs and outputs as named columns
/// with units, and their normalisation statistics stored beside the data.
///
/// File layout (one file, written collectively, atomically):
/// @code
///   /inputs    {rows, n_in}   float64, attributes names, units ("\n"-joined)
///   /outputs   {rows, n_out}  float64, the same attributes
///   /gradients {rows, n_out * n_in} float64, optional: d outputs[m] / d inputs[k]
///              at column m * n_in + k (what `camber sample` writes from
///              adjoint solves, for gradient-enhanced training)
///   /stats/input_mean, /stats/input_std, /stats/output_mean, /stats/output_std
///   root attributes: format = "camber-nn-dataset", version = 1, rows,
///                    deck (the producing deck's text; may be absent)
/// @endcode
/// The statistics are over all rows (std with 1/n; a constant column gets
/// std 1, so normalising leaves it at zero). read_dataset() reads only this
/// rank's block of rows (an even split, or the rows asked for), so no rank
/// holds the whole set.
///
/// @code
///   nn::io::DataSet d = nn::io::read_dataset("samples.h5", comm);
///   nn::Shard s = d.normalized();        // (x - mean) / std, per column
/// @endcode
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include <camber/nn/normalization.hpp>
#include <camber/nn/trainer.hpp>

namespace camber::nn::io {

struct DataSet {
  Shard shard;  ///< this rank's rows, raw
  /// This rank's rows of d outputs / d inputs, {rows, n_out, n_in}, raw
  /// units; empty (Tensor()) when the file holds none.
  Tensor gradients;
  Columns inputs, outputs;
  Normalization input_stats, output_stats;
  /// The shard with inputs and outputs normalised by the stored statistics
  /// (and the gradients, when held, as d y_n / d x_n in its dy).
  Shard normalized() const;
};

/// Writes a data set; each rank passes its rows (stacked in rank order).
/// Collective. Names and units must be given for every column, and be the
/// same on every rank.
/// `local_gradients`: this rank's rows of d outputs / d inputs, {rows,
/// n_out, n_in} (Tensor(): none).
void write_dataset(const std::string& path, const Tensor& local_inputs,
                   const Tensor& local_outputs, const Columns& inputs, const Columns& outputs,
                   MPI_Comm comm, const std::string& deck = "",
                   const Tensor& local_gradients = Tensor());
/// The text of the deck that made the data set (root attribute `deck`,
/// written by `camber sample`), or "" when it records none. Not
/// collective (reads on this rank alone); the signature gate applies.
std::string dataset_deck(const std::string& path);
/// What a data set file holds, without its rows: for checks before a run.
struct DataSetInfo {
  index_t rows = 0, inputs = 0, outputs = 0;
  bool gradients = false;
};
/// Not collective (reads on this rank alone); the signature gate applies.
DataSetInfo dataset_info(const std::string& path);

/// Reads this rank's even block of rows, the columns and the statistics.
/// A missing file, a file of another format or version, or inconsistent
/// shapes are errors naming the file (bad input: exit code 2 in apps).
DataSet read_dataset(const std::string& path, MPI_Comm comm);

}  // namespace camber::nn::io
