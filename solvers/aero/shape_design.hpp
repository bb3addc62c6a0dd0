/// @file
/// Aerodynamic shape optimization as a library problem, whatever moves the
/// mesh: the converged Euler flow and its discrete adjoint at one or more
/// operating points (euler::SteadyFlow), the force coefficients as
/// objective and constraints, the lift held in one of four ways, the
/// geometry's own constraints, an NLopt optimizer (opt::Optimizer) over
/// them, warm starts from the nearest converged design, and a checkpoint
/// after every design with a restart that reaches the uninterrupted run's
/// design. What moves the mesh and what the geometry must keep is a
/// DesignGeometry: AirfoilDesign (a wall parametrization and a volume
/// deformation of a 2-D mesh, airfoil_design.hpp) and WingDesign (an FFD
/// box around a 3-D wing, wing_design.hpp) are this class with theirs.
///
/// Every evaluation is one flow solve per operating point (warm-started
/// from the flow of the converged design nearest to it, in the
/// optimizer's scaled variables: a line search that backs off a rejected
/// trial starts from the design it came from; SteadyFlowSettings::
/// warm_max_iterations bounds a warm start before the design is solved
/// cold) and one adjoint solve per gradient (the objective's, CL's when
/// the lift is held, CM's when it is bounded). A design that inverts a
/// cell, or whose flow or adjoint does not converge, is reported to the
/// optimizer as failed (opt::EvaluationFailed: it cuts the step back) and
/// never accepted. With a live limiter (venkatakrishnan_wang,
/// venkatakrishnan_smooth) the function evaluated is the one the adjoint
/// differentiates; with the classic limiter each solve freezes it on its
/// own path (see euler::SteadyFlow).
///
/// Limits: the far field is held fixed (no point-vortex correction); each
/// flow solve builds its discretization's PETSc structures anew.
#pragma once

#include <mpi.h>

#include <array>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <camber/autodiff/variable.hpp>
#include <camber/core/enum_names.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/optimization/trust_region.hpp>
#include <camber/solvers/euler/steady_flow.hpp>

namespace camber::solvers::aero {

enum class Coefficient : int { cl = 0, cd = 1, cm = 2 };
/// The coefficients' names (the deck's optimizer.objective values), the
/// default objective first.
inline constexpr std::array<EnumName<Coefficient>, 3> coefficient_names{
    {{Coefficient::cd, "cd"}, {Coefficient::cl, "cl"}, {Coefficient::cm, "cm"}}};

/// How a design holds its lift.
///  - none: CL is free;
///  - at_least: CL >= the target (one more adjoint solve per design);
///  - equal: CL = the target, the angle of attack a design variable (the
///    last one, in degrees) that the optimizer trims; its derivatives come
///    from the same adjoint solves (euler::SteadyFlow with alpha);
///  - fixed: CL = the target in every evaluation: each design's flow is
///    trimmed to it by secant steps on alpha (one tangent solve,
///    euler::SteadyFlow::alpha_tangent, at the trimmed state, whose
///    linearization the gradient's adjoint reuses), so the optimizer sees the drag at
///    that lift and no lift constraint. The objective's gradient is its
///    derivative at constant lift, dJ/da - (J_alpha / CL_alpha) dCL/da: one
///    adjoint solve of that combination (the same for a moment bound).
enum class LiftConstraint : int { none = 0, at_least = 1, equal = 2, fixed = 3 };
/// The lift constraints' names (the deck's optimizer.lift values, whose
/// `_baseline` forms take the baseline's CL as the target), the default
/// first.
inline constexpr std::array<EnumName<LiftConstraint>, 4> lift_constraint_names{
    {{LiftConstraint::none, "free"},
     {LiftConstraint::at_least, "at_least"},
     {LiftConstraint::equal, "equal"},
     {LiftConstraint::fixed, "fixed"}}};

/// One operating point of a multi-point design.
struct OperatingPoint {
  double mach = 0.0;
  double alpha_deg = 0.0;  ///< the start when the lift is held equal (alpha trimmed)
  double weight = 1.0;     ///< > 0
};

/// SLSQP, 30 evaluations, relative tolerances 1e-6 on the objective and
/// the design and 1e-6 on the scaled constraints: what a design starts
/// with (ShapeDesignSettings::optimizer).
opt::Options design_optimizer_options();

struct ShapeDesignSettings {
  euler::SteadyFlowSettings flow;  ///< the flow solved at every design
  /// Several operating points (a multi-point design), replacing flow.flow's
  /// Mach number and angle of attack: the objective is the weighted mean
  /// sum_i w_i C_i / sum_i w_i of the objective coefficient over the points,
  /// and the lift and moment constraints hold at each point (with lift
  /// `equal`, each point trims its own alpha). Empty: the one point of
  /// flow.flow.
  std::vector<OperatingPoint> points;
  Coefficient objective = Coefficient::cd;  ///< minimized
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
  /// |a_k| <= bound for every shape variable (the geometry's units).
  double bound = 0.01;
  /// > 0: the thickness at each of the geometry's thickness stations stays
  /// at least this fraction of the baseline's (AirfoilDesign: 49 chord
  /// stations; WingDesign: thickness_etas x thickness_chord_fractions). 0:
  /// no such constraint.
  double thickness_fraction = 1.0;
  /// The optimizer (algorithm, max_evaluations, ftol_rel, ...); run() sets
  /// the scales: x by bound (alpha by one degree), the objective and the
  /// lift by their baseline values, the geometry's constraints by bound.
  /// The defaults (design_optimizer_options()) are a design deck's: SLSQP,
  /// 30 evaluations, tolerances 1e-6 (NLopt's own are opt::Options{}).
  opt::Options optimizer = design_optimizer_options();
  /// Non-empty: a path prefix P; checkpoint after every design to
  /// P.history and P_state_K.h5 (the flow of design K, kept for every K:
  /// a restart warm-starts from them as the uninterrupted run does;
  /// P_state_K_pointI.h5 for the points I > 0), and the baseline's
  /// coefficients to P_baseline.txt.
  std::string checkpoint;
  /// Non-empty: the shape variables of the first design evaluated (each
  /// within +-bound), e.g. the best design of a run on a coarser grid;
  /// empty: the undeformed shape. The baseline (the lift target, the
  /// optimizer's scales) is the undeformed shape either way.
  std::vector<double> start;
};

/// Told the member of ShapeDesignSettings ("start") and what is wrong;
/// must throw.
using ShapeDesignReject = std::function<void(const std::string& member, const std::string& what)>;
/// Checks s.start against a design of `n_design` shape variables: empty, or
/// n_design values, each within +-s.bound. `design_name` names what makes
/// the variables and `bound_name` the bound in the messages (a deck: its
/// section and key). The first fault goes to `reject`; ShapeDesign::run
/// makes the same check (bad_input).
void validate_design_start(const ShapeDesignSettings& s, index_t n_design, const ShapeDesignReject& reject,
                           const std::string& design_name = "the design",
                           const std::string& bound_name = "bound");

/// What moves the mesh and what the shape must keep.
class DesignGeometry {
 public:
  virtual ~DesignGeometry() = default;
  /// The shape variables a.
  virtual index_t n_shape() const = 0;
  /// a -> this rank's node rows of the deformed mesh, in the order of the
  /// first flow's node_rows() ({n_rows, dim}), as a graph node of a (the
  /// backward pass may be collective: every rank calls it alike).
  virtual ad::Var rank_rows(const ad::Var& a) const = 0;
  /// Throws camber::Error when the rows Xr fold a cell. Collective.
  virtual void check(const Tensor& Xr) const = 0;
  /// The geometric constraints g(a) <= 0 (a fixed number, scaled by the
  /// bound) and their gradients in a (n_shape() each). Collective.
  virtual int n_constraints() const = 0;
  virtual void constraints(const ad::Var& a, std::vector<double>& g,
                           std::vector<std::vector<double>>& dg) const = 0;
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

struct ShapeDesignResult {
  /// x: the best design (shape, then each point's alpha if trimmed);
  /// status, counts
  opt::Result optimizer;
  std::array<double, 3> baseline{}, final{};  ///< CL, CD, CM of the first point
  double baseline_alpha_deg = 0.0, final_alpha_deg = 0.0;  ///< of the first point
  /// Of every operating point.
  std::vector<std::array<double, 3>> baseline_points, final_points;
  double baseline_objective = 0.0;  ///< the weighted mean over the points
  std::vector<double> final_alpha_points;
  /// The best design's shape variables, and this rank's node rows of its
  /// mesh (the first flow's node_rows()).
  std::vector<double> final_shape;
  Tensor final_rows;
};

class ShapeDesign {
 public:
  /// Builds one flow per operating point from settings.flow with the
  /// point's Mach number and angle of attack. Collective.
  using FlowFactory =
      std::function<std::unique_ptr<euler::SteadyFlow>(const euler::SteadyFlowSettings&)>;
  virtual ~ShapeDesign();
  ShapeDesign(const ShapeDesign&) = delete;
  ShapeDesign& operator=(const ShapeDesign&) = delete;

  /// The shape variables.
  index_t n_design() const { return geometry().n_shape(); }
  /// The operating points (settings().points, or flow.flow's one point).
  int n_points() const noexcept { return static_cast<int>(points_.size()); }
  const std::vector<OperatingPoint>& points() const noexcept { return points_; }
  /// The optimizer's variables: the shape's, then each point's alpha when
  /// it is trimmed (LiftConstraint::equal).
  index_t n_variables() const {
    return n_design() + (trims_alpha() ? static_cast<index_t>(n_points()) : 0);
  }
  bool trims_alpha() const noexcept { return base_.lift == LiftConstraint::equal; }
  /// The lift held in every evaluation by a trim of alpha (LiftConstraint::fixed).
  bool fixes_lift() const noexcept { return base_.lift == LiftConstraint::fixed; }
  /// The CL held at a point (settings().lift_target, or the point's
  /// baseline CL). Collective on the first call (it may solve the baseline).
  double lift_target(int point = 0);
  const ShapeDesignSettings& design_settings() const noexcept { return base_; }
  /// The flow of an operating point (the last design solved there).
  euler::SteadyFlow& flow(int point = 0) { return *flows_.at(static_cast<size_t>(point)); }
  const DesignGeometry& geometry() const;

  /// CL, CD, CM of the undeformed design at a point, every point solved
  /// from the free stream on the first call. Collective.
  const std::array<double, 3>& baseline(int point = 0);

  /// The optimizer's problem over n_variables(): the objective, the
  /// constraints g <= 0 (the geometry's, then per point the lift when
  /// at_least and the moment) and h = 0 (lift when equal), values and
  /// gradients; last_costs() holds what the last live evaluation found.
  /// Collective.
  opt::Problem problem();
  /// design_settings().optimizer with the scales of this problem (see
  /// ShapeDesignSettings::optimizer).
  opt::Options options();
  const DesignCosts& last_costs() const noexcept { return costs_; }

  /// Called on every rank after each evaluation (live or replayed), after
  /// its checkpoint: the record and, for a live one that did not fail, its
  /// costs (else nullptr).
  using Report = std::function<void(const opt::Record&, const DesignCosts*)>;
  /// Minimizes; restart: continues from the checkpoint (replaying its
  /// history without flow solves). The result's coefficients are those the
  /// best design was evaluated with (solved again, warm, only when it came
  /// from a replayed history); every point's flow ends at the best
  /// design's. Collective.
  ShapeDesignResult run(const Report& report = {}, bool restart = false);
  /// The evaluations of the last run() (also while it runs).
  const opt::History& history() const;

  /// Surrogate-based optimization: run() minimizes with
  /// opt::TrustRegionOptimizer on `model` instead of NLopt on the flow. The
  /// subproblem's options are options.subproblem's (algorithm, evaluations,
  /// tolerances) with this problem's scales (options()); max_evaluations
  /// bounds the expensive evaluations (flow and adjoints). The Report gets
  /// one Record per expensive evaluation (best = the accepted design), and
  /// `hook`, when set, the trust region's own record with its costs. No
  /// checkpoints are written and run(restart = true) is refused. `model`
  /// must outlive run(); nullptr: NLopt again.
  using TrustRegionHook = std::function<void(const opt::TrustRegionRecord&, const DesignCosts*)>;
  void use_trust_region(opt::SurrogateModel* model, opt::TrustRegionOptions options,
                        TrustRegionHook hook = {});
  /// The last trust-region run's counts and times (after run()).
  const opt::TrustRegionResult& trust_region_result() const noexcept { return tr_result_; }

 protected:
  /// Builds the flows (bad_input for a point with a non-positive Mach
  /// number or weight). The derived class then attaches its geometry.
  ShapeDesign(MPI_Comm comm, ShapeDesignSettings settings, const FlowFactory& make_flow);
  void attach(std::unique_ptr<DesignGeometry> geometry);
  MPI_Comm comm() const noexcept { return comm_; }

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
  /// The constraints g <= 0: the geometry's, then per point lift and moment.
  int n_inequality() const;
  /// LiftConstraint::fixed: point i's coefficients at node rows X with
  /// alpha trimmed to CL = target (secant steps from alpha_[i], the first
  /// with the nearest converged design's lift slope, a secant below a
  /// quarter of it replaced by it, kept inside the bracket of the target
  /// once there is one; alpha_[i] ends at the trimmed angle), and their
  /// derivatives in alpha there (one tangent solve, at the trimmed state).
  /// Throws camber::Error when the trim fails.
  ad::Var trimmed(int i, const ad::Var& X, double target, std::array<double, 3>& d_alpha,
                  DesignCosts& costs);

  MPI_Comm comm_;
  ShapeDesignSettings base_;
  std::unique_ptr<DesignGeometry> geometry_;
  std::vector<OperatingPoint> points_;
  std::vector<double> weights_;  // of the points, summing to 1
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
  opt::SurrogateModel* surrogate_ = nullptr;
  opt::TrustRegionOptions tr_options_;
  TrustRegionHook tr_hook_;
  std::unique_ptr<opt::TrustRegionOptimizer> tr_;
  opt::TrustRegionResult tr_result_;
};

}  // namespace camber::solvers::aero
