// solvers/euler/unsteady.hpp at 1, 2 and 4 ranks: the time integrator's own
// properties (the validation against exact solutions of Sod's tube and
// Shu's vortex under refinement is tests/regression/test_euler_unsteady_mpi;
// conservation is test_unsteady_conservation_mpi.cpp, in this program):
//   (a) one ssp_rk3_step() is Shu and Osher's three stages written out from
//       Discretization::residual (to round-off); cfl_time_step() is CFL
//       min_i V_i / lambda_i over all ranks; the free stream stays the free
//       stream under advance() on a distorted mesh, at either order;
//   (b) SSP-RK3 is third order in time (and the check sees forward Euler's
//       first order: it can fail); advance() lands exactly on t_end;
//   (d) Sod's tube does not depend on the rank count: by global cell id it
//       equals a one-rank run to round-off;
//   (e) a non-physical state is an error naming the time and the cell, and
//       bad arguments are bad_input.
// No derivative tests: unsteady.hpp offers values only (its header says so).
// Each test prints its measured figures ("[unsteady] ...") for the record.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/boundary.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/unsteady.hpp>
#include <camber/core/tensor.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/euler/unsteady_test_utils.hpp"

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

// Max over owned cells, components and ranks of |a - b|.
double max_difference(const Discretization& disc, const Tensor& a, const Tensor& b) {
  return max_error(disc, a, b, 1.0);
}

// ================================================================== (a) the step

// L(U) = -R(U) / V on the owned rows (ghost rows of U filled by residual()).
Tensor rate(const Discretization& disc, Tensor& U) {
  const std::vector<double> r = disc.residual(U).to_vector();
  const auto volume =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_volume);
  std::vector<double> l(r.size(), 0.0);
  for (index_t c = 0; c < disc.n_owned(); ++c)
    for (int k = 0; k < nv; ++k)
      l[static_cast<size_t>(c * nv + k)] = -r[static_cast<size_t>(c * nv + k)] / volume(c);
  return Tensor::from_host(U.shape(), l);
}

// a U + b (V + dt L(V)).
Tensor stage(const Discretization& disc, const Tensor& U, Tensor V, double dt, double a, double b) {
  Tensor out = V.clone();
  out.axpy(dt, rate(disc, V));
  out *= b;
  out.axpy(a, U);
  return out;
}

// On derivative_mesh() (distorted quads and triangles, a slip wall and far
// field) at the non-uniform perturbed_state(), first and second order:
//  - cfl_time_step() against CFL min_i V_i / lambda_i, lambda from
//    Discretization::spectral_radius, the minimum taken over ranks: the
//    same numbers in another order, so equal to a rounding (4 eps relative);
//  - ssp_rk3_step() against U1 = U + dt L(U), U2 = 3/4 U + 1/4 (U1 + dt
//    L(U1)), U3 = 1/3 U + 2/3 (U2 + dt L(U2)). The two differ only in the
//    order of a few roundings per stage (~eps |U|), which the next stage's
//    dt L carries on with a factor of at most ~1 + CFL: 20 eps max|U| bounds
//    the three stages. A wrong stage weight errs by O(dt |L|) ~ 1e-2.
TEST(EulerUnsteadyStep, OneStepIsShuOshersThreeStagesAtTheCflStep) {
  mesh::DistributedMesh dm(derivative_mesh(), world());
  for (const int order : {1, 2}) {
    SpatialOptions spatial;
    spatial.order = order;
    const Discretization disc(dm, derivative_flow(0.5), derivative_conditions, FluxScheme::roe,
                              spatial);
    Tensor U = perturbed_state(disc);
    constexpr double cfl = 0.7;
    const double dt = cfl_time_step(disc, U, cfl);
    disc.residual(U);  // ghost rows, which spectral_radius reads
    const auto lambda = disc.spectral_radius(U).host();
    const auto volume =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_volume);
    double local = std::numeric_limits<double>::infinity();
    for (index_t c = 0; c < disc.n_owned(); ++c) local = std::min(local, volume(c) / lambda(c));
    const double expected_dt = cfl * par::allreduce_min(local, dm.comm());
    EXPECT_NEAR(dt, expected_dt, 4 * eps * expected_dt) << "order " << order;

    const Tensor U1 = stage(disc, U, U, dt, 0.0, 1.0);
    const Tensor U2 = stage(disc, U, U1, dt, 0.75, 0.25);
    const Tensor U3 = stage(disc, U, U2, dt, 1.0 / 3.0, 2.0 / 3.0);
    Tensor stepped = U.clone();
    ssp_rk3_step(disc, stepped, dt);
    const double e = max_difference(disc, stepped, U3);
    const double change = max_difference(disc, U3, U);
    const double top = max_owned(disc, U);
    say("[unsteady] order %d: dt %.6e (CFL formula %.6e); one step against the three stages "
        "written out: %.2e (the step changed U by %.2e, max |U| %.2f)\n",
        order, dt, expected_dt, e, change, top);
    EXPECT_LE(e, 20 * eps * top) << "order " << order;
    EXPECT_GT(change, 1e6 * 20 * eps * top) << "the check must see a step";
  }
}

// A uniform state has zero residual on any closed mesh up to round-off
// (test_discretization_mpi: <= 450 eps of perimeter * flux scale), so each
// stage moves a cell by at most dt / V_i of that, i.e. by CFL times the
// round-off relative to the cell's flux scale: ~450 eps |U_inf| per step and
// stage at most, and in fact far less (the round-off residuals do not add
// up in one direction). Asserted: max |U - U_inf| <= 450 eps * 3 stages *
// steps * max |U_inf|. A scheme that is not free-stream preserving on this
// 30%-distorted mesh moves the state by O(distortion), ~1e-1.
TEST(EulerUnsteadyStep, TheFreeStreamStaysTheFreeStream) {
  const mesh::Mesh global = distorted_rectangle(12, 10, 1.0, 1.0, 0.3, 0.0, 20240611);
  mesh::DistributedMesh dm(global, world());
  FlowConditions flow;
  flow.mach = 0.8;
  flow.alpha_deg = -33.0;
  for (const int order : {1, 2}) {
    SpatialOptions spatial;
    spatial.order = order;
    const Discretization disc(dm, flow, far_field_all_round, FluxScheme::roe, spatial);
    const Tensor U_inf = disc.free_stream_field();
    Tensor U = U_inf.clone();
    const AdvanceSummary s = advance(disc, U, 0.3, order == 1 ? 0.9 : 0.5);
    const double e = max_difference(disc, U, U_inf);
    const double tol = 450 * eps * 3.0 * static_cast<double>(s.n_steps) * max_owned(disc, U_inf);
    say("[unsteady] free stream, order %d, %lld steps: max |U - U_inf| = %.2e (bound %.2e)\n",
        order, static_cast<long long>(s.n_steps), e, tol);
    EXPECT_LE(e, tol) << "order " << order;
    EXPECT_GE(s.n_steps, 10);
  }
}

// ================================================================== (b) time integration

// Forward Euler with advance()'s step sizes: the injected bug (an
// integrator of the wrong order) that the temporal-order check must see.
void forward_euler(const Discretization& disc, Tensor& U, double t_end, double cfl) {
  const auto volume = disc.geometry().cell_volume;
  double t = 0.0;
  while (t < t_end) {
    const double dt_cfl = cfl_time_step(disc, U, cfl, t);
    const bool last = t_end - t <= dt_cfl * (1.0 + 1e-12);
    const double dt = last ? t_end - t : dt_cfl;
    const Tensor R = disc.residual(U);
    double* u = U.data();
    const double* r = R.data();
    Kokkos::parallel_for(
        "forward_euler", Kokkos::RangePolicy<>(0, disc.n_owned()), KOKKOS_LAMBDA(const index_t c) {
          for (int k = 0; k < 4; ++k) u[c * 4 + k] -= dt / volume(c) * r[c * 4 + k];
        });
    Kokkos::fence();
    t = last ? t_end : t + dt;
  }
}

// On a fixed mesh advance() integrates the ODE dU/dt = -R(U)/V; with steps
// proportional to the CFL number its error is C CFL^3 (SSP-RK3 is third
// order) as long as R is smooth along the solution. A weak vortex (beta =
// 1: swirl <= 0.14) in a free stream at 45 degrees (u = v = 0.35) keeps
// every face's normal velocity and u.n +- c away from 0, where Roe's |.|
// has its kinks, and the far-field state on its inflow or outflow branch.
// Error against a run at CFL 0.025 (whose own error, (0.025/0.2)^3 = 1/512
// of the CFL-0.2 one, shifts the observed order by < 0.01): observed order
// from CFL 0.4 to 0.2 in [2.7, 3.3]. Forward Euler on the same runs: [0.8,
// 1.2].
TEST(EulerUnsteadyTime, SspRk3IsThirdOrderInTime) {
  Vortex v;
  v.beta = 1.0;
  v.alpha_deg = 45.0;
  constexpr double half_width = 5.0, t_end = 0.5;
  v.x0 = v.y0 = half_width;
  mesh::DistributedMesh dm(mesh::rectangle(24, 24, 2 * half_width, 2 * half_width), world());
  const Discretization disc(dm, vortex_flow(v), far_field_all_round, FluxScheme::roe);
  const Tensor U0 = vortex_state(disc, v, 0.0);
  const auto rk3 = [&](double cfl) {
    Tensor U = U0.clone();
    advance(disc, U, t_end, cfl);
    return U;
  };
  const auto euler = [&](double cfl) {
    Tensor U = U0.clone();
    forward_euler(disc, U, t_end, cfl);
    return U;
  };
  const Tensor reference = rk3(0.025);
  const double e8 = max_difference(disc, rk3(0.8), reference);
  const double e4 = max_difference(disc, rk3(0.4), reference);
  const double e2 = max_difference(disc, rk3(0.2), reference);
  const double order = observed_order(e4, e2);
  say("[unsteady] SSP-RK3 time error (max over cells) at CFL 0.8, 0.4, 0.2: %.3e, %.3e, %.3e; "
      "orders %.3f, %.3f\n",
      e8, e4, e2, observed_order(e8, e4), order);
  EXPECT_GE(order, 2.7);
  EXPECT_LE(order, 3.3);

  const double f4 = max_difference(disc, euler(0.4), reference);
  const double f2 = max_difference(disc, euler(0.2), reference);
  const double euler_order = observed_order(f4, f2);
  say("[unsteady] forward Euler (injected bug) at CFL 0.4, 0.2: %.3e, %.3e; order %.3f\n", f4, f2,
      euler_order);
  EXPECT_GE(euler_order, 0.8);
  EXPECT_LE(euler_order, 1.2);
}

// advance() ends exactly on t_end (not within a rounding of it), tells its
// monitor every step in order, and takes CFL steps until the last, which is
// no longer than the CFL step.
TEST(EulerUnsteadyTime, AdvanceLandsExactlyOnTheEndTime) {
  mesh::DistributedMesh dm(mesh::rectangle(40, 1, 1.0, 0.1), world());
  const Discretization disc(dm, sod_flow(), sod_conditions, FluxScheme::roe);
  Tensor U = sod_initial_state(disc);
  // Neither 0.1 nor 0.1 + 0.1 / 3 is a sum of CFL steps.
  for (const double t_end : {0.1, 0.1 + 1.0 / 3.0 * 0.1}) {
    std::vector<TimeStepInfo> steps;
    const double t_start = t_end == 0.1 ? 0.0 : 0.1;
    const AdvanceSummary s = advance(
        disc, U, t_end, 0.8, [&](const TimeStepInfo& i, const Tensor&) { steps.push_back(i); },
        t_start);
    say("[unsteady] advance from %.17g to %.17g: %lld steps, dt in [%.4e, %.4e], final time "
        "%.17g\n",
        t_start, t_end, static_cast<long long>(s.n_steps), s.dt_min, s.dt_max, s.time);
    EXPECT_EQ(s.time, t_end);
    ASSERT_EQ(static_cast<index_t>(steps.size()), s.n_steps);
    ASSERT_GE(steps.size(), 2u);
    EXPECT_EQ(steps.back().time, t_end);
    EXPECT_TRUE(steps.back().last);
    double t = t_start;
    for (size_t i = 0; i < steps.size(); ++i) {
      EXPECT_EQ(steps[i].step, static_cast<index_t>(i + 1));
      EXPECT_EQ(steps[i].last, i + 1 == steps.size());
      EXPECT_LE(steps[i].dt, s.dt_max * (1 + 1e-15));
      t += steps[i].dt;
    }
    // The steps add up to the interval (to the rounding of the sum).
    EXPECT_NEAR(t, t_end, 1e-15 * static_cast<double>(steps.size()));
  }
  // An empty interval takes no step.
  const AdvanceSummary none = advance(disc, U, 0.5, 0.8, {}, 0.5);
  EXPECT_EQ(none.n_steps, 0);
  EXPECT_EQ(none.time, 0.5);
}

// ================================================================== (d) partition

// The partition changes only the order in which each cell's (at most
// four) face fluxes, spectral-radius terms and (second order) least-squares
// and limiter terms are summed: a few roundings (~eps) per cell and stage.
// The first-order scheme is monotone (an L1 contraction) and the limited
// second-order one is stable with a continuous limiter, so differences do
// not grow beyond their sum over the ~100-200 steps: |difference| <~ 200 *
// 3 stages * 4 terms * eps * |rho| ~ 5e-13 for rho <= 1; 1e-12 asserted.
TEST(EulerUnsteadyPartition, SodDensityIsTheSameOnEveryRankCountAsOnOneRank) {
  constexpr int n = 100;
  // Density by global cell id, on rank 0 of comm.
  const auto sod_on = [&](MPI_Comm comm, const SpatialOptions& spatial, double cfl) {
    mesh::DistributedMesh dm(mesh::rectangle(n, sod_rows, 1.0, sod_height), comm);
    const Discretization disc(dm, sod_flow(), sod_conditions, FluxScheme::roe, spatial);
    Tensor U = sod_initial_state(disc);
    const AdvanceSummary s = advance(disc, U, sod_time, cfl);
    EXPECT_EQ(s.time, sod_time);
    return gathered(disc, U, nv);
  };
  for (const int order : {1, 2}) {
    SpatialOptions spatial;
    spatial.order = order;
    const double cfl = order == 1 ? 0.9 : 0.5;
    const auto all = sod_on(world(), spatial, cfl);
    if (rank() != 0) continue;
    const auto one = sod_on(MPI_COMM_SELF, spatial, cfl);
    ASSERT_EQ(all.size(), static_cast<size_t>(n * sod_rows));
    double worst = 0.0;
    for (const auto& [id, u] : one) worst = std::max(worst, std::abs(all.at(id)[0] - u[0]));
    say("[unsteady] Sod n = %d, order %d, at %d ranks vs one rank: max |rho difference| = %.3e\n",
        n, order, test::size(), worst);
    EXPECT_LE(worst, 1e-12) << "order " << order;
  }
}

// ================================================================== (e) errors

// A non-physical state is one error on every rank naming the time and the
// cell (global id and centroid): (1) a negative pressure in the initial
// state, found before the first step; (2) a step far beyond the CFL limit,
// whose first stage overshoots to a negative density or pressure at the
// stage's time. Bad arguments are bad_input.
TEST(EulerUnsteadyErrors, NonPhysicalStateNamesTimeAndCell) {
  constexpr int n = 40;
  mesh::DistributedMesh dm(mesh::rectangle(n, 1, 1.0, 0.1), world());
  const Discretization disc(dm, sod_flow(), sod_conditions, FluxScheme::roe);
  const auto centroid = host_centroids(disc);
  const auto& gid = dm.cell_global_ids();
  // Cell 17 of the strip (centroid x = 17.5 / 40 = 0.4375) gets p < 0.
  constexpr std::int64_t bad_cell = 17;
  const Tensor sod = state_from(disc, [&](index_t c) {
    const GasState s = centroid(c, 0) < sod_diaphragm ? sod_left : sod_right;
    const double p = gid[static_cast<size_t>(c)] == bad_cell ? -0.5 : s.p;
    return Primitive<double, 2>{s.rho, {s.u, 0.0}, p};
  });
  Tensor U = sod.clone();
  const std::optional<Error> negative =
      test::error_from([&] { advance(disc, U, 0.2, 0.9, {}, 0.125); });
  ASSERT_TRUE(negative) << "a negative pressure was not reported";
  std::string m = negative->message();
  say("[unsteady] error message (negative initial pressure): %s\n", m.c_str());
  EXPECT_EQ(negative->kind(), ErrorKind::failure);
  EXPECT_NE(m.find("t = 0.125"), std::string::npos) << m;
  EXPECT_NE(m.find("cell 17 (global id)"), std::string::npos) << m;
  EXPECT_NE(m.find("(x, y) = (0.4375, 0.05)"), std::string::npos) << m;
  EXPECT_NE(m.find("p = -0.5"), std::string::npos) << m;

  // Sod's exact state everywhere (no bad cell), one step of 40 times the
  // CFL step: the expansion empties the cells next to the diaphragm.
  U = sod_initial_state(disc);
  const Tensor before = U.clone();
  const double dt = 40.0 * cfl_time_step(disc, U, 1.0);
  const std::optional<Error> overshoot = test::error_from([&] { ssp_rk3_step(disc, U, dt, 1.0); });
  ASSERT_TRUE(overshoot) << "a step of 40 times the CFL limit was not reported";
  m = overshoot->message();
  say("[unsteady] error message (step 40x the CFL limit): %s\n", m.c_str());
  EXPECT_NE(m.find("non-physical state at t = "), std::string::npos) << m;
  EXPECT_NE(m.find("after stage 1 of the SSP-RK3 step from t = 1 "), std::string::npos) << m;
  EXPECT_NE(m.find("(global id) at (x, y) = ("), std::string::npos) << m;
  EXPECT_EQ(max_difference(disc, U, before), 0.0) << "a failed step must leave U unchanged";

  // Bad input is bad_input (a CFL number outside (0, 1], t_end < t_start,
  // dt <= 0); a U of the wrong shape is a failure. "accepted": no error.
  const auto outcome = [](const auto& call) -> std::string {
    const std::optional<Error> e = test::error_from(call);
    return !e ? "accepted" : e->kind() == ErrorKind::bad_input ? "bad_input" : "failure";
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const double cfl : {0.0, -1.0, 1.5, nan})
    EXPECT_EQ(outcome([&] { advance(disc, U, 0.2, cfl); }), "bad_input") << "CFL " << cfl;
  EXPECT_EQ(outcome([&] { advance(disc, U, 0.1, 0.5, {}, 0.2); }), "bad_input")
      << "t_end < t_start";
  for (const double bad_dt : {0.0, -1e-3, nan})
    EXPECT_EQ(outcome([&] { ssp_rk3_step(disc, U, bad_dt); }), "bad_input") << "dt " << bad_dt;
  for (const double cfl : {0.0, -1.0, nan})
    EXPECT_EQ(outcome([&] { cfl_time_step(disc, U, cfl); }), "bad_input") << "CFL " << cfl;
  Tensor three({disc.n_local(), 3});
  EXPECT_EQ(outcome([&] { advance(disc, three, 0.2, 0.5); }), "failure") << "shape {n, 3}";
  EXPECT_EQ(max_difference(disc, U, before), 0.0) << "rejected arguments must leave U unchanged";
}

}  // namespace
}  // namespace camber::solvers::euler
