/// @file
/// camber::solvers::aero deck keys — the tables of deck keys of the shape
/// design settings (deck/keys.hpp), from which `camber optimize`'s design,
/// optimizer and trust_region sections are declared and read.
///
/// Each table binds a settings struct's members to keys with their allowed
/// values and help; the defaults are the structs' own, so a design deck
/// that leaves a key out and a C++ program that leaves the member alone
/// design the same shape (ShapeDesignSettings: bound 0.01, thickness held
/// at the baseline's, SLSQP for 30 evaluations at tolerances 1e-6).
///
/// @code
///   deck::Schema schema;
///   auto& optimizer = schema.section("optimizer", "The objective and constraints.");
///   aero::shape_design_keys().declare(optimizer);
///   aero::airfoil_constraint_keys().declare(optimizer);
///   const deck::Deck d = deck::load_deck("design.yaml", schema);
///   aero::AirfoilDesignSettings s;
///   aero::shape_design_keys().read(d, "optimizer", s);  // the base's members
///   aero::airfoil_constraint_keys().read(d, "optimizer", s);
/// @endcode
///
/// The design section of a surrogate deck (`camber optimize` over a
/// trained network) is surrogate_optimum_keys': the outputs by name, the
/// goal, the constraint's bound and the evaluations, with the defaults of
/// SurrogateOptimumByName (CD minimized, no constraint, 60 evaluations).
///
/// The lift key takes the names of lift_constraint_names and, for each
/// constraint but `free`, the same with `_baseline`: the target is then the
/// baseline's CL (lift_target left NaN). lift_target and cm_min are read
/// only when the deck gives them (absent: NaN and minus infinity, the
/// structs' defaults).
///
/// Beside the design, the tables of the flow case's wing stations
/// (`camber run`'s wing section) and of the airfoil sampler's space
/// (`camber sample`'s sample section) live here too:
///
/// @code
///   aero::flow_case_station_keys().declare(schema.section("wing", "Stations."));
///   aero::airfoil_sample_space_keys().declare(schema.section("sample", "The space."));
///   // ... load the deck ...
///   aero::FlowCaseSettings run;
///   aero::flow_case_station_keys().read(d, "wing", run);  // reference_cp: from the deck's folder
///   const aero::AirfoilSampleSpace space = aero::airfoil_sample_space_keys().read(d, "sample");
/// @endcode
#pragma once

#include <string>

#include <camber/deck/deck.hpp>
#include <camber/deck/keys.hpp>
#include <camber/design/cst.hpp>
#include <camber/design/ffd.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/design/parametrization.hpp>
#include <camber/nn/ensemble.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/optimization/trust_region.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/aero/airfoil_sampler.hpp>
#include <camber/solvers/aero/flow_case.hpp>
#include <camber/solvers/aero/shape_design.hpp>
#include <camber/solvers/aero/surrogate_optimum.hpp>
#include <camber/solvers/aero/wing_design.hpp>

namespace camber::solvers::aero {

/// deformation, idw_exponent, rbf_support (the volume mesh deformation).
const deck::Keys<design::DeformationOptions>& deformation_keys();
/// cst_order.
const deck::Keys<design::CstOptions>& cst_keys();
/// ffd_degree_x, ffd_degree_y.
const deck::Keys<design::FfdOptions>& ffd_keys();
/// parametrization, wall, bumps_per_surface, and cst_keys' and ffd_keys'
/// (the design section's choice of parametrization).
const deck::Keys<design::ParametrizationSettings>& parametrization_keys();
/// bound (the design section's).
const deck::Keys<ShapeDesignSettings>& design_bound_keys();
/// start: the file of a design to start from (a `<case>_final_design.csv`,
/// aero::read_design_file; relative to the deck's folder), read into
/// ShapeDesignSettings::start; empty: the undeformed shape. A file that
/// cannot be read is bad_input at the key.
const deck::Keys<ShapeDesignSettings>& design_start_keys();
/// objective, max_iterations, ftol_rel (of the optimizer), thickness_fraction,
/// lift, lift_target, alpha_range_deg, cm_min (the optimizer section's).
const deck::Keys<ShapeDesignSettings>& shape_design_keys();
/// max_thickness_min, area_fraction, le_radius_fraction (2-D sections).
const deck::Keys<AirfoilDesignSettings>& airfoil_constraint_keys();
/// thickness_etas, thickness_chords (3-D wings).
const deck::Keys<WingDesignSettings>& wing_station_keys();
/// mach_points, point_weights: a multi-point design (the optimizer
/// section's). Read into ShapeDesignSettings::points after `flow` is set:
/// the point at flow.flow.mach first, the others in the deck's order, each
/// at flow.flow.alpha_deg; no mach_points leaves points empty (the one
/// point of flow.flow).
const deck::Keys<ShapeDesignSettings>& operating_point_keys();
/// ffd_volume_degree, ffd_volume_move (a set of directions from x, y, z:
/// reading another is the deck's error at that key), ffd_volume_margin
/// (the design section's box of a 3-D wing).
const deck::Keys<WingDesignSettings>& ffd_volume_keys();
/// twist_etas, twist_axis, twist_blend (the design section's twist of a
/// 3-D wing, design::WingTwistOptions; validate_design_keys() checks that
/// the stations increase).
const deck::Keys<WingDesignSettings>& wing_twist_keys();
/// initial_radius, min_radius, max_radius, penalty, subproblem_evaluations
/// of a design's trust region (declare with design_trust_region_options()
/// as the defaults: surrogate_design.hpp).
const deck::Keys<opt::TrustRegionOptions>& trust_region_keys();
/// members, hidden, epochs, learning_rate, gradient_weight, seed: the
/// networks of surrogate-based (trust-region) design.
const deck::Keys<nn::EnsembleOptions>& ensemble_keys();
/// objective, goal (minimize or maximize), constraint, constraint_min,
/// max_iterations: the optimum over a saved network's inputs.
const deck::Keys<SurrogateOptimumByName>& surrogate_optimum_keys();

/// stations, reference_cp (into FlowCaseSettings::reference_file,
/// relative to the deck's folder; the file itself is read by
/// read_section_reference()): the wall pressure along a wing's spanwise
/// stations.
const deck::Keys<FlowCaseSettings>& flow_case_station_keys();
/// mach, alpha_deg, shape, gradients: the space camber sample's flows
/// cover (validate_airfoil_sample_space() checks the shape range against
/// the design's bound).
const deck::Keys<AirfoilSampleSpace>& airfoil_sample_space_keys();

/// The sections of a design deck that validate_design_keys() reads, by
/// default `camber optimize`'s.
struct DesignDeckSections {
  /// parametrization_keys(), ffd_volume_keys(), deformation_keys().
  std::string design = "design";
  /// shape_design_keys(), airfoil_constraint_keys(), wing_station_keys(),
  /// operating_point_keys().
  std::string optimizer = "optimizer";
  /// trust_region_keys().
  std::string trust_region = "trust_region";
  /// euler::flow_condition_keys() (its mach).
  std::string flow = "flow";
};

/// Checks across the keys of a design deck that no one table can make;
/// bad_input at the key (Deck::reject), the first fault of, in this order:
/// a lift held at a target without lift_target, or lift_target with a lift
/// that holds none; alpha_range_deg with a lift that trims no angle;
/// ffd_volume_* or thickness_etas/thickness_chords without parametrization
/// ffd_volume; twist_etas not increasing; twist_* without wing_twist, or
/// thickness_fraction > 0 with it; a 2-D key (bumps_per_surface, cst_order, ffd_degree_x/y, the
/// deformation keys, max_thickness_min, area_fraction,
/// le_radius_fraction) with either; ffd_volume_move not a set of directions;
/// rbf_support or idw_exponent with the other deformation; point_weights
/// not one per mach_points, or mach_points without flow.mach; the
/// objective cl with a lift held; initial_radius outside [min_radius,
/// max_radius].
///
/// @code
///   aero::validate_design_keys(deck);  // sections design, optimizer, trust_region, flow
/// @endcode
void validate_design_keys(const deck::Deck& d, const DesignDeckSections& sections = {});

}  // namespace camber::solvers::aero
