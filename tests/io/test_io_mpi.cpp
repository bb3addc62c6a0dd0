// Camber::io at 1, 2 and 4 ranks: parallel HDF5 round trips, attributes,
// errors and atomic replacement; VTK XML output read back by VTK's readers
// (and optionally by ParaView itself).
//
// Values are exact functions of global indices or coordinates, so the
// reference is the function, not what an earlier run printed.
#include <gtest/gtest.h>

#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkIdList.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPUnstructuredGridReader.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_session.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/core/runtime.hpp>
#include "tests/mpi_test_utils.hpp"
#include <camber/core/tensor.hpp>

namespace fs = std::filesystem;
using camber::index_t;
using camber::Tensor;
namespace io = camber::io;

namespace {

using camber::test::rank;
using camber::test::read_text;
using camber::test::size;
using camber::test::world;

// A folder per rank count, so the 1-, 2- and 4-rank runs may run at once.
fs::path out_dir(const std::string& test) {
  return camber::test::scratch_dir("io_test_out", test);
}

// Deliberately uneven rows per rank; rank 2 holds none.
index_t rows_of(int r) { return r == 2 ? 0 : 3 + 2 * r; }
index_t row_offset_of(int r) {
  index_t offset = 0;
  for (int q = 0; q < r; ++q) offset += rows_of(q);
  return offset;
}
index_t total_rows() { return row_offset_of(size()); }

constexpr index_t n_columns = 3;
// Exact in binary floating point.
double value_at(index_t row, index_t column) {
  return 1000.0 * static_cast<double>(row) + static_cast<double>(column) + 0.25;
}

Tensor rows_block(index_t offset, index_t count) {
  std::vector<double> values;
  for (index_t i = offset; i < offset + count; ++i)
    for (index_t j = 0; j < n_columns; ++j) values.push_back(value_at(i, j));
  return Tensor::from_host({count, n_columns}, values);
}

void expect_rows(const Tensor& t, index_t offset, index_t count) {
  ASSERT_EQ(t.shape(), (camber::Shape{count, n_columns}));
  const std::vector<double> values = t.to_vector();
  for (index_t i = 0; i < count; ++i)
    for (index_t j = 0; j < n_columns; ++j)
      ASSERT_EQ(values[static_cast<std::size_t>(i * n_columns + j)], value_at(offset + i, j))
          << "row " << offset + i << ", column " << j;
}

// Runs `body` expecting a camber::Error whose message contains every needle.
template <class Body>
void expect_error(Body&& body, const std::vector<std::string>& needles) {
  try {
    body();
    ADD_FAILURE() << "expected a camber::Error";
  } catch (const camber::Error& e) {
    for (const std::string& needle : needles)
      EXPECT_NE(e.message().find(needle), std::string::npos)
          << "message lacks '" << needle << "': " << e.message();
  }
}

}  // namespace

// ---- HDF5 -------------------------------------------------------------------

TEST(Hdf5File, EvenRowBlocksCoverTheRowsInOrder) {
  for (int n_ranks : {1, 3, 4, 7}) {
    index_t next = 0;
    for (int r = 0; r < n_ranks; ++r) {
      const io::RowBlock b = io::even_row_block(10, r, n_ranks);
      EXPECT_EQ(b.offset, next);
      EXPECT_TRUE(b.count == 10 / n_ranks || b.count == 10 / n_ranks + 1);
      next += b.count;
    }
    EXPECT_EQ(next, 10);
  }
}

TEST(Hdf5File, DistributedTensorRoundTripsExactly) {
  const fs::path path = out_dir("roundtrip") / "checkpoint.h5";
  const index_t my_rows = rows_of(rank());
  const index_t my_offset = row_offset_of(rank());
  {
    io::H5File file(path.string(), io::Mode::create, world());
    file.write("fields/temperature", rows_block(my_offset, my_rows));
    file.write_replicated("design/p", Tensor::from_host({4}, {0.5, -1.0, 2.0, 1e-300}));
    file.write_replicated("time", Tensor::scalar(0.125));
    // Three axes: rows of 2 x 2 blocks, value = 4 * global row + position.
    std::vector<double> blocks;
    for (index_t i = my_offset; i < my_offset + my_rows; ++i)
      for (int k = 0; k < 4; ++k) blocks.push_back(4.0 * static_cast<double>(i) + k);
    file.write("fields/stress", Tensor::from_host({my_rows, 2, 2}, blocks));
    // No rows anywhere.
    file.write("empty", Tensor::zeros({0, n_columns}));
    // Readable while still being written.
    EXPECT_EQ(file.shape("fields/temperature"), (camber::Shape{total_rows(), n_columns}));
    file.close();
    EXPECT_FALSE(file.is_open());
  }
  // The commit is visible to every rank when close() returns.
  EXPECT_TRUE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));

  io::H5File file(path.string(), io::Mode::read, world());
  EXPECT_TRUE(file.has_dataset("fields/temperature"));
  EXPECT_TRUE(file.has_dataset("/fields/temperature"));
  EXPECT_FALSE(file.has_dataset("fields"));  // a group
  EXPECT_FALSE(file.has_dataset("fields/pressure"));
  EXPECT_EQ(file.shape("fields/temperature"), (camber::Shape{total_rows(), n_columns}));

  // Same decomposition as written.
  expect_rows(file.read("fields/temperature", my_offset, my_rows), my_offset, my_rows);
  // Another decomposition: even blocks.
  const io::RowBlock even = io::even_row_block(total_rows(), rank(), size());
  expect_rows(file.read("fields/temperature"), even.offset, even.count);
  // Every row on every rank.
  expect_rows(file.read_all("fields/temperature"), 0, total_rows());
  // Reversed blocks: rank r reads what rank size-1-r wrote.
  const int mirror = size() - 1 - rank();
  expect_rows(file.read("fields/temperature", row_offset_of(mirror), rows_of(mirror)),
              row_offset_of(mirror), rows_of(mirror));

  const Tensor stress = file.read_all("fields/stress");
  ASSERT_EQ(stress.shape(), (camber::Shape{total_rows(), 2, 2}));
  const std::vector<double> stress_values = stress.to_vector();
  for (std::size_t i = 0; i < stress_values.size(); ++i)
    ASSERT_EQ(stress_values[i], static_cast<double>(i)) << "element " << i;
  EXPECT_EQ(file.read("empty").shape(), (camber::Shape{0, n_columns}));

  EXPECT_EQ(file.read_all("design/p").to_vector(), (std::vector<double>{0.5, -1.0, 2.0, 1e-300}));
  const Tensor time = file.read_all("time");
  EXPECT_EQ(time.rank(), 0);
  EXPECT_EQ(time.item(), 0.125);
}

TEST(Hdf5File, AttributesRoundTrip) {
  const fs::path path = out_dir("attributes") / "attributes.h5";
  {
    io::H5File file(path.string(), io::Mode::create, world());
    file.write("fields/u", rows_block(row_offset_of(rank()), rows_of(rank())));
    file.set_attribute("", "title", "NACA 0012, Mach 0.8");
    file.set_attribute("/", "time", 0.1);
    file.set_attribute("", "step", std::int64_t{1234567890123});
    file.set_attribute("", "iterations", 42);  // int
    file.set_attribute("", "empty", "");
    file.set_attribute("", "no_values", std::vector<double>{});
    file.set_attribute("fields/u", "units", "m/s");
    file.set_attribute("fields/u", "bounds", std::vector<double>{-1.5, 2.25, 1e10});
    file.set_attribute("fields", "note", "a group");
    file.set_attribute("", "time", 0.2);  // replaces
    file.close();
  }
  io::H5File file(path.string(), io::Mode::read, world());
  EXPECT_EQ(file.attribute<std::string>("", "title"), "NACA 0012, Mach 0.8");
  EXPECT_EQ(file.attribute<double>("", "time"), 0.2);
  EXPECT_EQ(file.attribute<std::int64_t>("", "step"), 1234567890123);
  EXPECT_EQ(file.attribute<std::int64_t>("", "iterations"), 42);
  EXPECT_EQ(file.attribute<double>("", "iterations"), 42.0);  // integers read as double
  EXPECT_EQ(file.attribute<std::string>("", "empty"), "");
  EXPECT_TRUE(file.attribute<std::vector<double>>("", "no_values").empty());
  EXPECT_EQ(file.attribute<std::string>("fields/u", "units"), "m/s");
  EXPECT_EQ(file.attribute<std::vector<double>>("fields/u", "bounds"),
            (std::vector<double>{-1.5, 2.25, 1e10}));
  EXPECT_EQ(file.attribute<std::string>("/fields", "note"), "a group");
  EXPECT_TRUE(file.has_attribute("", "title"));
  EXPECT_FALSE(file.has_attribute("fields/u", "title"));

  expect_error([&] { file.attribute<double>("", "title"); }, {"title", "not a number"});
  expect_error([&] { file.attribute<std::string>("", "missing"); },
               {"missing", path.string()});
  expect_error([&] { file.attribute<double>("fields/v", "units"); },
               {"fields/v", path.string()});
  expect_error([&] { file.set_attribute("", "x", 1.0); }, {"Mode::read"});
}

TEST(Hdf5File, MissingDatasetIsAClearError) {
  const fs::path path = out_dir("missing") / "fields.h5";
  {
    io::H5File file(path.string(), io::Mode::create, world());
    file.write("fields/temperature", rows_block(row_offset_of(rank()), rows_of(rank())));
  }  // the destructor commits too
  ASSERT_TRUE(fs::exists(path));
  io::H5File file(path.string(), io::Mode::read, world());
  // Names the file, the dataset, and what the file does hold.
  expect_error([&] { file.read("fields/pressure"); },
               {path.string(), "fields/pressure", "fields/temperature"});
  expect_error([&] { file.read_all("nothing/here/at/all"); }, {"nothing/here/at/all"});
  expect_error([&] { file.shape("fields"); }, {"group"});
  expect_error([&] { file.read("fields/temperature", 0, total_rows() + 1); }, {"rows"});

  try {
    io::H5File none((path.parent_path() / "absent.h5").string(), io::Mode::read, world());
    ADD_FAILURE() << "opening a missing file succeeded";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(e.message().find("absent.h5"), std::string::npos) << e.message();
  }
  // A file that is not HDF5: the error carries HDF5's own diagnosis.
  if (rank() == 0) std::ofstream(path.parent_path() / "text.h5") << "not HDF5\n";
  MPI_Barrier(world());
  expect_error([&] { io::H5File(path.parent_path().string() + "/text.h5", io::Mode::read, world()); },
               {"text.h5", "HDF5"});
}

TEST(Hdf5File, RanksMustAgreeOnTrailingAxes) {
  const fs::path path = out_dir("shapes") / "shapes.h5";
  io::H5File file(path.string(), io::Mode::create, world());
  // A scalar has no rows to distribute.
  expect_error([&] { file.write("s", Tensor::scalar(1.0)); }, {"write_replicated"});
  if (size() > 1) {
    const index_t width = rank() == 1 ? 4 : 3;
    // Every rank throws the same error (rank 1's), none hangs.
    expect_error([&] { file.write("bad", Tensor::zeros({2, width})); },
                 {"rank 1", "{2, 4}", "same shape"});
  }
  // The file is still usable and commits.
  file.write("good", rows_block(row_offset_of(rank()), rows_of(rank())));
  expect_error([&] { file.write("good", Tensor::zeros({1, n_columns})); }, {"already exists"});
  file.close();
  io::H5File in(path.string(), io::Mode::read, world());
  EXPECT_FALSE(in.has_dataset("bad"));
  expect_rows(in.read_all("good"), 0, total_rows());
}

TEST(Hdf5File, AnExceptionLeavesThePreviousFileIntact) {
  const fs::path path = out_dir("atomic") / "restart.h5";
  {
    io::H5File file(path.string(), io::Mode::create, world());
    file.set_attribute("", "version", 1);
    file.write("state", rows_block(row_offset_of(rank()), rows_of(rank())));
  }
  try {
    io::H5File file(path.string(), io::Mode::create, world());
    file.set_attribute("", "version", 2);
    file.write("state", Tensor::zeros({rows_of(rank()), n_columns}));
    throw std::runtime_error("simulated failure during a checkpoint");
  } catch (const std::runtime_error&) {
  }
  io::H5File file(path.string(), io::Mode::read, world());
  EXPECT_EQ(file.attribute<std::int64_t>("", "version"), 1);
  expect_rows(file.read_all("state"), 0, total_rows());
}

// ---- VTK --------------------------------------------------------------------

namespace {

constexpr int nx = 4;  // cells across
constexpr double dx = 0.5;
constexpr double dy = 0.25;

double temperature(double x, double y) { return 300.0 + 2.0 * x + 3.0 * y; }
double displacement_x(double x) { return 0.01 * x; }
double displacement_y(double y) { return 0.02 * y; }

// Cell rows [row0, row0 + rows) of an nx-wide strip of quads; each piece has
// its own copy of the points on its edges, as a partitioned mesh does.
io::UnstructuredPiece strip(index_t row0, index_t rows) {
  io::UnstructuredPiece piece;
  io::Field t{"Temperature [K]", 1, {}};
  io::Field d{"Displacement [m]", 3, {}};
  if (rows == 0) {
    piece.cell_data.push_back(t);
    piece.point_data.push_back(d);
    return piece;
  }
  for (index_t j = row0; j <= row0 + rows; ++j)
    for (int i = 0; i <= nx; ++i) {
      const double x = i * dx, y = static_cast<double>(j) * dy;
      piece.points_xyz.insert(piece.points_xyz.end(), {x, y, 0.0});
      d.values.insert(d.values.end(), {displacement_x(x), displacement_y(y), 0.0});
    }
  for (index_t j = 0; j < rows; ++j)
    for (int i = 0; i < nx; ++i) {
      const std::int64_t p = j * (nx + 1) + i;
      piece.connectivity.insert(piece.connectivity.end(), {p, p + 1, p + nx + 2, p + nx + 1});
      piece.offsets.push_back(static_cast<std::int64_t>(piece.connectivity.size()));
      piece.cell_types.push_back(io::vtk_cell::quad);
      t.values.push_back(temperature((i + 0.5) * dx, (static_cast<double>(row0 + j) + 0.5) * dy));
    }
  piece.cell_data.push_back(t);
  piece.point_data.push_back(d);
  return piece;
}

index_t expected_points() {
  index_t n = 0;
  for (int r = 0; r < size(); ++r)
    if (rows_of(r) > 0) n += (nx + 1) * (rows_of(r) + 1);
  return n;
}

// Checks a grid read back by VTK against the functions it was made from.
void check_grid(vtkUnstructuredGrid* grid, index_t n_cells, index_t n_points) {
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->GetNumberOfCells(), n_cells);
  EXPECT_EQ(grid->GetNumberOfPoints(), n_points);
  vtkDataArray* t = grid->GetCellData()->GetArray("Temperature [K]");
  vtkDataArray* d = grid->GetPointData()->GetArray("Displacement [m]");
  ASSERT_NE(t, nullptr);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(t->GetNumberOfComponents(), 1);
  EXPECT_EQ(d->GetNumberOfComponents(), 3);
  vtkNew<vtkIdList> ids;
  for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
    EXPECT_EQ(grid->GetCellType(c), io::vtk_cell::quad);
    grid->GetCellPoints(c, ids);
    ASSERT_EQ(ids->GetNumberOfIds(), 4);
    double center[2] = {0.0, 0.0};
    for (vtkIdType k = 0; k < 4; ++k) {
      double p[3];
      grid->GetPoint(ids->GetId(k), p);
      center[0] += p[0] / 4;
      center[1] += p[1] / 4;
    }
    // Centers averaged from 4 corners: within round-off of the exact value.
    EXPECT_NEAR(t->GetTuple1(c), temperature(center[0], center[1]), 1e-12) << "cell " << c;
  }
  for (vtkIdType p = 0; p < grid->GetNumberOfPoints(); ++p) {
    double x[3];
    grid->GetPoint(p, x);
    EXPECT_EQ(d->GetComponent(p, 0), displacement_x(x[0]));
    EXPECT_EQ(d->GetComponent(p, 1), displacement_y(x[1]));
    EXPECT_EQ(d->GetComponent(p, 2), 0.0);
  }
}

}  // namespace

TEST(VtkWriter, SerialVtuReadsBack) {
  const fs::path dir = out_dir("vtu");
  // Every rank writes its own file: write_vtu involves no communication.
  const fs::path path = dir / ("strip_" + std::to_string(rank()) + ".vtu");
  const io::UnstructuredPiece piece = strip(2, 3);
  EXPECT_EQ(io::write_vtu(path.string(), piece), path.string());
  EXPECT_FALSE(fs::exists(path.string() + ".tmp"));
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  check_grid(reader->GetOutput(), 3 * nx, 4 * (nx + 1));
}

TEST(VtkWriter, InvalidPiecesAreRejected) {
  io::UnstructuredPiece piece = strip(0, 1);
  piece.offsets.back() = 3;  // a quad with three nodes
  expect_error([&] { io::validate(piece); }, {"offsets"});
  piece = strip(0, 1);
  piece.connectivity[0] = 99;
  expect_error([&] { io::validate(piece); }, {"connectivity[0] = 99"});
  piece = strip(0, 1);
  piece.cell_data[0].values.pop_back();
  expect_error([&] { io::validate(piece); }, {"Temperature [K]", "values"});
}

TEST(VtkWriter, ParallelPvtuAndPvdSeriesReadBack) {
  const fs::path dir = out_dir("pvtu");
  const io::UnstructuredPiece piece = strip(row_offset_of(rank()), rows_of(rank()));
  io::PvdSeries series((dir / "flow.pvd").string(), world());
  for (int step = 0; step < 2; ++step) {
    const std::string name = io::series_file_name("flow", step);
    const std::string written = io::write_pvtu((dir / name).string(), piece, world());
    EXPECT_EQ(written, (dir / (name + ".pvtu")).string());
    series.add(0.5 * step, name + ".pvtu");
  }
  // Idempotent name handling: ".pvtu" given explicitly.
  io::write_pvtu((dir / "flow_0001.pvtu").string(), piece, world());

  const fs::path pvtu = dir / "flow_0001.pvtu";
  ASSERT_TRUE(fs::exists(pvtu));
  // Pieces sit in a folder named after the base; empty pieces are not written.
  EXPECT_EQ(fs::exists(dir / "flow_0001" / ("flow_0001_" + std::to_string(rank()) + ".vtu")),
            rows_of(rank()) > 0);
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();

  vtkNew<vtkXMLPUnstructuredGridReader> reader;
  reader->SetFileName(pvtu.c_str());
  reader->Update();
  check_grid(reader->GetOutput(), nx * total_rows(), expected_points());

  // The .pvd lists both steps, in order, with their times.
  const std::string pvd = read_text(dir / "flow.pvd");
  const std::regex dataset(R"re(<DataSet timestep="([^"]*)" group="" part="0" file="([^"]*)"/>)re");
  std::vector<std::pair<std::string, std::string>> found;
  for (auto it = std::sregex_iterator(pvd.begin(), pvd.end(), dataset);
       it != std::sregex_iterator(); ++it)
    found.emplace_back((*it)[1].str(), (*it)[2].str());
  ASSERT_EQ(found.size(), 2u) << pvd;
  EXPECT_EQ(found[0], std::make_pair(std::string("0"), std::string("flow_0000.pvtu")));
  EXPECT_EQ(found[1], std::make_pair(std::string("0.5"), std::string("flow_0001.pvtu")));
  EXPECT_NE(pvd.find("type=\"Collection\""), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "flow.pvd.tmp"));

  // Re-adding a time replaces its entry (after every rank has looked at the
  // folder: rank 0 writes flow.pvd.tmp again).
  MPI_Barrier(world());
  series.add(0.5, "flow_0001.pvtu");
  EXPECT_EQ(series.entries().size(), 2u);
}

TEST(VtkWriter, RanksMustAgreeOnFields) {
  if (size() == 1) GTEST_SKIP() << "needs two ranks";
  const fs::path dir = out_dir("fields");
  io::UnstructuredPiece piece = strip(row_offset_of(rank()), rows_of(rank()));
  if (rank() == 1) piece.cell_data[0].name = "Temperature [C]";
  expect_error([&] { io::write_pvtu((dir / "bad").string(), piece, world()); },
               {"rank 1", "Temperature [C]", "same path and fields"});
  EXPECT_FALSE(fs::exists(dir / "bad.pvtu"));
}

TEST(VtkSession, InstallsAGlobalControllerOverTheWorld) {
  io::VtkSession session;
  if (session.owns_controller()) {
    EXPECT_EQ(session.rank(), rank());
    EXPECT_EQ(session.size(), size());
  }
}

// ParaView itself opens the series. Runs only when CAMBER_PARAVIEW_READ
// names the paraview-read tool (the `paraview` ctest sets it).
TEST(ParaView, OpensThePvdSeries) {
  const char* tool = std::getenv("CAMBER_PARAVIEW_READ");
  if (tool == nullptr || !fs::exists(tool)) GTEST_SKIP() << "CAMBER_PARAVIEW_READ not set";
  const fs::path dir = out_dir("paraview");
  const io::UnstructuredPiece piece = strip(row_offset_of(rank()), rows_of(rank()));
  io::PvdSeries series((dir / "flow.pvd").string(), world());
  for (int step = 0; step < 2; ++step) {
    const std::string name = io::series_file_name("flow", step);
    io::write_pvtu((dir / name).string(), piece, world());
    series.add(1.0 * step, name + ".pvtu");
  }
  long long cells = -1;
  double range[2] = {0.0, 0.0};
  std::string output;
  if (rank() == 0) {
    // A clean environment: pvbatch must not see this job's MPI variables.
    const char* home = std::getenv("HOME");
    const char* path = std::getenv("PATH");
    const std::string command = std::string("env -i HOME='") + (home ? home : "/root") +
                                "' PATH='" + (path ? path : "/usr/bin:/bin") + "' '" + tool +
                                "' '" + fs::absolute(dir / "flow.pvd").string() + "' 2>&1";
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char buffer[4096];
      while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
      pclose(pipe);
    }
    std::smatch m;
    if (std::regex_search(output, m, std::regex(R"("cells":\s*(\d+))")))
      cells = std::stoll(m[1].str());
    const std::regex temperature_range(
        R"re("Temperature \[K\]":\s*\{"components":\s*1,\s*"range":\s*\[([^,\]]+),\s*([^\]]+)\])re");
    if (std::regex_search(output, m, temperature_range)) {
      range[0] = std::stod(m[1].str());
      range[1] = std::stod(m[2].str());
    }
    EXPECT_NE(output.find("\"timesteps\": [0.0, 1.0]"), std::string::npos) << output;
    EXPECT_NE(output.find("\"Displacement [m]\": {\"components\": 3"), std::string::npos)
        << output;
  }
  MPI_Bcast(&cells, 1, MPI_LONG_LONG, 0, world());
  MPI_Bcast(range, 2, MPI_DOUBLE, 0, world());
  EXPECT_EQ(cells, nx * total_rows()) << output;
  // The field's range as ParaView sees it: the coolest and hottest cells.
  EXPECT_NEAR(range[0], temperature(0.5 * dx, 0.5 * dy), 1e-9) << output;
  EXPECT_NEAR(range[1],
              temperature((nx - 0.5) * dx, (static_cast<double>(total_rows()) - 0.5) * dy), 1e-9)
      << output;
}
