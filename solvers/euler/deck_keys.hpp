/// @file
/// camber::solvers::euler deck keys — the table of deck keys of each Euler
/// settings struct, from which `camber`'s euler decks are declared and read.
///
/// Each table (deck/keys.hpp) names a struct's members as deck keys with
/// their allowed values and help; the defaults are the structs' own member
/// initialisers, so a deck that leaves a key out and a C++ program that
/// leaves the member alone solve the same problem. The command line's
/// euler decks put flow_condition_keys(), flux_keys() and
/// spatial_option_keys() in their `flow` section and steady_option_keys()
/// and warm_start_keys() in `solver`:
///
/// @code
///   deck::Schema schema;
///   auto& flow = schema.section("flow", "The free stream.");
///   euler::flow_condition_keys().declare(flow);
///   euler::spatial_option_keys().declare(flow);
///   const deck::Deck d = deck::load_deck("case.yaml", schema);
///   const euler::FlowConditions fc = euler::flow_condition_keys().read(d, "flow");
///   const euler::SpatialOptions sp = euler::spatial_option_keys().read(d, "flow");
/// @endcode
///
/// The checks across keys that no one table makes are functions of the
/// section they read: validate_flow_condition_keys(),
/// validate_steady_option_keys(), and read_boundary_conditions() for a
/// `boundaries` section (boundary_marker_keys(): one key per boundary
/// kind, its markers a comma-separated list).
///
/// flow_condition_keys() makes `mach` required: a free stream has no
/// natural default. SteadyOptions::reference_residual and abs_tolerance are
/// not deck keys (a restart and a design set them).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <camber/deck/deck.hpp>
#include <camber/deck/keys.hpp>
#include <camber/solvers/euler/flow_conditions.hpp>
#include <camber/solvers/euler/reconstruction.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>

namespace camber::solvers::euler {

/// mach (required), alpha_deg, pressure_Pa, temperature_K, gamma,
/// gas_constant_J_per_kgK, reference_length_m, reference_area_m2,
/// moment_point_m (2 or 3 reals), far_field_vortex.
const deck::Keys<FlowConditions>& flow_condition_keys();
/// flux: SteadyFlowSettings::scheme.
const deck::Keys<SteadyFlowSettings>& flux_keys();
/// order, limiter, gradient_stencil, venkatakrishnan_k, wang_epsilon,
/// smooth_width.
const deck::Keys<SpatialOptions>& spatial_option_keys();
/// The pseudo-transient Newton solver's settings (max_iterations,
/// rel_tolerance, CFL, linear solver, Newton operator, preconditioner,
/// first-order phase, limiter freezing, step limits).
const deck::Keys<SteadyOptions>& steady_option_keys();
/// warm_cfl_start and warm_max_iterations of SteadyFlowSettings.
const deck::Keys<SteadyFlowSettings>& warm_start_keys();

/// Rejects (bad_input at the key) far_field_vortex with a supersonic free
/// stream (mach >= 1) in `section`, declared by flow_condition_keys().
void validate_flow_condition_keys(const deck::Deck& d, const std::string& section);
/// Rejects (bad_input at cfl_max) cfl_max below cfl_start in `section`,
/// declared by steady_option_keys().
void validate_steady_option_keys(const deck::Deck& d, const std::string& section);

/// The mesh markers of each boundary kind, each a comma-separated list
/// (marker_names()), member names those of boundary_kind_names: what a
/// deck's `boundaries` section holds. The defaults are the markers of the
/// generated airfoil grids (mesh/airfoil_grid.hpp): the wall `airfoil`,
/// the far field `farfield`.
struct BoundaryMarkers {
  std::string slip_wall = "airfoil";
  std::string symmetry;
  std::string far_field = "farfield";
  std::string supersonic_inflow;
  std::string supersonic_outflow;
};
/// slip_wall, symmetry, far_field, supersonic_inflow, supersonic_outflow.
const deck::Keys<BoundaryMarkers>& boundary_marker_keys();

/// The names in a comma-separated list of mesh markers ("airfoil, flap"),
/// trimmed, empty ones dropped.
std::vector<std::string> marker_names(const std::string& text);
/// Told the member of BoundaryMarkers (a kind's name) and what is wrong;
/// must throw.
using BoundaryMarkersReject = std::function<void(const std::string& member, const std::string& what)>;
/// The boundary conditions `markers` gives: in boundary_kind_names' order
/// of kinds, each kind's markers in the list's order. A marker given two
/// conditions goes to `reject` at the second kind (by default bad_input
/// naming it). Whether the mesh has the markers is
/// check_boundary_conditions()'s.
///
/// @code
///   euler::BoundaryMarkers m;     // airfoil: slip wall, farfield: far field
///   m.slip_wall = "wing, flap";
///   const std::vector<euler::BoundaryCondition> bc = euler::boundary_conditions(m);
/// @endcode
std::vector<BoundaryCondition> boundary_conditions(const BoundaryMarkers& markers,
                                                   const BoundaryMarkersReject& reject = {});
/// The same for a deck section declared by boundary_marker_keys(): a
/// marker given two conditions is bad_input at the second kind's key.
std::vector<BoundaryCondition> read_boundary_conditions(const deck::Deck& d,
                                                        const std::string& section);

}  // namespace camber::solvers::euler
