// The first-order Euler residual on 3-D meshes at 1, 2 and 4 ranks: SU2's
// brick meshes (the box [0, 2] x [0, 1]^2 in hexahedra, prisms,
// tetrahedra, and tetrahedra with pyramids), read from ../shared/data.
//
// Every expected value is math:
//   * free-stream preservation: on each element type, with every node moved
//     at random by up to a tenth of the shortest edge, a uniform state has
//     zero residual (outward normals close each cell; a consistent flux of
//     equal states and the far field's flux of the free stream are the
//     physical flux) to round-off; so does the unmoved box with slip walls
//     and supersonic inflow and outflow;
//   * derivatives: the Dual tangent (dR/dU) V against central differences
//     of residual(), and the assembled face blocks of face_jacobians()
//     against the tangent (round-off);
//   * partition independence: the residual of a non-uniform state on all
//     ranks equals the one-rank residual cell by cell (global ids);
//   * a 2-D flow extruded: SU2's supersonic wedge extruded in z into two
//     layers of hexahedra between symmetry planes, solved to convergence by
//     the Newton solver in 3-D, is the 2-D solution in every cell (w = 0)
//     and its wall forces are the 2-D forces times the span.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
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
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/solvers/euler/steady_solver.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/shared_data.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers::euler {
namespace {

using test_utils::gathered;
using test_utils::hashed_uniform;
using test_utils::say;

constexpr int nv3 = 5;
const char* const kinds[] = {"hex", "prism", "tets", "pyra"};

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
// in every local cell.
Tensor smooth_state(const Discretization& disc) {
  const auto xc = on_host(disc.geometry().cell_centroid);
  std::vector<double> u(static_cast<size_t>(disc.n_local() * nv3));
  for (index_t c = 0; c < disc.n_local(); ++c) {
    const double x = xc(c, 0), y = xc(c, 1), z = xc(c, 2);
    Primitive<double, 3> w;
    w.rho = 1.0 + 0.1 * std::sin(x + 2 * y);
    w.vel[0] = 0.6 + 0.1 * std::cos(y + z);
    w.vel[1] = 0.2 + 0.05 * std::sin(2 * x);
    w.vel[2] = 0.15 + 0.04 * std::cos(3 * x - y);
    w.p = (1.0 + 0.1 * std::cos(x - z)) / 1.4;
    const Conserved<double, 3> s = to_conserved(disc.gas(), w);
    for (int k = 0; k < nv3; ++k) u[static_cast<size_t>(c * nv3 + k)] = s[k];
  }
  return Tensor::from_host({disc.n_local(), nv3}, u);
}

TEST(Euler3D, FreeStreamIsPreservedOnMovedMeshesOfEveryElementType) {
  for (const char* kind : kinds) {
    CAMBER_NEED_SHARED_FILE(brick(kind));
    const mesh::Mesh global = mesh::read_mesh(brick(kind));
    mesh::DistributedMesh dm(global, test::world());
    mesh::DistributedMesh moved = dm.with_coordinates(moved_coordinates(global, 0.1));
    const auto v = on_host(mesh::compute_geometry(moved.local()).cell_volume);
    for (index_t c = 0; c < moved.n_owned_cells(); ++c) ASSERT_GT(v(c), 0.0) << kind << " cell " << c;
    for (FluxScheme scheme : {FluxScheme::roe, FluxScheme::hllc}) {
      FlowConditions flow;
      flow.mach = 0.6;
      flow.alpha_deg = 3.0;
      const Discretization disc(moved, flow, all(BoundaryKind::far_field), scheme);
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
      say("[euler3d] %s (%s): max |R| of the free stream on the moved mesh %.2e of %.2e\n", kind,
          scheme == FluxScheme::roe ? "roe" : "hllc", r, scale);
      EXPECT_LE(r, 1e-14 * scale) << kind;
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

TEST(Euler3D, TangentAndFaceBlocksAreTheResidualsDerivative) {
  for (const char* kind : {"prism", "pyra"}) {
    CAMBER_NEED_SHARED_FILE(brick(kind));
    const mesh::Mesh global = mesh::read_mesh(brick(kind));
    mesh::DistributedMesh dm(global, test::world());
    mesh::DistributedMesh moved = dm.with_coordinates(moved_coordinates(global, 0.1));
    FlowConditions flow;
    flow.mach = 0.6;
    std::vector<BoundaryCondition> conditions = all(BoundaryKind::far_field);
    conditions[2].kind = BoundaryKind::slip_wall;  // y_m
    const Discretization disc(moved, flow, conditions, FluxScheme::roe);
    Tensor U = smooth_state(disc);
    std::vector<double> v(static_cast<size_t>(disc.n_local() * nv3));
    for (index_t c = 0; c < disc.n_local(); ++c)
      for (int k = 0; k < nv3; ++k)
        v[static_cast<size_t>(c * nv3 + k)] =
            hashed_uniform(5, disc.mesh().cell_global_ids()[c], k) * (k == 4 ? 2.0 : 1.0);
    Tensor V = Tensor::from_host({disc.n_local(), nv3}, v);
    Tensor R, dR;
    disc.residual_and_tangent(U, V, R, dR);
    // Central differences.
    const double h = 1e-6;
    Tensor Up = U.clone(), Um = U.clone();
    {
      std::vector<double> up = U.to_vector(), um = up;
      for (size_t i = 0; i < up.size(); ++i) {
        up[i] += h * v[i];
        um[i] -= h * v[i];
      }
      Up.assign(up);
      Um.assign(um);
    }
    const std::vector<double> rp = disc.residual(Up).to_vector(), rm = disc.residual(Um).to_vector();
    const std::vector<double> dr = dR.to_vector();
    double err = 0.0, top = 0.0;
    for (index_t i = 0; i < disc.n_owned() * nv3; ++i) {
      const size_t j = static_cast<size_t>(i);
      err = std::max(err, std::abs((rp[j] - rm[j]) / (2 * h) - dr[j]));
      top = std::max(top, std::abs(dr[j]));
    }
    err = par::allreduce_max(err, test::world());
    top = par::allreduce_max(top, test::world());
    // The face blocks, assembled: (J V)_c = sum over faces s (A_L V_l + A_R V_r).
    disc.mesh().halo().forward(U);
    disc.mesh().halo().forward(V);
    const std::vector<double> J = disc.face_jacobians(U).to_vector();
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

TEST(Euler3D, TheResidualDoesNotDependOnThePartition) {
  CAMBER_NEED_SHARED_FILE(brick("tets"));
  const mesh::Mesh global = mesh::read_mesh(brick("tets"));
  FlowConditions flow;
  flow.mach = 0.6;
  flow.alpha_deg = 2.0;
  const auto residual_on = [&](MPI_Comm comm) {
    mesh::DistributedMesh dm(global, comm);
    const Discretization disc(dm, flow, all(BoundaryKind::far_field), FluxScheme::roe);
    Tensor U = smooth_state(disc);
    return gathered(disc, disc.residual(U), nv3);
  };
  const auto parallel = residual_on(test::world());
  const auto serial = residual_on(MPI_COMM_SELF);
  if (test::rank() != 0) return;
  ASSERT_EQ(parallel.size(), static_cast<size_t>(global.n_cells()));
  double diff = 0.0, top = 0.0;
  for (const auto& [id, r] : serial)
    for (int k = 0; k < nv3; ++k) {
      diff = std::max(diff, std::abs(r[k] - parallel.at(id)[k]));
      top = std::max(top, std::abs(r[k]));
    }
  say("[euler3d] tets, %d ranks against 1: max |R difference| %.2e of %.2e\n", test::size(), diff,
      top);
  EXPECT_LE(diff, 1e-10 * top);
}

// The 2-D mesh extruded in z by `layers` layers of thickness dz: quads to
// hexahedra (cell c of layer k is 3-D cell k n + c), each marker's edges to
// quads, and the end planes as markers z_lo and z_hi.
mesh::MeshData extruded(const mesh::MeshData& d2, int layers, double dz) {
  mesh::MeshData d;
  d.dim = 3;
  d.source = d2.source + " (extruded)";
  const index_t n = d2.n_nodes();
  for (int k = 0; k <= layers; ++k)
    for (index_t i = 0; i < n; ++i) d.add_node(d2.coords[2 * i], d2.coords[2 * i + 1], k * dz);
  const auto at = [&](index_t node, int k) { return node + k * n; };
  for (int k = 0; k < layers; ++k)
    for (index_t c = 0; c < d2.n_cells(); ++c) {
      const index_t* q = d2.cell_nodes.data() + d2.cell_offsets[c];
      EXPECT_EQ(d2.cell_types[c], mesh::CellType::quad);
      d.add_cell(mesh::CellType::hexahedron, {at(q[0], k), at(q[1], k), at(q[2], k), at(q[3], k),
                                              at(q[0], k + 1), at(q[1], k + 1), at(q[2], k + 1),
                                              at(q[3], k + 1)});
    }
  for (const auto& m : d2.markers) {
    auto& m3 = d.add_marker(m.name);
    for (int k = 0; k < layers; ++k)
      for (index_t e = 0; e < m.n_elements(); ++e) {
        const index_t a = m.nodes[m.offsets[e]], b = m.nodes[m.offsets[e] + 1];
        m3.add_element({at(a, k), at(b, k), at(b, k + 1), at(a, k + 1)});
      }
  }
  for (const auto& [name, k] : {std::pair<const char*, int>{"z_lo", 0}, {"z_hi", layers}}) {
    auto& m3 = d.add_marker(name);
    for (index_t c = 0; c < d2.n_cells(); ++c) {
      const index_t* q = d2.cell_nodes.data() + d2.cell_offsets[c];
      m3.add_element({at(q[0], k), at(q[1], k), at(q[2], k), at(q[3], k)});
    }
  }
  return d;
}

TEST(Euler3D, AnExtrudedWedgeSolvesToTheTwoDimensionalFlow) {
  const std::string path = camber::test::shared_mesh("wedge_inviscid_su2_testcases.su2");
  CAMBER_NEED_SHARED_FILE(path);
  mesh::MeshData d2 = mesh::read_mesh_data(path);
  // The 2-D mesh as built (the reader's data may hold clockwise quads).
  const mesh::Mesh m2 = mesh::Mesh::from_cells(d2);
  {
    const auto off = on_host(m2.cell_offsets());
    const auto nodes = on_host(m2.cell_nodes());
    for (index_t c = 0; c < m2.n_cells(); ++c)
      for (int i = 0; i < 4; ++i) d2.cell_nodes[static_cast<size_t>(off(c) + i)] = nodes(off(c) + i);
  }
  const int layers = 2;
  const double dz = 0.05;
  const mesh::Mesh m3 = mesh::Mesh::from_cells(extruded(d2, layers, dz), mesh::Orientation::require);
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
  const auto solve = [&](const mesh::Mesh& m, const std::vector<BoundaryCondition>& conditions,
                         int nv, std::map<std::int64_t, std::vector<double>>& by_id) {
    mesh::DistributedMesh dm(m, test::world());
    const Discretization disc(dm, flow, conditions, FluxScheme::roe);
    Tensor U = disc.free_stream_field();
    const SteadyResult r = solve_steady(disc, U, options);
    EXPECT_TRUE(r.converged) << m.dim() << "-D";
    // Every cell's state on rank 0, by global id.
    by_id = gathered(disc, U, nv);
    say("[euler3d] wedge %d-D: %d Newton steps, residual drop %.1f orders\n", m.dim(),
        r.iterations,
        std::log10(r.history.front().residual_density / r.history.back().residual_density));
    return r.forces;
  };
  std::map<std::int64_t, std::vector<double>> u2, u3;
  const Forces f2 = solve(m2, walls2, 4, u2);
  const Forces f3 = solve(m3, walls3, 5, u3);
  const double span = layers * dz;
  say("[euler3d] wedge forces: 2-D (%.12g, %.12g) x span, 3-D (%.12g, %.12g, %.3g)\n",
      f2.fx * span, f2.fy * span, f3.fx, f3.fy, f3.fz);
  EXPECT_NEAR(f3.fx, f2.fx * span, 1e-9 * std::abs(f2.fy * span));
  EXPECT_NEAR(f3.fy, f2.fy * span, 1e-9 * std::abs(f2.fy * span));
  EXPECT_EQ(f3.fz, 0.0);
  if (test::rank() != 0) return;
  ASSERT_EQ(u2.size(), static_cast<size_t>(m2.n_cells()));
  ASSERT_EQ(u3.size(), static_cast<size_t>(m3.n_cells()));
  double diff = 0.0, w = 0.0;
  for (const auto& [id, s3] : u3) {
    const std::vector<double>& s2 = u2.at(id % m2.n_cells());
    for (const auto& [k2, k3] : {std::pair<int, int>{0, 0}, {1, 1}, {2, 2}, {3, 4}})
      diff = std::max(diff, std::abs(s3[k3] - s2[k2]) / std::max(1.0, std::abs(s2[k2])));
    w = std::max(w, std::abs(s3[3]));
  }
  say("[euler3d] wedge: largest difference of the 3-D state from the 2-D one %.2e, |rho w| %.2e\n",
      diff, w);
  EXPECT_LE(diff, 1e-9);
  EXPECT_LE(w, 1e-11);
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

TEST(Euler3D, WhatIsNotYetIn3DSaysSo) {
  CAMBER_NEED_SHARED_FILE(brick("hex"));
  mesh::DistributedMesh dm = mesh::DistributedMesh::read(brick("hex"), test::world());
  FlowConditions flow;
  SpatialOptions second;
  second.order = 2;
  try {
    (void)Discretization(dm, flow, all(BoundaryKind::far_field), FluxScheme::roe, second);
    ADD_FAILURE() << "expected a bad_input error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("first order so far"), std::string::npos) << e.what();
  }
  const Discretization disc(dm, flow, all(BoundaryKind::far_field));
  Tensor U = disc.free_stream_field();
  try {
    (void)disc.primitive_gradients(U);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("primitive_gradients is 2-D only so far"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace camber::solvers::euler
