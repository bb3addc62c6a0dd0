#include "deck_keys.hpp"

namespace camber::mesh {

using deck::IntRange;
using deck::Keys;
using deck::Range;

const Keys<AirfoilGridSettings>& airfoil_grid_keys() {
  using S = AirfoilGridSettings;
  static const Keys<S> keys =
      Keys<S>()
          .string("naca", &S::naca, "NACA 4-digit designation of the airfoil (e.g. 0012, 2412).")
          .string("airfoil_file", &S::airfoil_file,
                  "airfoil_ogrid: a Selig-format .dat file of the airfoil, instead of mesh.naca "
                  "(relative to the deck's folder).")
          .boolean("sharp_trailing_edge", &S::sharp_trailing_edge,
                   "Close the trailing edge (the ADODG modification of the NACA thickness law).")
          .integer("cells_around", &S::cells_around, IntRange(16, 1 << 16), "Cells around the airfoil.")
          .integer("cells_normal", &S::cells_normal, IntRange(4, 1 << 16),
                   "Cells from the wall to the far field.")
          .real("first_cell_height", &S::first_cell_height, Range(1e-8, 0.1),
                "Height of the first cell at the wall, in chords.")
          .real("farfield_chords", &S::farfield_chords, Range(2.0, 1e4),
                "Far-field radius, in chords from the airfoil.")
          .integer("cells", &S::cells, IntRange(16, 1 << 14),
                   "karman_trefftz_ogrid: N, the cells around and from the wall out (even).")
          .choice("cell_shape", &S::cell_shape, cell_shape_names,
                  "Generated O-grids: quads, or each quad split into two triangles (the same "
                  "nodes).");
  return keys;
}

}  // namespace camber::mesh
