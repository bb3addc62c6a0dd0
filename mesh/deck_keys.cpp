#include "deck_keys.hpp"

#include <vector>

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

AirfoilGridSettings read_airfoil_grid(const deck::Deck& d, const std::string& section,
                                      AirfoilGridKind kind) {
  AirfoilGridSettings g = airfoil_grid_keys().read(d, section);
  g.kind = kind;
  if (!g.airfoil_file.empty()) g.airfoil_file = deck::deck_relative_path(d, g.airfoil_file);
  return g;
}

void validate_airfoil_grid_keys(const deck::Deck& d, const std::string& section,
                                AirfoilGridKind kind) {
  const std::string at = section + ".";
  if (d.has(at + "airfoil_file") && (d.has(at + "naca") || d.has(at + "sharp_trailing_edge")))
    d.reject(d.has(at + "naca") ? at + "naca" : at + "sharp_trailing_edge",
             "the airfoil comes from " + at + "airfoil_file, so this would be ignored; remove it");
  // The keys each generator would ignore.
  std::vector<std::string> foreign;
  switch (kind) {
    case AirfoilGridKind::airfoil_ogrid: foreign = {"cells"}; break;
    case AirfoilGridKind::conformal_ogrid: foreign = {"cells", "first_cell_height"}; break;
    case AirfoilGridKind::karman_trefftz_ogrid:
      foreign = {"naca", "airfoil_file", "sharp_trailing_edge", "cells_around", "cells_normal",
                 "first_cell_height", "farfield_chords"};
      break;
  }
  const std::string name(enum_name(airfoil_grid_kind_names, kind));
  for (const std::string& key : foreign)
    if (d.has(at + key))
      d.reject(at + key, "does not shape a '" + name + "' mesh, so it would be ignored; remove it");
  validate_airfoil_grid(read_airfoil_grid(d, section, kind),
                        [&](const std::string& member, const std::string& what) {
                          d.reject(at + member, what);
                        });
}

}  // namespace camber::mesh
