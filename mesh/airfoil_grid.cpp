#include <camber/mesh/airfoil_grid.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <camber/core/error.hpp>
#include <camber/mesh/karman_trefftz_ogrid.hpp>

namespace camber::mesh {

void validate_airfoil_grid(const AirfoilGridSettings& s, const AirfoilGridReject& reject) {
  const bool kt = s.kind == AirfoilGridKind::karman_trefftz_ogrid;
  if (kt && s.cells % 2 != 0)
    reject("cells", "must be even (the grid is built symmetric about the chord), got " +
                        std::to_string(s.cells));
  if (kt) return;
  if (s.kind == AirfoilGridKind::conformal_ogrid && !s.sharp_trailing_edge)
    reject("sharp_trailing_edge",
           "conformal_ogrid needs a sharp trailing edge (the map is built on its angle); use "
           "airfoil_ogrid for a blunt one");
  if (!s.airfoil_file.empty()) {
    if (!std::filesystem::exists(s.airfoil_file))
      reject("airfoil_file", "cannot find '" + s.airfoil_file + "'");
    return;
  }
  const std::string& n = s.naca;
  if (n.size() != 4 || !std::all_of(n.begin(), n.end(), [](unsigned char c) { return std::isdigit(c); }) ||
      n.substr(2) == "00")
    reject("naca", "'" + n + "' is not a NACA 4-digit designation (e.g. 0012, 2412)");
}

Mesh airfoil_grid(const AirfoilGridSettings& s) {
  validate_airfoil_grid(s, [](const std::string& member, const std::string& what) {
    throw_bad_input("airfoil grid: " + member + ": " + what);
  });
  if (s.kind == AirfoilGridKind::karman_trefftz_ogrid) return karman_trefftz_ogrid(s.cells, s.cell_shape);
  const bool conformal = s.kind == AirfoilGridKind::conformal_ogrid;
  // The conformal grid's wall nodes lie on the polygon: a dense one.
  const AirfoilSurface surface = s.airfoil_file.empty()
                                     ? naca4(s.naca, s.sharp_trailing_edge, conformal ? 4001 : 201)
                                     : selig_dat(s.airfoil_file);
  if (conformal)
    return conformal_ogrid(surface, s.cells_around, s.cells_normal, s.farfield_chords, nullptr, s.cell_shape);
  return airfoil_ogrid(surface, s.cells_around, s.cells_normal, s.first_cell_height, s.farfield_chords,
                       nullptr, s.cell_shape);
}

}  // namespace camber::mesh
