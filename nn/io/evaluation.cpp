#include "evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>

#include "detail/extension.hpp"

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/nn/quantize.hpp>
#include <camber/nn/trainer.hpp>
#include <camber/parallel/collectives.hpp>

namespace camber::nn::io {

namespace {

// This rank's rows of [first, last), as a local [begin, end).
struct LocalRows {
  index_t begin = 0, end = 0;
  bool empty() const { return end <= begin; }
};

LocalRows local_part(const DataSet& data, index_t first, index_t last) {
  const index_t rows = data.shard.x.dim(0), off = data.shard.offset;
  LocalRows r;
  r.begin = std::clamp<index_t>(first - off, 0, rows);
  r.end = std::clamp<index_t>(last - off, 0, rows);
  return r;
}

std::vector<double> summed(std::vector<double> v, MPI_Comm comm) {
  Tensor t = Tensor::from_host({static_cast<index_t>(v.size())}, v);
  par::allreduce_sum_in_place(t, comm);
  return t.to_vector();
}

}  // namespace

std::vector<double> output_rmse(const Surrogate& s, const DataSet& data, index_t first,
                                index_t last, MPI_Comm comm) {
  const size_t n_out = static_cast<size_t>(s.spec().out);
  std::vector<double> sq(n_out, 0.0);
  const LocalRows r = local_part(data, first, last);
  if (!r.empty()) {
    const std::vector<double> p = s.predict(row_range(data.shard.x, r.begin, r.end)).to_vector();
    const std::vector<double> t = row_range(data.shard.y, r.begin, r.end).to_vector();
    for (size_t i = 0; i < p.size(); ++i) sq[i % n_out] += (p[i] - t[i]) * (p[i] - t[i]);
  }
  const std::vector<double> total = summed(sq, comm);
  const index_t n = std::max<index_t>(0, std::min(last, data.shard.global_rows) - std::max<index_t>(first, 0));
  std::vector<double> rmse(n_out, 0.0);
  if (n > 0)
    for (size_t k = 0; k < n_out; ++k) rmse[k] = std::sqrt(total[k] / static_cast<double>(n));
  return rmse;
}

std::vector<double> jacobian_relative_error(const Surrogate& s, const DataSet& data,
                                            index_t first, index_t last, MPI_Comm comm) {
  CAMBER_INPUT_REQUIRE(data.gradients.rank() == 3,
                       "the data set holds no gradients to compare the network's Jacobian with");
  const LocalRows r = local_part(data, first, last);
  JacobianMisfit m = jacobian_misfit(s, row_range(data.shard.x, r.begin, r.end).to(DType::float64),
                                     row_range(data.gradients, r.begin, r.end));
  m.squared_error = summed(m.squared_error, comm);
  m.squared_reference = summed(m.squared_reference, comm);
  return m.relative();
}

std::pair<std::vector<double>, std::vector<double>> input_range(const DataSet& data, MPI_Comm comm) {
  CAMBER_INPUT_REQUIRE(data.shard.global_rows > 0, "the data set has no rows");
  const size_t n_in = static_cast<size_t>(data.shard.x.dim(1));
  std::vector<double> lo(n_in, std::numeric_limits<double>::infinity());
  std::vector<double> hi(n_in, -std::numeric_limits<double>::infinity());
  const std::vector<double> xs = data.shard.x.to(DType::float64).to_vector();
  for (size_t i = 0; i < xs.size(); ++i) {
    lo[i % n_in] = std::min(lo[i % n_in], xs[i]);
    hi[i % n_in] = std::max(hi[i % n_in], xs[i]);
  }
  for (size_t j = 0; j < n_in; ++j) {
    lo[j] = par::allreduce_min(lo[j], comm);
    hi[j] = par::allreduce_max(hi[j], comm);
  }
  return {lo, hi};
}

Surrogate calibrate_int8(const Surrogate& s, const DataSet& data, index_t rows, MPI_Comm comm) {
  const index_t global = data.shard.global_rows;
  const index_t want = rows > 0 ? std::min(rows, global) : global;
  const LocalRows r = local_part(data, 0, want);
  std::vector<double> maxima(s.network().named_parameters().size() / 2, 0.0);
  if (!r.empty()) maxima = s.dense_input_max(row_range(data.shard.x, r.begin, r.end));
  for (double& v : maxima) v = par::allreduce_max(v, comm);
  return quantize_int8(s, maxima);
}

Int8Model quantize_model(const Model& model, const DataSet& data, const std::string& data_path,
                         index_t calibration_rows, MPI_Comm comm) {
  const Surrogate& f = model.surrogate;
  CAMBER_INPUT_REQUIRE(data.inputs.names == f.inputs().names && data.outputs.names == f.outputs().names,
                       data_path << ": its columns are not the model's");
  CAMBER_INPUT_REQUIRE(!f.quantized(), "quantize: the model (" << model.sha256.substr(0, 12) << ") is int8 already");
  const index_t global = data.shard.global_rows;
  const index_t rows = calibration_rows > 0 ? std::min<index_t>(calibration_rows, global) : global;
  Int8Model out{calibrate_int8(f, data, rows, comm), model.card, rows, {}, {}, false};
  out.card.created.clear();  // save_model stamps the time of the new file
  bool same_data = out.card.validation_rows > 0 && out.card.data_rows == global;
  if (same_data) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const double same = rank == 0 && sha256_file(data_path) == out.card.data_sha256 ? 1.0 : 0.0;
    same_data = par::allreduce_max(same, comm) > 0.0;
  }
  out.float_rmse = output_rmse(f, data, 0, global, comm);
  out.int8_rmse = output_rmse(out.network, data, 0, global, comm);
  if (same_data) {
    out.card.validation_rmse = output_rmse(out.network, data, global - out.card.validation_rows, global, comm);
  } else {
    out.card.validation_rows = 0;
    out.card.validation_rmse.clear();
  }
  out.revalidated = same_data;
  out.set_rows = global;
  return out;
}

void check_quantize_files(const std::string& data_path, const std::string& output,
                          index_t calibration_rows, MPI_Comm comm) {
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(detail::lowercase_extension(data_path) == ".h5",
                         "quantize: data '" << data_path << "' must be an .h5 data set");
    CAMBER_INPUT_REQUIRE(detail::lowercase_extension(output) == ".h5",
                         "quantize: output '" << output << "' must end in .h5");
    CAMBER_INPUT_REQUIRE(calibration_rows >= 0, "quantize: --calibration-rows must be >= 0");
    CAMBER_INPUT_REQUIRE(std::filesystem::exists(data_path),
                         "quantize: cannot find data '" << data_path << "'");
  });
}

Int8Model quantize_file(const Model& model, const std::string& data_path, const std::string& output,
                        index_t calibration_rows, MPI_Comm comm) {
  check_quantize_files(data_path, output, calibration_rows, comm);
  std::unique_ptr<DataSet> data;
  std::unique_ptr<Int8Model> q;
  collective_guard(comm, [&] { data = std::make_unique<DataSet>(read_dataset(data_path, comm)); });
  collective_guard(comm, [&] {
    q = std::make_unique<Int8Model>(quantize_model(model, *data, data_path, calibration_rows, comm));
  });
  collective_guard(comm, [&] {
    if (comm_rank(comm) == 0) save_model(output, q->network, q->card);
  });
  return std::move(*q);
}

}  // namespace camber::nn::io
