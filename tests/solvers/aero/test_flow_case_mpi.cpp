// solvers/aero/flow_case.hpp at 1, 2 and 4 ranks: one call solves the flow
// and writes what `camber run` writes.
//  - Subsonic flow (M 0.5) around the symmetric NACA 0012 at alpha 0 on a
//    symmetric O-grid: CL vanishes by symmetry (|CL| < 1e-9, round-off of
//    forces of order 1e-2 summed over the wall) and CD, the scheme's
//    spurious drag, is small and positive (0 < CD < 0.05).
//  - The result is the library's own solve: the same CL and CD as
//    euler::solve_steady with the same settings, to 1e-12.
//  - The files hold the result: one history row per step (the last row's
//    CL is the result's to the 10 digits written), one Cp row per wall
//    face (each between the stagnation value 1 + M^2/4 + ... and the
//    vacuum value -2 / (gamma M^2)), the ParaView series and wall surface,
//    the state file.
//  - A restart from the state file stops within two steps at the same CL
//    and CD (1e-10): the state is a converged solution.
//  - A marker without a condition is bad input on every rank, as are
//    spanwise stations on a 2-D mesh.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/aero/flow_case.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
namespace fs = std::filesystem;

// Made per use: a static Mesh would outlive Kokkos.
mesh::Mesh ogrid() {
  return mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 30.0);
}

aero::FlowCaseSettings settings(const fs::path& dir) {
  aero::FlowCaseSettings s;
  s.name = "naca";
  s.dir = dir.string();
  s.flow.mach = 0.5;
  s.flow.alpha_deg = 0.0;
  s.conditions = {{"airfoil", eu::BoundaryKind::slip_wall},
                  {"farfield", eu::BoundaryKind::far_field}};
  s.spatial.order = 2;
  s.steady.rel_tolerance = 1e-10;
  s.steady.max_iterations = 200;
  return s;
}


TEST(FlowCase, SolvesWritesAndRestarts) {
  const fs::path dir = test::scratch_dir("flow_case_out", "solve");
  const aero::FlowCaseSettings s = settings(dir);
  const aero::FlowCaseResult r = aero::solve_flow_case(mesh::DistributedMesh(ogrid(), test::world()), s);
  ASSERT_TRUE(r.solve.converged);
  EXPECT_LT(std::abs(r.solve.forces.cl), 1e-9);
  EXPECT_GT(r.solve.forces.cd, 0.0);
  EXPECT_LT(r.solve.forces.cd, 0.05);
  EXPECT_GE(r.orders, 10.0);
  EXPECT_EQ(r.cells, ogrid().n_cells());
  EXPECT_EQ(r.ranks, test::size());

  // The library's own solve with the same settings.
  {
    mesh::DistributedMesh dm(ogrid(), test::world());
    eu::Discretization disc(dm, s.flow, s.conditions, s.scheme, s.spatial);
    Tensor U = disc.free_stream_field();
    const eu::SteadyResult direct = eu::solve_steady(disc, U, s.steady);
    EXPECT_NEAR(direct.forces.cl, r.solve.forces.cl, 1e-12);
    EXPECT_NEAR(direct.forces.cd, r.solve.forces.cd, 1e-12);
    EXPECT_EQ(direct.iterations, r.solve.iterations);
  }

  if (test::rank() == 0) {
    const auto history = test::read_csv_rows(dir / "naca_history.csv");
    ASSERT_EQ(history.size(), r.solve.history.size());
    EXPECT_NEAR(history.back()[6], r.solve.forces.cl, 1e-10);
    EXPECT_NEAR(history.back()[7], r.solve.forces.cd, 1e-10 * std::max(1.0, r.solve.forces.cd));
    const auto cp = test::read_csv_rows(dir / "naca_cp.csv");
    index_t wall_faces = 0;
    const mesh::Mesh m = ogrid();
    for (const mesh::Marker& mk : m.markers())
      if (mk.name == "airfoil") wall_faces = mk.n_faces();
    EXPECT_EQ(static_cast<index_t>(cp.size()), wall_faces);
    const double m2 = 0.25, gamma = 1.4;
    const double cp_stagnation = 2.0 / (gamma * m2) *
                                 (std::pow(1.0 + 0.5 * (gamma - 1.0) * m2, gamma / (gamma - 1.0)) - 1.0);
    for (const auto& row : cp) {
      ASSERT_EQ(row.size(), 3u);
      EXPECT_LE(row[2], cp_stagnation + 1e-6);
      EXPECT_GT(row[2], -2.0 / (gamma * m2));
    }
    EXPECT_TRUE(fs::exists(dir / "naca.pvd"));
    EXPECT_TRUE(fs::exists(dir / "naca_airfoil.pvtp"));
    EXPECT_TRUE(fs::exists(dir / "naca.h5"));
  }

  aero::FlowCaseSettings again = s;
  again.restart = true;
  again.paraview = false;
  const aero::FlowCaseResult rr =
      aero::solve_flow_case(mesh::DistributedMesh(ogrid(), test::world()), again);
  EXPECT_TRUE(rr.solve.converged);
  EXPECT_LE(rr.solve.iterations, 2);
  EXPECT_NEAR(rr.solve.forces.cl, r.solve.forces.cl, 1e-10);
  EXPECT_NEAR(rr.solve.forces.cd, r.solve.forces.cd, 1e-10);
}

TEST(FlowCase, AMarkerWithoutAConditionIsBadInputOnEveryRank) {
  const fs::path dir = test::scratch_dir("flow_case_out", "markers");
  aero::FlowCaseSettings s = settings(dir);
  s.conditions.pop_back();  // farfield
  try {
    aero::solve_flow_case(mesh::DistributedMesh(ogrid(), test::world()), s);
    FAIL() << "the far field has no condition";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(e.message().find("farfield"), std::string::npos) << e.message();
  }
}

TEST(FlowCase, StationsOnA2DMeshAreBadInputOnEveryRank) {
  const fs::path dir = test::scratch_dir("flow_case_out", "stations");
  aero::FlowCaseSettings s = settings(dir);
  s.stations = {0.5};
  try {
    aero::solve_flow_case(mesh::DistributedMesh(ogrid(), test::world()), s);
    FAIL() << "stations need a 3-D mesh";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(e.message().find("3-D"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace camber
