/// @file
/// The conductivity inverse problem's synthetic case ("twin experiment")
/// as settings: a Gaussian heater, a Gaussian inclusion as the true
/// conductivity, a grid of sensors over the mesh, the noise, the bounds
/// and the integrator's tolerances. twin_problem() turns them into the
/// ConductivityInverseProblem that run_conductivity_inverse solves
/// (conductivity_inverse.hpp); `camber run` with `problem: heat_inverse`
/// reads these settings from a deck (deck_keys.hpp) and makes the same
/// call.
///
/// @code
///   solvers::heat::TwinExperiment t;         // the defaults of the deck
///   t.sensors_x = t.sensors_y = 8;
///   t.noise_std = 0.0;
///   const solvers::heat::ConductivityInverseProblem p = solvers::heat::twin_problem(t, dm);  // collective
///   const solvers::heat::ConductivityInverseResult r = solvers::heat::run_conductivity_inverse(dm, p);
///   if (rank == 0) solvers::heat::write_inverse_history_csv("out/case_history.csv", r);
///   solvers::heat::write_inverse_paraview("out", "case", dm, p, r);   // out/case.pvd
/// @endcode
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/heat/conductivity_inverse.hpp>

namespace camber::solvers::heat {

/// b + (p - b) exp(-|x - c|^2 / r^2): background b far away, peak p at c.
struct GaussianBump {
  double background = 0.0;
  double peak = 1.0;
  std::array<double, 2> center{0.5, 0.5};  ///< m
  double radius = 0.3;                     ///< m, > 0
  double operator()(double x, double y) const;
};

struct TwinExperiment {
  double heat_capacity = 1.0;          ///< rho c, J/(m^3 K)
  double initial_temperature = 0.0;    ///< K, everywhere at t = 0
  double boundary_temperature = 0.0;   ///< K, held on every boundary marker
  /// The heater q, W/m^3 (background 0).
  GaussianBump source{0.0, 20.0, {0.5, 0.5}, 0.3};
  /// The conductivity the data come from, W/(m K).
  GaussianBump conductivity{1.0, 2.0, {0.6, 0.4}, 0.15};
  int sensors_x = 6;  ///< sensors at the centres of sensors_x equal strips of the bounding box
  int sensors_y = 6;
  std::vector<double> times{0.02, 0.05, 0.1, 0.2};  ///< s, increasing
  double noise_std = 1e-3;                          ///< K
  std::uint64_t seed = 1;
  double initial_conductivity = 1.0;  ///< W/(m K), the uniform starting guess
  double regularization = 100.0;      ///< beta
  double min_conductivity = 0.05;     ///< W/(m K), bounds of the optimizer
  double max_conductivity = 20.0;
  int max_evaluations = 60;
  double rtol = 1e-6;  ///< forward and adjoint integration
  double atol = 1e-9;  ///< K
  long checkpoint_steps = 100;
};

/// Sensors at the centres of an nx x ny grid of strips over the bounding
/// box of the mesh's nodes (over all ranks), row by row from (x0, y0).
/// Collective.
std::vector<std::array<double, 2>> sensor_grid(const mesh::DistributedMesh& dm, int nx, int ny);

/// The inverse problem of `t` on `dm`: every marker of the mesh held at
/// t.boundary_temperature, m = log k with bounds log(min) and log(max).
/// bad_input naming the setting when t is not a valid case. Collective.
ConductivityInverseProblem twin_problem(const TwinExperiment& t, const mesh::DistributedMesh& dm);

/// evaluation,objective,k_error per evaluation, written atomically (call
/// it on one rank; the parent folder is created).
void write_inverse_history_csv(const std::string& path, const ConductivityInverseResult& r);

/// The ParaView series `<dir>/<name>.pvd` of one step over the owned cells
/// of `dm`: the true and the recovered conductivity k = exp(m) and their
/// difference (W/(m K)), the final temperature (K), and Sensor: 1 in the
/// cells that hold a sensor of `p`, else 0. Returns the .pvd's path.
/// Collective.
std::string write_inverse_paraview(const std::string& dir, const std::string& name,
                                   mesh::DistributedMesh& dm, const ConductivityInverseProblem& p,
                                   const ConductivityInverseResult& r);

}  // namespace camber::solvers::heat
