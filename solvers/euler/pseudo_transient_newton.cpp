#include <camber/solvers/euler/pseudo_transient_newton.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

#include "detail/newton_linear_system.hpp"

namespace camber::solvers::euler {

namespace {


// The most conserved variables per cell (3-D), for fixed-size buffers.
constexpr int max_nv = 5;

// Density and pressure of owned cell c are positive and finite.
bool admissible(const IdealGas& gas, const double* u, int nv) {
  const double p = pressure_of_row(gas, u, nv);
  return std::isfinite(p) && std::isfinite(u[0]) && u[0] > 0.0 && p > 0.0;
}

// R(U), with the far-field vortex (FlowConditions::far_field_vortex) set
// to U's own lift first: the residual of the coupled problem, whose
// Jacobian the solver approximates by dR/dU at fixed circulation.
Tensor coupled_residual(const Discretization& disc, Tensor& U) {
  if (disc.flow().far_field_vortex) disc.set_far_field_lift(disc.forces(U).cl);
  return disc.residual(U);
}

struct Norms {
  double density = 0.0, all = 0.0;
  index_t worst_cell = -1;  // a NaN cell (owned, local id), or -1
};

Norms residual_norms(const Tensor& R, index_t n_owned, int nv, MPI_Comm comm) {
  const auto h = R.host();
  double s[2] = {0.0, 0.0};
  index_t bad = -1;
  for (index_t c = 0; c < n_owned; ++c)
    for (int k = 0; k < nv; ++k) {
      const double r = h(c * nv + k);
      if (!std::isfinite(r) && bad < 0) bad = c;
      s[1] += r * r;
      if (k == 0) s[0] += r * r;
    }
  double g[2];
  CAMBER_CHECK_MPI(MPI_Allreduce(s, g, 2, MPI_DOUBLE, MPI_SUM, comm));
  return {std::sqrt(g[0]), std::sqrt(g[1]), bad};
}

// Where a Newton phase sits in the whole solve: its first step's number,
// the clock, and the reference residual of the convergence test (0: the
// phase's own initial residual).
struct Phase {
  int first_iteration = 0;
  std::chrono::steady_clock::time_point start;
  double r0 = 0.0;
};

// Pseudo-transient Newton on disc's residual from U (the header comment's
// algorithm, one spatial order).
SteadyResult newton_ptc(const Discretization& disc, Tensor& U, const SteadyOptions& options,
                        const SteadyMonitor& monitor, const Phase& phase) {
  const auto start = phase.start;
  mesh::DistributedMesh& dm = disc.mesh();
  const MPI_Comm comm = dm.comm();
  const index_t n_owned = disc.n_owned();
  const int nv = disc.n_vars();
  // The linear system of each step, and the update it solves for.
#if CAMBER_WITH_PETSC
  const std::unique_ptr<detail::NewtonLinearSystem> system =
      options.linear_solver == SteadyOptions::LinearSolver::petsc
          ? detail::petsc_newton_system(disc, U, options)
          : detail::device_newton_system(disc, U, options);
#else
  const std::unique_ptr<detail::NewtonLinearSystem> system =
      detail::device_newton_system(disc, U, options);
#endif
  Tensor dU({disc.n_local(), nv});

  // The residual being solved: disc, or a copy of it with the limiter
  // frozen once the residual has fallen by options.freeze_limiter_drop.
  const Discretization* active = &disc;
  std::unique_ptr<Discretization> frozen;
  const bool may_freeze = disc.spatial().order == 2 && options.freeze_limiter_drop > 0.0 &&
                          disc.spatial().limiter != LimiterKind::none && !disc.limiter_frozen();

  SteadyResult result;
  Tensor R = coupled_residual(disc, U);
  Norms norms = residual_norms(R, n_owned, nv, comm);
  const double r0 = phase.r0 > 0.0 ? phase.r0 : norms.density;
  double cfl = options.cfl_start;
  const IdealGas gas = disc.gas();
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto report_step = [&](int it, double step, int lin) {
    IterationReport rep;
    rep.iteration = phase.first_iteration + it;
    rep.order = disc.spatial().order;
    rep.residual_density = norms.density;
    rep.residual_all = norms.all;
    rep.cfl = cfl;
    rep.step = step;
    rep.linear_iterations = lin;
    rep.forces = active->forces(U);
    rep.seconds = seconds();
    result.history.push_back(rep);
    if (monitor) monitor(rep);
  };
  auto fail_at_cell = [&](index_t bad, const std::string& why, const std::string& hint = "") {
    // Every rank learns the lowest failing rank's cell.
    const auto centroid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                              disc.geometry().cell_centroid);
    const int dim = disc.dim();
    struct {
      double value;
      int rank;
    } in{bad >= 0 ? static_cast<double>(dm.rank()) : 1e300, dm.rank()}, out{};
    CAMBER_CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm));
    double where[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < dim && bad >= 0; ++d) where[d] = centroid(bad, d);
    CAMBER_CHECK_MPI(MPI_Bcast(where, dim, MPI_DOUBLE, out.rank, comm));
    const std::string message =
        CAMBER_MSG(why << " in the cell at (" << where[0] << ", " << where[1]
                       << (dim == 3 ? ", " + std::to_string(where[2]) : std::string()) << ") on rank "
                       << out.rank << "; the last good state is kept" << hint);
    // Every rank throws the same error; collective_guard prints it once.
    collective_guard(comm, [&] { CAMBER_REQUIRE(false, message); });
  };
  const auto check_finite = [&] {
    const double any = par::allreduce_max(norms.worst_cell >= 0 ? 1.0 : 0.0, comm);
    if (any > 0.0) fail_at_cell(norms.worst_cell, "the residual is not finite");
  };
  check_finite();
  report_step(0, 0.0, 0);

  Tensor U_good = U.clone();
  double previous_all = norms.all;
  // Order 2: the last step's alpha (a damped step cuts the CFL number
  // instead of letting it grow), and the largest relative change of density
  // and pressure a step may make.
  const bool second_order = disc.spatial().order == 2;
  double last_alpha = 1.0;
  bool last_linear_converged = true;
  const double max_change = second_order ? options.max_update : 0.0;
  // Defect correction converges only while the PTC diagonal dominates the
  // gap between the first- and second-order Jacobians: a CFL ceiling.
  const double cfl_max = second_order && options.defect_correction
                             ? std::min(options.cfl_max, options.defect_correction_cfl_max)
                             : options.cfl_max;
  for (int it = 1; it <= options.max_iterations; ++it) {
    if (norms.density <= std::max(options.rel_tolerance * r0, options.abs_tolerance)) {
      result.converged = true;
      break;
    }
    // The CFL number grows by the factor the residual fell (switched
    // evolution relaxation), at most cfl_growth per step; when it rose by
    // less than a factor 2 after a full step it grows by cfl_plateau_growth
    // (1: held), and it is cut when it more than doubled.
    if (it > 1) {
      const double ratio = previous_all / std::max(norms.all, 1e-300);
      if (second_order && last_alpha < 1.0)
        cfl *= std::max(last_alpha, 0.1);
      else if (second_order && !last_linear_converged)
        cfl *= options.cfl_cut;
      else if (ratio >= 1.0)
        cfl *= std::min(second_order ? std::min(options.cfl_growth, options.second_order_cfl_growth)
                                     : options.cfl_growth,
                        std::max(1.2, ratio));
      else if (ratio < 0.5)
        cfl *= options.cfl_cut;
      else if (last_alpha >= 1.0)
        cfl *= options.cfl_plateau_growth;
      cfl = std::min(cfl_max, std::max(cfl, options.cfl_start * 1e-2));
    }
    previous_all = norms.all;

    if (may_freeze && !frozen && norms.density <= options.freeze_limiter_drop * r0) {
      // phi(U) at this U: the residual at U is unchanged, its Jacobian from
      // now on the one with phi fixed.
      frozen = std::make_unique<Discretization>(disc);
      frozen->freeze_limiter(U);
      active = frozen.get();
      result.limiter_frozen_at = it - 1;
    }

    const Tensor lambda = active->spectral_radius(U);
    const auto lh = lambda.host();
    std::vector<double> shift(static_cast<size_t>(n_owned));
    for (int attempt = 0;; ++attempt) {
      // A = diag(lambda / CFL) + dR/dU (detail/newton_linear_system.hpp);
      // b = -R over R's storage; x = dU.
      for (index_t c = 0; c < n_owned; ++c) shift[static_cast<size_t>(c)] = lh(c) / cfl;
      R *= -1.0;
      dU.fill(0.0);
      const detail::LinearStep linear = system->solve(*active, U, shift, it, attempt, R, dU);
      R *= -1.0;
      const int lin = linear.iterations;
      last_linear_converged = linear.converged;

      // Largest alpha in 1, 1/2, ..., 1/64 that keeps every owned cell
      // admissible, agreed over ranks.
      const auto uh = U_good.host();
      const auto dh = dU.host();
      double alpha = 1.0;
      if (max_change > 0.0) {
        // Order 2: at most max_update relative change of rho and p in any
        // cell (p's change taken at the full step).
        double worst = 0.0;
        for (index_t c = 0; c < n_owned; ++c) {
          double u0[max_nv], u1[max_nv];
          for (int k = 0; k < nv; ++k) {
            u0[k] = uh(c * nv + k);
            u1[k] = u0[k] + dh(c * nv + k);
          }
          const double p0 = pressure_of_row(gas, u0, nv), p1 = pressure_of_row(gas, u1, nv);
          worst = std::max(worst, std::fabs(u1[0] - u0[0]) / u0[0]);
          worst = std::max(worst, std::fabs(p1 - p0) / p0);
        }
        worst = par::allreduce_max(worst, comm);
        if (worst > max_change) alpha = max_change / worst;
      }
      index_t blocking = -1;  // an owned cell the smallest step tried would empty
      for (;;) {
        int ok = 1;
        for (index_t c = 0; c < n_owned && ok; ++c) {
          double s[max_nv];
          for (int k = 0; k < nv; ++k) s[k] = uh(c * nv + k) + alpha * dh(c * nv + k);
          ok = admissible(gas, s, nv);
          if (!ok) blocking = c;
        }
        int all = 0;
        CAMBER_CHECK_MPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
        if (all || alpha < 1.0 / 64.0) {
          if (!all) alpha = 0.0;
          break;
        }
        alpha *= 0.5;
      }
      if (alpha > 0.0) {
        last_alpha = alpha;
        U = U_good.clone();
        U.axpy(alpha, dU);
        R = coupled_residual(*active, U);
        norms = residual_norms(R, n_owned, nv, comm);
        check_finite();
        U_good = U.clone();
        result.iterations = it;
        result.linear_iterations += lin;
        report_step(it, alpha, lin);
        break;
      }
      // Rejected: smaller pseudo-time step, same linearization point.
      cfl /= 10.0;
      if (cfl < 1e-3 * options.cfl_start || attempt > 8) {
        U = U_good.clone();
        fail_at_cell(blocking, CAMBER_MSG("no admissible Newton step at iteration "
                                          << phase.first_iteration + it
                                          << " (linear solve: " << lin << " iterations, "
                                          << (last_linear_converged ? "converged" : "not converged")
                                          << "): density or pressure would turn negative even at "
                                             "CFL "
                                          << cfl),
                     " (try a smaller solver.cfl_start)");
      }
    }
  }
  if (!result.converged)
    result.converged =
        norms.density <= std::max(options.rel_tolerance * r0, options.abs_tolerance);
  result.forces = active->forces(U);
  if (frozen) result.limiter = frozen->limiter(U);
  return result;
}

}  // namespace

bool threaded_factorization(SteadyOptions::Factorization f) {
  return f == SteadyOptions::Factorization::threaded ||
         (f == SteadyOptions::Factorization::automatic &&
          Kokkos::DefaultHostExecutionSpace().concurrency() > 1);
}

SteadyResult solve_steady(const Discretization& disc, Tensor& U, const SteadyOptions& options,
                          const SteadyMonitor& monitor) {
  detail::check_linear_solver(disc, options);
  Phase phase;
  phase.start = std::chrono::steady_clock::now();
  phase.r0 = options.reference_residual;
  if (disc.spatial().order == 1 || options.first_order_drop <= 0.0) {
    SteadyResult r = newton_ptc(disc, U, options, monitor, phase);
    r.reference_residual = phase.r0 > 0.0 ? phase.r0
                           : r.history.empty() ? 0.0
                                               : r.history.front().residual_density;
    return r;
  }

  // Order 2: first-order Newton until its residual has fallen by
  // first_order_drop, then second order from there. The convergence test
  // stays relative to the second-order residual at the initial state.
  if (phase.r0 <= 0.0) {
    Tensor R = coupled_residual(disc, U);
    phase.r0 = residual_norms(R, disc.n_owned(), disc.n_vars(), disc.mesh().comm()).density;
  }
  SteadyOptions first_options = options;
  first_options.rel_tolerance = options.first_order_drop;
  first_options.abs_tolerance = 0.0;
  const Discretization first = disc.first_order();
  SteadyResult result = newton_ptc(first, U, first_options, monitor, Phase{0, phase.start, 0.0});

  SteadyOptions second_options = options;
  second_options.max_iterations = options.max_iterations - result.iterations;
  // The state is first order's converged one: start near the CFL number
  // that phase reached, not at the cold start's.
  if (options.second_order_cfl_start > 0.0 && !result.history.empty())
    second_options.cfl_start = std::max(
        options.cfl_start, std::min(options.second_order_cfl_start, result.history.back().cfl));
  phase.first_iteration = result.iterations;
  SteadyResult second = newton_ptc(disc, U, second_options, monitor, phase);
  result.reference_residual = phase.r0;
  result.converged = second.converged;
  result.iterations += second.iterations;
  result.linear_iterations += second.linear_iterations;
  result.history.insert(result.history.end(), second.history.begin(), second.history.end());
  result.forces = second.forces;
  result.limiter_frozen_at = second.limiter_frozen_at < 0
                                 ? -1
                                 : second.limiter_frozen_at + phase.first_iteration;
  result.limiter = second.limiter;
  return result;
}

}  // namespace camber::solvers::euler
