/// @file
/// Recovering a spatially varying conductivity from sparse, noisy
/// temperature measurements: the inverse problem of transient_heat.hpp.
///
/// Unknown: m = log k, one value per cell. Data: the temperature read by a
/// few sensors at a few times, d_sj ~ T(x_s, t_j) + noise. Objective:
///
/// @code
///   J(m) = sum_{s,j} (T_s(t_j; m) - d_sj)^2 / (2 sigma^2)
///        + (beta / 2) sum over interior faces of |S_f|/d_f (m_L - m_R)^2
/// @endcode
///
/// (sigma the noise level, or 1 K without noise; the second term is the
/// discrete H1 seminorm of m, a smoothness regularization). A sensor reads
/// the cell whose centroid is nearest to it (the temperature a cell-centred
/// scheme has there). The gradient of the misfit is one forward CVODES run
/// with checkpoints and one adjoint run (ode::distributed_gradient, with jumps
/// at the measurement times); the regularization's is local to each cell
/// and its faces (TransientHeat::smoothness). The gradient is the same bits
/// at any rank count (tests/heat). A library
/// optimizer (opt::Optimizer, L-BFGS with bounds on m) minimizes J over the
/// global field, every rank computing its own cells.
///
/// run_conductivity_inverse makes the data itself (a "twin experiment"):
/// it integrates with the true field, samples the sensors and adds
/// Gaussian noise from a seeded generator (the same on every rank), then
/// starts from a uniform guess. It reports the relative L2 error of k
/// against the true field before and after, so the recovery is measured,
/// not assumed.
///
/// @code
///   solvers::heat::ConductivityInverseProblem p;
///   p.model = ...;                 // boundary conditions and a heat source
///   p.sensors = {{0.25, 0.25}, {0.5, 0.5}, ...};
///   p.times = {0.05, 0.1, 0.2};
///   p.noise_std = 1e-3;
///   p.true_log_conductivity = [](double x, double y) { return 0.5 * std::exp(-20 * (x*x + y*y)); };
///   solvers::heat::ConductivityInverseResult r = solvers::heat::run_conductivity_inverse(dm, p);  // collective
///   // r.error_initial, r.error_final; r.recovered_m, r.true_m (owned cells)
/// @endcode
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/solvers/heat/transient_heat.hpp>

namespace camber::solvers::heat {

struct ConductivityInverseProblem {
  TransientHeatModel model;
  double initial_temperature = 0.0;             ///< K, uniform
  std::vector<std::array<double, 2>> sensors;   ///< points (m)
  std::vector<double> times;                    ///< measurement times (s), ascending, > 0
  double noise_std = 0.0;                       ///< K, Gaussian noise on the synthetic data
  std::uint64_t seed = 1;                       ///< of the noise
  /// The field to recover, log k(x, y); the data come from it.
  std::function<double(double, double)> true_log_conductivity;
  double initial_log_conductivity = 0.0;        ///< the uniform starting guess
  double regularization = 1e-3;                 ///< beta >= 0
  double lower_log_conductivity = -5.0;         ///< bounds on m for the optimizer
  double upper_log_conductivity = 5.0;
  ode::DistributedCvodesOptions ode;
  ode::DistributedAdjointOptions adjoint;
  /// L-BFGS with bounds, 60 evaluations, unless changed. Near the
  /// minimum the gradient's error (the integrator's tolerance) can stall
  /// L-BFGS's line search; NLopt then returns FAILURE, and the result is the
  /// best point evaluated, as for any stop.
  opt::Options optimizer = [] {
    opt::Options o;
    o.algorithm = "lbfgs";
    o.max_evaluations = 60;
    return o;
  }();
};

/// The sensors this rank reads: sensor index and local cell.
struct SensorCells {
  std::vector<int> sensor;
  std::vector<index_t> cell;
};
/// For each point, the owned cell (over all ranks) whose centroid is
/// nearest; ties go to the smaller global cell id, so the choice is the
/// same on every partition. Collective.
SensorCells locate_sensors(const TransientHeat& heat, const std::vector<std::array<double, 2>>& points);

/// J(m) and dJ/dm for the owned cells' m, from data[j * n_sensors + s].
/// Collective.
class ConductivityObjective {
 public:
  ConductivityObjective(TransientHeat& heat, const ConductivityInverseProblem& problem,
                        std::vector<double> data);
  struct Value {
    double misfit = 0.0, regularization = 0.0;
    std::vector<double> gradient;  ///< owned cells
    std::vector<double> final_temperature;  ///< owned cells, at the last time
    ode::DistributedOdeStats forward, backward;
    int checkpoints = 0;
    double total() const { return misfit + regularization; }
  };
  Value evaluate(const std::vector<double>& m);
  /// The sensor readings at every time (data layout) for the field m, and
  /// the final temperature of the owned cells. Collective.
  std::vector<double> simulate(const std::vector<double>& m, std::vector<double>* final_temperature = nullptr);
  const SensorCells& sensors() const noexcept { return sensors_; }

 private:
  double regularization(const std::vector<double>& m, std::vector<double>* gradient);

  TransientHeat* heat_;
  const ConductivityInverseProblem* p_;
  std::vector<double> data_;
  SensorCells sensors_;
  double sigma_ = 1.0;
};

struct ConductivityInverseResult {
  std::vector<double> true_m, initial_m, recovered_m;  ///< owned cells
  std::vector<double> final_temperature;               ///< owned cells, at the last time, recovered field
  int n_data = 0;
  double data_rms = 0.0;          ///< rms of the noise-free readings, K
  double misfit_initial = 0.0, misfit_final = 0.0, regularization_final = 0.0;
  /// ||k - k_true||_L2 / ||k_true||_L2 over the domain (cell-volume weighted).
  double error_initial = 0.0, error_final = 0.0;
  opt::Result optimizer;
  std::vector<double> objective_history;  ///< J at each evaluation
  std::vector<double> error_history;      ///< the k error at each evaluation
  ode::DistributedOdeStats forward, backward;  ///< of the last evaluation
  int checkpoints = 0;
};

/// One evaluation of the objective, as reported while the optimizer runs.
struct InverseProgress {
  int evaluation = 0;
  double objective = 0.0, misfit = 0.0, regularization = 0.0;
  double gradient_norm = 0.0;
  double k_error = 0.0;  ///< of the evaluated field, as error_final
  ode::DistributedOdeStats forward, backward;
  int checkpoints = 0;
};
using InverseReport = std::function<void(const InverseProgress&)>;

/// The twin experiment described in the file comment. Collective.
/// `report` (optional) is called on every rank after every evaluation.
ConductivityInverseResult run_conductivity_inverse(mesh::DistributedMesh& dm,
                                                   const ConductivityInverseProblem& problem,
                                                   const InverseReport& report = {});

/// Checks the problem's values; bad_input naming the field.
void validate_conductivity_inverse(const ConductivityInverseProblem& problem);

}  // namespace camber::solvers::heat
