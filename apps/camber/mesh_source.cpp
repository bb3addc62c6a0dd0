#include "mesh_source.hpp"

#include <fstream>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/mesh/deck_keys.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/core/runtime.hpp>

namespace camber::app {

bool mesh_from_file(const deck::Deck& d) { return d.string("mesh.generate") == "file"; }

std::string deck_text(const deck::Deck& d) {
  std::ifstream in(d.source());
  std::ostringstream text;
  text << in.rdbuf();
  return in.good() || in.eof() ? text.str() : std::string();
}

std::string mesh_file_path(const deck::Deck& d) { return deck_relative_path(d, d.string("mesh.file")); }

void declare_rectangle_mesh(deck::Schema& s, const std::string& boundary_note,
                            const std::string& length_note) {
  const auto length = [&](char axis) {
    std::string note = length_note;
    const auto at = note.find("{}");
    if (at != std::string::npos) note.replace(at, 2, std::string(1, axis));
    return std::string("Domain length along ") + axis + ", in metres (rectangle)" + note + ".";
  };
  s.section("mesh", "The computational mesh: a rectangle generated here, or a file.")
      .choice("generate", "rectangle", {"rectangle", "file"},
              "rectangle: [0, length_x_m] x [0, length_y_m] in cells_x x cells_y uniform "
              "quadrilaterals (markers left, right, bottom, top). file: read mesh.file. " +
                  boundary_note + " The cells are partitioned over the MPI ranks.")
      .string("file", "",
              "Mesh file (.su2, .msh or .cgns, by extension) when generate is file; a relative path "
              "is relative to the deck's folder. Every boundary face needs a marker. The "
              "two-point flux is exact only on orthogonal meshes (a warning says when a mesh "
              "is not).")
      .integer("cells_x", 64, deck::IntRange(2, 1 << 20), "Cells along x (rectangle).")
      .integer("cells_y", 64, deck::IntRange(2, 1 << 20), "Cells along y (rectangle).")
      .real("length_x_m", 1.0, deck::Range::positive(), length('x'))
      .real("length_y_m", 1.0, deck::Range::positive(), length('y'));
}

mesh::DistributedMesh build_rectangle_or_file_distributed(const deck::Deck& d, MPI_Comm comm) {
  if (mesh_from_file(d)) {
    mesh::MeshSource file;
    file.kind = mesh::MeshSourceKind::file;
    file.file = mesh_file_path(d);
    return mesh::DistributedMesh(mesh::build_mesh_chunk(d, "mesh", file, comm, 2, "the heat problem"),
                                 comm);
  }
  mesh::Mesh m;
  collective_guard(comm, [&] {
    m = mesh::rectangle(d.integer("mesh.cells_x"), d.integer("mesh.cells_y"),
                        d.real("mesh.length_x_m"), d.real("mesh.length_y_m"));
  });
  collective_guard(comm, [&] { mesh::require_cells_for_ranks(d, "mesh.cells_x", m.n_cells(), comm); });
  return mesh::DistributedMesh(m, comm);
}

}  // namespace camber::app
