// Surfaces (.vtp, .pvtp) and XDMF + HDF5 meshes at 1, 2 and 4 ranks, read
// back through VTK's readers and Camber's H5File. Every expected value is a
// function of global indices, so the reference does not depend on the rank
// count.
#include <gtest/gtest.h>

#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkXMLPPolyDataReader.h>
#include <vtkXMLPolyDataReader.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/io/xdmf_writer.hpp>
#include <camber/core/runtime.hpp>
#include "tests/mpi_test_utils.hpp"

namespace fs = std::filesystem;
namespace io = camber::io;

namespace {

using camber::test::rank;
using camber::test::read_text;
using camber::test::size;
using camber::test::world;

fs::path out_dir(const std::string& test) {
  return camber::test::scratch_dir("surface_xdmf_out", test);
}

// Segments of rank r's wall: r + 2 lines (rank 2 none), along y = r.
int segments_of(int r) { return r == 2 ? 0 : r + 2; }
int segment_offset(int r) {
  int n = 0;
  for (int q = 0; q < r; ++q) n += segments_of(q);
  return n;
}

io::SurfacePiece wall_piece(int r) {
  io::SurfacePiece s;
  // Every rank names the same fields, with no values where it has no cells.
  s.cell_data.push_back({"Cp [-]", 1, {}});
  const int n = segments_of(r);
  if (n == 0) return s;
  for (int i = 0; i <= n; ++i) s.points_xyz.insert(s.points_xyz.end(), {1.0 * i, 1.0 * r, 0.0});
  for (int i = 0; i < n; ++i) {
    s.connectivity.insert(s.connectivity.end(), {i, i + 1});
    s.offsets.push_back(2 * (i + 1));
    s.cell_types.push_back(io::vtk_cell::line);
    s.cell_data[0].values.push_back(segment_offset(r) + i);  // global segment id
  }
  return s;
}

}  // namespace

// VTK keeps vertices, then lines, then polygons: cells given in another
// order come back grouped, each with its own field value.
TEST(SurfaceWriter, VtpGroupsCellsAsPolyDataStoresThem) {
  const fs::path dir = out_dir("vtp");
  if (rank() != 0) return;
  io::SurfacePiece s;
  s.points_xyz = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0};
  // quad, line, triangle, vertex, polygon (pentagon)
  s.connectivity = {0, 1, 2, 3, 1, 4, 1, 4, 2, 3, 0, 1, 4, 2, 3};
  s.offsets = {4, 6, 9, 10, 15};
  s.cell_types = {io::vtk_cell::quad, io::vtk_cell::line, io::vtk_cell::triangle,
                  io::vtk_cell::vertex, io::vtk_cell::polygon};
  s.cell_data.push_back({"Given order [-]", 1, {0, 1, 2, 3, 4}});
  s.point_data.push_back({"x [m]", 1, {0, 1, 1, 0, 2}});
  io::write_vtp((dir / "mixed.vtp").string(), s);
  EXPECT_FALSE(fs::exists(dir / "mixed.vtp.tmp"));

  vtkNew<vtkXMLPolyDataReader> reader;
  reader->SetFileName((dir / "mixed.vtp").c_str());
  reader->Update();
  vtkPolyData* poly = reader->GetOutput();
  EXPECT_EQ(poly->GetNumberOfPoints(), 5);
  EXPECT_EQ(poly->GetNumberOfVerts(), 1);
  EXPECT_EQ(poly->GetNumberOfLines(), 1);
  EXPECT_EQ(poly->GetNumberOfPolys(), 3);
  vtkDataArray* order = poly->GetCellData()->GetArray("Given order [-]");
  ASSERT_NE(order, nullptr);
  const double expected[] = {3, 1, 0, 2, 4};  // vertex, line, quad, triangle, polygon
  for (int c = 0; c < 5; ++c) EXPECT_EQ(order->GetTuple1(c), expected[c]) << "cell " << c;
  ASSERT_NE(poly->GetPointData()->GetArray("x [m]"), nullptr);
}

TEST(SurfaceWriter, PvtpHoldsEveryRanksSegments) {
  const fs::path dir = out_dir("pvtp");
  const std::string summary = io::write_pvtp((dir / "wall").string(), wall_piece(rank()), world());
  EXPECT_EQ(summary, (dir / "wall.pvtp").string());
  // A rank without segments writes no piece.
  EXPECT_EQ(fs::exists(dir / "wall" / ("wall_" + std::to_string(rank()) + ".vtp")),
            segments_of(rank()) > 0);
  MPI_Barrier(world());
  if (rank() != 0) return;
  EXPECT_FALSE(fs::exists(dir / "wall.pvtp.tmp"));
  vtkNew<vtkXMLPPolyDataReader> reader;
  reader->SetFileName(summary.c_str());
  reader->Update();
  vtkPolyData* poly = reader->GetOutput();
  const int total = segment_offset(size());
  EXPECT_EQ(poly->GetNumberOfLines(), total);
  vtkDataArray* cp = poly->GetCellData()->GetArray("Cp [-]");
  ASSERT_NE(cp, nullptr);
  // Pieces are appended in rank order: the global segment ids in order.
  for (int c = 0; c < total; ++c) EXPECT_EQ(cp->GetTuple1(c), c);
}

TEST(SurfaceWriter, VolumeCellsAreRefusedOnEveryRank) {
  const fs::path dir = out_dir("bad");
  io::SurfacePiece s = wall_piece(rank());
  if (rank() == size() - 1) s.cell_types[0] = io::vtk_cell::tetra;
  bool threw = false;
  try {
    io::write_pvtp((dir / "wall").string(), s, world());
  } catch (const camber::Error& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("a surface holds only"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(threw);
  EXPECT_FALSE(fs::exists(dir / "wall.pvtp"));
}

namespace {

// Rank r's rows of a strip of mixed cells along x: each rank holds points
// 3 columns (x = 2r, 2r + 1 at y = 0, 1, plus x = 2r + 0.5 at y = 2) and
// the cells between its points and the next rank's: a quad, a triangle and a
// pentagon per rank except the last. Point ids are global.
struct Strip {
  io::UnstructuredPiece block;
  std::vector<double> topology;  // the expected XDMF Mixed entries of the block
};

Strip strip(int r, int n_ranks) {
  Strip s;
  const std::int64_t p0 = 5 * r;  // 5 points per rank
  const double x = 2.0 * r;
  s.block.points_xyz = {x, 0, 0, x + 1, 0, 0, x, 1, 0, x + 1, 1, 0, x + 0.5, 2, 0};
  s.block.point_data.push_back({"Height [m]", 1, {0, 0, 1, 1, 2}});
  s.block.cell_data.push_back({"Cell id & type [-]", 1, {}});
  s.block.cell_data.push_back({"Velocity [m/s]", 3, {}});
  const auto add = [&](std::uint8_t type, std::vector<std::int64_t> ids, double xdmf_type,
                       bool with_count) {
    s.block.connectivity.insert(s.block.connectivity.end(), ids.begin(), ids.end());
    s.block.offsets.push_back(static_cast<std::int64_t>(s.block.connectivity.size()));
    s.block.cell_types.push_back(type);
    const double id = 10.0 * r + static_cast<double>(s.block.cell_types.size());
    s.block.cell_data[0].values.push_back(id);
    s.block.cell_data[1].values.insert(s.block.cell_data[1].values.end(), {id, -id, 0.0});
    s.topology.push_back(xdmf_type);
    if (with_count) s.topology.push_back(static_cast<double>(ids.size()));
    for (auto i : ids) s.topology.push_back(static_cast<double>(i));
  };
  add(io::vtk_cell::quad, {p0, p0 + 1, p0 + 3, p0 + 2}, 5, false);
  add(io::vtk_cell::triangle, {p0 + 2, p0 + 3, p0 + 4}, 4, false);
  if (r + 1 < n_ranks)  // a pentagon reaching into the next rank's points
    add(io::vtk_cell::polygon, {p0 + 1, p0 + 5, p0 + 7, p0 + 4, p0 + 3}, 3, true);
  return s;
}

}  // namespace

TEST(XdmfWriter, MixedCellsRoundTripThroughHdf5) {
  const fs::path dir = out_dir("xdmf");
  const std::string xdmf =
      io::write_xdmf_mesh((dir / "data" / "strip.h5").string(), (dir / "strip.xdmf").string(),
                          strip(rank(), size()).block, world());
  EXPECT_EQ(xdmf, (dir / "strip.xdmf").string());

  std::vector<double> topology, ids, velocity;
  std::int64_t n_cells = 0;
  for (int r = 0; r < size(); ++r) {
    const Strip s = strip(r, size());
    topology.insert(topology.end(), s.topology.begin(), s.topology.end());
    ids.insert(ids.end(), s.block.cell_data[0].values.begin(), s.block.cell_data[0].values.end());
    velocity.insert(velocity.end(), s.block.cell_data[1].values.begin(),
                    s.block.cell_data[1].values.end());
    n_cells += s.block.n_cells();
  }
  io::H5File in((dir / "data" / "strip.h5").string(), io::Mode::read, world());
  EXPECT_EQ(in.read_all("mesh/topology").to_vector(), topology);
  EXPECT_EQ(in.shape("mesh/points"), (camber::Shape{5 * size(), 3}));
  EXPECT_EQ(in.read_all("cell_data/field_0").to_vector(), ids);
  EXPECT_EQ(in.read_all("cell_data/field_1").to_vector(), velocity);
  EXPECT_EQ(in.shape("point_data/field_0"), (camber::Shape{5 * size()}));
  in.close();

  const std::string text = read_text(dir / "strip.xdmf");
  EXPECT_NE(text.find("TopologyType=\"Mixed\" NumberOfElements=\"" + std::to_string(n_cells)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("data/strip.h5:/mesh/topology"), std::string::npos) << text;
  EXPECT_NE(text.find("Name=\"Cell id &amp; type [-]\""), std::string::npos) << text;
  EXPECT_NE(text.find("AttributeType=\"Vector\" Center=\"Cell\""), std::string::npos) << text;
  EXPECT_NE(text.find("Name=\"Height [m]\" AttributeType=\"Scalar\" Center=\"Node\""),
            std::string::npos)
      << text;
}

TEST(XdmfWriter, PointIdsOutsideTheGlobalPointsAreAnError) {
  const fs::path dir = out_dir("xdmf_bad");
  Strip s = strip(rank(), size());
  if (rank() == 0) s.block.connectivity[0] = 5 * size();  // one past the last point
  bool threw = false;
  try {
    io::write_xdmf_mesh((dir / "bad.h5").string(), (dir / "bad.xdmf").string(), s.block,
                        world());
  } catch (const camber::Error& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("global point ids"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(threw);
  EXPECT_FALSE(fs::exists(dir / "bad.xdmf"));
  EXPECT_FALSE(fs::exists(dir / "bad.h5"));
}

// ParaView itself opens the mixed-cell XDMF file and a .pvtp. Runs only when
// CAMBER_PARAVIEW_READ names the paraview-read tool (the `paraview` ctest
// sets it).
TEST(SurfaceXdmfParaView, OpensMixedXdmfAndPvtp) {
  const char* tool = std::getenv("CAMBER_PARAVIEW_READ");
  if (tool == nullptr || !fs::exists(tool)) GTEST_SKIP() << "CAMBER_PARAVIEW_READ not set";
  const fs::path dir = out_dir("paraview");
  io::write_xdmf_mesh((dir / "strip.h5").string(), (dir / "strip.xdmf").string(),
                      strip(rank(), size()).block, world());
  io::write_pvtp((dir / "wall").string(), wall_piece(rank()), world());
  if (rank() != 0) return;
  const char* home = std::getenv("HOME");
  const char* path = std::getenv("PATH");
  const std::string command =
      std::string("env -i HOME='") + (home ? home : "/root") + "' PATH='" +
      (path ? path : "/usr/bin:/bin") + "' '" + tool + "' '" +
      fs::absolute(dir / "strip.xdmf").string() + "' '" +
      fs::absolute(dir / "wall.pvtp").string() + "' 2>&1";
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
    pclose(pipe);
  }
  std::int64_t strip_cells = 0;
  for (int r = 0; r < size(); ++r) strip_cells += strip(r, size()).block.n_cells();
  // One JSON line per file, in order: cells, points, arrays.
  const std::string strip_line = "\"cells\": " + std::to_string(strip_cells) +
                                 ", \"points\": " + std::to_string(5 * size());
  EXPECT_NE(output.find(strip_line), std::string::npos) << output;
  EXPECT_NE(output.find("\"Cell id & type [-]\": {\"components\": 1"), std::string::npos)
      << output;
  EXPECT_NE(output.find("\"Velocity [m/s]\": {\"components\": 3"), std::string::npos) << output;
  EXPECT_NE(output.find("\"Height [m]\": {\"components\": 1"), std::string::npos) << output;
  EXPECT_NE(output.find("\"cells\": " + std::to_string(segment_offset(size()))),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("\"Cp [-]\": {\"components\": 1, \"range\": [0.0, " +
                        std::to_string(segment_offset(size()) - 1) + ".0]"),
            std::string::npos)
      << output;
}
