// The shape derivative of the Euler residual and wall load swept in
// reverse (solvers/euler/detail/shape_transpose.hpp), at 1, 2 and 4 ranks,
// without PETSc.
//
// Expected values are math: for a fixed state U, a fixed adjoint-like
// field psi and an objective J(X) = w . G(X) - psi^T R(U, X) (G the wall's
// pitch-plane load, w a mixture of the CL, CD and CM weights), the
// reverse sweep's dJ/dX . V (the ranks' shares summed by global node id)
// against central differences of J on meshes whose nodes moved by +-h V,
// h = 1e-6. J is a sum of O(n) smooth terms of O(1); the difference's
// truncation (h^2) and cancellation (1e-16 |J| / h) errors were at most
// 4e-9 of the sum of the terms' magnitudes |xbar_n . V_n| (measured), so
// the tolerance 1e-7 of that sum separates a missing or wrong term (the
// limiter's geometry terms left out: 1.5e-5 to 1.2e-2) from the
// difference's own error. Every limiter, live and frozen,
// at a subsonic and a supersonic far field, on the distorted mixed mesh
// of triangles and quads (2-D) and on the extruded wing's hexahedra and
// prisms (3-D).
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cmath>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include "solvers/euler/detail/shape_transpose.hpp"
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

// The mesh with its nodes moved by h V ({n_nodes, dim}).
mesh::Mesh moved(const mesh::Mesh& m, const std::vector<double>& v, double h) {
  std::vector<double> x = host_coords(m);
  for (size_t i = 0; i < x.size(); ++i) x[i] += h * v[i];
  return m.with_coordinates(Tensor::from_host({m.n_nodes(), m.dim()}, x));
}

// Free stream plus 5% of hashed noise per cell and variable (by global
// id), and a hashed psi on the owned rows.
Tensor rough(const Discretization& disc) {
  const std::vector<double> u = disc.free_stream_field().to_vector();
  const int nvars = disc.n_vars();
  std::vector<double> r(u.size());
  const auto& gid = disc.mesh().cell_global_ids();
  for (index_t c = 0; c < disc.n_local(); ++c)
    for (int k = 0; k < nvars; ++k) {
      const size_t i = static_cast<size_t>(c * nvars + k);
      r[i] = u[i] + 0.05 * std::max(0.2, std::abs(u[i])) * hashed_uniform(91, gid[c], k);
    }
  return Tensor::from_host({disc.n_local(), nvars}, r);
}
Tensor hashed_psi(const Discretization& disc) {
  const int nvars = disc.n_vars();
  std::vector<double> p(static_cast<size_t>(disc.n_local() * nvars), 0.0);
  const auto& gid = disc.mesh().cell_global_ids();
  for (index_t c = 0; c < disc.n_owned(); ++c)
    for (int k = 0; k < nvars; ++k)
      p[static_cast<size_t>(c * nvars + k)] = hashed_uniform(17, gid[c], k);
  return Tensor::from_host({disc.n_local(), nvars}, p);
}

double owned_dot(const Discretization& disc, const Tensor& a, const Tensor& b) {
  const std::vector<double> x = a.to_vector(), y = b.to_vector();
  double s = 0.0;
  for (index_t i = 0; i < disc.n_owned() * disc.n_vars(); ++i)
    s += x[static_cast<size_t>(i)] * y[static_cast<size_t>(i)];
  return par::allreduce_sum(s, disc.mesh().comm());
}

std::array<double, 3> mixture(const Discretization& disc) {
  const auto w = disc.force_coefficient_weights();
  std::array<double, 3> m{};
  for (int j = 0; j < 3; ++j) m[j] = 0.7 * w[0][j] + 0.3 * w[1][j] - 0.5 * w[2][j];
  return m;
}

struct Check {
  double reverse, fd, scale;
};

// dJ/dX . V by the reverse sweep and by central differences.
Check check(const mesh::Mesh& global, const std::vector<BoundaryCondition>& conditions,
            const FlowConditions& flow, const SpatialOptions& spatial, std::uint64_t seed) {
  const int dim = global.dim();
  std::vector<double> v(static_cast<size_t>(global.n_nodes() * dim));
  for (index_t n = 0; n < global.n_nodes(); ++n)
    for (int d = 0; d < dim; ++d)
      v[static_cast<size_t>(n * dim + d)] = 0.02 * hashed_uniform(seed, n, d);
  const double h = 1e-6;
  mesh::DistributedMesh dm(global, world()), dmp(moved(global, v, h), world()),
      dmm(moved(global, v, -h), world());
  Discretization disc(dm, flow, conditions, FluxScheme::roe, spatial);
  Discretization discp(dmp, flow, conditions, FluxScheme::roe, spatial);
  Discretization discm(dmm, flow, conditions, FluxScheme::roe, spatial);
  Tensor U = rough(disc);
  const Tensor psi = hashed_psi(disc);
  if (spatial.freeze_limiter) {
    SpatialOptions live = spatial;
    live.freeze_limiter = false;
    Discretization unfrozen(dm, flow, conditions, FluxScheme::roe, live);
    const Tensor phi = unfrozen.limiter(U);
    disc.set_limiter(phi);
    discp.set_limiter(phi);
    discm.set_limiter(phi);
  }
  const std::array<double, 3> w = mixture(disc);
  const auto J = [&](Discretization& d) {
    Tensor u = U.clone();
    const Tensor R = d.residual(u);
    // w . G: the same mixture of the coefficients as w is of their weights.
    const Forces f = d.forces(U);
    return 0.7 * f.cl + 0.3 * f.cd - 0.5 * f.cm - owned_dot(d, psi, R);
  };
  const double fd = (J(discp) - J(discm)) / (2.0 * h);
  Tensor u = U.clone();
  const Tensor share = detail::ShapeTranspose::apply(disc, u, psi, w);
  // The shares summed by global node id, dotted with V.
  const auto& gid = dm.node_global_ids();
  const auto s = share.host();
  double reverse = 0.0, scale = 0.0;
  for (size_t n = 0; n < gid.size(); ++n)
    for (int d = 0; d < dim; ++d) {
      const double t = s(static_cast<index_t>(n) * dim + d) *
                       v[static_cast<size_t>(gid[n] * dim + d)];
      reverse += t;
      scale += std::abs(t);
    }
  return {par::allreduce_sum(reverse, world()), fd, par::allreduce_sum(scale, world())};
}

TEST(EulerShapeTranspose, MatchesCentralDifferencesIn2D) {
  const mesh::Mesh global = derivative_mesh();
  for (const LimiterCase& c : limiter_cases)
    for (double mach : {0.5, 1.3}) {
      SpatialOptions spatial;
      spatial.order = c.order;
      spatial.limiter = c.limiter;
      spatial.freeze_limiter = c.freeze;
      spatial.wang_epsilon = derivative_wang_epsilon;
      spatial.smooth_width = c.smooth_width;
      const Check r = check(global, derivative_conditions, derivative_flow(mach), spatial, 5);
      say("[shape transpose] 2-D %s, M %.1f: reverse %.12e, central difference %.12e, "
          "difference %.1e of %.2e\n",
          c.name, mach, r.reverse, r.fd, std::abs(r.reverse - r.fd), r.scale);
      EXPECT_GT(r.scale, 0.0);
      EXPECT_LE(std::abs(r.reverse - r.fd), 1e-7 * r.scale) << c.name << " M " << mach;
    }
}

TEST(EulerShapeTranspose, MatchesCentralDifferencesIn3D) {
  const LimiterCase cases[] = {limiter_cases[0], limiter_cases[1], limiter_cases[2],
                               limiter_cases[3], limiter_cases[4], limiter_cases[6]};
  for (const mesh::CellShape shape : {mesh::CellShape::quads, mesh::CellShape::triangles}) {
    const mesh::Mesh global = extruded_wing(shape);
    for (const LimiterCase& c : cases) {
      SpatialOptions spatial;
      spatial.order = c.order;
      spatial.limiter = c.limiter;
      spatial.freeze_limiter = c.freeze;
      spatial.smooth_width = c.smooth_width;
      const Check r = check(global, wing_conditions, wing_flow(), spatial, 6);
      const char* cells = shape == mesh::CellShape::quads ? "hexahedra" : "prisms";
      say("[shape transpose] 3-D %s, %s: reverse %.12e, central difference %.12e, "
          "difference %.1e of %.2e\n",
          cells, c.name, r.reverse, r.fd, std::abs(r.reverse - r.fd), r.scale);
      EXPECT_GT(r.scale, 0.0);
      EXPECT_LE(std::abs(r.reverse - r.fd), 1e-7 * r.scale) << cells << ", " << c.name;
    }
  }
}

}  // namespace
}  // namespace camber::solvers::euler
