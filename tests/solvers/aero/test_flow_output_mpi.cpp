// solvers/aero/flow_output.hpp at 1, 2 and 4 ranks, against exact values:
//  - the free stream's cell fields are its physical state (p / (R T),
//    M c_inf along alpha, p, M, Cp 0, entropy deviation 0), in 2-D and 3-D;
//  - the free stream's wall Cp is 0 at every wall face, all of them
//    gathered on rank 0;
//  - a gradient dJ/dX equal to one vector a at every wall node (each node's
//    value on one rank only, or split over the ranks that hold it) gives
//    dJ/dn = a . n, n the wall's unit normal into the fluid, in every cell
//    at the wall and 0 elsewhere: in 2-D (a rectangle's bottom wall) and
//    3-D (SU2's brick of hexahedra, its z_m face).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <camber/mesh/generators.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/aero/flow_output.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/shared_data.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;

std::string brick() { return test::shared_mesh("brick_hex_ffd_su2_testcases.su2"); }

eu::FlowConditions flow_at(double mach, double alpha_deg) {
  eu::FlowConditions f;
  f.mach = mach;
  f.alpha_deg = alpha_deg;
  f.pressure = 9.0e4;
  f.temperature = 250.0;
  return f;
}

std::vector<eu::BoundaryCondition> rectangle_conditions() {
  return {{"bottom", eu::BoundaryKind::slip_wall},
          {"left", eu::BoundaryKind::far_field},
          {"right", eu::BoundaryKind::far_field},
          {"top", eu::BoundaryKind::far_field}};
}

std::vector<eu::BoundaryCondition> brick_conditions() {
  std::vector<eu::BoundaryCondition> c = {{"z_m", eu::BoundaryKind::slip_wall}};
  for (const char* name : {"x_m", "x_p", "y_m", "y_p", "z_p"})
    c.push_back({name, eu::BoundaryKind::far_field});
  return c;
}

const io::Field& field(const std::vector<io::Field>& fields, const std::string& name) {
  const auto it = std::find_if(fields.begin(), fields.end(),
                               [&](const io::Field& f) { return f.name == name; });
  if (it == fields.end()) throw std::runtime_error("no field " + name);
  return *it;
}

void expect_free_stream_fields(const eu::Discretization& disc) {
  const eu::FlowConditions& f = disc.flow();
  const std::vector<io::Field> fields = aero::flow_fields(disc, disc.free_stream_field());
  const double rho = f.pressure / (f.gas_constant * f.temperature);
  const double c = std::sqrt(f.gamma * f.gas_constant * f.temperature);
  const double a = f.alpha_deg * M_PI / 180.0;
  const double u[3] = {f.mach * c * std::cos(a), disc.dim() == 2 ? f.mach * c * std::sin(a) : 0.0,
                       disc.dim() == 3 ? f.mach * c * std::sin(a) : 0.0};
  const size_t n = static_cast<size_t>(disc.n_owned());
  ASSERT_EQ(field(fields, "Density [kg/m^3]").values.size(), n);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_NEAR(field(fields, "Density [kg/m^3]").values[i], rho, 1e-13 * rho);
    for (int d = 0; d < 3; ++d)
      EXPECT_NEAR(field(fields, "Velocity [m/s]").values[3 * i + d], u[d], 1e-12 * c);
    EXPECT_NEAR(field(fields, "Pressure [Pa]").values[i], f.pressure, 1e-10 * f.pressure);
    EXPECT_NEAR(field(fields, "Mach").values[i], f.mach, 1e-13);
    EXPECT_NEAR(field(fields, "Cp").values[i], 0.0, 1e-12);
    EXPECT_NEAR(field(fields, "Entropy deviation s/s_inf - 1").values[i], 0.0, 1e-13);
  }
}

// dJ/dX = a at every node of `dm` that some rank holds: the share of each
// node on the lowest rank that has it among its local nodes, the rows
// being every local node.
std::vector<double> uniform_share(const mesh::DistributedMesh& dm, const std::vector<double>& a) {
  const std::vector<std::int64_t>& gid = dm.node_global_ids();
  const int dim = static_cast<int>(a.size());
  std::vector<int> lowest(static_cast<size_t>(dm.n_global_nodes()), test::size());
  for (std::int64_t g : gid) lowest[static_cast<size_t>(g)] = test::rank();
  MPI_Allreduce(MPI_IN_PLACE, lowest.data(), static_cast<int>(lowest.size()), MPI_INT, MPI_MIN,
                test::world());
  std::vector<double> share(gid.size() * static_cast<size_t>(dim), 0.0);
  for (size_t r = 0; r < gid.size(); ++r)
    if (lowest[static_cast<size_t>(gid[r])] == test::rank())
      for (int d = 0; d < dim; ++d) share[r * static_cast<size_t>(dim) + static_cast<size_t>(d)] = a[static_cast<size_t>(d)];
  return share;
}

// The owned cells with a face on `marker`.
std::vector<bool> wall_cells(const eu::Discretization& disc, const std::string& marker) {
  std::vector<bool> at_wall(static_cast<size_t>(disc.n_owned()), false);
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  for (index_t f : disc.mesh().owned_marker_faces(marker)) at_wall[static_cast<size_t>(left(f))] = true;
  return at_wall;
}

void expect_normal_component(const eu::Discretization& disc, const std::string& marker,
                             const std::vector<double>& a, double expected) {
  const mesh::DistributedMesh& dm = disc.mesh();
  const std::vector<double> share = uniform_share(dm, a);
  const Tensor dX = Tensor::from_host(
      {static_cast<index_t>(dm.node_global_ids().size()), static_cast<index_t>(a.size())}, share);
  const std::vector<double> dn =
      aero::surface_sensitivity(disc, {marker}, dm.node_global_ids(), dX);
  const std::vector<bool> at_wall = wall_cells(disc, marker);
  ASSERT_EQ(dn.size(), at_wall.size());
  double n_wall = 0.0;
  for (size_t c = 0; c < dn.size(); ++c) {
    EXPECT_NEAR(dn[c], at_wall[c] ? expected : 0.0, 1e-12) << "cell " << c;
    n_wall += at_wall[c];
  }
  EXPECT_GT(par::allreduce_sum(n_wall, test::world()), 0.0);
}

TEST(FlowOutput, FreeStreamFieldsAreItsPhysicalState2D) {
  mesh::DistributedMesh dm(mesh::rectangle(12, 6, 2.0, 1.0), test::world());
  const eu::Discretization disc(dm, flow_at(0.7, 2.5), rectangle_conditions());
  expect_free_stream_fields(disc);
}

TEST(FlowOutput, FreeStreamFieldsAreItsPhysicalState3D) {
  CAMBER_NEED_SHARED_FILE(brick());
  mesh::DistributedMesh dm(mesh::read_mesh(brick()), test::world());
  const eu::Discretization disc(dm, flow_at(0.84, 3.06), brick_conditions());
  expect_free_stream_fields(disc);
}

TEST(FlowOutput, FreeStreamWallCpIsZeroAtEveryWallFace) {
  mesh::DistributedMesh dm(mesh::rectangle(12, 6, 2.0, 1.0), test::world());
  const eu::Discretization disc(dm, flow_at(0.7, 2.5), rectangle_conditions());
  const std::vector<aero::WallPoint> cp =
      aero::wall_cp(disc, disc.free_stream_field(), rectangle_conditions());
  ASSERT_EQ(cp.size(), test::rank() == 0 ? 12u : 0u);
  for (const aero::WallPoint& p : cp) {
    EXPECT_NEAR(p.cp, 0.0, 1e-12);
    EXPECT_NEAR(p.y, 0.0, 1e-15);
  }
}

TEST(FlowOutput, UniformGradientGivesItsNormalComponent2D) {
  mesh::DistributedMesh dm(mesh::rectangle(12, 6, 2.0, 1.0), test::world());
  const eu::Discretization disc(dm, flow_at(0.7, 2.5), rectangle_conditions());
  // The bottom wall's normal into the fluid is +y.
  expect_normal_component(disc, "bottom", {0.3, -0.7}, -0.7);
}

TEST(FlowOutput, UniformGradientGivesItsNormalComponent3D) {
  CAMBER_NEED_SHARED_FILE(brick());
  mesh::DistributedMesh dm(mesh::read_mesh(brick()), test::world());
  const eu::Discretization disc(dm, flow_at(0.84, 3.06), brick_conditions());
  // z_m is the brick's lowest z plane: its normal into the fluid is +z.
  expect_normal_component(disc, "z_m", {0.3, -0.2, 0.5}, 0.5);
}

}  // namespace
}  // namespace camber
