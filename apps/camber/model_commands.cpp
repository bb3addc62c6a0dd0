#include "model_commands.hpp"

#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <thread>
#include <sstream>

#include <camber/core/config.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/quantize.hpp>
#include <camber/nn/registry/registry.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/progress.hpp>
#if CAMBER_WITH_ONNX
#include <camber/nn/onnx/onnx_export.hpp>
#endif
#if CAMBER_WITH_SERVE
#include <camber/nn/serve/server.hpp>
#endif

namespace camber::app {

namespace fs = std::filesystem;

namespace {

// A model file, or a registry reference (NAME@VERSION, NAME@STAGE).
std::unique_ptr<nn::io::Model> load_everywhere(const std::string& model, MPI_Comm comm) {
  std::unique_ptr<nn::io::Model> m;
  collective_guard(comm, [&] {
    m = std::make_unique<nn::io::Model>(nn::io::load_model(nn::registry::resolve_model_path(model)));
  });
  return m;
}

std::string extension(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

// A CSV of the model's inputs: a header naming them (in any order, each
// once, "name" or "name [unit]" with the model's unit), then one row per
// line. Blank lines and lines starting with '#' are skipped. Every fault
// names the file and line.
Tensor read_csv(const std::string& path, const nn::Surrogate& s) {
  std::ifstream in(path);
  CAMBER_INPUT_REQUIRE(in.good(), "cannot open '" << path << "'");
  const nn::Columns& want = s.inputs();
  const size_t n_in = want.names.size();
  std::vector<size_t> column_of;  // header cell -> model input
  std::vector<double> values;
  std::string line;
  long lineno = 0, rows = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    const std::vector<std::string> cells = split_commas(t);
    if (!header) {
      header = true;
      std::vector<int> seen(n_in, 0);
      for (const std::string& cell : cells) {
        std::string name = cell, unit;
        const size_t open = cell.find('[');
        if (open != std::string::npos) {
          CAMBER_INPUT_REQUIRE(cell.back() == ']', path << ":" << lineno << ": column '" << cell
                                                        << "': write a unit as 'name [unit]'");
          name = trim(cell.substr(0, open));
          unit = trim(cell.substr(open + 1, cell.size() - open - 2));
        }
        size_t k = 0;
        while (k < n_in && want.names[k] != name) ++k;
        std::string list;
        for (const std::string& n : want.names) list += (list.empty() ? "" : ", ") + n;
        CAMBER_INPUT_REQUIRE(k < n_in, path << ":" << lineno << ": column '" << name
                                            << "' is not an input of the model (" << list << ")");
        CAMBER_INPUT_REQUIRE(++seen[k] == 1, path << ":" << lineno << ": column '" << name
                                                  << "' appears twice");
        CAMBER_INPUT_REQUIRE(open == std::string::npos || unit == want.units[k],
                             path << ":" << lineno << ": column '" << name << "' in '" << unit
                                  << "', the model's unit is '" << want.units[k] << "'");
        column_of.push_back(k);
      }
      for (size_t k = 0; k < n_in; ++k)
        CAMBER_INPUT_REQUIRE(seen[k] == 1, path << ":" << lineno << ": no column '"
                                                << want.names[k] << "' (an input of the model)");
      continue;
    }
    CAMBER_INPUT_REQUIRE(cells.size() == n_in, path << ":" << lineno << ": " << cells.size()
                                                    << " values, the header has " << n_in);
    std::vector<double> row(n_in);
    for (size_t c = 0; c < cells.size(); ++c) {
      char* end = nullptr;
      const double v = std::strtod(cells[c].c_str(), &end);
      CAMBER_INPUT_REQUIRE(!cells[c].empty() && end == cells[c].c_str() + cells[c].size() &&
                               std::isfinite(v),
                           path << ":" << lineno << ": '" << cells[c] << "' in column '"
                                << want.names[column_of[c]] << "' is not a finite number");
      row[column_of[c]] = v;
    }
    values.insert(values.end(), row.begin(), row.end());
    ++rows;
  }
  CAMBER_INPUT_REQUIRE(header, path << ": empty (a header naming the inputs is needed)");
  return Tensor::from_host({static_cast<index_t>(rows), static_cast<index_t>(n_in)}, values);
}

// Rows [r.begin, r.end) of a {rows, cols} tensor.
Tensor rows_of(const Tensor& t, nn::RowRange r) {
  const std::vector<double> v = t.to_vector();
  const index_t cols = t.dim(1);
  return Tensor::from_host({r.size(), cols},
                           std::vector<double>(v.begin() + r.begin * cols, v.begin() + r.end * cols));
}

std::string header_cell(const nn::Columns& c, size_t k) {
  return c.names[k] + (c.units[k].empty() ? "" : " [" + c.units[k] + "]");
}

// Gathers every rank's rows of `x` and `y` to rank 0 and writes them there.
void write_csv(const std::string& path, const Tensor& x, const Tensor& y, const nn::Surrogate& s,
               MPI_Comm comm) {
  const int size = static_cast<int>(comm_size(comm)), rank = static_cast<int>(comm_rank(comm));
  const index_t n_in = x.dim(1), n_out = y.dim(1);
  std::vector<double> mine;
  const std::vector<double> xv = x.to_vector(), yv = y.to_vector();
  for (index_t r = 0; r < x.dim(0); ++r) {
    mine.insert(mine.end(), xv.begin() + r * n_in, xv.begin() + (r + 1) * n_in);
    mine.insert(mine.end(), yv.begin() + r * n_out, yv.begin() + (r + 1) * n_out);
  }
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size), 0);
  CAMBER_CHECK_MPI(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm));
  for (int r = 1; r < size; ++r) displs[static_cast<size_t>(r)] = displs[static_cast<size_t>(r - 1)] + counts[static_cast<size_t>(r - 1)];
  std::vector<double> all(rank == 0 ? static_cast<size_t>(displs.back() + counts.back()) : 0);
  CAMBER_CHECK_MPI(MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(),
                               displs.data(), MPI_DOUBLE, 0, comm));
  collective_guard(comm, [&] {
    if (rank != 0) return;
    if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path());
    std::ofstream out(path);
    CAMBER_INPUT_REQUIRE(out.good(), "cannot write '" << path << "'");
    for (index_t k = 0; k < n_in; ++k) out << (k ? "," : "") << header_cell(s.inputs(), static_cast<size_t>(k));
    for (index_t k = 0; k < n_out; ++k) out << "," << header_cell(s.outputs(), static_cast<size_t>(k));
    out << "\n" << std::setprecision(17);
    const size_t w = static_cast<size_t>(n_in + n_out);
    for (size_t i = 0; i < all.size(); i += w) {
      for (size_t k = 0; k < w; ++k) out << (k ? "," : "") << all[i + k];
      out << "\n";
    }
    CAMBER_REQUIRE(out.good(), "writing '" << path << "' failed");
  });
}

}  // namespace

int command_model_info(const std::string& model, const Runtime& runtime) {
  const std::unique_ptr<nn::io::Model> m = load_everywhere(model, runtime.comm());
  if (runtime.rank() == 0) std::cout << nn::io::describe_model(*m, model) << std::flush;
  return 0;
}

#if CAMBER_WITH_ONNX
int command_export(const std::string& model, const std::string& output, const Runtime& runtime) {
  const MPI_Comm comm = runtime.comm();
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(extension(output) == ".onnx",
                         "export: output '" << output << "' must end in .onnx");
  });
  const std::unique_ptr<nn::io::Model> m = load_everywhere(model, comm);
  nn::onnx::OnnxOptions o;
  o.graph_name = fs::path(model).stem().string();
  const nn::io::ModelCard& c = m->card;
  o.metadata = {{"camber.model_sha256", m->sha256},
                {"camber.data_path", c.data_path},
                {"camber.data_sha256", c.data_sha256},
                {"camber.created", c.created},
                {"camber.git_revision", c.git_revision}};
  std::ostringstream rmse;
  rmse << std::setprecision(17);
  for (size_t k = 0; k < c.validation_rmse.size(); ++k) rmse << (k ? "," : "") << c.validation_rmse[k];
  o.metadata.emplace_back("camber.validation_rmse", rmse.str());
  collective_guard(comm, [&] {
    if (runtime.rank() == 0) nn::onnx::export_onnx(m->surrogate, output, o);
  });
  logging::info(CAMBER_MSG("export: " << model << " -> " << output << " (ONNX opset 13, "
                                      << dtype_name(m->surrogate.spec().dtype) << ", "
                                      << fs::file_size(output) << " bytes)"));
  return 0;
}
#endif

int command_quantize(const QuantizeOptions& o, const Runtime& runtime) {
  const MPI_Comm comm = runtime.comm();
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(extension(o.data) == ".h5", "quantize: data '" << o.data
                                                                         << "' must be an .h5 data set");
    CAMBER_INPUT_REQUIRE(extension(o.output) == ".h5", "quantize: output '" << o.output
                                                                             << "' must end in .h5");
    CAMBER_INPUT_REQUIRE(o.calibration_rows >= 0, "quantize: --calibration-rows must be >= 0");
    CAMBER_INPUT_REQUIRE(fs::exists(o.data), "quantize: cannot find data '" << o.data << "'");
  });
  const std::unique_ptr<nn::io::Model> m = load_everywhere(o.model, comm);
  const nn::Surrogate& f = m->surrogate;
  std::unique_ptr<nn::io::DataSet> data;
  collective_guard(comm, [&] {
    data = std::make_unique<nn::io::DataSet>(nn::io::read_dataset(o.data, comm));
    CAMBER_INPUT_REQUIRE(data->inputs.names == f.inputs().names && data->outputs.names == f.outputs().names,
                         o.data << ": its columns are not the model's");
    CAMBER_INPUT_REQUIRE(!f.quantized(), "quantize: " << o.model << " is int8 already");
  });
  // Calibration: the first calibration_rows rows of the data set (all by
  // default), this rank's share of them, maxima reduced over the ranks.
  const index_t global = data->shard.global_rows, off = data->shard.offset, mine = data->shard.x.dim(0);
  const index_t want = o.calibration_rows > 0 ? std::min<index_t>(o.calibration_rows, global) : global;
  const index_t take = std::max<index_t>(0, std::min(mine, want - off));
  std::vector<double> maxima(f.network().named_parameters().size() / 2, 0.0);
  if (take > 0) maxima = f.dense_input_max(rows_of(data->shard.x, {0, take}));
  for (double& v : maxima) v = par::allreduce_max(v, comm);
  const nn::Surrogate q = nn::quantize_int8(f, maxima);

  // The error on the data set's rows, float and int8, per output; and the
  // int8 model's on the rows the float model was validated on (the last
  // card.validation_rows of its data set), when this is that data set.
  nn::io::ModelCard card = m->card;
  card.created.clear();  // save_model stamps the time of this file
  bool same_data = card.validation_rows > 0 && card.data_rows == global;
  if (same_data) {
    const double same = runtime.rank() == 0 && nn::io::sha256_file(o.data) == card.data_sha256 ? 1.0 : 0.0;
    same_data = par::allreduce_max(same, comm) > 0.0;
  }
  const index_t first_val = global - card.validation_rows;
  const index_t n_out = f.spec().out;
  const std::vector<double> truth = data->shard.y.to_vector();
  std::vector<double> sq(static_cast<size_t>(3 * n_out), 0.0);
  if (mine > 0) {
    const std::vector<double> yf = f.predict(data->shard.x).to_vector(), yq = q.predict(data->shard.x).to_vector();
    for (size_t i = 0; i < truth.size(); ++i) {
      const size_t k = i % static_cast<size_t>(n_out);
      const double eq = (yq[i] - truth[i]) * (yq[i] - truth[i]);
      sq[k] += (yf[i] - truth[i]) * (yf[i] - truth[i]);
      sq[static_cast<size_t>(n_out) + k] += eq;
      if (off + static_cast<index_t>(i / static_cast<size_t>(n_out)) >= first_val)
        sq[static_cast<size_t>(2 * n_out) + k] += eq;
    }
  }
  Tensor st = Tensor::from_host({3 * n_out}, sq);
  par::allreduce_sum_in_place(st, comm);
  const std::vector<double> tot = st.to_vector();
  if (same_data) {
    for (index_t k = 0; k < n_out; ++k)
      card.validation_rmse[static_cast<size_t>(k)] =
          std::sqrt(tot[static_cast<size_t>(2 * n_out + k)] / static_cast<double>(card.validation_rows));
  } else {
    // Not measured for the int8 network: the card says none rather than
    // the float network's.
    card.validation_rows = 0;
    card.validation_rmse.clear();
  }
  collective_guard(comm, [&] {
    if (runtime.rank() == 0) nn::io::save_model(o.output, q, card);
  });
  const auto before = fs::file_size(o.model), after = fs::file_size(o.output);
  logging::info(CAMBER_MSG("quantize: " << o.model << " -> " << o.output << " (int8 weights per output "
                                        << "channel, int8 layer inputs calibrated on " << want
                                        << " rows of " << o.data << ")"));
  logging::info(CAMBER_MSG("quantize: file " << before << " -> " << after << " bytes ("
                                              << std::setprecision(3)
                                              << static_cast<double>(before) / static_cast<double>(after)
                                              << "x smaller)"));
  for (index_t k = 0; k < n_out; ++k) {
    const double ef = std::sqrt(tot[static_cast<size_t>(k)] / static_cast<double>(global));
    const double eq = std::sqrt(tot[static_cast<size_t>(n_out + k)] / static_cast<double>(global));
    logging::info(CAMBER_MSG("quantize: RMSE of " << f.outputs().names[static_cast<size_t>(k)] << " on "
                                                 << global << " rows: " << std::scientific
                                                 << std::setprecision(3) << ef << " (" << dtype_name(f.spec().dtype)
                                                 << ") -> " << eq << " (int8)"));
  }
  logging::info(same_data ? CAMBER_MSG("quantize: the card's validation RMSE is the int8 network's on the "
                                       << card.validation_rows << " validation rows")
                          : CAMBER_MSG("quantize: " << o.data << " is not the data set the model was "
                                                    "validated on: the card holds no validation RMSE"));
  return 0;
}

int command_infer(const InferOptions& o, const Runtime& runtime) {
  const MPI_Comm comm = runtime.comm();
  const std::string in_ext = extension(o.input), out_ext = extension(o.output);
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(in_ext == ".csv" || in_ext == ".h5",
                         "infer: input '" << o.input << "' must be .csv or .h5");
    CAMBER_INPUT_REQUIRE(out_ext == ".csv" || out_ext == ".h5",
                         "infer: output '" << o.output << "' must be .csv or .h5");
    CAMBER_INPUT_REQUIRE(o.batch > 0, "infer: --batch must be positive, got " << o.batch);
    CAMBER_INPUT_REQUIRE(fs::exists(o.input), "infer: cannot find input '" << o.input << "'");
  });
  const std::unique_ptr<nn::io::Model> m = load_everywhere(o.model, comm);
  const nn::Surrogate& s = m->surrogate;

  // This rank's rows (a data set is read a rank's block at a time; a CSV is
  // parsed on every rank, which keeps its line numbers in every message).
  Tensor x;
  std::unique_ptr<nn::io::DataSet> data;
  index_t global_rows = 0;
  collective_guard(comm, [&] {
    if (in_ext == ".h5") {
      data = std::make_unique<nn::io::DataSet>(nn::io::read_dataset(o.input, comm));
      CAMBER_INPUT_REQUIRE(data->inputs.names == s.inputs().names && data->inputs.units == s.inputs().units,
                           o.input << ": its inputs are not the model's (names and units, in order)");
      x = data->shard.x;
      global_rows = data->shard.global_rows;
    } else {
      const Tensor all = read_csv(o.input, s);
      global_rows = all.dim(0);
      x = rows_of(all, nn::local_rows(global_rows, comm));
    }
  });
  logging::info(CAMBER_MSG("infer: " << o.model << " on " << global_rows << " rows of " << o.input
                                     << " (" << runtime.size()
                                     << (runtime.size() == 1 ? " rank" : " ranks") << ")"));

  const auto t0 = std::chrono::steady_clock::now();
  const index_t rows = x.dim(0), n_out = s.spec().out;
  std::vector<double> y;
  y.reserve(static_cast<size_t>(rows * n_out));
  Progress progress("infer", static_cast<long>(rows));
  for (index_t r0 = 0; r0 < rows; r0 += o.batch) {
    const index_t r1 = std::min(rows, r0 + o.batch);
    const std::vector<double> part = s.predict(rows_of(x, {r0, r1})).to_vector();
    y.insert(y.end(), part.begin(), part.end());
    progress.update(static_cast<long>(r1));
  }
  progress.finish();
  const Tensor yt = Tensor::from_host({rows, n_out}, y);
  const double seconds = par::allreduce_max(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), comm);

  // With a data set that has the model's outputs, the error against them.
  if (data && data->outputs.names == s.outputs().names) {
    const std::vector<double> truth = data->shard.y.to_vector();
    std::vector<double> sq(static_cast<size_t>(n_out), 0.0);
    for (size_t i = 0; i < y.size(); ++i)
      sq[i % static_cast<size_t>(n_out)] += (y[i] - truth[i]) * (y[i] - truth[i]);
    Tensor st = Tensor::from_host({n_out}, sq);
    par::allreduce_sum_in_place(st, comm);
    std::ostringstream e;
    e << std::scientific << std::setprecision(3);
    const std::vector<double> tot = st.to_vector();
    for (index_t k = 0; k < n_out; ++k)
      e << (k ? ", " : "") << s.outputs().names[static_cast<size_t>(k)] << " "
        << std::sqrt(tot[static_cast<size_t>(k)] / static_cast<double>(std::max<index_t>(global_rows, 1)));
    logging::info("infer: RMSE against the data set's outputs: " + e.str());
  }

  if (out_ext == ".h5")
    nn::io::write_dataset(o.output, x, yt, s.inputs(), s.outputs(), comm);
  else
    write_csv(o.output, x, yt, s, comm);
  logging::info(CAMBER_MSG("infer: " << global_rows << " rows in " << std::setprecision(3) << seconds
                                     << " s (" << std::setprecision(4)
                                     << static_cast<double>(global_rows) / std::max(seconds, 1e-12)
                                     << " rows/s); wrote " << o.output));
  return 0;
}

#if CAMBER_WITH_SERVE
namespace {

// SIGTERM and SIGINT write a byte to a pipe (all a signal handler may
// safely do); a watcher thread reads it and stops the server.
int stop_pipe_write = -1;

extern "C" void on_stop_signal(int) {
  const char c = 1;
  if (stop_pipe_write >= 0) (void)!::write(stop_pipe_write, &c, 1);
}

}  // namespace

int command_serve(const ServeCommandOptions& o, const Runtime& runtime) {
  collective_guard(runtime.comm(), [&] {
    CAMBER_INPUT_REQUIRE(runtime.size() == 1, "serve runs on one rank (got " << runtime.size()
                                                                             << "); start more servers "
                                                                                "behind a load balancer");
    CAMBER_INPUT_REQUIRE(o.port >= 0 && o.port <= 65535, "serve: --port " << o.port
                                                                          << " is not a TCP port");
    CAMBER_INPUT_REQUIRE(o.max_wait_us >= 0, "serve: --max-wait-us must be >= 0");
    CAMBER_INPUT_REQUIRE(o.max_batch_rows > 0 && o.max_rows_per_request > 0 && o.max_body_bytes > 0,
                         "serve: --max-batch, --max-rows and --max-body must be positive");
  });
  // Each model: [NAME=]FILE or [NAME=]REFERENCE. A registry reference is
  // followed: when it names another version, that version takes over (hot
  // reload).
  struct Slot {
    std::string given, spec, path;
    bool followed = false;
  };
  std::vector<Slot> slots;
  std::vector<nn::serve::NamedModel> models;
  std::string described;
  for (const std::string& text : o.models) {
    Slot slot{text, text, "", false};
    std::string name;
    std::error_code ec;
    const std::size_t eq = text.find('=');
    if (eq != std::string::npos && !fs::is_regular_file(text, ec)) {
      name = text.substr(0, eq);
      slot.spec = text.substr(eq + 1);
    }
    const nn::registry::ResolvedModel r = nn::registry::resolve_model(slot.spec);
    slot.path = r.path;
    slot.followed = !fs::is_regular_file(slot.spec, ec) && o.reload_ms > 0;
    if (name.empty()) name = r.name.empty() ? fs::path(slot.spec).stem().string() : r.name;
    const std::string version = r.version > 0 ? std::to_string(r.version) : "1";
    nn::io::Model model = nn::io::load_model(r.path);
    described += (described.empty() ? "" : "; ") + name + " version " + version + " (" + text + ", " +
                 model.surrogate.network().describe() + ")";
    models.push_back({name, version, std::move(model)});
    slots.push_back(std::move(slot));
  }
  nn::serve::ServeOptions so;
  so.host = o.host;
  so.port = o.port;
  so.threads = o.threads;
  so.max_batch_rows = static_cast<std::size_t>(o.max_batch_rows);
  so.max_wait = std::chrono::microseconds(o.max_wait_us);
  so.max_rows_per_request = static_cast<std::size_t>(o.max_rows_per_request);
  so.max_body_bytes = static_cast<std::size_t>(o.max_body_bytes);
  so.read_timeout_s = o.read_timeout_s;
  so.tls_cert = o.tls_cert;
  so.tls_key = o.tls_key;
  if (!o.tokens.empty()) so.tokens = nn::serve::TokenStore::load(o.tokens);
  so.rate_per_token = o.rate_per_token;
  so.rate_burst = o.rate_burst;
  nn::serve::InferenceServer server(std::move(models), so);
  const int port = server.bind();

  int fds[2] = {-1, -1};
  CAMBER_REQUIRE(::pipe(fds) == 0, "serve: pipe() failed");
  stop_pipe_write = fds[1];
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_term {}, old_int {};
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGINT, &sa, &old_int);
  std::thread watcher([&] {
    char c = 0;
    while (::read(fds[0], &c, 1) < 0 && errno == EINTR) {
    }
    server.stop();
  });
  logging::info(CAMBER_MSG("serve: " << described << " on "
                                     << (o.tls_cert.empty() ? "http" : "https") << "://" << o.host
                                     << ":" << port
                                     << "  POST /v2/models/NAME[/versions/V]/infer, GET "
                                        "/v2/models/NAME, /v2/health/ready; POST /predict, GET "
                                        "/health /model (the first model), /metrics; batches of "
                                     << o.max_batch_rows << " rows, " << o.max_wait_us
                                     << " us wait"
                                     << (so.tokens.empty() ? ""
                                                           : "; bearer tokens of " + o.tokens +
                                                                 " (all but the health checks)")
                                     << "; SIGTERM or Ctrl-C stops"));
  std::atomic<bool> stopping{false};
  std::thread reloader;
  // The tokens file is read again when it changes (a revocation takes
  // effect without a restart).
  auto stamp = [&o] {
    std::error_code e;
    const auto size = fs::file_size(o.tokens, e);
    const auto time = fs::last_write_time(o.tokens, e);
    return std::to_string(size) + ":" + std::to_string(time.time_since_epoch().count());
  };
  std::string tokens_stamp = o.tokens.empty() ? "" : stamp();
  const bool follow = o.reload_ms > 0 && (!o.tokens.empty() ||
                                          std::any_of(slots.begin(), slots.end(),
                                                      [](const Slot& s) { return s.followed; }));
  if (follow)
    reloader = std::thread([&] {
      // A registry file is named by its content: another path is another
      // model, the same path the same one (nothing is read then).
      while (!stopping) {
        for (long waited = 0; waited < o.reload_ms && !stopping; waited += 50)
          std::this_thread::sleep_for(std::chrono::milliseconds(std::min(50L, o.reload_ms - waited)));
        if (stopping) break;
        if (!o.tokens.empty() && stamp() != tokens_stamp) {
          tokens_stamp = stamp();  // a file that fails to load is reported once
          try {
            nn::serve::TokenStore t = nn::serve::TokenStore::load(o.tokens);
            std::size_t revoked = 0;
            for (const auto& [hash, token] : t.tokens()) revoked += token.revoked ? 1 : 0;
            const std::size_t total = t.tokens().size();
            server.replace_tokens(std::move(t));
            logging::info(CAMBER_MSG("serve: tokens reloaded from " << o.tokens << " (" << total - revoked
                                                                    << " active, " << revoked
                                                                    << " revoked)"));
          } catch (const std::exception& e) {
            logging::warn(std::string("serve: tokens not reloaded (the ones before stay): ") + e.what());
          }
        }
        for (std::size_t k = 0; k < slots.size() && !stopping; ++k) {
          Slot& slot = slots[k];
          if (!slot.followed) continue;
          try {
            const nn::registry::ResolvedModel r = nn::registry::resolve_model(slot.spec);
            if (r.path == slot.path) continue;
            slot.path = r.path;  // a file that fails to load is reported once
            nn::io::Model next = nn::io::load_model(r.path);
            server.replace_model(k, std::to_string(r.version), std::move(next));
            logging::info("serve: " + slot.given + " is now version " + std::to_string(r.version) +
                          " (" + r.path + ")");
          } catch (const std::exception& e) {
            // The version served stays; the registry or the file is looked
            // at again next time.
            logging::warn(std::string("serve: ") + slot.given + " not reloaded: " + e.what());
          }
        }
      }
    });
  server.run();
  stopping = true;
  if (reloader.joinable()) reloader.join();
  on_stop_signal(0);  // wakes the watcher if run() ended on its own
  watcher.join();
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGINT, &old_int, nullptr);
  stop_pipe_write = -1;
  ::close(fds[0]);
  ::close(fds[1]);
  const nn::serve::Metrics& m = server.metrics();
  logging::info(CAMBER_MSG("serve: stopped after "
                           << m.requests("/predict", 200) + m.requests("/v2/models/{name}/infer", 200)
                                                   << " answered predictions and " << m.errors()
                                                   << " error answers"));
  return 0;
}

int command_token(const std::string& action, const std::string& name, const std::string& file,
                  const Runtime& runtime) {
  std::string token;
  collective_guard(runtime.comm(), [&] {
    if (runtime.rank() != 0) return;
    if (action == "add")
      token = nn::serve::TokenStore::add(file, name);
    else
      nn::serve::TokenStore::revoke(file, name);
  });
  if (runtime.rank() != 0) return 0;
  if (action == "add") {
    // The token on stdout alone (for scripts); what it is on stderr.
    std::cout << token << std::endl;
    std::cerr << "token: " << name << "'s token above is shown once; " << file
              << " keeps only its SHA-256" << std::endl;
  } else {
    logging::info("token: " + name + "'s token is revoked in " + file +
                  " (servers read the file when they start)");
  }
  return 0;
}
#endif

}  // namespace camber::app
