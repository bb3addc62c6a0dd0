#include "heat_inverse_case.hpp"

#include "mesh_source.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/core/log.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/heat/conductivity_inverse.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace {

void declare_inverse_schema(deck::Schema& s) {
  declare_rectangle_mesh(s, "Every boundary marker is held at heat.boundary_temperature_K.");
  s.section("heat", "Transient conduction rho_c dT/dt = div(k grad T) + q, from a uniform T at t = 0.")
      .real("heat_capacity_J_per_m3K", 1.0, deck::Range::positive(), "Volumetric heat capacity rho c, J/(m^3 K).")
      .real("initial_temperature_K", 0.0, deck::Range::all(), "T everywhere at t = 0, K.")
      .real("boundary_temperature_K", 0.0, deck::Range::all(), "T held on every boundary marker, K.");
  s.section("source", "The heater q: a Gaussian q0 exp(-|x - c|^2 / r^2).")
      .real("power_W_per_m3", 20.0, deck::Range::all(), "q0, W/m^3.")
      .reals("center_m", {0.5, 0.5}, deck::Length::exactly(2), deck::Range::all(), "c = (x, y), m.")
      .real("radius_m", 0.3, deck::Range::positive(), "r, m.");
  s.section("truth",
            "The conductivity the synthetic data come from (the field to recover): "
            "k = k_b + (k_i - k_b) exp(-|x - c|^2 / r^2).")
      .real("background_W_per_mK", 1.0, deck::Range::positive(), "k_b, W/(m K).")
      .real("inclusion_W_per_mK", 2.0, deck::Range::positive(), "k_i, the inclusion's peak, W/(m K).")
      .reals("center_m", {0.6, 0.4}, deck::Length::exactly(2), deck::Range::all(), "c = (x, y), m.")
      .real("radius_m", 0.15, deck::Range::positive(), "r, m.");
  s.section("measurements",
            "Sensors on a grid over the mesh's bounding box, each reading the cell whose centroid is "
            "nearest, at a few times, with Gaussian noise.")
      .integer("sensors_x", 6, deck::IntRange(1, 10000), "Sensors along x (at the centres of sensors_x equal strips).")
      .integer("sensors_y", 6, deck::IntRange(1, 10000), "Sensors along y.")
      .reals("times_s", {0.02, 0.05, 0.1, 0.2}, deck::Length::at_least(1), deck::Range::positive(),
             "Measurement times, increasing, s.")
      .real("noise_std_K", 1e-3, deck::Range::non_negative(), "Standard deviation of the noise, K.")
      .integer("seed", 1, deck::IntRange(0, std::numeric_limits<std::int64_t>::max()), "Seed of the noise.");
  s.section("inversion",
            "Minimize sum (T - d)^2 / (2 sigma^2) + (beta / 2) sum_faces |S|/d (m_L - m_R)^2 over "
            "m = log k per cell, by L-BFGS (NLopt) on the adjoint gradient.")
      .real("initial_conductivity_W_per_mK", 1.0, deck::Range::positive(), "The uniform starting guess.")
      .real("regularization", 100.0, deck::Range::non_negative(),
            "beta, the weight of the smoothness penalty (sigma is the noise level, or 1 K without noise).")
      .real("min_conductivity_W_per_mK", 0.05, deck::Range::positive(), "Lower bound on k.")
      .real("max_conductivity_W_per_mK", 20.0, deck::Range::positive(), "Upper bound on k.")
      .integer("max_evaluations", 60, deck::IntRange(1, 100000), "Most objective and gradient evaluations.");
  s.section("integration", "CVODES (BDF, Newton-GMRES with a Jacobi preconditioner) and its adjoint.")
      .real("rtol", 1e-6, deck::Range::positive().and_less_than(1.0), "Relative tolerance (forward and adjoint).")
      .real("atol", 1e-9, deck::Range::positive(), "Absolute tolerance, K (forward and adjoint).")
      .integer("checkpoint_steps", 100, deck::IntRange(1, 100000000),
               "Forward steps between checkpoints: memory (every step between two checkpoints is "
               "stored) against recomputation.");
}

void validate_inverse(const deck::Deck& d) {
  validate_mesh_source(d, {"cells_x", "cells_y"});
  double last = 0.0;
  for (double t : d.reals("measurements.times_s")) {
    if (!(t > last)) d.reject("measurements.times_s", CAMBER_MSG("times must increase; " << t << " follows " << last));
    last = t;
  }
  const double lo = d.real("inversion.min_conductivity_W_per_mK"), hi = d.real("inversion.max_conductivity_W_per_mK");
  const double k0 = d.real("inversion.initial_conductivity_W_per_mK");
  if (!(lo < hi)) d.reject("inversion.max_conductivity_W_per_mK", CAMBER_MSG("must exceed min_conductivity_W_per_mK (" << lo << ")"));
  if (k0 < lo || k0 > hi)
    d.reject("inversion.initial_conductivity_W_per_mK",
             CAMBER_MSG(k0 << " lies outside the bounds [" << lo << ", " << hi << "]"));
}

solvers::heat::ConductivityInverseProblem problem_of(const deck::Deck& d,
                                                     const mesh::DistributedMesh& dm) {
  solvers::heat::ConductivityInverseProblem p;
  p.model.heat_capacity = d.real("heat.heat_capacity_J_per_m3K");
  // Every marker of the mesh is in each local mesh (empty ones too).
  for (const mesh::Marker& m : dm.local().markers())
    p.model.boundary[m.name] = solvers::heat::HeatBoundary::temperature(d.real("heat.boundary_temperature_K"));
  const double q0 = d.real("source.power_W_per_m3"), r = d.real("source.radius_m");
  const auto c = d.reals("source.center_m");
  p.model.source = [q0, r, c](double x, double y) {
    return q0 * std::exp(-((x - c[0]) * (x - c[0]) + (y - c[1]) * (y - c[1])) / (r * r));
  };
  const double kb = d.real("truth.background_W_per_mK"), ki = d.real("truth.inclusion_W_per_mK");
  const double rt = d.real("truth.radius_m");
  const auto ct = d.reals("truth.center_m");
  p.true_log_conductivity = [kb, ki, rt, ct](double x, double y) {
    return std::log(kb + (ki - kb) * std::exp(-((x - ct[0]) * (x - ct[0]) + (y - ct[1]) * (y - ct[1])) / (rt * rt)));
  };
  // Sensors at the centres of a grid of strips over the bounding box (of
  // the local nodes, then over the ranks).
  const auto coords = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().coords());
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (size_t i = 0; i < coords.extent(0); ++i) {
    x0 = std::min(x0, coords(i, 0));
    x1 = std::max(x1, coords(i, 0));
    y0 = std::min(y0, coords(i, 1));
    y1 = std::max(y1, coords(i, 1));
  }
  x0 = par::allreduce_min(x0, dm.comm());
  y0 = par::allreduce_min(y0, dm.comm());
  x1 = par::allreduce_max(x1, dm.comm());
  y1 = par::allreduce_max(y1, dm.comm());
  const auto nx = d.integer("measurements.sensors_x"), ny = d.integer("measurements.sensors_y");
  for (std::int64_t j = 0; j < ny; ++j)
    for (std::int64_t i = 0; i < nx; ++i)
      p.sensors.push_back({x0 + (x1 - x0) * (static_cast<double>(i) + 0.5) / static_cast<double>(nx),
                           y0 + (y1 - y0) * (static_cast<double>(j) + 0.5) / static_cast<double>(ny)});
  p.times = d.reals("measurements.times_s");
  p.noise_std = d.real("measurements.noise_std_K");
  p.seed = static_cast<std::uint64_t>(d.integer("measurements.seed"));
  p.initial_temperature = d.real("heat.initial_temperature_K");
  p.initial_log_conductivity = std::log(d.real("inversion.initial_conductivity_W_per_mK"));
  p.lower_log_conductivity = std::log(d.real("inversion.min_conductivity_W_per_mK"));
  p.upper_log_conductivity = std::log(d.real("inversion.max_conductivity_W_per_mK"));
  p.regularization = d.real("inversion.regularization");
  p.optimizer.max_evaluations = static_cast<int>(d.integer("inversion.max_evaluations"));
  p.ode.rtol = p.adjoint.rtol = p.adjoint.quad_rtol = d.real("integration.rtol");
  p.ode.atol = p.adjoint.atol = p.adjoint.quad_atol = d.real("integration.atol");
  p.adjoint.checkpoint_steps = d.integer("integration.checkpoint_steps");
  return p;
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
  const solvers::heat::ConductivityInverseProblem p = problem_of(d, dm);
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
    fs::create_directories(dir);
    std::ofstream csv(dir + "/" + name + "_history.csv");
    csv << "evaluation,objective,k_error\n" << std::setprecision(10);
    for (size_t i = 0; i < r.objective_history.size(); ++i)
      csv << i + 1 << "," << r.objective_history[i] << "," << r.error_history[i] << "\n";
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
