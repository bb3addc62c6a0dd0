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
/// Every evaluation is one flow solve (warm-started from the flow of the
/// converged design nearest to it, in the optimizer's scaled variables: a
/// line search that backs off a rejected trial starts from the design it
/// came from; SteadyFlowSettings::warm_max_iterations bounds a warm start
/// before the design is solved cold) and one adjoint solve per gradient
/// (the objective's, CL's when the lift is held, CM's when it is bounded).
/// With the lift held equal to a target the angle of attack is a design
/// variable: the optimizer trims it, and the drag it minimizes is the
/// drag at that lift. Several operating points (AirfoilDesignSettings::
/// points) make a multi-point design: one SteadyFlow per point (each with
/// its own warm start), the weighted mean of the objective, the lift and
/// moment constraints at every point, each point's alpha trimmed. A design that
/// inverts a cell, or whose flow or adjoint does not converge, is reported
/// to the optimizer as failed (opt::EvaluationFailed: it cuts the step
/// back) and never accepted. With a live limiter (venkatakrishnan_wang,
/// venkatakrishnan_smooth) the function evaluated is the one the adjoint
/// differentiates; with the classic limiter each solve freezes it on its
/// own path (see euler::SteadyFlow).
///
/// With the lift fixed (LiftConstraint::fixed) every evaluation trims each
/// point's alpha to the lift target before it returns, so every design the
/// optimizer sees has the target lift (to AirfoilDesignSettings::
/// trim_tolerance) and the optimizer has no lift constraint to meet (no
/// zig-zag between trial steps that lose lift and steps that recover it).
///
/// Limits: 2-D, one airfoil element; the far field is held fixed (no
/// point-vortex correction); every rank holds the global mesh and the
/// global shape gradient; the partition, distribution and halo exchange
/// are built once per operating point, but each flow solve builds its
/// discretization, Jacobian colourings and PETSc structures anew.
#pragma once

#include <mpi.h>

#include <array>
#include <limits>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <camber/design/airfoil_section.hpp>
#include <camber/design/airfoil_wall.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/solvers/euler/steady_flow.hpp>

namespace camber::solvers::aero {

enum class Coefficient : int { cl = 0, cd = 1, cm = 2 };

/// How a design holds its lift.
///  - none: CL is free;
///  - at_least: CL >= the target (one more adjoint solve per design);
///  - equal: CL = the target, the angle of attack a design variable (the
///    last one, in degrees) that the optimizer trims; its derivatives come
///    from the same adjoint solves (euler::SteadyFlow with alpha);
///  - fixed: CL = the target in every evaluation: each design's flow is
///    trimmed to it by Newton on alpha (one tangent solve per step,
///    euler::SteadyFlow::alpha_tangent), so the optimizer sees the drag at
///    that lift and no lift constraint. The objective's gradient is its
///    derivative at constant lift, dJ/da - (J_alpha / CL_alpha) dCL/da: one
///    adjoint solve of that combination (the same for a moment bound).
enum class LiftConstraint : int { none = 0, at_least = 1, equal = 2, fixed = 3 };

/// One operating point of a multi-point design.
struct OperatingPoint {
  double mach = 0.0;
  double alpha_deg = 0.0;  ///< the start when the lift is held equal (alpha trimmed)
  double weight = 1.0;     ///< > 0
};

struct AirfoilDesignSettings {
  euler::SteadyFlowSettings flow;  ///< the flow solved at every design
  /// Several operating points (a multi-point design), replacing flow.flow's
  /// Mach number and angle of attack: the objective is the weighted mean
  /// sum_i w_i C_i / sum_i w_i of the objective coefficient over the points,
  /// and the lift and moment constraints hold at each point (with lift
  /// `equal`, each point trims its own alpha). Empty: the one point of
  /// flow.flow.
  std::vector<OperatingPoint> points;
  std::string wall = "airfoil";    ///< the wall marker the parametrization moves
  design::DeformationOptions deformation;
  Coefficient objective = Coefficient::cd;  ///< minimized
  /// > 0: t(x_s) >= fraction * t0(x_s) at the 49 thickness stations.
  double thickness_fraction = 0.0;
  /// > 0: the largest thickness is at least this (chords).
  double max_thickness_min = 0.0;
  /// > 0: the section's area stays at least this fraction of the
  /// baseline's (design::section_area; exact gradient).
  double area_fraction = 0.0;
  /// > 0: the leading-edge radius (design::leading_edge_radius, probe
  /// 0.005 chords) stays at least this fraction of the baseline's (exact
  /// gradient).
  double le_radius_fraction = 0.0;
  LiftConstraint lift = LiftConstraint::none;
  /// The CL that `lift` holds at every point; NaN: each point's baseline
  /// CL.
  double lift_target = std::numeric_limits<double>::quiet_NaN();
  /// LiftConstraint::equal and fixed: each point's alpha stays within its
  /// start +- this (degrees); a fixed-lift trim that leaves it fails the
  /// design.
  double alpha_range_deg = 3.0;
  /// LiftConstraint::fixed: the trim stops at |CL - target| <= this, and
  /// fails the design after trim_max_solves flow solves. The optimizer
  /// sees each coefficient C at the target to first order, C + (C_alpha /
  /// CL_alpha) (target - CL): its error is of the order of this squared.
  double trim_tolerance = 1e-8;
  int trim_max_solves = 12;
  /// Finite: CM >= cm_min (a bound on the nose-down pitching moment; one
  /// more adjoint solve per design).
  double cm_min = -std::numeric_limits<double>::infinity();
  /// |a_k| <= bound for every shape variable.
  double bound = 0.004;
  /// The optimizer (algorithm, max_evaluations, ftol_rel, ...); run() sets
  /// the scales: x by bound (alpha by one degree), the objective and the
  /// lift by their baseline values, the thickness by bound.
  opt::Options optimizer;
  /// Non-empty: a path prefix P; checkpoint after every design to
  /// P.history and P_state_K.h5 (the flow of design K, kept for every K:
  /// a restart warm-starts from them as the uninterrupted run does;
  /// P_state_K_pointI.h5 for the points I > 0), and the baseline's
  /// coefficients to P_baseline.txt.
  std::string checkpoint;
};

/// What one live evaluation found and cost.
struct DesignCosts {
  std::array<double, 3> coefficients{};  ///< CL, CD, CM of the first point
  std::vector<std::array<double, 3>> point_coefficients;  ///< of every point
  std::vector<double> point_alpha_deg;  ///< the angle of attack of every point
  int trim_solves = 0;  ///< LiftConstraint::fixed: flow solves of the trims, summed
  int newton_iterations = 0;      ///< summed over the points
  bool cold_restart = false;  ///< a warm start was abandoned
  int adjoint_iterations = 0;
  double flow_seconds = 0.0, adjoint_seconds = 0.0, seconds = 0.0;
};

struct AirfoilDesignResult {
  /// x: the best design (shape, then each point's alpha if trimmed);
  /// status, counts
  opt::Result optimizer;
  std::array<double, 3> baseline{}, final{};  ///< CL, CD, CM of the first point
  double baseline_alpha_deg = 0.0, final_alpha_deg = 0.0;  ///< of the first point
  /// Of every operating point.
  std::vector<std::array<double, 3>> baseline_points, final_points;
  double baseline_objective = 0.0;  ///< the weighted mean over the points
  std::vector<double> final_alpha_points;
  double baseline_max_thickness = 0.0, final_max_thickness = 0.0;
  double baseline_area = 0.0, final_area = 0.0;
  double baseline_le_radius = 0.0, final_le_radius = 0.0;
  Tensor final_wall;         ///< (n_wall, 2)
  Tensor final_coordinates;  ///< (n_nodes, 2), the deformed mesh
};

class AirfoilDesign {
 public:
  /// `global`: the undeformed mesh, the same on every rank. Collective.
  /// bad_input for a wall marker the mesh lacks.
  AirfoilDesign(const mesh::Mesh& global, MPI_Comm comm,
                std::unique_ptr<design::ShapeParametrization> shape,
                AirfoilDesignSettings settings);

  /// The shape variables.
  index_t n_design() const noexcept { return shape_->n_design(); }
  /// The operating points (settings().points, or flow.flow's one point).
  int n_points() const noexcept { return static_cast<int>(points_.size()); }
  const std::vector<OperatingPoint>& points() const noexcept { return points_; }
  /// The optimizer's variables: the shape's, then each point's alpha when
  /// it is trimmed (LiftConstraint::equal).
  index_t n_variables() const noexcept {
    return n_design() + (trims_alpha() ? static_cast<index_t>(n_points()) : 0);
  }
  bool trims_alpha() const noexcept { return settings_.lift == LiftConstraint::equal; }
  /// The lift held in every evaluation by a trim of alpha (LiftConstraint::fixed).
  bool fixes_lift() const noexcept { return settings_.lift == LiftConstraint::fixed; }
  /// The CL held at a point (settings().lift_target, or the point's
  /// baseline CL). Collective on the first call (it may solve the baseline).
  double lift_target(int point = 0);
  const design::ShapeParametrization& shape() const noexcept { return *shape_; }
  const design::ThicknessStations& thickness_stations() const noexcept { return stations_; }
  const AirfoilDesignSettings& settings() const noexcept { return settings_; }
  /// The flow of an operating point (the last design solved there).
  euler::SteadyFlow& flow(int point = 0) { return *flows_.at(static_cast<size_t>(point)); }

  /// The thickness at every station for design a (exact: linear in a).
  std::vector<double> thickness(const std::vector<double>& a) const { return thickness_(a); }
  /// The deformed mesh's node coordinates (n_nodes, 2) for design a,
  /// gathered from the ranks' rows on every rank (O(global nodes): for
  /// output). Collective.
  Tensor coordinates(const std::vector<double>& a);

  /// CL, CD, CM of the undeformed design at a point, every point solved
  /// from the free stream on the first call. Collective.
  const std::array<double, 3>& baseline(int point = 0);

  /// The optimizer's problem over n_variables(): the objective, the
  /// constraints g <= 0 (thickness stations, largest thickness, lift when
  /// at_least, moment) and h = 0 (lift when equal), values and gradients;
  /// last_costs() holds what the last live evaluation found. Collective.
  opt::Problem problem();
  /// settings().optimizer with the scales of this problem (see
  /// AirfoilDesignSettings::optimizer).
  opt::Options options();
  const DesignCosts& last_costs() const noexcept { return costs_; }

  /// Called on every rank after each evaluation (live or replayed), after
  /// its checkpoint: the record and, for a live one that did not fail, its
  /// costs (else nullptr).
  using Report = std::function<void(const opt::Record&, const DesignCosts*)>;
  /// Minimizes; restart: continues from settings().checkpoint (replaying
  /// its history without flow solves). The result's coefficients are those
  /// the best design was evaluated with (solved again, warm, only when it
  /// came from a replayed history). Collective.
  AirfoilDesignResult run(const Report& report = {}, bool restart = false);
  /// The evaluations of the last run() (also while it runs).
  const opt::History& history() const;

 private:
  std::string state_path(std::size_t k, int point) const;
  /// The optimizer's scale of each variable: bound; one degree for alpha.
  std::vector<double> x_scale() const;
  /// x divided by x_scale().
  std::vector<double> scaled(const std::vector<double>& x) const;
  /// The objective: the weighted mean of the points' objective coefficient.
  double objective_mean(const std::vector<std::array<double, 3>>& coefficients) const;
  /// Keeps the flows just solved at design x as a warm start.
  void remember(const std::vector<double>& x);
  /// Sets every point's warm start to the flows of the converged design
  /// nearest to x (in scaled variables).
  void warm_start_nearest(const std::vector<double>& x);
  /// The constraints g <= 0: thickness stations, largest thickness, area,
  /// leading-edge radius, then per point lift and moment.
  int n_inequality() const;
  /// LiftConstraint::fixed: point i's coefficients at node coordinates X
  /// with alpha trimmed to CL = target (Newton from alpha_[i], the step
  /// taken with the nearest converged design's lift slope where the local
  /// one is below a quarter of it, and kept inside the bracket of the target once there
  /// is one; alpha_[i] ends at the trimmed angle), and their derivatives in
  /// alpha there.
  /// Throws camber::Error when the trim fails.
  ad::Var trimmed(int i, const ad::Var& X, double target, std::array<double, 3>& d_alpha,
                  DesignCosts& costs);

  mesh::Mesh global_;
  MPI_Comm comm_;
  std::unique_ptr<design::ShapeParametrization> shape_;
  AirfoilDesignSettings settings_;
  /// Design -> this rank's node rows (flow(0).node_rows()) of the deformed
  /// mesh: the shape's wall displacement (the same on every rank) through
  /// ad::grad_allreduce, then the deformation of the rows.
  ad::Var rank_coordinates(const ad::Var& a) const;

  std::unique_ptr<design::MeshDeformation> deformation_;
  design::ThicknessStations stations_;
  design::LinearThickness thickness_;
  std::vector<OperatingPoint> points_;
  std::vector<double> weights_;  // of the points, summing to 1
  double baseline_area_ = 0.0;
  double baseline_le_radius_ = 0.0;
  std::vector<std::unique_ptr<euler::SteadyFlow>> flows_;
  std::vector<double> alpha_;  // per point: the angle its flow was (or starts) solved at
  // Per point: the lift slope dCL/dalpha of the flow's design (the
  // reference of the next trim; 0: none yet).
  std::vector<double> cl_alpha_;
  struct Converged {
    std::vector<double> y;       // scaled design
    std::vector<Tensor> states;  // per point
    std::vector<double> alpha;   // per point
    std::vector<double> cl_alpha;  // per point
  };
  std::vector<Converged> converged_;
  bool have_baseline_ = false;
  std::vector<std::array<double, 3>> baseline_;
  DesignCosts costs_;
  std::unique_ptr<opt::Optimizer> optimizer_;
};

}  // namespace camber::solvers::aero
