/// @file
/// Reading a mesh file by its format, on one rank or collectively.
///
/// read_mesh(path) picks the reader by the extension (.su2: SU2 native,
/// .msh: Gmsh 4.1 ASCII, .cgns: CGNS) and builds a Mesh on the calling rank.
/// read_mesh(path, comm) is the form for MPI programs: rank 0 reads and
/// checks the file, every rank receives the same mesh, and a bad file or
/// path is one camber::Error(bad_input) raised on every rank of `comm`
/// (printed once by run_guarded, exit code 2), never an abort or a hang:
///
/// @code
///   int main(int argc, char** argv) {
///     camber::Runtime runtime(argc, argv);
///     return camber::run_guarded(runtime.comm(), [&] {
///       auto global = camber::mesh::read_mesh("naca0012.su2", runtime.comm());
///       camber::mesh::DistributedMesh dm(global, runtime.comm());
///       return 0;
///     });
///   }
/// @endcode
///
/// read_mesh(path, comm) reads the file once (on rank 0) and sends the mesh
/// to the others as its host arrays: O(global) memory per rank, for the
/// serial tools and the 2-D design chain, which hold the whole mesh. A
/// solver that does not need it should use DistributedMesh::read(path,
/// comm), which reads in parallel (mesh/mesh_chunk.hpp) and never holds the
/// whole mesh on any rank.
#pragma once

#include <mpi.h>

#include <string>

#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

/// The host arrays of the mesh in `path` (.su2, .msh or .cgns, by extension); an
/// unknown extension is a bad_input error naming the file.
MeshData read_mesh_data(const std::string& path);
/// The Mesh in `path`, read on the calling rank only.
Mesh read_mesh(const std::string& path);
/// Collective over `comm`: rank 0 reads, every rank returns the same Mesh.
/// Errors in the file are raised on every rank (see the file comment).
Mesh read_mesh(const std::string& path, MPI_Comm comm);

/// Sends `data` from rank `root` to every rank of `comm` (collective);
/// source line numbers (cell_lines, Marker::lines) are not sent.
void broadcast(MeshData& data, int root, MPI_Comm comm);

}  // namespace camber::mesh
