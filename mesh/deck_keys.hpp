/// @file
/// camber::mesh deck keys — the table of deck keys of the generated
/// airfoil grids (airfoil_grid.hpp), from which the euler problem's mesh
/// section is declared and read (deck/keys.hpp: the defaults are the
/// struct's own).
///
/// @code
///   mesh::airfoil_grid_keys().declare(schema.section("mesh", "The mesh."));
///   mesh::AirfoilGridSettings g = mesh::airfoil_grid_keys().read(deck, "mesh");
/// @endcode
#pragma once

#include <camber/deck/keys.hpp>
#include <camber/mesh/airfoil_grid.hpp>

namespace camber::mesh {

/// naca, airfoil_file, sharp_trailing_edge, cells_around, cells_normal,
/// first_cell_height, farfield_chords, cells, cell_shape (the kind is the
/// caller's: its key also names other sources, a file).
const deck::Keys<AirfoilGridSettings>& airfoil_grid_keys();

}  // namespace camber::mesh
