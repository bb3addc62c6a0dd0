// solvers/heat/heat_output.hpp at 1, 2 and 4 ranks: a heat result made by
// hand on a rectangle of quads (T = 1 + 2x - 3y + xy and the "exact"
// 1 + 2x - 3y at the cell centroids, every local cell, ghosts included) is
// written and read back.
//  - ParaView: VTK's own reader sees every cell once; each cell's
//    "Temperature [K]", "Exact temperature [K]" and "Error [K]" are the two
//    functions and their difference at the cell's centre (the mean of its
//    corners: the centroid of a rectangle), to round-off; the .pvd lists
//    the step's .pvtu.
//  - HDF5: the rows' cell ids are every cell once, each row's temperatures
//    are the functions at that cell's centroid in the whole mesh, to
//    round-off; the attributes are the result's errors, the case, the deck
//    and the rectangle's counts, or the mesh file instead of the counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkIdList.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPUnstructuredGridReader.h>

#include <Kokkos_Core.hpp>

#include <camber/io/hdf5_file.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/solvers/heat/heat_output.hpp>
#include "tests/mpi_test_utils.hpp"

namespace camber::solvers::heat {
namespace {

constexpr index_t nx = 9, ny = 5;
constexpr double lx = 2.0, ly = 1.0;

double temperature(double x, double y) { return 1.0 + 2.0 * x - 3.0 * y + x * y; }
double exact(double x, double y) { return 1.0 + 2.0 * x - 3.0 * y; }

// Cell centroids of `m` on the host, {n_cells, 2}.
Kokkos::View<double**, Kokkos::HostSpace> centroids(const mesh::Mesh& m) {
  const mesh::Geometry g = mesh::compute_geometry(m);
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_centroid);
}

// Built in each test: no Kokkos View may outlive the runtime.
mesh::DistributedMesh distributed() {
  return mesh::DistributedMesh(mesh::rectangle(nx, ny, lx, ly), test::world());
}

// The functions at the centroids of every local cell; errors that no
// solver computed, so that reading them back proves they were written.
HeatResult result(const mesh::DistributedMesh& dm) {
  const auto c = centroids(dm.local());
  const index_t n = dm.n_local_cells();
  std::vector<double> t(static_cast<size_t>(n)), e(static_cast<size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    t[static_cast<size_t>(i)] = temperature(c(i, 0), c(i, 1));
    e[static_cast<size_t>(i)] = exact(c(i, 0), c(i, 1));
  }
  HeatResult r;
  r.temperature = Tensor::from_host({n}, t);
  r.exact = Tensor::from_host({n}, e);
  r.l2_error = 0.125;
  r.max_error = 0.375;
  return r;
}

TEST(HeatOutput, TheParaViewFilesHoldTheSolution) {
  const mesh::DistributedMesh dm = distributed();
  const std::string dir = test::scratch_dir(CAMBER_TEST_SCRATCH, "paraview").string();
  const std::string pvd = write_heat_paraview(dir, "plate", dm, result(dm));
  EXPECT_EQ(pvd, dir + "/plate.pvd");
  if (test::rank() != 0) return;
  std::ifstream in(pvd);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("file=\"plate_0000.pvtu\""), std::string::npos) << text.str();

  vtkNew<vtkXMLPUnstructuredGridReader> reader;
  reader->SetFileName((dir + "/plate_0000.pvtu").c_str());
  reader->Update();
  vtkUnstructuredGrid* grid = reader->GetOutput();
  ASSERT_EQ(grid->GetNumberOfCells(), nx * ny);
  vtkDataArray* t = grid->GetCellData()->GetArray("Temperature [K]");
  vtkDataArray* e = grid->GetCellData()->GetArray("Exact temperature [K]");
  vtkDataArray* err = grid->GetCellData()->GetArray("Error [K]");
  ASSERT_TRUE(t != nullptr && e != nullptr && err != nullptr);
  vtkNew<vtkIdList> ids;
  for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
    grid->GetCellPoints(c, ids);
    ASSERT_EQ(ids->GetNumberOfIds(), 4);
    double x = 0.0, y = 0.0;
    for (vtkIdType k = 0; k < 4; ++k) {
      x += 0.25 * grid->GetPoints()->GetPoint(ids->GetId(k))[0];
      y += 0.25 * grid->GetPoints()->GetPoint(ids->GetId(k))[1];
    }
    EXPECT_NEAR(t->GetTuple1(c), temperature(x, y), 1e-13) << "cell " << c;
    EXPECT_NEAR(e->GetTuple1(c), exact(x, y), 1e-13) << "cell " << c;
    EXPECT_NEAR(err->GetTuple1(c), temperature(x, y) - exact(x, y), 1e-13) << "cell " << c;
  }
}

TEST(HeatOutput, TheHdf5FileHoldsTheSolutionAndWhereItCameFrom) {
  const mesh::DistributedMesh dm = distributed();
  const std::string dir = test::scratch_dir(CAMBER_TEST_SCRATCH, "hdf5").string();
  const HeatResult r = result(dm);
  HeatFileAttributes a;
  a.deck = "plate.yaml";
  a.cells_x = nx;
  a.cells_y = ny;
  EXPECT_EQ(write_heat_hdf5(dir, "plate", dm, r, a), dir + "/plate.h5");

  io::H5File file(dir + "/plate.h5", io::Mode::read, test::world());
  const std::vector<double> t = file.read_all("fields/temperature_K").to_vector();
  const std::vector<double> e = file.read_all("fields/exact_temperature_K").to_vector();
  const std::vector<double> id = file.read_all("fields/cell_id").to_vector();
  ASSERT_EQ(t.size(), static_cast<size_t>(nx * ny));
  ASSERT_EQ(e.size(), t.size());
  ASSERT_EQ(id.size(), t.size());
  std::vector<double> sorted = id;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(sorted[k], static_cast<double>(k));
  const auto c = centroids(mesh::rectangle(nx, ny, lx, ly));  // the mesh's own numbering
  for (size_t k = 0; k < t.size(); ++k) {
    const index_t cell = static_cast<index_t>(id[k]);
    EXPECT_NEAR(t[k], temperature(c(cell, 0), c(cell, 1)), 1e-13) << "row " << k;
    EXPECT_NEAR(e[k], exact(c(cell, 0), c(cell, 1)), 1e-13) << "row " << k;
  }
  EXPECT_EQ(file.attribute<std::string>("", "case"), "plate");
  EXPECT_EQ(file.attribute<std::string>("", "deck"), "plate.yaml");
  EXPECT_EQ(file.attribute<std::int64_t>("", "cells"), nx * ny);
  EXPECT_EQ(file.attribute<std::int64_t>("", "cells_x"), nx);
  EXPECT_EQ(file.attribute<std::int64_t>("", "cells_y"), ny);
  EXPECT_FALSE(file.has_attribute("", "mesh_file"));
  EXPECT_EQ(file.attribute<double>("", "l2_error_K"), r.l2_error);
  EXPECT_EQ(file.attribute<double>("", "max_error_K"), r.max_error);
  file.close();

  // A mesh read from a file is named instead of the counts.
  a.mesh_file = "meshes/plate.su2";
  write_heat_hdf5(dir, "from_file", dm, r, a);
  io::H5File named(dir + "/from_file.h5", io::Mode::read, test::world());
  EXPECT_EQ(named.attribute<std::string>("", "mesh_file"), "meshes/plate.su2");
  EXPECT_FALSE(named.has_attribute("", "cells_x"));
  EXPECT_FALSE(named.has_attribute("", "cells_y"));
  named.close();
}

}  // namespace
}  // namespace camber::solvers::heat
