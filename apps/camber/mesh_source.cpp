#include "mesh_source.hpp"

#include <fstream>
#include <sstream>
#include <filesystem>

#include <camber/core/error.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/mesh_chunk.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/core/runtime.hpp>

namespace camber::app {

namespace fs = std::filesystem;

bool mesh_from_file(const deck::Deck& d) { return d.string("mesh.generate") == "file"; }

void validate_mesh_source(const deck::Deck& d, const std::vector<std::string>& generator_keys) {
  if (!mesh_from_file(d)) {
    if (d.has("mesh.file"))
      d.reject("mesh.file", "names a mesh file, but mesh.generate is '" +
                                d.string("mesh.generate") +
                                (d.has("mesh.generate") ? "'" : "' (its default)") +
                                ", so the file would be ignored; write 'generate: file' to "
                                "read it");
    return;
  }
  if (d.string("mesh.file").empty())
    d.reject("mesh.file", "mesh.generate is file, so mesh.file must name a .su2, .msh or .cgns file");
  for (const std::string& key : generator_keys)
    if (d.has("mesh." + key))
      d.reject("mesh." + key, "only shapes a generated mesh, and mesh.generate is file, so it "
                              "would be ignored; remove it");
}

std::string deck_text(const deck::Deck& d) {
  std::ifstream in(d.source());
  std::ostringstream text;
  text << in.rdbuf();
  return in.good() || in.eof() ? text.str() : std::string();
}

std::string mesh_file_path(const deck::Deck& d) { return deck_relative_path(d, d.string("mesh.file")); }

namespace {

void require_mesh_file(const deck::Deck& d, MPI_Comm comm) {
  collective_guard(comm, [&] {
    if (!fs::exists(mesh_file_path(d)))
      d.reject("mesh.file", "cannot find '" + mesh_file_path(d) +
                                "' (relative paths start at the deck's folder)");
  });
}

// Every rank holds the same count, so every rank rejects alike.
void require_cells_for_ranks(const deck::Deck& d, std::int64_t n_cells, MPI_Comm comm) {
  const int n_ranks = comm_size(comm);
  if (n_cells < n_ranks)
    d.reject(mesh_from_file(d) ? "mesh.file" : "mesh.cells_x",
             CAMBER_MSG("the mesh has " << n_cells << " cells for " << n_ranks
                                        << " ranks; every rank needs at least one cell: "
                                           "refine the mesh or run on fewer ranks"));
}

// Every rank holds the same dimension, so every rank rejects alike.
void require_dimension(const deck::Deck& d, int dim, int max_dim, const std::string& what) {
  if (dim > max_dim)
    d.reject("mesh.file", "'" + mesh_file_path(d) + "' is a 3-D mesh; " + what +
                              " works on 2-D meshes so far (camber mesh-info reads and reports "
                              "3-D meshes)");
}

}  // namespace

mesh::Mesh read_mesh_file(const deck::Deck& d, MPI_Comm comm, int max_dim,
                          const std::string& what) {
  require_mesh_file(d, comm);
  mesh::Mesh m = mesh::read_mesh(mesh_file_path(d), comm);
  collective_guard(comm, [&] { require_dimension(d, m.dim(), max_dim, what); });
  return m;
}

mesh::MeshChunk read_mesh_file_chunk(const deck::Deck& d, MPI_Comm comm, int max_dim,
                                     const std::string& what) {
  require_mesh_file(d, comm);
  mesh::MeshChunk chunk = mesh::read_mesh_chunk(mesh_file_path(d), comm);
  collective_guard(comm, [&] {
    require_dimension(d, chunk.dim, max_dim, what);
    require_cells_for_ranks(d, chunk.n_global_cells, comm);
  });
  return chunk;
}

mesh::DistributedMesh read_distributed_mesh_file(const deck::Deck& d, MPI_Comm comm,
                                                 int max_dim, const std::string& what) {
  return mesh::DistributedMesh(read_mesh_file_chunk(d, comm, max_dim, what), comm);
}

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
  if (mesh_from_file(d)) return read_distributed_mesh_file(d, comm);
  mesh::Mesh m;
  collective_guard(comm, [&] {
    m = mesh::rectangle(d.integer("mesh.cells_x"), d.integer("mesh.cells_y"),
                        d.real("mesh.length_x_m"), d.real("mesh.length_y_m"));
  });
  collective_guard(comm, [&] { require_cells_for_ranks(d, m.n_cells(), comm); });
  return mesh::DistributedMesh(m, comm);
}

}  // namespace camber::app
