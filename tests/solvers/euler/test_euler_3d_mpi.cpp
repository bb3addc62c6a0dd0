// The Euler residual on 3-D meshes at 1, 2 and 4 ranks, first and second
// order: SU2's brick meshes (the box [0, 2] x [0, 1]^2 in hexahedra,
// prisms, tetrahedra, and tetrahedra with pyramids), read from
// ../shared/data.
//
// Every expected value is math:
//   * free-stream preservation: on each element type, with every node moved
//     at random by up to a tenth of the shortest edge, a uniform state has
//     zero residual (outward normals close each cell; a consistent flux of
//     equal states and the far field's flux of the free stream are the
//     physical flux) to round-off, at first order and at second order with
//     every limiter (the gradients of a uniform state are zero); so does
//     the unmoved box with slip walls and supersonic inflow and outflow;
//   * least squares: on the moved meshes the gradients of a linear
//     primitive field are its coefficients (any weighted fit of a linear
//     function is exact), and the unlimited face states are the field at
//     the face midpoints, so the residual with supersonic outflow on every
//     boundary is the sum of the physical fluxes of those values, computed
//     here from the geometry alone;
//   * derivatives: the Dual tangent (dR/dU) V against central differences
//     of residual(), at first order and at second order with the C^1
//     limiter, the assembled first-order face blocks
//     (DiscretizationKernels::face_jacobians) against the first-order
//     tangent, and the stencil-assembled second-order Jacobian
//     times V against the tangent with every limiter (round-off);
//   * partition independence: the residual of a non-uniform state on all
//     ranks equals the one-rank residual cell by cell (global ids), at
//     first order and at second order with every limiter;
//   * a 2-D flow extruded: SU2's supersonic wedge extruded in z into two
//     layers of hexahedra between symmetry planes, solved to convergence by
//     the Newton solver in 3-D at first and at second order, is the 2-D
//     solution of that order in every cell (w = 0) and its wall forces are
//     the 2-D forces times the span.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/tensor.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/exact_jacobian.hpp>
#include <camber/solvers/euler/flux.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/euler/shape_derivative.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include "solvers/euler/detail/discretization_kernels.hpp"
#include "solvers/euler/detail/residual_transpose.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/shared_data.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers::euler {
namespace {

using test_utils::central_difference;
using test_utils::apply;
using test_utils::gathered;
using test_utils::owned_difference;
using test_utils::hashed_uniform;
using test_utils::say;

constexpr int nv3 = 5;
const char* const kinds[] = {"hex", "prism", "tets", "pyra"};
const LimiterKind limiters[] = {LimiterKind::venkatakrishnan, LimiterKind::venkatakrishnan_wang,
                                LimiterKind::venkatakrishnan_smooth, LimiterKind::none};

SpatialOptions second_order(LimiterKind limiter) {
  SpatialOptions s;
  s.order = 2;
  s.limiter = limiter;
  return s;
}

// Second order with thresholds below the variation between neighbours of
// the rough state (smooth_state with noise 0.01), so that the limiter's
// branches are exercised, not bypassed at phi = 1: K = 0.5 (eps^2 = (K
// h)^3 ~ (0.016)^3 on cells of h ~ 0.03) and wang_epsilon = 0.005. Even so
// the limiter cuts few entries: with dozens of node neighbours the range
// D1 is wide and the least-squares increment D2 small, and phi < 1 needs
// D1 < 2 D2. The tests require phi < 0.99 in more than min_limited of the
// (cell, variable) entries (hundreds of cells on these meshes).
constexpr double rough = 0.01;
constexpr double min_limited = 0.005;
SpatialOptions limited_second_order(LimiterKind limiter) {
  SpatialOptions s = second_order(limiter);
  s.venkatakrishnan_k = 0.5;
  s.wang_epsilon = 0.005;
  return s;
}

// The fraction of owned (cell, variable) entries whose limiter at U is
// below 0.99 (collective).
double limited_fraction(const Discretization& disc, Tensor& U) {
  const std::vector<double> phi = disc.limiter(U).to_vector();
  double n = 0.0;
  for (index_t i = 0; i < disc.n_owned() * nv3; ++i) n += phi[static_cast<size_t>(i)] < 0.99;
  return par::allreduce_sum(n, disc.mesh().comm()) /
         par::allreduce_sum(static_cast<double>(disc.n_owned() * nv3), disc.mesh().comm());
}

std::string brick(const std::string& kind) {
  return camber::test::shared_mesh("brick_" + kind + "_ffd_su2_testcases.su2");
}

template <class View>
auto on_host(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

// The global coordinates with every node moved by up to `fraction` of the
// shortest edge of the mesh in each direction, a function of the node id
// only (the same on every rank).
Tensor moved_coordinates(const mesh::Mesh& m, double fraction) {
  const auto x = on_host(m.coords());
  const auto off = on_host(m.face_offsets());
  const auto nodes = on_host(m.face_nodes());
  double h = 1e300;
  for (index_t f = 0; f < m.n_faces(); ++f)
    for (index_t k = off(f); k < off(f + 1); ++k) {
      const index_t a = nodes(k), b = nodes(k + 1 < off(f + 1) ? k + 1 : off(f));
      h = std::min(h, std::sqrt(std::pow(x(a, 0) - x(b, 0), 2) + std::pow(x(a, 1) - x(b, 1), 2) +
                                std::pow(x(a, 2) - x(b, 2), 2)));
    }
  std::vector<double> moved(static_cast<size_t>(3 * m.n_nodes()));
  for (index_t n = 0; n < m.n_nodes(); ++n)
    for (int d = 0; d < 3; ++d)
      moved[static_cast<size_t>(3 * n + d)] = x(n, d) + fraction * h * hashed_uniform(27, n, d);
  return Tensor::from_host({m.n_nodes(), 3}, moved);
}

// The brick of `kind` over all ranks with every node moved at random by up
// to a tenth of the shortest edge.
mesh::DistributedMesh moved_brick(const std::string& kind) {
  const mesh::Mesh global = mesh::read_mesh(brick(kind));
  const mesh::DistributedMesh dm(global, test::world());
  return dm.with_coordinates(moved_coordinates(global, 0.1));
}

std::vector<BoundaryCondition> all(BoundaryKind kind) {
  std::vector<BoundaryCondition> c;
  for (const char* name : {"x_m", "x_p", "y_m", "y_p", "z_m", "z_p"}) c.push_back({name, kind});
  return c;
}

double max_owned_abs(const Discretization& disc, const Tensor& R) {
  const std::vector<double> r = R.to_vector();
  double m = 0.0;
  for (index_t i = 0; i < disc.n_owned() * nv3; ++i) m = std::max(m, std::abs(r[static_cast<size_t>(i)]));
  return par::allreduce_max(m, disc.mesh().comm());
}

// A smooth non-uniform state (subsonic, positive) from the cell centroids,
// in every local cell; with `noise` > 0 every primitive variable of every
// cell moved by up to that much (a function of the global cell id: the same
// on every partition), which puts local extrema in most cells, where the
// limiter acts (on a smooth field it is 1 but near the field's own
// extrema).
Tensor smooth_state(const Discretization& disc, double noise = 0.0) {
  const auto xc = on_host(disc.geometry().cell_centroid);
  const auto& gid = disc.mesh().cell_global_ids();
  std::vector<double> u(static_cast<size_t>(disc.n_local() * nv3));
  for (index_t c = 0; c < disc.n_local(); ++c) {
    const double x = xc(c, 0), y = xc(c, 1), z = xc(c, 2);
    const auto jitter = [&](int k) { return noise * hashed_uniform(11, gid[c], k); };
    Primitive<double, 3> w;
    w.rho = 1.0 + 0.1 * std::sin(x + 2 * y) + jitter(0);
    w.vel[0] = 0.6 + 0.1 * std::cos(y + z) + jitter(1);
    w.vel[1] = 0.2 + 0.05 * std::sin(2 * x) + jitter(2);
    w.vel[2] = 0.15 + 0.04 * std::cos(3 * x - y) + jitter(3);
    w.p = (1.0 + 0.1 * std::cos(x - z)) / 1.4 + jitter(4);
    const Conserved<double, 3> s = to_conserved(disc.gas(), w);
    for (int k = 0; k < nv3; ++k) u[static_cast<size_t>(c * nv3 + k)] = s[k];
  }
  return Tensor::from_host({disc.n_local(), nv3}, u);
}

TEST(Euler3D, FreeStreamIsPreservedOnMovedMeshesOfEveryElementType) {
  for (const char* kind : kinds) {
    CAMBER_NEED_SHARED_FILE(brick(kind));
    mesh::DistributedMesh moved = moved_brick(kind);
    const auto v = on_host(mesh::compute_geometry(moved.local()).cell_volume);
    for (index_t c = 0; c < moved.n_owned_cells(); ++c) ASSERT_GT(v(c), 0.0) << kind << " cell " << c;
    std::vector<SpatialOptions> orders(1);
    for (LimiterKind limiter : limiters) orders.push_back(second_order(limiter));
    for (FluxScheme scheme : {FluxScheme::roe, FluxScheme::hllc})
      for (const SpatialOptions& spatial : orders) {
        FlowConditions flow;
        flow.mach = 0.6;
        flow.alpha_deg = 3.0;
        const Discretization disc(moved, flow, all(BoundaryKind::far_field), scheme, spatial);
        ASSERT_EQ(disc.dim(), 3);
        ASSERT_EQ(disc.n_vars(), 5);
        Tensor U = disc.free_stream_field();
        const Tensor R = disc.residual(U);
        // Scale: the momentum flux (p + rho u^2) through the largest face.
        const auto area = on_host(disc.geometry().face_area);
        double a = 0.0;
        for (index_t f = 0; f < disc.n_faces(); ++f) a = std::max(a, area(f));
        const double scale = par::allreduce_max(a, test::world()) * (1.0 / 1.4 + 0.36);
        const double r = max_owned_abs(disc, R);
        say("[euler3d] %s (%s, order %d%s%s): max |R| of the free stream on the moved mesh %.2e "
            "of %.2e\n",
            kind, scheme == FluxScheme::roe ? "roe" : "hllc", spatial.order,
            spatial.order == 2 ? ", " : "",
            spatial.order == 2 ? limiter_kind_name(spatial.limiter) : "", r, scale);
        EXPECT_LE(r, 1e-14 * scale) << kind << " order " << spatial.order;
      }
  }
}

TEST(Euler3D, SlipWallsAndSupersonicInflowAndOutflowKeepAUniformStream) {
  CAMBER_NEED_SHARED_FILE(brick("hex"));
  mesh::DistributedMesh dm = mesh::DistributedMesh::read(brick("hex"), test::world());
  FlowConditions flow;
  flow.mach = 2.0;
  const Discretization disc(dm, flow,
                            {{"x_m", BoundaryKind::supersonic_inflow},
                             {"x_p", BoundaryKind::supersonic_outflow},
                             {"y_m", BoundaryKind::slip_wall},
                             {"y_p", BoundaryKind::slip_wall},
                             {"z_m", BoundaryKind::symmetry},
                             {"z_p", BoundaryKind::symmetry}},
                            FluxScheme::hllc);
  Tensor U = disc.free_stream_field();
  const double r = max_owned_abs(disc, disc.residual(U));
  say("[euler3d] hex box, walls and supersonic in/outflow: max |R| %.2e\n", r);
  EXPECT_LE(r, 1e-14);
}

// The derivative tests' flow (M 0.6 along x) and boundaries: a slip wall
// at y = 0 (y_m), far field elsewhere.
FlowConditions subsonic_flow() {
  FlowConditions flow;
  flow.mach = 0.6;
  return flow;
}

std::vector<BoundaryCondition> wall_and_far_field() {
  std::vector<BoundaryCondition> conditions = all(BoundaryKind::far_field);
  conditions[2].kind = BoundaryKind::slip_wall;  // y_m
  return conditions;
}

// A direction for derivatives, a function of (global cell id, variable)
// only: uniform in [-1, 1), the energy's in [-2, 2).
Tensor random_direction(const Discretization& disc) {
  std::vector<double> v(static_cast<size_t>(disc.n_local() * nv3));
  for (index_t c = 0; c < disc.n_local(); ++c)
    for (int k = 0; k < nv3; ++k)
      v[static_cast<size_t>(c * nv3 + k)] =
          hashed_uniform(5, disc.mesh().cell_global_ids()[c], k) * (k == 4 ? 2.0 : 1.0);
  return Tensor::from_host({disc.n_local(), nv3}, v);
}

TEST(Euler3D, TangentAndFaceBlocksAreTheResidualsDerivative) {
  for (const char* kind : {"prism", "pyra"}) {
    CAMBER_NEED_SHARED_FILE(brick(kind));
    mesh::DistributedMesh moved = moved_brick(kind);
    const Discretization disc(moved, subsonic_flow(), wall_and_far_field(), FluxScheme::roe);
    Tensor U = smooth_state(disc);
    Tensor V = random_direction(disc);
    Tensor R, dR;
    disc.residual_and_tangent(U, V, R, dR);
    const std::vector<double> dr = dR.to_vector();
    const auto [err, top] = owned_difference(disc, central_difference(disc, U, V, 1e-6), dR);
    // The face blocks, assembled: (J V)_c = sum over faces s (A_L V_l + A_R V_r).
    disc.mesh().halo().forward(U);
    disc.mesh().halo().forward(V);
    const std::vector<double> J =
        detail::DiscretizationKernels::face_jacobians(disc, U).to_vector();
    const auto left = on_host(disc.face_left());
    const auto right = on_host(disc.face_right());
    const std::vector<double> vv = V.to_vector();
    std::vector<double> jv(static_cast<size_t>(disc.n_local() * nv3), 0.0);
    for (index_t f = 0; f < disc.n_faces(); ++f)
      for (int i = 0; i < nv3; ++i) {
        double s = 0.0;
        for (int k = 0; k < nv3; ++k) {
          s += J[static_cast<size_t>((f * nv3 + i) * 2 * nv3 + k)] * vv[static_cast<size_t>(left(f) * nv3 + k)];
          if (right(f) >= 0)
            s += J[static_cast<size_t>((f * nv3 + i) * 2 * nv3 + nv3 + k)] *
                 vv[static_cast<size_t>(right(f) * nv3 + k)];
        }
        jv[static_cast<size_t>(left(f) * nv3 + i)] += s;
        if (right(f) >= 0) jv[static_cast<size_t>(right(f) * nv3 + i)] -= s;
      }
    double block_err = 0.0;
    for (index_t i = 0; i < disc.n_owned() * nv3; ++i)
      block_err = std::max(block_err, std::abs(jv[static_cast<size_t>(i)] - dr[static_cast<size_t>(i)]));
    block_err = par::allreduce_max(block_err, test::world());
    say("[euler3d] %s: tangent against central differences %.2e, face blocks against the tangent "
        "%.2e, of max |dR| %.2e\n",
        kind, err, block_err, top);
    EXPECT_LE(err, 1e-8 * top) << kind;
    EXPECT_LE(block_err, 1e-13 * top) << kind;
  }
}

// A linear primitive field W(x) = a + B x, (rho, u, v, w, p): positive
// density (>= 0.8) and pressure (>= 0.5) on the box [0, 2] x [0, 1]^2 and
// a tenth of a cell beyond it.
struct LinearField {
  double a[nv3] = {1.0, 0.5, 0.1, -0.2, 1.0 / 1.4};
  double b[nv3][3] = {{0.1, -0.05, 0.08},
                      {0.05, 0.1, -0.1},
                      {-0.07, 0.03, 0.05},
                      {0.02, -0.04, 0.06},
                      {0.03, 0.06, -0.05}};
  Primitive<double, 3> at(double x, double y, double z) const {
    double w[nv3];
    for (int k = 0; k < nv3; ++k) w[k] = a[k] + b[k][0] * x + b[k][1] * y + b[k][2] * z;
    Primitive<double, 3> p;
    p.rho = w[0];
    for (int d = 0; d < 3; ++d) p.vel[d] = w[1 + d];
    p.p = w[4];
    return p;
  }
};

// The least-squares gradient of any weighted fit is exact for a linear
// field, and the unlimited second-order face states are then the field at
// the face midpoints: with supersonic outflow on every boundary face (the
// physical flux of the face state) and Roe's flux (the physical flux of
// equal states) the residual of cell i is sum over faces of s_if F(W(x_f)).
// n_f, computed here from the face midpoints and normals alone. On every
// element type with its nodes moved, with the default (mixed) and the
// node-neighbour stencils. Tolerances: the gradients to 1e-12 of max |B|
// (their round-off is ~eps |W| / h ~ 1e-14 of it on these cells); the
// residual to 1e-12 of the largest face's flux (a sum of at most ~20 such
// terms, each computed from states equal to ~1e-15).
TEST(Euler3D, LeastSquaresGradientsAndFaceStatesAreExactForLinearFields) {
  const LinearField field;
  double b_max = 0.0;
  for (const auto& row : field.b)
    for (double v : row) b_max = std::max(b_max, std::abs(v));
  for (const char* kind : kinds) {
    CAMBER_NEED_SHARED_FILE(brick(kind));
    mesh::DistributedMesh moved = moved_brick(kind);
    for (GradientStencil stencil : {GradientStencil::mixed, GradientStencil::nodes}) {
      SpatialOptions spatial = second_order(LimiterKind::none);
      spatial.gradient_stencil = stencil;
      const Discretization disc(moved, FlowConditions{}, all(BoundaryKind::supersonic_outflow),
                                FluxScheme::roe, spatial);
      const IdealGas gas = disc.gas();
      const auto xc = on_host(disc.geometry().cell_centroid);
      std::vector<double> u(static_cast<size_t>(disc.n_local() * nv3));
      for (index_t c = 0; c < disc.n_local(); ++c) {
        const Conserved<double, 3> s = to_conserved(gas, field.at(xc(c, 0), xc(c, 1), xc(c, 2)));
        for (int k = 0; k < nv3; ++k) u[static_cast<size_t>(c * nv3 + k)] = s[k];
      }
      Tensor U = Tensor::from_host({disc.n_local(), nv3}, u);

      const std::vector<double> g = disc.primitive_gradients(U).to_vector();
      double g_err = 0.0;
      for (index_t c = 0; c < disc.n_owned(); ++c)
        for (int k = 0; k < nv3; ++k)
          for (int d = 0; d < 3; ++d)
            g_err = std::max(g_err, std::abs(g[static_cast<size_t>((c * nv3 + k) * 3 + d)] -
                                             field.b[k][d]));
      g_err = par::allreduce_max(g_err, test::world()) / b_max;

      // The expected residual, face by face.
      const auto center = on_host(disc.geometry().face_center);
      const auto normal = on_host(disc.geometry().face_normal);
      const auto left = on_host(disc.face_left());
      const auto right = on_host(disc.face_right());
      std::vector<double> expected(static_cast<size_t>(disc.n_owned() * nv3), 0.0);
      double scale = 0.0;
      for (index_t f = 0; f < disc.n_faces(); ++f) {
        const double n[3] = {normal(f, 0), normal(f, 1), normal(f, 2)};
        const Conserved<double, 3> flux = physical_flux(
            gas, to_conserved(gas, field.at(center(f, 0), center(f, 1), center(f, 2))), n);
        for (int k = 0; k < nv3; ++k) {
          scale = std::max(scale, std::abs(flux[k]));
          if (left(f) < disc.n_owned())
            expected[static_cast<size_t>(left(f) * nv3 + k)] += flux[k];
          if (right(f) >= 0 && right(f) < disc.n_owned())
            expected[static_cast<size_t>(right(f) * nv3 + k)] -= flux[k];
        }
      }
      scale = par::allreduce_max(scale, test::world());
      const std::vector<double> r = disc.residual(U).to_vector();
      double r_err = 0.0;
      for (size_t i = 0; i < expected.size(); ++i)
        r_err = std::max(r_err, std::abs(r[i] - expected[i]));
      r_err = par::allreduce_max(r_err, test::world()) / scale;
      say("[euler3d] %s, %s stencil: linear field, max |grad W - B| / max |B| %.2e, max |R - sum "
          "F(W(x_f)) . n_f| / max |F . n| %.2e\n",
          kind, stencil == GradientStencil::nodes ? "node" : "mixed", g_err, r_err);
      EXPECT_LE(g_err, 1e-12) << kind;
      EXPECT_LE(r_err, 1e-12) << kind;
    }
  }
}

// Second order on the moved prism and pyramid meshes with a slip wall, at
// the rough state with the thresholds of limited_second_order:
//  - the Dual tangent with the C^1 limiter (venkatakrishnan_smooth) against
//    central differences of residual() with step h = 5e-8: its smooth
//    extremes have width w = 0.25 wang_epsilon = 1.25e-3, so third
//    derivatives of the face increments (~0.01) are ~0.01 / w^3 and the
//    truncation h^2 |R'''| / 6 is ~2e-9 of max |dR|; round-off eps |R| / h
//    is ~1e-10 of it; 1e-8, as at first order;
//  - the exact Jacobian assembled by the chain rule through the
//    reconstruction (ExactJacobian::assemble) times V against the tangent,
//    on the prisms for every limiter, live and frozen, on the tetrahedra
//    and pyramids for the classic one (an assembly there takes seconds):
//    both take the same branches of the limiter, so they agree to
//    round-off (a row sums a few hundred products of ~max |dR|; 1e-12 of
//    max |dR|);
//  - the residual with the limiter frozen at U (freeze_limiter, or
//    set_limiter(limiter(U))) is the live one at U, bit for bit.
TEST(Euler3D, SecondOrderTangentAndJacobianAreTheResidualsDerivative) {
  for (const char* kind : {"prism", "pyra"}) {
    CAMBER_NEED_SHARED_FILE(brick(kind));
    mesh::DistributedMesh moved = moved_brick(kind);
    const FlowConditions flow = subsonic_flow();
    const std::vector<BoundaryCondition> conditions = wall_and_far_field();
    std::shared_ptr<const ExactJacobian::Pattern> pattern;
    for (LimiterKind limiter : limiters) {
      const SpatialOptions spatial = limited_second_order(limiter);
      Discretization disc(moved, flow, conditions, FluxScheme::roe, spatial);
      Tensor U = smooth_state(disc, rough);
      Tensor V = random_direction(disc);
      Tensor R, dR;
      disc.residual_and_tangent(U, V, R, dR);
      const char* name = limiter_kind_name(limiter);
      const double limited = limited_fraction(disc, U);
      if (limiter != LimiterKind::none) {
        EXPECT_GT(limited, min_limited) << kind << " " << name;
      }
      if (limiter == LimiterKind::venkatakrishnan_smooth) {
        const auto [err, top] =
            owned_difference(disc, central_difference(disc, U, V, 5e-8), dR);
        say("[euler3d] %s, second order, %s (phi < 0.99 in %.1f%% of the entries): tangent "
            "against central differences %.2e of max |dR| %.2e\n",
            kind, name, 100.0 * limited, err, top);
        EXPECT_LE(err, 1e-8 * top) << kind;
      }
      const bool prisms = std::string(kind) == "prism";
      if (!prisms && limiter != LimiterKind::venkatakrishnan) continue;
      for (bool frozen : {false, true}) {
        if (frozen && !prisms) continue;
        if (frozen) {
          const Tensor live = disc.residual(U);
          disc.freeze_limiter(U);
          EXPECT_EQ(owned_difference(disc, disc.residual(U), live).first, 0.0) << kind << name;
          Discretization by_phi(moved, flow, conditions, FluxScheme::roe, spatial);
          by_phi.set_limiter(disc.limiter(U));
          EXPECT_EQ(owned_difference(disc, by_phi.residual(U), live).first, 0.0) << kind << name;
          disc.residual_and_tangent(U, V, R, dR);
        }
        ExactJacobian jac(disc, pattern);
        pattern = jac.shared_pattern();
        jac.assemble(disc, U);
        const auto [err, top] = owned_difference(disc, apply(jac, disc, V), dR);
        say("[euler3d] %s, second order, %s%s (phi < 0.99 in %.1f%% of the entries): assembled "
            "Jacobian times V against the tangent %.2e of max |dR| %.2e (%lld blocks)\n",
            kind, name, frozen ? " frozen" : "", 100.0 * limited, err, top, jac.n_blocks());
        EXPECT_LE(err, 1e-12 * top) << kind << " " << name << (frozen ? " frozen" : "");
      }
    }
  }
}

// The transposed Jacobian by the reverse sweep (detail::ResidualTranspose,
// the device path's adjoint operator) on the tetrahedra and pyramids,
// whose node-neighbour stencils hold dozens of cells: the dot-product
// identity <W, (dR/dU) V> = <(dR/dU)^T W, V> against the Dual tangent for
// every limiter, live and frozen, at the rough state where the limiter
// acts (both sides sum the same products in other orders: 1e-12 of |W|
// |dR|), and the wall load's gradient against central differences of the
// forces with the limiter frozen (step 1e-6: truncation ~1e-12, round-off
// ~1e-10 of the gradient's size; 1e-7).
TEST(Euler3D, TheTransposedJacobianPassesTheDotProductTest) {
  for (const char* kind : {"tets", "pyra"}) {
    CAMBER_NEED_SHARED_FILE(brick(kind));
    mesh::DistributedMesh moved = moved_brick(kind);
    for (LimiterKind limiter : limiters)
      for (bool frozen : {false, true}) {
        if (frozen && limiter == LimiterKind::none) continue;
        Discretization disc(moved, subsonic_flow(), wall_and_far_field(), FluxScheme::roe,
                            limited_second_order(limiter));
        Tensor U = smooth_state(disc, rough);
        if (frozen) disc.freeze_limiter(U);
        Tensor V = random_direction(disc);
        std::vector<double> w_rows(static_cast<size_t>(disc.n_local() * nv3));
        for (index_t c = 0; c < disc.n_local(); ++c)
          for (int k = 0; k < nv3; ++k)
            w_rows[static_cast<size_t>(c * nv3 + k)] =
                hashed_uniform(6, disc.mesh().cell_global_ids()[c], k);
        Tensor W = Tensor::from_host({disc.n_local(), nv3}, w_rows);
        Tensor R, dR;
        disc.residual_and_tangent(U, V, R, dR);
        detail::ResidualTranspose transpose(disc);
        transpose.linearize(U);
        Tensor JtW;
        transpose.apply(W, JtW);
        const auto dot = [&](const Tensor& a, const Tensor& b) {
          const std::vector<double> x = a.to_vector(), y = b.to_vector();
          double sum = 0.0;
          for (index_t i = 0; i < disc.n_owned() * nv3; ++i)
            sum += x[static_cast<size_t>(i)] * y[static_cast<size_t>(i)];
          return par::allreduce_sum(sum, disc.mesh().comm());
        };
        const double lhs = dot(W, dR), rhs = dot(JtW, V);
        const double scale = std::sqrt(dot(W, W) * dot(dR, dR));
        say("[euler3d] %s, %s%s: |<W, J V> - <J^T W, V>| / (|W| |J V|) = %.2e\n", kind,
            limiter_kind_name(limiter), frozen ? " frozen" : "", std::abs(lhs - rhs) / scale);
        // Random vectors of n entries: |<W, J V>| ~ |W| |J V| / sqrt(n), far
        // above the tolerance (not a comparison of zeros).
        EXPECT_GT(std::abs(lhs), 1e-6 * scale) << kind;
        EXPECT_LE(std::abs(lhs - rhs), 1e-12 * scale)
            << kind << " " << limiter_kind_name(limiter) << (frozen ? " frozen" : "");
        if (!frozen) continue;
        const auto w = disc.force_coefficient_weights();
        const Tensor g = transpose.force_gradient(w[1]);
        const double h = 1e-6;
        Tensor up = U.clone(), down = U.clone();
        up.axpy(h, V);
        down.axpy(-h, V);
        const double fd = (disc.forces(up).cd - disc.forces(down).cd) / (2.0 * h);
        const double ad = dot(g, V), g_scale = std::sqrt(dot(g, g) * dot(V, V));
        say("[euler3d] %s, %s frozen: dCD/dU . V = %.12e, central difference %.12e\n", kind,
            limiter_kind_name(limiter), ad, fd);
        EXPECT_LE(std::abs(ad - fd), 1e-7 * g_scale) << kind << " " << limiter_kind_name(limiter);
      }
  }
}

// The shape derivative by its reverse sweep (ShapeDerivative's default) on
// tetrahedra and pyramids: for a fixed state U, a hashed psi and J(X) =
// CD(U, X) - psi^T R(U, X), dJ/dX . V against central differences of J on
// the brick moved by +-h V (h = 1e-6; the 2-D tolerance model of
// test_shape_transpose_mpi.cpp: 1e-7 of the sum of the terms' magnitudes
// |dJ/dX_n . V_n|). The limiter live (Venkatakrishnan's, its smooth form,
// Wang's) and frozen.
TEST(Euler3D, TheReverseShapeDerivativeMatchesCentralDifferences) {
  struct Case {
    const char* kind;
    LimiterKind limiter;
    bool frozen;
  };
  const Case cases[] = {{"tets", LimiterKind::venkatakrishnan, false},
                        {"tets", LimiterKind::venkatakrishnan_smooth, false},
                        {"pyra", LimiterKind::venkatakrishnan_wang, false},
                        {"pyra", LimiterKind::venkatakrishnan, true}};
  for (const Case& k : cases) {
    CAMBER_NEED_SHARED_FILE(brick(k.kind));
    const mesh::Mesh global = mesh::read_mesh(brick(k.kind));
    const index_t n_nodes = global.n_nodes();
    const std::vector<double> x0 = moved_coordinates(global, 0.1).to_vector();
    std::vector<double> v(x0.size()), xp(x0), xm(x0);
    const double h = 1e-6;
    for (index_t n = 0; n < n_nodes; ++n)
      for (int d = 0; d < 3; ++d) {
        const size_t i = static_cast<size_t>(3 * n + d);
        v[i] = 0.01 * hashed_uniform(29, n, d);
        xp[i] += h * v[i];
        xm[i] -= h * v[i];
      }
    const mesh::DistributedMesh layout(global, test::world());
    mesh::DistributedMesh dm = layout.with_coordinates(Tensor::from_host({n_nodes, 3}, x0));
    mesh::DistributedMesh dmp = layout.with_coordinates(Tensor::from_host({n_nodes, 3}, xp));
    mesh::DistributedMesh dmm = layout.with_coordinates(Tensor::from_host({n_nodes, 3}, xm));
    const SpatialOptions spatial = limited_second_order(k.limiter);
    Discretization disc(dm, subsonic_flow(), wall_and_far_field(), FluxScheme::roe, spatial);
    Discretization discp(dmp, subsonic_flow(), wall_and_far_field(), FluxScheme::roe, spatial);
    Discretization discm(dmm, subsonic_flow(), wall_and_far_field(), FluxScheme::roe, spatial);
    Tensor U = smooth_state(disc, rough);
    if (k.frozen) {
      disc.freeze_limiter(U);
      discp.set_limiter(disc.limiter(U));
      discm.set_limiter(disc.limiter(U));
    }
    std::vector<double> p(static_cast<size_t>(disc.n_local() * nv3));
    for (index_t c = 0; c < disc.n_local(); ++c)
      for (int j = 0; j < nv3; ++j)
        p[static_cast<size_t>(c * nv3 + j)] = hashed_uniform(8, disc.mesh().cell_global_ids()[c], j);
    const Tensor psi = Tensor::from_host({disc.n_local(), nv3}, p);
    const auto J = [&](Discretization& d) {
      Tensor u = U.clone();
      const std::vector<double> r = d.residual(u).to_vector();
      double s = 0.0;
      for (index_t i = 0; i < d.n_owned() * nv3; ++i)
        s += p[static_cast<size_t>(i)] * r[static_cast<size_t>(i)];
      return d.forces(U).cd - par::allreduce_sum(s, d.mesh().comm());
    };
    const double fd = (J(discp) - J(discm)) / (2.0 * h);
    ShapeDerivative shape(disc);
    ASSERT_EQ(shape.method(), ShapeMethod::reverse);
    const std::vector<double> g =
        shape.total_derivative(U, psi, disc.force_coefficient_weights()[1]).to_vector();
    double by_reverse = 0.0, scale = 0.0;
    for (size_t i = 0; i < g.size(); ++i) {
      by_reverse += g[i] * v[i];
      scale += std::abs(g[i] * v[i]);
    }
    say("[euler3d] %s, %s%s: dJ/dX . V reverse %.12e, central difference %.12e (%.1e of %.2e)\n",
        k.kind, limiter_kind_name(k.limiter), k.frozen ? " frozen" : "", by_reverse, fd,
        std::abs(by_reverse - fd), scale);
    EXPECT_GT(scale, 0.0);
    EXPECT_LE(std::abs(by_reverse - fd), 1e-7 * scale)
        << k.kind << " " << limiter_kind_name(k.limiter) << (k.frozen ? " frozen" : "");
  }
}

// The residual of one state on all ranks and on one: the limiter's
// extremes, the least-squares sums and the flux sums run over other local
// orders of the same cells, so the two agree to round-off (first order
// 1e-10 of max |R|, as before; second order 1e-12: the sums are of a few
// dozen terms of at most max |R| each, ~1e-15 apart). Second order with
// every limiter at the rough state, its thresholds small enough for the
// limiter to act (limited_second_order).
TEST(Euler3D, TheResidualDoesNotDependOnThePartition) {
  for (const char* kind : kinds) {
    CAMBER_NEED_SHARED_FILE(brick(kind));
    const mesh::Mesh global = mesh::read_mesh(brick(kind));
    FlowConditions flow;
    flow.mach = 0.6;
    flow.alpha_deg = 2.0;
    std::vector<SpatialOptions> orders(1);
    for (LimiterKind limiter : limiters) orders.push_back(limited_second_order(limiter));
    std::vector<double> limited(orders.size(), 0.0);
    const auto residuals_on = [&](MPI_Comm comm) {
      mesh::DistributedMesh dm(global, comm);
      std::vector<std::map<std::int64_t, std::vector<double>>> r;
      for (size_t o = 0; o < orders.size(); ++o) {
        const Discretization disc(dm, flow, all(BoundaryKind::far_field), FluxScheme::roe,
                                  orders[o]);
        Tensor U = smooth_state(disc, rough);
        r.push_back(gathered(disc, disc.residual(U), nv3));
        limited[o] = limited_fraction(disc, U);
      }
      return r;
    };
    const auto parallel = residuals_on(test::world());
    const auto serial = residuals_on(MPI_COMM_SELF);
    if (test::rank() != 0) continue;
    for (size_t o = 0; o < orders.size(); ++o) {
      ASSERT_EQ(parallel[o].size(), static_cast<size_t>(global.n_cells()));
      double diff = 0.0, top = 0.0;
      for (const auto& [id, r] : serial[o])
        for (int k = 0; k < nv3; ++k) {
          diff = std::max(diff, std::abs(r[k] - parallel[o].at(id)[k]));
          top = std::max(top, std::abs(r[k]));
        }
      const int order = orders[o].order;
      const bool limiting = order == 2 && orders[o].limiter != LimiterKind::none;
      char what[96] = "order 1";
      if (order == 2)
        std::snprintf(what, sizeof what, "order 2, %s (phi < 0.99 in %.1f%% of the entries)",
                      limiter_kind_name(orders[o].limiter), 100.0 * limited[o]);
      say("[euler3d] %s, %s, %d ranks against 1: max |R difference| %.2e of %.2e\n", kind, what,
          test::size(), diff, top);
      EXPECT_LE(diff, (order == 1 ? 1e-10 : 1e-12) * top) << kind << " order " << order;
      if (limiting) {
        EXPECT_GT(limited[o], min_limited) << kind;
      }
    }
  }
}

// At second order the extruded discrete equations are the 2-D ones too:
// the hexahedra take their face neighbours as the quads do, plus the cell
// of the other layer, whose state equals theirs, so the z-gradient is zero
// and the in-plane fit (weights, normal matrix) is the 2-D one; that
// neighbour's difference, 0, lies in [d_min, d_max] already, so the
// limiter's extremes do not change, and its faces' increments are 0.
// Venkatakrishnan-Wang (its threshold a global one, the same in both) is
// the limiter Newton converges on without freezing. The agreement is that
// of two Newton solutions of one system converged to 1e-12 whose
// coefficients differ by round-off (3-D centroids and normals from
// tetrahedral decompositions, the z-components of the fit): 1e-9 of the
// state, as at first order.
TEST(Euler3D, AnExtrudedWedgeSolvesToTheTwoDimensionalFlow) {
  const std::string path = camber::test::shared_mesh("wedge_inviscid_su2_testcases.su2");
  CAMBER_NEED_SHARED_FILE(path);
  const mesh::Mesh m2 = mesh::read_mesh(path);
  const int layers = 2;
  const double dz = 0.05;
  const mesh::Mesh m3 = test_utils::extruded(m2, layers, dz, path + " (extruded)");
  FlowConditions flow;
  flow.mach = 2.0;
  const std::vector<BoundaryCondition> walls2 = {{"inlet", BoundaryKind::supersonic_inflow},
                                                 {"outlet", BoundaryKind::supersonic_outflow},
                                                 {"lower", BoundaryKind::slip_wall},
                                                 {"upper", BoundaryKind::slip_wall}};
  std::vector<BoundaryCondition> walls3 = walls2;
  walls3.push_back({"z_lo", BoundaryKind::symmetry});
  walls3.push_back({"z_hi", BoundaryKind::symmetry});
  SteadyOptions options;
  options.rel_tolerance = 1e-12;
  options.max_iterations = 60;
  for (const SpatialOptions& spatial :
       {SpatialOptions{}, second_order(LimiterKind::venkatakrishnan_wang)}) {
    const auto solve = [&](const mesh::Mesh& m, const std::vector<BoundaryCondition>& conditions,
                           int nv, std::map<std::int64_t, std::vector<double>>& by_id) {
      mesh::DistributedMesh dm(m, test::world());
      const Discretization disc(dm, flow, conditions, FluxScheme::roe, spatial);
      Tensor U = disc.free_stream_field();
      const SteadyResult r = solve_steady(disc, U, options);
      EXPECT_TRUE(r.converged) << m.dim() << "-D, order " << spatial.order;
      // Every cell's state on rank 0, by global id.
      by_id = gathered(disc, U, nv);
      say("[euler3d] wedge %d-D, order %d: %d Newton steps, residual drop %.1f orders\n",
          m.dim(), spatial.order, r.iterations,
          std::log10(r.history.front().residual_density / r.history.back().residual_density));
      return r.forces;
    };
    std::map<std::int64_t, std::vector<double>> u2, u3;
    const Forces f2 = solve(m2, walls2, 4, u2);
    const Forces f3 = solve(m3, walls3, 5, u3);
    const double span = layers * dz;
    say("[euler3d] wedge forces, order %d: 2-D (%.12g, %.12g) x span, 3-D (%.12g, %.12g, %.3g)\n",
        spatial.order, f2.fx * span, f2.fy * span, f3.fx, f3.fy, f3.fz);
    EXPECT_NEAR(f3.fx, f2.fx * span, 1e-9 * std::abs(f2.fy * span)) << "order " << spatial.order;
    EXPECT_NEAR(f3.fy, f2.fy * span, 1e-9 * std::abs(f2.fy * span)) << "order " << spatial.order;
    EXPECT_EQ(f3.fz, 0.0);
    if (test::rank() != 0) continue;
    ASSERT_EQ(u2.size(), static_cast<size_t>(m2.n_cells()));
    ASSERT_EQ(u3.size(), static_cast<size_t>(m3.n_cells()));
    double diff = 0.0, w = 0.0;
    for (const auto& [id, s3] : u3) {
      const std::vector<double>& s2 = u2.at(id % m2.n_cells());
      for (const auto& [k2, k3] : {std::pair<int, int>{0, 0}, {1, 1}, {2, 2}, {3, 4}})
        diff = std::max(diff, std::abs(s3[k3] - s2[k2]) / std::max(1.0, std::abs(s2[k2])));
      w = std::max(w, std::abs(s3[3]));
    }
    say("[euler3d] wedge, order %d: largest difference of the 3-D state from the 2-D one %.2e, "
        "|rho w| %.2e\n",
        spatial.order, diff, w);
    EXPECT_LE(diff, 1e-9) << "order " << spatial.order;
    // rho w is zero to the solve's round-off, which moves with the order
    // of the sums (each rank's cell numbering): 5e-12 to 1.1e-11 measured
    // at 1, 2 and 4 ranks; bounded ten times below the other components'.
    EXPECT_LE(w, 1e-10) << "order " << spatial.order;
  }
}

// A mesh whose markers leave part of the boundary bare (SU2's brick of
// hexahedra without its marker z_p, the face z = 1 of 741 quads): one
// bad_input error on every rank, with the count and a place on that face.
TEST(Euler3D, MarkersThatDoNotCloseTheDomainAreBadInput) {
  CAMBER_NEED_SHARED_FILE(brick("hex"));
  mesh::MeshData d = mesh::read_mesh_data(brick("hex"));
  d.markers.erase(std::remove_if(d.markers.begin(), d.markers.end(),
                                 [](const mesh::MeshData::Marker& m) { return m.name == "z_p"; }),
                  d.markers.end());
  mesh::DistributedMesh dm(mesh::Mesh::from_cells(d), test::world());
  std::vector<BoundaryCondition> conditions = all(BoundaryKind::far_field);
  conditions.pop_back();  // z_p
  try {
    (void)Discretization(dm, FlowConditions{}, conditions);
    ADD_FAILURE() << "expected a bad_input error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    const std::string what = e.what();
    EXPECT_NE(what.find("741 boundary faces of the mesh have no marker (one at ("), std::string::npos)
        << what;
    EXPECT_NE(what.find(", 1)), so the markers do not close the domain"), std::string::npos) << what;
    EXPECT_NE(what.find("the mesh's markers: x_m, x_p, y_m, y_p, z_m"), std::string::npos) << what;
  }
}

TEST(Euler3D, TheFarFieldVortexIsTwoDimensionalOnly) {
  CAMBER_NEED_SHARED_FILE(brick("hex"));
  mesh::DistributedMesh dm = mesh::DistributedMesh::read(brick("hex"), test::world());
  FlowConditions flow;
  flow.far_field_vortex = true;
  try {
    (void)Discretization(dm, flow, all(BoundaryKind::far_field));
    ADD_FAILURE() << "expected a bad_input error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("far-field vortex is a 2-D correction"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace camber::solvers::euler
