#include "mesh_source.hpp"

#include <filesystem>

#include <camber/mesh/read_mesh.hpp>
#include <camber/runtime.hpp>

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
    d.reject("mesh.file", "mesh.generate is file, so mesh.file must name a .su2 or .msh file");
  for (const std::string& key : generator_keys)
    if (d.has("mesh." + key))
      d.reject("mesh." + key, "only shapes a generated mesh, and mesh.generate is file, so it "
                              "would be ignored; remove it");
}

std::string mesh_file_path(const deck::Deck& d) {
  const fs::path p(d.string("mesh.file"));
  if (p.is_absolute()) return p.string();
  return (fs::path(d.source()).parent_path() / p).lexically_normal().string();
}

mesh::Mesh read_mesh_file(const deck::Deck& d, MPI_Comm comm) {
  collective_guard(comm, [&] {
    if (!fs::exists(mesh_file_path(d)))
      d.reject("mesh.file", "cannot find '" + mesh_file_path(d) +
                                "' (relative paths start at the deck's folder)");
  });
  return mesh::read_mesh(mesh_file_path(d), comm);
}

}  // namespace camber::app
