// The gradient of the force coefficients with respect to shape design
// variables, through the whole chain: Hicks-Henne bumps -> wall
// displacement -> IDW mesh deformation -> node coordinates -> converged
// second-order Euler flow (design/, solvers/euler/steady_flow.hpp), at 1, 2
// and 4 ranks.
//
// Expected values are math:
//   * the reverse-mode gradient (one adjoint solve) against central
//     differences of converged solutions (each solved to round-off) for
//     every one of 10 bumps: 1e-5 of the gradient's largest component (the
//     objective is smooth: subsonic, no limiter);
//   * the gradient on all ranks equals the serial one (1e-8);
//   * the tangent/adjoint dot-product identity of the whole chain,
//     <w, J v> (forward mode: one tangent solve) = <J^T w, v> (reverse
//     mode), 1e-8 relative (the linear solves' tolerance is 1e-10);
//   * transonic, with the smooth limiter live: the gradient against central
//     differences of full solves (no frozen stand-in), 1e-5 of the largest
//     component, at the baseline and at a design away from it;
//   * the angle of attack as a second input: its derivatives against
//     central differences of full solves, and the dot product of the joint
//     map (bumps, alpha) -> (CL, CD, CM);
//   * the free-stream Mach number with it, (alpha, mach): the Mach
//     derivatives against central differences of full solves (1e-6
//     relative), and the dot product of (bumps, alpha, mach) -> (CL, CD, CM);
//   * with Venkatakrishnan's limiter, which SteadyFlow freezes during the
//     solve: the reverse-mode gradient against central differences of
//     solutions of the residual with the limiter frozen at the phi
//     SteadyFlow froze (the function the adjoint differentiates), 1e-5 of
//     the largest component as above.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <camber/autodiff/distributed_ops.hpp>
#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#include <camber/core/tensor.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace ad = camber::ad;
namespace eu = camber::solvers::euler;
using test::say;

eu::SteadyFlowSettings subsonic_settings() {
  eu::SteadyFlowSettings s;
  s.flow.mach = 0.5;
  s.flow.alpha_deg = 1.25;
  s.conditions = {{"airfoil", eu::BoundaryKind::slip_wall}, {"farfield", eu::BoundaryKind::far_field}};
  s.spatial.order = 2;
  s.spatial.limiter = eu::LimiterKind::none;
  s.steady.max_iterations = 200;
  s.steady.rel_tolerance = 1e-12;
  // Warm starts from a neighbouring design begin ~1e-6 from the solution:
  // stop at round-off there (steady.abs_tolerance's default). They ramp up
  // from the cold start's CFL and are never abandoned: the central
  // differences below resolve 1e-12 in the coefficients, and every solve
  // takes one path to its tolerance.
  s.warm_cfl_start = 0.0;
  s.warm_max_iterations = 0;
  return s;
}

// M 0.8, the smooth limiter live, warm starts at CFL 1000.
eu::SteadyFlowSettings transonic_smooth_settings() {
  eu::SteadyFlowSettings s = subsonic_settings();
  s.flow.mach = 0.8;
  s.spatial.limiter = eu::LimiterKind::venkatakrishnan_smooth;
  s.warm_cfl_start = 1000.0;
  return s;
}

// The dot-product identity of the chain (bumps a, flow parameters p) ->
// (CL, CD, CM) at (a0, p0): <w, J (v, dp)> from one tangent solve against
// <J^T w, (v, dp)> from one adjoint solve; says `label`'s figures and
// checks them to 1e-8 of the sum of the terms' magnitudes.
void expect_dot_product(eu::SteadyFlow& flow, const design::HicksHenne& bumps,
                        const design::MeshDeformation& idw, const std::vector<double>& a0,
                        const std::vector<double>& p0, const std::vector<double>& dp,
                        const char* label) {
  const index_t n = bumps.n_design(), np = static_cast<index_t>(p0.size());
  auto f = [&](const ad::Vars& in) {
    return ad::Vars{flow.coefficients(design::deformed_coordinates(bumps, idw, in[0]), in[1])};
  };
  std::vector<double> v(static_cast<size_t>(n)), w = {0.3, -1.0, 0.7};
  for (index_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = std::sin(1.0 + 2.0 * k);
  const ad::JvpResult t =
      ad::jvp(f, {ad::variable(Tensor::from_host({n}, a0)), ad::variable(Tensor::from_host({np}, p0))},
              {ad::constant(Tensor::from_host({n}, v)), ad::constant(Tensor::from_host({np}, dp))});
  const std::vector<double> jv = t.tangents[0].value().to_vector();
  const ad::Var x = ad::variable(Tensor::from_host({n}, a0));
  const ad::Var p = ad::variable(Tensor::from_host({np}, p0));
  const ad::Vars g = ad::vjp(f({x, p}), {x, p}, {ad::constant(Tensor::from_host({3}, w))});
  const std::vector<double> gx = g[0].value().to_vector(), gp = g[1].value().to_vector();
  double lhs = 0.0, rhs = 0.0, scale = 0.0;
  for (size_t k = 0; k < gp.size(); ++k) {
    rhs += gp[k] * dp[k];
    scale += std::abs(gp[k] * dp[k]);
  }
  for (int m = 0; m < 3; ++m) lhs += w[static_cast<size_t>(m)] * jv[static_cast<size_t>(m)];
  for (index_t k = 0; k < n; ++k) {
    rhs += gx[static_cast<size_t>(k)] * v[static_cast<size_t>(k)];
    scale += std::abs(gx[static_cast<size_t>(k)] * v[static_cast<size_t>(k)]);
  }
  say("[%s] dot product of (bumps, parameters) -> (CL, CD, CM): <w, J v> = %.12e, "
      "<J^T w, v> = %.12e\n",
      label, lhs, rhs);
  EXPECT_NEAR(lhs, rhs, 1e-8 * scale);
}

TEST(ShapeGradient, HicksHenneThroughIdwAndTheFlowMatchesFiniteDifferences) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const design::HicksHenne bumps(global, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(global, {"airfoil"});
  eu::SteadyFlow flow(global, test::world(), subsonic_settings());
  const index_t n = bumps.n_design();
  ASSERT_EQ(n, 10);

  auto coefficient = [&](int m) {
    return [&, m](const ad::Var& a) {
      return ad::slice(flow.coefficients(design::deformed_coordinates(bumps, idw, a)), 0, m, m + 1);
    };
  };
  const Tensor a0 = Tensor::from_host({n}, std::vector<double>(static_cast<size_t>(n), 0.0));
  const char* names[2] = {"CL", "CD"};
  for (int m : {0, 1}) {
    const ad::ValueAndGrad vg = ad::value_and_grad(coefficient(m), ad::variable(a0));
    const std::vector<double> g = vg.grads[0].value().to_vector();
    say("[shape gradient] %s = %.10f, adjoint %d GMRES its, %.2f s (flow solve %.2f s)\n",
        names[m], vg.value.value().to_vector()[0], flow.report().adjoint_iterations,
        flow.report().adjoint_seconds, flow.report().solve_seconds);
    double g_max = 0.0;
    for (double x : g) g_max = std::max(g_max, std::abs(x));
    // Chord units. The Roe flux's |u . n| has a kink where a face's normal
    // velocity changes sign, so "smooth" holds only within some distance of
    // the design: with node-neighbour gradients bumps 5 and 6 cross one
    // between 1e-5 and 2.5e-5 (differences off by 2e-4 relative at 2.5e-5
    // and 5e-4 at 1e-4, but 2e-9 at 1e-5: first order in h beyond it, as a
    // kink gives). 1e-5 keeps clear of it; the solves' 1e-12 tolerance
    // costs ~1e-7 of the difference.
    const double h = 1e-5;
    for (index_t k = 0; k < n; ++k) {
      const double fd = test::central_partial(
          [&](const std::vector<double>& a) {
            return flow.coefficients(design::deformed_coordinates(bumps, idw, Tensor::from_host({n}, a)))
                .to_vector()[static_cast<size_t>(m)];
          },
          std::vector<double>(static_cast<size_t>(n), 0.0), static_cast<size_t>(k), h);
      say("[shape gradient] d%s/da_%d: adjoint %+.10e, central difference %+.10e\n", names[m],
          static_cast<int>(k), g[static_cast<size_t>(k)], fd);
      EXPECT_NEAR(g[static_cast<size_t>(k)], fd, 1e-5 * g_max) << names[m] << " bump " << k;
    }
  }
}

// CD of the residual with the limiter frozen at `phi` on the mesh with node
// coordinates X (the same cells and partition as SteadyFlow's), solved from
// U to round-off.
double frozen_limiter_cd(const mesh::Mesh& global, const eu::SteadyFlowSettings& s,
                         const Tensor& X, const Tensor& phi, const Tensor& U) {
  mesh::DistributedMesh dm(global.with_coordinates(X), test::world());
  eu::SpatialOptions spatial = s.spatial;
  spatial.freeze_limiter = false;
  eu::Discretization disc(dm, s.flow, s.conditions, s.scheme, spatial);
  disc.set_limiter(phi);
  Tensor V = U.clone();
  eu::SteadyOptions o = s.steady;
  o.first_order_drop = 0.0;  // V is a second-order solution nearby
  const eu::SteadyResult r = eu::solve_steady(disc, V, o);
  EXPECT_TRUE(r.converged);
  return r.forces.cd;
}

// SteadyFlow freezes Venkatakrishnan's limiter once the residual has
// fallen by 1e-3 and hands the frozen residual to the adjoint: the gradient
// is that residual's, which differences with the same phi reproduce.
TEST(ShapeGradient, WithTheLimiterFrozenMatchesDifferencesAtTheFrozenPhi) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const design::HicksHenne bumps(global, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(global, {"airfoil"});
  eu::SteadyFlowSettings settings = subsonic_settings();
  settings.spatial.limiter = eu::LimiterKind::venkatakrishnan;
  settings.steady.freeze_limiter_drop = 1e-3;
  eu::SteadyFlow flow(global, test::world(), settings);
  const index_t n = bumps.n_design();
  const Tensor a0 = Tensor::from_host({n}, std::vector<double>(static_cast<size_t>(n), 0.0));
  auto cd = [&](const ad::Var& a) {
    return ad::slice(flow.coefficients(design::deformed_coordinates(bumps, idw, a)), 0, 1, 2);
  };
  const std::vector<double> g =
      ad::value_and_grad(cd, ad::variable(a0)).grads[0].value().to_vector();
  ASSERT_TRUE(flow.discretization().limiter_frozen());
  const Tensor U0 = flow.state().clone();
  Tensor U_halo = U0.clone();
  const Tensor phi = flow.discretization().limiter(U_halo);
  double g_max = 0.0;
  for (double x : g) g_max = std::max(g_max, std::abs(x));
  const double h = 2.5e-5;
  for (index_t k = 0; k < n; ++k) {
    const double fd = test::central_partial(
        [&](const std::vector<double>& a) {
          return frozen_limiter_cd(
              global, settings, design::deformed_coordinates(bumps, idw, Tensor::from_host({n}, a)),
              phi, U0);
        },
        std::vector<double>(static_cast<size_t>(n), 0.0), static_cast<size_t>(k), h);
    say("[shape gradient, frozen limiter] dCD/da_%d: adjoint %+.10e, central difference "
        "%+.10e\n",
        static_cast<int>(k), g[static_cast<size_t>(k)], fd);
    EXPECT_NEAR(g[static_cast<size_t>(k)], fd, 1e-5 * g_max) << "bump " << k;
  }
}

// Transonic (M 0.8, alpha 1.25 deg) with the smooth Venkatakrishnan-Wang
// limiter live in every solve (the decks' default, what `camber optimize`
// evaluates): the adjoint gradient of CL and CD against central
// differences of full solves of the perturbed designs (each warm-started
// from the last, as the optimizer's are, and converged to round-off), at
// the baseline and at a design away from it, 1e-5 of the largest
// component. No frozen stand-in: the differences are of the function the
// optimizer evaluates.
//
// The step: the limiter's min over faces and its neighbours' max/min
// switch within 1e-5 of these designs near the shock (bumps 1-3 of the
// upper surface): central differences with h = 1e-5 were off by up to
// 5e-3 of the largest CL component and 15% in dCD/da_3 (-0.02755 against
// the adjoint's -0.02342), with h = 1e-6 by 4e-7 (both designs; the
// other bumps agree to 1e-6 at either step). The function is piecewise
// smooth at that scale; the adjoint is its derivative where it is smooth.
// Rounding: the solves stop at an absolute residual of 1e-13, ~1e-12 in
// the coefficients, ~1e-6 in a difference over 2e-6: below 1e-5 of |g|
// ~ 1.5-20.
TEST(ShapeGradient, SmoothLimiterTransonicGradientMatchesDifferencesOfFullSolves) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const design::HicksHenne bumps(global, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(global, {"airfoil"});
  eu::SteadyFlowSettings settings = subsonic_settings();
  settings.flow.mach = 0.8;
  settings.spatial.limiter = eu::LimiterKind::venkatakrishnan_wang;
  eu::SteadyFlow flow(global, test::world(), settings);
  const index_t n = bumps.n_design();
  const char* names[2] = {"CL", "CD"};
  const double h = 1e-6;
  for (const double away : {0.0, 1.0}) {
    const char* where = away > 0.0 ? "away" : "baseline";
    std::vector<double> base(static_cast<size_t>(n));
    for (index_t k = 0; k < n; ++k)
      base[static_cast<size_t>(k)] = away * 1e-3 * std::sin(0.7 + 1.3 * k);
    std::vector<double> g[2];
    double g_max[2] = {0.0, 0.0};
    for (int m : {0, 1}) {
      auto coefficient = [&](const ad::Var& a) {
        return ad::slice(flow.coefficients(design::deformed_coordinates(bumps, idw, a)), 0, m,
                         m + 1);
      };
      g[m] = ad::value_and_grad(coefficient, ad::variable(Tensor::from_host({n}, base)))
                 .grads[0]
                 .value()
                 .to_vector();
      for (double x : g[m]) g_max[m] = std::max(g_max[m], std::abs(x));
    }
    double worst[2] = {0.0, 0.0};
    for (index_t k = 0; k < n; ++k) {
      const std::vector<double> fd_all = test::central_partial(
          [&](const std::vector<double>& a) {
            return flow.coefficients(design::deformed_coordinates(bumps, idw, Tensor::from_host({n}, a)))
                .to_vector();
          },
          base, static_cast<size_t>(k), h);
      for (int m : {0, 1}) {
        const double fd = fd_all[static_cast<size_t>(m)];
        const double gk = g[m][static_cast<size_t>(k)];
        worst[m] = std::max(worst[m], std::abs(gk - fd) / g_max[m]);
        say("[shape gradient, smooth limiter, %s] d%s/da_%d: adjoint %+.10e, central difference "
            "%+.10e\n",
            where, names[m], static_cast<int>(k), gk, fd);
        EXPECT_NEAR(gk, fd, 1e-5 * g_max[m]) << where << " " << names[m] << " bump " << k;
      }
    }
    for (int m : {0, 1})
      say("[shape gradient, smooth limiter, %s] %s: largest difference %.2e of max |g| %.3e\n",
          where, names[m], worst[m], g_max[m]);
  }
}

// A warm start that has not converged after warm_max_iterations steps is
// abandoned and the design solved again from the free stream; with the
// smooth limiter live the flow it reaches is the one a patient warm start
// reaches (one discrete solution: CL and CD to 1e-9 relative, the solves'
// tolerance 1e-12 of the reference residual).
TEST(ShapeGradient, AbandonedWarmStartIsSolvedColdToTheSameFlow) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const design::HicksHenne bumps(global, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(global, {"airfoil"});
  eu::SteadyFlowSettings settings = transonic_smooth_settings();
  // This coarse transonic case has neighbouring discrete solutions (CL
  // 0.27197 and 0.27343 for X1); a Newton path with inexact linear solves
  // (GMRES to 1e-3, block-Jacobi ILU over the ranks) can reach either from
  // the warm start at CFL 1000, depending on the partition. Solving the
  // linear systems to 1e-10 makes the path the same on every partition, so
  // the comparison is of the restart logic alone.
  settings.steady.linear_rel_tolerance = 1e-10;
  const index_t n = bumps.n_design();
  std::vector<double> a(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) a[static_cast<size_t>(k)] = 2e-3 * std::sin(0.7 + 1.3 * k);
  const Tensor X0 = design::deformed_coordinates(bumps, idw, Tensor::from_host({n}, std::vector<double>(static_cast<size_t>(n), 0.0)));
  const Tensor X1 = design::deformed_coordinates(bumps, idw, Tensor::from_host({n}, a));

  eu::SteadyFlowSettings impatient = settings;
  impatient.warm_max_iterations = 2;
  eu::SteadyFlow retried(global, test::world(), impatient), patient(global, test::world(), settings);
  for (eu::SteadyFlow* f : {&retried, &patient}) f->coefficients(X0);
  const std::vector<double> c_retried = retried.coefficients(X1).to_vector();
  const eu::SteadyFlowReport r = retried.report();
  const std::vector<double> c_patient = patient.coefficients(X1).to_vector();
  EXPECT_TRUE(r.cold_restart);
  EXPECT_TRUE(r.converged);
  EXPECT_FALSE(patient.report().cold_restart);
  say("[warm start abandoned] %d Newton steps (2 warm, then cold), CL %.12f; patient warm start "
      "%d steps, CL %.12f\n",
      r.newton_iterations, c_retried[0], patient.report().newton_iterations, c_patient[0]);
  EXPECT_GT(r.newton_iterations, patient.report().newton_iterations);
  for (int m : {0, 1})
    EXPECT_NEAR(c_retried[static_cast<size_t>(m)], c_patient[static_cast<size_t>(m)],
                1e-9 * std::abs(c_patient[static_cast<size_t>(m)]))
        << (m == 0 ? "CL" : "CD");
}

TEST(ShapeGradient, TangentAndAdjointOfTheWholeChainAgree) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const design::HicksHenne bumps(global, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(global, {"airfoil"});
  eu::SteadyFlow flow(global, test::world(), subsonic_settings());
  const index_t n = bumps.n_design();
  auto f = [&](const ad::Var& a) {
    return flow.coefficients(design::deformed_coordinates(bumps, idw, a));
  };
  std::vector<double> v(static_cast<size_t>(n)), w = {0.3, -1.0, 0.7};
  for (index_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = std::sin(1.0 + 2.0 * k);
  const Tensor a0 = Tensor::from_host({n}, std::vector<double>(static_cast<size_t>(n), 0.0));
  const ad::JvpResult t =
      ad::jvp(f, ad::variable(a0), ad::constant(Tensor::from_host({n}, v)));
  const std::vector<double> jv = t.tangents[0].value().to_vector();
  const ad::Var x = ad::variable(a0);
  const ad::Var yx = f(x);
  const std::vector<double> jtw =
      ad::vjp({yx}, {x}, {ad::constant(Tensor::from_host({3}, w))})[0].value().to_vector();
  double lhs = 0.0, rhs = 0.0, scale = 0.0;
  for (int m = 0; m < 3; ++m) lhs += w[static_cast<size_t>(m)] * jv[static_cast<size_t>(m)];
  for (index_t k = 0; k < n; ++k) {
    rhs += jtw[static_cast<size_t>(k)] * v[static_cast<size_t>(k)];
    scale += std::abs(jtw[static_cast<size_t>(k)] * v[static_cast<size_t>(k)]);
  }
  say("[shape gradient] dot product: <w, J v> = %.12e, <J^T w, v> = %.12e\n", lhs, rhs);
  EXPECT_NEAR(lhs, rhs, 1e-8 * scale);
}

// The angle of attack as a second input (how a design loop trims alpha to
// hold a lift target): transonic, the smooth limiter live. dCL/dalpha,
// dCD/dalpha and dCM/dalpha from the reverse mode (the adjoint solve of
// each coefficient plus -psi^T dR/dalpha) against central differences of
// full solves in alpha (h = 1e-4 degree): 1e-6 relative; and the
// tangent/adjoint dot product of the joint map (bumps, alpha) -> (CL, CD,
// CM) for a weighted cotangent, 1e-8 relative.
TEST(ShapeGradient, AngleOfAttackDerivativesMatchDifferencesAndTheTangent) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const design::HicksHenne bumps(global, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(global, {"airfoil"});
  eu::SteadyFlowSettings settings = transonic_smooth_settings();
  eu::SteadyFlow flow(global, test::world(), settings);
  const index_t n = bumps.n_design();
  std::vector<double> a0(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) a0[static_cast<size_t>(k)] = 1e-3 * std::sin(0.7 + 1.3 * k);
  const double alpha0 = 1.25, h = 1e-4;
  const Tensor X0 = design::deformed_coordinates(bumps, idw, Tensor::from_host({n}, a0));
  const char* names[3] = {"CL", "CD", "CM"};
  double dc[3];
  for (int m = 0; m < 3; ++m) {
    const ad::Var alpha = ad::variable(Tensor::from_host({1}, {alpha0}));
    const ad::Var c = flow.coefficients(ad::constant(X0), alpha);
    std::vector<double> w(3, 0.0);
    w[static_cast<size_t>(m)] = 1.0;
    dc[m] = ad::vjp({c}, {alpha}, {ad::constant(Tensor::from_host({3}, w))})[0].item();
  }
  const std::vector<double> fd_all = test::central_difference(
      [&](double alpha) { return flow.coefficients(X0, alpha).to_vector(); }, alpha0, h);
  for (int m = 0; m < 3; ++m) {
    const double fd = fd_all[static_cast<size_t>(m)];
    say("[alpha derivative] d%s/dalpha per degree: adjoint %+.10e, central difference %+.10e\n",
        names[m], dc[m], fd);
    EXPECT_NEAR(dc[m], fd, 1e-6 * std::abs(fd)) << names[m];
  }
  // Subsonic-like sanity of the physics: lift grows with alpha.
  EXPECT_GT(dc[0], 0.05);

  expect_dot_product(flow, bumps, idw, a0, {alpha0}, {0.4}, "alpha derivative");
}

TEST(ShapeGradient, MachNumberDerivativesMatchDifferencesAndTheTangent) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const design::HicksHenne bumps(global, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(global, {"airfoil"});
  eu::SteadyFlow flow(global, test::world(), subsonic_settings());
  const index_t n = bumps.n_design();
  std::vector<double> a0(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) a0[static_cast<size_t>(k)] = 1e-3 * std::sin(0.7 + 1.3 * k);
  // settings().flow.mach (0.5) is ignored: the Mach number is the input's.
  const double alpha0 = 2.0, mach0 = 0.55, h = 1e-4;
  const Tensor X0 = design::deformed_coordinates(bumps, idw, Tensor::from_host({n}, a0));
  auto at = [&](double mach) {
    return flow.coefficients(ad::constant(X0), ad::constant(Tensor::from_host({2}, {alpha0, mach})))
        .value()
        .to_vector();
  };
  const char* names[3] = {"CL", "CD", "CM"};
  double dm[3];
  for (int m = 0; m < 3; ++m) {
    const ad::Var p = ad::variable(Tensor::from_host({2}, {alpha0, mach0}));
    const ad::Var c = flow.coefficients(ad::constant(X0), p);
    std::vector<double> w(3, 0.0);
    w[static_cast<size_t>(m)] = 1.0;
    dm[m] = ad::vjp({c}, {p}, {ad::constant(Tensor::from_host({3}, w))})[0].value().to_vector()[1];
  }
  const std::vector<double> fd_all = test::central_difference(at, mach0, h);
  for (int m = 0; m < 3; ++m) {
    const double fd = fd_all[static_cast<size_t>(m)];
    say("[mach derivative] d%s/dM: adjoint %+.10e, central difference %+.10e\n", names[m], dm[m], fd);
    EXPECT_NEAR(dm[m], fd, 1e-6 * std::abs(fd) + 1e-9) << names[m];
  }
  // Subsonic compressibility (Prandtl-Glauert): the lift grows with Mach.
  EXPECT_GT(dm[0], 0.0);

  expect_dot_product(flow, bumps, idw, a0, {alpha0, mach0}, {0.4, -0.02}, "mach derivative");
}

// The gradient of CD with respect to the bumps computed on all ranks equals
// the one computed on one rank (every rank also solves the whole problem on
// MPI_COMM_SELF): the discrete solution and its adjoint do not depend on
// the partition (no limiter here), so the two differ by the solve
// tolerances only (flow 1e-12, adjoint 1e-10 relative): 1e-8 of the
// largest component.
TEST(ShapeGradient, DistributedGradientEqualsTheSerialOne) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const design::HicksHenne bumps(global, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(global, {"airfoil"});
  const index_t n = bumps.n_design();
  const Tensor a0 = Tensor::from_host({n}, std::vector<double>(static_cast<size_t>(n), 0.0));
  auto gradient = [&](MPI_Comm comm) {
    eu::SteadyFlow flow(global, comm, subsonic_settings());
    auto cd = [&](const ad::Var& a) {
      return ad::slice(flow.coefficients(design::deformed_coordinates(bumps, idw, a)), 0, 1, 2);
    };
    return ad::value_and_grad(cd, ad::variable(a0)).grads[0].value().to_vector();
  };
  const std::vector<double> distributed = gradient(test::world());
  const std::vector<double> serial = gradient(MPI_COMM_SELF);
  double g_max = 0.0, diff = 0.0;
  for (index_t k = 0; k < n; ++k) {
    g_max = std::max(g_max, std::abs(serial[static_cast<size_t>(k)]));
    diff = std::max(diff, std::abs(serial[static_cast<size_t>(k)] - distributed[static_cast<size_t>(k)]));
  }
  say("[shape gradient] distributed vs serial dCD/da: max difference %.2e of max |g| %.3e\n", diff,
      g_max);
  EXPECT_LE(diff, 1e-8 * g_max);
}

// The distributed chain a design loop runs, each rank deforming only its
// node rows (SteadyFlow::node_rows(): no global coordinates or gradient
// per design), against the replicated one (every rank the whole mesh):
//   * the coefficients agree to 1e-12 relative (the same X at every node
//     a rank reads; the second solve starts from the first's flow);
//   * the gradients of CD agree to 1e-8 of the largest component (the
//     solve tolerances);
//   * the rank chain's tangent/adjoint dot product, 1e-8 relative;
//   * a folded mesh is reported alike on every rank, naming one cell.
TEST(ShapeGradient, RankRowsGiveTheReplicatedGradientAndTangent) {
  const mesh::Mesh global =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
  const design::HicksHenne bumps(global, {"airfoil"}, design::evenly_spaced_bumps(5));
  const design::MeshDeformation idw(global, {"airfoil"});
  eu::SteadyFlow flow(global, test::world(), subsonic_settings());
  const design::MeshDeformation rows(global, {"airfoil"}, {}, flow.node_rows());
  const index_t n = bumps.n_design();
  // Every local node is among the rows, first; the rows are fewer than
  // the mesh's nodes on more than one rank.
  const mesh::DistributedMesh& dm = flow.distributed_mesh();
  for (index_t i = 0; i < dm.n_local_nodes(); ++i)
    ASSERT_EQ(flow.node_rows()[static_cast<size_t>(i)], dm.node_global_ids()[static_cast<size_t>(i)]);
  if (test::size() > 1) {
    EXPECT_LT(rows.n_nodes(), global.n_nodes());
  }
  auto replicated = [&](const ad::Var& a) {
    return flow.coefficients(design::deformed_coordinates(bumps, idw, a));
  };
  auto distributed = [&](const ad::Var& a) {
    return flow.rank_coefficients(rows.coordinates(ad::grad_allreduce(bumps.displacement(a), test::world())));
  };
  std::vector<double> a0(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) a0[static_cast<size_t>(k)] = 1e-3 * std::cos(0.4 + 0.9 * k);
  const ad::Var cd = ad::constant(Tensor::from_host({3}, {0.0, 1.0, 0.0}));
  const ad::Var x1 = ad::variable(Tensor::from_host({n}, a0));
  const ad::Var c1 = replicated(x1);
  const std::vector<double> g1 = ad::vjp({c1}, {x1}, {cd})[0].value().to_vector();
  const ad::Var x2 = ad::variable(Tensor::from_host({n}, a0));
  const ad::Var c2 = distributed(x2);
  const std::vector<double> g2 = ad::vjp({c2}, {x2}, {cd})[0].value().to_vector();
  const std::vector<double> v1 = c1.value().to_vector(), v2 = c2.value().to_vector();
  for (int m = 0; m < 3; ++m)
    EXPECT_NEAR(v2[static_cast<size_t>(m)], v1[static_cast<size_t>(m)],
                1e-12 * std::abs(v1[static_cast<size_t>(m)]));
  double g_max = 0.0, diff = 0.0;
  for (index_t k = 0; k < n; ++k) {
    g_max = std::max(g_max, std::abs(g1[static_cast<size_t>(k)]));
    diff = std::max(diff, std::abs(g1[static_cast<size_t>(k)] - g2[static_cast<size_t>(k)]));
  }
  say("[rank rows] %zu of %lld nodes on this rank; dCD/da rows vs replicated: %.2e of max |g| %.3e\n",
      flow.node_rows().size(), static_cast<long long>(global.n_nodes()), diff, g_max);
  EXPECT_LE(diff, 1e-8 * g_max);

  std::vector<double> v(static_cast<size_t>(n)), w = {0.3, -1.0, 0.7};
  for (index_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = std::sin(1.0 + 2.0 * k);
  const ad::JvpResult t = ad::jvp(distributed, ad::variable(Tensor::from_host({n}, a0)),
                                  ad::constant(Tensor::from_host({n}, v)));
  const std::vector<double> jv = t.tangents[0].value().to_vector();
  const ad::Var x3 = ad::variable(Tensor::from_host({n}, a0));
  const std::vector<double> jtw =
      ad::vjp({distributed(x3)}, {x3}, {ad::constant(Tensor::from_host({3}, w))})[0].value().to_vector();
  double lhs = 0.0, rhs = 0.0, scale = 0.0;
  for (int m = 0; m < 3; ++m) lhs += w[static_cast<size_t>(m)] * jv[static_cast<size_t>(m)];
  for (index_t k = 0; k < n; ++k) {
    rhs += jtw[static_cast<size_t>(k)] * v[static_cast<size_t>(k)];
    scale += std::abs(jtw[static_cast<size_t>(k)] * v[static_cast<size_t>(k)]);
  }
  say("[rank rows] dot product: <w, J v> = %.12e, <J^T w, v> = %.12e\n", lhs, rhs);
  EXPECT_NEAR(lhs, rhs, 1e-8 * scale);

  // Half a chord up at the last upper bump folds cells near the trailing
  // edge: the same error on every rank (check_cell_volumes of the
  // distributed mesh), the serial check's message word for word.
  std::vector<double> big(static_cast<size_t>(n), 0.0);
  big[static_cast<size_t>(n / 2 - 1)] = 0.5;
  const Tensor Xr = rows.coordinates(bumps.displacement(Tensor::from_host({n}, big)));
  std::string message;
  try {
    design::check_cell_volumes(dm, Xr);
  } catch (const Error& e) {
    message = e.what();
  }
  ASSERT_NE(message.find("cells are inverted"), std::string::npos) << message;
  std::string serial;
  try {
    design::check_cell_volumes(global, design::deformed_coordinates(bumps, idw, Tensor::from_host({n}, big)));
  } catch (const Error& e) {
    serial = e.what();
  }
  EXPECT_EQ(message, serial);
  // The same text on every rank: rank 0's broadcast and compared.
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, test::world());
  std::string first(static_cast<size_t>(length), ' ');
  if (test::rank() == 0) first = message;
  MPI_Bcast(first.data(), length, MPI_CHAR, 0, test::world());
  EXPECT_EQ(message, first);
}

}  // namespace
}  // namespace camber
