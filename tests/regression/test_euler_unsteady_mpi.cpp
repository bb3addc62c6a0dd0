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
//       (least-squares gradients, SpatialOptions::order = 2);
//   (c) conservation: with far-field boundaries all round, the totals of
//       mass, momentum and energy change only by what crosses the boundary,
//       which the test computes independently from the public flux
//       functions; and the interior fluxes cancel in the sum of the
//       residuals;
//   (d) the Sod solution does not depend on the rank count: gathered by
//       global cell id it equals a one-rank run to round-off;
//   (e) SSP-RK3 is third order in time (and the check sees forward Euler's
//       first order: it can fail); advance() lands exactly on t_end; a
//       non-physical state is an error naming the time and the cell.
// Each test prints its measured figures ("[unsteady] ...") for the record.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/euler/boundary.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/flux.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/solvers/euler/unsteady.hpp>
#include <camber/core/tensor.hpp>
#include "tests/mpi_test_utils.hpp"

namespace camber::solvers::euler {
namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double eps = std::numeric_limits<double>::epsilon();  // 2.2e-16
constexpr double gamma_air = 1.4;
constexpr int nv = 4;  // the conserved variables of a 2-D mesh (Discretization::n_vars())

MPI_Comm world() { return test::world(); }
int rank() { return test::rank(); }
using test::say;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double observed_order(double e_coarse, double e_fine, double refinement = 2.0) {
  return std::log(e_coarse / e_fine) / std::log(refinement);
}

// A {rows, 4} state from per-cell primitive values (cells [0, n_local)).
template <class F>
Tensor state_from(const Discretization& disc, F&& primitive_at_cell) {
  std::vector<double> values(static_cast<size_t>(disc.n_local() * nv));
  for (index_t c = 0; c < disc.n_local(); ++c) {
    const Conserved<double, 2> u = to_conserved(disc.gas(), primitive_at_cell(c));
    for (int k = 0; k < nv; ++k) values[static_cast<size_t>(c * nv + k)] = u[k];
  }
  Tensor U({disc.n_local(), nv});
  U.assign(values);
  return U;
}

Kokkos::View<double**>::HostMirror host_centroids(const Discretization& disc) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_centroid);
}

// ================================================================== exact Riemann solver

struct GasState {
  double rho, u, p;
};

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

constexpr GasState sod_left{1.0, 0.0, 1.0};
constexpr GasState sod_right{0.125, 0.0, 0.1};
constexpr double sod_diaphragm = 0.5;
constexpr double sod_time = 0.2;

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

// ================================================================== (a), (d) Sod

// A strip of n x 2 cells on [0, 1] x [0, 0.1]: transmissive ends (the
// interior's own flux), symmetry above and below, so the flow is 1-D. Two
// rows, not one: with one row a cell's face neighbours do not span the
// plane and the least-squares gradient of the second-order scheme is zero
// (first order; solvers/euler/reconstruction.hpp). The waves stay inside
// the strip until t = 0.2 (the fan's head reaches x = 0.26, the shock 0.85).
constexpr int sod_rows = 2;
constexpr double sod_height = 0.1;
const std::vector<BoundaryCondition> sod_conditions = {{"left", BoundaryKind::supersonic_outflow},
                                                       {"right", BoundaryKind::supersonic_outflow},
                                                       {"bottom", BoundaryKind::symmetry},
                                                       {"top", BoundaryKind::symmetry}};

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

Tensor sod_initial_state(const Discretization& disc) {
  const auto centroid = host_centroids(disc);
  return state_from(disc, [&](index_t c) {
    const GasState s = centroid(c, 0) < sod_diaphragm ? sod_left : sod_right;
    return Primitive<double, 2>{s.rho, {s.u, 0.0}, s.p};
  });
}

SodRun run_sod(int n, MPI_Comm comm, const SpatialOptions& spatial, double cfl) {
  mesh::DistributedMesh dm(mesh::rectangle(n, sod_rows, 1.0, sod_height), comm);
  FlowConditions flow;  // only gamma matters: no boundary here reads the free stream
  flow.gamma = gamma_air;
  const Discretization disc(dm, flow, sod_conditions, FluxScheme::roe, spatial);
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

// (d) The partition changes only the order in which each cell's (at most
// four) face fluxes, spectral-radius terms and (second order) least-squares
// and limiter terms are summed: a few roundings (~eps) per cell and stage.
// The first-order scheme is monotone (an L1 contraction) and the limited
// second-order one is stable with a continuous limiter, so differences do
// not grow beyond their sum over the ~100-200 steps: |difference| <~ 200 *
// 3 stages * 4 terms * eps * |rho| ~ 5e-13 for rho <= 1; 1e-12 asserted.
TEST(EulerUnsteadySod, SameDensityOnEveryRankCountAsOnOneRank) {
  constexpr int n = 100;
  for (const int order : {1, 2}) {
    SpatialOptions spatial;
    spatial.order = order;
    const double cfl = order == 1 ? 0.9 : 0.5;
    const SodRun all = run_sod(n, world(), spatial, cfl);
    std::vector<double> reference(all.rho.size(), 0.0);
    double one_rank_seconds = 0.0;
    if (rank() == 0) {
      const SodRun one = run_sod(n, MPI_COMM_SELF, spatial, cfl);
      reference = one.rho;
      one_rank_seconds = one.seconds;
    }
    CAMBER_CHECK_MPI(
        MPI_Bcast(reference.data(), static_cast<int>(reference.size()), MPI_DOUBLE, 0, world()));
    double worst = 0.0;
    for (size_t i = 0; i < reference.size(); ++i)
      worst = std::max(worst, std::abs(all.rho[i] - reference[i]));
    say("[unsteady] Sod n = %d, order %d, at %d ranks vs one rank: max |rho difference| = %.3e "
        "(%lld steps; %.2f s vs %.2f s)\n",
        n, order, test::size(), worst, static_cast<long long>(all.steps), all.seconds,
        one_rank_seconds);
    EXPECT_LE(worst, 1e-12) << "order " << order;
  }
}

// ================================================================== (b) isentropic vortex

// Shu's isentropic vortex (Shu, "Essentially non-oscillatory and weighted
// essentially non-oscillatory schemes for hyperbolic conservation laws",
// 1998; also Yee et al. 1999), written in Shu's variables (rho_inf = 1,
// p_inf = 1, T = p / rho, core radius 1):
//   du = -beta / (2 pi) exp((1 - r^2) / 2) (y - yc),
//   dv =  beta / (2 pi) exp((1 - r^2) / 2) (x - xc),
//   T  = 1 - (gamma - 1) beta^2 / (8 gamma pi^2) exp(1 - r^2),
//   rho = T^(1 / (gamma - 1)),  p = rho T  (p / rho^gamma = 1: isentropic),
// an exact steady solution of the Euler equations, carried unchanged by a
// uniform flow. Converted to the Discretization's units (rho_inf = 1,
// c_inf = 1): velocities / sqrt(gamma), pressure / gamma.
struct Vortex {
  double beta = 5.0;
  double mach = 0.5, alpha_deg = 0.0;
  double x0 = 0.0, y0 = 0.0;  // centre at t = 0

  double u_inf() const { return mach * std::cos(alpha_deg * pi / 180.0); }
  double v_inf() const { return mach * std::sin(alpha_deg * pi / 180.0); }
  Primitive<double, 2> at(double x, double y, double t) const {
    const double g = gamma_air;
    const double dx = x - (x0 + u_inf() * t), dy = y - (y0 + v_inf() * t);
    const double r2 = dx * dx + dy * dy;
    const double swirl = beta / (2 * pi) * std::exp(0.5 * (1 - r2));
    const double temperature = 1 - (g - 1) * beta * beta / (8 * g * pi * pi) * std::exp(1 - r2);
    const double rho = std::pow(temperature, 1 / (g - 1));
    const double scale = 1 / std::sqrt(g);
    return Primitive<double, 2>{
        rho, {u_inf() + scale * -swirl * dy, v_inf() + scale * swirl * dx}, rho * temperature / g};
  }
};

const std::vector<BoundaryCondition> far_field_all_round = {{"left", BoundaryKind::far_field},
                                                            {"right", BoundaryKind::far_field},
                                                            {"bottom", BoundaryKind::far_field},
                                                            {"top", BoundaryKind::far_field}};

FlowConditions vortex_flow(const Vortex& v) {
  FlowConditions flow;
  flow.gamma = gamma_air;
  flow.mach = v.mach;
  flow.alpha_deg = v.alpha_deg;
  return flow;
}

// Cell averages sampled at centroids: within O(h^2) of the true averages,
// below the error of either scheme.
Tensor vortex_state(const Discretization& disc, const Vortex& v, double t) {
  const auto centroid = host_centroids(disc);
  return state_from(disc, [&](index_t c) { return v.at(centroid(c, 0), centroid(c, 1), t); });
}

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

// ================================================================== (c) conservation

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

// ================================================================== (e) time integration

// Max over owned cells, components and ranks of |a - b|.
double max_difference(const Discretization& disc, const Tensor& a, const Tensor& b) {
  const std::vector<double> x = a.to_vector(), y = b.to_vector();
  double e = 0.0;
  for (index_t i = 0; i < disc.n_owned() * nv; ++i)
    e = std::max(e, std::abs(x[static_cast<size_t>(i)] - y[static_cast<size_t>(i)]));
  return par::allreduce_max(e, disc.mesh().comm());
}

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
  FlowConditions flow;
  flow.gamma = gamma_air;
  const Discretization disc(dm, flow, sod_conditions, FluxScheme::roe);
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

// A non-physical state is one error on every rank naming the time and the
// cell (global id and centroid): (1) a negative pressure in the initial
// state, found before the first step; (2) a step far beyond the CFL limit,
// whose first stage overshoots to a negative density or pressure at the
// stage's time. Bad arguments are bad_input.
TEST(EulerUnsteadyErrors, NonPhysicalStateNamesTimeAndCell) {
  constexpr int n = 40;
  mesh::DistributedMesh dm(mesh::rectangle(n, 1, 1.0, 0.1), world());
  FlowConditions flow;
  flow.gamma = gamma_air;
  const Discretization disc(dm, flow, sod_conditions, FluxScheme::roe);
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
  try {
    advance(disc, U, 0.2, 0.9, {}, 0.125);
    ADD_FAILURE() << "a negative pressure was not reported";
  } catch (const Error& e) {
    const std::string m = e.message();
    say("[unsteady] error message (negative initial pressure): %s\n", m.c_str());
    EXPECT_EQ(e.kind(), ErrorKind::failure);
    EXPECT_NE(m.find("t = 0.125"), std::string::npos) << m;
    EXPECT_NE(m.find("cell 17 (global id)"), std::string::npos) << m;
    EXPECT_NE(m.find("(x, y) = (0.4375, 0.05)"), std::string::npos) << m;
    EXPECT_NE(m.find("p = -0.5"), std::string::npos) << m;
  }

  // Sod's exact state everywhere (no bad cell), one step of 40 times the
  // CFL step: the expansion empties the cells next to the diaphragm.
  U = sod_initial_state(disc);
  const Tensor before = U.clone();
  const double dt = 40.0 * cfl_time_step(disc, U, 1.0);
  try {
    ssp_rk3_step(disc, U, dt, 1.0);
    ADD_FAILURE() << "a step of 40 times the CFL limit was not reported";
  } catch (const Error& e) {
    const std::string m = e.message();
    say("[unsteady] error message (step 40x the CFL limit): %s\n", m.c_str());
    EXPECT_NE(m.find("non-physical state at t = "), std::string::npos) << m;
    EXPECT_NE(m.find("after stage 1 of the SSP-RK3 step from t = 1 "), std::string::npos) << m;
    EXPECT_NE(m.find("(global id) at (x, y) = ("), std::string::npos) << m;
  }
  EXPECT_EQ(max_difference(disc, U, before), 0.0) << "a failed step must leave U unchanged";

  // Bad input.
  for (const double cfl : {0.0, -1.0, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    try {
      advance(disc, U, 0.2, cfl);
      ADD_FAILURE() << "CFL " << cfl << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_input) << e.message();
    }
  }
  try {
    advance(disc, U, 0.1, 0.5, {}, 0.2);
    ADD_FAILURE() << "t_end < t_start accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input) << e.message();
  }
}

}  // namespace
}  // namespace camber::solvers::euler
