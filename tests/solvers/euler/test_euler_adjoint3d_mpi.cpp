// The discrete adjoint and the shape derivative in 3-D at 1, 2 and 4 ranks.
//
// The case: a NACA 0012 O-grid (32 x 10 cells) extruded into three layers
// (span 0.6 along y, lift along z as the 3-D solver has it) between
// symmetry planes, as hexahedra (face-neighbour reconstruction) and, with
// every quad split in two, as prisms (node-neighbour reconstruction); the
// section thinned towards y = 0.6 near the airfoil, so that the flow is
// three-dimensional. M 0.5, alpha 2 degrees, second order (least squares,
// Venkatakrishnan's limiter; its C^1 variant where a live limiter is
// differenced).
//
// Expected values are math:
//   * the Jacobian by column colouring (Dual<double, 5> residual sweeps)
//     equals the stencil-assembled one, and the force gradient dJ/dU by the
//     same colouring matches central differences of CL, CD, CM along
//     random directions (limiter frozen; 1e-7 of |g| |V|, the 2-D test's
//     error model);
//   * the node-coordinate partials: (dR/dX) V at fixed U against central
//     differences of the residual on meshes moved by +-h V (1e-7 of the
//     largest entry), and (dG/dX) V of the wall load against central
//     differences of CL, CD, CM at fixed U (1e-7 relative);
//   * the whole chain at a converged state (limiter frozen at the
//     baseline's phi, so that the same residual is solved): dJ/dalpha from
//     the adjoint against the tangent (the dot-product identity; 1e-8 of
//     the lift slope) and against central differences of converged
//     solutions at alpha +- 0.001 degree (1e-7 of the lift slope: the
//     forces are converged to ~1e-13, their difference is ~2e-4), and
//     dJ/dX . V from the adjoint against central differences of converged
//     solutions on moved meshes (1e-5 relative);
//   * the device path's adjoint (the reverse sweep, camber's GMRES) gives
//     PETSc's dJ/dalpha and dJ/dX . V to the solves' tolerance (1e-8);
//   * the shape gradient of every rank count equals the one-rank gradient
//     (dJ/dX . V at 1e-9 relative: both come from solves converged to
//     1e-10 of their right-hand sides);
//   * the gradient with respect to the control points of an FFD box
//     (design::FfdVolume, each rank moving its own nodes), chained onto
//     the ranks' shares of dJ/dX at their row coordinates, against central
//     differences of converged solutions on the meshes the box moves
//     (1e-5 relative); the row coordinates gathered from other ranks equal
//     the global mesh's;
//   * the same chain as one differentiable op (euler::SteadyFlow built from
//     the distributed mesh, the FFD box as a graph node): dCD/da . d from
//     its VJP against central differences of its own evaluations (smooth
//     limiter live, so the function evaluated is the one differentiated;
//     1e-5 relative), and its tangent against its adjoint (1e-8).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/design/ffd_volume.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/exact_jacobian.hpp>
#include <camber/solvers/euler/shape_derivative.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#include <camber/autodiff/distributed_ops.hpp>
#include <camber/autodiff/functional.hpp>
#include <camber/design/linear_map.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

constexpr int nv3 = 5;

// The mesh with its nodes at x + h V (V: {n_nodes, 3}).
mesh::Mesh moved(const mesh::Mesh& m, const Tensor& V, double h) {
  std::vector<double> x = host_coords(m);
  const auto v = V.host();
  for (size_t i = 0; i < x.size(); ++i) x[i] += h * v(static_cast<index_t>(i));
  return m.with_coordinates(Tensor::from_host({m.n_nodes(), 3}, x));
}

// A smooth displacement of the nodes near the airfoil, zero far away: a
// bump normal to the chord growing along the span, with chordwise and
// spanwise parts; the spanwise part vanishes on the symmetry planes.
Tensor smooth_displacement(const mesh::Mesh& m) {
  const std::vector<double> x = host_coords(m);
  std::vector<double> v(x.size(), 0.0);
  for (index_t n = 0; n < m.n_nodes(); ++n) {
    const double px = x[static_cast<size_t>(3 * n)], py = x[static_cast<size_t>(3 * n + 1)];
    const double pz = x[static_cast<size_t>(3 * n + 2)];
    const double r2 = (px - 0.5) * (px - 0.5) + pz * pz;
    const double s = px > 0.0 && px < 1.0 ? std::sin(pi * px) : 0.0;
    const double b = s * s * std::exp(-r2 / 0.25);
    v[static_cast<size_t>(3 * n)] = 0.3 * b;
    v[static_cast<size_t>(3 * n + 1)] = 0.2 * b * std::sin(pi * py / span);
    v[static_cast<size_t>(3 * n + 2)] = b * (1.0 + py / span);
  }
  return Tensor::from_host({m.n_nodes(), 3}, v);
}

// V(n, d) uniform in [-0.005, 0.005), about the height of the wall cells
// (0.25 / 32), a function of the global node id only: a unit random move
// of every node would make the differences' truncation error that of cells
// folded by the step (third derivatives ~ 1 / h_cell^3).
Tensor random_displacement(const mesh::Mesh& m, std::uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(m.n_nodes()) * 3);
  for (index_t n = 0; n < m.n_nodes(); ++n)
    for (int d = 0; d < 3; ++d)
      v[static_cast<size_t>(n * 3 + d)] = 0.005 * hashed_uniform(seed, n, d);
  return Tensor::from_host({m.n_nodes(), 3}, v);
}

// A smooth non-uniform state about the free stream, from the cell
// centroids.
Tensor smooth_state(const Discretization& disc) {
  const auto xc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                      disc.geometry().cell_centroid);
  const double m = disc.flow().mach, a = disc.flow().alpha_deg * pi / 180.0;
  std::vector<double> u(static_cast<size_t>(disc.n_local() * nv3));
  for (index_t c = 0; c < disc.n_local(); ++c) {
    const double x = xc(c, 0), y = xc(c, 1), z = xc(c, 2);
    Primitive<double, 3> w;
    w.rho = 1.0 + 0.05 * std::sin(2 * x + z);
    w.vel[0] = m * std::cos(a) + 0.05 * m * std::cos(x - 3 * z);
    w.vel[1] = 0.02 * m * std::sin(x + 4 * y);
    w.vel[2] = m * std::sin(a) + 0.05 * m * std::sin(3 * x + y);
    w.p = (1.0 + 0.05 * std::cos(x + z)) / disc.gas().gamma;
    const Conserved<double, 3> s = to_conserved(disc.gas(), w);
    for (int k = 0; k < nv3; ++k) u[static_cast<size_t>(c * nv3 + k)] = s[k];
  }
  return Tensor::from_host({disc.n_local(), nv3}, u);
}

// The free stream with every variable of every cell moved by up to 5% (a
// function of the global cell id), so that the limiter acts.
Tensor rough_state(const Discretization& disc) {
  const std::vector<double> u = disc.free_stream_field().to_vector();
  std::vector<double> r(u.size());
  const auto& gid = disc.mesh().cell_global_ids();
  for (index_t c = 0; c < disc.n_local(); ++c)
    for (int k = 0; k < nv3; ++k) {
      const size_t i = static_cast<size_t>(c * nv3 + k);
      r[i] = u[i] + 0.05 * std::max(0.2, std::abs(u[i])) * hashed_uniform(91, gid[c], k);
    }
  return Tensor::from_host({disc.n_local(), nv3}, r);
}

Tensor random_direction(const Discretization& disc, std::uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(disc.n_local() * nv3));
  for (index_t c = 0; c < disc.n_local(); ++c)
    for (int k = 0; k < nv3; ++k)
      v[static_cast<size_t>(c * nv3 + k)] =
          hashed_uniform(seed, disc.mesh().cell_global_ids()[c], k);
  return Tensor::from_host({disc.n_local(), nv3}, v);
}

double dot5(const Discretization& disc, const Tensor& a, const Tensor& b) {
  const std::vector<double> x = a.to_vector(), y = b.to_vector();
  double s = 0.0;
  for (index_t i = 0; i < disc.n_owned() * nv3; ++i) s += x[static_cast<size_t>(i)] * y[static_cast<size_t>(i)];
  return par::allreduce_sum(s, disc.mesh().comm());
}

double coefficient(const Forces& f, int m) { return m == 0 ? f.cl : m == 1 ? f.cd : f.cm; }
std::vector<double> coefficients(const Forces& f) { return {f.cl, f.cd, f.cm}; }
const char* const names[3] = {"CL", "CD", "CM"};

SpatialOptions second_order(LimiterKind limiter = LimiterKind::venkatakrishnan) {
  SpatialOptions s;
  s.order = 2;
  s.limiter = limiter;
  return s;
}

struct Shape {
  const char* name;
  mesh::CellShape shape;
};
const Shape shapes[] = {{"hexahedra", mesh::CellShape::quads},
                        {"prisms", mesh::CellShape::triangles}};

TEST(EulerAdjoint3D, ColouringJacobianAndForceGradientAreExact) {
  for (const Shape& s : shapes) {
    mesh::DistributedMesh dm(extruded_wing(s.shape), world());
    Discretization disc(dm, wing_flow(), wing_conditions, FluxScheme::roe, second_order());
    Tensor U = rough_state(disc);
    disc.freeze_limiter(U);
    ExactJacobian by_stencil(disc), by_colouring(disc, by_stencil.shared_pattern());
    by_stencil.assemble(disc, U);
    by_colouring.assemble_by_colouring(disc, U);
    const Tensor V = random_direction(disc, 7);
    const auto [err, top] =
        owned_difference(disc, apply(by_colouring, disc, V), apply(by_stencil, disc, V));
    say("[adjoint3d] %s: Jacobian by %d colours against the stencil assembly: %.2e of %.2e\n",
        s.name, by_colouring.n_colors(), err, top);
    EXPECT_LE(err, 1e-12 * top) << s.name;

    const auto weights = disc.force_coefficient_weights();
    const std::vector<Tensor> g = by_stencil.objective_gradients(
        disc, U, {weights[0], weights[1], weights[2]});
    for (int m = 0; m < 3; ++m) {
      const double h = 1e-6;
      const double fd = camber::test::central_difference(
          [&](double t) {
            Tensor u = U.clone();
            u.axpy(t, V);
            return coefficient(disc.forces(u), m);
          },
          0.0, h);
      const double ad = dot5(disc, g[static_cast<size_t>(m)], V);
      std::vector<double> a = g[static_cast<size_t>(m)].to_vector();
      for (double& x : a) x = std::abs(x);
      Tensor ones = V.clone();
      ones.fill(1.0);
      const double scale = dot5(disc, Tensor::from_host(V.shape(), a), ones);
      say("[adjoint3d] %s: d%s/dU . V by colouring %.12e, central difference %.12e\n", s.name,
          names[m], ad, fd);
      EXPECT_GT(scale, 0.0);
      EXPECT_LE(std::abs(ad - fd), 1e-7 * scale) << s.name << " " << names[m];
    }
  }
}

TEST(EulerShapeDerivative3D, NodeCoordinatePartialsMatchFiniteDifferences) {
  for (const Shape& s : shapes) {
    const mesh::Mesh global = extruded_wing(s.shape);
    const Tensor V = random_displacement(global, 78);
    // Truncation error measured to fall as h^2: 1e-5 of dCL/dX . V at
    // h = 1e-3, 1e-7 at 1e-4, 3e-9 at 1e-5 (round-off still below it).
    const double h = 1e-5;
    mesh::DistributedMesh dm(global, world()), dmp(moved(global, V, h), world()),
        dmm(moved(global, V, -h), world());
    for (bool frozen : {true, false}) {
      // Live: the C^1 limiter (Venkatakrishnan's takes the smallest phi over
      // the faces, whose switches a difference straddles).
      const SpatialOptions spatial = second_order(
          frozen ? LimiterKind::venkatakrishnan : LimiterKind::venkatakrishnan_smooth);
      Discretization disc(dm, wing_flow(), wing_conditions, FluxScheme::roe, spatial);
      Discretization discp(dmp, wing_flow(), wing_conditions, FluxScheme::roe, spatial);
      Discretization discm(dmm, wing_flow(), wing_conditions, FluxScheme::roe, spatial);
      // Frozen: the rough state, where the limiter acts; live: a smooth one
      // (at the rough state the faces' increments cross zero within the
      // step, where even the C^1 limiter's sign switch is not smooth).
      Tensor U = frozen ? rough_state(disc) : smooth_state(disc);
      if (frozen) {
        disc.freeze_limiter(U);
        discp.set_limiter(disc.limiter(U));
        discm.set_limiter(disc.limiter(U));
      }
      ShapeDerivative shape(disc);
      std::array<double, 3> dG{};
      const Tensor dRV = shape.directional(U, V, dG);
      // The moved meshes serve both limiter settings: +-h picks one.
      const Tensor fd = camber::test::central_difference(
          [&](double t) {
            Tensor u = U.clone();
            return (t > 0 ? discp : discm).residual(u);
          },
          0.0, h);
      // The flux terms: the largest |R| contribution is ~ a face area times
      // the flux scale; measured against the largest entry of the
      // difference's terms, |dR/dX V| itself.
      const auto [err, top] = owned_difference(disc, dRV, fd);
      say("[shape3d] %s, limiter %s: |FD - (dR/dX) V| = %.2e of %.2e\n", s.name,
          frozen ? "frozen" : "live", err, top);
      EXPECT_LE(err, 1e-7 * top) << s.name;
      if (!frozen) continue;
      // The forces at fixed U on the moved meshes.
      const auto w = disc.force_coefficient_weights();
      for (int m = 0; m < 3; ++m) {
        const double by_fd = camber::test::central_difference(
            [&](double t) { return coefficient((t > 0 ? discp : discm).forces(U), m); }, 0.0, h);
        const double by_partial = w[static_cast<size_t>(m)][0] * dG[0] +
                                  w[static_cast<size_t>(m)][1] * dG[1] +
                                  w[static_cast<size_t>(m)][2] * dG[2];
        say("[shape3d] %s: d%s/dX . V at fixed U %.12e, central difference %.12e\n", s.name,
            names[m], by_partial, by_fd);
        EXPECT_NEAR(by_partial, by_fd, 1e-7 * std::abs(by_fd)) << s.name;
      }
    }
  }
}

// The reverse shape derivative (the default) against the node colouring's
// forward mode (its oracle) on the wing's hexahedra and prisms, the
// limiter frozen and live (Wang's and the smooth form): dJ/dX of a hashed
// psi and the CL weights, and (dR/dX) V, (dG/dX) V. The same derivative
// summed in different orders: 1e-12 of the largest entry.
TEST(EulerShapeDerivative3D, TheReverseSweepIsTheColouringsDerivative) {
  for (const Shape& s : shapes) {
    const mesh::Mesh global = extruded_wing(s.shape);
    const Tensor V = random_displacement(global, 80);
    mesh::DistributedMesh dm(global, world());
    for (const LimiterKind limiter : {LimiterKind::venkatakrishnan, LimiterKind::venkatakrishnan_wang,
                                      LimiterKind::venkatakrishnan_smooth})
      for (bool frozen : {true, false}) {
        Discretization disc(dm, wing_flow(), wing_conditions, FluxScheme::roe, second_order(limiter));
        Tensor U = rough_state(disc);
        if (frozen) disc.freeze_limiter(U);
        const Tensor psi = random_direction(disc, 11);
        const auto w = disc.force_coefficient_weights()[0];
        const ShapeMethodsDifference d = compare_shape_methods(disc, U, psi, w, V);
        say("[shape3d] %s, %s%s: reverse against %d colours: dJ/dX %.1e of %.2e, (dR/dX) V %.1e "
            "of %.2e, (dG/dX) V %.1e of %.2e\n",
            s.name, limiter_kind_name(limiter), frozen ? " frozen" : "", d.n_colors, d.err, d.top,
            d.dr_err, d.dr_top, d.dg_err, d.dg_top);
        EXPECT_GT(d.top, 0.0) << s.name;
        EXPECT_LE(d.err, 1e-12 * d.top) << s.name << " " << limiter_kind_name(limiter);
        EXPECT_LE(d.dr_err, 1e-12 * d.dr_top) << s.name << " " << limiter_kind_name(limiter);
        EXPECT_LE(d.dg_err, 1e-12 * d.dg_top) << s.name << " " << limiter_kind_name(limiter);
      }
  }
}

// The owned rows of dm of a limiter given by global cell id (empty when
// phi_by_id is).
Tensor phi_rows(const mesh::DistributedMesh& dm, const std::vector<double>& phi_by_id) {
  if (phi_by_id.empty()) return Tensor();
  const auto& gid = dm.cell_global_ids();
  const index_t n = dm.n_owned_cells();
  std::vector<double> p(static_cast<size_t>(n * nv3));
  for (index_t c = 0; c < n; ++c)
    for (int k = 0; k < nv3; ++k)
      p[static_cast<size_t>(c * nv3 + k)] = phi_by_id[static_cast<size_t>(gid[c] * nv3 + k)];
  return Tensor::from_host({n, nv3}, p);
}

// dJ/dalpha and dJ/dX . V for CL, CD, CM from the adjoint at a converged
// solution on `comm`, the limiter frozen at phi (by global cell id, on
// every rank; when empty, frozen once the residual fell 1e-4 and returned
// in phi).
struct Gradients {
  Solved base;
  double alpha[3], alpha_tangent[3], shape[3];
  // The same from the device path's adjoint (AdjointOptions::linear_solver
  // kokkos: the reverse sweep and camber's GMRES).
  double alpha_device[3], shape_device[3];
};

Gradients adjoint_gradients(const mesh::Mesh& global, const Tensor& V, MPI_Comm comm,
                            std::vector<double>& phi_by_id) {
  mesh::DistributedMesh dm(global, comm);
  Discretization disc(dm, wing_flow(), wing_conditions, FluxScheme::roe, second_order());
  Tensor phi = phi_rows(dm, phi_by_id);
  const bool given = !phi.empty();
  Gradients out;
  out.base = solve_frozen(dm, wing_flow(), phi, nullptr, wing_conditions);
  if (!given) {
    // Every cell's phi on every rank.
    const auto rows = gathered(disc, phi, nv3);
    phi_by_id.assign(static_cast<size_t>(global.n_cells() * nv3), 0.0);
    for (const auto& [id, r] : rows)
      std::copy(r.begin(), r.end(), phi_by_id.begin() + id * nv3);
    CAMBER_CHECK_MPI(MPI_Bcast(phi_by_id.data(), static_cast<int>(phi_by_id.size()), MPI_DOUBLE,
                               0, comm));
  }
  disc.set_limiter(phi);
  Adjoint adjoint(disc);
  AdjointOptions on_device;
  on_device.linear_solver = SteadyOptions::LinearSolver::kokkos;
  Adjoint device(disc, on_device);
  ShapeDerivative shape(disc);
  const auto along_v = [&](const AdjointSolution& a) {
    const Tensor dJdX = shape.total_derivative(out.base.U, a);
    const auto g = dJdX.host();
    const auto v = V.host();
    double s = 0.0;
    for (index_t i = 0; i < global.n_nodes() * 3; ++i) s += g(i) * v(i);
    return s;
  };
  for (int m = 0; m < 3; ++m) {
    const ForceCoefficient j = static_cast<ForceCoefficient>(m);
    const AdjointSolution a = adjoint.solve(out.base.U, j);
    EXPECT_TRUE(a.converged);
    out.alpha[m] = adjoint.alpha_derivative(out.base.U, a);
    out.alpha_tangent[m] = adjoint.alpha_derivative_tangent(out.base.U, j);
    out.shape[m] = along_v(a);
    const AdjointSolution d = device.solve(out.base.U, j);
    EXPECT_TRUE(d.converged);
    out.alpha_device[m] = device.alpha_derivative(out.base.U, d);
    out.shape_device[m] = along_v(d);
  }
  return out;
}

TEST(EulerAdjoint3D, AlphaAndShapeGradientsMatchConvergedFiniteDifferences) {
  for (const Shape& s : shapes) {
    const mesh::Mesh global = extruded_wing(s.shape);
    const Tensor V = smooth_displacement(global);
    std::vector<double> phi_by_id;
    Gradients g = adjoint_gradients(global, V, world(), phi_by_id);

    mesh::DistributedMesh dm(global, world());
    Tensor phi = phi_rows(dm, phi_by_id);
    // 0.001 degree: at 0.01 the prisms' differences straddle a switch of
    // the scheme (dCL/dalpha off by 5e-5 relative, by 1e-3 at 0.1, 8e-9 at
    // 0.001: not the h^2 of truncation), which the hexahedra's do not.
    const double ha = 0.001;
    // CL, CD, CM converged at alpha +- ha, then on the meshes moved by +-hx,
    // each from the base state; one pair of solves for all three.
    const std::vector<double> alpha_fd = camber::test::central_difference(
        [&](double alpha) {
          FlowConditions turned = wing_flow();
          turned.alpha_deg = alpha;
          return coefficients(solve_frozen(dm, turned, phi, &g.base.U, wing_conditions).forces);
        },
        wing_flow().alpha_deg, ha);
    const double hx = 2.5e-5;
    mesh::DistributedMesh dmp(moved(global, V, hx), world()), dmm(moved(global, V, -hx), world());
    Tensor phi_p = phi_rows(dmp, phi_by_id), phi_m = phi_rows(dmm, phi_by_id);
    const std::vector<double> shape_fd = camber::test::central_difference(
        [&](double t) {
          return coefficients(solve_frozen(t > 0 ? dmp : dmm, wing_flow(), t > 0 ? phi_p : phi_m,
                                           &g.base.U, wing_conditions)
                                  .forces);
        },
        0.0, hx);
    say("[adjoint3d] %s: CL %.6f, CD %.6f, CM %.6f\n", s.name, g.base.forces.cl,
        g.base.forces.cd, g.base.forces.cm);
    const double lift_slope = std::abs(g.alpha[0]);
    EXPECT_GT(lift_slope, 0.01) << s.name;
    for (int m = 0; m < 3; ++m) {
      say("[adjoint3d] %s: d%s/dalpha adjoint %.10e, tangent %.10e, central difference %.10e; "
          "d%s/dX . V adjoint %.10e, central difference %.10e\n",
          s.name, names[m], g.alpha[m], g.alpha_tangent[m], alpha_fd[m], names[m], g.shape[m],
          shape_fd[m]);
      EXPECT_NEAR(g.alpha[m], g.alpha_tangent[m], 1e-8 * lift_slope) << s.name << names[m];
      EXPECT_NEAR(g.alpha[m], alpha_fd[m], 1e-7 * lift_slope) << s.name << names[m];
      EXPECT_NEAR(g.shape[m], shape_fd[m], 1e-5 * std::abs(shape_fd[m])) << s.name << names[m];
      // The device path's adjoint: the same solution to the solves'
      // tolerance (1e-10 of the right-hand side; 1e-8 as the tangent).
      say("[adjoint3d] %s: device path d%s/dalpha %.10e, d%s/dX . V %.10e\n", s.name, names[m],
          g.alpha_device[m], names[m], g.shape_device[m]);
      EXPECT_NEAR(g.alpha_device[m], g.alpha[m], 1e-8 * lift_slope) << s.name << names[m];
      EXPECT_NEAR(g.shape_device[m], g.shape[m], 1e-8 * std::abs(g.shape[m])) << s.name << names[m];
    }
    if (test::size() == 1) continue;
    // Every rank solves the whole problem alone.
    const Gradients one = adjoint_gradients(global, V, MPI_COMM_SELF, phi_by_id);
    for (int m = 0; m < 3; ++m) {
      say("[adjoint3d] %s: d%s/dX . V at %d ranks %.12e, at one %.12e\n", s.name, names[m],
          test::size(), g.shape[m], one.shape[m]);
      EXPECT_NEAR(g.shape[m], one.shape[m], 1e-9 * std::abs(one.shape[m])) << s.name << names[m];
    }
  }
}

TEST(EulerAdjoint3D, FfdControlPointGradientMatchesConvergedFiniteDifferences) {
  const mesh::Mesh global = extruded_wing(mesh::CellShape::quads);
  const std::vector<double> x_global = host_coords(global);
  mesh::DistributedMesh dm(global, world());
  design::FfdVolumeOptions options;
  options.degree = {4, 3, 2};  // 3 x 2 x 1 free control points, moved in z
  const design::FfdVolumeBox box = design::FfdVolume::box_around(dm, {"airfoil"}, 0.1);
  const design::FfdVolume ffd(box, dm.local().coords(), options);
  ASSERT_EQ(ffd.n_design(), 6);
  // A direction in the design space, the same on every rank.
  std::vector<double> dv(static_cast<size_t>(ffd.n_design()));
  for (size_t v = 0; v < dv.size(); ++v) dv[v] = hashed_uniform(17, static_cast<std::int64_t>(v), 0);
  const Tensor direction = Tensor::from_host({ffd.n_design()}, dv);
  const std::vector<double> x0 = [&] {
    std::vector<double> c(static_cast<size_t>(dm.n_local_nodes() * 3));
    const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().coords());
    for (index_t n = 0; n < dm.n_local_nodes(); ++n)
      for (int d = 0; d < 3; ++d) c[static_cast<size_t>(3 * n + d)] = x(n, d);
    return c;
  }();
  const std::vector<double> dx = ffd.apply(direction).to_vector();
  const auto moved_by = [&](double h) {
    std::vector<double> c = x0;
    for (size_t i = 0; i < c.size(); ++i) c[i] += h * dx[i];
    return dm.with_local_coordinates(Tensor::from_host({dm.n_local_nodes(), 3}, c));
  };

  std::vector<double> phi_by_id;
  Tensor phi;
  Solved base = solve_frozen(dm, wing_flow(), phi, nullptr, wing_conditions);
  const auto rows = gathered(Discretization(dm, wing_flow(), wing_conditions, FluxScheme::roe,
                                            second_order()),
                             phi, nv3);
  phi_by_id.assign(static_cast<size_t>(global.n_cells() * nv3), 0.0);
  for (const auto& [id, r] : rows) std::copy(r.begin(), r.end(), phi_by_id.begin() + id * nv3);
  CAMBER_CHECK_MPI(MPI_Bcast(phi_by_id.data(), static_cast<int>(phi_by_id.size()), MPI_DOUBLE, 0,
                             world()));

  Discretization disc(dm, wing_flow(), wing_conditions, FluxScheme::roe, second_order());
  disc.set_limiter(phi);
  Adjoint adjoint(disc);
  ShapeDerivative shape(disc);
  // The rows' coordinates, some from other ranks, are the global mesh's.
  const Tensor row_x = shape.row_coordinates();
  {
    const auto rx = row_x.host();
    double err = 0.0;
    for (size_t r = 0; r < shape.rows().size(); ++r)
      for (int d = 0; d < 3; ++d)
        err = std::max(err, std::abs(rx(static_cast<index_t>(3 * r + d)) -
                                     x_global[static_cast<size_t>(3 * shape.rows()[r] + d)]));
    EXPECT_EQ(par::allreduce_max(err, world()), 0.0);
  }
  const design::FfdVolume ffd_rows(box, row_x, options);

  const double h = 2.5e-5;
  mesh::DistributedMesh dmp = moved_by(h), dmm = moved_by(-h);
  Tensor phi_p = phi_rows(dmp, phi_by_id), phi_m = phi_rows(dmm, phi_by_id);
  // CL, CD, CM converged on the meshes the box moves by +-h d, each from the
  // base state; one pair of solves for all three.
  const std::vector<double> by_fd_all = camber::test::central_difference(
      [&](double t) {
        return coefficients(solve_frozen(t > 0 ? dmp : dmm, wing_flow(), t > 0 ? phi_p : phi_m,
                                         &base.U, wing_conditions)
                                .forces);
      },
      0.0, h);
  for (int m = 0; m < 3; ++m) {
    const AdjointSolution a = adjoint.solve(base.U, static_cast<ForceCoefficient>(m));
    EXPECT_TRUE(a.converged);
    const Tensor share = shape.rank_derivative(base.U, a.psi, a.weights);
    Tensor g = ffd_rows.apply_transpose(share);
    par::allreduce_sum_in_place(g, world());
    const std::vector<double> gv = g.to_vector();
    double by_adjoint = 0.0;
    for (size_t v = 0; v < gv.size(); ++v) by_adjoint += gv[v] * dv[v];
    const double by_fd = by_fd_all[static_cast<size_t>(m)];
    say("[adjoint3d] FFD (%d variables): d%s/da . d adjoint %.10e, central difference %.10e\n",
        static_cast<int>(ffd.n_design()), names[m], by_adjoint, by_fd);
    EXPECT_NEAR(by_adjoint, by_fd, 1e-5 * std::abs(by_fd)) << names[m];
  }
}

TEST(EulerAdjoint3D, SteadyFlowOnADistributedMeshIsDifferentiableThroughAnFfdBox) {
  SteadyFlowSettings settings;
  settings.flow = wing_flow();
  settings.conditions = wing_conditions;
  settings.spatial = second_order(LimiterKind::venkatakrishnan_smooth);
  settings.steady.rel_tolerance = 1e-12;
  SteadyFlow flow(mesh::DistributedMesh(extruded_wing(mesh::CellShape::quads), world()), settings);
  const Tensor X0 = flow.row_coordinates();
  design::FfdVolumeOptions options;
  options.degree = {4, 3, 2};
  const auto ffd = std::make_shared<design::FfdVolume>(
      design::FfdVolume::box_around(flow.distributed_mesh(), {"airfoil"}, 0.1), X0, options);
  const index_t n = ffd->n_design();
  const auto cl_cd_cm = [&](const ad::Var& a) {
    return flow.rank_coefficients(design::apply_linear(ffd, ad::grad_allreduce(a, world()), X0));
  };
  std::vector<double> a0(static_cast<size_t>(n)), d(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) {
    a0[static_cast<size_t>(k)] = 1e-3 * std::cos(0.4 + 0.9 * k);
    d[static_cast<size_t>(k)] = hashed_uniform(23, k, 0);
  }
  const ad::Var cd = ad::constant(Tensor::from_host({3}, {0.0, 1.0, 0.0}));
  const ad::Var x = ad::variable(Tensor::from_host({n}, a0));
  const std::vector<double> g = ad::vjp({cl_cd_cm(x)}, {x}, {cd})[0].value().to_vector();
  double by_adjoint = 0.0;
  for (index_t k = 0; k < n; ++k) by_adjoint += g[static_cast<size_t>(k)] * d[static_cast<size_t>(k)];
  const ad::JvpResult t = ad::jvp(cl_cd_cm, ad::variable(Tensor::from_host({n}, a0)),
                                  ad::constant(Tensor::from_host({n}, d)));
  const double by_tangent = t.tangents[0].value().to_vector()[1];
  const double h = 1e-3;
  const auto cd_at = [&](const std::vector<double>& a) {
    Tensor xr = ffd->apply(Tensor::from_host({n}, a));
    xr.axpy(1.0, X0);
    return flow.rank_coefficients(xr, settings.flow.alpha_deg).to_vector()[1];
  };
  const double by_fd = camber::test::directional_difference(cd_at, a0, d, h);
  say("[adjoint3d] SteadyFlow with FFD (%d variables): dCD/da . d adjoint %.10e, tangent %.10e, "
      "central difference %.10e\n",
      static_cast<int>(n), by_adjoint, by_tangent, by_fd);
  EXPECT_NEAR(by_adjoint, by_fd, 1e-5 * std::abs(by_fd));
  EXPECT_NEAR(by_adjoint, by_tangent, 1e-8 * std::abs(by_adjoint));
}

// The surface pressures a Cp plot shows are the ones the forces integrate:
// sum over the owned wall faces of (p_f - p_inf) n_f equals forces()' f_x
// and its lift-axis component (round-off), at second order with the
// limiter acting, in 3-D (the wing) and 2-D (the NACA O-grid).
TEST(EulerAdjoint3D, WallFacePressuresIntegrateToTheForces) {
  for (int dim : {3, 2}) {
    mesh::DistributedMesh dm(dim == 3 ? extruded_wing(mesh::CellShape::triangles) : naca_ogrid_48x24(),
                             world());
    const Discretization disc(dm, wing_flow(), dim == 3 ? wing_conditions : airfoil_conditions,
                              FluxScheme::roe, second_order());
    const Tensor U = dim == 3 ? rough_state(disc) : perturbed_state(disc);
    const Forces f = disc.forces(U);
    const std::vector<double> p = disc.wall_face_pressures(U).to_vector();
    const auto normal = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                            disc.geometry().face_normal);
    const double p_inf = 1.0 / disc.gas().gamma;
    double sum[2] = {0.0, 0.0};
    for (index_t face : dm.owned_marker_faces("airfoil")) {
      sum[0] += (p[static_cast<size_t>(face)] - p_inf) * normal(face, 0);
      sum[1] += (p[static_cast<size_t>(face)] - p_inf) * normal(face, dim - 1);
    }
    const double fx = par::allreduce_sum(sum[0], world()), fup = par::allreduce_sum(sum[1], world());
    const double f_up = dim == 3 ? f.fz : f.fy;
    say("[adjoint3d] %d-D: wall face pressures integrate to (%.15g, %.15g), forces (%.15g, %.15g)\n",
        dim, fx, fup, f.fx, f_up);
    EXPECT_NEAR(fx, f.fx, 1e-12 * std::abs(f_up)) << dim << "-D";
    EXPECT_NEAR(fup, f_up, 1e-12 * std::abs(f_up)) << dim << "-D";
  }
}

}  // namespace
}  // namespace camber::solvers::euler
