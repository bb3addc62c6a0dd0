/// @file
/// camber::design::WingTwist — the twist of a wing at spanwise stations as
/// a linear map: twist angles -> the displacement of every mesh node
/// (design/linear_map.hpp).
///
/// The twist theta(y) is piecewise linear in the span coordinate y through
/// (y_root, 0) and (y_k, theta_k) for the stations y_k (the design
/// variables, in degrees; the root's twist is held at 0, since the angle of
/// attack sets the wing's incidence), constant beyond the last station. A
/// node at (x, y, z) turns about the spanwise axis through (x_a, z_a) by
/// theta(y), to first order in theta:
/// @code
///   dx =  w(p) theta(y) (z - z_a)
///   dz = -w(p) theta(y) (x - x_a)          (theta > 0: nose up)
///   dy = 0
/// @endcode
/// so no node leaves a plane y = const and a symmetry plane stays a plane.
/// The weight w is 1 inside the wing's box (its walls' bounding box) and
/// falls to 0 at `blend` times the box's chordwise extent from it along a
/// C2 quintic in the distance, so each section near the wing turns rigidly
/// (to first order) with its wall, the far field does not move, and the
/// cells between take the shear. Being linear, the map turns a section by
/// theta's tangent and stretches it by sqrt(1 + theta^2): 0.04% of the
/// chord at 3 degrees, 0.4% at 10.
///
/// @code
///   namespace design = camber::design;
///   design::WingTwistOptions o;  o.stations = {0.25, 0.5, 0.75, 1.0};   // of the span
///   design::WingTwistAxis axis = design::WingTwist::axis_around(dm, {"wing"}, o);  // collective
///   design::WingTwist twist(axis, dm.local().coords(), o);                         // this rank's nodes
///   camber::Tensor dx = twist.apply(theta_deg);    // {n_local_nodes, 3}
/// @endcode
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <string>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/design/linear_map.hpp>
#include <camber/mesh/distributed_mesh.hpp>

namespace camber::design {

struct WingTwistOptions {
  /// The stations as fractions of the span from the root (0, 1]; strictly
  /// increasing. One design variable (degrees) each.
  std::vector<double> stations{0.2, 0.4, 0.6, 0.8, 1.0};
  /// The axis's chordwise position as a fraction of the box's x extent
  /// from its leading side (0: the leading edge of an unswept wing, 1: its
  /// trailing edge).
  double axis_chord_fraction = 0.25;
  /// The blend's width, as a fraction of the box's x extent (> 0).
  double blend = 2.0;
};

/// The geometry the map needs: the walls' bounding box (y runs along the
/// span from the root at lo[1]), the axis and the blend's width in the
/// mesh's units.
struct WingTwistAxis {
  std::array<double, 3> lo{0.0, 0.0, 0.0}, hi{0.0, 0.0, 0.0};
  double x_axis = 0.0, z_axis = 0.0, blend_width = 1.0;
};

class WingTwist : public LinearMap {
 public:
  /// points: {n_points, 3}, a rank's node coordinates or a shape
  /// derivative's rows. bad_input for stations out of (0, 1] or not
  /// increasing, an axis fraction outside [0, 1], a blend <= 0.
  WingTwist(const WingTwistAxis& axis, const Kokkos::View<const double**>& points,
            const WingTwistOptions& options = {});
  WingTwist(const WingTwistAxis& axis, const Tensor& points, const WingTwistOptions& options = {});

  /// The axis of the walls of `markers` (their bounding box over all
  /// ranks) for these options. Collective; bad_input on every rank when no
  /// rank has a face of the markers, or the options are bad.
  static WingTwistAxis axis_around(const mesh::DistributedMesh& dm,
                                   const std::vector<std::string>& markers,
                                   const WingTwistOptions& options);
  /// bad_input for the options that no geometry can make valid.
  static void check(const WingTwistOptions& options);

  const WingTwistAxis& axis() const noexcept { return axis_; }
  const WingTwistOptions& options() const noexcept { return options_; }
  index_t n_design() const noexcept { return static_cast<index_t>(options_.stations.size()); }
  /// The twist (degrees) at span coordinate y for the design a.
  double twist_at(double y, const std::vector<double>& a) const;
  /// The blend weight of point (x, y, z).
  double weight(double x, double y, double z) const;

  Shape input_shape() const override { return {n_design()}; }
  Shape output_shape() const override { return {n_points_, 3}; }
  Tensor apply(const Tensor& a) const override;
  Tensor apply_transpose(const Tensor& y) const override;
  std::string name() const override { return "wing_twist"; }

 private:
  // theta(y) = sum_k c_k(y) a_k: the two stations bracketing y and their
  // coefficients (the lower one -1 at the root's interval).
  void coefficients(double y, int& k0, double& c0, int& k1, double& c1) const;

  WingTwistAxis axis_;
  WingTwistOptions options_;
  index_t n_points_ = 0;
  // Per moved point (weight > 0): its index, stations and coefficients
  // (times the weight and pi / 180), and its offsets from the axis.
  struct Moved {
    index_t p;
    int k0, k1;
    double c0, c1, dz_axis, dx_axis;
  };
  std::vector<Moved> moved_;
};

}  // namespace camber::design
