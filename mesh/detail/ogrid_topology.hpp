// The cells and markers of a structured O-grid stored as an unstructured
// mesh: nodes (i, j), i = 0 .. ni - 1 around (counter-clockwise along the
// wall, periodic), j = 0 .. nj out, numbered j * ni + i. Shared by the
// generators of mesh/generators.hpp and mesh/karman_trefftz_ogrid.hpp.
#pragma once

#include <camber/mesh/generators.hpp>

namespace camber::mesh::detail {

// Adds the ni x nj cells, counter-clockwise, and the markers "airfoil"
// (j = 0) and "farfield" (j = nj). Triangles: each quad split in two, along
// its (i, j) - (i + 1, j + 1) diagonal for i < ni / 2 and along the other
// one beyond, the mirror image (node i reflects to ni - i; ni even), so a
// grid symmetric about the chord stays symmetric.
void add_ogrid_cells(MeshData& d, int ni, int nj, CellShape shape);

}  // namespace camber::mesh::detail
