/// @file
/// Reader for SU2's native mesh format (.su2).
///
/// The format (https://su2code.github.io/docs_v7/Mesh-File/): '\%' starts a
/// comment; sections are
///
/// @code
///   NDIME= 2                        dimension (2 or 3), first
///   NELEM= n                        then n lines: type id, node indices,
///   5 0 1 2 [index]                 optional element index (ignored)
///   NPOIN= n [n_domain]             then n lines: coordinates, optional index
///   0.0 0.0 [index]
///   NMARK= m                        then m times:
///   MARKER_TAG= airfoil
///   MARKER_ELEMS= k                 then k boundary elements (type id, nodes)
///   3 0 1
/// @endcode
///
/// NELEM, NPOIN and NMARK may come in any order after NDIME. Element type ids
/// are VTK's: 3 line, 5 triangle, 9 quad, 10 tetrahedron, 12 hexahedron,
/// 13 prism, 14 pyramid. Node indices are 0-based. Multi-zone files (NZONE)
/// are not supported.
///
/// @code
///   camber::mesh::Mesh m = camber::mesh::read_su2("naca0012.su2");
///   // m.n_cells(), m.markers()[m.marker_index("airfoil")].n_faces()
/// @endcode
///
/// Every problem (truncated file, a count that does not match what follows,
/// a bad number, an index out of range, an unknown element type, a missing
/// section) is a camber::Error(bad_input) with "file:line: expected ...,
/// found ...". A count in a header is checked against the number of lines
/// left in the file before any memory is reserved for it. Clockwise 2-D cells
/// are reversed (Orientation::fix; Mesh::n_reoriented_cells() counts them).
#pragma once

#include <string>

#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

/// Reads an SU2 file into host arrays (what read_su2 builds from).
MeshData read_su2_data(const std::string& path);
/// Reads and builds the mesh.
Mesh read_su2(const std::string& path);

}  // namespace camber::mesh
