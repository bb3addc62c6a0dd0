#include "surrogate_case.hpp"

#include "euler_common.hpp"
#include "git_revision.hpp"
#include "mesh_source.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/deck_keys.hpp>
#include <camber/nn/io/evaluation.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/io/surrogate_training.hpp>
#include <camber/nn/layers.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/solvers/aero/surrogate_optimum.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include <camber/parallel/collectives.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace {

void declare_surrogate_schema(deck::Schema& s) {
  auto& data = s.section("data", "The training data: an HDF5 data set (camber sample, nn::io::write_dataset).");
  data.string("file", deck::required,
              "Data set file; a relative path starts at the working directory, like output.dir "
              "(so the file `camber sample` wrote is found from the same place).");
  nn::io::data_split_keys().declare(data);
  nn::io::network_keys().declare(s.section("network", "The network: inputs and outputs are normalised by "
                                                      "the data set's statistics (mean 0, standard "
                                                      "deviation 1 per column)."));
  nn::io::training_keys().declare(s.section("training", "Mini-batch training, data parallel over the MPI ranks."));
  s.section("design", "camber optimize: the trained network (the case's model file, <output.dir>/<case>_model.h5) "
                      "as a differentiable model, optimized over its inputs within the data "
                      "set's range by SLSQP with gradients through the network, and the "
                      "optimum re-checked by the solver of flow_deck.")
      .string("objective", "CD", "The output minimized or maximized (a name of the data set).")
      .choice("goal", "minimize", {"minimize", "maximize"}, "Direction of the objective.")
      .string("constraint", "", "An output kept at or above constraint_min (\"\": none).")
      .real("constraint_min", 0.0, deck::Range::all(), "The constraint's lower bound.")
      .integer("max_iterations", 60, deck::IntRange(1, 10000), "Most evaluations of the network.")
      .string("flow_deck", "",
              "An euler deck whose flow is solved at the optimum (inputs mach and alpha_deg) "
              "to measure the surrogate's error there; a relative path starts at this deck's "
              "folder. \"\": no re-check.");
}

void validate_surrogate(const deck::Deck& d) {
  if (d.integer("training.patience") > 0 && d.real("data.validation_fraction") == 0.0)
    d.reject("training.patience", "early stopping needs validation rows: set "
                                  "data.validation_fraction > 0");
  if (d.string("training.schedule") == "cosine" &&
      d.real("training.min_learning_rate") > d.real("training.learning_rate"))
    d.reject("training.min_learning_rate", "must not exceed training.learning_rate");
  if (d.string("training.parallel") != "data" && d.string("training.parallel") != "auto") {
    if (d.string("network.kind") != "mlp")
      d.reject("network.kind", "parallel: model splits an mlp's layers; use kind: mlp or parallel: data");
    if (d.string("network.dtype") != "float64")
      d.reject("network.dtype", "parallel: model needs float64");
    if (d.real("training.clip_norm") > 0.0)
      d.reject("training.clip_norm", "clipping needs the norm of the whole gradient, which parallel: model "
                                     "splits over ranks; set 0 or use parallel: data");
  }
}

// The deck's network and training sections as the library's settings.
nn::io::SurrogateTraining training_settings(const deck::Deck& d) {
  nn::io::SurrogateTraining t;
  nn::io::data_split_keys().read(d, "data", t);
  nn::io::network_keys().read(d, "network", t);
  nn::io::training_keys().read(d, "training", t);
  t.name = d.string("case");
  t.dir = d.string("output.dir");
  t.card.training_deck = deck_text(d);
  t.card.git_revision = git_revision();
  return t;
}

int train_surrogate(const deck::Deck& d, const Runtime& runtime, const RunOptions& options) {
  const MPI_Comm comm = runtime.comm();
  const nn::io::SurrogateTraining t = training_settings(d);
  const std::string file = d.string("data.file");
  // What the library would refuse, refused at the deck's keys first.
  collective_guard(comm, [&] {
    const std::int64_t m = t.model_ranks, n = runtime.size();
    if (t.parallel == "model" && m > 0 && (m > n || n % m != 0))
      d.reject("training.model_ranks", CAMBER_MSG(m << " does not divide the " << n << " ranks"));
    if (t.parallel == "model" && options.restart)
      d.reject("training.parallel", "--restart is not available with model-parallel training (its checkpoints "
                                    "are not written); use parallel: data");
    if (!fs::exists(file))
      d.reject("data.file", "cannot find '" + file + "' (relative to the working directory)");
    const nn::io::DataSetInfo info = nn::io::dataset_info(file);
    if (t.train.gradient_weight > 0.0 && !info.gradients)
      d.reject("training.gradient_weight",
               "data.file '" + file + "' holds no gradients (camber sample writes them with "
               "sample.gradients or sample.shape)");
    if (t.train.gradient_weight > 0.0 && t.parallel == "model")
      d.reject("training.gradient_weight", "gradient-enhanced training is data parallel only "
                                           "(training.parallel: data)");
    if (info.rows - static_cast<index_t>(std::floor(t.train.validation_fraction * info.rows)) < 1)
      d.reject("data.validation_fraction", CAMBER_MSG("leaves no training rows of the " << info.rows));
  });
  nn::io::train_surrogate(file, t, comm, options.restart);
  return 0;
}

// The column of `name` in `columns`, or bad input naming the deck key.
size_t column_of(const deck::Deck& d, const std::string& key, const nn::Columns& columns) {
  const std::string& name = d.string(key);
  for (size_t k = 0; k < columns.names.size(); ++k)
    if (columns.names[k] == name) return k;
  std::string list;
  for (const std::string& n : columns.names) list += (list.empty() ? "" : ", ") + n;
  d.reject(key, "'" + name + "' is not an output of the data set (" + list + ")");
}

int optimize_surrogate(const deck::Deck& d, const Runtime& runtime, const RunOptions&) {
  const MPI_Comm comm = runtime.comm();
  const std::string name = d.string("case"), dir = d.string("output.dir");
  const std::string file = d.string("data.file"), model_path = dir + "/" + name + "_model.h5";
  collective_guard(comm, [&] {
    if (!fs::exists(file))
      d.reject("data.file", "cannot find '" + file + "' (relative to the working directory)");
    CAMBER_INPUT_REQUIRE(fs::exists(model_path), "no trained network at "
                                                     << model_path << ": run camber train first");
  });
  const nn::io::DataSet data = nn::io::read_dataset(file, comm);
  size_t obj = 0, con = 0;
  const bool constrained = !d.string("design.constraint").empty();
  collective_guard(comm, [&] {
    obj = column_of(d, "design.objective", data.outputs);
    if (constrained) con = column_of(d, "design.constraint", data.outputs);
  });
  std::unique_ptr<nn::io::Model> model;
  collective_guard(comm, [&] { model = std::make_unique<nn::io::Model>(nn::io::load_model(model_path)); });
  const nn::Surrogate& surrogate = model->surrogate;
  const index_t n_in = surrogate.spec().in, n_out = surrogate.spec().out;
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(surrogate.inputs().names == data.inputs.names &&
                             surrogate.outputs().names == data.outputs.names,
                         model_path << " was trained on other columns than " << file
                                    << " holds: train again");
  });

  // Bounds: the data's range of each input (the surrogate knows nothing beyond).
  const auto [lo, hi] = nn::io::input_range(data, comm);
  aero::SurrogateOptimumSettings so;
  so.objective = static_cast<int>(obj);
  so.maximize = d.string("design.goal") == "maximize";
  so.constraint = constrained ? static_cast<int>(con) : -1;
  so.constraint_min = d.real("design.constraint_min");
  so.max_evaluations = static_cast<int>(d.integer("design.max_iterations"));
  const aero::SurrogateOptimum r = aero::optimize_surrogate(surrogate, lo, hi, so, comm);
  std::ostringstream at;
  at << std::setprecision(6);
  for (index_t j = 0; j < n_in; ++j)
    at << (j ? ", " : "") << data.inputs.names[static_cast<size_t>(j)] << " " << r.x[static_cast<size_t>(j)];
  std::ostringstream pred;
  pred << std::setprecision(6);
  for (index_t k = 0; k < n_out; ++k)
    pred << (k ? ", " : "") << data.outputs.names[static_cast<size_t>(k)] << " " << r.y[static_cast<size_t>(k)];
  logging::info(CAMBER_MSG("surrogate optimum after " << r.evaluations << " evaluations ("
                                                     << opt::to_string(r.status) << "): " << at.str()));
  logging::info("surrogate prediction there: " + pred.str());

  const std::string flow = d.string("design.flow_deck");
  if (flow.empty()) return 0;
  const fs::path fp = fs::path(flow).is_absolute()
                          ? fs::path(flow)
                          : (fs::path(d.source()).parent_path() / flow).lexically_normal();
  deck::Deck fd;
  collective_guard(comm, [&] {
    if (!fs::exists(fp)) d.reject("design.flow_deck", "cannot find '" + fp.string() + "'");
    fd = load_case_deck(fp.string());
    if (fd.string("problem") != "euler")
      d.reject("design.flow_deck", "'" + fp.string() + "' is not an euler deck");
    if (data.inputs.names != std::vector<std::string>{"mach", "alpha_deg"})
      d.reject("design.flow_deck", "the re-check needs the inputs mach and alpha_deg");
  });
  solvers::petsc::PetscSession petsc("");
  euler_app::FlowSetup setup = euler_app::flow_setup(fd, comm);
  const eu::SteadyResult flow_r = euler_app::solve_flow_at(fd, setup, r.x[0], r.x[1]);
  const double solved[3] = {flow_r.forces.cl, flow_r.forces.cd, flow_r.forces.cm};
  logging::info(CAMBER_MSG("solver at the optimum (" << fp.string() << ", "
                                                   << (flow_r.converged ? "converged" : "NOT converged")
                                                   << ", " << flow_r.iterations << " steps):"));
  for (index_t k = 0; k < n_out && k < 3; ++k) {
    const std::string& on = data.outputs.names[static_cast<size_t>(k)];
    const double sv = on == "CL" ? solved[0] : on == "CD" ? solved[1] : on == "CM" ? solved[2] : NAN;
    logging::info(CAMBER_MSG("  " << on << ": solver " << std::setprecision(6) << sv
                                  << ", surrogate " << r.y[static_cast<size_t>(k)] << ", error "
                                  << std::scientific << std::setprecision(3)
                                  << r.y[static_cast<size_t>(k)] - sv << " ("
                                  << std::abs(r.y[static_cast<size_t>(k)] - sv) /
                                         std::max(std::abs(sv), 1e-300)
                                  << " relative)" << std::defaultfloat));
  }
  return flow_r.converged ? 0 : 1;
}

}  // namespace

Problem surrogate_problem() {
  Problem p;
  p.name = "surrogate";
  p.summary =
      "a neural network fitted to an HDF5 data set, data parallel over the ranks (sections "
      "data, network, training; `camber train` or `camber run`, --restart continues from the "
      "checkpoint; `camber optimize` optimizes over the trained network and re-checks the "
      "optimum with the solver, section design).";
  p.declare = declare_surrogate_schema;
  p.validate = validate_surrogate;
  p.run = train_surrogate;
  p.restarts = true;
  p.train = train_surrogate;
  p.optimize = optimize_surrogate;
  return p;
}

}  // namespace camber::app
