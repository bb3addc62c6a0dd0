/// @file
/// camber::design::FreeFormDeformation — a 2-D free-form deformation (FFD)
/// box around an airfoil: a linear map control-point displacements -> wall
/// displacement.
///
/// The box [x_min, x_max] x [y_min, y_max] (axis-aligned, mesh coordinates)
/// holds (l + 1) x (m + 1) control points P_ij at s = i / l, t = j / m of the
/// local coordinates s = (x - x_min) / (x_max - x_min), t likewise in y.
/// Moving them by dP_ij moves a point inside the box by
/// @code
///   dp(s, t) = sum_{i=0..l} sum_{j=0..m} B_{i,l}(s) B_{j,m}(t) dP_ij
/// @endcode
/// (Bernstein polynomials, a partition of unity: a uniform dP moves every
/// point by dP). Design vector: a[k] = dP_ij y, k = i (m + 1) + j; with
/// move_x, a[n_cp + k] = dP_ij x as well (n_cp = (l + 1)(m + 1)).
///
/// @code
///   namespace design = camber::design;
///   design::FfdOptions opt;  opt.degree_x = 6;  opt.degree_y = 1;  // 14 variables
///   design::FreeFormDeformation ffd(mesh, {"airfoil"}, opt);
///   camber::ad::Var d = ffd.displacement(camber::ad::variable(a));  // (n_wall, 2)
///   camber::Tensor q = ffd.displacement_at(points, a);             // any points
/// @endcode
///
/// By default the box is the wall's bounding box grown by `margin` chords on
/// every side; an explicit box must contain every wall node (bad_input
/// otherwise). Points outside the box do not move (displacement_at), which
/// is continuous only if the control points on the box's border stay put:
/// the wall, strictly inside, is not affected. Derivatives as for every
/// ShapeParametrization: one graph node, VJP = basis^T, JVP = basis.
#pragma once

#include <string>
#include <vector>

#include <camber/design/airfoil_wall.hpp>

namespace camber::design {

struct FfdBox {
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
};

struct FfdOptions {
  int degree_x = 6;      ///< l: l + 1 control points along x
  int degree_y = 1;      ///< m: m + 1 control points along y
  bool move_x = false;   ///< x-displacements are design variables too
  double margin = 0.05;  ///< default box: wall bounding box + margin * chord
  /// Explicit box; used when x_max > x_min (then margin is ignored).
  FfdBox box{};
};

class FreeFormDeformation : public ShapeParametrization {
 public:
  /// Throws camber::Error(bad_input) for degrees < 1, a negative margin, or
  /// an explicit box that does not contain the wall.
  FreeFormDeformation(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers,
                      const FfdOptions& options = {});
  FreeFormDeformation(AirfoilWall wall, const FfdOptions& options = {});

  const FfdBox& box() const noexcept { return box_; }
  const FfdOptions& options() const noexcept { return options_; }
  index_t n_control_points() const noexcept {
    return static_cast<index_t>(options_.degree_x + 1) * (options_.degree_y + 1);
  }
  /// Baseline control points, (n_cp, 2), row k = i (m + 1) + j.
  Tensor control_points() const;
  /// Displacement (n, 2) of `points` (n, 2) for the design vector a: the
  /// FFD inside the box, zero outside. Values only (host loops).
  Tensor displacement_at(const Tensor& points, const Tensor& a) const;

 private:
  /// The basis row of a point: weight of control point k, n_cp of them.
  void weights(double x, double y, std::vector<double>& w) const;

  FfdOptions options_;
  FfdBox box_;
};

}  // namespace camber::design
