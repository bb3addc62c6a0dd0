/// @file
/// camber::solvers::ode deck keys — the tables of deck keys of CVODES'
/// options and of the adjoint's checkpointing, from which `camber run`'s
/// ode decks are declared and read (deck/keys.hpp: the defaults are the
/// structs' own).
///
/// @code
///   ode::cvodes_keys().declare(schema.section("integration", "CVODES."));
///   const ode::CvodesOptions o = ode::cvodes_keys().read(deck, "integration");
/// @endcode
#pragma once

#include <camber/deck/keys.hpp>
#include <camber/solvers/ode/cvodes.hpp>

namespace camber::solvers::ode {

/// method, rtol, atol (one value or one per component), max_steps.
const deck::Keys<CvodesOptions>& cvodes_keys();
/// checkpoint_steps.
const deck::Keys<AdjointOptions>& adjoint_keys();

}  // namespace camber::solvers::ode
