/// @file
/// Aerodynamic shape optimization of an airfoil, as a library problem: a
/// parametrization of the wall (design/: Hicks-Henne, CST, FFD), the volume
/// mesh moved by inverse-distance weighting, the converged Euler flow and
/// its discrete adjoint (euler::SteadyFlow), the force coefficients as
/// objective and constraint, the thickness as exact linear constraints,
/// and an NLopt optimizer (opt::Optimizer) over them, with a checkpoint
/// after every design and a restart that reaches the uninterrupted run's
/// design. `camber optimize` is this class with a deck in front.
///
/// @code
///   namespace aero = camber::solvers::aero;
///   mesh::Mesh m = mesh::airfoil_ogrid(mesh::naca4("0012", true), 128, 40, 3e-3, 50.0);
///   aero::AirfoilDesignSettings s;
///   s.flow.flow.mach = 0.8;  s.flow.flow.alpha_deg = 1.25;
///   s.flow.conditions = {{"airfoil", euler::BoundaryKind::slip_wall},
///                        {"farfield", euler::BoundaryKind::far_field}};
///   s.flow.spatial.order = 2;
///   s.flow.spatial.limiter = euler::LimiterKind::venkatakrishnan_smooth;
///   s.objective = aero::Coefficient::cd;
///   s.thickness_fraction = 1.0;   // t >= t0 at every station
///   s.lift = aero::LiftConstraint::at_least;   // CL >= the baseline's
///   s.optimizer.max_evaluations = 20;
///   aero::AirfoilDesign design(m, comm,
///       std::make_unique<design::HicksHenne>(m, std::vector<std::string>{"airfoil"},
///                                            design::evenly_spaced_bumps(19)), s);
///   aero::AirfoilDesignResult r = design.run();   // collective
///   // r.baseline, r.final (CL, CD, CM), r.optimizer.x, r.final_coordinates
/// @endcode
///
/// The optimization itself (warm starts, the four ways of holding the lift,
/// operating points, checkpoints) is ShapeDesign's (shape_design.hpp); this
/// class adds the airfoil's geometry. With the lift held equal to a target the angle of attack is a design
/// variable: the optimizer trims it, and the drag it minimizes is the
/// drag at that lift. Several operating points (AirfoilDesignSettings::
/// points) make a multi-point design: one SteadyFlow per point (each with
/// its own warm start), the weighted mean of the objective, the lift and
/// moment constraints at every point, each point's alpha trimmed.
///
/// With the lift fixed (LiftConstraint::fixed) every evaluation trims each
/// point's alpha to the lift target before it returns, so every design the
/// optimizer sees has the target lift (to AirfoilDesignSettings::
/// trim_tolerance) and the optimizer has no lift constraint to meet (no
/// zig-zag between trial steps that lose lift and steps that recover it).
///
/// The mesh may come distributed (read in parallel, DistributedMesh::read):
/// then no rank holds the global mesh. Each rank holds its node rows, the
/// wall and the other boundary nodes (design::DesignBoundary, gathered:
/// O(boundary)), and its rows of the deformation map; the shape gradient
/// is summed over ranks only at the design variables.
///
/// Limits: 2-D, one airfoil element; the far field is held fixed (no
/// point-vortex correction); the partition, distribution and halo exchange
/// are built once per operating point, but each flow solve builds its
/// discretization, Jacobian colourings and PETSc structures anew.
#pragma once

#include <mpi.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <camber/design/airfoil_section.hpp>
#include <camber/design/airfoil_wall.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/solvers/aero/shape_design.hpp>

namespace camber::solvers::aero {

struct AirfoilDesignSettings : ShapeDesignSettings {
  std::string wall = "airfoil";    ///< the wall marker the parametrization moves
  design::DeformationOptions deformation;
  /// > 0: the largest thickness is at least this (chords).
  double max_thickness_min = 0.0;
  /// > 0: the section's area stays at least this fraction of the
  /// baseline's (design::section_area; exact gradient).
  double area_fraction = 0.0;
  /// > 0: the leading-edge radius (design::leading_edge_radius, probe
  /// 0.005 chords) stays at least this fraction of the baseline's (exact
  /// gradient).
  double le_radius_fraction = 0.0;
};

/// One sample of the design space (AirfoilDesign::sample): the values of
/// CL, CD, CM and the largest thickness at (a, mach, alpha) and their
/// derivatives with respect to every input.
struct DesignSample {
  std::array<double, 4> values{};  ///< CL, CD, CM, max thickness (chords)
  /// d values[m] / d (a_0 .. a_{n-1}, mach, alpha_deg): 4 rows of n + 2;
  /// alpha per degree.
  std::array<std::vector<double>, 4> gradients;
  int newton_iterations = 0, adjoint_iterations = 0;
  double flow_seconds = 0.0, adjoint_seconds = 0.0;
};

struct AirfoilDesignResult : ShapeDesignResult {
  double baseline_max_thickness = 0.0, final_max_thickness = 0.0;
  double baseline_area = 0.0, final_area = 0.0;
  double baseline_le_radius = 0.0, final_le_radius = 0.0;
  Tensor final_wall;  ///< (n_wall, 2)
};

class AirfoilDesign : public ShapeDesign {
 public:
  /// `dm`: the undeformed 2-D mesh, distributed; `shape` built on its wall
  /// (design::AirfoilWall(design::design_boundary(dm, {wall}))). Collective.
  /// bad_input for a wall marker the mesh lacks.
  AirfoilDesign(mesh::DistributedMesh dm, std::unique_ptr<design::ShapeParametrization> shape,
                AirfoilDesignSettings settings);
  /// `global`: the undeformed mesh, the same on every rank (e.g.
  /// generated), distributed over `comm` first.
  AirfoilDesign(const mesh::Mesh& global, MPI_Comm comm,
                std::unique_ptr<design::ShapeParametrization> shape,
                AirfoilDesignSettings settings);
  ~AirfoilDesign() override;

  const design::ShapeParametrization& shape() const noexcept { return *shape_; }
  const design::ThicknessStations& thickness_stations() const noexcept { return stations_; }
  const AirfoilDesignSettings& settings() const noexcept { return settings_; }

  /// The thickness at every station for design a (exact: linear in a).
  std::vector<double> thickness(const std::vector<double>& a) const { return thickness_(a); }
  /// The deformed mesh for design a, distributed as the flow's (each rank
  /// its local nodes moved): for output, e.g. mesh::write_su2. Collective.
  mesh::DistributedMesh mesh_at(const std::vector<double>& a);

  /// The flow at shape a, free-stream Mach number `mach` and angle of
  /// attack `alpha_deg` (the first operating point's flow, warm-started
  /// from its last solve), and the gradients of CL, CD and CM by one
  /// adjoint solve each, over the shape, the Mach number and alpha at once
  /// (euler::SteadyFlow with (alpha, mach) as inputs); the largest
  /// thickness and its gradient exactly (linear in a, at the station that
  /// holds it). Collective; throws camber::Error when the flow or an
  /// adjoint does not converge or a cell folds.
  DesignSample sample(const std::vector<double>& a, double mach, double alpha_deg);

  /// ShapeDesign::run, with the airfoil's measures of the baseline and
  /// the best design. Collective.
  AirfoilDesignResult run(const Report& report = {}, bool restart = false);

 private:
  class Geometry;
  std::unique_ptr<design::ShapeParametrization> shape_;
  AirfoilDesignSettings settings_;
  design::ThicknessStations stations_;
  design::LinearThickness thickness_;
  const Geometry* airfoil_ = nullptr;  // owned by ShapeDesign
};

}  // namespace camber::solvers::aero
