/// @file
/// The O-grid family of Vassberg and Jameson's Euler grid-convergence study
/// around the NACA 0012 extended to its sharp trailing edge, built with the
/// Karman-Trefftz conformal map ("In Pursuit of Grid Convergence for Two-
/// Dimensional Euler Solutions", J. Aircraft 47(4), 2010).
///
/// The airfoil is the NACA 0012 thickness law run out to where it closes,
///
///   y = +-0.6 (0.2969 sqrt(x) - 0.1260 x - 0.3516 x^2 + 0.2843 x^3 - 0.1015 x^4),
///   0 <= x <= x_te = 1.0089304115 (y(x_te) = 0),
///
/// and the Karman-Trefftz map
///
///   ((zeta - zeta_1) / (zeta - zeta_2)) = ((z - z_1) / (z - z_2))^P,   P = pi / (2 pi - tau),
///
/// with z_1 the trailing edge, z_2 half the leading-edge radius (0.5 * 1.1019
/// t^2) behind the leading edge, tau the trailing-edge angle, and the
/// paper's zeta_1 = 0.77043505, zeta_2 = 0.24642903, turns the airfoil into
/// a near-circle about zeta_c (the midpoint of the images of the trailing
/// and leading edges). The grid is polar in the zeta plane:
///
///   wall node i: the point of the analytic surface whose image lies at
///                angle theta_i = 2 pi i / N about zeta_c (found by bisection),
///   radius       r_ij = r_i0 + (R_j - R_1) (R_N - r_i0) / (R_N - R_1),
///                R_j = R_1 exp(2 pi j / N), R_1 = perimeter of the wall
///                images / (2 pi),
///
/// mapped back to z. The radial ratio exp(2 pi / N) equals the angular step,
/// so cells are near-squares (aspect ratio 1 + O(1/N)) everywhere but at the
/// trailing edge, where the map is singular; lines cross at right angles;
/// the far field lies R_N ~ 535 R_1, about 150 chords, away. Nodes i and
/// N - i are mirror images to the last bit (the upper half is built and
/// reflected), so the grid is exactly symmetric about y = 0.
///
/// @code
///   camber::mesh::KarmanTrefftzInfo info;
///   camber::mesh::Mesh m = camber::mesh::karman_trefftz_ogrid(256, camber::mesh::CellShape::quads, &info);
///   // 256 x 256 quads, markers "airfoil" and "farfield"; info.farfield_radius ~ 150
/// @endcode
///
/// The coefficients of the study use the reference chord 1 (the NACA
/// section's nominal chord; the closed airfoil is 1.0089304115 long) and
/// the moment about (0.25, 0). CellShape::triangles splits every quad in
/// two (the same nodes), along mirror-image diagonals on the upper and lower
/// halves so that the grid stays symmetric about the chord (one diagonal
/// direction everywhere would tilt the grid: 0.016 of CL at alpha 0 on
/// 64^2), for comparisons between cell types.
/// Limits: this one airfoil (the map's constants are the paper's); N even
/// and at least 16 (bad_input otherwise). conformal_ogrid() below builds
/// the same construction around other sharp-edged sections.
#pragma once

#include <complex>

#include <camber/mesh/generators.hpp>

namespace camber::mesh {

/// The constants of Vassberg and Jameson's construction, and the map.
struct KarmanTrefftzMap {
  double x_te = 0;      ///< trailing edge of the closed NACA 0012 (z_1)
  double tau = 0;       ///< trailing-edge angle, radians
  double z2 = 0;        ///< half the leading-edge radius
  double zeta1 = 0.77043505, zeta2 = 0.24642903;
  double zeta_c = 0;    ///< centre of the near-circle
  double power = 0;     ///< P = pi / (2 pi - tau)

  /// The map's constants derived from the thickness law,
  /// naca4_half_thickness(x, 0.12, false) (x_te by bisection, tau from the
  /// slope there, z2 from the leading-edge radius).
  static KarmanTrefftzMap naca0012();

  std::complex<double> to_circle(std::complex<double> z) const;     ///< z -> zeta
  std::complex<double> from_circle(std::complex<double> zeta) const;  ///< zeta -> z
};

/// V&J's airfoil, the NACA 0012 run out to x_te where it closes, as a
/// surface in Selig order (cosine-spaced in x, the last point the first),
/// for conformal_ogrid and the other generators.
AirfoilSurface vassberg_jameson_naca0012(int points_per_side = 4001);

/// The same construction around any airfoil with a sharp trailing edge
/// (a closed surface: NACA 4-digit with the ADODG edge, a Selig file whose
/// last point repeats its first): cells_around x cells_normal cells, near-
/// square where cells_normal = cells_around and the far field is about 150
/// chords (the radial ratio is set so that the far-field nodes lie, on
/// average, farfield_chords chords from mid-chord). The map's constants
/// come from the polygon: z_1 its trailing edge, tau the angle between its
/// first two segments there, z_2 half the leading-edge radius (the circle
/// through the nose and its neighbours about 0.5% of the chord away) behind
/// the nose, zeta = 1 / (1 - ((z - z_1) / (z - z_2))^P); the wall nodes are
/// points of the polygon (linear between its points), so give it densely.
/// bad_input: an open (blunt) trailing edge, an edge angle above 90
/// degrees, an image that folds back (a section too cambered for the map),
/// and the limits of airfoil_ogrid. `info` receives the chord, far-field
/// radius, radial ratio, mid-chord and wall area.
Mesh conformal_ogrid(const AirfoilSurface& surface, int cells_around, int cells_normal,
                     double farfield_chords = 150.0, OGridInfo* info = nullptr,
                     CellShape shape = CellShape::quads);

struct KarmanTrefftzInfo {
  KarmanTrefftzMap map;
  double r1 = 0;               ///< R_1 in the zeta plane
  double farfield_radius = 0;  ///< mean distance of the far-field nodes from (x_te / 2, 0)
  double radial_ratio = 0;     ///< exp(2 pi / N)
};

/// N x N cells (2 N^2 triangles for CellShape::triangles); see the header
/// comment. Markers "airfoil" and "farfield".
Mesh karman_trefftz_ogrid(int n, CellShape shape = CellShape::quads,
                          KarmanTrefftzInfo* info = nullptr);

}  // namespace camber::mesh
