#include <camber/solvers/euler/unsteady.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>

namespace camber::solvers::euler {

namespace {

// A {rows, 4} Tensor's storage as a Field (shared, unmanaged).
Field<double> field_of(const Tensor& t) {
  return Field<double>(t.data(), static_cast<size_t>(t.dim(0)), static_cast<size_t>(t.dim(1)));
}

void require_shape(const Discretization& disc, const Tensor& U, const char* what) {
  disc.require_2d(what);
  CAMBER_REQUIRE(U.shape() == (Shape{disc.n_local(), disc.n_vars()}),
                 what << ": U must have shape {" << disc.n_local() << ", " << disc.n_vars()
                      << "} (n_local cells, conserved variables)");
}

// Device-safe finiteness: x - x is 0 for finite x, NaN for +-inf and NaN.
KOKKOS_INLINE_FUNCTION bool is_finite(double x) { return x - x == 0.0; }

// The first owned cell whose state is not finite or has rho <= 0 or
// p <= 0, or -1.
index_t first_unphysical_cell(const Discretization& disc, const Tensor& U) {
  const Field<double> u = field_of(U);
  const IdealGas gas = disc.gas();
  const index_t n_owned = disc.n_owned();
  index_t first = n_owned;
  Kokkos::parallel_reduce(
      "euler::unsteady::check_state", Kokkos::RangePolicy<>(0, n_owned),
      KOKKOS_LAMBDA(const index_t c, index_t& best) {
        Conserved<double, 2> s;
        bool finite = true;
        for (int k = 0; k < 4; ++k) {
          s[k] = u(c, k);
          finite = finite && is_finite(s[k]);
        }
        const double p = pressure(gas, s);
        // Written so that NaN fails: !(x > 0).
        const bool ok = finite && s.rho() > 0.0 && p > 0.0 && is_finite(p);
        if (!ok && c < best) best = c;
      },
      Kokkos::Min<index_t>(first));
  return first < n_owned ? first : -1;
}

// out = a U0 + b (Us - dt R / V) on the owned rows (a = 0: U0 not read).
void stage_update(const Discretization& disc, const Tensor& U0, const Tensor& Us, const Tensor& R,
                  double dt, double a, double b, Tensor& out) {
  const Field<double> u0 = field_of(U0), us = field_of(Us), r = field_of(R), o = field_of(out);
  const auto volume = disc.geometry().cell_volume;
  const bool with_u0 = a != 0.0;
  Kokkos::parallel_for(
      "euler::unsteady::stage", Kokkos::RangePolicy<>(0, disc.n_owned()),
      KOKKOS_LAMBDA(const index_t c) {
        const double rate = dt / volume(c);
        for (int k = 0; k < 4; ++k) {
          const double euler_step = us(c, k) - rate * r(c, k);
          o(c, k) = with_u0 ? a * u0(c, k) + b * euler_step : b * euler_step;
        }
      });
  Kokkos::fence();
}

// One SSP-RK3 step with caller-provided stage storage (U1, U2 of U's shape).
void rk3_step(const Discretization& disc, Tensor& U, Tensor& U1, Tensor& U2, double dt,
              double time) {
  // Stage states approximate U at t + dt (U1) and t + dt / 2 (U2).
  const auto context = [&](int stage) {
    return CAMBER_MSG("after stage " << stage << " of the SSP-RK3 step from t = " << time
                                     << " with dt = " << dt);
  };
  Tensor R = disc.residual(U);
  stage_update(disc, U, U, R, dt, 0.0, 1.0, U1);
  require_physical_state(disc, U1, time + dt, context(1).c_str());
  R = disc.residual(U1);
  stage_update(disc, U, U1, R, dt, 0.75, 0.25, U2);
  require_physical_state(disc, U2, time + 0.5 * dt, context(2).c_str());
  R = disc.residual(U2);
  // The new state goes to U1 first, so that a failure keeps U unchanged.
  stage_update(disc, U, U2, R, dt, 1.0 / 3.0, 2.0 / 3.0, U1);
  require_physical_state(disc, U1, time + dt, context(3).c_str());
  Kokkos::deep_copy(U.view(), U1.view());
}

}  // namespace

void require_physical_state(const Discretization& disc, const Tensor& U, double time,
                            const char* context) {
  require_shape(disc, U, "euler require_physical_state");
  const MPI_Comm comm = disc.mesh().comm();
  const index_t bad = first_unphysical_cell(disc, U);
  if (par::allreduce_max(bad >= 0 ? 1.0 : 0.0, comm) == 0.0) return;

  // Every rank learns the lowest failing rank's cell: global id, centroid
  // and state.
  const int rank = disc.mesh().rank();
  struct {
    int value;
    int rank;
  } in{bad >= 0 ? rank : std::numeric_limits<int>::max(), rank}, out{};
  CAMBER_CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm));
  double where[8] = {};
  if (bad >= 0) {
    const auto centroid =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_centroid);
    const std::vector<double> row = U.to_vector();  // host copy
    Conserved<double, 2> s;
    for (int k = 0; k < 4; ++k) s[k] = row[static_cast<size_t>(bad * 4 + k)];
    where[0] = static_cast<double>(disc.mesh().cell_global_ids()[static_cast<size_t>(bad)]);
    where[1] = centroid(bad, 0);
    where[2] = centroid(bad, 1);
    where[3] = s.rho();
    where[4] = s.mom(0);
    where[5] = s.mom(1);
    where[6] = s.rho_E();
    where[7] = pressure(disc.gas(), s);
  }
  CAMBER_CHECK_MPI(MPI_Bcast(where, 8, MPI_DOUBLE, out.rank, comm));
  const std::string message = CAMBER_MSG(
      "euler unsteady: non-physical state at t = "
      << time << (context[0] != '\0' ? " (" : "") << context << (context[0] != '\0' ? ")" : "")
      << " in cell " << static_cast<long long>(where[0]) << " (global id) at (x, y) = (" << where[1]
      << ", " << where[2] << ") on rank " << out.rank << ": rho = " << where[3] << ", rho u = "
      << where[4] << ", rho v = " << where[5] << ", rho E = " << where[6] << ", p = " << where[7]
      << ". Reduce the CFL number, or check the initial state and the boundary conditions");
  // Every rank throws the same error; collective_guard prints it once.
  collective_guard(comm, [&] { CAMBER_REQUIRE(false, message); });
}

namespace {

// The CFL step of a physical U (checked), without argument checks.
double time_step(const Discretization& disc, const Tensor& U, double cfl, double time) {
  require_physical_state(disc, U, time, "the start of a time step");
  const Tensor lambda = disc.spectral_radius(U);
  const double* l = lambda.data();
  const auto volume = disc.geometry().cell_volume;
  double local = std::numeric_limits<double>::infinity();
  Kokkos::parallel_reduce(
      "euler::unsteady::time_step", Kokkos::RangePolicy<>(0, disc.n_owned()),
      KOKKOS_LAMBDA(const index_t c, double& m) {
        const double dt = volume(c) / l[c];
        if (dt < m) m = dt;
      },
      Kokkos::Min<double>(local));
  // A rank without owned cells contributes +inf.
  return cfl * par::allreduce_min(local, disc.mesh().comm());
}

}  // namespace

// Argument checks run inside collective_guard: one bad_input error on every
// rank (printed once), so a program under run_guarded ends cleanly.
double cfl_time_step(const Discretization& disc, const Tensor& U, double cfl, double time) {
  collective_guard(disc.mesh().comm(), [&] {
    require_shape(disc, U, "euler cfl_time_step");
    CAMBER_INPUT_REQUIRE(
        std::isfinite(cfl) && cfl > 0.0,
        "euler cfl_time_step: the CFL number must be positive and finite, got " << cfl);
  });
  return time_step(disc, U, cfl, time);
}

void ssp_rk3_step(const Discretization& disc, Tensor& U, double dt, double time) {
  collective_guard(disc.mesh().comm(), [&] {
    require_shape(disc, U, "euler ssp_rk3_step");
    CAMBER_INPUT_REQUIRE(std::isfinite(dt) && dt > 0.0,
                         "euler ssp_rk3_step: dt must be positive and finite, got " << dt);
  });
  require_physical_state(disc, U, time, "the start of a time step");
  Tensor U1 = U.clone(), U2 = U.clone();
  rk3_step(disc, U, U1, U2, dt, time);
}

AdvanceSummary advance(const Discretization& disc, Tensor& U, double t_end, double cfl,
                       const StepMonitor& monitor, double t_start) {
  collective_guard(disc.mesh().comm(), [&] {
    require_shape(disc, U, "euler advance");
    CAMBER_INPUT_REQUIRE(std::isfinite(cfl) && cfl > 0.0 && cfl <= 1.0,
                         "euler advance: the CFL number must be in (0, 1] (SSP-RK3 with the "
                         "first-order scheme is positive up to 1), got "
                             << cfl);
    CAMBER_INPUT_REQUIRE(std::isfinite(t_start) && std::isfinite(t_end) && t_end >= t_start,
                         "euler advance: need finite t_start <= t_end, got t_start = "
                             << t_start << ", t_end = " << t_end);
  });
  AdvanceSummary summary;
  summary.time = t_start;
  // Stage storage, allocated once. Ghost rows are copied too; residual()
  // refills them before they are read.
  Tensor U1 = U.clone(), U2 = U.clone();
  double t = t_start;
  while (t < t_end) {
    const double dt_cfl = time_step(disc, U, cfl, t);
    // The last step lands on t_end exactly; one that would overshoot by a
    // rounding's worth is the last one too (no step of ~1e-16).
    const double remaining = t_end - t;
    const bool last = remaining <= dt_cfl * (1.0 + 1e-12);
    const double dt = last ? remaining : dt_cfl;
    // Same t and dt on every rank: a collective-safe check.
    CAMBER_REQUIRE(last || t + dt > t, "euler advance: the CFL step "
                                           << dt << " at t = " << t
                                           << " no longer advances the time (below its rounding)");
    rk3_step(disc, U, U1, U2, dt, t);
    t = last ? t_end : t + dt;
    ++summary.n_steps;
    summary.dt_min = summary.n_steps == 1 ? dt_cfl : std::min(summary.dt_min, dt_cfl);
    summary.dt_max = std::max(summary.dt_max, dt_cfl);
    if (monitor) monitor(TimeStepInfo{summary.n_steps, t, dt, last}, U);
  }
  summary.time = t;
  return summary;
}

}  // namespace camber::solvers::euler
