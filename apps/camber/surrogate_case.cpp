#include "surrogate_case.hpp"

#include "euler_common.hpp"
#include "git_revision.hpp"

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/deck_keys.hpp>
#include <camber/nn/io/surrogate_training.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/solvers/aero/airfoil_sampler.hpp>
#include <camber/solvers/aero/deck_keys.hpp>
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
  auto& design = s.section("design", "camber optimize: the trained network (the case's model file, "
                                     "<output.dir>/<case>_model.h5) as a differentiable model, optimized over "
                                     "its inputs within the data set's range by SLSQP with gradients through "
                                     "the network, and the optimum re-checked by the solver of flow_deck.");
  aero::surrogate_optimum_keys().declare(design);
  design.string("flow_deck", "",
                "An euler deck whose flow is solved at the optimum (inputs mach and alpha_deg) "
                "to measure the surrogate's error there; a relative path starts at this deck's "
                "folder. \"\": no re-check.");
}

void validate_surrogate(const deck::Deck& d) {
  nn::io::validate_training_keys(d, "data", "network", "training");
}

// The deck's network and training sections as the library's settings.
nn::io::SurrogateTraining training_settings(const deck::Deck& d) {
  nn::io::SurrogateTraining t;
  nn::io::data_split_keys().read(d, "data", t);
  nn::io::network_keys().read(d, "network", t);
  nn::io::training_keys().read(d, "training", t);
  t.name = d.string("case");
  t.dir = d.string("output.dir");
  t.card.training_deck = deck::deck_text(d);
  t.card.git_revision = git_revision();
  return t;
}

int train_surrogate(const deck::Deck& d, const Runtime& runtime, const RunOptions& options) {
  const MPI_Comm comm = runtime.comm();
  const nn::io::SurrogateTraining t = training_settings(d);
  const std::string file = d.string("data.file");
  // What the library would refuse, refused at the deck's keys first.
  collective_guard(comm, [&] {
    nn::io::validate_training_run(d, "data", "training", file, t, runtime.size(), options.restart);
  });
  nn::io::train_surrogate(file, t, comm, options.restart);
  return 0;
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
  const aero::SavedSurrogateOptimum saved = aero::optimize_saved_surrogate(
      model_path, file, aero::surrogate_optimum_keys().read(d, "design"), comm,
      d.rejecter("design"));
  const aero::SurrogateOptimum& r = saved.optimum;
  const std::vector<std::string>& inputs = saved.inputs.names;
  const std::vector<std::string>& outputs = saved.outputs.names;
  std::ostringstream at;
  at << std::setprecision(6);
  for (size_t j = 0; j < inputs.size(); ++j) at << (j ? ", " : "") << inputs[j] << " " << r.x[j];
  std::ostringstream pred;
  pred << std::setprecision(6);
  for (size_t k = 0; k < outputs.size(); ++k) pred << (k ? ", " : "") << outputs[k] << " " << r.y[k];
  logging::info(CAMBER_MSG("surrogate optimum after " << r.evaluations << " evaluations ("
                                                     << opt::to_string(r.status) << "): " << at.str()));
  logging::info("surrogate prediction there: " + pred.str());

  const std::string flow = d.string("design.flow_deck");
  if (flow.empty()) return 0;
  const fs::path fp = deck::deck_relative_path(d, flow);
  deck::Deck fd;
  collective_guard(comm, [&] {
    if (!fs::exists(fp)) d.reject("design.flow_deck", "cannot find '" + fp.string() + "'");
    fd = load_case_deck(fp.string());
    if (fd.string("problem") != "euler")
      d.reject("design.flow_deck", "'" + fp.string() + "' is not an euler deck");
    if (inputs != std::vector<std::string>{"mach", "alpha_deg"})
      d.reject("design.flow_deck", "the re-check needs the inputs mach and alpha_deg");
  });
  solvers::petsc::PetscSession petsc("");
  euler_app::FlowSetup setup = euler_app::flow_setup(fd, comm);
  const eu::SteadyResult flow_r = euler_app::solve_flow_at(fd, setup, r.x[0], r.x[1]);
  logging::info(CAMBER_MSG("solver at the optimum (" << fp.string() << ", "
                                                   << (flow_r.converged ? "converged" : "NOT converged")
                                                   << ", " << flow_r.iterations << " steps):"));
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string& on = outputs[k];
    const double sv = aero::force_output(flow_r.forces, on);
    if (std::isnan(sv)) continue;  // not a force (t_max)
    logging::info(CAMBER_MSG("  " << on << ": solver " << std::setprecision(6) << sv << ", surrogate "
                                  << r.y[k] << ", error " << std::scientific << std::setprecision(3)
                                  << r.y[k] - sv << " (" << std::abs(r.y[k] - sv) / std::max(std::abs(sv), 1e-300)
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
