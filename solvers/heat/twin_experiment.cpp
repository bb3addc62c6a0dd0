#include <camber/solvers/heat/twin_experiment.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/timer.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/parallel/collectives.hpp>

namespace camber::solvers::heat {

double GaussianBump::operator()(double x, double y) const {
  const double dx = x - center[0], dy = y - center[1];
  return background + (peak - background) * std::exp(-(dx * dx + dy * dy) / (radius * radius));
}

std::vector<std::array<double, 2>> sensor_grid(const mesh::DistributedMesh& dm, int nx, int ny) {
  CAMBER_INPUT_REQUIRE(nx >= 1 && ny >= 1, "sensor grid: " << nx << " x " << ny << " sensors");
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
  std::vector<std::array<double, 2>> points;
  points.reserve(static_cast<size_t>(nx) * static_cast<size_t>(ny));
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      points.push_back({x0 + (x1 - x0) * (i + 0.5) / nx, y0 + (y1 - y0) * (j + 0.5) / ny});
  return points;
}

ConductivityInverseProblem twin_problem(const TwinExperiment& t, const mesh::DistributedMesh& dm) {
  CAMBER_INPUT_REQUIRE(t.heat_capacity > 0.0, "twin experiment: heat_capacity must be > 0, got "
                                                  << t.heat_capacity);
  CAMBER_INPUT_REQUIRE(t.source.radius > 0.0 && t.conductivity.radius > 0.0,
                       "twin experiment: the source's and the inclusion's radius must be > 0");
  CAMBER_INPUT_REQUIRE(t.conductivity.background > 0.0 && t.conductivity.peak > 0.0,
                       "twin experiment: the true conductivity must be > 0 (background "
                           << t.conductivity.background << ", peak " << t.conductivity.peak << ")");
  CAMBER_INPUT_REQUIRE(0.0 < t.min_conductivity && t.min_conductivity < t.max_conductivity,
                       "twin experiment: needs 0 < min_conductivity < max_conductivity, got "
                           << t.min_conductivity << " and " << t.max_conductivity);
  CAMBER_INPUT_REQUIRE(t.max_evaluations >= 1 && t.checkpoint_steps >= 1,
                       "twin experiment: max_evaluations and checkpoint_steps must be >= 1");
  ConductivityInverseProblem p;
  p.model.heat_capacity = t.heat_capacity;
  // Every marker of the mesh is in each local mesh (empty ones too).
  for (const mesh::Marker& m : dm.local().markers())
    p.model.boundary[m.name] = HeatBoundary::temperature(t.boundary_temperature);
  p.model.source = [q = t.source](double x, double y) { return q(x, y); };
  p.true_log_conductivity = [k = t.conductivity](double x, double y) { return std::log(k(x, y)); };
  p.sensors = sensor_grid(dm, t.sensors_x, t.sensors_y);
  p.times = t.times;
  p.noise_std = t.noise_std;
  p.seed = t.seed;
  p.initial_temperature = t.initial_temperature;
  p.initial_log_conductivity = std::log(t.initial_conductivity);
  p.lower_log_conductivity = std::log(t.min_conductivity);
  p.upper_log_conductivity = std::log(t.max_conductivity);
  p.regularization = t.regularization;
  p.optimizer.max_evaluations = t.max_evaluations;
  p.ode.rtol = p.adjoint.rtol = p.adjoint.quad_rtol = t.rtol;
  p.ode.atol = p.adjoint.atol = p.adjoint.quad_atol = t.atol;
  p.adjoint.checkpoint_steps = t.checkpoint_steps;
  validate_conductivity_inverse(p);
  return p;
}

void write_inverse_history_csv(const std::string& path, const ConductivityInverseResult& r) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::ostringstream csv;
  csv << "evaluation,objective,k_error\n" << std::setprecision(10);
  for (size_t i = 0; i < r.objective_history.size(); ++i)
    csv << i + 1 << "," << r.objective_history[i] << "," << r.error_history[i] << "\n";
  write_file_atomically(path, csv.str());
}

std::string write_inverse_paraview(const std::string& dir, const std::string& name,
                                   mesh::DistributedMesh& dm, const ConductivityInverseProblem& p,
                                   const ConductivityInverseResult& r) {
  ScopedTimer timer("write_vtk");
  std::vector<double> kt(r.true_m.size()), kr(r.recovered_m.size()), err(kt.size()), sensor(kt.size(), 0.0);
  std::transform(r.true_m.begin(), r.true_m.end(), kt.begin(), [](double m) { return std::exp(m); });
  std::transform(r.recovered_m.begin(), r.recovered_m.end(), kr.begin(), [](double m) { return std::exp(m); });
  for (size_t i = 0; i < kt.size(); ++i) err[i] = kr[i] - kt[i];
  const TransientHeat heat(dm, p.model);
  for (index_t c : locate_sensors(heat, p.sensors).cell) sensor[static_cast<size_t>(c)] = 1.0;
  const io::UnstructuredPiece piece = dm.owned_piece({{"True conductivity [W/(m K)]", 1, kt},
                                                      {"Recovered conductivity [W/(m K)]", 1, kr},
                                                      {"Conductivity error [W/(m K)]", 1, err},
                                                      {"Final temperature [K]", 1, r.final_temperature},
                                                      {"Sensor", 1, sensor}});
  const std::string pvtu = io::write_pvtu(dir + "/" + io::series_file_name(name, 0), piece, dm.comm());
  io::PvdSeries series(dir + "/" + name + ".pvd", dm.comm());
  series.add(0.0, std::filesystem::path(pvtu).filename().string());
  return series.path();
}

}  // namespace camber::solvers::heat
