/// @file
/// camber::design::FfdVolume — a trivariate free-form deformation box that
/// moves space: control-point displacements -> the displacement of every
/// mesh node inside the box, a linear map (design/linear_map.hpp).
///
/// The box [lo, hi] (axis-aligned) holds (l + 1)(m + 1)(n + 1) control
/// points P_ijk at local coordinates (i / l, j / m, k / n). Moving them by
/// dP_ijk moves a point of local coordinates (s, t, u) by
/// @code
///   dp(s, t, u) = sum_ijk B_{i,l}(s) B_{j,m}(t) B_{k,n}(u) dP_ijk
/// @endcode
/// (Bernstein polynomials: a partition of unity, so that a uniform dP
/// translates the box's contents, and a control lattice moved by a linear
/// field moves every point by that field). The design variables are the
/// displacements, in the directions of `move`, of the control points off
/// the box's faces (1 <= i <= l - 1, likewise j and k): the control points
/// on the faces stay put, so the displacement vanishes on the box's
/// surface and space outside it, which does not move, joins it
/// continuously. Variable v = ((i - 1) (m - 1) + (j - 1)) (n - 1) + (k - 1)
/// per direction, directions in x, y, z order.
///
/// Because the box deforms space, it is the volume deformation too: every
/// node in the box moves with the wall, so no separate mesh deformation is
/// needed, and each rank moves its own nodes from their coordinates alone
/// (no global mesh, no communication). A symmetry plane through the box
/// stays a plane when `move` leaves its normal direction out (the
/// default moves z, the lift direction, only).
///
/// @code
///   namespace design = camber::design;
///   design::FfdVolumeBox box = design::FfdVolume::box_around(dm, {"wing"}, 0.05);  // collective
///   design::FfdVolumeOptions o;  o.degree = {6, 5, 2};   // 5 x 4 x 1 free points, 20 variables
///   design::FfdVolume ffd(box, dm.local().coords(), o);  // this rank's nodes
///   camber::Tensor dx = ffd.apply(a);                     // {n_local_nodes, 3}
///   camber::Tensor g = ffd.apply_transpose(dJ_dx);       // this rank's share of dJ/da
/// @endcode
///
/// The transpose of a rank's map applied to that rank's share of dJ/dX
/// (solvers/euler/shape_derivative.hpp, rank_derivative at its row
/// coordinates) gives that rank's share of dJ/da; the shares summed over
/// ranks are dJ/da (each node's rows are the same map on every rank).
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <string>
#include <vector>

#include <camber/design/linear_map.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/core/tensor.hpp>

namespace camber::design {

struct FfdVolumeBox {
  std::array<double, 3> lo{0.0, 0.0, 0.0}, hi{0.0, 0.0, 0.0};
};

struct FfdVolumeOptions {
  /// l, m, n: l + 1 control points along x, and so on; each at least 2
  /// (the faces' control points are fixed, so degree 2 leaves one free
  /// layer).
  std::array<int, 3> degree{6, 4, 2};
  /// The displacement directions that are design variables.
  std::array<bool, 3> move{false, false, true};
};

class FfdVolume : public LinearMap {
 public:
  /// points: the coordinates of the nodes the map moves, {n_points, 3}
  /// (a rank's local nodes, DistributedMesh::local().coords(), or the rows
  /// of a shape derivative). Throws camber::Error(bad_input) for a degree
  /// below 2, no direction to move, or a box with hi <= lo in some axis.
  FfdVolume(const FfdVolumeBox& box, const Kokkos::View<const double**>& points,
            const FfdVolumeOptions& options = {});
  FfdVolume(const FfdVolumeBox& box, const Tensor& points, const FfdVolumeOptions& options = {});

  /// The bounding box of the nodes of the faces of `markers` over all
  /// ranks, grown by `margin` times its largest extent on every side.
  /// Collective; a bad_input error on every rank when no rank has a face
  /// of those markers.
  static FfdVolumeBox box_around(const mesh::DistributedMesh& dm,
                                 const std::vector<std::string>& markers, double margin);

  const FfdVolumeBox& box() const noexcept { return box_; }
  const FfdVolumeOptions& options() const noexcept { return options_; }
  index_t n_points() const noexcept { return n_points_; }
  /// Design variables: free control points times moved directions.
  index_t n_design() const noexcept { return static_cast<index_t>(variables_.size()); }
  /// Control point (i, j, k) and direction (0, 1, 2) of each variable.
  struct Variable {
    int i, j, k, direction;
  };
  const std::vector<Variable>& variables() const noexcept { return variables_; }
  /// The undeformed position of control point (i, j, k).
  std::array<double, 3> control_point(int i, int j, int k) const;

  Shape input_shape() const override { return {n_design()}; }
  Shape output_shape() const override { return {n_points_, 3}; }
  /// The points' displacement {n_points, 3} for the design vector a
  /// ({n_design}); zero outside the box.
  Tensor apply(const Tensor& a) const override;
  /// sum over points p of B_v(p) y(p, direction_v), {n_design}.
  Tensor apply_transpose(const Tensor& y) const override;
  std::string name() const override { return "ffd_volume"; }

 private:
  FfdVolumeBox box_;
  FfdVolumeOptions options_;
  index_t n_points_ = 0;
  std::vector<Variable> variables_;
  // Per point inside the box: its index and the Bernstein values of the
  // free control points' indices along each axis (l - 1, m - 1, n - 1 of
  // them), stored contiguously.
  std::vector<index_t> inside_;
  std::vector<double> bs_, bt_, bu_;
};

}  // namespace camber::design
