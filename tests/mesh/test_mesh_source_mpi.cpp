// mesh::build_mesh, build_mesh_chunk and build_distributed_mesh at 1, 2 and
// 4 ranks: a generated source is mesh::airfoil_grid of the same settings,
// node for node; a file source (a grid written here by mesh::write_su2) is
// the reader's mesh of that file; a rectangle source is a 6 x 4 grid of
// [0, 3] x [0, 2] (24 cells of area 1/4 summing to 6; markers left and
// right of 4 faces, bottom and top of 6, each side's faces summing to its
// length); the ranks' chunks split the cells into
// contiguous ranges in rank order that, gathered, are the whole mesh's
// cells; the distributed mesh owns every global cell exactly once. A bad
// source is bad_input naming the member on every rank.
#include <gtest/gtest.h>

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/airfoil_grid.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/mesh_source.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/mesh/su2_writer.hpp>
#include "tests/mpi_test_utils.hpp"

namespace mesh = camber::mesh;
using camber::test::error_from;
using camber::test::rank;
using camber::test::size;
using camber::test::world;

namespace {

// A small airfoil O-grid (32 x 8 = 256 cells: at least one per rank).
mesh::AirfoilGridSettings small_grid() {
  mesh::AirfoilGridSettings g;
  g.naca = "2412";
  g.cells_around = 32;
  g.cells_normal = 8;
  return g;
}

const std::filesystem::path& scratch() {
  static const std::filesystem::path dir =
      camber::test::scratch_dir(::testing::TempDir() + "camber_mesh_source", "files");
  return dir;
}

// Rank 0 writes `m` as SU2 to `name` in the scratch folder; collective.
std::string written_su2(const mesh::Mesh& m, const std::string& name) {
  const std::string path = (scratch() / name).string();
  if (rank() == 0) mesh::write_su2(m, path);
  MPI_Barrier(world());
  return path;
}

std::vector<std::int64_t> allgatherv(const std::vector<std::int64_t>& mine) {
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size())), at(counts.size(), 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, world());
  for (std::size_t r = 1; r < counts.size(); ++r) at[r] = at[r - 1] + counts[r - 1];
  std::vector<std::int64_t> all(static_cast<std::size_t>(at.back() + counts.back()));
  MPI_Allgatherv(mine.data(), n, MPI_INT64_T, all.data(), counts.data(), at.data(), MPI_INT64_T,
                 world());
  return all;
}

std::vector<double> host_coords(const mesh::Mesh& m) {
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  std::vector<double> out;
  for (std::size_t i = 0; i < x.extent(0); ++i)
    for (std::size_t d = 0; d < x.extent(1); ++d) out.push_back(x(i, d));
  return out;
}

std::vector<std::int64_t> host_cell_nodes(const mesh::Mesh& m) {
  const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_nodes());
  return std::vector<std::int64_t>(c.data(), c.data() + c.extent(0));
}

std::vector<std::string> marker_names(const mesh::Mesh& m) {
  std::vector<std::string> names;
  for (const mesh::Marker& mk : m.markers()) names.push_back(mk.name);
  return names;
}

// The same nodes (bit for bit), cells and markers.
void expect_same_mesh(const mesh::Mesh& got, const mesh::Mesh& want) {
  ASSERT_EQ(got.dim(), want.dim());
  ASSERT_EQ(got.n_nodes(), want.n_nodes());
  ASSERT_EQ(got.n_cells(), want.n_cells());
  EXPECT_TRUE(host_coords(got) == host_coords(want)) << "node coordinates differ";
  EXPECT_TRUE(host_cell_nodes(got) == host_cell_nodes(want)) << "cell nodes differ";
  EXPECT_EQ(marker_names(got), marker_names(want));
}

// The chunks of the ranks: contiguous cell ranges in rank order covering
// `whole`'s cells, every rank one at least, and their cell nodes, gathered,
// `whole`'s (in its numbering).
void expect_chunks_of(const mesh::MeshChunk& c, const mesh::Mesh& whole) {
  EXPECT_EQ(c.n_global_cells, whole.n_cells());
  const std::vector<std::int64_t> begins = allgatherv({c.cell_begin});
  const std::vector<std::int64_t> counts = allgatherv({static_cast<std::int64_t>(c.n_cells())});
  std::int64_t cells = 0;
  for (int r = 0; r < size(); ++r) {
    EXPECT_EQ(begins[static_cast<std::size_t>(r)], cells) << "rank " << r;
    EXPECT_GT(counts[static_cast<std::size_t>(r)], 0) << "rank " << r << " has no cell";
    cells += counts[static_cast<std::size_t>(r)];
  }
  EXPECT_EQ(cells, whole.n_cells());
  EXPECT_TRUE(allgatherv(c.cell_nodes) == host_cell_nodes(whole)) << "gathered cell nodes differ";
}

// Every global cell id 0 .. n - 1 owned by exactly one rank.
void expect_every_cell_owned_once(const mesh::DistributedMesh& dm, std::int64_t n) {
  EXPECT_EQ(dm.n_global_cells(), n);
  const std::vector<std::int64_t>& ids = dm.cell_global_ids();
  std::vector<std::int64_t> all = allgatherv(
      std::vector<std::int64_t>(ids.begin(), ids.begin() + dm.n_owned_cells()));
  std::sort(all.begin(), all.end());
  std::vector<std::int64_t> want(static_cast<std::size_t>(n));
  std::iota(want.begin(), want.end(), 0);
  EXPECT_TRUE(all == want) << all.size() << " owned cells for " << n;
}

// The bad_input message build_mesh_chunk(s) raises on this rank ("" if
// none), after checking that every rank raised bad_input.
std::string bad_input_on_every_rank(const mesh::MeshSource& s) {
  const auto e = error_from([&] { mesh::build_mesh_chunk(s, world()); });
  const int mine = e && e->kind() == camber::ErrorKind::bad_input ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, world());
  EXPECT_EQ(all, 1) << "a rank did not raise bad_input";
  return e ? e->what() : "";
}

#define EXPECT_CONTAINS(text, piece) \
  EXPECT_NE(std::string(text).find(piece), std::string::npos) << (text)

TEST(MeshSource, AGeneratedSourceIsTheAirfoilGridOfItsSettings) {
  for (mesh::AirfoilGridKind kind : {mesh::AirfoilGridKind::airfoil_ogrid,
                                     mesh::AirfoilGridKind::conformal_ogrid,
                                     mesh::AirfoilGridKind::karman_trefftz_ogrid}) {
    SCOPED_TRACE(std::string(camber::enum_name(mesh::airfoil_grid_kind_names, kind)));
    mesh::MeshSource s;
    s.grid = small_grid();
    s.grid.kind = kind;
    s.grid.cells = 16;
    const mesh::Mesh want = mesh::airfoil_grid(s.grid);
    expect_same_mesh(mesh::build_mesh(s, world()), want);
    expect_chunks_of(mesh::build_mesh_chunk(s, world()), want);
    expect_every_cell_owned_once(mesh::build_distributed_mesh(s, world()), want.n_cells());
  }
}

TEST(MeshSource, AFileSourceIsTheReadersMeshReadInChunks) {
  mesh::AirfoilGridSettings g = small_grid();
  g.cell_shape = mesh::CellShape::triangles;
  mesh::MeshSource s;
  s.kind = mesh::MeshSourceKind::file;
  s.file = written_su2(mesh::airfoil_grid(g), "grid.su2");
  const mesh::Mesh want = mesh::read_mesh(s.file);
  expect_same_mesh(mesh::build_mesh(s, world()), want);
  expect_chunks_of(mesh::build_mesh_chunk(s, world()), want);
  expect_every_cell_owned_once(mesh::build_distributed_mesh(s, world()), want.n_cells());
}

TEST(MeshSource, ARectangleSourceIsItsGridOfExactCellsAndSides) {
  mesh::MeshSource s;
  s.kind = mesh::MeshSourceKind::rectangle;
  s.rectangle = {6, 4, 3.0, 2.0};
  const mesh::Mesh m = mesh::build_mesh(s, world());
  ASSERT_EQ(m.n_cells(), 24);
  EXPECT_EQ(m.n_nodes(), 7 * 5);
  const auto g = mesh::compute_geometry(m);
  const auto volume = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_volume);
  double area = 0.0;
  for (std::size_t c = 0; c < volume.extent(0); ++c) {
    EXPECT_NEAR(volume(c), 0.25, 1e-15) << c;
    area += volume(c);
  }
  EXPECT_NEAR(area, 6.0, 1e-14);
  const auto face_area = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_area);
  for (const auto& [name, faces, length] :
       {std::tuple{"left", 4, 2.0}, std::tuple{"right", 4, 2.0}, std::tuple{"bottom", 6, 3.0},
        std::tuple{"top", 6, 3.0}}) {
    const int k = m.marker_index(name);
    ASSERT_GE(k, 0) << name;
    const mesh::Marker& mk = m.markers()[static_cast<std::size_t>(k)];
    EXPECT_EQ(mk.n_faces(), faces) << name;
    const auto f = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mk.faces);
    double sum = 0.0;
    for (std::size_t i = 0; i < f.extent(0); ++i) sum += face_area(f(i));
    EXPECT_NEAR(sum, length, 1e-14) << name;
  }
  expect_same_mesh(m, mesh::rectangle(6, 4, 3.0, 2.0));
  expect_chunks_of(mesh::build_mesh_chunk(s, world()), m);
  expect_every_cell_owned_once(mesh::build_distributed_mesh(s, world()), 24);

  s.rectangle.cells_y = 0;
  EXPECT_CONTAINS(bad_input_on_every_rank(s), "mesh source: rectangle.cells_y: 0 cells; at least 1");
  s.rectangle = {6, 4, 3.0, -2.0};
  EXPECT_CONTAINS(bad_input_on_every_rank(s), "mesh source: rectangle.length_y_m: -2 m; must be > 0");
}

TEST(MeshSource, BadSourcesAreBadInputNamingTheMemberOnEveryRank) {
  mesh::MeshSource s;
  s.kind = mesh::MeshSourceKind::file;
  EXPECT_CONTAINS(bad_input_on_every_rank(s), "mesh source: file: names no file");
  s.file = (scratch() / "no_such_mesh.su2").string();
  EXPECT_CONTAINS(bad_input_on_every_rank(s), "mesh source: file: cannot find '" + s.file + "'");
  // An existing file of no mesh format: the reader's error, naming the file.
  s.file = (scratch() / "grid.txt").string();
  if (rank() == 0) std::ofstream(s.file) << "not a mesh\n";
  MPI_Barrier(world());
  EXPECT_CONTAINS(bad_input_on_every_rank(s), "cannot tell the format of mesh file '" + s.file + "'");

  mesh::MeshSource grid;
  grid.grid.naca = "2400";
  EXPECT_CONTAINS(bad_input_on_every_rank(grid), "mesh source: grid.naca: '2400' is not a NACA");
  // A reject of the caller's is told the member.
  grid.grid = small_grid();
  grid.grid.kind = mesh::AirfoilGridKind::karman_trefftz_ogrid;
  grid.grid.cells = 17;
  std::string member;
  const auto e = error_from([&] {
    mesh::build_mesh(grid, world(), [&](const std::string& m, const std::string& what) {
      member = m;
      camber::throw_bad_input(what);
    });
  });
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(member, "grid.cells");
  EXPECT_CONTAINS(e->what(), "must be even");
}

}  // namespace
