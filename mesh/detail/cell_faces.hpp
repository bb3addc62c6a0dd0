// The faces of each cell type in its local node numbering (the VTK/SU2
// order), each ordered so that its normal points out of the cell: the
// right-hand rule in 3-D, (dy, -dx) in 2-D. What Mesh::from_cells builds
// the faces from, and what the quality report's 3-D volumes use.
#pragma once

#include <camber/mesh/mesh.hpp>

namespace camber::mesh::detail {

struct LocalFaces {
  int n_faces;
  int size[6];
  int node[6][4];
};

// Throws camber::Error for a type without faces.
const LocalFaces& local_faces(CellType t);

}  // namespace camber::mesh::detail
