#include "deck_keys.hpp"

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>

namespace camber::solvers::euler {

using deck::IntRange;
using deck::Keys;
using deck::Length;
using deck::Range;

const Keys<FlowConditions>& flow_condition_keys() {
  static const Keys<FlowConditions> keys =
      Keys<FlowConditions>()
          .real("mach", &FlowConditions::mach, deck::required,
                Range::positive().and_at_most(10.0), "Free-stream Mach number.")
          .real("alpha_deg", &FlowConditions::alpha_deg, Range(-90.0, 90.0),
                "Angle of attack, in degrees (3-D: the free stream in the x-z plane).")
          .real("pressure_Pa", &FlowConditions::pressure, Range::positive(),
                "Free-stream static pressure, Pa.")
          .real("temperature_K", &FlowConditions::temperature, Range::positive(),
                "Free-stream static temperature, K.")
          .real("gamma", &FlowConditions::gamma, Range::greater_than(1.0).and_at_most(3.0),
                "Ratio of specific heats.")
          .real("gas_constant_J_per_kgK", &FlowConditions::gas_constant, Range::positive(),
                "Specific gas constant, J/(kg K).")
          .real("reference_length_m", &FlowConditions::reference_length, Range::positive(),
                "Reference length (chord) of the coefficients, in mesh units.")
          .real("reference_area_m2", &FlowConditions::reference_area, Range::positive(),
                "3-D meshes: reference area of the coefficients (planform or half-span area), "
                "in mesh units squared; lift is along z, drag along the free stream in the x-z "
                "plane, CM about the y axis through moment_point_m over reference area and "
                "length.")
          .custom(
              "moment_point_m",
              [](deck::Section& s, const FlowConditions& d) {
                s.reals("moment_point_m", {d.moment_point[0], d.moment_point[1]},
                        Length::between(2, 3), Range::all(),
                        "Point the pitching moment is taken about: (x, y), or (x, y, z) on a "
                        "3-D mesh.");
              },
              [](const deck::Deck& deck, const std::string& path, FlowConditions& f) {
                const std::vector<double>& mp = deck.reals(path);
                f.moment_point = {mp[0], mp[1], mp.size() > 2 ? mp[2] : 0.0};
              })
          .boolean("far_field_vortex", &FlowConditions::far_field_vortex,
                   "Subsonic free streams: the far field sees a point vortex at moment_point_m "
                   "carrying the current lift (Usab-Murman), so that a near far field gives a "
                   "far one's lift. Not with camber optimize (its adjoint holds the far field "
                   "fixed).");
  return keys;
}

const Keys<SteadyFlowSettings>& flux_keys() {
  static const Keys<SteadyFlowSettings> keys = Keys<SteadyFlowSettings>().choice(
      "flux", &SteadyFlowSettings::scheme, flux_scheme_names,
      "Numerical flux. roe: Roe with the Harten-Hyman entropy fix. hllc: HLLC with Einfeldt's "
      "wave speeds.");
  return keys;
}

const Keys<SpatialOptions>& spatial_option_keys() {
  static const Keys<SpatialOptions> keys =
      Keys<SpatialOptions>()
          .integer("order", &SpatialOptions::order, IntRange(1, 2),
                   "Spatial order: 1 (cell states at the faces) or 2 (least-squares gradients "
                   "of the primitive variables, limited, reconstructed at the faces).")
          .choice("limiter", &SpatialOptions::limiter, limiter_kind_names,
                  "Order 2: venkatakrishnan_wang (one threshold per variable, wang_epsilon of "
                  "its free-stream scale, and a smooth cap: Newton converges without freezing, "
                  "and an optimizer's function is differentiable), venkatakrishnan_smooth (the "
                  "same with smooth maxima and minima in place of the neighbours' extremes and "
                  "the minimum over faces: no switch left for Newton to cycle on), "
                  "venkatakrishnan (threshold (K h)^3 per cell, min(1, phi); classic, may cycle "
                  "unless frozen) or none (smooth flows only).")
          .choice("gradient_stencil", &SpatialOptions::gradient_stencil, gradient_stencil_names,
                  "Order 2: the cells the least-squares gradient and the limiter's bounds take "
                  "around a cell: every cell sharing a node with it (nodes), its face neighbours "
                  "(faces: three on a triangle, too few for transonic shocks), or face "
                  "neighbours for quads and hexahedra and node neighbours for every other cell: "
                  "triangles, tetrahedra, prisms, pyramids (mixed).")
          .real("venkatakrishnan_k", &SpatialOptions::venkatakrishnan_k, Range::positive(),
                "Venkatakrishnan's K: eps^2 = (K h)^3; larger K limits less.")
          .real("wang_epsilon", &SpatialOptions::wang_epsilon,
                Range::positive().and_at_most(10.0),
                "venkatakrishnan_wang and _smooth: the threshold as a fraction of each "
                "variable's free-stream scale (rho, speed of sound, rho c^2); larger limits "
                "less.")
          .real("smooth_width", &SpatialOptions::smooth_width,
                Range::positive().and_at_most(10.0),
                "venkatakrishnan_smooth: the width of the smooth maxima and minima of the "
                "neighbours' differences, as a fraction of wang_epsilon; smaller is closer to "
                "venkatakrishnan_wang's extremes (docs/performance.md, \"The smooth limiter's "
                "width\").");
  return keys;
}

const Keys<SteadyOptions>& steady_option_keys() {
  static const Keys<SteadyOptions> keys =
      Keys<SteadyOptions>()
          .integer("max_iterations", &SteadyOptions::max_iterations, IntRange(1, 100000),
                   "Most Newton steps.")
          .real("rel_tolerance", &SteadyOptions::rel_tolerance,
                Range::positive().and_less_than(1.0),
                "Converged when the density residual has fallen by this factor.")
          .real("cfl_start", &SteadyOptions::cfl_start, Range::positive(),
                "CFL number of the first step.")
          .real("cfl_max", &SteadyOptions::cfl_max, Range::positive(), "Largest CFL number.")
          .real("cfl_plateau_growth", &SteadyOptions::cfl_plateau_growth,
                Range(1.0, 10.0),
                "The factor the CFL number grows by after a full step that raised the residual "
                "by less than a factor 2 (1: held there).")
          .real("linear_rel_tolerance", &SteadyOptions::linear_rel_tolerance,
                Range::positive().and_less_than(1.0), "Relative tolerance of each linear solve.")
          .integer("linear_max_iterations", &SteadyOptions::linear_max_iterations,
                   IntRange(1, 100000), "Most GMRES iterations per Newton step.")
          .choice("newton_operator", &SteadyOptions::newton_operator, newton_operator_names,
                  "Order 2: the exact Newton matrix assembled every step by the chain rule "
                  "through each cell's reconstruction (block Jacobi with ILU(1) in reverse "
                  "Cuthill-McKee order preconditions it, from the right) or applied "
                  "matrix-free (one Dual residual per Krylov iteration, the preconditioner "
                  "below; the one measured to converge the 512 x 512 transonic grid). auto: "
                  "assembled on 2-D meshes, matrix_free on 3-D ones (docs/performance.md, \"The "
                  "Newton operator on 3-D tetrahedra\").")
          .choice("preconditioner", &SteadyOptions::preconditioner, preconditioner_names,
                  "Order 2, matrix_free: the first-order matrix with ILU(1), or the assembled "
                  "second-order Jacobian with ILU(1) in reverse Cuthill-McKee order, assembled "
                  "every jacobian_refresh steps.")
          .choice("factorization", &SteadyOptions::factorization, factorization_names,
                  "The ILU(1) that preconditions GMRES: threaded (each rank's rows cut by a "
                  "graph partition into ilu_blocks blocks, factored and applied at the same "
                  "time on the threads; one block is PETSc's factor) or petsc (PETSc's block "
                  "Jacobi, one block per rank, one thread). auto: threaded when there is more "
                  "than one thread.")
          .choice("linear_solver", &SteadyOptions::linear_solver, linear_solver_names,
                  "The linear solver of each Newton step: petsc (PETSc's GMRES and the ILU "
                  "above) or kokkos (camber's own GMRES on Kokkos views, ILU(1) of the "
                  "first-order matrix in ilu_blocks blocks per rank, one thread each, the "
                  "second-order operator matrix-free: runs where Kokkos runs, threads or a GPU, "
                  "and needs no PETSc). camber optimize solves its adjoints with the same one "
                  "(kokkos: the transposed Jacobian applied matrix-free, ILU(1) of the "
                  "transposed first-order matrix).")
          .integer("ilu_blocks", &SteadyOptions::ilu_blocks, IntRange(0, 1 << 20),
                   "factorization threaded, or linear_solver kokkos: blocks per rank (0: one per "
                   "thread). A fixed number gives the same answer on any number of threads.")
          .integer("jacobian_refresh", &SteadyOptions::jacobian_refresh, IntRange(1, 1000),
                   "Order 2, matrix_free with the second_order preconditioner: Newton steps "
                   "between assemblies of the preconditioner (kept, with its factors, in "
                   "between).")
          .real("first_order_drop", &SteadyOptions::first_order_drop, Range(0.0, 1.0),
                "Order 2: first-order Newton steps until that residual has fallen by this "
                "factor, then second order. 0: second order from the start.")
          .real("second_order_cfl_start", &SteadyOptions::second_order_cfl_start,
                Range(0.0, 1e12),
                "Order 2 after the first-order phase: > 0, the CFL number the second-order "
                "phase starts at (at most the one the first-order phase ended at, at least "
                "cfl_start; docs/performance.md, \"Where the second-order phase starts\"). 0: "
                "cfl_start again. On coarse grids whose limited solution is not unique it can "
                "pick another solution for a neighbouring shape, so camber optimize is not "
                "measured with it.")
          .real("max_update", &SteadyOptions::max_update, Range(0.0, 1e6),
                "Order 2: a step changes density and pressure by at most this fraction in any "
                "cell (the step is scaled down to fit). 0: only positivity limits the step.")
          .real("second_order_cfl_growth", &SteadyOptions::second_order_cfl_growth,
                Range::greater_than(1.0).and_at_most(1e6),
                "Order 2: the largest factor the CFL number grows by in one step.")
          .real("freeze_limiter_drop", &SteadyOptions::freeze_limiter_drop, Range(0.0, 1.0),
                "Order 2 with a limiter: once the density residual has fallen by this factor, "
                "freeze the limiter at the current state (the Newton iteration then converges "
                "without limiter switching; the solution is a root of the frozen-limiter "
                "residual). 0: never.");
  return keys;
}

const Keys<SteadyFlowSettings>& warm_start_keys() {
  static const Keys<SteadyFlowSettings> keys =
      Keys<SteadyFlowSettings>()
          .real("warm_cfl_start", &SteadyFlowSettings::warm_cfl_start, Range::positive(),
                "camber optimize: the first CFL number of a design's flow solve started from "
                "the converged flow of the nearest design (docs/performance.md, \"Warm starts "
                "from the nearest converged design\").")
          .integer("warm_max_iterations", &SteadyFlowSettings::warm_max_iterations,
                   IntRange(0, 1000000),
                   "camber optimize: a design's flow solve started from the previous design's "
                   "flow that has not converged after this many Newton steps is solved again "
                   "from the free stream (max_iterations). 0: no retry.");
  return keys;
}

void validate_flow_condition_keys(const deck::Deck& d, const std::string& section) {
  if (d.boolean(section + ".far_field_vortex") && d.real(section + ".mach") >= 1.0)
    d.reject(section + ".far_field_vortex",
             "needs a subsonic free stream (" + section + ".mach < 1)");
}

void validate_steady_option_keys(const deck::Deck& d, const std::string& section) {
  if (d.real(section + ".cfl_max") < d.real(section + ".cfl_start"))
    d.reject(section + ".cfl_max", "must be at least " + section + ".cfl_start");
  // What the device path cannot do (solve_steady refuses it too, at order 2).
  const SteadyOptions o = steady_option_keys().read(d, section);
  if (o.linear_solver != SteadyOptions::LinearSolver::kokkos) return;
  if (o.newton_operator == SteadyOptions::NewtonOperator::assembled)
    d.reject(section + ".newton_operator",
             "needs " + section + ".linear_solver petsc (kokkos applies the second-order "
             "operator matrix-free)");
  if (o.preconditioner == SteadyOptions::Preconditioner::second_order)
    d.reject(section + ".preconditioner",
             "needs " + section + ".linear_solver petsc (kokkos preconditions with the "
             "first-order matrix)");
}

std::vector<std::string> marker_names(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b != std::string::npos) names.push_back(item.substr(b, e - b + 1));
  }
  return names;
}

const Keys<BoundaryMarkers>& boundary_marker_keys() {
  static const Keys<BoundaryMarkers> keys =
      Keys<BoundaryMarkers>()
          .string("slip_wall", &BoundaryMarkers::slip_wall,
                  "Inviscid walls (no flow through; pressure force).")
          .string("symmetry", &BoundaryMarkers::symmetry,
                  "Symmetry planes (treated as slip walls; no forces).")
          .string("far_field", &BoundaryMarkers::far_field,
                  "Characteristic far field from Riemann invariants (subsonic or supersonic).")
          .string("supersonic_inflow", &BoundaryMarkers::supersonic_inflow,
                  "Supersonic inflow: the free stream's flux.")
          .string("supersonic_outflow", &BoundaryMarkers::supersonic_outflow,
                  "Supersonic outflow: the interior's flux.");
  return keys;
}

namespace {

// The list of markers of `kind` in `m`.
const std::string& markers_of(const BoundaryMarkers& m, BoundaryKind kind) {
  switch (kind) {
    case BoundaryKind::slip_wall: return m.slip_wall;
    case BoundaryKind::symmetry: return m.symmetry;
    case BoundaryKind::far_field: return m.far_field;
    case BoundaryKind::supersonic_inflow: return m.supersonic_inflow;
    case BoundaryKind::supersonic_outflow: return m.supersonic_outflow;
  }
  throw Error(ErrorKind::failure, "boundary markers: no such boundary kind");
}

}  // namespace

std::vector<BoundaryCondition> boundary_conditions(const BoundaryMarkers& markers,
                                                   const BoundaryMarkersReject& reject) {
  std::vector<BoundaryCondition> conditions;
  std::set<std::string> seen;
  for (const auto& [kind, name] : boundary_kind_names) {
    for (const std::string& marker : marker_names(markers_of(markers, kind))) {
      if (!seen.insert(marker).second) {
        const std::string what = "marker '" + marker + "' is given two boundary conditions";
        if (reject) reject(std::string(name), what);
        throw_bad_input("boundary markers: " + std::string(name) + ": " + what);
      }
      conditions.push_back({marker, kind});
    }
  }
  return conditions;
}

std::vector<BoundaryCondition> read_boundary_conditions(const deck::Deck& d,
                                                        const std::string& section) {
  return boundary_conditions(boundary_marker_keys().read(d, section),
                             [&](const std::string& member, const std::string& what) {
                               d.reject(section + "." + member, what);
                             });
}

}  // namespace camber::solvers::euler
