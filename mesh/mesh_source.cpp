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
  if (s.file.empty()) reject("file", "names no file; a .su2, .msh or .cgns file is read");
  if (!std::filesystem::exists(s.file)) reject("file", "cannot find '" + s.file + "'");
}

Mesh build_mesh(const MeshSource& s, MPI_Comm comm, const MeshSourceReject& reject) {
  collective_guard(comm, [&] { validate_mesh_source(s, or_throw(reject)); });
  if (s.kind == MeshSourceKind::file) return read_mesh(s.file, comm);
  Mesh m;
  collective_guard(comm, [&] { m = airfoil_grid(s.grid); });
  return m;
}

MeshChunk build_mesh_chunk(const MeshSource& s, MPI_Comm comm, const MeshSourceReject& reject) {
  if (s.kind == MeshSourceKind::file) {
    collective_guard(comm, [&] { validate_mesh_source(s, or_throw(reject)); });
    return read_mesh_chunk(s.file, comm);
  }
  // Every rank makes the grid, keeps its chunk and drops the whole before
  // the partition.
  const Mesh global = build_mesh(s, comm, reject);
  return chunk_of(global, comm_rank(comm), comm_size(comm));
}

DistributedMesh build_distributed_mesh(const MeshSource& s, MPI_Comm comm,
                                       const MeshSourceReject& reject) {
  return DistributedMesh(build_mesh_chunk(s, comm, reject), comm);
}

}  // namespace camber::mesh
