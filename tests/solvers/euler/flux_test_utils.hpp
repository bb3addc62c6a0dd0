// Helpers of the Euler flux, gas and boundary tests (test_ideal_gas.cpp,
// test_flux.cpp, test_boundary.cpp, test_reconstruction.cpp): random states
// and normals, the scales errors are measured in, reference fluxes and the
// reusable checks.
//
// The tests of the compressible Euler layer of solvers/euler/: the ideal-gas
// model, the physical, Roe and HLLC fluxes, the slip-wall flux and the
// characteristic far field, in double and through Duals.
//
// Every expected value is math: the Cartesian flux formulas, the exact
// properties of a consistent conservative upwind flux (consistency,
// antisymmetry, rotational invariance, supersonic upwinding), exact
// solutions the schemes must reproduce (a stationary contact, a stationary
// normal shock from the Rankine-Hugoniot relations), Riemann invariants, and
// central finite differences for the derivatives.
//
// Errors are measured per flux component relative to the size of the terms
// that make it up, for state U through normal n with speed |u| + c:
//   mass |n| rho (|u|+c),  momentum |n| rho (|u|+c)^2,  energy |n| rho H (|u|+c),
// and per state component relative to rho, rho (|u| + c), rho E; so a
// tolerance of k * 1e-16 means "k roundings of the largest term".
// Derivatives are compared in the same units: dF_i/dU_k times the scale of
// U_k over the scale of F_i (the change of F_i, relative to its size, for a
// relative change of U_k), which stays meaningful where an entry is zero
// (the upwind side of a supersonic face, the mass row of the wall flux).
// Finite-difference tolerances follow the error model of a central
// difference with step h relative to the variable: truncation h^2 |f^(3)| / 6
// plus rounding eps |f| / h, i.e. ~1e-12 + ~1e-10 relative for h = 1e-6;
// the tolerance 1e-7 leaves three orders of margin. Each test prints the
// worst error it saw ("worst ...").
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <type_traits>

#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/jacobian.hpp>
#include <camber/solvers/euler/boundary.hpp>
#include <camber/solvers/euler/flux.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/solvers/euler/reconstruction.hpp>

namespace camber_test_euler_flux {

namespace ad = camber::ad;
namespace eu = camber::solvers::euler;
using State = eu::Conserved<double, 2>;
using Prim = eu::Primitive<double, 2>;
using D4 = ad::Dual<double, 4>;
using DD4 = ad::Dual<D4, 4>;

const eu::IdealGas air{1.4};
const double gam = 1.4;
const double pi = 3.14159265358979323846;

// ------------------------------------------------------------------ helpers

// The worst error of a check over its samples, compared with its tolerance
// at the end and printed for the record.
struct Worst {
  const char* what;
  double tol;
  double max = 0.0;
  int n = 0;
  void add(double e, int samples = 1) {
    n += samples;
    if (!(e <= max)) max = e;  // NaN sticks
  }
  void check() const {
    std::printf("  worst %-52s %9.2e  (tol %.0e, %d samples)\n", what, max, tol, n);
    EXPECT_GT(n, 0) << what;
    EXPECT_LE(max, tol) << what;
  }
};

struct Rng {
  std::mt19937_64 gen;
  explicit Rng(unsigned long seed) : gen(seed) {}
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(gen); }
};

// Test-side formulas, independent of the code under test.
inline double pressure_of(const State& u) {
  return (gam - 1.0) * (u[3] - 0.5 * (u[1] * u[1] + u[2] * u[2]) / u[0]);
}
inline double sound_of(const State& u) { return std::sqrt(gam * pressure_of(u) / u[0]); }
inline double norm2(const double (&n)[2]) { return std::hypot(n[0], n[1]); }

inline State conserved(double rho, double u, double v, double p) {
  return State{{rho, rho * u, rho * v, p / (gam - 1.0) + 0.5 * rho * (u * u + v * v)}};
}

// rho, p in [0.5, 2], speed up to mach_max * c in a random direction.
inline State random_state(Rng& rng, double mach_max) {
  const double rho = rng.uniform(0.5, 2.0), p = rng.uniform(0.5, 2.0);
  const double speed = rng.uniform(0.0, mach_max) * std::sqrt(gam * p / rho);
  const double angle = rng.uniform(0.0, 2.0 * pi);
  return conserved(rho, speed * std::cos(angle), speed * std::sin(angle), p);
}

// Area-weighted normal: random direction, length in [0.1, 3].
inline void random_normal(Rng& rng, double (&n)[2]) {
  const double angle = rng.uniform(0.0, 2.0 * pi), len = rng.uniform(0.1, 3.0);
  n[0] = len * std::cos(angle);
  n[1] = len * std::sin(angle);
}

// Component scales of a flux of u through n (see the file comment); for two
// states the larger of each.
inline State flux_scale(const State& u, const double (&n)[2]) {
  const double speed = std::hypot(u[1], u[2]) / u[0] + sound_of(u);
  const double h = (u[3] + pressure_of(u)) / u[0];
  const double a = norm2(n);
  return State{
      {a * u[0] * speed, a * u[0] * speed * speed, a * u[0] * speed * speed, a * u[0] * h * speed}};
}
inline State flux_scale(const State& ul, const State& ur, const double (&n)[2]) {
  const State sl = flux_scale(ul, n), sr = flux_scale(ur, n);
  State s;
  for (int i = 0; i < 4; ++i) s[i] = std::max(sl[i], sr[i]);
  return s;
}
// Scales of a state's components: rho, rho (|u| + c), rho E.
inline State state_scale(const State& u) {
  const double speed = std::hypot(u[1], u[2]) / u[0] + sound_of(u);
  return State{{u[0], u[0] * speed, u[0] * speed, u[3]}};
}

inline double scaled_error(const State& a, const State& b, const State& scale) {
  double e = 0.0;
  for (int i = 0; i < 4; ++i) {
    const double ei = std::abs(a[i] - b[i]) / scale[i];
    if (!(ei <= e)) e = ei;
  }
  return e;
}

// F(U).n from the Cartesian fluxes F = (rho u, rho u^2 + p, rho u v, u (rho E + p)),
// G = (rho v, rho u v, rho v^2 + p, v (rho E + p)).
inline State cartesian_flux(const State& u, const double (&n)[2]) {
  const double p = pressure_of(u), vx = u[1] / u[0], vy = u[2] / u[0];
  const double f[4] = {u[1], u[1] * vx + p, u[1] * vy, vx * (u[3] + p)};
  const double g[4] = {u[2], u[2] * vx, u[2] * vy + p, vy * (u[3] + p)};
  State r;
  for (int i = 0; i < 4; ++i) r[i] = f[i] * n[0] + g[i] * n[1];
  return r;
}

// The normal velocities, sound speeds and Roe-averaged ones (weights
// sqrt(rho)) of a face, for choosing samples away from the fluxes' kinks.
struct Speeds {
  double ql, qr, cl, cr, qa, ca;
};
inline Speeds wave_speeds(const State& ul, const State& ur, const double (&n)[2]) {
  const double a = norm2(n), nx = n[0] / a, ny = n[1] / a;
  const double sl = std::sqrt(ul[0]), sr = std::sqrt(ur[0]);
  const double hl = (ul[3] + pressure_of(ul)) / ul[0], hr = (ur[3] + pressure_of(ur)) / ur[0];
  const double ux = (ul[1] / sl + ur[1] / sr) / (sl + sr),
               uy = (ul[2] / sl + ur[2] / sr) / (sl + sr);
  const double h = (sl * hl + sr * hr) / (sl + sr);
  Speeds s;
  s.ql = (ul[1] * nx + ul[2] * ny) / ul[0];
  s.qr = (ur[1] * nx + ur[2] * ny) / ur[0];
  s.cl = sound_of(ul);
  s.cr = sound_of(ur);
  s.qa = ux * nx + uy * ny;
  s.ca = std::sqrt((gam - 1.0) * (h - 0.5 * (ux * ux + uy * uy)));
  return s;
}

// True when every switch of Roe's flux (eigenvalue signs, the entropy fix's
// gate and clamps) and of HLLC (S_L, S*, S_R signs, min/max ties) is at
// least margin * max(c_L, c_R) away, so that finite differences with a much
// smaller step stay on one smooth branch.
inline bool away_from_kinks(const State& ul, const State& ur, const double (&n)[2], double margin) {
  const Speeds s = wave_speeds(ul, ur, n);
  const double m = margin * std::max(s.cl, s.cr);
  const double speeds[] = {s.qa - s.ca, s.qa,        s.qa + s.ca, s.ql - s.cl,
                           s.ql + s.cl, s.qr - s.cr, s.qr + s.cr};
  for (double v : speeds)
    if (std::abs(v) < m) return false;
  for (int k = -1; k <= 1; k += 2) {
    const double l = s.ql + k * s.cl, r = s.qr + k * s.cr, a = s.qa + k * s.ca;
    if (l < 0 && r > 0 && (std::abs(a - l) < m || std::abs(a - r) < m)) return false;
  }
  const double s_l_own = s.ql - s.cl, s_l_roe = s.qa - s.ca;
  const double s_r_own = s.qr + s.cr, s_r_roe = s.qa + s.ca;
  if (std::abs(s_l_own - s_l_roe) < m || std::abs(s_r_own - s_r_roe) < m) return false;
  const double s_l = std::min(s_l_own, s_l_roe), s_r = std::max(s_r_own, s_r_roe);
  const double pl = pressure_of(ul), pr = pressure_of(ur);
  const double s_star = (pr - pl + ul[0] * s.ql * (s_l - s.ql) - ur[0] * s.qr * (s_r - s.qr)) /
                        (ul[0] * (s_l - s.ql) - ur[0] * (s_r - s.qr));
  return std::abs(s_star) >= m;
}

// The fluxes as generic callables f(U_L, U_R, n), for double and Dual states.
const auto roe = [](const auto& ul, const auto& ur, const double (&n)[2]) {
  return eu::roe_flux(air, ul, ur, n);
};
const auto hllc = [](const auto& ul, const auto& ur, const double (&n)[2]) {
  return eu::hllc_flux(air, ul, ur, n);
};

// ------------------------------------------------------------------ reusable checks

// Worst scaled |F_num(U, U, n) - F(U).n| over `samples` random states
// (Mach up to 3) and normals.
template <class Flux>
double consistency_error(const Flux& flux, int samples, unsigned long seed) {
  Rng rng(seed);
  double worst = 0.0;
  for (int s = 0; s < samples; ++s) {
    const State u = random_state(rng, 3.0);
    double n[2];
    random_normal(rng, n);
    const double e = scaled_error(flux(u, u, n), eu::physical_flux(air, u, n), flux_scale(u, n));
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

// Worst error of the Dual Jacobians dF/dU_L and dF/dU_R of `flux`
// (Dual<double, 4>, one side seeded, the other constant) against central
// differences of its double version, with step h_k = 1e-6 * state_scale_k,
// in the units of the file comment: |J_ad - J_fd|_ik * state_scale_k /
// out_scale_i (out_scale: flux_scale for a flux, state_scale for a state).
template <class Flux>
double jacobian_error(const Flux& flux, const State& ul, const State& ur, const double (&n)[2],
                      const State& out_scale) {
  double worst = 0.0;
  for (int side = 0; side < 2; ++side) {
    const auto fd = side == 0 ? flux(eu::make_variable_state(ul), eu::state_cast<D4>(ur), n)
                              : flux(eu::state_cast<D4>(ul), eu::make_variable_state(ur), n);
    const State& u = side == 0 ? ul : ur;
    const State scale = state_scale(u);
    for (int k = 0; k < 4; ++k) {
      State up = u, dn = u;
      up[k] += 1e-6 * scale[k];
      dn[k] -= 1e-6 * scale[k];
      const State fp = side == 0 ? flux(up, ur, n) : flux(ul, up, n);
      const State fm = side == 0 ? flux(dn, ur, n) : flux(ul, dn, n);
      for (int i = 0; i < 4; ++i) {
        const double j_fd = (fp[i] - fm[i]) / (up[k] - dn[k]);
        const double e = std::abs(fd[i].der(k) - j_fd) * scale[k] / out_scale[i];
        if (!(e <= worst)) worst = e;
      }
    }
  }
  return worst;
}


}  // namespace camber_test_euler_flux
