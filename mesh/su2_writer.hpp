/// @file
/// Writer for SU2's native mesh format (.su2), the counterpart of
/// su2_reader.hpp: what `camber optimize` writes its final (deformed) mesh
/// as, so that SU2 or ParaView-side tools can read it.
///
/// @code
///   camber::mesh::write_su2(mesh, "out/final.su2");   // NDIME, NELEM, NPOIN, NMARK
///   camber::mesh::Mesh back = camber::mesh::read_su2("out/final.su2");
/// @endcode
///
/// Coordinates are written with 17 significant digits (a round trip through
/// read_su2 reproduces them exactly); element type ids are VTK's (5
/// triangle, 9 quad, 10 tetrahedron, 12 hexahedron, 13 prism, 14 pyramid;
/// marker elements 3 line in 2-D, 5 triangle or 9 quad in 3-D). 2-D and
/// 3-D meshes; SU2's periodic and FFD sections are not written. The file
/// is written beside the target and renamed over it (atomic).
///
/// A distributed mesh is written by all its ranks at once (MPI-IO), each
/// its owned cells, the nodes it holds in DistributedMesh's file numbering
/// (node_file_ids) and its owned marker faces, at offsets agreed by
/// prefix sums: no rank gathers the mesh.
/// @code
///   camber::mesh::write_su2(dm.with_local_coordinates(x), "out/final.su2");  // collective
/// @endcode
/// Its node and cell numbers are the file numbering, not the input file's.
#pragma once

#include <string>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

/// Writes `mesh` to `path`; throws camber::Error when the file cannot be
/// written or the mesh is neither 2-D nor 3-D.
void write_su2(const Mesh& mesh, const std::string& path);
/// Collective over dm.comm(): the whole mesh, as above, from every rank's
/// part. The same error on every rank when the file cannot be written.
void write_su2(const DistributedMesh& dm, const std::string& path);

}  // namespace camber::mesh
