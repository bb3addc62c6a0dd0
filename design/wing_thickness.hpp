/// @file
/// camber::design::WingThickness — the thickness of a 3-D wing at
/// stations (eta, x/c) of its planform, and its exact linear change under
/// an FFD box (ffd_volume.hpp): what a wing design holds its sections'
/// thickness with.
///
/// A station is the vertical line through (x, eta b), b the semi-span (the
/// largest y of the wall's nodes; the root on the plane y = 0), x = x_le +
/// (x/c) (x_te - x_le) with x_le and x_te the smallest and largest x where
/// the plane y = eta b cuts the wall. The line meets the wall's faces (in
/// projection on the x-y plane; a quadrilateral face as the four triangles
/// from the mean of its nodes to its edges, as the flow's geometry splits
/// it) at its highest and lowest points, p_up and p_lo: the thickness is
/// t = z(p_up) - z(p_lo). A box of degree 2 in z moved in z moves a node
/// and its mirror image in the box's mid-plane alike, so a section
/// symmetric about it keeps its thickness (tested: T = 0).
///
/// The faces move with their nodes, and the FFD box moves each node
/// linearly in the design a, so the point of the face at the same
/// barycentric weights moves by the weighted displacement of the face's
/// nodes, and the thickness between those two points is
/// @code
///   t(a) = t0 + sum_j w_j dz(n_j^up; a) - sum_j w_j dz(n_j^lo; a) = t0 + T a
/// @endcode
/// exactly. With moves in z only the nodes keep their (x, y), so t(a) is
/// the deformed mesh's thickness at the station, to round-off (tested);
/// moves in x or y shift the points along the section, and t(a) is the
/// vertical distance between the surface points that were at the station.
///
/// @code
///   design::WingThickness wt(dm, {"wing"}, {0.2, 0.44, 0.65, 0.8, 0.95},
///                            {0.1, 0.3, 0.5, 0.7, 0.9});          // collective
///   auto T = wt.jacobian(ffd.box(), ffd.options());             // {n_stations}{n_design}
///   std::vector<double> t = wt.thickness(T, a);
/// @endcode
#pragma once

#include <array>
#include <string>
#include <vector>

#include <camber/design/ffd_volume.hpp>
#include <camber/mesh/distributed_mesh.hpp>

namespace camber::design {

struct WingStation {
  double eta = 0.0, x_over_c = 0.0;
  double x = 0.0, y = 0.0;
  double z_upper = 0.0, z_lower = 0.0;  ///< where the vertical line meets the wall
  /// The nodes of the faces the line meets (a triangle's three, a
  /// quadrilateral's four), and the weights on them of the meeting points.
  std::array<std::array<double, 3>, 4> upper{}, lower{};
  std::array<double, 4> upper_weights{}, lower_weights{};
  double thickness() const noexcept { return z_upper - z_lower; }
};

class WingThickness {
 public:
  /// The stations eta x chord_fractions (both in (0, 1)) on the faces of
  /// `walls`, the same on every rank. Collective; throws bad_input on every
  /// rank alike (the checks are of values every rank agrees on: call it
  /// inside collective_guard) for a fraction outside (0, 1), walls no rank
  /// has faces of, or a station whose line does not cross the wall twice.
  WingThickness(const mesh::DistributedMesh& dm, const std::vector<std::string>& walls,
                const std::vector<double>& etas, const std::vector<double>& chord_fractions);

  const std::vector<WingStation>& stations() const noexcept { return stations_; }
  std::size_t size() const noexcept { return stations_.size(); }
  /// The thickness of every station (t0).
  std::vector<double> baseline() const;
  /// T(s, k) = dt_s / da_k under the box (box, options).
  std::vector<std::vector<double>> jacobian(const FfdVolumeBox& box,
                                            const FfdVolumeOptions& options) const;
  /// t0 + T a.
  std::vector<double> thickness(const std::vector<std::vector<double>>& T,
                                const std::vector<double>& a) const;

 private:
  std::vector<WingStation> stations_;
};

}  // namespace camber::design
