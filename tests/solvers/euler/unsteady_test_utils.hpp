// Shared helpers of the time-accurate Euler tests (solvers/euler/
// unsteady.hpp: tests/solvers/euler/test_unsteady_mpi.cpp, and the
// validation in tests/regression/test_euler_unsteady_mpi.cpp): states from
// primitive values per cell, Sod's shock-tube strip, and Shu's isentropic
// vortex, exact at every time.
#pragma once

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <vector>

#include <camber/solvers/euler/boundary.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/core/tensor.hpp>
#include "tests/solvers/euler/euler_test_utils.hpp"

namespace camber::solvers::euler::test_utils {

constexpr double gamma_air = 1.4;

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double observed_order(double e_coarse, double e_fine, double refinement = 2.0) {
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

inline Kokkos::View<double**>::HostMirror host_centroids(const Discretization& disc) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_centroid);
}

// ------------------------------------------------------------------ Sod's shock tube

struct GasState {
  double rho, u, p;
};

constexpr GasState sod_left{1.0, 0.0, 1.0};
constexpr GasState sod_right{0.125, 0.0, 0.1};
constexpr double sod_diaphragm = 0.5;
constexpr double sod_time = 0.2;

// A strip of n x 2 cells on [0, 1] x [0, 0.1]: transmissive ends (the
// interior's own flux), symmetry above and below, so the flow is 1-D. Two
// rows, not one: with one row a cell's face neighbours do not span the
// plane and the least-squares gradient of the second-order scheme is zero
// (first order; solvers/euler/reconstruction.hpp). The waves stay inside
// the strip until t = 0.2 (the fan's head reaches x = 0.26, the shock 0.85).
constexpr int sod_rows = 2;
constexpr double sod_height = 0.1;
inline const std::vector<BoundaryCondition> sod_conditions = {
    {"left", BoundaryKind::supersonic_outflow},
    {"right", BoundaryKind::supersonic_outflow},
    {"bottom", BoundaryKind::symmetry},
    {"top", BoundaryKind::symmetry}};

inline FlowConditions sod_flow() {
  FlowConditions flow;  // only gamma matters: no boundary here reads the free stream
  flow.gamma = gamma_air;
  return flow;
}

inline Tensor sod_initial_state(const Discretization& disc) {
  const auto centroid = host_centroids(disc);
  return state_from(disc, [&](index_t c) {
    const GasState s = centroid(c, 0) < sod_diaphragm ? sod_left : sod_right;
    return Primitive<double, 2>{s.rho, {s.u, 0.0}, s.p};
  });
}

// ------------------------------------------------------------------ isentropic vortex

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

inline const std::vector<BoundaryCondition> far_field_all_round = {
    {"left", BoundaryKind::far_field},
    {"right", BoundaryKind::far_field},
    {"bottom", BoundaryKind::far_field},
    {"top", BoundaryKind::far_field}};

inline FlowConditions vortex_flow(const Vortex& v) {
  FlowConditions flow;
  flow.gamma = gamma_air;
  flow.mach = v.mach;
  flow.alpha_deg = v.alpha_deg;
  return flow;
}

// Cell averages sampled at centroids: within O(h^2) of the true averages,
// below the error of either scheme.
inline Tensor vortex_state(const Discretization& disc, const Vortex& v, double t) {
  const auto centroid = host_centroids(disc);
  return state_from(disc, [&](index_t c) { return v.at(centroid(c, 0), centroid(c, 1), t); });
}

}  // namespace camber::solvers::euler::test_utils
