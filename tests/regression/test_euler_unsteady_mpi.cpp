// Validation of time-accurate Euler (solvers/euler/unsteady.hpp: SSP-RK3 on
// the finite-volume residual of solvers/euler/discretization.hpp) against
// exact solutions, at 1, 2 and 4 ranks:
//   (a) Sod's shock tube against the exact Riemann solution (Toro,
//       "Riemann Solvers and Numerical Methods for Fluid Dynamics", 3rd ed.,
//       ch. 4, written out below and itself checked against Toro's table
//       4.3): the L1 error of density falls under refinement at the rate a
//       first-order scheme has on discontinuous data (between 1/2, the
//       contact's, and 1, the shock's), and the shock and the contact sit
//       where the exact solution puts them, to within two cells;
//   (b) Shu's isentropic vortex carried by a uniform flow: the L2 error
//       against the exactly translated vortex falls at first order with the
//       first-order scheme and at second order with the second-order one
//       (least-squares gradients, SpatialOptions::order = 2).
// The time integrator's own properties (its order in time, conservation,
// rank-count independence, errors) are tested in
// tests/solvers/euler/test_unsteady_mpi.cpp.
// Each test prints its measured figures ("[unsteady] ...") for the record.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/boundary.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/solvers/euler/unsteady.hpp>
#include <camber/core/tensor.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/euler/unsteady_test_utils.hpp"

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

// ================================================================== exact Riemann solver

// Toro ch. 4: the exact solution of the 1-D Riemann problem for an ideal
// gas, without vacuum. The star pressure solves f_L(p) + f_R(p) + u_R - u_L
// = 0 (f_K: shock branch for p > p_K, rarefaction branch otherwise) by
// Newton's method from the primitive-variable guess; sample() evaluates the
// self-similar solution at x/t.
class ExactRiemann {
 public:
  ExactRiemann(double gamma, GasState left, GasState right)
      : g_(gamma),
        l_(left),
        r_(right),
        cl_(std::sqrt(gamma * left.p / left.rho)),
        cr_(std::sqrt(gamma * right.p / right.rho)) {
    double p = 0.5 * (l_.p + r_.p) - 0.125 * (r_.u - l_.u) * (l_.rho + r_.rho) * (cl_ + cr_);
    p = std::max(p, 1e-8 * std::min(l_.p, r_.p));
    for (int it = 0; it < 100; ++it) {
      double dl, dr;
      const double f =
          pressure_function(p, l_, cl_, dl) + pressure_function(p, r_, cr_, dr) + r_.u - l_.u;
      double next = p - f / (dl + dr);
      if (next <= 0.0) next = 0.5 * p;
      const bool done = 2.0 * std::abs(next - p) / (next + p) < 1e-15;
      p = next;
      iterations_ = it + 1;
      if (done) break;
    }
    p_star_ = p;
    double dl, dr;
    u_star_ = 0.5 * (l_.u + r_.u) +
              0.5 * (pressure_function(p, r_, cr_, dr) - pressure_function(p, l_, cl_, dl));
  }

  double p_star() const { return p_star_; }
  double u_star() const { return u_star_; }
  int iterations() const { return iterations_; }
  // Densities on either side of the contact.
  double rho_star_left() const { return star_density(l_); }
  double rho_star_right() const { return star_density(r_); }
  // Speed of the right-moving shock (p* > p_R; NaN otherwise).
  double right_shock_speed() const {
    if (!(p_star_ > r_.p)) return std::numeric_limits<double>::quiet_NaN();
    return r_.u + cr_ * std::sqrt((g_ + 1) / (2 * g_) * p_star_ / r_.p + (g_ - 1) / (2 * g_));
  }

  GasState sample(double s) const {  // s = x / t
    const double g = g_;
    if (s <= u_star_) {
      if (p_star_ > l_.p) {
        const double sl =
            l_.u - cl_ * std::sqrt((g + 1) / (2 * g) * p_star_ / l_.p + (g - 1) / (2 * g));
        return s <= sl ? l_ : GasState{star_density(l_), u_star_, p_star_};
      }
      const double head = l_.u - cl_;
      const double tail = u_star_ - cl_ * std::pow(p_star_ / l_.p, (g - 1) / (2 * g));
      if (s <= head) return l_;
      if (s > tail) return GasState{star_density(l_), u_star_, p_star_};
      const double u = 2 / (g + 1) * (cl_ + (g - 1) / 2 * l_.u + s);
      const double c = 2 / (g + 1) * (cl_ + (g - 1) / 2 * (l_.u - s));
      return GasState{l_.rho * std::pow(c / cl_, 2 / (g - 1)), u,
                      l_.p * std::pow(c / cl_, 2 * g / (g - 1))};
    }
    if (p_star_ > r_.p) {
      return s >= right_shock_speed() ? r_ : GasState{star_density(r_), u_star_, p_star_};
    }
    const double head = r_.u + cr_;
    const double tail = u_star_ + cr_ * std::pow(p_star_ / r_.p, (g - 1) / (2 * g));
    if (s >= head) return r_;
    if (s < tail) return GasState{star_density(r_), u_star_, p_star_};
    const double u = 2 / (g + 1) * (-cr_ + (g - 1) / 2 * r_.u + s);
    const double c = 2 / (g + 1) * (cr_ - (g - 1) / 2 * (r_.u - s));
    return GasState{r_.rho * std::pow(c / cr_, 2 / (g - 1)), u,
                    r_.p * std::pow(c / cr_, 2 * g / (g - 1))};
  }

 private:
  // f_K(p) and its derivative (Toro eqs. 4.6, 4.7, 4.37).
  double pressure_function(double p, const GasState& k, double ck, double& derivative) const {
    const double g = g_;
    if (p > k.p) {
      const double a = 2 / ((g + 1) * k.rho), b = (g - 1) / (g + 1) * k.p;
      const double q = std::sqrt(a / (p + b));
      derivative = q * (1 - (p - k.p) / (2 * (b + p)));
      return (p - k.p) * q;
    }
    derivative = 1 / (k.rho * ck) * std::pow(p / k.p, -(g + 1) / (2 * g));
    return 2 * ck / (g - 1) * (std::pow(p / k.p, (g - 1) / (2 * g)) - 1);
  }
  double star_density(const GasState& k) const {
    const double g = g_, ratio = p_star_ / k.p;
    if (p_star_ > k.p) {
      const double g6 = (g - 1) / (g + 1);
      return k.rho * (ratio + g6) / (g6 * ratio + 1);
    }
    return k.rho * std::pow(ratio, 1 / g);
  }

  double g_;
  GasState l_, r_;
  double cl_, cr_;
  double p_star_ = 0.0, u_star_ = 0.0;
  int iterations_ = 0;
};

// The reference itself, against Toro's table 4.3 (test 1, Sod: p* =
// 0.30313, u* = 0.92745, rho*L = 0.42632, rho*R = 0.26557, rounded to five
// decimals, so within 5e-6), and the Rankine-Hugoniot conditions of
// its shock (mass and momentum flux continuous in the shock's frame, to
// round-off).
TEST(EulerUnsteadyReference, ExactRiemannSolverReproducesToro) {
  const ExactRiemann sod(gamma_air, sod_left, sod_right);
  say("[unsteady] exact Riemann (Sod): p* = %.8f, u* = %.8f, rho*L = %.8f, rho*R = %.8f, shock "
      "speed %.8f, %d Newton iterations\n",
      sod.p_star(), sod.u_star(), sod.rho_star_left(), sod.rho_star_right(),
      sod.right_shock_speed(), sod.iterations());
  EXPECT_NEAR(sod.p_star(), 0.30313, 5e-6);
  EXPECT_NEAR(sod.u_star(), 0.92745, 5e-6);
  EXPECT_NEAR(sod.rho_star_left(), 0.42632, 5e-6);
  EXPECT_NEAR(sod.rho_star_right(), 0.26557, 5e-6);
  const double s = sod.right_shock_speed();
  const double m1 = sod_right.rho * (sod_right.u - s),
               m2 = sod.rho_star_right() * (sod.u_star() - s);
  const double i1 = sod_right.p + sod_right.rho * std::pow(sod_right.u - s, 2);
  const double i2 = sod.p_star() + sod.rho_star_right() * std::pow(sod.u_star() - s, 2);
  EXPECT_NEAR(m1, m2, 1e-13);
  EXPECT_NEAR(i1, i2, 1e-13);
  // The fan joins the left state and the star state continuously.
  const double head = sod_left.u - std::sqrt(gamma_air * sod_left.p / sod_left.rho);
  EXPECT_NEAR(sod.sample(head + 1e-12).rho, sod_left.rho, 1e-10);
  const double c_star = std::sqrt(gamma_air * sod.p_star() / sod.rho_star_left());
  EXPECT_NEAR(sod.sample(sod.u_star() - c_star - 1e-12).rho, sod.rho_star_left(), 1e-10);
}

// ================================================================== (a) Sod

// The strip, its boundary conditions and initial state: sod_conditions and
// sod_initial_state() in tests/solvers/euler/unsteady_test_utils.hpp.
struct SodRun {
  std::vector<double> rho;     // every cell, by global id
  std::vector<double> column;  // column i (x = (i + 1/2) / n): mean density of its cells
  index_t steps = 0;
  double seconds = 0.0;
};

Tensor owned_column(const Discretization& disc, const std::vector<double>& values, int column,
                    int stride) {
  std::vector<double> v(static_cast<size_t>(disc.n_local()), 0.0);
  for (index_t c = 0; c < disc.n_owned(); ++c)
    v[static_cast<size_t>(c)] = values[static_cast<size_t>(c * stride + column)];
  Tensor t({disc.n_local()});
  t.assign(v);
  return t;
}

SodRun run_sod(int n, MPI_Comm comm, const SpatialOptions& spatial, double cfl) {
  mesh::DistributedMesh dm(mesh::rectangle(n, sod_rows, 1.0, sod_height), comm);
  const Discretization disc(dm, sod_flow(), sod_conditions, FluxScheme::roe, spatial);
  Tensor U = sod_initial_state(disc);
  const auto start = std::chrono::steady_clock::now();
  const AdvanceSummary summary = advance(disc, U, sod_time, cfl);
  SodRun run;
  run.seconds = seconds_since(start);
  run.steps = summary.n_steps;
  EXPECT_EQ(summary.time, sod_time);
  const auto centroid = host_centroids(disc);
  std::vector<double> x(static_cast<size_t>(disc.n_local()));
  for (index_t c = 0; c < disc.n_owned(); ++c) x[static_cast<size_t>(c)] = centroid(c, 0);
  run.rho =
      par::gather_owned(owned_column(disc, U.to_vector(), 0, nv), dm.distribution()).to_vector();
  const std::vector<double> xs =
      par::gather_owned(owned_column(disc, x, 0, 1), dm.distribution()).to_vector();
  run.column.assign(static_cast<size_t>(n), 0.0);
  for (size_t i = 0; i < xs.size(); ++i) {
    const auto col = static_cast<size_t>(std::floor(xs[i] * n));
    run.column[col] += run.rho[i] / sod_rows;
  }
  return run;
}

// L1 error of density against the exact solution's cell averages (each
// column of width h = 1/n averaged over 64 midpoint samples, so the average
// is exact away from the one or two cells a wave crosses, and within
// h / 64 of the jump there: ~1e-4 / n, below the measured errors).
double sod_l1_error(const SodRun& run, const ExactRiemann& exact) {
  const size_t n = run.column.size();
  const double h = 1.0 / static_cast<double>(n);
  constexpr int samples = 64;
  double e = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double average = 0.0;
    for (int q = 0; q < samples; ++q) {
      const double x = h * (static_cast<double>(i) + (q + 0.5) / samples);
      average += exact.sample((x - sod_diaphragm) / sod_time).rho;
    }
    e += h * std::abs(run.column[i] - average / samples);
  }
  return e;
}

// Where the column densities cross `level` going down, searched leftward
// from x_from: linear interpolation between the two column centres.
double crossing(const SodRun& run, double level, double x_from) {
  const size_t n = run.column.size();
  const auto x = [&](size_t i) { return (static_cast<double>(i) + 0.5) / static_cast<double>(n); };
  for (size_t k = n - 1; k > 0; --k) {
    const size_t i = k - 1;
    if (x(k) > x_from) continue;
    const double a = run.column[i], b = run.column[k];
    if (a >= level && b < level) return x(i) + (level - a) / (b - a) * (x(k) - x(i));
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// First order (Roe, CFL 0.9). A monotone first-order scheme smears a
// contact over O(sqrt(h t)) cells' worth of width (linear waves are not
// self-steepening), an L1 error of order h^(1/2); shocks stay O(h) wide and
// rarefactions converge at order ~1 in L1 (the classical h^(p/(p+1))
// estimate for a contact under a p-th order scheme, p = 1). The total error's
// observed order therefore lies between 1/2 and 1 (on the coarsest meshes
// the smeared contact fills much of the plateau between it and the shock,
// which holds the order near the lower end): asserted in [0.45, 1.05] for
// each doubling, with the error falling. Positions: the shock's mid-level crossing
// (rho*R + rho_R)/2 and the contact's (rho*L + rho*R)/2 lie within two
// cells of x = 0.5 + S t and 0.5 + u* t (a conservative scheme puts the
// shock where the Rankine-Hugoniot speed does, to O(h); the smeared contact
// is nearly symmetric about its exact position).
TEST(EulerUnsteadySod, FirstOrderL1ErrorFallsAtTheRateOfDiscontinuousData) {
  const ExactRiemann exact(gamma_air, sod_left, sod_right);
  const double x_shock = sod_diaphragm + exact.right_shock_speed() * sod_time;
  const double x_contact = sod_diaphragm + exact.u_star() * sod_time;
  const double shock_level = 0.5 * (exact.rho_star_right() + sod_right.rho);
  const double contact_level = 0.5 * (exact.rho_star_left() + exact.rho_star_right());
  const std::vector<int> sizes = {50, 100, 200, 400};
  std::vector<double> l1;
  for (int n : sizes) {
    const SodRun run = run_sod(n, world(), SpatialOptions{}, 0.9);
    const double h = 1.0 / n;
    l1.push_back(sod_l1_error(run, exact));
    const double xs = crossing(run, shock_level, 1.0);
    const double xc = crossing(run, contact_level, xs);
    say("[unsteady] Sod, first order, n = %3d: L1(rho) = %.4e, shock at %.4f (exact %.4f, "
        "%+.2f cells), contact at %.4f (exact %.4f, %+.2f cells); %lld steps, %.2f s\n",
        n, l1.back(), xs, x_shock, (xs - x_shock) / h, xc, x_contact, (xc - x_contact) / h,
        static_cast<long long>(run.steps), run.seconds);
    EXPECT_LE(std::abs(xs - x_shock), 2.0 * h) << "n = " << n;
    EXPECT_LE(std::abs(xc - x_contact), 2.0 * h) << "n = " << n;
  }
  for (size_t i = 1; i < sizes.size(); ++i) {
    const double order = observed_order(l1[i - 1], l1[i]);
    say("[unsteady] Sod, first order: observed L1 order %d -> %d: %.3f\n", sizes[i - 1], sizes[i],
        order);
    EXPECT_LT(l1[i], l1[i - 1]);
    EXPECT_GE(order, 0.45);
    EXPECT_LE(order, 1.05);
  }
}

// Second order (Venkatakrishnan's limiter, CFL 0.5): on discontinuous data
// the contact still spreads, its L1 error now O(h^(2/3)) (h^(p/(p+1)), p =
// 2), shocks and the limited fan O(h): observed orders in [0.55, 1.05]
// (2/3 less a margin for the coarse meshes, up to the shock's 1). The
// error is smaller than the first-order scheme's on every mesh: asserted
// below 75% of it (a margin far from what second order gains in practice,
// which is a factor of 3 or more on these meshes).
TEST(EulerUnsteadySod, SecondOrderIsMoreAccurateThanFirstOrder) {
  const ExactRiemann exact(gamma_air, sod_left, sod_right);
  SpatialOptions second;
  second.order = 2;
  const std::vector<int> sizes = {50, 100, 200};
  std::vector<double> l1;
  for (int n : sizes) {
    const SodRun first_run = run_sod(n, world(), SpatialOptions{}, 0.9);
    const SodRun run = run_sod(n, world(), second, 0.5);
    const double e1 = sod_l1_error(first_run, exact);
    l1.push_back(sod_l1_error(run, exact));
    say("[unsteady] Sod, second order (Venkatakrishnan K = 5), n = %3d: L1(rho) = %.4e (first "
        "order %.4e); %lld steps, %.2f s\n",
        n, l1.back(), e1, static_cast<long long>(run.steps), run.seconds);
    EXPECT_LT(l1.back(), 0.75 * e1) << "n = " << n;
  }
  for (size_t i = 1; i < sizes.size(); ++i) {
    const double order = observed_order(l1[i - 1], l1[i]);
    say("[unsteady] Sod, second order: observed L1 order %d -> %d: %.3f\n", sizes[i - 1], sizes[i],
        order);
    EXPECT_LT(l1[i], l1[i - 1]);
    EXPECT_GE(order, 0.55);
    EXPECT_LE(order, 1.05);
  }
}

// ================================================================== (b) isentropic vortex

// The vortex itself (Vortex, exact at every time): tests/solvers/euler/
// unsteady_test_utils.hpp.
struct VortexRun {
  double l2 = 0.0;  // area-weighted RMS density error
  index_t steps = 0;
  double seconds = 0.0;
};

// The vortex in the box [0, 2 half_width]^2 of n x n quads, far field all
// round, from centre (half_width - d/2, half_width) to (half_width + d/2,
// half_width), d = M t_end: it moves d and stays in the middle.
VortexRun run_vortex(int n, double half_width, const SpatialOptions& spatial, double cfl,
                     double t_end, const Vortex& shape) {
  Vortex v = shape;
  v.x0 = half_width - 0.5 * v.u_inf() * t_end;
  v.y0 = half_width - 0.5 * v.v_inf() * t_end;
  const double side = 2.0 * half_width;
  mesh::DistributedMesh dm(mesh::rectangle(n, n, side, side), world());
  const Discretization disc(dm, vortex_flow(v), far_field_all_round, FluxScheme::roe, spatial);
  Tensor U = vortex_state(disc, v, 0.0);
  const auto start = std::chrono::steady_clock::now();
  const AdvanceSummary summary = advance(disc, U, t_end, cfl);
  VortexRun run;
  run.seconds = seconds_since(start);
  run.steps = summary.n_steps;
  const auto centroid = host_centroids(disc);
  const auto volume =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_volume);
  const std::vector<double> u = U.to_vector();
  double sum = 0.0, area = 0.0;
  for (index_t c = 0; c < disc.n_owned(); ++c) {
    const double exact = v.at(centroid(c, 0), centroid(c, 1), t_end).rho;
    sum += volume(c) * std::pow(u[static_cast<size_t>(c * nv)] - exact, 2);
    area += volume(c);
  }
  run.l2 = std::sqrt(par::allreduce_sum(sum, world()) / par::allreduce_sum(area, world()));
  return run;
}

// The box [-5, 5]^2 around the vortex's path (it moves from x = -0.5 to
// 0.5, one core radius, by t = 2 at M = 0.5): at the boundary, 4.5 or more
// core radii from the centre, the vortex's velocity is <= 0.8 * 4.5 *
// exp(-9.6) / sqrt(1.4) ~ 2e-4 and its density perturbation ~1e-9, which
// the far-field condition truncates: a reflection of that size at the
// boundary, below the schemes' own density errors in the RMS over the box.
constexpr double vortex_half_width = 5.0;
constexpr double vortex_time = 2.0;

// First order (CFL 0.9): e = C h + o(h). On coarse meshes the scheme's
// diffusion all but wipes the vortex out, and the error saturates at the
// vortex's own size, so observed orders approach 1 from below: asserted
// >= 0.8 on the finest pair (h = 0.125 -> 0.0625) and <= 1.2 on both (a
// first-order scheme does not converge faster), the coarse pair reported.
TEST(EulerUnsteadyVortex, FirstOrderSchemeConvergesAtFirstOrder) {
  const std::vector<int> sizes = {40, 80, 160};
  std::vector<double> l2;
  for (int n : sizes) {
    const VortexRun run =
        run_vortex(n, vortex_half_width, SpatialOptions{}, 0.9, vortex_time, Vortex{});
    l2.push_back(run.l2);
    say("[unsteady] vortex, first order, %3d x %-3d (h = %.4f): L2(rho) = %.4e; %lld steps, "
        "%.2f s\n",
        n, n, 2 * vortex_half_width / n, run.l2, static_cast<long long>(run.steps), run.seconds);
  }
  for (size_t i = 1; i < sizes.size(); ++i) {
    const double order = observed_order(l2[i - 1], l2[i]);
    say("[unsteady] vortex, first order: observed L2 order %d -> %d: %.3f\n", sizes[i - 1],
        sizes[i], order);
    EXPECT_LT(l2[i], l2[i - 1]);
    EXPECT_LE(order, 1.2);
    if (i + 1 == sizes.size()) {
      EXPECT_GE(order, 0.8);
    }
  }
}

// Second order (SpatialOptions::order = 2: least-squares gradients) with
// SSP-RK3 at CFL 0.5: e = C h^2 + O(h^3) in space, O(dt^3) = O(h^3) in
// time. Observed orders >= 1.8 on the finer pair (h = 0.25 -> 0.125; the
// issue's requirement), the coarse pair reported, for both limiters:
// without one (LimiterKind::none, the accuracy study) and with
// Venkatakrishnan's (K = 5). That limiter keeps second order on smooth
// data by design (Venkatakrishnan 1995): phi = 1 where a cell's neighbour
// range is twice its face increment (D1 = 2 D2, away from extrema), and
// eps^2 = (K h)^3 holds it near 1 at smooth extrema in a region that
// shrinks with h. Here |grad W| <= 1.2 (the swirl at the centre), so the
// face increments D2 <= 0.6 h, and eps^2 exceeds D2^2 by a factor >= 40 on
// these meshes (h >= 0.125): phi >= ~0.95 everywhere.
TEST(EulerUnsteadyVortex, SecondOrderSchemeConvergesAtSecondOrder) {
  const std::vector<int> sizes = {20, 40, 80};
  for (LimiterKind limiter : {LimiterKind::none, LimiterKind::venkatakrishnan}) {
    SpatialOptions second;
    second.order = 2;
    second.limiter = limiter;
    std::vector<double> l2;
    for (int n : sizes) {
      const VortexRun run = run_vortex(n, vortex_half_width, second, 0.5, vortex_time, Vortex{});
      l2.push_back(run.l2);
      say("[unsteady] vortex, second order, limiter %s, %3d x %-3d (h = %.4f): L2(rho) = %.4e; "
          "%lld steps, %.2f s\n",
          limiter_kind_name(limiter), n, n, 2 * vortex_half_width / n, run.l2,
          static_cast<long long>(run.steps), run.seconds);
    }
    for (size_t i = 1; i < sizes.size(); ++i) {
      const double order = observed_order(l2[i - 1], l2[i]);
      say("[unsteady] vortex, second order, limiter %s: observed L2 order %d -> %d: %.3f\n",
          limiter_kind_name(limiter), sizes[i - 1], sizes[i], order);
      EXPECT_LT(l2[i], l2[i - 1]);
      if (i + 1 == sizes.size()) {
        EXPECT_GE(order, 1.8) << limiter_kind_name(limiter);
      }
    }
  }
}

}  // namespace
}  // namespace camber::solvers::euler
