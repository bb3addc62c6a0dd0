#include <camber/nn/io/dataset.hpp>

#include <cmath>
#include <sstream>

#include "detail/lines.hpp"

#include <camber/core/error.hpp>
#include <camber/trust/signature.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

namespace camber::nn::io {

namespace {

constexpr const char* dataset_format = "camber-nn-dataset";
constexpr std::int64_t dataset_version = 1;

void check_columns(const Columns& c, index_t n, const char* what) {
  CAMBER_INPUT_REQUIRE(static_cast<index_t>(c.names.size()) == n && c.units.size() == c.names.size(),
                       "write_dataset: " << n << " " << what << " columns need " << n
                                         << " names and units, got " << c.names.size() << " and "
                                         << c.units.size());
  for (const std::string& s : c.names)
    CAMBER_INPUT_REQUIRE(!s.empty() && s.find('\n') == std::string::npos,
                         "write_dataset: column names must be non-empty single lines");
}

Normalization statistics(const Tensor& local, index_t global_rows, MPI_Comm comm) {
  const index_t rows = local.dim(0), cols = local.dim(1);
  const std::vector<double> v = local.to(DType::float64).to_vector();
  std::vector<double> sums(static_cast<size_t>(2 * cols), 0.0);
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) sums[static_cast<size_t>(j)] += v[static_cast<size_t>(i * cols + j)];
  Tensor s = Tensor::from_host({2 * cols}, sums);
  par::allreduce_sum_in_place(s, comm);  // first the sums, for the means
  std::vector<double> mean(static_cast<size_t>(cols));
  const std::vector<double> total = s.to_vector();
  for (index_t j = 0; j < cols; ++j)
    mean[static_cast<size_t>(j)] = total[static_cast<size_t>(j)] / static_cast<double>(global_rows);
  // Then the centred squares (two passes: no cancellation).
  std::vector<double> sq(static_cast<size_t>(cols), 0.0);
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < cols; ++j) {
      const double d = v[static_cast<size_t>(i * cols + j)] - mean[static_cast<size_t>(j)];
      sq[static_cast<size_t>(j)] += d * d;
    }
  Tensor q = Tensor::from_host({cols}, sq);
  par::allreduce_sum_in_place(q, comm);
  Normalization n;
  n.mean = mean;
  for (double x : q.to_vector()) {
    const double sd = std::sqrt(x / static_cast<double>(global_rows));
    n.stddev.push_back(sd > 0.0 ? sd : 1.0);
  }
  return n;
}

}  // namespace

Shard DataSet::normalized() const {
  Shard s = shard;
  s.x = input_stats.apply(shard.x);
  s.y = output_stats.apply(shard.y);
  if (gradients.rank() == 3) s.dy = normalize_gradients(gradients, input_stats, output_stats);
  return s;
}

void write_dataset(const std::string& path, const Tensor& local_inputs, const Tensor& local_outputs,
                   const Columns& inputs, const Columns& outputs, MPI_Comm comm,
                   const std::string& deck, const Tensor& local_gradients) {
  CAMBER_REQUIRE(local_inputs.rank() == 2 && local_outputs.rank() == 2 &&
                     local_inputs.dim(0) == local_outputs.dim(0),
                 "write_dataset: inputs " << shape_string(local_inputs.shape()) << " and outputs "
                                          << shape_string(local_outputs.shape())
                                          << " must be {rows, columns} with the same rows");
  check_columns(inputs, local_inputs.dim(1), "input");
  check_columns(outputs, local_outputs.dim(1), "output");
  const bool with_gradients = local_gradients.size() > 0 || local_gradients.rank() > 0;
  CAMBER_REQUIRE(!with_gradients ||
                     local_gradients.shape() == (Shape{local_inputs.dim(0), local_outputs.dim(1),
                                                       local_inputs.dim(1)}),
                 "write_dataset: gradients " << shape_string(local_gradients.shape())
                                             << " must be {rows, outputs, inputs}");
  const index_t rows = static_cast<index_t>(
      par::allreduce_sum(static_cast<double>(local_inputs.dim(0)), comm));
  const Normalization si = statistics(local_inputs, rows, comm);
  const Normalization so = statistics(local_outputs, rows, comm);
  camber::io::H5File f(path, camber::io::Mode::create, comm);
  f.write("inputs", local_inputs.to(DType::float64));
  f.write("outputs", local_outputs.to(DType::float64));
  if (with_gradients)
    f.write("gradients", local_gradients.to(DType::float64)
                             .reshape({local_inputs.dim(0), local_outputs.dim(1) * local_inputs.dim(1)}));
  f.set_attribute("inputs", "names", detail::join_lines(inputs.names));
  f.set_attribute("inputs", "units", detail::join_lines(inputs.units));
  f.set_attribute("outputs", "names", detail::join_lines(outputs.names));
  f.set_attribute("outputs", "units", detail::join_lines(outputs.units));
  const auto vec = [](const std::vector<double>& v) {
    return Tensor::from_host({static_cast<index_t>(v.size())}, v);
  };
  f.write_replicated("stats/input_mean", vec(si.mean));
  f.write_replicated("stats/input_std", vec(si.stddev));
  f.write_replicated("stats/output_mean", vec(so.mean));
  f.write_replicated("stats/output_std", vec(so.stddev));
  f.set_attribute("", "format", dataset_format);
  f.set_attribute("", "version", dataset_version);
  f.set_attribute("", "rows", static_cast<std::int64_t>(rows));
  if (!deck.empty()) f.set_attribute("", "deck", deck);
  f.close();
}

namespace {

// A data set opened for reading over `comm`: every rank checks the
// signature (when keys are trusted) before HDF5 reads a byte, then the
// format attribute.
camber::io::H5File open_dataset(const std::string& path, MPI_Comm comm) {
  trust::require_signed(path, "data set");
  camber::io::H5File f(path, camber::io::Mode::read, comm);
  CAMBER_INPUT_REQUIRE(f.has_attribute("", "format") &&
                           f.attribute<std::string>("", "format") == dataset_format,
                       path << ": not a Camber data set (no format attribute '" << dataset_format
                            << "')");
  return f;
}

}  // namespace

DataSet read_dataset(const std::string& path, MPI_Comm comm) {
  camber::io::H5File f = open_dataset(path, comm);
  const std::int64_t version = f.attribute<std::int64_t>("", "version");
  CAMBER_INPUT_REQUIRE(version == dataset_version, path << ": data set format version " << version
                                                        << ", this build reads version "
                                                        << dataset_version);
  for (const char* name : {"inputs", "outputs", "stats/input_mean", "stats/input_std",
                           "stats/output_mean", "stats/output_std"})
    CAMBER_INPUT_REQUIRE(f.has_dataset(name), path << ": missing dataset '" << name << "'");
  const Shape si = f.shape("inputs"), so = f.shape("outputs");
  CAMBER_INPUT_REQUIRE(si.size() == 2 && so.size() == 2 && si[0] == so[0],
                       path << ": inputs " << shape_string(si) << " and outputs " << shape_string(so)
                            << " must be {rows, columns} with the same rows");
  DataSet d;
  d.shard.x = f.read("inputs");
  d.shard.y = f.read("outputs");
  if (f.has_dataset("gradients")) {
    const Shape sg = f.shape("gradients");
    CAMBER_INPUT_REQUIRE(sg.size() == 2 && sg[0] == si[0] && sg[1] == si[1] * so[1],
                         path << ": gradients " << shape_string(sg) << " for " << si[0] << " rows of "
                              << so[1] << " outputs and " << si[1] << " inputs (expected {"
                              << si[0] << ", " << so[1] * si[1] << "})");
    const Tensor g = f.read("gradients");
    d.gradients = g.reshape({g.dim(0), so[1], si[1]});
    for (double v : d.gradients.to_vector())
      CAMBER_INPUT_REQUIRE(std::isfinite(v), path << ": a gradient holds " << v);
  }
  d.shard.global_rows = si[0];
  d.shard.offset = camber::io::even_row_block(si[0], comm_rank(comm), comm_size(comm)).offset;
  d.inputs.names = detail::split_lines(f.attribute<std::string>("inputs", "names"), 0);
  d.inputs.units = detail::split_lines(f.attribute<std::string>("inputs", "units"), d.inputs.names.size());
  d.outputs.names = detail::split_lines(f.attribute<std::string>("outputs", "names"), 0);
  d.outputs.units = detail::split_lines(f.attribute<std::string>("outputs", "units"), d.outputs.names.size());
  CAMBER_INPUT_REQUIRE(static_cast<index_t>(d.inputs.names.size()) == si[1] &&
                           static_cast<index_t>(d.outputs.names.size()) == so[1],
                       path << ": " << d.inputs.names.size() << " input and "
                            << d.outputs.names.size() << " output names for " << si[1] << " and "
                            << so[1] << " columns");
  const auto read_vec = [&](const char* name, index_t n) {
    const Tensor t = f.read_all(name);
    CAMBER_INPUT_REQUIRE(t.rank() == 1 && t.dim(0) == n,
                         path << ": '" << name << "' has shape " << shape_string(t.shape())
                              << ", expected {" << n << "}");
    return t.to_vector();
  };
  d.input_stats.mean = read_vec("stats/input_mean", si[1]);
  d.input_stats.stddev = read_vec("stats/input_std", si[1]);
  d.output_stats.mean = read_vec("stats/output_mean", so[1]);
  d.output_stats.stddev = read_vec("stats/output_std", so[1]);
  for (double s : d.input_stats.stddev)
    CAMBER_INPUT_REQUIRE(s > 0.0, path << ": a non-positive input std " << s);
  for (double s : d.output_stats.stddev)
    CAMBER_INPUT_REQUIRE(s > 0.0, path << ": a non-positive output std " << s);
  f.close();
  return d;
}

DataSetInfo dataset_info(const std::string& path) {
  camber::io::H5File f = open_dataset(path, MPI_COMM_SELF);
  for (const char* name : {"inputs", "outputs"})
    CAMBER_INPUT_REQUIRE(f.has_dataset(name), path << ": missing dataset '" << name << "'");
  const Shape si = f.shape("inputs"), so = f.shape("outputs");
  CAMBER_INPUT_REQUIRE(si.size() == 2 && so.size() == 2 && si[0] == so[0],
                       path << ": inputs " << shape_string(si) << " and outputs " << shape_string(so)
                            << " must be {rows, columns} with the same rows");
  DataSetInfo info;
  info.rows = si[0];
  info.inputs = si[1];
  info.outputs = so[1];
  info.gradients = f.has_dataset("gradients");
  return info;
}

std::string dataset_deck(const std::string& path) {
  camber::io::H5File f = open_dataset(path, MPI_COMM_SELF);
  return f.has_attribute("", "deck") ? f.attribute<std::string>("", "deck") : std::string();
}

}  // namespace camber::nn::io
