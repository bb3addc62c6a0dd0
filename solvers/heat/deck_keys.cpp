#include "deck_keys.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <camber/core/error.hpp>

namespace camber::solvers::heat {

using deck::IntRange;
using deck::Length;
using deck::Keys;
using deck::Range;

const Keys<HeatProblem>& heat_problem_keys() {
  static const Keys<HeatProblem> keys =
      Keys<HeatProblem>()
          .real("conductivity_W_per_mK", &HeatProblem::conductivity, Range::positive(),
                "Thermal conductivity k, in W/(m K).")
          .choice("manufactured_solution", &HeatProblem::manufactured, heat_manufactured_solutions(),
                  "Exact solution that defines f and g. sin_exp: T = sin(pi x/Lx) exp(y/Ly) + x "
                  "y/(Lx Ly). linear: T = 1 + 2 x/Lx - 3 y/Ly (reproduced to round-off on "
                  "orthogonal meshes).");
  return keys;
}

const Keys<petsc::LinearSolverOptions>& linear_solver_keys() {
  using petsc::LinearSolverOptions;
  static const Keys<LinearSolverOptions> keys =
      Keys<LinearSolverOptions>()
          .choice("method", &LinearSolverOptions::method, {"cg", "gmres", "bcgs", "preonly"},
                  "Krylov method (PETSc KSPType). preonly with preconditioner lu is a direct solve.")
          .choice("preconditioner", &LinearSolverOptions::preconditioner,
                  {"hypre", "gamg", "bjacobi", "jacobi", "lu", "none"},
                  "Preconditioner (PETSc PCType). hypre is BoomerAMG; lu needs one rank.")
          .real("rel_tolerance", &LinearSolverOptions::rel_tolerance, Range(1e-16, 1.0).and_less_than(1.0),
                "Stop when the residual norm falls by this factor.")
          .integer("max_iterations", &LinearSolverOptions::max_iterations, IntRange::positive(),
                   "Fail when not converged after this many iterations.");
  return keys;
}

namespace {

// A point (x, y) in metres, as a list of two reals.
template <class S>
deck::Keys<S>& center_key(deck::Keys<S>& keys, std::array<double, 2> S::*member) {
  return keys.custom(
      "center_m",
      [member](deck::Section& s, const S& d) {
        s.reals("center_m", {(d.*member)[0], (d.*member)[1]}, Length::exactly(2), Range::all(),
                "c = (x, y), m.");
      },
      [member](const deck::Deck& deck, const std::string& path, S& s) {
        const std::vector<double>& c = deck.reals(path);
        s.*member = {c[0], c[1]};
      });
}

const Keys<TwinExperiment>& twin_heat_keys() {
  static const Keys<TwinExperiment> keys =
      Keys<TwinExperiment>()
          .real("heat_capacity_J_per_m3K", &TwinExperiment::heat_capacity, Range::positive(),
                "Volumetric heat capacity rho c, J/(m^3 K).")
          .real("initial_temperature_K", &TwinExperiment::initial_temperature, Range::all(),
                "T everywhere at t = 0, K.")
          .real("boundary_temperature_K", &TwinExperiment::boundary_temperature, Range::all(),
                "T held on every boundary marker, K.");
  return keys;
}

const Keys<GaussianBump>& source_keys() {
  static const Keys<GaussianBump> keys = [] {
    Keys<GaussianBump> k;
    k.real("power_W_per_m3", &GaussianBump::peak, Range::all(), "q0, W/m^3.");
    center_key(k, &GaussianBump::center);
    k.real("radius_m", &GaussianBump::radius, Range::positive(), "r, m.");
    return k;
  }();
  return keys;
}

const Keys<GaussianBump>& inclusion_keys() {
  static const Keys<GaussianBump> keys = [] {
    Keys<GaussianBump> k;
    k.real("background_W_per_mK", &GaussianBump::background, Range::positive(), "k_b, W/(m K).")
        .real("inclusion_W_per_mK", &GaussianBump::peak, Range::positive(),
              "k_i, the inclusion's peak, W/(m K).");
    center_key(k, &GaussianBump::center);
    k.real("radius_m", &GaussianBump::radius, Range::positive(), "r, m.");
    return k;
  }();
  return keys;
}

const Keys<TwinExperiment>& measurement_keys() {
  static const Keys<TwinExperiment> keys =
      Keys<TwinExperiment>()
          .integer("sensors_x", &TwinExperiment::sensors_x, IntRange(1, 10000),
                   "Sensors along x (at the centres of sensors_x equal strips).")
          .integer("sensors_y", &TwinExperiment::sensors_y, IntRange(1, 10000), "Sensors along y.")
          .reals("times_s", &TwinExperiment::times, Length::at_least(1), Range::positive(),
                 "Measurement times, increasing, s.")
          .real("noise_std_K", &TwinExperiment::noise_std, Range::non_negative(),
                "Standard deviation of the noise, K.")
          .integer("seed", &TwinExperiment::seed, IntRange(0, std::numeric_limits<std::int64_t>::max()),
                   "Seed of the noise.");
  return keys;
}

const Keys<TwinExperiment>& inversion_keys() {
  static const Keys<TwinExperiment> keys =
      Keys<TwinExperiment>()
          .real("initial_conductivity_W_per_mK", &TwinExperiment::initial_conductivity, Range::positive(),
                "The uniform starting guess.")
          .real("regularization", &TwinExperiment::regularization, Range::non_negative(),
                "beta, the weight of the smoothness penalty (sigma is the noise level, or 1 K "
                "without noise).")
          .real("min_conductivity_W_per_mK", &TwinExperiment::min_conductivity, Range::positive(),
                "Lower bound on k.")
          .real("max_conductivity_W_per_mK", &TwinExperiment::max_conductivity, Range::positive(),
                "Upper bound on k.")
          .integer("max_evaluations", &TwinExperiment::max_evaluations, IntRange(1, 100000),
                   "Most objective and gradient evaluations.");
  return keys;
}

const Keys<TwinExperiment>& integration_keys() {
  static const Keys<TwinExperiment> keys =
      Keys<TwinExperiment>()
          .real("rtol", &TwinExperiment::rtol, Range::positive().and_less_than(1.0),
                "Relative tolerance (forward and adjoint).")
          .real("atol", &TwinExperiment::atol, Range::positive(), "Absolute tolerance, K (forward and adjoint).")
          .integer("checkpoint_steps", &TwinExperiment::checkpoint_steps, IntRange(1, 100000000),
                   "Forward steps between checkpoints: memory (every step between two checkpoints "
                   "is stored) against recomputation.");
  return keys;
}

}  // namespace

void declare_twin_experiment(deck::Schema& s) {
  const TwinExperiment t;
  twin_heat_keys().declare(
      s.section("heat", "Transient conduction rho_c dT/dt = div(k grad T) + q, from a uniform T at t = 0."), t);
  source_keys().declare(s.section("source", "The heater q: a Gaussian q0 exp(-|x - c|^2 / r^2)."), t.source);
  inclusion_keys().declare(s.section("truth",
                                     "The conductivity the synthetic data come from (the field to "
                                     "recover): k = k_b + (k_i - k_b) exp(-|x - c|^2 / r^2)."),
                           t.conductivity);
  measurement_keys().declare(
      s.section("measurements",
                "Sensors on a grid over the mesh's bounding box, each reading the cell whose centroid "
                "is nearest, at a few times, with Gaussian noise."),
      t);
  inversion_keys().declare(
      s.section("inversion",
                "Minimize sum (T - d)^2 / (2 sigma^2) + (beta / 2) sum_faces |S|/d (m_L - m_R)^2 over "
                "m = log k per cell, by L-BFGS (NLopt) on the adjoint gradient."),
      t);
  integration_keys().declare(
      s.section("integration", "CVODES (BDF, Newton-GMRES with a Jacobi preconditioner) and its adjoint."), t);
}

void validate_twin_experiment(const deck::Deck& d) {
  double last = 0.0;
  for (double t : d.reals("measurements.times_s")) {
    if (!(t > last))
      d.reject("measurements.times_s", CAMBER_MSG("times must increase; " << t << " follows " << last));
    last = t;
  }
  const double lo = d.real("inversion.min_conductivity_W_per_mK");
  const double hi = d.real("inversion.max_conductivity_W_per_mK");
  const double k0 = d.real("inversion.initial_conductivity_W_per_mK");
  if (!(lo < hi))
    d.reject("inversion.max_conductivity_W_per_mK",
             CAMBER_MSG("must exceed min_conductivity_W_per_mK (" << lo << ")"));
  if (k0 < lo || k0 > hi)
    d.reject("inversion.initial_conductivity_W_per_mK",
             CAMBER_MSG(k0 << " lies outside the bounds [" << lo << ", " << hi << "]"));
}

TwinExperiment read_twin_experiment(const deck::Deck& d) {
  TwinExperiment t;
  twin_heat_keys().read(d, "heat", t);
  source_keys().read(d, "source", t.source);
  inclusion_keys().read(d, "truth", t.conductivity);
  measurement_keys().read(d, "measurements", t);
  inversion_keys().read(d, "inversion", t);
  integration_keys().read(d, "integration", t);
  return t;
}

}  // namespace camber::solvers::heat
