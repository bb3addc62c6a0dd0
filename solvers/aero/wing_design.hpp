/// @file
/// Aerodynamic shape optimization of a 3-D wing, as a library problem: a
/// trivariate FFD box around the wing (design::FfdVolume, which moves the
/// whole volume mesh inside it: no separate deformation), the converged
/// Euler flow and its adjoint on a distributed mesh (no rank holds the
/// global mesh), section thickness held at stations of the planform
/// (design::WingThickness: exact linear constraints), and ShapeDesign's
/// optimizer, lift handling, warm starts and checkpoints.
/// `camber optimize` on a 3-D mesh is this class with a deck in front.
///
/// @code
///   namespace aero = camber::solvers::aero;
///   aero::WingDesignSettings s;
///   s.flow.flow.mach = 0.8395;  s.flow.flow.alpha_deg = 3.06;
///   s.flow.conditions = {{"wing", euler::BoundaryKind::slip_wall},
///                        {"symmetry", euler::BoundaryKind::symmetry},
///                        {"farfield", euler::BoundaryKind::far_field}};
///   s.flow.spatial.order = 2;
///   s.walls = {"wing"};
///   s.ffd.degree = {6, 4, 3};          // 5 x 3 x 2 free control points, moved in z
///   s.thickness_fraction = 1.0;        // t >= t0 at every station
///   s.lift = aero::LiftConstraint::fixed;  s.lift_target = 0.286;
///   s.bound = 10.0;                    // mm, the mesh's units
///   aero::WingDesign design(mesh::DistributedMesh::read(path, comm), s);
///   aero::WingDesignResult r = design.run();   // collective
/// @endcode
///
/// The box is the bounding box of the walls' nodes grown by `margin` times
/// its largest extent on every side; its free control points' moves in
/// the directions of ffd.move (z by default) are the shape variables,
/// bounded by +-bound in the mesh's units. A box of degree 2 in z moved in
/// z keeps the thickness of a section symmetric about its mid-plane
/// exactly (B_{1,2}(u) = B_{1,2}(1 - u)); a higher degree changes
/// thickness, which the stations then hold.
///
/// `parametrization = wing_twist` designs the twist instead
/// (design::WingTwist): one angle per spanwise station (degrees, bounded by
/// +-bound), each section near the wing turned about a spanwise axis and
/// the mesh around it blended to rest; the sections keep their shape, so
/// thickness_fraction must be 0.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <camber/design/ffd_volume.hpp>
#include <camber/design/parametrization.hpp>
#include <camber/design/wing_thickness.hpp>
#include <camber/design/wing_twist.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/aero/shape_design.hpp>

namespace camber::solvers::aero {

struct WingDesignSettings : ShapeDesignSettings {
  /// ffd_volume (the box) or wing_twist; the 2-D kinds are bad_input.
  design::ParametrizationKind parametrization = design::ParametrizationKind::ffd_volume;
  std::vector<std::string> walls{"wing"};  ///< the wall markers the box surrounds
  design::FfdVolumeOptions ffd;            ///< degrees and moved directions
  design::WingTwistOptions twist;          ///< wing_twist: stations, axis, blend
  double margin = 0.05;                    ///< the box around the walls, grown by this
  std::vector<double> thickness_etas{0.2, 0.44, 0.65, 0.8, 0.95};
  std::vector<double> thickness_chord_fractions{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
};

struct WingDesignResult : ShapeDesignResult {
  /// At the thickness stations (design::WingThickness order).
  std::vector<double> baseline_thickness, final_thickness;
};

class WingDesign : public ShapeDesign {
 public:
  /// `dm`: the undeformed mesh, distributed. Collective; bad_input for a
  /// 2-D mesh, walls the mesh lacks, or thickness stations off the wing.
  WingDesign(mesh::DistributedMesh dm, WingDesignSettings settings);
  ~WingDesign() override;

  const WingDesignSettings& settings() const noexcept { return settings_; }
  /// The walls' box grown by the margin (the same on every rank): the FFD
  /// box of ffd_volume.
  const design::FfdVolumeBox& box() const noexcept { return box_; }
  /// wing_twist's axis and blend (the same on every rank).
  const design::WingTwistAxis& twist_axis() const noexcept { return twist_axis_; }
  /// The shape map at this rank's node rows (design::FfdVolume or
  /// design::WingTwist).
  const design::LinearMap& shape_map() const noexcept { return *map_; }
  const design::WingThickness& thickness_stations() const noexcept { return stations_; }
  /// The thickness at every station for design a (exact: linear in a).
  std::vector<double> thickness(const std::vector<double>& a) const {
    return stations_.thickness(T_, a);
  }
  /// The lowest ratio t(a) / t0 over the stations.
  double thickness_ratio(const std::vector<double>& a) const;

  /// ShapeDesign::run, with the stations' thickness of the baseline and
  /// the best design. Collective.
  WingDesignResult run(const Report& report = {}, bool restart = false);

 private:
  class Geometry;
  WingDesignSettings settings_;
  design::FfdVolumeBox box_;
  design::WingTwistAxis twist_axis_;
  std::shared_ptr<const design::LinearMap> map_;
  design::WingThickness stations_;
  std::vector<std::vector<double>> T_;  // dt_s / da_k
};

}  // namespace camber::solvers::aero
