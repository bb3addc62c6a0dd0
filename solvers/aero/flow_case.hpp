/// @file
/// camber::solvers::aero::solve_flow_case — one steady Euler flow on a
/// distributed mesh with everything a run writes: what `camber run` does
/// with an euler deck, as one call from a settings struct.
///
/// The flow is solved by pseudo-transient Newton (euler::solve_steady) from
/// the free stream, or from the case's state file with `restart`. The
/// outputs go to `<dir>/<name>...`: the convergence history
/// (`_history.csv`), the wall pressure (`_cp.csv`), their plots (gnuplot,
/// when installed: `_convergence.png`, `_cp.png`), in 3-D the pressure at
/// spanwise stations (`_stations.csv`, `.png`) and its comparison with a
/// reference (`_stations_reference.csv`), the fields for ParaView (`.pvd`
/// over `.pvtu`, and each slip wall's surface `.pvtp`) and the state for a
/// restart (`.h5`). When the solve fails (an Error from the solver), the
/// last good state, its history and its fields are written before the
/// error goes on, so a run can be restarted and inspected where it went
/// wrong.
///
/// @code
///   aero::FlowCaseSettings s;                 // defaults of each library struct
///   s.name = "naca0012"; s.dir = "out";
///   s.flow.mach = 0.8; s.flow.alpha_deg = 1.25;
///   s.conditions = {{"airfoil", euler::BoundaryKind::slip_wall},
///                   {"farfield", euler::BoundaryKind::far_field}};
///   s.spatial.order = 2;
///   const aero::FlowCaseResult r = aero::solve_flow_case(std::move(dm), s);
///   // r.solve.forces.cl, r.orders (residual drop), r.solve.converged
/// @endcode
///
/// Collective over the mesh's communicator; files that one process writes
/// (CSV, plots) are written by rank 0. A marker without a condition, or a
/// condition without a marker, is bad_input (euler::check_boundary_conditions).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/aero/wing_sections.hpp>
#include <camber/solvers/euler/flow_conditions.hpp>
#include <camber/solvers/euler/reconstruction.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>

namespace camber::solvers::aero {

struct FlowCaseSettings {
  std::string name = "flow";  ///< stem of every output file
  std::string dir = ".";      ///< output folder (created)
  euler::FlowConditions flow;
  std::vector<euler::BoundaryCondition> conditions;
  euler::FluxScheme scheme = euler::FluxScheme::roe;
  euler::SpatialOptions spatial;
  euler::SteadyOptions steady;
  /// 3-D: spanwise stations eta (fractions of the slip walls' semi-span,
  /// root on y = 0) where the wall pressure is cut; empty: none.
  std::vector<double> stations;
  /// Reference pressures at stations (read_section_reference), compared
  /// with the computed ones; `reference_file` names it in plots and logs.
  std::vector<SectionPoint> reference;
  std::string reference_file;
  bool paraview = true;  ///< fields and wall surfaces for ParaView
  bool state = true;     ///< the state file `dir/name.h5` (for restart)
  bool restart = false;  ///< start from the state file instead of the free stream
  /// Attributes stored in the state file beside the fields (e.g. the deck).
  std::vector<std::pair<std::string, std::string>> labels;
  /// Called after every Newton step (progress lines).
  euler::SteadyMonitor monitor;
};

struct FlowCaseResult {
  euler::SteadyResult solve;
  /// The density residual the drop is measured from (the first run's, on a
  /// restart) and the drop in orders of magnitude.
  double reference_residual = 0.0;
  double orders = 0.0;
  std::int64_t cells = 0;
  int ranks = 1;
};

/// Solves the flow and writes the outputs above. Throws what the solver
/// throws, after saving the last good state.
FlowCaseResult solve_flow_case(mesh::DistributedMesh dm, const FlowCaseSettings& settings);

/// `<path>`: one row per Newton step (step, residual_density, residual_all,
/// cfl, alpha, linear_iterations, CL, CD, CM, seconds). One process.
void write_history_csv(const std::string& path, const std::vector<euler::IterationReport>& history);

/// `<dir>/<stem>_stations.csv` (eta, x_over_c, x, z, Cp, side) and its plot
/// `_stations.png`, one panel per station, with the points of the reference
/// CSV `reference_file` beside them when it is given. One process.
void write_station_csv(const std::string& dir, const std::string& stem,
                       const std::vector<SectionPoint>& stations, const std::vector<double>& etas,
                       const std::string& reference_file = "");

/// The strips of a spanwise load and the span efficiency of its lifting-line
/// fit, in a wing's outputs: 40 strips, 5 odd harmonics.
inline constexpr int span_load_strips = 40, span_load_terms = 5;

/// `<dir>/<stem>_span_load.csv`: per strip y_lo, y_hi, eta (the strip's
/// middle over the semi-span), c_cl, c_cd (the load per unit span over the
/// dynamic pressure) and the elliptic load of the same lift, and its plot
/// `_span_load.png` (gnuplot; none without it); a log line
/// with the span efficiency of the fit and the largest gap from the
/// elliptic load. One process.
void write_span_load_csv(const std::string& dir, const std::string& stem, const SpanLoad& load);

}  // namespace camber::solvers::aero
