/// @file
/// Deck reference documentation, generated from the Schema.
///
/// docs/deck-reference.md is written by this function, not by hand, so every
/// key the code accepts is documented with its type, default and allowed
/// values, and nothing else is:
///
/// @code
///   camber::deck::Schema schema;
///   camber::apps::declare_deck(schema);   // every module adds its sections
///   std::ofstream("docs/deck-reference.md")
///       << camber::deck::reference_markdown(schema, "Camber deck reference");
/// @endcode
///
/// Output: a title, a table of top-level keys, then one heading per section
/// (nested sections as `mesh.refine`), each with the section's doc and a table
/// | Key | Type | Default | Allowed | Description |. The order is declaration
/// order and the output depends on nothing but the Schema, so regenerating the
/// file gives byte-identical text.
#pragma once

#include <string>

#include <camber/deck/schema.hpp>

namespace camber::deck {

std::string reference_markdown(const Schema& schema, const std::string& title);

}  // namespace camber::deck
