#include "model_commands.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <camber/core/config.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/io/evaluation.hpp>
#include <camber/nn/io/inference.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/registry/registry.hpp>
#if CAMBER_WITH_ONNX
#include <camber/nn/onnx/onnx_export.hpp>
#endif
#if CAMBER_WITH_SERVE
#include <camber/nn/serve/reloader.hpp>
#include <camber/nn/serve/served_models.hpp>
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

#if CAMBER_WITH_ONNX
std::string extension(const std::string& path) {
  std::string e = fs::path(path).extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}
#endif

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
  const auto joined = [](const std::vector<double>& v) {
    std::ostringstream s;
    s << std::setprecision(17);
    for (size_t k = 0; k < v.size(); ++k) s << (k ? "," : "") << v[k];
    return s.str();
  };
  o.metadata.emplace_back("camber.validation_rmse", joined(c.validation_rmse));
  // What the model accepts (the card's training range and policy), for a
  // runtime that serves the export to enforce.
  o.metadata.emplace_back("camber.input_min", joined(c.input_min));
  o.metadata.emplace_back("camber.input_max", joined(c.input_max));
  o.metadata.emplace_back("camber.extrapolation",
                          std::string(enum_name(nn::io::extrapolation_names, c.extrapolation)));
  o.metadata.emplace_back("camber.extrapolation_margin", joined({c.extrapolation_margin}));
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
  nn::io::check_quantize_files(o.data, o.output, o.calibration_rows, comm);
  const std::unique_ptr<nn::io::Model> m = load_everywhere(o.model, comm);
  const nn::Surrogate& f = m->surrogate;
  const nn::io::Int8Model q = nn::io::quantize_file(*m, o.data, o.output, o.calibration_rows, comm);
  // A registry reference is measured by the file it names.
  const auto before = fs::file_size(nn::registry::resolve_model_path(o.model)), after = fs::file_size(o.output);
  logging::info(CAMBER_MSG("quantize: " << o.model << " -> " << o.output << " (int8 weights per output "
                                        << "channel, int8 layer inputs calibrated on " << q.calibration_rows
                                        << " rows of " << o.data << ")"));
  logging::info(CAMBER_MSG("quantize: file " << before << " -> " << after << " bytes ("
                                              << std::setprecision(3)
                                              << static_cast<double>(before) / static_cast<double>(after)
                                              << "x smaller)"));
  for (index_t k = 0; k < f.spec().out; ++k) {
    const double ef = q.float_rmse[static_cast<size_t>(k)], eq = q.int8_rmse[static_cast<size_t>(k)];
    logging::info(CAMBER_MSG("quantize: RMSE of " << f.outputs().names[static_cast<size_t>(k)] << " on "
                                                 << q.set_rows << " rows: " << std::scientific
                                                 << std::setprecision(3) << ef << " (" << dtype_name(f.spec().dtype)
                                                 << ") -> " << eq << " (int8)"));
  }
  logging::info(q.revalidated ? CAMBER_MSG("quantize: the card's validation RMSE is the int8 network's on the "
                                           << q.card.validation_rows << " validation rows")
                         : CAMBER_MSG("quantize: " << o.data << " is not the data set the model was "
                                                   "validated on: the card holds no validation RMSE"));
  return 0;
}

int command_infer(const InferOptions& o, const Runtime& runtime) {
  const MPI_Comm comm = runtime.comm();
  nn::io::check_inference_files(o.input, o.output, o.batch, comm);
  const std::unique_ptr<nn::io::Model> m = load_everywhere(o.model, comm);
  const nn::Surrogate& s = m->surrogate;
  nn::io::InferenceHooks hooks;
  hooks.read = [&](index_t rows) {
    logging::info(CAMBER_MSG("infer: " << o.model << " on " << rows << " rows of " << o.input << " ("
                                       << runtime.size() << (runtime.size() == 1 ? " rank" : " ranks")
                                       << ")"));
  };
  hooks.predicted = [&](const nn::io::InferenceResult& r) {
    if (r.rmse.empty()) return;
    std::ostringstream e;
    e << std::scientific << std::setprecision(3);
    for (size_t k = 0; k < r.rmse.size(); ++k)
      e << (k ? ", " : "") << s.outputs().names[k] << " " << r.rmse[k];
    logging::info("infer: RMSE against the data set's outputs: " + e.str());
  };
  const nn::io::InferenceResult r = nn::io::infer_file(*m, o.input, o.output, o.batch, comm, hooks);
  logging::info(CAMBER_MSG("infer: " << r.rows << " rows in " << std::setprecision(3) << r.seconds
                                     << " s (" << std::setprecision(4)
                                     << static_cast<double>(r.rows) / std::max(r.seconds, 1e-12)
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
  // Each model: [NAME=]FILE or [NAME=]REFERENCE (a reference is followed).
  nn::serve::ServedModels served = nn::serve::load_served_models(o.models);
  nn::serve::ServeOptions so = o.server;
  so.max_wait = std::chrono::microseconds(o.max_wait_us);
  if (!o.tokens.empty()) so.tokens = nn::serve::TokenStore::load(o.tokens);
  nn::serve::InferenceServer server(std::move(served.models), so);
  const int port = server.bind();
  logging::info(CAMBER_MSG("serve: " << served.description << " on "
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
  nn::serve::Reloader reloader(server, std::move(served.followed), o.tokens,
                               std::chrono::milliseconds(o.reload_ms));
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
