/// @file
/// Reader for Gmsh 4.1 ASCII mesh files (.msh).
///
/// Sections read (https://gmsh.info/doc/texinfo/gmsh.html#MSH-file-format):
///
/// @code
///   $MeshFormat      "4.1 0 8" (version, 0 = ASCII, size of double)
///   $PhysicalNames   dimension, tag and "name" of each physical group
///   $Entities        which physical groups each point/curve/surface/volume
///                    belongs to
///   $Nodes           entity blocks of node tags, then their x y z
///   $Elements        entity blocks of elements: tag and node tags
/// @endcode
///
/// Other sections ($Comments, $NodeData, $Periodic, ...) are skipped. The mesh
/// dimension is the highest element dimension present: 2-D meshes have
/// triangles (type 2) and quadrilaterals (3) as cells and must lie in the
/// z = 0 plane; 3-D meshes have tetrahedra (4), hexahedra (5), prisms (6) and
/// pyramids (7). Gmsh's prisms are renumbered to VTK's wedge order (their
/// triangles taken the other way round); the other types are VTK's already. Elements one dimension lower (lines, type 1, in 2-D;
/// triangles and quads in 3-D) on an entity that belongs to a physical group
/// become boundary faces of the marker named after the group (its
/// $PhysicalNames name, or "physical_<tag>" if unnamed; an entity in several
/// groups gives its elements to the first). Points (15) and lower-dimensional
/// elements without a physical group are ignored; higher-order elements are
/// an error. Binary files and versions other than 4.1 are rejected with a
/// message saying how to export a 4.1 ASCII file.
///
/// @code
///   camber::mesh::Mesh m = camber::mesh::read_gmsh("channel.msh");
/// @endcode
///
/// Errors are camber::Error(bad_input) "file:line: expected ..., found ...";
/// counts are checked against the lines left before anything is reserved.
#pragma once

#include <string>

#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

MeshData read_gmsh_data(const std::string& path);
Mesh read_gmsh(const std::string& path);

}  // namespace camber::mesh
