/// @file
/// Mesh generators: rectangles for tests and airfoil O-grids.
///
/// @code
///   Mesh r = rectangle(8, 4, 2.0, 1.0);                 // quads, markers
///                                                       // left/right/bottom/top
///   AirfoilSurface s = naca4("0012", /*sharp_te=*/true); // ADODG NACA 0012
///   AirfoilSurface t = selig_dat("rae2822.dat");        // any Selig file
///   Mesh m = airfoil_ogrid(s, 256, 80, 1e-5, 50.0);     // markers airfoil,
///                                                       // farfield
/// @endcode
///
/// NACA 4-digit "MPTT": max camber M/100 at P/10 chord, thickness TT/100,
/// @code
///   y_t = 5 t (0.2969 sqrt(x) - 0.1260 x - 0.3516 x^2 + 0.2843 x^3 - a4 x^4)
/// @endcode
/// with a4 = 0.1015 (the original: a blunt trailing edge of thickness
/// 2 y_t(1) = 0.021 t) or a4 = 0.1036 (sharp trailing edge, y_t(1) = 0: the
/// AIAA ADODG variant, y = +-0.6(...) for t = 0.12).
/// Points are cosine-spaced in x, upper and lower surface offset normal to
/// the camber line.
///
/// Airfoil surfaces are in Selig order: from the trailing edge over the upper
/// surface to the leading edge and back along the lower surface (counter-
/// clockwise). A last point equal to the first closes a sharp trailing edge;
/// otherwise the trailing-edge base from the last point to the first is part
/// of the wall. airfoil_ogrid() also accepts a clockwise surface (it reverses
/// it) and takes as trailing edge the first point (or the midpoint of the
/// first and last) and as leading edge the point farthest from it.
///
/// The O-grid is structured (cells_around x cells_normal quads) and stored as
/// an unstructured Mesh. Wall points are the surface resampled by arc length
/// with cosine clustering at the leading and trailing edges (linear between
/// the given points); layer j sits at wall distance s_j with s_1 =
/// first_cell_height and s_{j+1} - s_j growing geometrically up to the far
/// field, a circle of radius farfield_chords * chord around mid-chord (chord:
/// trailing edge to the farthest surface point, the leading edge). Node
/// (i, j) = P_i + s_j ((1 - w_j) N_ij + w_j (Q_i - P_i) / s_N): near the wall
/// an extrusion along N_ij, blended with weight w_j = (1 - exp(-s_j / c)) /
/// (1 - exp(-s_N / c)) (c = 1 chord) into the straight line to the far-field
/// point Q_i. N_ij is the wall normal at P_i averaged with Gaussian weights
/// exp(-(d / b_j)^2) over the wall arc length d, b_j = min(s_j, c / 4): the
/// normal itself at the wall (orthogonal cells), while further out the
/// normals' 180-degree turn at a sharp trailing edge is spread over the
/// columns within b_j of it, so the near wake gets cells of the size of
/// their neighbours instead of one 90-degree wedge column on each side (a
/// grid error that cost 10% of CL on the transonic NACA 0012). Generators build with
/// Orientation::require, so a folded cell is an error rather than a silently
/// reversed one.
#pragma once

#include <string>
#include <vector>

#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

enum class CellShape { quads, triangles };

/// nx x ny cells on [0, lx] x [0, ly]; triangles split each quad along its
/// (0,0)-(1,1) diagonal. Markers "left", "right", "bottom", "top".
Mesh rectangle(index_t nx, index_t ny, double lx, double ly, CellShape shape = CellShape::quads);

struct AirfoilSurface {
  std::string name;
  std::vector<double> x, y;  ///< Selig order
  index_t size() const { return static_cast<index_t>(x.size()); }
};

/// Half thickness y_t(x) of a NACA 4-digit section with thickness ratio t.
double naca4_half_thickness(double x, double t, bool sharp_te);

/// NACA 4-digit airfoil, chord 1 from (0, 0) to (1, 0); points_per_side
/// points per surface (the leading edge shared). Bad digits are bad_input.
AirfoilSurface naca4(const std::string& digits, bool sharp_te = false, int points_per_side = 201);

/// Reads a Selig-format .dat file: a name line, then "x y" per line. Errors
/// (bad number, wrong field count, fewer than 5 points, Lednicer-format
/// counts) are bad_input "file:line: expected ..., found ...".
AirfoilSurface selig_dat(const std::string& path);

struct OGridInfo {
  double chord = 0, farfield_radius = 0, growth_ratio = 0;
  double center_x = 0, center_y = 0;
  double wall_area = 0;  ///< area enclosed by the resampled wall polygon
};

/// O-grid around `surface`; see the header comment. Requires cells_around
/// >= 16 (even), cells_normal >= 2, first_cell_height > 0 with
/// cells_normal * first_cell_height < the far-field distance, and
/// farfield_chords >= 2 (bad_input otherwise; a far field closer than
/// about 50 chords biases the lift unless the flow solver corrects it,
/// FlowConditions::far_field_vortex). `info`, if given, receives
/// the chord, far-field radius, growth ratio and wall polygon area.
/// CellShape::triangles splits every quad in two (the same nodes), along
/// mirror-image diagonals on the two halves so that the grid keeps its
/// symmetry about the chord, for comparisons between cell types.
Mesh airfoil_ogrid(const AirfoilSurface& surface, int cells_around, int cells_normal,
                   double first_cell_height, double farfield_chords = 50.0,
                   OGridInfo* info = nullptr, CellShape shape = CellShape::quads);

}  // namespace camber::mesh
