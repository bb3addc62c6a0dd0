/// @file
/// Steady Euler solutions by Newton's method with pseudo-transient
/// continuation (PTC), on PETSc.
///
/// Each step solves
///
///   (diag(lambda_i / CFL) + dR/dU) dU = -R(U),      U <- U + alpha dU,
///
/// where lambda_i is cell i's convective spectral radius (so lambda_i / CFL =
/// V_i / dt_i, a local time step) and dR/dU is, at first order, the exact
/// Jacobian of the residual, assembled from the Dual face blocks of the
/// first-order fluxes into a PETSc block (BAIJ, 4x4 in 2-D, 5x5 in 3-D)
/// matrix. As
/// the residual falls the CFL number grows by the same factor (switched
/// evolution relaxation, at most cfl_growth per step; a step that raised the
/// residual multiplies it by cfl_plateau_growth (1: holds it), and one that
/// more than doubled it by cfl_cut), so the iteration turns into
/// Newton's method and converges quadratically. alpha < 1 only where the full
/// step would make a density or pressure negative (halved until it does
/// not); a step that needs alpha below 1/64 is rejected, the CFL number cut
/// by 10 and the step retried.
///
/// Second order (Discretization::spatial().order == 2): the Krylov operator
/// is the exact Newton matrix diag(lambda_i / CFL) + dR/dU of the second-
/// order residual, assembled every step by the chain rule through each
/// cell's reconstruction (ExactJacobian::assemble; SteadyOptions::
/// newton_operator = assembled, the default in 2-D) and its own preconditioner
/// (block Jacobi, ILU(1) in RCM order), or applied matrix-free through
/// Discretization::residual_and_tangent (matrix_free: a PETSc MatShell, one
/// Dual residual evaluation per product; the default in 3-D). The matrix-free operator is
/// preconditioned by the first-order matrix (preconditioner = first_order),
/// or by the assembled second-order matrix, built every jacobian_refresh
/// (5) steps and kept with its ILU factors in between (second_order).
/// Either operator is exact, with no finite-difference step; a lagged
/// preconditioner costs Krylov iterations, not Newton's convergence.
/// SteadyOptions::defect_correction = true uses the first-
/// order matrix as the operator too: cheaper steps, linear convergence, and
/// only at moderate CFL numbers (defect_correction_cfl_max). The limited
/// scheme needs more care than the first-order one, so at order 2 (and
/// only there):
///  - the solve starts with first-order steps until that residual has fallen
///    by first_order_drop (1e-3; cheap, and it puts the shock near its
///    place), then switches to second order, the CFL number starting again
///    at cfl_start (or at second_order_cfl_start);
///  - the CFL number grows by at most second_order_cfl_growth (4) per step;
///    a step whose linear solve did not converge multiplies it by cfl_cut,
///    and one damped to alpha < 1 by max(alpha, 0.1);
///  - alpha also keeps the change of density and pressure in every cell
///    within max_update (20 %);
///  - GMRES restarts after 200 iterations, not 60 (the first-order
///    preconditioner is weaker on the second-order operator);
///  - optionally (freeze_limiter_drop) the limiter is frozen once the
///    residual is small, which stops limiter cycling at the cost of solving
///    the frozen-limiter residual.
/// Limits: a limited scheme's discrete solution need not be unique, and
/// then the path (these options, the rank count through the block-Jacobi
/// preconditioner) picks one of several, each converged to round-off. With
/// Venkatakrishnan-Wang a small threshold (SpatialOptions::wang_epsilon)
/// allows several solutions and a larger one fewer; the classic limiter
/// behaves like a small threshold. A transonic case may need more than the
/// default max_iterations while its shock settles. What was measured
/// (solutions found per threshold and path, step counts on SU2's
/// QuickStart mesh): docs/performance.md, "Is the discrete solution
/// unique?" and "The steady solver's defaults".
///
/// The linear solver is GMRES with block-Jacobi (one block per rank): ILU(1)
/// of the first-order matrix, ILU(1) in RCM order of the assembled second-
/// order one (written into PETSc's options database unless the user gave
/// them), to a relative tolerance; `-PREFIXksp_*`,
/// `-PREFIXpc_*` and `-PREFIXsub_pc_*` options override it. With
/// SteadyOptions::factorization threaded the same ILU(1) runs on threads,
/// several blocks per rank. The matrix, the Krylov solver and its vectors are created
/// once and reused across steps; PETSc's vectors are placed over the
/// Tensors' own storage (no copies).
///
///   solvers::petsc::PetscSession petsc;
///   euler::Discretization disc(dm, flow, conditions);
///   Tensor U = disc.free_stream_field();
///   euler::SteadyResult r = euler::solve_steady(disc, U, {});
///   // r.converged, r.iterations, r.history (residuals, CFL, forces per step)
///
///   euler::SpatialOptions second;  second.order = 2;
///   euler::Discretization disc2(dm, flow, conditions, euler::FluxScheme::roe, second);
///   euler::SteadyOptions o;  o.max_iterations = 200;
///   euler::SteadyResult r2 = euler::solve_steady(disc2, U, o);  // first-order start inside
///
/// Far-field vortex (FlowConditions::far_field_vortex): every residual
/// evaluation first sets the far field's circulation from that state's own
/// CL (Discretization::set_far_field_lift), so the residual driven to zero
/// is the coupled one; the Newton matrix holds the circulation fixed, which
/// costs a few steps (docs/performance.md, "The far-field vortex").
///
/// Errors: a NaN residual, or a step rejected at the CFL floor, is a
/// camber::Error (failure) naming the cell and its coordinates; U keeps the
/// last good state.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/config.hpp>
#include <camber/core/enum_names.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::euler {

struct ExactJacobianPattern;  // exact_jacobian.hpp (built with PETSc)

struct SteadyOptions {
  int max_iterations = 100;
  double rel_tolerance = 1e-10;  // on the L2 norm of the density residual
  // > 0: the density residual rel_tolerance is relative to, instead of the
  // initial state's (a restart passes the first run's initial residual, so
  // that the two runs stop where one run would).
  double reference_residual = 0.0;
  // Converged also when the density residual is below this: a warm start
  // from a neighbouring design's flow begins near round-off, where the
  // relative drop cannot be met.
  double abs_tolerance = 1e-13;
  double cfl_start = 10.0;
  double cfl_max = 1e10;
  double cfl_growth = 10.0;  // largest factor per step (when the residual falls)
  double cfl_cut = 0.5;      // factor when the residual more than doubled
  // The factor after a full step (and, at second order, a converged linear
  // solve) that raised the residual by less than a factor 2: 1 holds the
  // CFL number. Above 1 the pseudo-time step keeps growing through a slow
  // transient whose residual drifts up (measured on the M6's p3 grid:
  // docs/performance.md, "The far field's switch, the tip cap and p3").
  double cfl_plateau_growth = 1.0;
  double linear_rel_tolerance = 1e-3;
  int linear_max_iterations = 200;
  // Second order only (Discretization::spatial().order == 2). false: the
  // Krylov operator is the exact Newton matrix, applied matrix-free (one Dual
  // residual evaluation per product), preconditioned by the first-order
  // matrix; quadratic convergence near the solution. true: defect correction,
  // the first-order matrix is the operator too; cheaper steps (no Dual
  // evaluations), linear convergence.
  bool defect_correction = false;
  // Second order, exact Newton operator (defect_correction false): how it
  // is applied. assembled: the exact second-order Jacobian plus the PTC
  // diagonal, assembled each step by the chain rule through each cell's
  // reconstruction (ExactJacobian::assemble, solvers/euler/
  // exact_jacobian.hpp), preconditions itself (block Jacobi with ILU(1) in
  // RCM order unless -PREFIXsub_pc_* options say otherwise). matrix_free:
  // each Krylov iteration costs one Dual<double, 1> residual evaluation and
  // the first-order matrix preconditions. GMRES is right-preconditioned
  // for the assembled operator (it stops on the true residual). On the 2-D
  // transonic NACA 0012 grids measured the assembled operator was the
  // faster; on 3-D tetrahedra (node-neighbour stencils: rows of ~100 or
  // more 5 x 5 blocks) its ILU(1) costs an order of magnitude more time
  // and several times the memory of matrix_free, to the same solution. On
  // Vassberg and Jameson's 512^2 grid it stalled with the second-order
  // ramp restarted at cfl_start and converged with second_order_cfl_start.
  // Figures: docs/performance.md, "The stencil-assembled Jacobian (4d01a7e)
  // and the defaults it brought", "Where the second-order phase starts"
  // and "The Newton operator on 3-D tetrahedra".
  // automatic (the default): matrix_free on 3-D meshes, assembled on 2-D.
  enum class NewtonOperator { automatic, assembled, matrix_free };
  NewtonOperator newton_operator = NewtonOperator::automatic;
  // The preconditioner of the matrix-free operator: the first-order matrix
  // with ILU(1) (first_order), or the assembled exact second-order matrix
  // with ILU(1) in RCM order (second_order), assembled every
  // jacobian_refresh steps and kept in between (its factors too), so that
  // the assembly's cost is shared by several steps while the operator
  // stays exact.
  enum class Preconditioner { first_order, second_order };
  // second_order was the faster on one rank where it was measured, but on
  // two ranks its block-Jacobi ILU of the lagged matrix did not converge
  // SU2's QuickStart case where first_order did (docs/performance.md, "The
  // steady solver's defaults").
  Preconditioner preconditioner = Preconditioner::first_order;
  int jacobian_refresh = 5;
  // The CFL ceiling of defect correction (the smaller of this and cfl_max):
  // at large CFL numbers the first-order operator no longer converges the
  // second-order residual, at small ones it converges slowly. NACA 0012 at
  // M = 0.5, steps to 1e-10: 64x32 ceiling 100: 283, 300: 97, 1000: stalls;
  // 128x64 ceiling 50: 1e-8 after 400, 100: 324, 300: stalls. (Matrix-free:
  // 33 and 40.) Transonic cases with a live limiter may not converge at all.
  double defect_correction_cfl_max = 100.0;
  // Second order only. > 0: start with first-order Newton steps (the same
  // iteration on disc.first_order()) until that residual has fallen by this
  // factor, then continue at second order from there; the steps count
  // towards max_iterations, rel_tolerance stays relative to the second-
  // order residual of the initial state. A transonic case started from the
  // free stream needs it: the limited second-order Newton iteration wanders
  // while the shock forms. 0: second order from the first step (also the
  // choice when U is already a second-order solution, e.g. a restart: the
  // first-order steps would move it away).
  double first_order_drop = 1e-3;
  // Order 2 after a first-order phase: > 0, the CFL number the second-
  // order phase starts at, at most the one the first-order phase ended at
  // (that state is converged to first_order_drop and close to the second-
  // order one: the shocks move a few cells) and at least cfl_start; the
  // steps it saves are in docs/performance.md, "Where the second-order
  // phase starts". 0 (the default): the ramp restarts at cfl_start. Not the default because on
  // coarse grids whose limited scheme has several solutions (the 48 x 24
  // O-grid of the shape-gradient tests) the faster path lands neighbouring
  // designs on different ones (docs/performance.md).
  double second_order_cfl_start = 0.0;
  // Second order: the largest CFL factor per step (the smaller of this and
  // cfl_growth). A slower ramp keeps the limited scheme's transient, while
  // the shock settles, closer to a time march. At second order, too, a step
  // damped to alpha < 1 multiplies the CFL number by max(alpha, 0.1), and
  // one whose linear solve did not converge by cfl_cut, instead of letting
  // it grow.
  double second_order_cfl_growth = 4.0;
  // Second order only. > 0: a step changes density and pressure by at most
  // this fraction in any cell (alpha scaled down to fit). 0: only
  // admissibility limits alpha, as at first order.
  double max_update = 0.2;
  // GMRES restart length; 0: 200 with the exact second-order operator
  // (matrix-free or assembled: GMRES(60) stagnates at large CFL numbers),
  // 60 otherwise.
  int krylov_restart = 0;
  // Second order with any limiter but none, when disc's limiter is not
  // frozen already. > 0: once the density residual has fallen by this
  // factor, the limiter is frozen at the current state for the rest of the
  // solve (the residual at that state is unchanged; from then on it is
  // smooth in U, so Newton converges without limiter cycling). The solution
  // is then a root of the frozen-limiter residual, and SteadyResult::limiter
  // holds that phi: disc.set_limiter(result.limiter) makes disc that
  // residual (what an adjoint needs). It differs from the live-limiter
  // solution by what phi would still have changed after the freeze (on the
  // QuickStart NACA 0012 at M = 0.8, frozen at 1e-5: 1e-8 to 1e-6 in CL), so
  // depends on the path (and the rank count) at that level. 0: the limiter
  // stays live.
  double freeze_limiter_drop = 0.0;
  // The incomplete factorization that preconditions GMRES (of the first-
  // order matrix, or of the assembled second-order one): ILU(1), natural
  // order for the first-order matrix, reverse Cuthill-McKee for the second-
  // order one, either way (-PREFIXsub_pc_factor_levels and
  // -PREFIXsub_pc_factor_mat_ordering_type change both). threaded:
  // camber's BlockIlu (solvers/petsc/block_ilu.hpp), each rank's rows cut
  // by a graph partition into ilu_blocks blocks that are factored and
  // applied at the same time on the host execution space's threads
  // (couplings between blocks dropped, as between ranks); with one block it
  // is PETSc's factor up to round-off. petsc: PETSc's block Jacobi, one
  // block per rank, on one thread. automatic (the default): threaded when
  // the host execution space has more than one thread, petsc otherwise (on
  // one thread the two were measured within 10% of each other either way:
  // QuickStart 1.10x faster threaded, the README's design loop 9% slower
  // per Newton step). PETSc runs also when its options ask for what
  // BlockIlu does not do (a -PREFIXsub_pc_type other than ilu, another
  // ordering); -PREFIXpc_type overrides both. QuickStart, one rank, 2
  // threads: 1.41x against PETSc's ILU on one thread (docs/backends.md,
  // "The threaded ILU").
  enum class Factorization { automatic, threaded, petsc };
  Factorization factorization = Factorization::automatic;
  // threaded (and linear_solver kokkos): blocks per rank; 0: one per
  // thread of the host execution space (kokkos: of the default execution
  // space, at least 16 rows each), so that the answer depends on the thread
  // count as block Jacobi's depends on the rank count. A fixed number gives
  // the same bits on any number of threads.
  int ilu_blocks = 0;
  // The linear solver of each step. petsc: PETSc's KSP as above. kokkos:
  // camber's own restarted GMRES on Kokkos views (solvers/linear, the same
  // algorithm and tolerances as PETSc's), preconditioned by ILU(1) of the
  // first-order matrix (assembled in place by one kernel) in ilu_blocks
  // graph-partitioned blocks per rank, each factored and applied by one
  // thread (0: one block per thread of the default execution space, at
  // least 16 rows each: on a GPU, many small blocks), the second-order
  // operator matrix-free whatever newton_operator's automatic choice
  // (assembled and the second_order preconditioner are refused): every
  // kernel runs where Kokkos runs, threads or a GPU, and no PETSc is
  // needed. With one block per rank it is PETSc's first-order
  // preconditioner (the same Krylov iterations); more blocks weaken it. The default is petsc in a build with
  // PETSc, kokkos (the only one there) in a build without.
  enum class LinearSolver { petsc, kokkos };
  LinearSolver linear_solver = CAMBER_WITH_PETSC ? LinearSolver::petsc : LinearSolver::kokkos;
  std::string options_prefix = "flow_";  // PETSc options: -flow_ksp_type ...
  // The assembled second-order Jacobian's colouring and preallocation,
  // when the caller has them already (ExactJacobian::pattern of a
  // discretization of the same distributed mesh and spatial options: a
  // shape optimization solves many designs of one connectivity). Null, or
  // one that does not fit: built here.
  std::shared_ptr<const ExactJacobianPattern> jacobian_pattern;
};

// The names of SteadyOptions' choices (the deck's solver.newton_operator,
// solver.preconditioner, solver.factorization and solver.linear_solver
// values), the default first.
inline constexpr std::array<EnumName<SteadyOptions::NewtonOperator>, 3> newton_operator_names{
    {{SteadyOptions::NewtonOperator::automatic, "auto"},
     {SteadyOptions::NewtonOperator::assembled, "assembled"},
     {SteadyOptions::NewtonOperator::matrix_free, "matrix_free"}}};
inline constexpr std::array<EnumName<SteadyOptions::Preconditioner>, 2> preconditioner_names{
    {{SteadyOptions::Preconditioner::first_order, "first_order"},
     {SteadyOptions::Preconditioner::second_order, "second_order"}}};
inline constexpr std::array<EnumName<SteadyOptions::Factorization>, 3> factorization_names{
    {{SteadyOptions::Factorization::automatic, "auto"},
     {SteadyOptions::Factorization::threaded, "threaded"},
     {SteadyOptions::Factorization::petsc, "petsc"}}};

inline constexpr std::array<EnumName<SteadyOptions::LinearSolver>, 2> linear_solver_names{
    {{SteadyOptions::LinearSolver::petsc, "petsc"},
     {SteadyOptions::LinearSolver::kokkos, "kokkos"}}};

// Whether `f` runs camber's threaded ILU (automatic: when the host
// execution space has more than one thread).
bool threaded_factorization(SteadyOptions::Factorization f);

struct IterationReport {
  int iteration = 0;
  double residual_density = 0.0;  // L2 over all cells and ranks
  double residual_all = 0.0;      // L2 of all four equations
  double cfl = 0.0;
  double step = 0.0;  // alpha
  int linear_iterations = 0;
  Forces forces;
  double seconds = 0.0;  // since the solve started
  int order = 1;         // spatial order of this step's residual
};

struct SteadyResult {
  bool converged = false;
  int iterations = 0;
  // Entry k: the state after k steps. With a first-order start the switch
  // to second order adds one entry with the same step number and the
  // second-order residual (IterationReport::order tells them apart).
  std::vector<IterationReport> history;
  Forces forces;
  int linear_iterations = 0;  // Krylov iterations, summed over the steps
  // SteadyOptions::freeze_limiter_drop: the step after which the limiter was
  // frozen (-1: never) and the frozen phi, shape {n_local, n_vars} (empty if
  // never).
  int limiter_frozen_at = -1;
  Tensor limiter;
  // The density residual rel_tolerance was relative to (what a restart
  // passes back as SteadyOptions::reference_residual).
  double reference_residual = 0.0;
};

// Called after every step (on every rank) with the step's report.
using SteadyMonitor = std::function<void(const IterationReport&)>;

// Drives U (shape {n_local, n_vars}, owned rows meaningful) to R(U) = 0.
// Collective; with linear_solver petsc, needs a live
// solvers::petsc::PetscSession.
SteadyResult solve_steady(const Discretization& disc, Tensor& U, const SteadyOptions& options,
                          const SteadyMonitor& monitor = nullptr);

}  // namespace camber::solvers::euler
