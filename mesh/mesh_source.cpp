#include "mesh_source.hpp"

#include <filesystem>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/mesh/read_mesh.hpp>

namespace camber::mesh {

namespace {

// `reject`, or bad_input naming the member when none is given.
MeshSourceReject or_throw(const MeshSourceReject& reject) {
  if (reject) return reject;
  return [](const std::string& member, const std::string& what) {
    throw_bad_input("mesh source: " + member + ": " + what);
  };
}

}  // namespace

void validate_mesh_source(const MeshSource& s, const MeshSourceReject& reject) {
  if (s.kind == MeshSourceKind::generated) {
    validate_airfoil_grid(s.grid, [&](const std::string& member, const std::string& what) {
      reject("grid." + member, what);
    });
    return;
  }
  if (s.kind == MeshSourceKind::rectangle) {
    const RectangleSettings& r = s.rectangle;
    if (r.cells_x < 1) reject("rectangle.cells_x", CAMBER_MSG(r.cells_x << " cells; at least 1"));
    if (r.cells_y < 1) reject("rectangle.cells_y", CAMBER_MSG(r.cells_y << " cells; at least 1"));
    if (!(r.length_x_m > 0.0)) reject("rectangle.length_x_m", CAMBER_MSG(r.length_x_m << " m; must be > 0"));
    if (!(r.length_y_m > 0.0)) reject("rectangle.length_y_m", CAMBER_MSG(r.length_y_m << " m; must be > 0"));
    return;
  }
  if (s.file.empty()) reject("file", "names no file; a .su2, .msh or .cgns file is read");
  if (!std::filesystem::exists(s.file)) reject("file", "cannot find '" + s.file + "'");
}

Mesh build_mesh(const MeshSource& s, MPI_Comm comm, const MeshSourceReject& reject) {
  collective_guard(comm, [&] { validate_mesh_source(s, or_throw(reject)); });
  if (s.kind == MeshSourceKind::file) return read_mesh(s.file, comm);
  Mesh m;
  collective_guard(comm, [&] {
    const RectangleSettings& r = s.rectangle;
    m = s.kind == MeshSourceKind::rectangle ? rectangle(r.cells_x, r.cells_y, r.length_x_m, r.length_y_m)
                                            : airfoil_grid(s.grid);
  });
  return m;
}

MeshChunk build_mesh_chunk(const MeshSource& s, MPI_Comm comm, const MeshSourceReject& reject) {
  if (s.kind == MeshSourceKind::file) {
    collective_guard(comm, [&] { validate_mesh_source(s, or_throw(reject)); });
    return read_mesh_chunk(s.file, comm);
  }
  // Every rank makes the grid or rectangle, keeps its chunk and drops the whole before
  // the partition.
  const Mesh global = build_mesh(s, comm, reject);
  return chunk_of(global, comm_rank(comm), comm_size(comm));
}

DistributedMesh build_distributed_mesh(const MeshSource& s, MPI_Comm comm,
                                       const MeshSourceReject& reject) {
  return DistributedMesh(build_mesh_chunk(s, comm, reject), comm);
}

}  // namespace camber::mesh
