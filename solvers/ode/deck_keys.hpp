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
///
/// An ode deck's sections model, integration and sensitivity hold an
/// OdeCase (ode_case.hpp):
///
/// @code
///   ode::declare_ode_case(schema);
///   ode::validate_ode_case(deck);  // the case's checks, naming key and line
///   const ode::OdeCaseResult r = ode::run_ode_case(ode::read_ode_case(deck));
/// @endcode
#pragma once

#include <camber/deck/keys.hpp>
#include <camber/solvers/ode/cvodes.hpp>
#include <camber/solvers/ode/ode_case.hpp>

namespace camber::solvers::ode {

/// method, rtol, atol (one value or one per component), max_steps.
const deck::Keys<CvodesOptions>& cvodes_keys();
/// checkpoint_steps.
const deck::Keys<AdjointOptions>& adjoint_keys();

/// The sections model, integration and sensitivity, defaults from OdeCase{}.
void declare_ode_case(deck::Schema& schema);
/// validate_ode_case's checks on a deck, as errors naming the key and its
/// line.
void validate_ode_case(const deck::Deck& deck);
/// The case a validated deck describes.
OdeCase read_ode_case(const deck::Deck& deck);

}  // namespace camber::solvers::ode
