/// @file
/// Reader for CGNS files (.cgns, ADF or HDF5 inside), through Debian's
/// libcgns (the CGNS mid-level library).
///
/// What is read: the file's one base and its one unstructured zone. The
/// base's cell dimension is the mesh's (2 or 3; a 2-D base may store z,
/// which must then be the same for every node). Coordinates are the
/// Cartesian CoordinateX/Y[/Z] arrays, in double precision. Each element
/// section is either cells (elements of the base's dimension) or boundary
/// faces (one dimension lower); the faces of a section form the marker
/// named after the section, as CGNS writers such as SU2's and Pointwise's
/// name them by boundary. The
/// ZoneBC's boundary conditions are not read: a marker's condition is the
/// deck's `boundaries` section; their point sets are checked (nodes in the
/// zone, elements that some section holds).
///
/// @code
///   camber::mesh::Mesh m = camber::mesh::read_cgns("wedge.cgns");
///   // m.markers()[m.marker_index("inlet")].n_faces()
/// @endcode
///
/// Supported element types: BAR_2, TRI_3, QUAD_4, TETRA_4, PYRA_5, PENTA_6,
/// HEXA_8, and MIXED sections of them. Node orders are CGNS's (SIDS); a
/// PENTA_6 is renumbered to VTK's wedge order (its triangles the other way
/// round), the others are VTK's already. Anything else is a
/// camber::Error(bad_input) naming the file, the zone and the section, and
/// saying what is supported: a file libcgns cannot open, more than one base
/// or zone, a structured zone, polyhedral (NGON_n, NFACE_n) or higher-order
/// elements, a node index out of range, a 2-D base whose z varies,
/// elements of neither dimension (edges in a 3-D zone), a coordinate that
/// is not finite (named by node and axis), a boundary condition naming no
/// node or element, MIXED element offsets that disagree with the element
/// types, or a declared size (nodes, elements, connectivity, point set)
/// that disagrees with the arrays the file holds or exceeds the file's
/// size: every size is checked before anything of it is allocated or read.
#pragma once

#include <string>

#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

/// Reads a CGNS file into host arrays (what read_cgns builds from).
MeshData read_cgns_data(const std::string& path);
/// Reads and builds the mesh.
Mesh read_cgns(const std::string& path);

}  // namespace camber::mesh
