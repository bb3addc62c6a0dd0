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
/// flow_condition_keys() makes `mach` required: a free stream has no
/// natural default. SteadyOptions::reference_residual and abs_tolerance are
/// not deck keys (a restart and a design set them).
#pragma once

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

}  // namespace camber::solvers::euler
