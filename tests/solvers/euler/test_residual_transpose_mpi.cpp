// The transposed Jacobian of the Euler residual applied without forming it
// (solvers/euler/detail/residual_transpose.hpp), and the wall load's
// gradient from the same reverse sweep, at 1, 2 and 4 ranks. Needs no
// PETSc (the device path's adjoint is built on it).
//
// Every expected value is math:
//   * the dot-product identity <V, (dR/dU) X> = <(dR/dU)^T V, X> against
//     the Dual tangent of Discretization::residual_and_tangent (an
//     independent forward-mode evaluation), to round-off, for random V and
//     X: at first order and at second order with no limiter, with
//     Venkatakrishnan's limiter live and frozen, Wang's form live and
//     frozen, and the smooth form live; Roe and HLLC; a subsonic and a
//     supersonic far field; on the mixed mesh of triangles and quads with
//     node-neighbour stencils (the ghost rows' terms cross ranks);
//   * the gradient of w . G (CL, CD, CM and a mixture) along random
//     directions against central differences of forces() (the limiter
//     frozen or the smooth one: G is smooth in U there).
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include "solvers/euler/detail/residual_transpose.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

// Round-off: both sides sum the same products in different orders; relative
// to |V| |J X| the difference is ~1e-15. A wrong block of order one would
// show as ~1e-2.
constexpr double roundoff_tol = 1e-12;

Discretization make(mesh::DistributedMesh& dm, const LimiterCase& c, double mach, FluxScheme scheme) {
  SpatialOptions spatial;
  spatial.order = c.order;
  spatial.limiter = c.limiter;
  spatial.wang_epsilon = derivative_wang_epsilon;
  spatial.smooth_width = c.smooth_width;
  return Discretization(dm, derivative_flow(mach), derivative_conditions, scheme, spatial);
}

TEST(EulerResidualTranspose, PassesTheDotProductTestAgainstTheDualTangent) {
  for (const LimiterCase& c : limiter_cases)
    for (double mach : {0.5, 1.3})
      for (FluxScheme scheme : {FluxScheme::roe, FluxScheme::hllc}) {
        mesh::DistributedMesh dm(derivative_mesh(), world());
        Discretization disc = make(dm, c, mach, scheme);
        Tensor U = perturbed_state(disc);
        if (c.freeze) disc.freeze_limiter(U);
        Tensor X = random_field(disc, 41), V = random_field(disc, 42);
        Tensor R, JX;
        disc.residual_and_tangent(U, X, R, JX);
        detail::ResidualTranspose transpose(disc);
        transpose.linearize(U);
        Tensor JtV;
        transpose.apply(V, JtV);
        const double lhs = dot_owned(disc, V, JX), rhs = dot_owned(disc, JtV, X);
        const double scale = std::sqrt(dot_owned(disc, V, V) * dot_owned(disc, JX, JX));
        say("[transpose] %s, M %.1f, %s: <V, J X> = %.15e, |<V, J X> - <J^T V, X>| / (|V| |J X|) "
            "= %.2e\n",
            c.name, mach, scheme == FluxScheme::roe ? "Roe" : "HLLC", lhs,
            std::abs(lhs - rhs) / scale);
        EXPECT_GT(std::abs(lhs), 1e-3 * scale) << c.name;  // not a trivial zero
        EXPECT_LE(std::abs(lhs - rhs), roundoff_tol * scale) << c.name << " M " << mach;
        // The product is linear in V: a second product with 2 V gives twice
        // the first (the reverse sweep keeps no state between products).
        Tensor V2 = V.clone();
        V2 *= 2.0;
        Tensor JtV2;
        transpose.apply(V2, JtV2);
        EXPECT_NEAR(dot_owned(disc, JtV2, X), 2.0 * rhs, roundoff_tol * 2.0 * scale) << c.name;
      }
}

// Central differences of the forces with step h along X (unit entries):
// truncation h^2 |G'''| ~ 1e-10 of |G| at h = 1e-5, cancellation eps |G| /
// h ~ 1e-11; 1e-7 of the gradient's size |dG/dU| |X| leaves margin.
constexpr double fd_tol = 1e-7;

TEST(EulerResidualTranspose, TheWallLoadsGradientMatchesCentralDifferences) {
  const LimiterCase smooth_cases[] = {limiter_cases[0], limiter_cases[1], limiter_cases[3],
                                      limiter_cases[6]};
  for (const LimiterCase& c : smooth_cases) {
    mesh::DistributedMesh dm(derivative_mesh(), world());
    Discretization disc = make(dm, c, 0.5, FluxScheme::roe);
    Tensor U = perturbed_state(disc);
    if (c.freeze) disc.freeze_limiter(U);
    detail::ResidualTranspose transpose(disc);
    transpose.linearize(U);
    const auto w = disc.force_coefficient_weights();
    const std::array<double, 3> mixture = {0.3 * w[0][0] - w[1][0], 0.3 * w[0][1] - w[1][1],
                                           2.0 * w[2][2]};
    const std::array<double, 3> objectives[] = {w[0], w[1], w[2], mixture};
    for (int o = 0; o < 4; ++o) {
      const Tensor g = transpose.force_gradient(objectives[o]);
      const Tensor X = random_field(disc, 43);
      // w . G as the coefficients weigh it: CL, CD, CM, 0.3 CL - CD + 2 CM.
      const auto objective = [&](double t) {
        Tensor u = U.clone();
        u.axpy(t, X);
        const Forces f = disc.forces(u);
        const double by_kind[] = {f.cl, f.cd, f.cm, 0.3 * f.cl - f.cd + 2.0 * f.cm};
        return by_kind[o];
      };
      const double h = 1e-5;
      const double fd = (objective(h) - objective(-h)) / (2.0 * h);
      const double ad = dot_owned(disc, g, X);
      const double scale = std::sqrt(dot_owned(disc, g, g) * dot_owned(disc, X, X));
      say("[transpose] %s: d(w . G)/dU . X = %.12e, central difference %.12e\n", c.name, ad, fd);
      EXPECT_GT(std::abs(ad), 1e-3 * scale) << c.name;
      EXPECT_LE(std::abs(ad - fd), fd_tol * scale) << c.name;
    }
  }
}

}  // namespace
}  // namespace camber::solvers::euler
