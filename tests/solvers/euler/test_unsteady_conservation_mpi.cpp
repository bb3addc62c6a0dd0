// solvers/euler/unsteady.hpp, conservation (part of test_unsteady_mpi, at 1,
// 2 and 4 ranks): in a closed box the totals of mass, momentum and energy
// are constant to round-off; with far-field boundaries all round they
// change only by what crosses the boundary, which the test computes
// independently from the public flux functions; and the interior fluxes
// cancel in the sum of the residuals.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/boundary.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/flux.hpp>
#include <camber/solvers/euler/unsteady.hpp>
#include <camber/core/tensor.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/euler/unsteady_test_utils.hpp"

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

// Sum over owned cells and ranks of U_k V_i, per component.
std::vector<double> totals(const Discretization& disc, const Tensor& U) {
  const auto volume =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_volume);
  const std::vector<double> u = U.to_vector();
  std::vector<double> t(nv, 0.0);
  for (index_t c = 0; c < disc.n_owned(); ++c)
    for (int k = 0; k < nv; ++k)
      t[static_cast<size_t>(k)] += u[static_cast<size_t>(c * nv + k)] * volume(c);
  for (double& x : t) x = par::allreduce_sum(x, disc.mesh().comm());
  return t;
}

// Round-off in the totals: every stage rounds each cell's U_i (and so U_i
// V_i) by a few eps |U_i|, summed over the cells and the 3 stages of each
// step; (rho E)_i >= p_i, rho_i, |rho u_i| for these states (|u| < c), so
// 10 eps * stages * sum_i (rho E)_i V_i bounds it for every component.
double roundoff_in_totals(const Discretization& disc, const Tensor& U, index_t n_steps) {
  const auto volume =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_volume);
  const std::vector<double> u = U.to_vector();
  double scale = 0.0;
  for (index_t c = 0; c < disc.n_owned(); ++c)
    scale += std::abs(u[static_cast<size_t>(c * nv + 3)]) * volume(c);
  return 10.0 * eps * 3.0 * static_cast<double>(n_steps) *
         par::allreduce_sum(scale, disc.mesh().comm());
}

const char* const component_names[nv] = {"mass", "x momentum", "y momentum", "energy"};

// A closed box (slip walls all round) holding the vortex at rest at its
// centre: no mass or energy crosses a wall (the wall flux is (0, p n, 0)),
// so their totals are constant up to round-off, at either order. Momentum
// changes by the wall pressure's impulse, which vanishes by symmetry: the
// vortex and the mesh are unchanged by a half turn about the box's centre,
// which maps each wall face to the opposite one with the same pressure and
// the opposite normal; so momentum too is constant up to round-off.
TEST(EulerUnsteadyConservation, ClosedBoxKeepsItsTotalsToRoundOff) {
  constexpr double half_width = 5.0, t_end = 1.0;
  constexpr int n = 40;
  Vortex v;
  v.mach = 0.0;
  v.x0 = v.y0 = half_width;
  const std::vector<BoundaryCondition> walls = {{"left", BoundaryKind::slip_wall},
                                                {"right", BoundaryKind::slip_wall},
                                                {"bottom", BoundaryKind::slip_wall},
                                                {"top", BoundaryKind::slip_wall}};
  mesh::DistributedMesh dm(mesh::rectangle(n, n, 2 * half_width, 2 * half_width), world());
  for (const int order : {1, 2}) {
    SpatialOptions spatial;
    spatial.order = order;
    const Discretization disc(dm, vortex_flow(v), walls, FluxScheme::roe, spatial);
    Tensor U = vortex_state(disc, v, 0.0);
    const std::vector<double> before = totals(disc, U);
    const AdvanceSummary summary = advance(disc, U, t_end, order == 1 ? 0.9 : 0.5);
    const std::vector<double> after = totals(disc, U);
    const double tol = roundoff_in_totals(disc, U, summary.n_steps);
    for (int k = 0; k < nv; ++k) {
      const double change = after[static_cast<size_t>(k)] - before[static_cast<size_t>(k)];
      say("[unsteady] closed box, order %d, %s: total %.15e, change after %lld steps %.3e "
          "(round-off bound %.2e)\n",
          order, component_names[k], before[static_cast<size_t>(k)], change,
          static_cast<long long>(summary.n_steps), tol);
      EXPECT_LE(std::abs(change), tol) << component_names[k] << ", order " << order;
    }
  }
}

// The far-field faces' fluxes at first order, computed here from the
// public functions (boundary.hpp, flux.hpp) as the header comment of
// discretization.hpp defines them: Roe's flux between the cell's state and
// the characteristic far-field state. Per component, over ranks: `sum` gets
// sum_f F_f and `magnitude` sum_f |F_f| (for round-off scales).
void far_field_fluxes(const Discretization& disc, const Tensor& U, std::vector<double>& sum,
                      std::vector<double>& magnitude) {
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  const auto normal =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().face_normal);
  const std::vector<double> u = U.to_vector();
  const Conserved<double, 2> inf = disc.flow().free_stream();
  sum.assign(nv, 0.0);
  magnitude.assign(nv, 0.0);
  for (index_t f = 0; f < disc.n_faces(); ++f) {
    const index_t c = left(f);
    if (right(f) >= 0 || c >= disc.n_owned()) continue;
    Conserved<double, 2> ui;
    for (int k = 0; k < nv; ++k) ui[k] = u[static_cast<size_t>(c * nv + k)];
    const double n[2] = {normal(f, 0), normal(f, 1)};
    const Conserved<double, 2> flux =
        roe_flux(disc.gas(), ui, far_field_state(disc.gas(), ui, inf, n), n);
    for (int k = 0; k < nv; ++k) {
      sum[static_cast<size_t>(k)] += flux[k];
      magnitude[static_cast<size_t>(k)] += std::abs(flux[k]);
    }
  }
  for (auto* v : {&sum, &magnitude})
    for (double& x : *v) x = par::allreduce_sum(x, disc.mesh().comm());
}

// The vortex carried through a box with far field all round (first
// order): d/dt sum_i U_i V_i = -B(U), B the sum of the boundary faces'
// fluxes, as the interior fluxes cancel pairwise (each face's flux is added
// to one cell and subtracted from the other); the free stream's own flux
// sums to zero over the closed boundary, so B measures what the vortex's
// waves carry out. The monitor evaluates B independently (far_field_fluxes)
// after every step; the totals' change must match -integral B dt, which
// the trapezoid rule over the step ends approximates to O(dt^2) relative,
// like SSP-RK3's own stage states do (its effective quadrature over a step
// uses U1, U2, which are accurate only to O(dt^2)): (dt / T)^2 ~ 0.2% with
// dt ~ 0.05 and T ~ 1 the time in which the waves crossing the boundary
// change B (wavelengths of a few cells of 1/3, speed ~c = 1). Asserted to
// within 5% of integral |B| dt, plus round-off. A lost or doubled interior face flux
// would change the totals by ~dt |F| h ~ 1e-2 in one step, 10^4 times the
// boundary's share here.
//
// Also, at the final state: sum_i R_i (over owned cells and ranks) equals
// the independently computed B to round-off (each cell sums ~4 face terms
// of size <= |F| ~ h: ~4 eps h |F| per cell).
TEST(EulerUnsteadyConservation, FarFieldTotalsChangeByTheBoundaryFluxes) {
  constexpr double half_width = 8.0, t_end = 2.0;
  constexpr int n = 48;
  Vortex v;
  v.x0 = half_width - 0.5 * v.mach * t_end;
  v.y0 = half_width;
  mesh::DistributedMesh dm(mesh::rectangle(n, n, 2 * half_width, 2 * half_width), world());
  const Discretization disc(dm, vortex_flow(v), far_field_all_round, FluxScheme::roe);
  Tensor U = vortex_state(disc, v, 0.0);
  const std::vector<double> before = totals(disc, U);
  std::vector<double> b, magnitude, b_previous;
  far_field_fluxes(disc, U, b_previous, magnitude);
  std::vector<double> integral(nv, 0.0), integral_abs(nv, 0.0);
  const auto monitor = [&](const TimeStepInfo& step, const Tensor& state) {
    far_field_fluxes(disc, state, b, magnitude);
    for (size_t k = 0; k < nv; ++k) {
      integral[k] += 0.5 * step.dt * (b_previous[k] + b[k]);
      integral_abs[k] += 0.5 * step.dt * (std::abs(b_previous[k]) + std::abs(b[k]));
    }
    b_previous = b;
  };
  const AdvanceSummary summary = advance(disc, U, t_end, 0.9, monitor);
  const std::vector<double> after = totals(disc, U);
  const double roundoff = roundoff_in_totals(disc, U, summary.n_steps);
  for (size_t k = 0; k < nv; ++k) {
    const double change = after[k] - before[k];
    say("[unsteady] far field, %s: total %.15e, change %.4e, -integral of boundary flux "
        "%.4e (trapezoid over %lld steps), mismatch %.2e = %.1f%% of integral |B| dt; "
        "round-off bound %.2e\n",
        component_names[k], before[k], change, -integral[k],
        static_cast<long long>(summary.n_steps), change + integral[k],
        100.0 * std::abs(change + integral[k]) / integral_abs[k], roundoff);
    EXPECT_NEAR(change, -integral[k], 0.05 * integral_abs[k] + roundoff) << component_names[k];
  }

  const std::vector<double> r = disc.residual(U).to_vector();
  far_field_fluxes(disc, U, b, magnitude);
  const double h = 2 * half_width / n;
  for (size_t k = 0; k < nv; ++k) {
    double sum_r = 0.0;
    for (index_t c = 0; c < disc.n_owned(); ++c) sum_r += r[static_cast<size_t>(c) * nv + k];
    sum_r = par::allreduce_sum(sum_r, world());
    // |F| <= h (rho E + p) |u| + h p ~ 2 h per face for these states.
    const double tol = 4.0 * eps * static_cast<double>(n) * n * 2.0 * h + 10.0 * eps * magnitude[k];
    say("[unsteady] far field, %s: sum of residuals %.6e, sum of boundary fluxes %.6e, "
        "difference %.2e (round-off bound %.2e)\n",
        component_names[k], sum_r, b[k], sum_r - b[k], tol);
    EXPECT_NEAR(sum_r, b[k], tol) << component_names[k];
  }
}

}  // namespace
}  // namespace camber::solvers::euler
