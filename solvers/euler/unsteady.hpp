/// @file
/// Time-accurate compressible Euler: explicit SSP-RK3 time stepping of the
/// finite-volume semi-discretization of solvers/euler/discretization.hpp.
///
/// Each owned cell i evolves by its net outward flux R_i(U) (the residual)
/// over its volume V_i,
///
/// @code
///   dU_i/dt = L_i(U) = -R_i(U) / V_i,
/// @endcode
///
/// integrated by the three-stage, third-order strong-stability-preserving
/// Runge-Kutta method of Shu and Osher (J. Comput. Phys. 77, 1988):
///
/// @code
///   U1      = U^n + dt L(U^n)
///   U2      = 3/4 U^n + 1/4 (U1 + dt L(U1))
///   U^{n+1} = 1/3 U^n + 2/3 (U2 + dt L(U2))
/// @endcode
///
/// Every stage is a convex combination of forward-Euler steps, so whatever
/// forward Euler keeps at a step size (positivity, no new extrema) SSP-RK3
/// keeps at the same step. The step is global (the same on every cell and
/// rank, as time accuracy requires):
///
/// @code
///   dt = CFL min_i V_i / lambda_i,   lambda_i = sum over faces f of i of (|u.n^| + c) |n_f|
/// @endcode
///
/// (Discretization::spectral_radius, the minimum taken over all ranks). The
/// first-order scheme is stable for CFL <= 1 by this measure, and positive
/// with HLLC (Einfeldt's speeds); Roe's flux can lose positivity in strong
/// expansions at any step. At second order with Venkatakrishnan's limiter
/// use CFL <= 0.5 or so. advance() shortens its last step so that it lands
/// exactly on t_end.
///
/// @code
///   namespace eu = camber::solvers::euler;
///   eu::Discretization disc(dm, flow, {{"left", eu::BoundaryKind::far_field}, ...});
///   camber::Tensor U = my_initial_state(disc);        // {n_local, 4}, conserved
///   eu::AdvanceSummary s = eu::advance(disc, U, 0.2, 0.9, [](const eu::TimeStepInfo& step,
///       const camber::Tensor&) { std::printf("t = %g\n", step.time); });
///   // U now holds the state at t = 0.2; s.n_steps steps were taken.
/// @endcode
///
/// Steady solutions want solvers/euler/pseudo_transient_newton.hpp (Newton with local
/// time steps) instead: explicit global steps take O(1/h) steps per unit
/// time and are for transients.
///
/// Errors: at the start of each step and after each stage the state of
/// every owned cell is checked; a non-finite value or a density or pressure
/// <= 0 is a camber::Error (failure) on every rank, naming the time, the
/// cell's global id, its centroid and the state (the lowest failing rank's
/// cell). U is then left with the state of the last completed step. Bad
/// arguments (a CFL number outside (0, 1], t_end < t_start, dt <= 0) are
/// one bad_input error on every rank; a U of the wrong shape is a failure.
///
/// Ownership and limits: the functions hold no state; U is the caller's,
/// shape {n_local, 4} (conserved variables; ghost rows are overwritten by
/// halo exchanges). Every function is collective over the Discretization's
/// mesh communicator. The boundary conditions are those of the
/// Discretization, fixed in time (its free stream). Values only: no
/// derivatives through the time integration (differentiate the residual,
/// solvers/euler/discretization.hpp, for adjoints of steady states).
#pragma once

#include <functional>

#include <camber/solvers/euler/discretization.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::euler {

/// What advance() tells its monitor after every step.
struct TimeStepInfo {
  index_t step = 0;   ///< steps completed (1 after the first)
  double time = 0.0;  ///< the time reached (exactly t_end after the last step)
  double dt = 0.0;    ///< the size of the step just taken
  bool last = false;  ///< true for the step that reached t_end
};

/// Called on every rank after every step with the new state (owned rows
/// current, ghost rows stale); it may call collectives, as every rank calls
/// it at the same step.
using StepMonitor = std::function<void(const TimeStepInfo& step, const Tensor& U)>;

/// What advance() did.
struct AdvanceSummary {
  index_t n_steps = 0;
  double time = 0.0;    ///< the final time, exactly t_end
  double dt_min = 0.0;  ///< smallest step the CFL condition allowed
  double dt_max = 0.0;  ///< largest step the CFL condition allowed
};

/// The global explicit step CFL min_i V_i / lambda_i over owned cells and
/// ranks (collective). Checks U first, as require_physical_state() does, at
/// `time`.
double cfl_time_step(const Discretization& disc, const Tensor& U, double cfl, double time = 0.0);

/// One SSP-RK3 step of size dt from `time`, in place (collective). A
/// non-physical stage state is an error naming the stage's time; U is then
/// unchanged.
void ssp_rk3_step(const Discretization& disc, Tensor& U, double dt, double time = 0.0);

/// Integrates U from t_start to t_end (>= t_start) with SSP-RK3 steps of
/// cfl_time_step(), the last one shortened to land exactly on t_end; calls
/// `monitor` (if set) after every step. Collective. CFL must be in (0, 1]
/// and finite (bad_input otherwise).
AdvanceSummary advance(const Discretization& disc, Tensor& U, double t_end, double cfl,
                       const StepMonitor& monitor = {}, double t_start = 0.0);

/// Throws a camber::Error (failure, on every rank) if any owned cell of U
/// has a non-finite component or a density or pressure <= 0, naming `time`,
/// the cell's global id, centroid and state; `context` (e.g. "after stage 1 of
/// the step from t = 0.1") is added to the message. Collective.
void require_physical_state(const Discretization& disc, const Tensor& U, double time,
                            const char* context = "");

}  // namespace camber::solvers::euler
