#include "heat_inverse_case.hpp"

#include "mesh_source.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/core/log.hpp>
#include <camber/mesh/deck_keys.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/heat/deck_keys.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace {

void declare_inverse_schema(deck::Schema& s) {
  declare_rectangle_mesh(s, "Every boundary marker is held at heat.boundary_temperature_K.");
  solvers::heat::declare_twin_experiment(s);
}

void validate_inverse(const deck::Deck& d) {
  mesh::validate_mesh_file_keys(d, "mesh", {"cells_x", "cells_y"});
  solvers::heat::validate_twin_experiment(d);
}

std::vector<double> exp_of(const std::vector<double>& m) {
  std::vector<double> k(m.size());
  std::transform(m.begin(), m.end(), k.begin(), [](double v) { return std::exp(v); });
  return k;
}

void write_paraview(const std::string& dir, const std::string& name, const mesh::DistributedMesh& dm,
                    const solvers::heat::ConductivityInverseResult& r, const std::vector<double>& sensor_cells) {
  ScopedTimer timer("write_vtk");
  const std::vector<double> kt = exp_of(r.true_m), kr = exp_of(r.recovered_m);
  std::vector<double> err(kt.size());
  for (size_t i = 0; i < kt.size(); ++i) err[i] = kr[i] - kt[i];
  const io::UnstructuredPiece piece = dm.owned_piece({{"True conductivity [W/(m K)]", 1, kt},
                                                      {"Recovered conductivity [W/(m K)]", 1, kr},
                                                      {"Conductivity error [W/(m K)]", 1, err},
                                                      {"Final temperature [K]", 1, r.final_temperature},
                                                      {"Sensor", 1, sensor_cells}});
  const std::string pvtu = io::write_pvtu(dir + "/" + io::series_file_name(name, 0), piece, dm.comm());
  io::PvdSeries series(dir + "/" + name + ".pvd", dm.comm());
  series.add(0.0, fs::path(pvtu).filename().string());
  logging::info("wrote " + dir + "/" + name + ".pvd (ParaView: true and recovered conductivity)");
}

int run_inverse(const deck::Deck& d, const Runtime& runtime, const RunOptions&) {
  const MPI_Comm comm = runtime.comm();
  const std::string name = d.string("case"), dir = d.string("output.dir");
  mesh::DistributedMesh dm;
  {
    ScopedTimer timer("mesh");
    dm = build_rectangle_or_file_distributed(d, comm);
  }
  const solvers::heat::ConductivityInverseProblem p =
      solvers::heat::twin_problem(solvers::heat::read_twin_experiment(d), dm);
  logging::info(CAMBER_MSG("heat inverse: " << dm.n_global_cells() << " cells (unknowns) on " << runtime.size()
                                            << (runtime.size() == 1 ? " rank, " : " ranks, ") << p.sensors.size()
                                            << " sensors x " << p.times.size() << " times, noise "
                                            << p.noise_std << " K, regularization " << p.regularization));
  const auto report = [&](const solvers::heat::InverseProgress& e) {
    logging::info(CAMBER_MSG("evaluation " << e.evaluation << ": J " << std::scientific << std::setprecision(4)
                                           << e.objective << " (misfit " << e.misfit << ", smoothness "
                                           << e.regularization << "), |grad| " << e.gradient_norm << ", k error "
                                           << std::fixed << std::setprecision(4) << e.k_error << "; forward "
                                           << e.forward.ode.steps << " steps (last step " << std::scientific
                                           << std::setprecision(2) << e.forward.ode.last_step << " s), adjoint "
                                           << e.backward.ode.steps << " steps, " << e.checkpoints
                                           << " checkpoints"));
  };
  solvers::heat::ConductivityInverseResult r;
  {
    ScopedTimer timer("inverse");
    r = solvers::heat::run_conductivity_inverse(dm, p, report);
  }
  logging::info(CAMBER_MSG("optimizer: " << r.optimizer.message << ", " << r.optimizer.n_evaluations
                                         << " evaluations"));
  logging::info(CAMBER_MSG("data: " << r.n_data << " readings, rms " << std::setprecision(4) << r.data_rms
                                    << " K; misfit " << std::scientific << std::setprecision(4)
                                    << r.misfit_initial << " -> " << r.misfit_final << " (noise level "
                                    << 0.5 * r.n_data << ")"));
  logging::info(CAMBER_MSG("conductivity error ||k - k_true|| / ||k_true||: " << std::fixed << std::setprecision(4)
                                                                            << r.error_initial << " (initial guess) -> "
                                                                            << r.error_final << " (recovered)"));
  if (runtime.rank() == 0) {
    solvers::heat::write_inverse_history_csv(dir + "/" + name + "_history.csv", r);
    logging::info("wrote " + dir + "/" + name + "_history.csv");
  }
  if (d.boolean("output.paraview")) {
    std::vector<double> sensor(r.true_m.size(), 0.0);
    solvers::heat::TransientHeat heat(dm, p.model);
    const solvers::heat::SensorCells cells = solvers::heat::locate_sensors(heat, p.sensors);
    for (index_t c : cells.cell) sensor[static_cast<size_t>(c)] = 1.0;
    write_paraview(dir, name, dm, r, sensor);
  }
  return 0;
}

}  // namespace

Problem heat_inverse_problem() {
  Problem p;
  p.name = "heat_inverse";
  p.summary =
      "recover a conductivity field from sparse noisy temperatures of a transient heat run (method of "
      "lines with CVODES, adjoint gradient, L-BFGS) (sections mesh, heat, source, truth, measurements, "
      "inversion, integration).";
  p.declare = declare_inverse_schema;
  p.validate = validate_inverse;
  p.run = run_inverse;
  return p;
}

}  // namespace camber::app
