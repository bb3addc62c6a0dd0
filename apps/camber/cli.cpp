#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <fstream>
#include <functional>
#include <iostream>

#include "model_commands.hpp"
#include "registry_commands.hpp"
#include "trust_commands.hpp"
#include "problem.hpp"
#include <camber/mesh/read_mesh.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/quality.hpp>
#include <camber/mesh/reorder.hpp>
#include <camber/deck/deck.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/core/timer.hpp>
#include <camber/core/config.hpp>
#include <camber/core/version.hpp>

namespace camber::app {

namespace {

struct GlobalFlags {
  bool verbose = false;
  bool quiet = false;
  bool per_rank_log = false;
  bool timers = true;
  std::string petsc_options;
  bool restart = false;
};

void configure_logging(const GlobalFlags& flags) {
  logging::set_per_rank(flags.per_rank_log);
  if (flags.quiet) logging::set_level(logging::Level::quiet);
  if (flags.verbose) logging::set_level(logging::Level::debug);
}

// Reads and validates the deck on every rank; bad input ends the job with
// exit code 2 on every rank, printed once.
deck::Deck load_validated(const std::string& path, const Runtime& runtime) {
  deck::Deck result;
  collective_guard(runtime.comm(), [&] { result = load_case_deck(path); });
  return result;
}

int command_check(const std::string& path, const Runtime& runtime) {
  const deck::Deck d = load_validated(path, runtime);
  logging::info(path + ": valid deck for problem '" + d.string("problem") + "'");
  return 0;
}

int command_run(const std::string& path, const GlobalFlags& flags, const Runtime& runtime) {
  logging::info(CAMBER_MSG("camber " << CAMBER_VERSION_STRING << " on " << runtime.describe()));
  int rc = 0;
  {
    ScopedTimer total("camber");
    const deck::Deck d = load_validated(path, runtime);
    RunOptions options;
    options.petsc_options = flags.petsc_options;
    options.restart = flags.restart;
    // load_case_deck accepted `problem`, so it names a registered problem.
    const Problem& problem = *find_problem(d.string("problem"));
    collective_guard(runtime.comm(), [&] {
      CAMBER_INPUT_REQUIRE(!options.restart || problem.restarts,
                           "--restart: problem '" << problem.name
                                                  << "' has no state to continue from");
    });
    rc = problem.run(d, runtime, options);
  }
  if (flags.timers && logging::level() != logging::Level::quiet)
    print_timer_summary(runtime.comm(), std::cout);
  return rc;
}

// `camber optimize`, `train` and `sample`: the deck's problem's job of that
// name; a problem without one is bad input naming the problem that has it.
using Job = std::function<int(const deck::Deck&, const Runtime&, const RunOptions&)> Problem::*;

int command_job(const std::string& path, const GlobalFlags& flags, const Runtime& runtime,
                Job job, const std::string& missing) {
  logging::info(CAMBER_MSG("camber " << CAMBER_VERSION_STRING << " on " << runtime.describe()));
  int rc = 0;
  {
    ScopedTimer total("camber");
    const deck::Deck d = load_validated(path, runtime);
    const Problem& problem = *find_problem(d.string("problem"));
    collective_guard(runtime.comm(), [&] {
      CAMBER_INPUT_REQUIRE(problem.*job != nullptr, "problem '" << problem.name << "' " << missing);
    });
    RunOptions options;
    options.petsc_options = flags.petsc_options;
    options.restart = flags.restart;
    rc = (problem.*job)(d, runtime, options);
  }
  if (flags.timers && logging::level() != logging::Level::quiet)
    print_timer_summary(runtime.comm(), std::cout);
  return rc;
}

// Reads a mesh file (SU2 or Gmsh, by extension) and prints its counts,
// markers and quality figures. A malformed file is bad input (exit 2).
int command_mesh_info(const std::string& path, const Runtime& runtime) {
  // Every rank reads its chunk (no rank holds the whole mesh); a bad file
  // is one message and exit code 2 on every rank.
  const mesh::MeshQuality q =
      mesh::quality(mesh::DistributedMesh::read(path, runtime.comm()));
  logging::info(path + "\n" + mesh::describe(q));
  return q.n_nonpositive_volumes == 0 ? 0 : 1;
}

// mesh::reorder_mesh_file (rank 0 reads and writes; bad input is exit 2 on
// every rank).
int command_mesh_reorder(const std::string& in, const std::string& out, const Runtime& runtime) {
  const mesh::ReorderedFile f = mesh::reorder_mesh_file(in, out, runtime.comm());
  logging::info(out + ": " + std::to_string(f.n_cells) + " cells and " +
                std::to_string(f.n_nodes) + " nodes of '" + in + "' in locality order");
  return 0;
}

int command_deck_reference(const std::string& output, const Runtime& runtime) {
  const std::string text = deck_reference();
  if (runtime.rank() != 0) return 0;
  if (output.empty() || output == "-") {
    std::cout << text;
    return 0;
  }
  std::ofstream out(output);
  CAMBER_INPUT_REQUIRE(out.good(), "cannot write '" << output << "'");
  out << text;
  CAMBER_REQUIRE(out.good(), "writing '" << output << "' failed");
  return 0;
}

}  // namespace

int run_cli(int argc, char** argv, const Runtime& runtime) {
  CLI::App app{
      "Camber: differentiable simulation with Kokkos, PETSc and MPI.\n"
      "Exit codes: 0 success, 1 failure, 2 bad input.",
      "camber"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("camber ") + CAMBER_VERSION_STRING);

  GlobalFlags flags;
  app.add_flag("-v,--verbose", flags.verbose, "Print debug lines (solver iterations, setup)");
  app.add_flag("-q,--quiet", flags.quiet, "Print errors only");
  app.add_flag("--log-per-rank", flags.per_rank_log,
               "Every MPI rank prints its own lines, prefixed with its rank");

  std::string deck_path;
  CLI::App* run = app.add_subcommand("run", "Run the case described by an input deck");
  run->add_option("deck", deck_path, "YAML input deck")->required();
  run->add_flag("!--no-timers", flags.timers, "Do not print the timer summary at exit");
  run->add_option("--petsc-options", flags.petsc_options,
                  "Options passed to PETSc, e.g. \"-heat_ksp_monitor\"");
  run->add_flag("--restart", flags.restart,
                "Continue from the state file the case wrote last (<output.dir>/<case>.h5)");

  std::string optimize_path;
  CLI::App* optimize = app.add_subcommand(
      "optimize", "Optimize the shape described by an input deck (sections design, optimizer)");
  optimize->add_option("deck", optimize_path, "YAML input deck")->required();
  optimize->add_flag("!--no-timers", flags.timers, "Do not print the timer summary at exit");
  optimize->add_option("--petsc-options", flags.petsc_options,
                       "Options passed to PETSc, e.g. \"-flow_ksp_monitor\"");
  optimize->add_flag("--restart", flags.restart,
                     "Continue from the checkpoint the optimization wrote last "
                     "(<output.dir>/<case>_optimizer.history and _optimizer_state_<k>.h5)");

  std::string sample_path;
  CLI::App* sample = app.add_subcommand(
      "sample", "Solve the flows of a design of experiments and write a data set (section "
                "sample); continues an interrupted run");
  sample->add_option("deck", sample_path, "YAML input deck")->required();
  sample->add_flag("!--no-timers", flags.timers, "Do not print the timer summary at exit");
  sample->add_option("--petsc-options", flags.petsc_options, "Options passed to PETSc");

  std::string train_path;
  CLI::App* train = app.add_subcommand(
      "train", "Train the network described by an input deck (problem: surrogate)");
  train->add_option("deck", train_path, "YAML input deck")->required();
  train->add_flag("!--no-timers", flags.timers, "Do not print the timer summary at exit");
  train->add_flag("--restart", flags.restart,
                  "Continue from the checkpoint the training wrote last "
                  "(<output.dir>/<case>_checkpoint.h5)");

  std::string check_path;
  CLI::App* check = app.add_subcommand("check", "Validate an input deck and stop");
  check->add_option("deck", check_path, "YAML input deck")->required();

  std::string reference_out;
  CLI::App* reference =
      app.add_subcommand("deck-reference", "Print the reference of every deck key (Markdown)");
  reference->add_option("-o,--output", reference_out, "Write to this file instead of stdout");

  std::string mesh_path;
  CLI::App* mesh_info = app.add_subcommand(
      "mesh-info", "Read a mesh (.su2, .msh, .cgns) and print counts, markers and quality");
  mesh_info->add_option("mesh", mesh_path, "Mesh file")->required();

  std::string reorder_in, reorder_out;
  CLI::App* mesh_reorder = app.add_subcommand(
      "mesh-reorder",
      "Write a mesh (.su2, .msh, .cgns) to an .su2 file with its cells along a space-filling "
      "curve and its nodes in first-use order (faster solves on meshes numbered at random)");
  mesh_reorder->add_option("mesh", reorder_in, "Mesh file")->required();
  mesh_reorder->add_option("output", reorder_out, "The reordered mesh (.su2)")->required();

  std::string info_model;
  CLI::App* model_info = app.add_subcommand(
      "model-info", "Print a trained model's card: network, inputs and outputs with units and "
                    "normalisation, training data and its hash, validation error, provenance");
  model_info->add_option("model", info_model, "Model file (<case>_model.h5 from camber train)")
      ->required();

  ModelsOptions models_options;
  CLI::App* models = app.add_subcommand(
      "models", "The model registry: versions and stages of trained models (register, list, "
                "show, promote, diff, remove); NAME@VERSION or NAME@STAGE then names a model "
                "wherever a model file is taken");
  models->add_option("--registry", models_options.registry,
                     "Registry folder (default: CAMBER_REGISTRY, else ~/.camber/registry)");
  models->require_subcommand(1);
  CLI::App* m_register = models->add_subcommand("register", "Add a model file as NAME's next version");
  m_register->add_option("model", models_options.first, "Model file")->required();
  m_register->add_option("-n,--name", models_options.name, "Model name")->required();
  m_register->add_option("--stage", models_options.stage, "dev (default), staging or prod")
      ->check(CLI::IsMember({"dev", "staging", "prod"}));
  CLI::App* m_list = models->add_subcommand("list", "Every version, with stage and validation error");
  m_list->add_option("name", models_options.first, "Only this model");
  CLI::App* m_show = models->add_subcommand("show", "A version's card and lineage");
  m_show->add_option("model", models_options.first, "NAME, NAME@VERSION or NAME@STAGE")->required();
  CLI::App* m_promote = models->add_subcommand(
      "promote", "Move NAME@VERSION to a stage (the version in staging or prod before is archived)");
  m_promote->add_option("model", models_options.first, "NAME@VERSION")->required();
  m_promote->add_option("stage", models_options.second, "dev, staging, prod or archived")
      ->required()
      ->check(CLI::IsMember({"dev", "staging", "prod", "archived"}));
  CLI::App* m_diff = models->add_subcommand("diff", "What differs between two versions");
  m_diff->add_option("a", models_options.first, "NAME@VERSION or NAME@STAGE")->required();
  m_diff->add_option("b", models_options.second, "NAME@VERSION or NAME@STAGE")->required();
  CLI::App* m_remove = models->add_subcommand("remove", "Remove NAME@VERSION (not one in prod)");
  m_remove->add_option("model", models_options.first, "NAME@VERSION")->required();

  std::string keygen_stem;
  CLI::App* keygen = app.add_subcommand(
      "keygen", "Make an ed25519 signing key: STEM.key (secret, mode 0600) and STEM.pub");
  keygen->add_option("stem", keygen_stem, "Path without extension")->required();
  std::string sign_file, sign_key;
  CLI::App* sign = app.add_subcommand(
      "sign", "Sign a file (model, checkpoint, data set): writes FILE.sig");
  sign->add_option("file", sign_file, "File to sign")->required();
  sign->add_option("-k,--key", sign_key, "Secret key (STEM.key from camber keygen)")->required();
  std::string verify_file;
  std::vector<std::string> verify_trusted;
  CLI::App* verify = app.add_subcommand(
      "verify", "Check FILE.sig against trusted public keys (--trusted, or CAMBER_TRUSTED_KEYS)");
  verify->add_option("file", verify_file, "Signed file")->required();
  verify->add_option("-t,--trusted", verify_trusted, "Public key files or folders of .pub files");

#if CAMBER_WITH_ONNX
  std::string export_model, export_out;
  CLI::App* export_cmd = app.add_subcommand(
      "export", "Export a trained model to ONNX (opset 13; normalisation inside the graph)");
  export_cmd->add_option("model", export_model, "Model file")->required();
  export_cmd->add_option("-o,--output", export_out, "ONNX file to write (.onnx)")->required();

#endif

  QuantizeOptions quantize_options;
  CLI::App* quantize = app.add_subcommand(
      "quantize", "int8 post-training quantization of a trained model, calibrated on a data set; "
                  "reports the file size and the error on the data set before and after");
  quantize->add_option("model", quantize_options.model, "Model file")->required();
  quantize->add_option("data", quantize_options.data,
                       "Data set (.h5) for calibration and the error (e.g. the training data)")
      ->required();
  quantize->add_option("-o,--output", quantize_options.output, "int8 model file to write (.h5)")
      ->required();
  quantize->add_option("--calibration-rows", quantize_options.calibration_rows,
                       "Calibrate on the first N rows (0: all)")
      ->capture_default_str();

#if CAMBER_WITH_SERVE
  ServeCommandOptions serve_options;
  CLI::App* serve = app.add_subcommand(
      "serve", "Serve trained models over HTTP/JSON in the KServe/Triton v2 protocol "
               "(POST /v2/models/NAME[/versions/V]/infer, GET /v2/models/NAME, /v2/health/ready) "
               "and Camber's own (POST /predict, GET /health, /model for the first model), with "
               "/metrics (Prometheus) per model and version; SIGTERM stops after the requests in "
               "flight");
  serve->add_option("models", serve_options.models,
                    "Models: files or registry references (NAME@VERSION, NAME@STAGE, NAME), each "
                    "optionally as SERVED_NAME=MODEL; a file is served under its stem as version 1, "
                    "a reference under its name and version")
      ->required();
  serve->add_option("--host", serve_options.server.host, "Address to listen on")->capture_default_str();
  serve->add_option("--port", serve_options.server.port, "TCP port (0: any free port, printed)")
      ->capture_default_str();
  serve->add_option("--max-connections", serve_options.server.max_connections,
                    "Connections open at once (each has a thread); more are closed at once")
      ->capture_default_str()->check(CLI::Range(1, 65536));
  serve->add_option("--max-connections-per-peer", serve_options.server.max_connections_per_peer,
                    "Connections open at once from one client address")
      ->capture_default_str()->check(CLI::Range(1, 65536));
  serve->add_option("--max-batch", serve_options.server.max_batch_rows,
                    "Rows evaluated together at most (requests arriving together are batched)")
      ->capture_default_str();
  serve->add_option("--max-wait-us", serve_options.max_wait_us,
                    "Longest wait for more requests to batch, microseconds")
      ->capture_default_str();
  serve->add_option("--max-rows", serve_options.server.max_rows_per_request, "Rows per request at most")
      ->capture_default_str();
  serve->add_option("--max-body", serve_options.server.max_body_bytes, "Request body size limit, bytes")
      ->capture_default_str();
  serve->add_option("--read-timeout", serve_options.server.read_timeout_s,
                    "Seconds a client may wait between bytes of its request (and to take an answer)")
      ->capture_default_str()->check(CLI::Range(1, 3600));
  serve->add_option("--request-timeout", serve_options.server.request_timeout_s,
                    "Seconds a whole request and its answer may take")
      ->capture_default_str()->check(CLI::Range(1, 3600));
  serve->add_option("--handshake-timeout", serve_options.server.handshake_timeout_s,
                    "Seconds a whole TLS handshake may take")
      ->capture_default_str()->check(CLI::Range(1, 3600));
  serve->add_option("--tls-cert", serve_options.server.tls_cert,
                    "HTTPS: the server's certificate chain (PEM); needs --tls-key");
  serve->add_option("--tls-key", serve_options.server.tls_key, "HTTPS: the server's private key (PEM)");
  serve->add_option("--tokens", serve_options.tokens,
                    "Bearer tokens (camber token add): every endpoint but the health checks needs "
                    "one; read again when the file changes (--reload-ms)");
  serve->add_option("--rate-limit", serve_options.server.rate_per_token,
                    "Requests per second each token may make on average (needs --tokens; "
                    "beyond: 429 with Retry-After)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  serve->add_option("--rate-burst", serve_options.server.rate_burst,
                    "Requests a token may make at once (default: the rate, at least 1)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  serve->add_option("--reload-ms", serve_options.reload_ms,
                    "With a registry reference (NAME@STAGE): how often to look whether it names "
                    "another version, which then takes over without a failed request; with "
                    "--tokens, whether the tokens file changed (0: never)")
      ->capture_default_str()->check(CLI::Range(0, 86400000));

  std::string token_action, token_name, token_file;
  CLI::App* token = app.add_subcommand(
      "token", "Bearer tokens for camber serve: add NAME (prints the token once; the file keeps "
               "its SHA-256) or revoke NAME");
  token->add_option("action", token_action, "add or revoke")
      ->required()
      ->check(CLI::IsMember({"add", "revoke"}));
  token->add_option("name", token_name, "Who the token is for")->required();
  token->add_option("--tokens", token_file, "Tokens file (created by the first add)")->required();
#endif

  InferOptions infer_options;
  CLI::App* infer = app.add_subcommand(
      "infer", "Predict with a trained model over the rows of a .csv or .h5 file (rows split "
               "over the MPI ranks)");
  infer->add_option("model", infer_options.model, "Model file")->required();
  infer->add_option("input", infer_options.input,
                    "Inputs: .csv with a header of the model's input names (\"name [unit]\" "
                    "checks the unit), or an .h5 data set")
      ->required();
  infer->add_option("-o,--output", infer_options.output, "Predictions: .csv or .h5")->required();
  infer->add_option("--batch", infer_options.batch, "Rows per prediction call")
      ->capture_default_str();

  // The command comes first (the global flags take no values): an unknown
  // one is bad input whatever flags follow it, --help included.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;
    const auto commands = app.get_subcommands([&](CLI::App* c) { return c->check_name(arg); });
    if (commands.empty()) {
      if (runtime.rank() == 0)
        std::cerr << "camber: error: unknown command '" << arg
                  << "'\nRun 'camber --help' for the commands.\n";
      return 2;
    }
    break;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Every rank parses the same arguments, so every rank reaches the same
    // verdict; only rank 0 prints.
    if (e.get_exit_code() == 0) {
      if (runtime.rank() == 0) app.exit(e);
      return 0;
    }
    if (runtime.rank() == 0)
      std::cerr << "camber: error: " << e.what() << "\nRun 'camber --help' for usage.\n";
    return 2;
  }
  configure_logging(flags);

  if (*run) return command_run(deck_path, flags, runtime);
  if (*optimize)
    return command_job(optimize_path, flags, runtime, &Problem::optimize,
                       "has no design loop; camber optimize needs problem: euler or surrogate");
  if (*sample)
    return command_job(sample_path, flags, runtime, &Problem::sample,
                       "has no design of experiments; camber sample needs problem: euler");
  if (*train)
    return command_job(train_path, flags, runtime, &Problem::train,
                       "trains no network; camber train needs problem: surrogate");
  if (*check) return command_check(check_path, runtime);
  if (*reference) return command_deck_reference(reference_out, runtime);
  if (*mesh_info) return command_mesh_info(mesh_path, runtime);
  if (*mesh_reorder) return command_mesh_reorder(reorder_in, reorder_out, runtime);
  if (*model_info) return command_model_info(info_model, runtime);
  if (*models) {
    for (CLI::App* a : {m_register, m_list, m_show, m_promote, m_diff, m_remove})
      if (*a) models_options.action = a->get_name();
    return command_models(models_options, runtime);
  }
  if (*keygen) return command_keygen(keygen_stem, runtime);
  if (*sign) return command_sign(sign_file, sign_key, runtime);
  if (*verify) return command_verify(verify_file, verify_trusted, runtime);
  if (*infer) return command_infer(infer_options, runtime);
#if CAMBER_WITH_ONNX
  if (*export_cmd) return command_export(export_model, export_out, runtime);
#endif
#if CAMBER_WITH_SERVE
  if (*serve) return command_serve(serve_options, runtime);
  if (*token) return command_token(token_action, token_name, token_file, runtime);
#endif
  if (*quantize) return command_quantize(quantize_options, runtime);
  if (runtime.rank() == 0) std::cout << app.help();
  return 2;
}

}  // namespace camber::app
