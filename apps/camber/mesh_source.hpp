// The decks' mesh sections as the problems share them: the rectangle or a
// file of the heat problems (their checks across keys are
// mesh::validate_mesh_file_keys, mesh/deck_keys.hpp, the one every section
// whose mesh.generate includes "file" uses), and the paths a deck names.
#pragma once

#include <mpi.h>

#include <string>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/mesh/distributed_mesh.hpp>

namespace camber::app {

// True when the deck reads its mesh from mesh.file.
bool mesh_from_file(const deck::Deck& d);

// A path a deck names: absolute as given, relative from the deck's folder.
using deck::deck_relative_path;
// The deck's text, for what a run writes down about itself (a model card,
// a data set's provenance; "" when the file cannot be read again).
std::string deck_text(const deck::Deck& d);

// mesh.file as the deck names it, relative to the deck's folder.
std::string mesh_file_path(const deck::Deck& d);

// The mesh section of the problems on a rectangle or a mesh file (keys
// generate, file, cells_x, cells_y, length_x_m, length_y_m).
// `boundary_note` says what the boundary markers get; `length_note`, when
// not empty, is appended to the lengths' text (with {} replaced by x or y).
void declare_rectangle_mesh(deck::Schema& s, const std::string& boundary_note,
                            const std::string& length_note = "");

// That section's mesh distributed over the ranks (collective); a file is
// read in parallel (mesh::build_mesh_chunk), so no rank holds it whole, and
// a 3-D one is rejected at mesh.file. Bad input names the deck key, and a
// mesh with fewer cells than ranks is one.
mesh::DistributedMesh build_rectangle_or_file_distributed(const deck::Deck& d, MPI_Comm comm);

}  // namespace camber::app
