// read_cgns_chunk at 1, 2 and 4 ranks: every rank's chunk of a CGNS file,
// gathered, against the serial reader (read_mesh_data) on the same file:
// SU2's 2-D wedge and 3-D cylinder (shared data), a 2-D strip whose MIXED
// sections mix cells and boundary edges across the ranks' cuts, and a 3-D
// block of a hexahedron, a pyramid and a prism (CGNS's PENTA_6 node order)
// with faces among its cells. Bad files give one bad_input error on every
// rank, with the serial reader's message: among them sizes declared beyond
// the file, boundary conditions naming no node or element, and a
// coordinate that is not finite in the last rank's share. The small files are written here
// with libcgns (ADF) by rank 0.
#include <gtest/gtest.h>

#include <cgns_io.h>
#include <cgnslib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/mesh_chunk.hpp>
#include <camber/mesh/read_mesh.hpp>
#include "tests/mesh/cgns_writer.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/shared_data.hpp"

#ifndef CGNS_ENUMV
#define CGNS_ENUMV(e) e
#define CGNS_ENUMT(e) e
#endif

namespace {

using namespace camber::mesh;
using camber::index_t;
using camber::test::rank;
using camber::test::size;
using camber::test::world;
using NodeList = std::vector<std::int64_t>;

// A file name of its own per rank count: the 1-, 2- and 4-rank runs may
// run at once.
std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "camber_cgns_chunk_np" + std::to_string(size()) + "_" + name;
}

using camber_test_mesh::Section;

// Rank 0 writes the file (tests/mesh/cgns_writer.hpp); every rank returns
// its path once it is written (collective).
std::string write_cgns(const std::string& name, int cell_dim, const std::vector<double>& x,
                       const std::vector<double>& y, const std::vector<double>& z,
                       const std::vector<Section>& sections, cgsize_t n_cells) {
  const std::string path = temp_path(name);
  if (rank() == 0) camber_test_mesh::write_cgns_file(path, cell_dim, x, y, z, sections, n_cells);
  MPI_Barrier(world());
  return path;
}

// A 2-D strip of six unit columns, x in [0, 6], y in [0, 1]: bottom nodes
// b(i) = i + 1 at (i, 0), top nodes t(i) = 8 + i at (i, 1), 1-based. Even
// columns are one quadrilateral, odd ones two triangles: nine cells.
//   strip  MIXED   Q0 bottom0 T1 T1 bottom1 Q2 bottom2 T3 T3 bottom3  (elements 1-10)
//   tail   MIXED   bottom4 Q4 bottom5                                 (11-13)
//   tris   TRI_3   T5 T5                                              (14-15)
//   top    BAR_2   top0 .. top5                                       (16-21)
//   sides  MIXED   left right                                         (22-23)
// Cells 0-5 in strip, 6 in tail, 7-8 in tris; the markers strip, tail, top
// and sides (tris holds no edge).
struct Strip {
  static cgsize_t b(int i) { return i + 1; }
  static cgsize_t t(int i) { return 8 + i; }
  std::vector<double> x, y, z;
  std::vector<cgsize_t> quad(int i) const { return {b(i), b(i + 1), t(i + 1), t(i)}; }
  std::vector<cgsize_t> tri_a(int i) const { return {b(i), b(i + 1), t(i + 1)}; }
  std::vector<cgsize_t> tri_b(int i) const { return {b(i), t(i + 1), t(i)}; }
  std::vector<cgsize_t> bottom(int i) const { return {b(i), b(i + 1)}; }
  std::vector<cgsize_t> top(int i) const { return {t(i + 1), t(i)}; }

  Section strip{"strip", CGNS_ENUMV(MIXED), {}, 10};
  Section tail{"tail", CGNS_ENUMV(MIXED), {}, 3};
  Section tris{"tris", CGNS_ENUMV(TRI_3), {}, 2};
  Section top_edges{"top", CGNS_ENUMV(BAR_2), {}, 6};
  Section sides{"sides", CGNS_ENUMV(MIXED), {}, 2};

  Strip() {
    for (int i = 0; i <= 6; ++i) x.push_back(i), y.push_back(0.0);
    for (int i = 0; i <= 6; ++i) x.push_back(i), y.push_back(1.0);
    z.assign(x.size(), 0.0);
    auto add = [](Section& s, CGNS_ENUMT(ElementType_t) type, const std::vector<cgsize_t>& nodes) {
      if (s.type == CGNS_ENUMV(MIXED)) s.conn.push_back(type);
      s.conn.insert(s.conn.end(), nodes.begin(), nodes.end());
    };
    const auto Q = CGNS_ENUMV(QUAD_4), T = CGNS_ENUMV(TRI_3), B = CGNS_ENUMV(BAR_2);
    add(strip, Q, quad(0)), add(strip, B, bottom(0));
    add(strip, T, tri_a(1)), add(strip, T, tri_b(1)), add(strip, B, bottom(1));
    add(strip, Q, quad(2)), add(strip, B, bottom(2));
    add(strip, T, tri_a(3)), add(strip, T, tri_b(3)), add(strip, B, bottom(3));
    add(tail, B, bottom(4)), add(tail, Q, quad(4)), add(tail, B, bottom(5));
    add(tris, T, tri_a(5)), add(tris, T, tri_b(5));
    for (int i = 0; i < 6; ++i) add(top_edges, B, top(i));
    add(sides, B, {t(0), b(0)}), add(sides, B, {b(6), t(6)});
  }
  std::vector<Section> sections() const { return {strip, tail, tris, top_edges, sides}; }
};

// The unit cube (hexahedron), a pyramid of height 1/2 on its top and a
// prism beside it over the triangle (1,0)-(2,0)-(1,1), in CGNS's node order
// (the prism's first triangle counter-clockwise seen from its second).
// Nodes 1-8 the cube, 9 the apex, 10 = (2,0,0), 11 = (2,0,1). The three
// cells share one MIXED section "block" with four of the twelve boundary
// faces; the other eight are the MIXED section "skin".
struct Block {
  std::vector<double> x{0, 1, 1, 0, 0, 1, 1, 0, 0.5, 2, 2};
  std::vector<double> y{0, 0, 1, 1, 0, 0, 1, 1, 0.5, 0, 0};
  std::vector<double> z{0, 0, 0, 0, 1, 1, 1, 1, 1.5, 0, 1};
  Section block{"block",
                CGNS_ENUMV(MIXED),
                {CGNS_ENUMV(QUAD_4), 1, 4, 3, 2,  CGNS_ENUMV(HEXA_8), 1, 2, 3, 4, 5, 6, 7, 8,
                 CGNS_ENUMV(QUAD_4), 1, 2, 6, 5,  CGNS_ENUMV(PYRA_5), 5, 6, 7, 8, 9,
                 CGNS_ENUMV(TRI_3), 5, 6, 9,      CGNS_ENUMV(PENTA_6), 2, 10, 3, 6, 11, 7,
                 CGNS_ENUMV(QUAD_4), 4, 8, 7, 3},
                7};
  Section skin{"skin",
               CGNS_ENUMV(MIXED),
               {CGNS_ENUMV(QUAD_4), 1, 5, 8, 4,   CGNS_ENUMV(TRI_3), 6, 7, 9,
                CGNS_ENUMV(TRI_3), 7, 8, 9,       CGNS_ENUMV(TRI_3), 8, 5, 9,
                CGNS_ENUMV(TRI_3), 2, 3, 10,      CGNS_ENUMV(TRI_3), 6, 11, 7,
                CGNS_ENUMV(QUAD_4), 2, 10, 11, 6, CGNS_ENUMV(QUAD_4), 10, 3, 7, 11},
               8};
};

// Every rank's vector, concatenated in rank order, on every rank.
template <class T>
std::vector<T> all_gather(const std::vector<T>& mine) {
  const int bytes = static_cast<int>(mine.size() * sizeof(T));
  std::vector<int> counts(static_cast<std::size_t>(size())), displs(counts.size(), 0);
  MPI_Allgather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, world());
  for (std::size_t q = 1; q < counts.size(); ++q) displs[q] = displs[q - 1] + counts[q - 1];
  std::vector<T> all(static_cast<std::size_t>(displs.back() + counts.back()) / sizeof(T));
  MPI_Allgatherv(mine.data(), bytes, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE,
                 world());
  return all;
}

// Element sizes from CSR offsets.
std::vector<index_t> sizes_of(const std::vector<index_t>& offsets) {
  std::vector<index_t> n;
  for (std::size_t i = 1; i < offsets.size(); ++i) n.push_back(offsets[i] - offsets[i - 1]);
  return n;
}

// Per marker name, its elements' node lists, sorted (a multiset).
using MarkerElements = std::map<std::string, std::vector<NodeList>>;

MarkerElements serial_markers(const MeshData& d) {
  MarkerElements m;
  for (const auto& mk : d.markers) {
    auto& list = m[mk.name];
    for (index_t e = 0; e < mk.n_elements(); ++e)
      list.emplace_back(mk.nodes.begin() + mk.offsets[e], mk.nodes.begin() + mk.offsets[e + 1]);
    std::sort(list.begin(), list.end());
  }
  return m;
}

// Reads the chunks of `path` on every rank, gathers them and compares the
// whole with the serial reader's mesh on this rank. Collective.
void expect_chunks_make_the_serial_mesh(const std::string& path) {
  const MeshChunk c = read_cgns_chunk(path, world());
  const MeshData d = read_mesh_data(path);
  const int p = size(), r = rank();

  EXPECT_EQ(c.dim, d.dim);
  EXPECT_EQ(c.source, path);
  EXPECT_EQ(c.n_global_nodes, d.n_nodes());
  EXPECT_EQ(c.n_global_cells, d.n_cells());
  EXPECT_EQ(c.coords.size(), static_cast<std::size_t>(c.n_nodes()) * c.dim);
  EXPECT_EQ(c.cell_offsets.size(), c.cell_types.size() + 1);
  EXPECT_EQ(c.face_offsets.size(), c.face_marker.size() + 1);
  EXPECT_TRUE(c.cell_lines.empty());

  // Node and cell ranges: contiguous in rank order, covering the mesh,
  // near equal.
  const std::vector<std::int64_t> ranges = all_gather(std::vector<std::int64_t>{
      c.node_begin, c.n_nodes(), c.cell_begin, c.n_cells()});
  std::int64_t node = 0, cell = 0;
  for (int q = 0; q < p; ++q) {
    const std::int64_t* g = &ranges[static_cast<std::size_t>(4 * q)];
    EXPECT_EQ(g[0], node) << "rank " << q;
    EXPECT_EQ(g[2], cell) << "rank " << q;
    EXPECT_LE(std::abs(g[1] * p - d.n_nodes()), p) << "rank " << q << " holds " << g[1] << " nodes";
    EXPECT_LE(std::abs(g[3] * p - d.n_cells()), p) << "rank " << q << " holds " << g[3] << " cells";
    node += g[1];
    cell += g[3];
  }
  EXPECT_EQ(node, d.n_nodes());
  EXPECT_EQ(cell, d.n_cells());

  // Coordinates and cells, exactly.
  EXPECT_EQ(all_gather(c.coords), d.coords);
  std::vector<int> types;
  for (CellType t : c.cell_types) types.push_back(static_cast<int>(t));
  std::vector<int> serial_types;
  for (CellType t : d.cell_types) serial_types.push_back(static_cast<int>(t));
  EXPECT_EQ(all_gather(types), serial_types);
  EXPECT_EQ(all_gather(sizes_of(c.cell_offsets)), sizes_of(d.cell_offsets));
  const std::vector<std::int64_t> cell_nodes = all_gather(c.cell_nodes);
  EXPECT_TRUE(std::equal(cell_nodes.begin(), cell_nodes.end(), d.cell_nodes.begin(),
                         d.cell_nodes.end()))
      << "the gathered cells' nodes differ from the serial reader's";

  // Markers: the same names in the same order on every rank, each with
  // the same elements.
  std::vector<std::string> names;
  for (const auto& mk : d.markers) names.push_back(mk.name);
  EXPECT_EQ(c.marker_names, names) << "rank " << r;
  for (int m : c.face_marker) {
    EXPECT_GE(m, 0);
    EXPECT_LT(m, static_cast<int>(names.size()));
  }
  const std::vector<int> face_marker = all_gather(c.face_marker);
  const std::vector<index_t> face_sizes = all_gather(sizes_of(c.face_offsets));
  const std::vector<std::int64_t> face_nodes = all_gather(c.face_nodes);
  ASSERT_EQ(face_marker.size(), face_sizes.size());
  MarkerElements gathered;
  for (const std::string& name : names) gathered[name];
  std::size_t at = 0;
  for (std::size_t f = 0; f < face_marker.size(); ++f) {
    const auto n = static_cast<std::size_t>(face_sizes[f]);
    ASSERT_LE(at + n, face_nodes.size());
    const int m = face_marker[f];
    if (m >= 0 && m < static_cast<int>(names.size()))
      gathered[names[static_cast<std::size_t>(m)]].emplace_back(face_nodes.begin() + at,
                                                                 face_nodes.begin() + at + n);
    at += n;
  }
  EXPECT_EQ(at, face_nodes.size());
  for (auto& [name, list] : gathered) std::sort(list.begin(), list.end());
  EXPECT_EQ(gathered, serial_markers(d));
}

// Marker name -> number of its elements over all ranks. Collective.
std::map<std::string, std::int64_t> elements_per_marker(const MeshChunk& c) {
  int n = static_cast<int>(c.marker_names.size()), n_max = 0;
  MPI_Allreduce(&n, &n_max, 1, MPI_INT, MPI_MAX, world());
  std::vector<std::int64_t> mine(static_cast<std::size_t>(n_max), 0), total(mine.size(), 0);
  for (int m : c.face_marker)
    if (m >= 0 && m < n_max) ++mine[static_cast<std::size_t>(m)];
  MPI_Allreduce(mine.data(), total.data(), n_max, MPI_INT64_T, MPI_SUM, world());
  std::map<std::string, std::int64_t> counts;
  for (int m = 0; m < n; ++m)
    counts[c.marker_names[static_cast<std::size_t>(m)]] = total[static_cast<std::size_t>(m)];
  return counts;
}

// The message of the camber::Error(bad_input) that `fn` throws; a failed
// expectation (and "") otherwise.
std::string bad_input_message(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
    return e.message();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a camber::Error: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected a bad_input error";
  return "";
}

// On every rank, read_cgns_chunk fails with bad_input, with the serial
// reader's message, which names the file and holds every one of `parts`.
void expect_refused_like_the_serial_reader(const std::string& path,
                                           const std::vector<std::string>& parts) {
  const std::string parallel = bad_input_message([&] { (void)read_cgns_chunk(path, world()); });
  const std::string serial = bad_input_message([&] { (void)read_mesh_data(path); });
  EXPECT_EQ(parallel, serial) << "rank " << rank();
  EXPECT_NE(parallel.find(path), std::string::npos) << parallel;
  for (const std::string& part : parts)
    EXPECT_NE(parallel.find(part), std::string::npos) << parallel;
}

TEST(CgnsChunk, WedgeIn2DGathersToTheSerialMesh) {
  const std::string path = camber::test::shared_mesh("wedge_inviscid_su2_testcases.cgns");
  CAMBER_NEED_SHARED_FILE(path);
  expect_chunks_make_the_serial_mesh(path);
  // What SU2's wedge holds: 3626 quadrilaterals, the four boundaries in
  // the file's order.
  const MeshChunk c = read_cgns_chunk(path, world());
  EXPECT_EQ(c.dim, 2);
  EXPECT_EQ(c.n_global_cells, 3626);
  EXPECT_EQ(c.marker_names, (std::vector<std::string>{"inlet", "lower", "outlet", "upper"}));
  for (CellType t : c.cell_types) EXPECT_EQ(t, CellType::quad);
}

TEST(CgnsChunk, CylinderIn3DGathersToTheSerialMesh) {
  const std::string path = camber::test::shared_mesh("cylinder3d_su2_testcases.cgns");
  CAMBER_NEED_SHARED_FILE(path);
  expect_chunks_make_the_serial_mesh(path);
  // SU2's cylinder: tetrahedra, six boundaries of triangles.
  const MeshChunk c = read_cgns_chunk(path, world());
  EXPECT_EQ(c.n_global_nodes, 5696);
  EXPECT_EQ(c.n_global_cells, 27591);
  const std::map<std::string, std::int64_t> expected{
      {"OUT", 128},           {"WALL", 512},         {"IN", 128},
      {"CYLINDER_DOWN", 1040}, {"CYLINDER_UP", 1040}, {"SIDE", 1260}};
  EXPECT_EQ(elements_per_marker(c), expected);
}

TEST(CgnsChunk, MixedSectionsOfCellsAndEdgesIn2D) {
  const Strip s;
  const std::string path = write_cgns("strip.cgns", 2, s.x, s.y, s.z, s.sections(), 9);
  expect_chunks_make_the_serial_mesh(path);
  // Hand-known: nine cells Q T T Q T T Q T T, 14 nodes; the markers in
  // section order with 4, 2, 6 and 2 edges.
  const MeshChunk c = read_cgns_chunk(path, world());
  EXPECT_EQ(c.n_global_nodes, 14);
  EXPECT_EQ(c.n_global_cells, 9);
  const CellType q = CellType::quad, t = CellType::triangle;
  const std::vector<CellType> types{q, t, t, q, t, t, q, t, t};
  for (index_t i = 0; i < c.n_cells(); ++i)
    EXPECT_EQ(c.cell_types[static_cast<std::size_t>(i)],
              types[static_cast<std::size_t>(c.cell_begin + i)])
        << "cell " << c.cell_begin + i;
  // Cell 6 is the quadrilateral of column 4, in section "tail".
  if (c.cell_begin <= 6 && 6 < c.cell_begin + c.n_cells()) {
    const index_t k = 6 - c.cell_begin;
    const std::vector<std::int64_t> nodes(c.cell_nodes.begin() + c.cell_offsets[k],
                                          c.cell_nodes.begin() + c.cell_offsets[k + 1]);
    EXPECT_EQ(nodes, (std::vector<std::int64_t>{4, 5, 12, 11}));
  }
  EXPECT_EQ(c.marker_names, (std::vector<std::string>{"strip", "tail", "top", "sides"}));
  EXPECT_EQ(elements_per_marker(c),
            (std::map<std::string, std::int64_t>{
                {"strip", 4}, {"tail", 2}, {"top", 6}, {"sides", 2}}));
}

// Makes the file at `path` one that CGNS before 3.4 could have written:
// the MIXED sections `sections` lose their ElementStartOffset (libcgns then
// computes the offsets on reading) and the file says version 3.2; with
// `old_version` false it still says 3.4 (libcgns then leaves the offsets
// unset: the type codes alone tell where each element starts).
::testing::AssertionResult drop_element_offsets(const std::string& path,
                                                const std::vector<std::string>& sections,
                                                bool old_version = true) {
  int cgio = 0;
  double root = 0;
  if (cgio_open_file(path.c_str(), CGIO_MODE_MODIFY, CGIO_FILE_NONE, &cgio) != CGIO_ERR_NONE ||
      cgio_get_root_id(cgio, &root) != CGIO_ERR_NONE)
    return ::testing::AssertionFailure() << "cannot open " << path << " with cgns_io";
  bool ok = true;
  for (const std::string& section : sections) {
    double parent = 0, node = 0;
    const std::string where = "/Base/blk/" + section;
    ok = ok && cgio_get_node_id(cgio, root, where.c_str(), &parent) == CGIO_ERR_NONE &&
         cgio_get_node_id(cgio, parent, "ElementStartOffset", &node) == CGIO_ERR_NONE &&
         cgio_delete_node(cgio, parent, node) == CGIO_ERR_NONE;
  }
  double version = 0;
  const float v32 = 3.2f;
  ok = ok && (!old_version ||
               (cgio_get_node_id(cgio, root, "CGNSLibraryVersion", &version) == CGIO_ERR_NONE &&
                cgio_write_all_data(cgio, version, &v32) == CGIO_ERR_NONE));
  cgio_close_file(cgio);
  if (!ok) return ::testing::AssertionFailure() << "cannot rewrite " << path << " as CGNS 3.2";
  return ::testing::AssertionSuccess();
}

TEST(CgnsChunk, MixedSectionsOfAPre34File) {
  const Strip s;
  const std::string path = write_cgns("old.cgns", 2, s.x, s.y, s.z, s.sections(), 9);
  if (rank() == 0) {
    EXPECT_TRUE(drop_element_offsets(path, {"strip", "tail", "sides"}));
  }
  MPI_Barrier(world());
  expect_chunks_make_the_serial_mesh(path);
  const MeshChunk c = read_cgns_chunk(path, world());
  EXPECT_EQ(c.n_global_cells, 9);
  EXPECT_EQ(c.marker_names, (std::vector<std::string>{"strip", "tail", "top", "sides"}));
}

// A 3.4 file whose MIXED sections have no ElementStartOffset: the serial
// reader walks the type codes and reads it; the chunk reader must read the
// same mesh (it refused it, "the MIXED connectivity ends before element
// 1", found by fuzz/fuzz_cgns.cpp).
TEST(CgnsChunk, MixedSectionsWithoutOffsetsInA34File) {
  const Strip s;
  const std::string path = write_cgns("no_offsets.cgns", 2, s.x, s.y, s.z, s.sections(), 9);
  if (rank() == 0) {
    EXPECT_TRUE(drop_element_offsets(path, {"strip", "tail", "sides"}, false));
  }
  MPI_Barrier(world());
  expect_chunks_make_the_serial_mesh(path);
  const MeshChunk c = read_cgns_chunk(path, world());
  EXPECT_EQ(c.n_global_cells, 9);
  EXPECT_EQ(elements_per_marker(c),
            (std::map<std::string, std::int64_t>{
                {"strip", 4}, {"tail", 2}, {"top", 6}, {"sides", 2}}));
}

// Stored MIXED offsets that disagree with the type codes: the strip's
// second element (a BAR_2, 3 entries) given 2. The serial reader walked the
// codes and read the file, the chunk reader split it by the offsets (found
// by fuzz/fuzz_cgns.cpp, the readers disagreeing); both refuse it now, with
// the same message, on every rank.
TEST(CgnsChunk, MixedOffsetsDisagreeingWithTheTypeCodesAreRefused) {
  const Strip s;
  const std::string path = write_cgns("bad_offsets.cgns", 2, s.x, s.y, s.z, s.sections(), 9);
  if (rank() == 0) {
    EXPECT_TRUE(camber_test_mesh::edit_cgns_node(
        path, {"Base", "blk", "strip", "ElementStartOffset"}, [](int cgio, double node) {
          std::vector<cgsize_t> offsets(11);  // 0, 5 (quad), 8 (bar), 12 (tri), ...
          if (cgio_read_all_data(cgio, node, offsets.data()) != CGIO_ERR_NONE || offsets[2] != 8)
            return false;
          offsets[2] = 7;
          return cgio_write_all_data(cgio, node, offsets.data()) == CGIO_ERR_NONE;
        }));
  }
  MPI_Barrier(world());
  expect_refused_like_the_serial_reader(
      path, {"section 'strip'", "element 2 2 entries, its type BAR_2 takes 3"});
}

TEST(CgnsChunk, MixedSectionOfHexPyramidAndPrismIn3D) {
  const Block b;
  const std::string path = write_cgns("block.cgns", 3, b.x, b.y, b.z, {b.block, b.skin}, 3);
  expect_chunks_make_the_serial_mesh(path);
  const MeshChunk c = read_cgns_chunk(path, world());
  EXPECT_EQ(c.n_global_cells, 3);
  EXPECT_EQ(c.marker_names, (std::vector<std::string>{"block", "skin"}));
  // Cell 2, the prism: CGNS's (2, 10, 3, 6, 11, 7) in VTK's wedge order,
  // each triangle the other way round, 0-based.
  if (c.cell_begin <= 2 && 2 < c.cell_begin + c.n_cells()) {
    const index_t k = 2 - c.cell_begin;
    EXPECT_EQ(c.cell_types[static_cast<std::size_t>(k)], CellType::prism);
    const std::vector<std::int64_t> nodes(c.cell_nodes.begin() + c.cell_offsets[k],
                                          c.cell_nodes.begin() + c.cell_offsets[k + 1]);
    EXPECT_EQ(nodes, (std::vector<std::int64_t>{1, 2, 9, 5, 6, 10}));
  }
  EXPECT_EQ(elements_per_marker(c),
            (std::map<std::string, std::int64_t>{{"block", 4}, {"skin", 8}}));
}

TEST(CgnsChunk, StructuredZoneIsRefusedOnEveryRank) {
  const std::string path = temp_path("structured.cgns");
  if (rank() == 0) {
    std::remove(path.c_str());
    int fn = 0, base = 0, zone = 0;
    EXPECT_EQ(cg_set_file_type(CG_FILE_ADF), CG_OK);
    EXPECT_EQ(cg_open(path.c_str(), CG_MODE_WRITE, &fn), CG_OK);
    EXPECT_EQ(cg_base_write(fn, "Base", 3, 3, &base), CG_OK);
    cgsize_t sizes[9] = {2, 2, 2, 1, 1, 1, 0, 0, 0};
    EXPECT_EQ(cg_zone_write(fn, base, "block", sizes, CGNS_ENUMV(Structured), &zone), CG_OK);
    EXPECT_EQ(cg_close(fn), CG_OK);
  }
  MPI_Barrier(world());
  expect_refused_like_the_serial_reader(
      path, {"zone 'block' is structured", "supported: unstructured zones", "HEXA_8"});
}

// Each node index out of range sits in the last element of its section, in
// the last rank's share: the cells' range (typed section), a typed edge
// section's share, a MIXED section's share.
TEST(CgnsChunk, NodeOutOfRangeInTheLastRanksShareIsRefusedOnEveryRank) {
  {
    Strip s;
    s.tris.conn.back() = 99;  // T5's second triangle, element 15, cell 8
    const std::string path = write_cgns("range_cells.cgns", 2, s.x, s.y, s.z, s.sections(), 9);
    expect_refused_like_the_serial_reader(
        path, {"zone 'blk', section 'tris': element 15 has node 99, outside the zone's 1..14"});
  }
  {
    Strip s;
    s.top_edges.conn.back() = 0;  // top5, element 21
    const std::string path = write_cgns("range_top.cgns", 2, s.x, s.y, s.z, s.sections(), 9);
    expect_refused_like_the_serial_reader(
        path, {"zone 'blk', section 'top': element 21 has node 0, outside the zone's 1..14"});
  }
  {
    Strip s;
    s.sides.conn.back() = 15;  // the right edge, element 23
    const std::string path = write_cgns("range_sides.cgns", 2, s.x, s.y, s.z, s.sections(), 9);
    expect_refused_like_the_serial_reader(
        path, {"zone 'blk', section 'sides': element 23 has node 15, outside the zone's 1..14"});
  }
}

TEST(CgnsChunk, OtherBadFilesAreRefusedOnEveryRankAsSerially) {
  // A 2-D zone whose last node (the last rank's) leaves the plane z = 0.
  {
    Strip s;
    s.z.back() = 0.25;
    const std::string path = write_cgns("plane.cgns", 2, s.x, s.y, s.z, s.sections(), 9);
    expect_refused_like_the_serial_reader(path, {"zone 'blk' is 2-D but node 14 has z = 0.25"});
  }
  // The declared cell count disagrees with the sections.
  {
    const Strip s;
    const std::string path = write_cgns("count.cgns", 2, s.x, s.y, s.z, s.sections(), 10);
    expect_refused_like_the_serial_reader(
        path, {"zone 'blk' declares 10 cells but its sections hold 9 2-D elements"});
  }
  // A MIXED section with a second-order element, and edges in a 3-D zone.
  {
    Block b;
    b.skin.conn[0] = CGNS_ENUMV(QUAD_8);
    b.skin.conn.insert(b.skin.conn.begin() + 5, {1, 2, 3, 4});
    const std::string path = write_cgns("quad8.cgns", 3, b.x, b.y, b.z, {b.block, b.skin}, 3);
    expect_refused_like_the_serial_reader(
        path, {"zone 'blk', section 'skin': element 8 is QUAD_8", "supported: BAR_2, TRI_3"});
  }
  {
    const Block b;
    const Section edges{"edges", CGNS_ENUMV(BAR_2), {1, 2}, 1};
    const std::string path =
        write_cgns("edges.cgns", 3, b.x, b.y, b.z, {b.block, b.skin, edges}, 3);
    expect_refused_like_the_serial_reader(
        path, {"section 'edges': element 16 is BAR_2,",
               "neither a cell nor a boundary face of a 3-D zone"});
  }
  // No file at all; not a CGNS file.
  expect_refused_like_the_serial_reader(temp_path("absent.cgns"), {"cannot open"});
  const std::string text = temp_path("text.cgns");
  if (rank() == 0) {
    if (std::FILE* f = std::fopen(text.c_str(), "w")) {
      std::fputs("NDIME= 2\n", f);
      std::fclose(f);
    } else {
      ADD_FAILURE() << "cannot write " << text;
    }
  }
  MPI_Barrier(world());
  expect_refused_like_the_serial_reader(text, {"not a CGNS file"});
}

TEST(CgnsChunk, DeclarationsBoundaryConditionsAndCoordinatesAreCheckedOnEveryRank) {
  const Block b;  // 11 nodes
  {
    const std::string path = write_cgns("huge.cgns", 3, b.x, b.y, b.z, {b.block, b.skin}, 3);
    if (rank() == 0) {
      EXPECT_TRUE(camber_test_mesh::overwrite_cgns_ints(path, {"Base", "blk"}, {2000000000, 3, 0}));
      for (const char* axis : {"CoordinateX", "CoordinateY", "CoordinateZ"})
        EXPECT_TRUE(camber_test_mesh::declare_cgns_length(
            path, {"Base", "blk", "GridCoordinates", axis}, 2000000000));
    }
    MPI_Barrier(world());
    expect_refused_like_the_serial_reader(
        path, {"zone 'blk': the node count declares 2000000000 entries, more than the file's"});
  }
  {
    const std::string path = write_cgns("bc.cgns", 3, b.x, b.y, b.z, {b.block, b.skin}, 3);
    if (rank() == 0)
      camber_test_mesh::write_cgns_bc(path, "wall", CGNS_ENUMV(PointList), CGNS_ENUMV(Vertex),
                                      {1, 62});
    MPI_Barrier(world());
    expect_refused_like_the_serial_reader(
        path, {"boundary condition 'wall': names node 62, outside the zone's 1..11"});
  }
  {
    Block nan = b;
    nan.y.back() = std::numeric_limits<double>::quiet_NaN();
    const std::string path = write_cgns("nan.cgns", 3, nan.x, nan.y, nan.z, {nan.block, nan.skin}, 3);
    expect_refused_like_the_serial_reader(path, {"zone 'blk': node 11 has CoordinateY = "});
  }
}

}  // namespace
