#include <camber/solvers/heat/conductivity_inverse.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>

#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

namespace camber::solvers::heat {

void validate_conductivity_inverse(const ConductivityInverseProblem& p) {
  CAMBER_INPUT_REQUIRE(!p.sensors.empty(), "heat inverse: no sensors");
  for (const auto& s : p.sensors)
    CAMBER_INPUT_REQUIRE(std::isfinite(s[0]) && std::isfinite(s[1]),
                         "heat inverse: a sensor at (" << s[0] << ", " << s[1] << ")");
  CAMBER_INPUT_REQUIRE(!p.times.empty(), "heat inverse: no measurement times");
  double last = 0.0;
  for (double t : p.times) {
    CAMBER_INPUT_REQUIRE(std::isfinite(t) && t > last,
                         "heat inverse: measurement times must be > 0 and increase, got " << t);
    last = t;
  }
  CAMBER_INPUT_REQUIRE(std::isfinite(p.noise_std) && p.noise_std >= 0.0,
                       "heat inverse: noise_std must be >= 0 K, got " << p.noise_std);
  CAMBER_INPUT_REQUIRE(std::isfinite(p.regularization) && p.regularization >= 0.0,
                       "heat inverse: regularization must be >= 0, got " << p.regularization);
  CAMBER_INPUT_REQUIRE(static_cast<bool>(p.true_log_conductivity), "heat inverse: no true conductivity field");
  CAMBER_INPUT_REQUIRE(std::isfinite(p.initial_temperature), "heat inverse: initial_temperature is "
                                                                 << p.initial_temperature);
  CAMBER_INPUT_REQUIRE(p.lower_log_conductivity < p.upper_log_conductivity &&
                           p.initial_log_conductivity >= p.lower_log_conductivity &&
                           p.initial_log_conductivity <= p.upper_log_conductivity,
                       "heat inverse: the initial log-conductivity " << p.initial_log_conductivity
                                                                     << " must lie within the bounds ["
                                                                     << p.lower_log_conductivity << ", "
                                                                     << p.upper_log_conductivity << "]");
}

SensorCells locate_sensors(const TransientHeat& heat, const std::vector<std::array<double, 2>>& points) {
  const auto x = heat.at_centroids([](double a, double) { return a; });
  const auto y = heat.at_centroids([](double, double b) { return b; });
  const MPI_Comm comm = heat.mesh().comm();
  const auto& gid = heat.mesh().cell_global_ids();
  const size_t ns = points.size();
  // Per sensor, this rank's nearest cell (ties: the smaller global id),
  // then the nearest over all ranks, ties again to the smaller global id:
  // the same cell on every partition.
  std::vector<double> distance(ns, std::numeric_limits<double>::infinity());
  std::vector<std::int64_t> best(ns, std::numeric_limits<std::int64_t>::max());
  std::vector<index_t> cell(ns, -1);
  for (size_t s = 0; s < ns; ++s)
    for (size_t c = 0; c < x.size(); ++c) {
      const double d = std::hypot(x[c] - points[s][0], y[c] - points[s][1]);
      if (d < distance[s] || (d == distance[s] && gid[c] < best[s])) {
        distance[s] = d;
        best[s] = gid[c];
        cell[s] = static_cast<index_t>(c);
      }
    }
  std::vector<double> nearest(ns);
  MPI_Allreduce(distance.data(), nearest.data(), static_cast<int>(ns), MPI_DOUBLE, MPI_MIN, comm);
  std::vector<std::int64_t> mine(ns), chosen(ns);
  for (size_t s = 0; s < ns; ++s)
    mine[s] = distance[s] == nearest[s] ? best[s] : std::numeric_limits<std::int64_t>::max();
  MPI_Allreduce(mine.data(), chosen.data(), static_cast<int>(ns), MPI_INT64_T, MPI_MIN, comm);
  SensorCells out;
  for (size_t s = 0; s < ns; ++s)
    if (cell[s] >= 0 && mine[s] == chosen[s]) {
      out.sensor.push_back(static_cast<int>(s));
      out.cell.push_back(cell[s]);
    }
  return out;
}

ConductivityObjective::ConductivityObjective(TransientHeat& heat, const ConductivityInverseProblem& problem,
                                             std::vector<double> data)
    : heat_(&heat), p_(&problem), data_(std::move(data)) {
  sensors_ = locate_sensors(heat, problem.sensors);
  sigma_ = problem.noise_std > 0.0 ? problem.noise_std : 1.0;
}

std::vector<double> ConductivityObjective::simulate(const std::vector<double>& m,
                                                    std::vector<double>* final_temperature) {
  heat_->set_log_conductivity(m);
  const size_t ns = p_->sensors.size();
  std::vector<double> readings(p_->times.size() * ns, 0.0), T;
  ode::DistributedCvodes cv(heat_->system(), p_->ode);
  cv.reset(0.0, std::vector<double>(static_cast<size_t>(heat_->n_owned()), p_->initial_temperature));
  for (size_t j = 0; j < p_->times.size(); ++j) {
    cv.advance(p_->times[j], T);
    for (size_t i = 0; i < sensors_.sensor.size(); ++i)
      readings[j * ns + static_cast<size_t>(sensors_.sensor[i])] = T[static_cast<size_t>(sensors_.cell[i])];
  }
  MPI_Allreduce(MPI_IN_PLACE, readings.data(), static_cast<int>(readings.size()), MPI_DOUBLE, MPI_SUM,
                heat_->mesh().comm());
  if (final_temperature != nullptr) *final_temperature = T;
  return readings;
}

double ConductivityObjective::regularization(const std::vector<double>& m, std::vector<double>* gradient) {
  const double beta = p_->regularization;
  const double value = beta * heat_->smoothness(m, gradient);
  if (gradient != nullptr)
    for (double& g : *gradient) g *= beta;
  return value;
}

ConductivityObjective::Value ConductivityObjective::evaluate(const std::vector<double>& m) {
  heat_->set_log_conductivity(m);
  const size_t ns = p_->sensors.size();
  const double s2 = sigma_ * sigma_;
  ode::PointLoss loss;
  loss.times = p_->times;
  loss.term = [&](int k, const double* T, double* dphi) {
    std::fill(dphi, dphi + heat_->n_owned(), 0.0);
    double v = 0.0;
    for (size_t i = 0; i < sensors_.sensor.size(); ++i) {
      const size_t c = static_cast<size_t>(sensors_.cell[i]);
      const double r = T[c] - data_[static_cast<size_t>(k) * ns + static_cast<size_t>(sensors_.sensor[i])];
      v += 0.5 * r * r / s2;
      dphi[c] += r / s2;
    }
    return v;
  };
  const std::vector<double> T0(static_cast<size_t>(heat_->n_owned()), p_->initial_temperature);
  ode::DistributedGradient g = ode::distributed_gradient(heat_->system(), p_->ode, 0.0, T0, loss, p_->adjoint);
  Value out;
  out.misfit = g.value;
  std::vector<double> rg;
  out.regularization = regularization(m, &rg);
  out.gradient = std::move(g.d_dp);
  for (size_t c = 0; c < rg.size(); ++c) out.gradient[c] += rg[c];
  out.final_temperature = std::move(g.states.back());
  out.forward = g.forward;
  out.backward = g.backward;
  out.checkpoints = g.checkpoints;
  return out;
}

namespace {

// ||k - k_true||_L2 / ||k_true||_L2, k = exp(m), cell-volume weighted.
double relative_error(const std::vector<double>& m, const std::vector<double>& m_true,
                      const std::vector<double>& volume, MPI_Comm comm) {
  double num = 0.0, den = 0.0;
  for (size_t c = 0; c < m.size(); ++c) {
    const double k = std::exp(m[c]), kt = std::exp(m_true[c]);
    num += volume[c] * (k - kt) * (k - kt);
    den += volume[c] * kt * kt;
  }
  return std::sqrt(par::allreduce_sum(num, comm) / par::allreduce_sum(den, comm));
}

}  // namespace

ConductivityInverseResult run_conductivity_inverse(mesh::DistributedMesh& dm,
                                                   const ConductivityInverseProblem& p,
                                                   const InverseReport& report) {
  collective_guard(dm.comm(), [&] { validate_conductivity_inverse(p); });
  TransientHeat heat(dm, p.model);
  ConductivityInverseResult out;
  out.true_m = heat.at_centroids(p.true_log_conductivity);
  out.initial_m.assign(static_cast<size_t>(heat.n_owned()), p.initial_log_conductivity);

  // The synthetic measurements: the true field's readings plus noise drawn
  // from the same seeded generator on every rank.
  ConductivityObjective clean(heat, p, {});
  std::vector<double> data = clean.simulate(out.true_m);
  double sq = 0.0;
  for (double d : data) sq += d * d;
  out.n_data = static_cast<int>(data.size());
  out.data_rms = std::sqrt(sq / static_cast<double>(data.size()));
  std::mt19937_64 generator(p.seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (double& d : data) d += p.noise_std * noise(generator);
  ConductivityObjective objective(heat, p, std::move(data));

  // The optimizer works on the global field, ordered by global cell id.
  const auto& gid = dm.cell_global_ids();
  const index_t n_owned = heat.n_owned(), n_local = dm.n_local_cells();
  const auto to_owned = [&](const std::vector<double>& x) {
    std::vector<double> m(static_cast<size_t>(n_owned));
    for (index_t c = 0; c < n_owned; ++c) m[static_cast<size_t>(c)] = x[static_cast<size_t>(gid[static_cast<size_t>(c)])];
    return m;
  };
  const auto to_global = [&](const std::vector<double>& owned) {
    std::vector<double> local(static_cast<size_t>(n_local), 0.0);
    std::copy(owned.begin(), owned.end(), local.begin());
    return par::gather_owned(Tensor::from_host({n_local}, local), dm.distribution()).to_vector();
  };
  const size_t n_global = static_cast<size_t>(dm.n_global_cells());
  opt::Problem problem;
  problem.x0.assign(n_global, p.initial_log_conductivity);
  problem.lower.assign(n_global, p.lower_log_conductivity);
  problem.upper.assign(n_global, p.upper_log_conductivity);
  const std::vector<double> volume = heat.volumes();
  InverseProgress progress;
  problem.evaluate = [&](const std::vector<double>& x) {
    const std::vector<double> m = to_owned(x);
    ConductivityObjective::Value v = objective.evaluate(m);
    opt::Evaluation e;
    e.objective = v.total();
    e.objective_gradient = to_global(v.gradient);
    progress.evaluation += 1;
    progress.objective = v.total();
    progress.misfit = v.misfit;
    progress.regularization = v.regularization;
    progress.gradient_norm = e.gradient_norm();
    progress.k_error = relative_error(m, out.true_m, volume, dm.comm());
    progress.forward = out.forward = v.forward;
    progress.backward = out.backward = v.backward;
    progress.checkpoints = out.checkpoints = v.checkpoints;
    out.objective_history.push_back(v.total());
    out.error_history.push_back(progress.k_error);
    if (report) report(progress);
    return e;
  };
  opt::Optimizer optimizer(problem, p.optimizer, dm.comm());
  out.misfit_initial = objective.evaluate(out.initial_m).misfit;
  out.optimizer = optimizer.minimize();

  out.recovered_m = to_owned(out.optimizer.x);
  const ConductivityObjective::Value last = objective.evaluate(out.recovered_m);
  out.misfit_final = last.misfit;
  out.regularization_final = last.regularization;
  out.final_temperature = last.final_temperature;
  out.error_initial = relative_error(out.initial_m, out.true_m, volume, dm.comm());
  out.error_final = relative_error(out.recovered_m, out.true_m, volume, dm.comm());
  return out;
}

}  // namespace camber::solvers::heat
