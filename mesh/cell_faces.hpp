/// @file
/// The faces of each cell type in its local node numbering (the VTK, SU2
/// and Gmsh order), each ordered so that its normal points out of the
/// cell: the right-hand rule in 3-D, (dy, -dx) in 2-D. One table for the
/// host and for kernels (Mesh::from_cells builds the faces from it; the 3-D
/// geometry and the quality report split the cells by it).
///
/// @code
///   int nodes[4];
///   for (int f = 0; f < camber::mesh::n_cell_faces(t); ++f) {
///     const int m = camber::mesh::cell_face(t, f, nodes);   // 2, 3 or 4 nodes
///     // local node nodes[0..m-1] of a cell of type t
///   }
/// @endcode
#pragma once

#include <Kokkos_Core.hpp>

#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

/// Faces of a cell of type t (0 for a type without faces: lines, points).
KOKKOS_INLINE_FUNCTION int n_cell_faces(CellType t) {
  switch (t) {
    case CellType::triangle: return 3;
    case CellType::quad: return 4;
    case CellType::tetrahedron: return 4;
    case CellType::hexahedron: return 6;
    case CellType::prism: return 5;
    case CellType::pyramid: return 5;
    default: return 0;
  }
}

/// Local nodes of face f of a cell of type t, outward-ordered, in
/// nodes[0..m-1]; returns m (0 when t has no face f).
KOKKOS_INLINE_FUNCTION int cell_face(CellType t, int f, int* nodes) {
  // Per type: face sizes, then the node lists (4 per face, -1 unused).
  constexpr int tri[3][4] = {{0, 1, -1, -1}, {1, 2, -1, -1}, {2, 0, -1, -1}};
  constexpr int quad[4][4] = {{0, 1, -1, -1}, {1, 2, -1, -1}, {2, 3, -1, -1}, {3, 0, -1, -1}};
  constexpr int tet[4][4] = {{0, 2, 1, -1}, {0, 1, 3, -1}, {1, 2, 3, -1}, {0, 3, 2, -1}};
  constexpr int hex[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                             {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  constexpr int prism[5][4] = {{0, 1, 2, -1}, {3, 5, 4, -1}, {0, 3, 4, 1}, {1, 4, 5, 2}, {2, 5, 3, 0}};
  constexpr int pyramid[5][4] = {{0, 3, 2, 1}, {0, 1, 4, -1}, {1, 2, 4, -1}, {2, 3, 4, -1}, {3, 0, 4, -1}};
  if (f < 0 || f >= n_cell_faces(t)) return 0;
  const int* row = nullptr;
  switch (t) {
    case CellType::triangle: row = tri[f]; break;
    case CellType::quad: row = quad[f]; break;
    case CellType::tetrahedron: row = tet[f]; break;
    case CellType::hexahedron: row = hex[f]; break;
    case CellType::prism: row = prism[f]; break;
    case CellType::pyramid: row = pyramid[f]; break;
    default: return 0;
  }
  int m = 0;
  while (m < 4 && row[m] >= 0) {
    nodes[m] = row[m];
    ++m;
  }
  return m;
}

}  // namespace camber::mesh
