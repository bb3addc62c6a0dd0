// solvers/aero/flow_state.hpp at 1, 2 and 4 ranks: a state written and read
// back is the one written (every owned cell's values, by global cell id),
// the steady state file keeps its reference residual and coefficients, and
// a missing file or another mesh's is bad input on every rank.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/aero/flow_state.hpp>
#include "tests/mpi_test_utils.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
namespace fs = std::filesystem;

std::string scratch(const std::string& name) {
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, test::world());
  return (fs::temp_directory_path() / ("camber_flow_state_" + std::to_string(pid)) / name).string();
}

std::vector<eu::BoundaryCondition> conditions() {
  return {{"bottom", eu::BoundaryKind::slip_wall},
          {"left", eu::BoundaryKind::far_field},
          {"right", eu::BoundaryKind::far_field},
          {"top", eu::BoundaryKind::far_field}};
}

// A state that differs in every cell and variable: a function of the
// global cell id.
Tensor state_of(const mesh::DistributedMesh& dm) {
  std::vector<double> u(static_cast<size_t>(dm.n_local_cells() * 4), 0.0);
  for (index_t c = 0; c < dm.n_owned_cells(); ++c)
    for (int k = 0; k < 4; ++k)
      u[static_cast<size_t>(4 * c + k)] =
          1.0 + 0.01 * k + 1e-4 * static_cast<double>(dm.cell_global_ids()[static_cast<size_t>(c)]);
  return Tensor::from_host({dm.n_local_cells(), 4}, u);
}

TEST(FlowState, SteadyStateRoundTrip) {
  mesh::DistributedMesh dm(mesh::rectangle(10, 6, 2.0, 1.0), test::world());
  eu::FlowConditions flow;
  flow.mach = 0.6;
  flow.alpha_deg = 1.5;
  const eu::Discretization disc(dm, flow, conditions());
  const Tensor U = state_of(dm);
  eu::SteadyResult result;
  result.iterations = 17;
  result.forces.cl = 0.3125;
  result.forces.cd = 0.0078125;
  result.forces.cm = -0.05;
  const std::string path = scratch("steady.h5");
  aero::write_steady_state(path, disc, U, result, 2.5e-3, {{"case", "round_trip"}});

  Tensor back = disc.free_stream_field();
  EXPECT_EQ(aero::read_steady_state(path, disc, back), 2.5e-3);
  const std::vector<double> a = U.to_vector(), b = back.to_vector();
  for (index_t i = 0; i < dm.n_owned_cells() * 4; ++i)
    EXPECT_EQ(b[static_cast<size_t>(i)], a[static_cast<size_t>(i)]) << "entry " << i;

  io::H5File file(path, io::Mode::read, test::world());
  EXPECT_EQ(file.attribute<double>("", "mach"), 0.6);
  EXPECT_EQ(file.attribute<double>("", "alpha_deg"), 1.5);
  EXPECT_EQ(file.attribute<std::int64_t>("", "newton_steps"), 17);
  EXPECT_EQ(file.attribute<double>("", "CL"), 0.3125);
  EXPECT_EQ(file.attribute<double>("", "CD"), 0.0078125);
  EXPECT_EQ(file.attribute<double>("", "CM"), -0.05);
  EXPECT_EQ(file.attribute<std::string>("", "case"), "round_trip");
  EXPECT_EQ(file.attribute<std::int64_t>("", "n_cells"), 60);
}

TEST(FlowState, AMissingFileOrAnotherMeshIsBadInputOnEveryRank) {
  mesh::DistributedMesh dm(mesh::rectangle(10, 6, 2.0, 1.0), test::world());
  const eu::Discretization disc(dm, eu::FlowConditions{}, conditions());
  Tensor U = disc.free_stream_field();
  try {
    aero::read_steady_state(scratch("never_written.h5"), disc, U);
    ADD_FAILURE() << "a missing file was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(e.message().find("never_written.h5"), std::string::npos) << e.message();
  }
  const std::string path = scratch("other_mesh.h5");
  aero::write_steady_state(path, disc, U, eu::SteadyResult{}, 1.0);
  mesh::DistributedMesh other(mesh::rectangle(8, 6, 2.0, 1.0), test::world());
  const eu::Discretization other_disc(other, eu::FlowConditions{}, conditions());
  Tensor V = other_disc.free_stream_field();
  try {
    aero::read_steady_state(path, other_disc, V);
    ADD_FAILURE() << "another mesh's state was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(e.message().find("holds 60 cells, the mesh has 48"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace camber
