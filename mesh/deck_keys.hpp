/// @file
/// camber::mesh deck keys — the tables of deck keys of the generated
/// airfoil grids (airfoil_grid.hpp) and of a mesh source (mesh_source.hpp:
/// a generated grid or a file, or a rectangle or a file), from which the
/// euler and heat problems' mesh sections are declared and read
/// (deck/keys.hpp: the defaults are the structs' own).
///
/// @code
///   mesh::mesh_source_keys().declare(schema.section("mesh", "The mesh."));
///   const deck::Deck deck = deck::load_deck("case.yaml", schema);
///   mesh::validate_mesh_source_keys(deck, "mesh");
///   const mesh::MeshSource src = mesh::read_mesh_source(deck, "mesh");
///   mesh::MeshChunk chunk = mesh::build_mesh_chunk(deck, "mesh", src, comm, 2, "this solver");
/// @endcode
///
/// validate_airfoil_grid_keys() rejects what the table alone cannot: keys
/// that would be ignored (mesh.naca beside mesh.airfoil_file, mesh.cells for
/// an airfoil_ogrid) and what validate_airfoil_grid() finds, each as the
/// deck's bad_input error at the key's line. validate_mesh_file_keys() does
/// the same for mesh.file against mesh.generate, for any section whose
/// generate choice includes file (the heat problems' rectangle too).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <camber/deck/deck.hpp>
#include <camber/deck/keys.hpp>
#include <camber/mesh/airfoil_grid.hpp>
#include <camber/mesh/mesh_chunk.hpp>
#include <camber/mesh/mesh_source.hpp>

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

/// generate (airfoil_ogrid, conformal_ogrid, karman_trefftz_ogrid or file:
/// MeshSource::kind and, for a grid, grid.kind), file, and
/// airfoil_grid_keys() over MeshSource::grid.
const deck::Keys<MeshSource>& mesh_source_keys();

/// The source the deck's `section` (declared by mesh_source_keys())
/// describes, file and grid.airfoil_file resolved from the deck's folder.
MeshSource read_mesh_source(const deck::Deck& d, const std::string& section);

/// generate (rectangle or file: MeshSource::kind, rectangle unless the
/// defaults are a file source), file, and cells_x, cells_y, length_x_m,
/// length_y_m over MeshSource::rectangle: the mesh section of a problem on
/// a rectangle or a mesh file. `boundary_note` (what the boundary markers
/// get) goes into generate's help; `length_note`, when not empty, ends the
/// lengths' help, with {} replaced by x or y.
deck::Keys<MeshSource> rectangle_source_keys(const std::string& boundary_note = "",
                                             const std::string& length_note = "");

/// The source the deck's `section` (declared by rectangle_source_keys())
/// describes, file resolved from the deck's folder.
MeshSource read_rectangle_source(const deck::Deck& d, const std::string& section);

/// validate_mesh_file_keys() with the rectangle's cells_x and cells_y (its
/// lengths may stand beside a file: a problem may size more by them).
void validate_rectangle_source_keys(const deck::Deck& d, const std::string& section);

/// Checks of `section`.file against `section`.generate (bad_input at the
/// key): generate: file without a file; a file without generate: file; any
/// of `generator_keys` (names inside the section) written beside a file.
void validate_mesh_file_keys(const deck::Deck& d, const std::string& section,
                             const std::vector<std::string>& generator_keys);

/// validate_mesh_file_keys() with the airfoil grid's keys, then, for a
/// generated grid, validate_airfoil_grid_keys().
void validate_mesh_source_keys(const deck::Deck& d, const std::string& section);

/// build_mesh_chunk(s, comm) with the deck's checks of a file source, each
/// bad_input at `section`.file on every rank: a file that does not exist
/// (relative paths start at the deck's folder); a mesh of more than max_dim
/// dimensions (saying that `what` works on 2-D meshes so far); fewer cells
/// than ranks. A grid's or rectangle's faults are rejected at their keys,
/// a rectangle of fewer cells than ranks at `section`.cells_x.
MeshChunk build_mesh_chunk(const deck::Deck& d, const std::string& section, const MeshSource& s,
                           MPI_Comm comm, int max_dim, const std::string& what);

/// Rejects at `key` (on every rank alike: every rank passes the same count)
/// a mesh of fewer cells than the ranks of `comm`.
void require_cells_for_ranks(const deck::Deck& d, const std::string& key, std::int64_t n_cells,
                             MPI_Comm comm);

}  // namespace camber::mesh
