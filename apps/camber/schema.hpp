// The deck schema of the `camber` command line, assembled from the sections
// each case kind declares, and the checks that span several sections.
#pragma once

#include <string>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>

namespace camber::app {

// Every key a deck may contain.
deck::Schema full_schema();

// Checks across keys that the schema cannot express (e.g. a case name that
// must be usable as a file name). Throws camber::Error (bad_input) naming
// the deck line.
void validate_case(const deck::Deck& deck);

// docs/deck-reference.md, generated from full_schema().
std::string deck_reference();

}  // namespace camber::app
