#include "inference.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include <camber/core/error.hpp>
#include <camber/core/progress.hpp>
#include <camber/core/runtime.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/io/csv_table.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/evaluation.hpp>
#include <camber/nn/io/prediction_check.hpp>
#include <camber/parallel/collectives.hpp>

#include "detail/extension.hpp"

namespace camber::nn::io {

namespace fs = std::filesystem;

namespace {

using detail::lowercase_extension;

// Rows [r.begin, r.end) of a {rows, cols} tensor, float64.
Tensor rows_of(const Tensor& t, RowRange r) {
  const std::vector<double> v = t.to_vector();
  const index_t cols = t.dim(1);
  return Tensor::from_host({r.size(), cols},
                           std::vector<double>(v.begin() + r.begin * cols, v.begin() + r.end * cols));
}

}  // namespace

void check_inference_files(const std::string& input, const std::string& output, index_t batch,
                           MPI_Comm comm) {
  const std::string in_ext = lowercase_extension(input), out_ext = lowercase_extension(output);
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(in_ext == ".csv" || in_ext == ".h5",
                         "infer: input '" << input << "' must be .csv or .h5");
    CAMBER_INPUT_REQUIRE(out_ext == ".csv" || out_ext == ".h5",
                         "infer: output '" << output << "' must be .csv or .h5");
    CAMBER_INPUT_REQUIRE(batch > 0, "infer: --batch must be positive, got " << batch);
    CAMBER_INPUT_REQUIRE(fs::exists(input), "infer: cannot find input '" << input << "'");
  });
}

InferenceResult infer_file(const Model& model, const std::string& input, const std::string& output,
                           index_t batch, MPI_Comm comm, const InferenceHooks& hooks) {
  check_inference_files(input, output, batch, comm);
  const Surrogate& s = model.surrogate;
  InferenceResult result;

  // This rank's rows.
  Tensor x;
  std::unique_ptr<DataSet> data;
  index_t first_row = 0;  // this rank's first, in the input's order
  const PredictionCheck check(model);
  collective_guard(comm, [&] {
    if (lowercase_extension(input) == ".h5") {
      data = std::make_unique<DataSet>(read_dataset(input, comm));
      CAMBER_INPUT_REQUIRE(data->inputs.names == s.inputs().names && data->inputs.units == s.inputs().units,
                           input << ": its inputs are not the model's (names and units, in order)");
      x = data->shard.x;
      result.rows = data->shard.global_rows;
      first_row = data->shard.offset;
    } else {
      const Tensor all = read_input_csv(input, s.inputs());
      result.rows = all.dim(0);
      const RowRange mine = local_rows(result.rows, comm);
      x = rows_of(all, mine);
      first_row = mine.begin;
    }
    // Inputs the model refuses (not finite; outside its training range):
    // before any is predicted.
    const std::vector<double> v = x.to_vector();
    if (const auto fault = check.inputs(v.data(), static_cast<size_t>(x.dim(0)), static_cast<size_t>(first_row)))
      throw_bad_input("infer: " + input + ": " + fault->message);
  });
  if (hooks.read) hooks.read(result.rows);

  const auto t0 = std::chrono::steady_clock::now();
  const index_t rows = x.dim(0), n_out = s.spec().out;
  std::vector<double> y;
  y.reserve(static_cast<size_t>(rows * n_out));
  Progress progress("infer", static_cast<long>(rows));
  for (index_t r0 = 0; r0 < rows; r0 += batch) {
    const index_t r1 = std::min(rows, r0 + batch);
    const std::vector<double> part = s.predict(rows_of(x, {r0, r1})).to_vector();
    y.insert(y.end(), part.begin(), part.end());
    progress.update(static_cast<long>(r1));
  }
  progress.finish();
  collective_guard(comm, [&] {
    if (const auto fault = check.outputs(y.data(), static_cast<size_t>(rows), static_cast<size_t>(first_row)))
      throw_bad_input("infer: " + input + ": " + fault->message);
  });
  const Tensor yt = Tensor::from_host({rows, n_out}, y);
  result.seconds = par::allreduce_max(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), comm);

  // With a data set that has the model's outputs, the error against them.
  if (data && data->outputs.names == s.outputs().names)
    result.rmse = output_rmse(s, *data, 0, result.rows, comm);
  if (hooks.predicted) hooks.predicted(result);

  if (lowercase_extension(output) == ".h5")
    write_dataset(output, x, yt, s.inputs(), s.outputs(), comm);
  else
    write_rows_csv(output, x, yt, s.inputs(), s.outputs(), comm);
  return result;
}

}  // namespace camber::nn::io
