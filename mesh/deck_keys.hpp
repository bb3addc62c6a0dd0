/// @file
/// camber::mesh deck keys — the table of deck keys of the generated
/// airfoil grids (airfoil_grid.hpp), from which the euler problem's mesh
/// section is declared and read (deck/keys.hpp: the defaults are the
/// struct's own).
///
/// @code
///   mesh::airfoil_grid_keys().declare(schema.section("mesh", "The mesh."));
///   const deck::Deck deck = deck::load_deck("case.yaml", schema);
///   mesh::validate_airfoil_grid_keys(deck, "mesh", mesh::AirfoilGridKind::airfoil_ogrid);
///   const mesh::AirfoilGridSettings g =
///       mesh::read_airfoil_grid(deck, "mesh", mesh::AirfoilGridKind::airfoil_ogrid);
/// @endcode
///
/// validate_airfoil_grid_keys() rejects what the table alone cannot: keys
/// that would be ignored (mesh.naca beside mesh.airfoil_file, mesh.cells for
/// an airfoil_ogrid) and what validate_airfoil_grid() finds, each as the
/// deck's bad_input error at the key's line.
#pragma once

#include <string>

#include <camber/deck/deck.hpp>
#include <camber/deck/keys.hpp>
#include <camber/mesh/airfoil_grid.hpp>

namespace camber::mesh {

/// naca, airfoil_file, sharp_trailing_edge, cells_around, cells_normal,
/// first_cell_height, farfield_chords, cells, cell_shape (the kind is the
/// caller's: its key also names other sources, a file).
const deck::Keys<AirfoilGridSettings>& airfoil_grid_keys();

/// The grid of kind `kind` that the deck's `section` (declared by
/// airfoil_grid_keys()) describes, airfoil_file resolved from the deck's
/// folder (deck::deck_relative_path).
AirfoilGridSettings read_airfoil_grid(const deck::Deck& d, const std::string& section,
                                      AirfoilGridKind kind);

/// Checks across the keys of that section, for a grid of kind `kind`;
/// bad_input at the key (Deck::reject), the first fault of: naca or
/// sharp_trailing_edge written beside airfoil_file; a key that kind does
/// not use (karman_trefftz_ogrid: the other generators' keys;
/// airfoil_ogrid: cells; conformal_ogrid: cells, first_cell_height);
/// validate_airfoil_grid() on read_airfoil_grid(), at the member's key.
void validate_airfoil_grid_keys(const deck::Deck& d, const std::string& section,
                                AirfoilGridKind kind);

}  // namespace camber::mesh
