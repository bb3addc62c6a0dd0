/// @file
/// The converged steady Euler flow as one differentiable op of the mesh's
/// node coordinates: X -> (CL, CD, CM).
///
/// Forward: the mesh with node coordinates X is distributed (the partition,
/// distribution and halo exchange of the undeformed mesh, built once: the
/// cell graph does not change; only the local node coordinates move), the
/// flow is solved to convergence (solve_steady; warm-started from the last
/// converged state), and the force coefficients are returned. The classic
/// limiter (LimiterKind::venkatakrishnan) is frozen on the way
/// (steady.freeze_limiter_drop, 1e-3 unless set), so its solution is a root
/// of the frozen-limiter residual; Wang's and the smooth limiter
/// (venkatakrishnan_wang, venkatakrishnan_smooth) stay live unless
/// steady.freeze_limiter_drop is set, so the flow differentiated is the
/// flow evaluated. Reverse (VJP): one adjoint solve for the cotangent's weighted
/// sum of CL, CD, CM, then the shape derivative (Adjoint, ShapeDerivative):
/// no tape through the Newton iterations. Forward mode (JVP): one tangent
/// solve per direction. So, composed with a parametrization and a mesh
/// deformation (design/),
///
/// @code
///   euler::SteadyFlow flow(global_mesh, comm, settings);
///   auto f = [&](const ad::Var& a) {
///     ad::Var X = design::deformed_coordinates(bumps, idw, a);   // {n_nodes, 2}
///     return ad::slice(flow.coefficients(X), 0, 1, 2);            // CD
///   };
///   auto [cd, dcd_da] = ad::value_and_grad(f, ad::variable(a0));   // one adjoint solve
/// @endcode
///
/// The derivatives are those of the discrete residual at the converged
/// state (with the limiter frozen where the solve froze it): exact to the
/// solve tolerances (tests/regression/
/// test_shape_gradient_mpi.cpp checks them against finite differences of
/// converged solutions). They are first derivatives (constants in the
/// graph): differentiating them again throws.
///
/// Built from a distributed mesh (2-D or 3-D, e.g. read in parallel) only
/// the rank-row calls exist: each rank gives its rows' coordinates
/// (row_coordinates() are the undeformed ones, where a pointwise map such
/// as design::FfdVolume is evaluated) and no rank holds the global mesh.
///
/// Collective over the communicator: every rank calls coefficients() with
/// the same X (the global mesh is replicated). A distributed design loop
/// passes instead only this rank's node rows (rank_coefficients(): its
/// local nodes, node_rows()) and gets back this rank's share of dJ/dX there: no global
/// coordinates or gradient per design (design::MeshDeformation with the
/// same rows, and ad::grad_allreduce, sum the shares). A flow solve that does not
/// converge throws camber::Error (on every rank alike, nothing printed)
/// naming the residual drop; the previous converged state is kept as the
/// next warm start. A warm start that stalls may be retried cold
/// (SteadyFlowSettings::warm_max_iterations). Convergence is measured against the first (cold)
/// solve's initial residual, so a warm start near the solution stops at
/// once.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include <camber/autodiff/variable.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/shape_derivative.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::euler {

/// The flow problem solved at every X.
struct SteadyFlowSettings {
  FlowConditions flow;
  std::vector<BoundaryCondition> conditions;
  FluxScheme scheme = FluxScheme::roe;
  SpatialOptions spatial;  ///< order 2 for design work
  SteadyOptions steady;    ///< freeze_limiter_drop 1e-3 if 0 (classic limiter, order 2)
  /// Its linear_solver is the steady solver's (steady.linear_solver): a
  /// flow solved on the device path is differentiated there too.
  AdjointOptions adjoint;
  /// How the shape derivative's node-coordinate partials are evaluated
  /// (ShapeDerivative): a reverse sweep per objective (the default), or the
  /// node colouring (its test oracle; its rank rows include further nodes).
  ShapeMethod shape_method = ShapeMethod::reverse;
  /// > 0: the first CFL number of a warm-started solve (a neighbouring
  /// design's converged flow is a good start; the cold start's cfl_start
  /// would spend steps ramping up). 0: steady.cfl_start.
  double warm_cfl_start = 1000.0;
  /// > 0: a warm-started solve that has not converged after this many
  /// Newton steps (or stops without an admissible step) is abandoned, and
  /// the design is solved again from the free stream as the first solve
  /// was (first-order start, steady.cfl_start, steady.max_iterations). A
  /// neighbouring design's flow is usually a good start, but not always: on
  /// the README's optimization with lift held, the warm start of its
  /// second design stalled at 4e-3 of the reference (200 steps) where the
  /// cold start converged in 77. 0: no retry (steady.max_iterations warm).
  int warm_max_iterations = 50;
  /// Called after every Newton step of every flow solve (progress output).
  SteadyMonitor monitor;
};

/// What the last forward solve and the last derivative cost.
struct SteadyFlowReport {
  bool converged = false;
  int newton_iterations = 0;  ///< of every attempt (warm, then cold)
  int linear_iterations = 0;
  bool cold_restart = false;  ///< the warm start was abandoned (warm_max_iterations)
  double residual_drop = 0.0;  ///< final / initial density residual
  double solve_seconds = 0.0;
  int adjoint_iterations = 0;  ///< of the last VJP (or JVP)
  double adjoint_seconds = 0.0;
  Forces forces;
};

class SteadyFlow {
 public:
  /// `global`: the undeformed 2-D mesh (the same on every rank); its node
  /// numbering is X's. Collective.
  SteadyFlow(const mesh::Mesh& global, MPI_Comm comm, SteadyFlowSettings settings);
  /// The undeformed mesh already distributed (read in parallel; 2-D or
  /// 3-D): no rank holds the global mesh, so only the rank-row calls
  /// (node_rows, row_coordinates, rank_coefficients) are available, not
  /// the global-X ones (coefficients(X), rows_of, global_of). Collective.
  SteadyFlow(mesh::DistributedMesh undeformed, SteadyFlowSettings settings);
  ~SteadyFlow();
  SteadyFlow(const SteadyFlow&) = delete;
  SteadyFlow& operator=(const SteadyFlow&) = delete;

  /// (CL, CD, CM), shape {3}, of the converged flow at node coordinates X
  /// ({n_nodes, 2}); differentiable with respect to X (VJP: adjoint; JVP:
  /// tangent). Collective.
  ad::Var coefficients(const ad::Var& X);
  /// The same, values only.
  Tensor coefficients(const Tensor& X);
  /// (CL, CD, CM) at node coordinates X and angle of attack alpha_deg
  /// (degrees, shape {1}; settings().flow.alpha_deg is ignored): both
  /// differentiable. The VJP adds dJ/dalpha = dJ/dalpha|_U -
  /// psi^T dR/dalpha|_U to the shape derivative's adjoint solve (no second
  /// solve; Adjoint::alpha_derivative); the JVP adds -dR/dalpha dalpha to
  /// the tangent's right side. This is how a design loop trims the angle of
  /// attack to hold a lift target. Collective.
  ///
  /// `alpha_deg` may also hold two values, (alpha_deg, mach): then the
  /// free-stream Mach number is an input too (settings().flow.mach is
  /// ignored), with dJ/dM = -2 J / M - psi^T dR/dM|_U from the same adjoint
  /// solve (Adjoint::mach_derivative).
  ad::Var coefficients(const ad::Var& X, const ad::Var& alpha_deg);
  Tensor coefficients(const Tensor& X, double alpha_deg);

  /// The global ids of this rank's node rows: its local nodes (the
  /// DistributedMesh's order), then with ShapeMethod::colouring the further
  /// nodes on which its owned cells' residuals depend (sorted). Collective on the first call (it
  /// builds the shape derivative's pattern, once per flow).
  const std::vector<std::int64_t>& node_rows();
  /// The undeformed coordinates of node_rows(), {n_rows, dim}: where a
  /// pointwise design map (design::FfdVolume) is evaluated. Collective on
  /// the first call.
  const Tensor& row_coordinates();
  /// coefficients() from this rank's rows of X only, Xr {node_rows().size(),
  /// dim} (a node held by several ranks at the same place on each). The VJP
  /// returns this rank's share of dJ/dX at its rows (the shares of all
  /// ranks sum to dJ/dX); the JVP takes the tangent at the rows. Collective.
  ad::Var rank_coefficients(const ad::Var& Xr);
  ad::Var rank_coefficients(const ad::Var& Xr, const ad::Var& alpha_deg);
  Tensor rank_coefficients(const Tensor& Xr, double alpha_deg);
  /// X's rows at node_rows() ({n_nodes, 2} -> {n_rows, 2}).
  Tensor rows_of(const Tensor& X);
  /// The sum over ranks of a share at node_rows() as a global {n_nodes, 2}
  /// array on every rank (O(global nodes): for output). Collective.
  Tensor global_of(const Tensor& share);

  /// d(CL, CD, CM)/dalpha per degree at the last converged state, the
  /// node coordinates held: one tangent solve (dR/dU) dU = -dR/dalpha. What
  /// a fixed-lift trim needs (Newton on alpha, and the drag's derivative at
  /// constant lift: dCD/dX - (CD_alpha / CL_alpha) dCL/dX). Collective;
  /// throws like a derivative when the linear solve fails.
  std::array<double, 3> alpha_tangent();

  const SteadyFlowReport& report() const noexcept { return report_; }
  /// The undeformed mesh distributed over the communicator: partitioned
  /// once (on the first call; collective then), and every solve moves a
  /// copy of it to its X (DistributedMesh::with_coordinates) instead of
  /// partitioning again.
  const mesh::DistributedMesh& distributed_mesh();
  /// The last converged state ({n_local, n_vars}) and the discretization it
  /// solves (deformed mesh, frozen limiter): for output.
  const Tensor& state() const;
  const Discretization& discretization() const;
  /// Sets the warm start of the next solve (e.g. from a checkpoint), shape
  /// {n_local, n_vars} of the undeformed mesh's distribution.
  void set_state(const Tensor& U);

  /// The adjoint solutions and shape gradients computed (by VJPs) at the
  /// last converged state, in order: J = weights . G (the pitch-plane
  /// load, Adjoint), psi ({n_local, n_vars}), this rank's share of dJ/dX at
  /// node_rows() ({n_rows, dim}; global_of() sums it). For output
  /// (ParaView).
  struct Sensitivity {
    std::array<double, 3> weights;
    Tensor psi;
    Tensor dX_share;
  };
  const std::vector<Sensitivity>& sensitivities() const;

  struct Linearization;  ///< one converged solve (mesh, discretization, state)
  /// What every design's solve, adjoint and shape derivative share: the
  /// colourings and the Jacobian's preallocation, built once from the
  /// undeformed mesh (collective on the first call).
  struct Patterns {
    std::shared_ptr<const ShapeDerivative::Pattern> shape;
    std::shared_ptr<const ExactJacobian::Pattern> jacobian;
  };

 private:
  /// Solves at node rows Xr (node_rows()); mach <= 0: settings().flow's.
  std::shared_ptr<Linearization> solve(const Tensor& Xr, double alpha_deg, double mach = 0.0);
  ad::Var differentiable(const ad::Vars& inputs, bool rank_rows);
  const Patterns& patterns();
  /// The forward derivative of (CL, CD, CM) at l along node tangent V
  /// (none: zero), angle tangent da (degrees) and Mach tangent dm.
  std::array<double, 3> tangent(Linearization& l, const Tensor* V, double da, double dm = 0.0);

  // Throws unless the flow was built from a global mesh.
  void require_global(const char* what) const;

  mesh::Mesh global_;  // empty when built from a distributed mesh
  MPI_Comm comm_;
  int dim_ = 2;
  Tensor row_coordinates_;
  std::unique_ptr<mesh::DistributedMesh> distributed_;
  Patterns patterns_;
  SteadyFlowSettings settings_;
  Tensor warm_start_;
  double reference_residual_ = 0.0;  // the cold start's initial density residual
  std::shared_ptr<Linearization> last_;
  SteadyFlowReport report_;
};

}  // namespace camber::solvers::euler
