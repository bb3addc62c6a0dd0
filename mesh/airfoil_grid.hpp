/// @file
/// camber::mesh airfoil grid — the O-grids around an airfoil that
/// `camber run` and `camber optimize` generate, chosen by name with their
/// settings: the O-grid extruded from the wall (generators.hpp,
/// airfoil_ogrid), the Karman-Trefftz conformal O-grid around any airfoil
/// with a sharp trailing edge, and Vassberg and Jameson's N x N grid
/// around the NACA 0012 closed at x = 1.0089 (karman_trefftz_ogrid.hpp).
///
/// @code
///   mesh::AirfoilGridSettings s;           // a NACA 0012 O-grid, 128 x 64 quads
///   s.naca = "2412";
///   s.cells_around = 192;
///   const mesh::Mesh m = mesh::airfoil_grid(s);   // markers airfoil, farfield
/// @endcode
#pragma once

#include <array>
#include <functional>
#include <string>

#include <camber/core/enum_names.hpp>
#include <camber/mesh/generators.hpp>

namespace camber::mesh {

enum class AirfoilGridKind { airfoil_ogrid, conformal_ogrid, karman_trefftz_ogrid };
inline constexpr std::array<EnumName<AirfoilGridKind>, 3> airfoil_grid_kind_names{
    {{AirfoilGridKind::airfoil_ogrid, "airfoil_ogrid"},
     {AirfoilGridKind::conformal_ogrid, "conformal_ogrid"},
     {AirfoilGridKind::karman_trefftz_ogrid, "karman_trefftz_ogrid"}}};
inline constexpr std::array<EnumName<CellShape>, 2> cell_shape_names{
    {{CellShape::quads, "quads"}, {CellShape::triangles, "triangles"}}};

struct AirfoilGridSettings {
  AirfoilGridKind kind = AirfoilGridKind::airfoil_ogrid;
  std::string naca = "0012";       ///< NACA 4-digit designation (not karman_trefftz_ogrid)
  std::string airfoil_file;        ///< a Selig-format .dat instead of naca ("" : naca)
  bool sharp_trailing_edge = true; ///< the ADODG closure of the NACA thickness law
  int cells_around = 128;          ///< airfoil_ogrid, conformal_ogrid
  int cells_normal = 64;
  double first_cell_height = 2e-3;  ///< chords (airfoil_ogrid)
  double farfield_chords = 50.0;    ///< airfoil_ogrid, conformal_ogrid
  int cells = 64;                   ///< karman_trefftz_ogrid: N, even
  CellShape cell_shape = CellShape::quads;
};

/// Told the member (its name in AirfoilGridSettings) and what is wrong;
/// must throw.
using AirfoilGridReject = std::function<void(const std::string& member, const std::string& what)>;
/// Checks what the generators need: a NACA 4-digit designation with a
/// thickness, an even N, a sharp trailing edge for the conformal map, an
/// airfoil file that exists. The first fault goes to `reject`.
void validate_airfoil_grid(const AirfoilGridSettings& s, const AirfoilGridReject& reject);

/// The grid `s` describes (validated first: bad_input naming the member).
Mesh airfoil_grid(const AirfoilGridSettings& s);

}  // namespace camber::mesh
