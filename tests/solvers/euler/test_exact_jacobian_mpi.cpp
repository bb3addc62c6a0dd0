// The exact Euler Jacobian (solvers/euler/exact_jacobian.hpp), assembled
// by the chain rule through each cell's reconstruction (assemble) and by
// column colouring (assemble_by_colouring), at 1, 2 and 4 ranks.
//
// Every expected value is math:
//   * the assembled matrix times a random vector equals the Dual tangent
//     (dR/dU) V of Discretization::residual_and_tangent, an independent
//     forward-mode evaluation of the same derivative, to round-off; at first
//     and second order, with Venkatakrishnan's limiter live and frozen, by
//     either assembly (on the mixed mesh of triangles, with node-neighbour
//     stencils, and quads; the ghost rows' terms cross ranks);
//   * its transpose passes the dot-product identity <W, J V> = <J^T W, V>;
//   * (a wrong colouring, two columns of one colour in a row's stencil,
//     would sum two blocks into one entry: the J V check would see it);
//   * the compressed gradient of CD with respect to U matches central
//     differences of forces() along random directions (frozen limiter: CD
//     is smooth in U).
#include <gtest/gtest.h>
#include <mpi.h>
#include <petscmat.h>

#include <cmath>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/exact_jacobian.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/core/tensor.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

// Round-off: J V sums <= ~25 blocks per row whose entries come from the
// same chain rule as the Dual<1> tangent, in a different order; relative
// to max |dR| (an O(1) multiple of the largest |J| |V| row sum on this
// smooth state) the difference is ~1e-15. 1e-12 leaves three orders; one
// wrong block of order one would show as ~1e-2.
constexpr double roundoff_tol = 1e-12;

TEST(EulerExactJacobian, TimesAVectorEqualsTheDualTangent) {
  for (const LimiterCase& c : limiter_cases)
    for (double mach : {0.5, 1.3}) {
      mesh::DistributedMesh dm(derivative_mesh(), world());
      SpatialOptions spatial;
      spatial.order = c.order;
      spatial.limiter = c.limiter;
      spatial.wang_epsilon = derivative_wang_epsilon;
      spatial.smooth_width = c.smooth_width;
      Discretization disc(dm, derivative_flow(mach), derivative_conditions, FluxScheme::roe,
                          spatial);
      Tensor U = perturbed_state(disc);
      if (c.freeze) disc.freeze_limiter(U);
      Tensor V = random_field(disc, 31);
      Tensor R, dR;
      disc.residual_and_tangent(U, V, R, dR);
      ExactJacobian jac(disc);
      jac.assemble_by_colouring(disc, U);
      const Tensor JV_colouring = apply(jac, disc, V);
      const double e_colouring = max_error(disc, JV_colouring, dR, max_owned(disc, dR));
      jac.assemble(disc, U);
      const Tensor JV = apply(jac, disc, V);
      const double e = max_error(disc, JV, dR, max_owned(disc, dR));
      say("[jacobian] %s, M = %.1f: %d colours, %lld blocks, |J V - dR| / |dR| = %.2e by the "
          "stencil, %.2e by colouring\n",
          c.name, mach, jac.n_colors(), jac.n_blocks(), e, e_colouring);
      EXPECT_LE(e, roundoff_tol) << c.name << " M " << mach;
      EXPECT_LE(e_colouring, roundoff_tol) << c.name << " M " << mach;

      // Transpose: <W, J V> = <J^T W, V>.
      const Tensor W = random_field(disc, 32);
      const Tensor JtW = apply(jac, disc, W, /*transpose=*/true);
      const double lhs = dot_owned(disc, W, JV), rhs = dot_owned(disc, JtW, V);
      const double scale = std::sqrt(dot_owned(disc, W, W) * dot_owned(disc, JV, JV));
      EXPECT_LE(std::abs(lhs - rhs), roundoff_tol * scale) << c.name << " M " << mach;
    }
}

// A design loop builds the Jacobian's pattern (colouring, preallocation)
// once, on the undeformed mesh, and shares it with every design's
// Jacobian: on a mesh whose nodes moved, the Jacobian with the shared
// pattern times a vector equals the residual's Dual tangent (round-off), as
// the one that coloured again does; a pattern that does not fit (another
// stencil: first order) is not used.
TEST(EulerExactJacobian, APatternSharedWithAMovedMeshGivesItsJacobian) {
  mesh::DistributedMesh dm(derivative_mesh(), world());
  SpatialOptions spatial;
  spatial.order = 2;
  const Discretization undeformed(dm, derivative_flow(0.5), derivative_conditions,
                                  FluxScheme::roe, spatial);
  const auto pattern = ExactJacobian::pattern(undeformed);
  // Every local node moved by a smooth field (the same on every rank).
  const auto x0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().coords());
  std::vector<double> moved(static_cast<size_t>(dm.n_local_nodes()) * 2);
  for (index_t i = 0; i < dm.n_local_nodes(); ++i) {
    moved[static_cast<size_t>(2 * i)] = x0(i, 0) + 1e-3 * std::sin(3.0 * x0(i, 1));
    moved[static_cast<size_t>(2 * i + 1)] = x0(i, 1) + 1e-3 * std::cos(2.0 * x0(i, 0));
  }
  mesh::DistributedMesh dm2 =
      dm.with_local_coordinates(Tensor::from_host({dm.n_local_nodes(), 2}, moved));
  Discretization disc(dm2, derivative_flow(0.5), derivative_conditions, FluxScheme::roe, spatial);
  Tensor U = perturbed_state(disc);
  Tensor V = random_field(disc, 51);
  Tensor R, dR;
  disc.residual_and_tangent(U, V, R, dR);
  ExactJacobian shared(disc, pattern);
  EXPECT_EQ(shared.shared_pattern(), pattern);
  shared.assemble_by_colouring(disc, U);
  const double e = max_error(disc, apply(shared, disc, V), dR, max_owned(disc, dR));
  say("[jacobian] shared pattern on a moved mesh: |J V - dR| / |dR| = %.2e\n", e);
  EXPECT_LE(e, roundoff_tol);
  const Discretization first = disc.first_order();
  const ExactJacobian own(first, pattern);
  EXPECT_NE(own.shared_pattern(), pattern);
}

TEST(EulerExactJacobian, ShiftAddsToTheDiagonalBlocksOnly) {
  mesh::DistributedMesh dm(derivative_mesh(), world());
  SpatialOptions spatial;
  spatial.order = 2;
  Discretization disc(dm, derivative_flow(0.5), derivative_conditions, FluxScheme::roe, spatial);
  Tensor U = perturbed_state(disc);
  Tensor V = random_field(disc, 41);
  ExactJacobian jac(disc);
  jac.assemble(disc, U);
  const Tensor JV = apply(jac, disc, V);
  std::vector<double> shift(static_cast<size_t>(disc.n_owned()));
  for (index_t c = 0; c < disc.n_owned(); ++c) shift[static_cast<size_t>(c)] = 1.0 + 0.01 * c;
  jac.assemble(disc, U, &shift);
  const Tensor SV = apply(jac, disc, V);
  // (J + diag(s)) V - J V = s V, row by row.
  std::vector<double> expected = JV.to_vector();
  const std::vector<double> v = V.to_vector();
  for (index_t c = 0; c < disc.n_owned(); ++c)
    for (int k = 0; k < nv; ++k)
      expected[static_cast<size_t>(c * nv + k)] +=
          shift[static_cast<size_t>(c)] * v[static_cast<size_t>(c * nv + k)];
  Tensor E({disc.n_local(), nv});
  E.assign(expected);
  EXPECT_LE(max_error(disc, SV, E, max_owned(disc, E)), roundoff_tol);
}

// The compressed force gradient against central differences of CD, CL and
// CM along random directions. The limiter is frozen (otherwise the
// difference straddles min/max switches). FD error model as for the
// residual (test_discretization_mpi.cpp): h = 1e-6, truncation and rounding
// ~1e-10 of the coefficient's size; tolerance 1e-7 relative to |g| |V|.
TEST(EulerExactJacobian, ForceGradientMatchesFiniteDifferences) {
  for (int order : {1, 2}) {
    mesh::DistributedMesh dm(derivative_mesh(), world());
    SpatialOptions spatial;
    spatial.order = order;
    Discretization disc(dm, derivative_flow(0.5), derivative_conditions, FluxScheme::roe, spatial);
    Tensor U = perturbed_state(disc);
    if (order == 2) disc.freeze_limiter(U);
    ExactJacobian jac(disc);
    const auto weights = disc.force_coefficient_weights();
    const char* names[3] = {"CL", "CD", "CM"};
    for (int m = 0; m < 3; ++m) {
      const Tensor g = jac.objective_gradient(disc, U, weights[static_cast<size_t>(m)]);
      for (std::uint64_t seed : {51u, 52u}) {
        const Tensor V = random_field(disc, seed);
        const double h = 1e-6;
        const double fd = camber::test::central_difference(
            [&](double t) {
              Tensor u = U.clone();
              u.axpy(t, V);
              const Forces f = disc.forces(u);
              return m == 0 ? f.cl : m == 1 ? f.cd : f.cm;
            },
            0.0, h);
        const double ad = dot_owned(disc, g, V);
        Tensor abs_g = g.clone();
        {
          std::vector<double> a = abs_g.to_vector();
          for (double& x : a) x = std::abs(x);
          abs_g.assign(a);
        }
        Tensor ones = V.clone();
        ones.fill(1.0);
        const double scale = dot_owned(disc, abs_g, ones);
        say("[jacobian] order %d, d%s/dU . V: gradient %.12e, central difference %.12e (rel. "
            "%.1e)\n",
            order, names[m], ad, fd, std::abs(ad - fd) / scale);
        EXPECT_GT(scale, 0.0);
        EXPECT_LE(std::abs(ad - fd), 1e-7 * scale) << "order " << order << " " << names[m];
      }
    }
  }
}

}  // namespace
}  // namespace camber::solvers::euler
