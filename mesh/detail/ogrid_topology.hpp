// The cells and markers of a structured O-grid stored as an unstructured
// mesh: nodes (i, j), i = 0 .. ni - 1 around (counter-clockwise along the
// wall, periodic), j = 0 .. nj out, numbered j * ni + i. Shared by the
// generators of mesh/generators.hpp and mesh/karman_trefftz_ogrid.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <camber/mesh/generators.hpp>

namespace camber::mesh::detail {

// An airfoil surface as the O-grid generators take it: a polygon
// counter-clockwise from the trailing edge (a clockwise one reversed),
// consecutive duplicates removed; `closed` when the last point equalled the
// first (a sharp trailing edge at point 0; the repeat dropped), otherwise
// the base from the last point to the first is part of the wall. The
// trailing edge is point 0 or the base's midpoint, the leading edge the
// point farthest from it, the chord their distance. Bad surfaces (all
// points equal, no enclosed area, a leading edge at either end) are
// bad_input messages that start with `who`.
struct WallLoop {
  std::vector<double> x, y;
  bool closed = false;
  double te_x = 0, te_y = 0;
  std::size_t le = 0;
  double chord = 0;
};
WallLoop wall_loop(const AirfoilSurface& surface, const std::string& who);

// Adds the ni x nj cells, counter-clockwise, and the markers "airfoil"
// (j = 0) and "farfield" (j = nj). Triangles: each quad split in two, along
// its (i, j) - (i + 1, j + 1) diagonal for i < ni / 2 and along the other
// one beyond, the mirror image (node i reflects to ni - i; ni even), so a
// grid symmetric about the chord stays symmetric.
void add_ogrid_cells(MeshData& d, int ni, int nj, CellShape shape);

}  // namespace camber::mesh::detail
