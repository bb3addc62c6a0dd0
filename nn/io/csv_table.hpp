/// @file
/// camber::nn::io CSV tables — a model's inputs read from a CSV file, and
/// rows of inputs and outputs written as one: what `camber infer` reads
/// and writes besides HDF5 data sets.
///
/// The input file is a header naming the model's inputs (in any order,
/// each once, as `name` or `name [unit]` with the model's own unit), then
/// one row of numbers per line; blank lines and lines starting with `#`
/// are skipped. Fields are read and written as RFC 4180 has them: a field
/// holding a comma or a double quote (a column named `CL, wing`) is in
/// double quotes, its quotes doubled. Every fault is bad_input naming the
/// file and line: an unknown, repeated or missing column, another unit, a
/// row of another length, a value that is not a finite number, a quoted
/// field not closed.
///
/// @code
///   const Tensor x = nn::io::read_input_csv("points.csv", model.inputs());  // {rows, n_in}
///   const Tensor y = model.predict(x);
///   nn::io::write_rows_csv("out/predicted.csv", x, y, model.inputs(), model.outputs(), comm);
/// @endcode
#pragma once

#include <mpi.h>

#include <string>

#include <camber/core/tensor.hpp>
#include <camber/nn/io/dataset.hpp>

namespace camber::nn::io {

/// The rows of the CSV file at `path`, its columns in the order of
/// `inputs`: {rows, inputs.names.size()}, float64. Not collective.
Tensor read_input_csv(const std::string& path, const Columns& inputs);

/// Writes every rank's rows of x {rows, n_in} and y {rows, n_out} (rank
/// order) to `path` on rank 0, atomically: a header `name [unit]` per
/// column, then the values to 17 digits. Collective.
void write_rows_csv(const std::string& path, const Tensor& x, const Tensor& y, const Columns& inputs,
                    const Columns& outputs, MPI_Comm comm);

}  // namespace camber::nn::io
