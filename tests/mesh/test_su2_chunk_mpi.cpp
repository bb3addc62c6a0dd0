// mesh::read_su2_chunk at 1, 2 and 4 ranks: the chunks of every rank,
// gathered, are the serial reader's mesh (read_mesh_data on the same file):
// the same coordinates, cells and marker elements to the last bit, in the
// file's numbering, with node and cell ranges contiguous in rank order.
//
// Files: the hand-written mixed_2x1.su2, variants of it written here (CRLF
// line ends, comments and blank lines inside sections, sections in another
// order, a comment line longer than a rank's share of the bytes), a
// generated 20 x 20 grid, and the SU2 meshes of the shared data folder. Bad
// files are bad_input on every rank at the line where the serial reader
// fails, worked out by hand from the files' layout below.
//
// The parallel writer (mesh::write_su2 of a DistributedMesh): the shared
// meshes read in parallel, written by every rank at once and read back by
// one are the files they came from (nodes and cells as sets, markers); the
// quality report from the ranks' parts is the serial one.
#include <gtest/gtest.h>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/mesh_chunk.hpp>
#include <camber/mesh/quality.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/mesh/su2_reader.hpp>
#include <camber/mesh/su2_writer.hpp>
#include "mesh_test_utils.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/shared_data.hpp"

namespace mesh = camber::mesh;
using camber::test::rank;
using camber::test::size;
using camber::test::world;
using camber_test_mesh::data_path;
using camber_test_mesh::lines_of;
using camber_test_mesh::join;
using camber_test_mesh::read_text;
using camber_test_mesh::replace_line;
using camber_test_mesh::truncate_lines;

namespace {

// ---------------------------------------------------------------------------
// Gathering the chunks.

std::vector<std::int64_t> allgather(std::int64_t mine) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(size()));
  MPI_Allgather(&mine, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, world());
  return all;
}

// Every rank's `mine`, concatenated in rank order, on every rank.
template <class T>
std::vector<T> allgatherv(const std::vector<T>& mine, MPI_Datatype type) {
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size())), at(counts.size(), 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, world());
  for (std::size_t r = 1; r < counts.size(); ++r) at[r] = at[r - 1] + counts[r - 1];
  std::vector<T> all(static_cast<std::size_t>(at.back() + counts.back()));
  MPI_Allgatherv(mine.data(), n, type, all.data(), counts.data(), at.data(), type, world());
  return all;
}

std::vector<std::int64_t> allgatherv(const std::vector<std::int64_t>& mine) {
  return allgatherv(mine, MPI_INT64_T);
}

template <class From>
std::vector<std::int64_t> as_int64(const std::vector<From>& v) {
  std::vector<std::int64_t> out;
  for (const From& x : v) out.push_back(static_cast<std::int64_t>(x));
  return out;
}

// Number of nodes of each element of a CSR offsets array.
template <class Index>
std::vector<std::int64_t> sizes_of(const std::vector<Index>& offsets) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    out.push_back(static_cast<std::int64_t>(offsets[i + 1] - offsets[i]));
  return out;
}

// Equal vectors, or the first difference (the vectors are too long to print).
template <class T>
::testing::AssertionResult same(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "sizes differ: " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i]))
      return ::testing::AssertionFailure()
             << "entry " << i << " differs: " << got[i] << " vs " << want[i];
  return ::testing::AssertionSuccess();
}

// A marker element as the test compares it: its line and its nodes.
using Element = std::pair<std::int64_t, std::vector<std::int64_t>>;

// The chunks of `path`, gathered, against read_mesh_data(path).
void expect_same_as_serial(const std::string& path) {
  const mesh::MeshData d = mesh::read_mesh_data(path);
  const mesh::MeshChunk c = mesh::read_su2_chunk(path, world());

  EXPECT_EQ(c.dim, d.dim);
  EXPECT_EQ(c.source, path);
  EXPECT_EQ(c.n_global_nodes, d.n_nodes());
  EXPECT_EQ(c.n_global_cells, d.n_cells());

  // The ranges: contiguous, in rank order, covering the mesh.
  const auto node_counts = allgather(c.n_nodes()), node_begins = allgather(c.node_begin);
  const auto cell_counts = allgather(c.n_cells()), cell_begins = allgather(c.cell_begin);
  std::int64_t nodes = 0, cells = 0;
  for (int r = 0; r < size(); ++r) {
    EXPECT_EQ(node_begins[r], nodes) << "rank " << r;
    EXPECT_EQ(cell_begins[r], cells) << "rank " << r;
    if (d.n_nodes() >= size()) {
      EXPECT_GT(node_counts[r], 0) << "rank " << r << " has no node";
    }
    if (d.n_cells() >= size()) {
      EXPECT_GT(cell_counts[r], 0) << "rank " << r << " has no cell";
    }
    nodes += node_counts[r];
    cells += cell_counts[r];
  }
  EXPECT_EQ(nodes, d.n_nodes());
  EXPECT_EQ(cells, d.n_cells());

  // This rank's arrays are consistent.
  ASSERT_EQ(c.coords.size(), static_cast<std::size_t>(c.n_nodes() * c.dim));
  ASSERT_EQ(c.cell_offsets.size(), c.cell_types.size() + 1);
  EXPECT_EQ(c.cell_offsets.front(), 0);
  EXPECT_EQ(c.cell_offsets.back(), static_cast<camber::index_t>(c.cell_nodes.size()));
  ASSERT_EQ(c.cell_lines.size(), c.cell_types.size());
  ASSERT_EQ(c.face_offsets.size(), c.face_marker.size() + 1);
  EXPECT_EQ(c.face_offsets.front(), 0);
  EXPECT_EQ(c.face_offsets.back(), static_cast<camber::index_t>(c.face_nodes.size()));
  ASSERT_EQ(c.face_lines.size(), c.face_marker.size());

  // Nodes and cells, exactly.
  EXPECT_TRUE(same(allgatherv(c.coords, MPI_DOUBLE), d.coords)) << "coordinates";
  std::vector<std::int64_t> types, want_types;
  for (mesh::CellType t : c.cell_types) types.push_back(static_cast<int>(t));
  for (mesh::CellType t : d.cell_types) want_types.push_back(static_cast<int>(t));
  EXPECT_TRUE(same(allgatherv(types), want_types)) << "cell types";
  EXPECT_TRUE(same(allgatherv(sizes_of(c.cell_offsets)), sizes_of(d.cell_offsets)))
      << "nodes per cell";
  EXPECT_TRUE(same(allgatherv(c.cell_nodes), as_int64(d.cell_nodes))) << "cell nodes";
  EXPECT_TRUE(same(allgatherv(as_int64(c.cell_lines)), as_int64(d.cell_lines))) << "cell lines";

  // Markers: names in order; elements as the same multiset of (line, nodes).
  std::vector<std::string> names;
  for (const auto& m : d.markers) names.push_back(m.name);
  EXPECT_EQ(c.marker_names, names);
  const auto marker = allgatherv(as_int64(c.face_marker));
  const auto face_sizes = allgatherv(sizes_of(c.face_offsets));
  const auto face_nodes = allgatherv(c.face_nodes);
  const auto face_lines = allgatherv(as_int64(c.face_lines));
  ASSERT_EQ(marker.size(), face_sizes.size());
  ASSERT_EQ(marker.size(), face_lines.size());
  std::vector<std::vector<Element>> got(names.size()), want(names.size());
  std::size_t at = 0;
  for (std::size_t f = 0; f < marker.size(); ++f) {
    ASSERT_GE(marker[f], 0);
    ASSERT_LT(marker[f], static_cast<std::int64_t>(names.size()));
    ASSERT_LE(at + face_sizes[f], face_nodes.size());
    got[marker[f]].emplace_back(face_lines[f],
                                std::vector<std::int64_t>(face_nodes.begin() + at,
                                                          face_nodes.begin() + at + face_sizes[f]));
    at += face_sizes[f];
  }
  EXPECT_EQ(at, face_nodes.size());
  for (std::size_t m = 0; m < d.markers.size(); ++m) {
    const auto& mk = d.markers[m];
    for (camber::index_t e = 0; e < mk.n_elements(); ++e)
      want[m].emplace_back(mk.lines[e],
                           std::vector<std::int64_t>(mk.nodes.begin() + mk.offsets[e],
                                                     mk.nodes.begin() + mk.offsets[e + 1]));
    std::sort(got[m].begin(), got[m].end());
    std::sort(want[m].begin(), want[m].end());
    EXPECT_TRUE(got[m] == want[m]) << "elements of marker '" << names[m] << "': " << got[m].size()
                                   << " read, " << want[m].size() << " expected";
  }
}

// ---------------------------------------------------------------------------
// Files written by the test.

// A folder for this rank count's files (collective).
const std::filesystem::path& scratch() {
  static const std::filesystem::path dir =
      camber::test::scratch_dir(::testing::TempDir() + "camber_su2_chunk", "files");
  return dir;
}

// Rank 0 writes `text` to `name` in the scratch folder; collective.
std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = (scratch() / name).string();
  if (rank() == 0) {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  MPI_Barrier(world());
  return path;
}

// An nx x ny grid of quadrilaterals (node (i, j) has id j (nx + 1) + i and
// coordinates (0.5 i, 0.25 j), exact in binary) with one marker 'wall' of
// the nx edges at j = 0. With `cells_last` the sections are NDIME, NPOIN,
// NMARK, NELEM, so that the element lines end the file; otherwise NDIME,
// NELEM, NPOIN, NMARK. Layout, with N = nx ny cells and M = (nx+1)(ny+1):
//
//   cells first:  1 NDIME, 2 NELEM, 3..N+2 cells, N+3 NPOIN, N+4..N+M+3
//                 points, N+M+4 NMARK, N+M+5 MARKER_TAG, N+M+6
//                 MARKER_ELEMS, N+M+7..N+M+nx+6 edges
//   cells last:   1 NDIME, 2 NPOIN, 3..M+2 points, M+3 NMARK, M+4
//                 MARKER_TAG, M+5 MARKER_ELEMS, M+6..M+nx+5 edges,
//                 M+nx+6 NELEM, M+nx+7..M+nx+N+6 cells
std::string grid_su2(int nx, int ny, bool cells_last) {
  auto id = [&](int i, int j) { return std::to_string(j * (nx + 1) + i); };
  std::string cells = "NELEM= " + std::to_string(nx * ny) + "\n";
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      cells += "9\t" + id(i, j) + "\t" + id(i + 1, j) + "\t" + id(i + 1, j + 1) + "\t" +
               id(i, j + 1) + "\t" + std::to_string(j * nx + i) + "\n";
  std::string points = "NPOIN= " + std::to_string((nx + 1) * (ny + 1)) + "\n";
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i)
      points += std::to_string(0.5 * i) + "\t" + std::to_string(0.25 * j) + "\t" + id(i, j) + "\n";
  std::string markers = "NMARK= 1\nMARKER_TAG= wall\nMARKER_ELEMS= " + std::to_string(nx) + "\n";
  for (int i = 0; i < nx; ++i) markers += "3\t" + id(i, 0) + "\t" + id(i + 1, 0) + "\n";
  return "NDIME= 2\n" + (cells_last ? points + markers + cells : cells + points + markers);
}

// mixed_2x1.su2 (tests/mesh/data) written differently: CRLF line ends, a
// comment line longer than a 4-rank share of the file, comments and blank
// lines inside sections, markers first and elements last, optional indices
// left out, NPOIN with its domain count, no newline at the end.
std::string mixed_2x1_variant() {
  return "%" + std::string(400, '-') + "\r\n" +
         "NDIME= 2\r\n"
         "NMARK= 4   % markers first\r\n"
         "MARKER_TAG= lower\r\n"
         "MARKER_ELEMS= 2\r\n"
         "3 0 1\r\n"
         "\r\n"
         "% a comment between two elements\r\n"
         "3 1 2\r\n"
         "MARKER_TAG= right\r\n"
         "MARKER_ELEMS= 1\r\n"
         "3\t2\t5\r\n"
         "MARKER_TAG= upper\r\n"
         "MARKER_ELEMS= 2\r\n"
         "3 5 4\r\n"
         "   3 4 3   \r\n"
         "MARKER_TAG= left\r\n"
         "MARKER_ELEMS= 1\r\n"
         "3 3 0\r\n"
         "NPOIN= 6 6\r\n"
         "0.0 0.0\r\n"
         "1.0 0.0 1\r\n"
         "2.0 0.0\r\n"
         "\t\r\n"
         "0.0 1.0 3\r\n"
         "% between two points\r\n"
         "1.0 1.0\r\n"
         "2.0 1.0\r\n"
         "NELEM= 3\r\n"
         "9 0 1 4 3 0\r\n"
         "5 1 2 5   % no element index\r\n"
         "\r\n"
         "5 1 4 5 2";
}

// ---------------------------------------------------------------------------
// Errors.

// The message of the camber::Error(bad_input) that `read` throws on this
// rank; a failure if it throws something else or nothing.
::testing::AssertionResult bad_input(const std::function<void()>& read, std::string& message) {
  try {
    read();
  } catch (const camber::Error& e) {
    message = e.message();
    if (e.kind() != camber::ErrorKind::bad_input)
      return ::testing::AssertionFailure() << "error of kind failure: " << e.message();
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "not a camber::Error: " << e.what();
  }
  return ::testing::AssertionFailure() << "no error on rank " << rank();
}

::testing::AssertionResult contains_all(const std::string& message,
                                        const std::vector<std::string>& parts) {
  for (const std::string& p : parts)
    if (message.find(p) == std::string::npos)
      return ::testing::AssertionFailure() << "message lacks \"" << p << "\": " << message;
  return ::testing::AssertionSuccess();
}

// read_su2_chunk(path) fails on every rank with a message holding `parts`;
// with `as_serial`, the very message of the serial reader.
void expect_chunk_error(const std::string& path, const std::vector<std::string>& parts,
                        bool as_serial) {
  std::string message;
  ASSERT_TRUE(bad_input([&] { (void)mesh::read_su2_chunk(path, world()); }, message));
  EXPECT_TRUE(contains_all(message, parts));
  if (!as_serial) return;
  std::string serial;
  ASSERT_TRUE(bad_input([&] { (void)mesh::read_mesh_data(path); }, serial));
  EXPECT_EQ(message, serial);
}

// The byte offset where line `line` (1-based) of `text` starts.
std::size_t offset_of_line(const std::string& text, int line) {
  std::size_t at = 0;
  for (int l = 1; l < line; ++l) at = text.find('\n', at) + 1;
  return at;
}

constexpr int nx = 20, ny = 20;
constexpr int n_cells = nx * ny;                  // N = 400
constexpr int n_points = (nx + 1) * (ny + 1);     // M = 441
constexpr int last_nelem = n_points + nx + 6;     // NELEM line, cells last: 467
constexpr int last_line = n_points + nx + n_cells + 6;  // 867, the last cell

}  // namespace

// ---------------------------------------------------------------------------
// Good files: the chunks are the serial reader's mesh.

TEST(Su2ChunkMpi, HandWrittenMixedMesh) {
  expect_same_as_serial(data_path("mixed_2x1.su2"));
  // By hand (tests/mesh/test_mesh_readers.cpp): 6 nodes, 3 cells, 4 markers.
  const mesh::MeshChunk c = mesh::read_su2_chunk(data_path("mixed_2x1.su2"), world());
  EXPECT_EQ(c.n_global_nodes, 6);
  EXPECT_EQ(c.n_global_cells, 3);
  EXPECT_EQ(c.marker_names, (std::vector<std::string>{"lower", "right", "upper", "left"}));
}

TEST(Su2ChunkMpi, CommentsBlankLinesCrlfAndSectionOrder) {
  const std::string path = write_file("mixed_variant.su2", mixed_2x1_variant());
  expect_same_as_serial(path);
  // The elements are those of mixed_2x1.su2, at lines 30, 31 and 33.
  const mesh::MeshChunk c = mesh::read_su2_chunk(path, world());
  EXPECT_TRUE(same(allgatherv(as_int64(c.cell_lines)), std::vector<std::int64_t>{30, 31, 33}));
  EXPECT_TRUE(same(allgatherv(c.cell_nodes),
                   std::vector<std::int64_t>{0, 1, 4, 3, 1, 2, 5, 1, 4, 5}));
}

TEST(Su2ChunkMpi, GeneratedGridEitherOrder) {
  expect_same_as_serial(write_file("grid_cells_first.su2", grid_su2(nx, ny, false)));
  expect_same_as_serial(write_file("grid_cells_last.su2", grid_su2(nx, ny, true)));
  // Fewer cells than ranks at 4: a 1 x 1 and a 3 x 1 grid.
  expect_same_as_serial(write_file("grid_1x1.su2", grid_su2(1, 1, true)));
  expect_same_as_serial(write_file("grid_3x1.su2", grid_su2(3, 1, false)));
}

class Su2ChunkSharedMesh : public ::testing::TestWithParam<const char*> {};

TEST_P(Su2ChunkSharedMesh, SameAsSerialReader) {
  const std::string path = camber::test::shared_mesh(GetParam());
  CAMBER_NEED_SHARED_FILE(path);
  expect_same_as_serial(path);
}

INSTANTIATE_TEST_SUITE_P(Meshes, Su2ChunkSharedMesh,
                         ::testing::Values("naca0012_inviscid_su2_quickstart.su2",
                                           "wedge_inviscid_su2_testcases.su2",
                                           "brick_hex_ffd_su2_testcases.su2",
                                           "brick_prism_ffd_su2_testcases.su2",
                                           "brick_tets_ffd_su2_testcases.su2",
                                           "brick_pyra_ffd_su2_testcases.su2"));

// The sorted rows of a flat array of `width` columns: a mesh's node
// coordinates (or cell centroids) as a set, whatever the numbering.
std::vector<std::vector<double>> sorted_rows(const std::vector<double>& flat, int width) {
  std::vector<std::vector<double>> rows;
  for (std::size_t i = 0; i + static_cast<std::size_t>(width) <= flat.size(); i += static_cast<std::size_t>(width))
    rows.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(i),
                      flat.begin() + static_cast<std::ptrdiff_t>(i) + width);
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Node coordinates and cell vertex centroids of a whole mesh, as sets.
std::pair<std::vector<std::vector<double>>, std::vector<std::vector<double>>> points_and_centroids(
    const mesh::Mesh& m) {
  const int dim = m.dim();
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_offsets());
  const auto nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_nodes());
  std::vector<double> p, c;
  for (camber::index_t n = 0; n < m.n_nodes(); ++n)
    for (int d = 0; d < dim; ++d) p.push_back(x(n, d));
  for (camber::index_t e = 0; e < m.n_cells(); ++e) {
    // The mean is summed in sorted order, so that it rounds alike whatever
    // the cell's node numbering.
    for (int d = 0; d < dim; ++d) {
      std::vector<double> v;
      for (camber::index_t k = off(e); k < off(e + 1); ++k) v.push_back(x(nodes(k), d));
      std::sort(v.begin(), v.end());
      double sum = 0.0;
      for (double a : v) sum += a;
      c.push_back(sum / static_cast<double>(v.size()));
    }
    c.push_back(static_cast<double>(off(e + 1) - off(e)));
  }
  return {sorted_rows(p, dim), sorted_rows(c, dim + 1)};
}

// A distributed mesh written by all its ranks (MPI-IO) and read back by one
// is the file it was read from: the same nodes, cells (by their vertex
// centroids and node counts) and markers, renumbered.
class WriteSu2SharedMesh : public ::testing::TestWithParam<const char*> {};

TEST_P(WriteSu2SharedMesh, WrittenByAllRanksIsTheMeshRead) {
  const std::string path = camber::test::shared_mesh(GetParam());
  CAMBER_NEED_SHARED_FILE(path);
  const mesh::DistributedMesh dm = mesh::DistributedMesh::read(path, world());
  const std::string out = (scratch() / (std::string("written_") + GetParam())).string();
  mesh::write_su2(dm, out);
  MPI_Barrier(world());
  if (rank() != 0) return;
  const mesh::Mesh want = mesh::read_su2(path), got = mesh::read_su2(out);
  ASSERT_EQ(got.dim(), want.dim());
  ASSERT_EQ(got.n_nodes(), want.n_nodes());
  ASSERT_EQ(got.n_cells(), want.n_cells());
  const auto [pw, cw] = points_and_centroids(want);
  const auto [pg, cg] = points_and_centroids(got);
  EXPECT_TRUE(pg == pw) << "node coordinates (17 digits round-trip exactly)";
  EXPECT_TRUE(cg == cw) << "cells";
  ASSERT_EQ(got.markers().size(), want.markers().size());
  for (std::size_t k = 0; k < want.markers().size(); ++k) {
    EXPECT_EQ(got.markers()[k].name, want.markers()[k].name);
    EXPECT_EQ(got.markers()[k].n_faces(), want.markers()[k].n_faces()) << want.markers()[k].name;
  }
}

// `camber mesh-info`'s report from the ranks' parts is the whole mesh's:
// every count exact (each face on one rank), the measures to round-off.
TEST_P(WriteSu2SharedMesh, QualityFromTheRanksPartsIsTheWholeMeshs) {
  const std::string path = camber::test::shared_mesh(GetParam());
  CAMBER_NEED_SHARED_FILE(path);
  const mesh::MeshQuality got = mesh::quality(mesh::DistributedMesh::read(path, world()));
  const mesh::MeshQuality want = mesh::quality(mesh::read_su2(path));
  EXPECT_EQ(got.n_nodes, want.n_nodes);
  EXPECT_EQ(got.n_cells, want.n_cells);
  EXPECT_EQ(got.n_faces, want.n_faces);
  EXPECT_EQ(got.n_interior_faces, want.n_interior_faces);
  EXPECT_EQ(got.n_boundary_faces, want.n_boundary_faces);
  EXPECT_EQ(got.n_unmarked_boundary_faces, want.n_unmarked_boundary_faces);
  EXPECT_EQ(got.cells_by_type, want.cells_by_type);
  EXPECT_EQ(got.marker_faces, want.marker_faces);
  EXPECT_EQ(got.n_nonpositive_volumes, want.n_nonpositive_volumes);
  EXPECT_EQ(got.n_reoriented_cells, want.n_reoriented_cells);
  EXPECT_DOUBLE_EQ(got.min_volume, want.min_volume);
  EXPECT_DOUBLE_EQ(got.max_volume, want.max_volume);
  // Sums of n cells in another order: within n eps of each other (the bound
  // of recursive summation).
  EXPECT_NEAR(got.total_volume, want.total_volume,
              static_cast<double>(want.n_cells) * 2.2e-16 * std::abs(want.total_volume));
  EXPECT_DOUBLE_EQ(got.max_aspect_ratio, want.max_aspect_ratio);
  EXPECT_DOUBLE_EQ(got.max_skewness, want.max_skewness);
  EXPECT_DOUBLE_EQ(got.min_dihedral_angle, want.min_dihedral_angle);
  EXPECT_DOUBLE_EQ(got.max_dihedral_angle, want.max_dihedral_angle);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(got.bounding_box[0][k], want.bounding_box[0][k]);
    EXPECT_EQ(got.bounding_box[1][k], want.bounding_box[1][k]);
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, WriteSu2SharedMesh,
                         ::testing::Values("naca0012_inviscid_su2_quickstart.su2",
                                           "brick_hex_ffd_su2_testcases.su2",
                                           "brick_prism_ffd_su2_testcases.su2",
                                           "brick_tets_ffd_su2_testcases.su2",
                                           "brick_pyra_ffd_su2_testcases.su2"));

// The QuickStart mesh's own header lines: NELEM= 10216, NPOIN= 5233, NMARK= 2.
TEST(Su2ChunkMpi, Naca0012Counts) {
  const std::string path = camber::test::shared_mesh("naca0012_inviscid_su2_quickstart.su2");
  CAMBER_NEED_SHARED_FILE(path);
  const mesh::MeshChunk c = mesh::read_su2_chunk(path, world());
  EXPECT_EQ(c.dim, 2);
  EXPECT_EQ(c.n_global_cells, 10216);
  EXPECT_EQ(c.n_global_nodes, 5233);
  EXPECT_EQ(c.marker_names, (std::vector<std::string>{"airfoil", "farfield"}));
}

// ---------------------------------------------------------------------------
// Bad files: one bad_input on every rank, at the right line.

TEST(Su2ChunkMpiErrors, NodeIndexOutOfRangeOnTheLastRank) {
  const std::string text = replace_line(grid_su2(nx, ny, true), last_line, "9\t0\t1\t22\t441");
  // The line is in the last rank's byte range.
  ASSERT_GE(offset_of_line(text, last_line), text.size() / size() * (size() - 1));
  expect_chunk_error(write_file("range.su2", text),
                     {"range.su2:867:", "expected node indices in [0, 441) (NPOIN= 441)",
                      "found 441"},
                     true);
}

TEST(Su2ChunkMpiErrors, BadNumber) {
  // Point 200 is line 3 + 200 with the points first.
  const std::string text = replace_line(grid_su2(nx, ny, true), 203, "1.0\t0.5x\t200");
  expect_chunk_error(write_file("number.su2", text),
                     {"number.su2:203:", "expected a coordinate", "'0.5x'"}, true);
  const std::string nan = replace_line(grid_su2(nx, ny, true), 203, "1.0\tnan\t200");
  expect_chunk_error(write_file("nan.su2", nan), {"nan.su2:203:", "finite number", "'nan'"}, true);
  const std::string type = replace_line(grid_su2(nx, ny, true), 700, "x\t0\t1\t22\t21");
  expect_chunk_error(write_file("type_id.su2", type),
                     {"type_id.su2:700:", "expected an element type id", "'x'"}, true);
}

TEST(Su2ChunkMpiErrors, CellOfTheWrongDimension) {
  const std::string line = replace_line(grid_su2(nx, ny, true), 700, "3\t5\t6");
  expect_chunk_error(write_file("line_cell.su2", line),
                     {"line_cell.su2:700:",
                      "expected element type 5 (triangle) or 9 (quadrilateral) in a 2-D mesh",
                      "found '3'"},
                     true);
  const std::string tet = replace_line(grid_su2(nx, ny, true), 700, "10\t5\t6\t27\t26");
  expect_chunk_error(write_file("tet_cell.su2", tet), {"tet_cell.su2:700:", "found '10'"}, true);
  // A triangle as a marker element of a 2-D mesh (line M + 6 = 447).
  const std::string face = replace_line(grid_su2(nx, ny, true), 447, "5\t0\t1\t22");
  expect_chunk_error(write_file("tri_face.su2", face),
                     {"tri_face.su2:447:", "expected element type 3 (line)", "found '5'"}, true);
  // A quadrilateral with three nodes.
  const std::string short_quad = replace_line(grid_su2(nx, ny, true), 700, "9\t5\t6\t27");
  expect_chunk_error(write_file("short.su2", short_quad),
                     {"short.su2:700:", "expected a quad", "found 4 fields"}, true);
}

TEST(Su2ChunkMpiErrors, TruncatedElementSection) {
  // Cut after 100 of the 400 cells: the count cannot fit.
  const std::string text = truncate_lines(grid_su2(nx, ny, true), last_nelem + 100);
  expect_chunk_error(write_file("truncated.su2", text),
                     {"truncated.su2:467:", "NELEM= 400 but only 100 lines follow"}, true);
  // Cells first, one more announced than given: the error is at NPOIN= (line N + 3).
  const std::string more = replace_line(grid_su2(nx, ny, false), 2, "NELEM= 401");
  expect_chunk_error(write_file("count.su2", more),
                     {"count.su2:403:", "expected element 400 of NELEM= 401 (line 2)",
                      "found 'NPOIN= 441'"},
                     false);
  std::string serial;
  const std::string count_path = (scratch() / "count.su2").string();
  ASSERT_TRUE(bad_input([&] { (void)mesh::read_mesh_data(count_path); }, serial));
  EXPECT_TRUE(contains_all(serial, {"count.su2:403:"}));
  // One less announced than given: line N + 2 is not a section header.
  const std::string fewer = replace_line(grid_su2(nx, ny, false), 2, "NELEM= 399");
  expect_chunk_error(write_file("fewer.su2", fewer),
                     {"fewer.su2:402:", "expected NDIME=, NELEM=, NPOIN=", "found '9\t418\t419"},
                     true);
  // The last marker cut short at the end of the file (line N + M + 6).
  const std::string marker =
      truncate_lines(grid_su2(nx, ny, false), n_cells + n_points + 6 + nx - 1);
  expect_chunk_error(write_file("marker.su2", marker),
                     {"marker.su2:847:", "MARKER_ELEMS= 20 but only 19 lines follow"}, true);
}

TEST(Su2ChunkMpiErrors, FirstErrorOfTheFileWins) {
  // A bad number at line 5 (rank 0) and a bad node index at the last line.
  std::string text = replace_line(grid_su2(nx, ny, true), last_line, "9\t0\t1\t22\t441");
  text = replace_line(text, 5, "1.0\tzero\t2");
  expect_chunk_error(write_file("two.su2", text), {"two.su2:5:", "'zero'"}, true);
}

TEST(Su2ChunkMpiErrors, MissingFile) {
  const std::string path = (scratch() / "no_such_mesh.su2").string();
  std::string message;
  ASSERT_TRUE(bad_input([&] { (void)mesh::read_su2_chunk(path, world()); }, message));
  EXPECT_TRUE(contains_all(message, {"cannot open mesh file", "no_such_mesh.su2"}));
}

TEST(Su2ChunkMpiErrors, FilesSmallerThanTheRanks) {
  expect_chunk_error(write_file("empty.su2", ""),
                     {"empty.su2:0:", "expected NDIME= 2 or 3, found end of file"}, true);
  expect_chunk_error(write_file("one_line.su2", "NDIME= 2\n"),
                     {"one_line.su2:1:", "expected an NELEM= section, found end of file"}, true);
  expect_chunk_error(write_file("two_bytes.su2", "%\n"), {"two_bytes.su2:1:", "NDIME= 2 or 3"},
                     true);
}

TEST(Su2ChunkMpiErrors, MultiZoneAndMissingSections) {
  const std::string base = read_text(data_path("mixed_2x1.su2"));
  expect_chunk_error(write_file("zone.su2", replace_line(base, 2, "NZONE= 2")),
                     {"zone.su2:2:", "multi-zone SU2 files are not supported"}, true);
  // Without the NMARK line (14) the marker headers stand outside a section.
  auto lines = lines_of(base);
  lines.erase(lines.begin() + 13);
  expect_chunk_error(write_file("no_nmark.su2", join(lines)),
                     {"no_nmark.su2:14:", "MARKER_TAG= outside an NMARK= section"}, true);
  // Only the elements and points: no NMARK= section (the file has 13 lines).
  expect_chunk_error(write_file("no_markers.su2", truncate_lines(base, 13)),
                     {"no_markers.su2:13:", "expected an NMARK= section, found end of file"}, true);
  // NDIME missing before NELEM (line 2 made a comment).
  expect_chunk_error(write_file("no_ndime.su2", replace_line(base, 2, "% no NDIME")),
                     {"no_ndime.su2:3:", "expected NDIME= before NELEM="}, true);
}

TEST(Su2ChunkMpiErrors, PeriodicBoundaryRefused) {
  // mixed_2x1.su2 has 28 lines: NPERIODIC at 29, PERIODIC_INDEX at 30, its
  // rows at 31 to 33; the identity is accepted, a translation is not.
  const std::string base = read_text(data_path("mixed_2x1.su2"));
  const std::string identity = base + "NPERIODIC= 1\nPERIODIC_INDEX= 0\n0 0\n0 0\n0.0 0.0\n";
  expect_same_as_serial(write_file("identity.su2", identity));
  const std::string shifted = base + "NPERIODIC= 1\nPERIODIC_INDEX= 0\n0 0\n0 0\n0.0 1.0\n";
  expect_chunk_error(write_file("periodic.su2", shifted),
                     {"periodic.su2:33:", "periodic boundaries are not supported"}, true);
}
