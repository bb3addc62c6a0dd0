#include "model_commands.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <camber/core/config.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/io/csv_table.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/evaluation.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/quantize.hpp>
#include <camber/nn/registry/registry.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/progress.hpp>
#if CAMBER_WITH_ONNX
#include <camber/nn/onnx/onnx_export.hpp>
#endif
#if CAMBER_WITH_SERVE
#include <camber/nn/serve/reloader.hpp>
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

// Rows [r.begin, r.end) of a {rows, cols} tensor.
Tensor rows_of(const Tensor& t, nn::RowRange r) {
  const std::vector<double> v = t.to_vector();
  const index_t cols = t.dim(1);
  return Tensor::from_host({r.size(), cols},
                           std::vector<double>(v.begin() + r.begin * cols, v.begin() + r.end * cols));
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
  std::unique_ptr<nn::io::Int8Model> q;
  collective_guard(comm, [&] { data = std::make_unique<nn::io::DataSet>(nn::io::read_dataset(o.data, comm)); });
  collective_guard(comm, [&] {
    q = std::make_unique<nn::io::Int8Model>(nn::io::quantize_model(*m, *data, o.data, o.calibration_rows, comm));
  });
  const index_t global = data->shard.global_rows, n_out = f.spec().out;
  collective_guard(comm, [&] {
    if (runtime.rank() == 0) nn::io::save_model(o.output, q->network, q->card);
  });
  const auto before = fs::file_size(o.model), after = fs::file_size(o.output);
  logging::info(CAMBER_MSG("quantize: " << o.model << " -> " << o.output << " (int8 weights per output "
                                        << "channel, int8 layer inputs calibrated on " << q->calibration_rows
                                        << " rows of " << o.data << ")"));
  logging::info(CAMBER_MSG("quantize: file " << before << " -> " << after << " bytes ("
                                              << std::setprecision(3)
                                              << static_cast<double>(before) / static_cast<double>(after)
                                              << "x smaller)"));
  for (index_t k = 0; k < n_out; ++k) {
    const double ef = q->float_rmse[static_cast<size_t>(k)], eq = q->int8_rmse[static_cast<size_t>(k)];
    logging::info(CAMBER_MSG("quantize: RMSE of " << f.outputs().names[static_cast<size_t>(k)] << " on "
                                                 << global << " rows: " << std::scientific
                                                 << std::setprecision(3) << ef << " (" << dtype_name(f.spec().dtype)
                                                 << ") -> " << eq << " (int8)"));
  }
  logging::info(q->revalidated ? CAMBER_MSG("quantize: the card's validation RMSE is the int8 network's on the "
                                            << q->card.validation_rows << " validation rows")
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
      const Tensor all = nn::io::read_input_csv(o.input, s.inputs());
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
    const std::vector<double> rmse = nn::io::output_rmse(s, *data, 0, global_rows, comm);
    std::ostringstream e;
    e << std::scientific << std::setprecision(3);
    for (size_t k = 0; k < rmse.size(); ++k) e << (k ? ", " : "") << s.outputs().names[k] << " " << rmse[k];
    logging::info("infer: RMSE against the data set's outputs: " + e.str());
  }

  if (out_ext == ".h5")
    nn::io::write_dataset(o.output, x, yt, s.inputs(), s.outputs(), comm);
  else
    nn::io::write_rows_csv(o.output, x, yt, s.inputs(), s.outputs(), comm);
  logging::info(CAMBER_MSG("infer: " << global_rows << " rows in " << std::setprecision(3) << seconds
                                     << " s (" << std::setprecision(4)
                                     << static_cast<double>(global_rows) / std::max(seconds, 1e-12)
                                     << " rows/s); wrote " << o.output));
  return 0;
}

#if CAMBER_WITH_SERVE
int command_serve(const ServeCommandOptions& o, const Runtime& runtime) {
  collective_guard(runtime.comm(), [&] {
    CAMBER_INPUT_REQUIRE(runtime.size() == 1, "serve runs on one rank (got " << runtime.size()
                                                                             << "); start more servers "
                                                                                "behind a load balancer");
    CAMBER_INPUT_REQUIRE(o.server.port >= 0 && o.server.port <= 65535, "serve: --port " << o.server.port
                                                                          << " is not a TCP port");
    CAMBER_INPUT_REQUIRE(o.max_wait_us >= 0, "serve: --max-wait-us must be >= 0");
    CAMBER_INPUT_REQUIRE(o.server.max_batch_rows > 0 && o.server.max_rows_per_request > 0 &&
                             o.server.max_body_bytes > 0,
                         "serve: --max-batch, --max-rows and --max-body must be positive");
  });
  // Each model: [NAME=]FILE or [NAME=]REFERENCE. A registry reference is
  // followed: when it names another version, that version takes over (hot
  // reload).
  std::vector<nn::serve::NamedModel> models;
  std::vector<nn::serve::FollowedModel> followed;
  std::string described;
  for (const std::string& text : o.models) {
    std::string name, spec = text;
    std::error_code ec;
    const std::size_t eq = text.find('=');
    if (eq != std::string::npos && !fs::is_regular_file(text, ec)) {
      name = text.substr(0, eq);
      spec = text.substr(eq + 1);
    }
    const nn::registry::ResolvedModel r = nn::registry::resolve_model(spec);
    if (!fs::is_regular_file(spec, ec))
      followed.push_back({models.size(), text, [spec] {
                            const nn::registry::ResolvedModel now = nn::registry::resolve_model(spec);
                            return nn::serve::Resolved{now.path, std::to_string(now.version)};
                          }});
    if (name.empty()) name = r.name.empty() ? fs::path(spec).stem().string() : r.name;
    const std::string version = r.version > 0 ? std::to_string(r.version) : "1";
    nn::io::Model model = nn::io::load_model(r.path);
    described += (described.empty() ? "" : "; ") + name + " version " + version + " (" + text + ", " +
                 model.surrogate.network().describe() + ")";
    models.push_back({name, version, std::move(model)});
  }
  nn::serve::ServeOptions so = o.server;
  so.max_wait = std::chrono::microseconds(o.max_wait_us);
  if (!o.tokens.empty()) so.tokens = nn::serve::TokenStore::load(o.tokens);
  nn::serve::InferenceServer server(std::move(models), so);
  const int port = server.bind();
  logging::info(CAMBER_MSG("serve: " << described << " on "
                                     << (so.tls_cert.empty() ? "http" : "https") << "://" << so.host
                                     << ":" << port
                                     << "  POST /v2/models/NAME[/versions/V]/infer, GET "
                                        "/v2/models/NAME, /v2/health/ready; POST /predict, GET "
                                        "/health /model (the first model), /metrics; batches of "
                                     << so.max_batch_rows << " rows, " << o.max_wait_us
                                     << " us wait"
                                     << (so.tokens.empty() ? ""
                                                           : "; bearer tokens of " + o.tokens +
                                                                 " (all but the health checks)")
                                     << "; SIGTERM or Ctrl-C stops"));
  nn::serve::Reloader reloader(server, std::move(followed), o.tokens, std::chrono::milliseconds(o.reload_ms));
  reloader.start();
  nn::serve::run_until_signal(server);
  reloader.stop();
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
