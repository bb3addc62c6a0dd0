/// @file
/// What a designer measures on an airfoil's wall: its thickness normal to
/// the chord at chordwise stations (ThicknessStations), and the section as
/// a Selig-format coordinate file (selig_text).
///
/// The thickness at station x is the upper surface's normal coordinate
/// minus the lower surface's, each interpolated linearly in the baseline
/// chord coordinate. The parametrizations of this module move the wall
/// normal to the chord, so the stations' interpolation weights are fixed
/// and the thickness is linear in the design vector: t(a) = t0 + T a
/// exactly, and T, found by probing the unit vectors, is its exact
/// gradient.
///
/// @code
///   design::HicksHenne bumps(mesh, {"airfoil"}, design::evenly_spaced_bumps(19));
///   design::ThicknessStations t(bumps.wall());               // 49 cosine-spaced stations
///   std::vector<double> t0 = t(bumps.wall_coordinates(a0));  // thickness per station
///   design::LinearThickness lt(t, bumps);                    // t(a) = t0 + T a
///   std::string dat = design::selig_text("final", bumps.wall(), bumps.wall_coordinates(a));
/// @endcode
///
/// Limits: one airfoil element; a station outside a surface's chord range
/// takes the nearest segment's line (extrapolates).
#pragma once

#include <string>
#include <vector>

#include <camber/design/airfoil_wall.hpp>

namespace camber::design {

class ThicknessStations {
 public:
  /// Stations x_s = (1 - cos(pi s / n)) / 2, s = 1 .. n - 1 (n = 50: 49
  /// stations, clustered at both edges).
  explicit ThicknessStations(const AirfoilWall& wall, int n = 50);
  size_t size() const noexcept { return stations_.size(); }
  const std::vector<double>& stations() const noexcept { return stations_; }
  /// t at every station from wall coordinates (n_wall, 2).
  std::vector<double> operator()(const Tensor& coords) const;

 private:
  double height(const std::vector<index_t>& order, const Tensor& coords, double x) const;

  const AirfoilWall* wall_;
  std::vector<double> stations_;
  std::vector<index_t> upper_, lower_;
};

/// The thickness of a parametrized wall as the exact linear map of the
/// design: t(a) = t0 + T a (see the file comment).
class LinearThickness {
 public:
  LinearThickness(const ThicknessStations& stations, const ShapeParametrization& shape);
  const std::vector<double>& baseline() const noexcept { return t0_; }
  /// T(s, k) = dt_s / da_k.
  const std::vector<std::vector<double>>& jacobian() const noexcept { return T_; }
  std::vector<double> operator()(const std::vector<double>& a) const;

 private:
  std::vector<double> t0_;
  std::vector<std::vector<double>> T_;
};

/// The wall nodes in Selig order: the upper surface from the trailing edge
/// to the leading edge, then the lower surface back (by chordwise
/// coordinate).
std::vector<index_t> selig_order(const AirfoilWall& wall);

/// The area the wall encloses at wall coordinates `coords` (n_wall, 2), in
/// chord units squared: the shoelace formula over the Selig order (counter-
/// clockwise: positive), closed from the last node to the first (an open
/// wall's base is the closing segment). With `gradient`: dA/dcoords,
/// (n_wall, 2), exact (A is a quadratic function of the coordinates).
double section_area(const AirfoilWall& wall, const Tensor& coords, Tensor* gradient = nullptr);

/// The leading-edge radius of the wall at `coords` (n_wall, 2), in chord
/// units: the radius of the circle through the leading-edge node (chord
/// coordinate 0) and, on each surface, the first wall node at least
/// `probe` chords behind it (by the baseline's chord coordinates, so the
/// three nodes are the same for every design). On a nose y^2 = 2 r x + ...
/// the circle through (0, 0) and (x, +-y) has radius r + x / 2 + ..., so the
/// measure is biased by about probe / 2 and suits a relative constraint
/// (radius >= fraction * the baseline's). With `gradient`: dR/dcoords,
/// (n_wall, 2), exact (nonzero at the three nodes only). bad_input when a
/// surface has no node that far back, or the three nodes are collinear.
double leading_edge_radius(const AirfoilWall& wall, const Tensor& coords,
                           Tensor* gradient = nullptr, double probe = 0.005);

/// The wall as a Selig-ordered coordinate file: `title`, then the upper
/// surface from the trailing edge to the leading edge, then the lower
/// surface back, one "x y" line per wall node of `coords` (n_wall, 2).
std::string selig_text(const std::string& title, const AirfoilWall& wall, const Tensor& coords);

}  // namespace camber::design
