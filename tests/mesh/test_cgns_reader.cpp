// The CGNS reader: SU2's wedge in CGNS against the same mesh in SU2's
// format, SU2's 3-D cylinder case (tetrahedra), a hand-written mixed file
// in CGNS's own node order checked against its closed-form volume, and
// files the reader must refuse with the zone, the section and what is
// supported: sizes declared far beyond the file's arrays (under a memory
// limit), boundary conditions naming no node or element, coordinates that
// are not finite. The small files are written here with libcgns (ADF).
#include <gtest/gtest.h>

#include <cgnslib.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "../shared_data.hpp"
#include "cgns_writer.hpp"
#include "mesh_test_utils.hpp"
#include <camber/mesh/cgns_reader.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/quality.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/mesh/su2_reader.hpp>

#ifndef CGNS_ENUMV
#define CGNS_ENUMV(e) e
#endif

namespace {

using namespace camber::mesh;
using camber::index_t;
using camber_test_mesh::throws_bad_input;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "camber_cgns_" + name;
}

using camber_test_mesh::Section;

std::string write_cgns(const std::string& name, int cell_dim, const std::vector<double>& x,
                       const std::vector<double>& y, const std::vector<double>& z,
                       const std::vector<Section>& sections, cgsize_t n_cells) {
  const std::string path = temp_path(name);
  camber_test_mesh::write_cgns_file(path, cell_dim, x, y, z, sections, n_cells);
  return path;
}

// A unit cube (hexahedron), a pyramid of height 1/2 on its top and a prism
// beside it over the triangle (1,0)-(2,0)-(1,1): volume 1 + 1/6 + 1/2.
// Cells in one MIXED section, in CGNS's node order (the prism's first
// triangle counter-clockwise seen from its second); the twelve boundary
// faces in a MIXED section "skin".
struct MixedBlock {
  std::vector<double> x{0, 1, 1, 0, 0, 1, 1, 0, 0.5, 2, 2};
  std::vector<double> y{0, 0, 1, 1, 0, 0, 1, 1, 0.5, 0, 0};
  std::vector<double> z{0, 0, 0, 0, 1, 1, 1, 1, 1.5, 0, 1};
  // Nodes 1-8 the cube, 9 the apex, 10 = (2,0,0), 11 = (2,0,1).
  Section cells{"cells",
                CGNS_ENUMV(MIXED),
                {CGNS_ENUMV(HEXA_8), 1, 2, 3, 4, 5, 6, 7, 8,  //
                 CGNS_ENUMV(PYRA_5), 5, 6, 7, 8, 9,           //
                 CGNS_ENUMV(PENTA_6), 2, 10, 3, 6, 11, 7},
                3};
  Section skin{"skin",
               CGNS_ENUMV(MIXED),
               {CGNS_ENUMV(QUAD_4), 1, 4, 3, 2,  CGNS_ENUMV(QUAD_4), 1, 2, 6, 5,
                CGNS_ENUMV(QUAD_4), 4, 8, 7, 3,  CGNS_ENUMV(QUAD_4), 1, 5, 8, 4,
                CGNS_ENUMV(TRI_3), 5, 6, 9,      CGNS_ENUMV(TRI_3), 6, 7, 9,
                CGNS_ENUMV(TRI_3), 7, 8, 9,      CGNS_ENUMV(TRI_3), 8, 5, 9,
                CGNS_ENUMV(TRI_3), 2, 3, 10,     CGNS_ENUMV(TRI_3), 6, 11, 7,
                CGNS_ENUMV(QUAD_4), 2, 10, 11, 6, CGNS_ENUMV(QUAD_4), 10, 3, 7, 11},
               12};
};

// Sum over the boundary of x . n / 3: the enclosed volume (divergence
// theorem), from the faces' outward normals and centres.
double boundary_volume(const Mesh& m, const Geometry& g) {
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_right());
  const auto n = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_normal);
  const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_center);
  double v = 0.0;
  for (index_t f = 0; f < m.n_faces(); ++f)
    if (right(f) < 0)
      for (int k = 0; k < m.dim(); ++k) v += c(f, k) * n(f, k) / m.dim();
  return v;
}

TEST(CgnsReader, WedgeGivesTheSameMeshAsItsSu2File) {
  const std::string cgns = camber::test::shared_mesh("wedge_inviscid_su2_testcases.cgns");
  const std::string su2 = camber::test::shared_mesh("wedge_inviscid_su2_testcases.su2");
  CAMBER_NEED_SHARED_FILE(cgns);
  CAMBER_NEED_SHARED_FILE(su2);
  const MeshData a = read_cgns_data(cgns), b = read_su2_data(su2);
  ASSERT_EQ(a.dim, 2);
  ASSERT_EQ(a.n_nodes(), b.n_nodes());
  ASSERT_EQ(a.n_cells(), 3626);
  ASSERT_EQ(a.n_cells(), b.n_cells());
  double dx = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < a.coords.size(); ++i) {
    dx = std::max(dx, std::abs(a.coords[i] - b.coords[i]));
    scale = std::max(scale, std::abs(b.coords[i]));
  }
  EXPECT_LE(dx, 1e-15 * scale) << "coordinates differ by " << dx;
  EXPECT_EQ(a.cell_types, b.cell_types);
  EXPECT_EQ(a.cell_nodes, b.cell_nodes);
  // The same markers, with the same faces (as sets of sorted node pairs).
  ASSERT_EQ(a.markers.size(), 4u);
  std::map<std::string, std::vector<std::pair<index_t, index_t>>> faces_a, faces_b;
  for (const auto* d : {&a, &b})
    for (const auto& mk : d->markers)
      for (index_t e = 0; e < mk.n_elements(); ++e) {
        const index_t p = mk.nodes[mk.offsets[e]], q = mk.nodes[mk.offsets[e] + 1];
        (d == &a ? faces_a : faces_b)[mk.name].emplace_back(std::min(p, q), std::max(p, q));
      }
  for (auto* f : {&faces_a, &faces_b})
    for (auto& [name, list] : *f) std::sort(list.begin(), list.end());
  EXPECT_EQ(faces_a, faces_b);
  for (const char* name : {"inlet", "outlet", "upper", "lower"}) EXPECT_EQ(faces_a.count(name), 1u);
  // Built: every boundary face in a marker, the area the boundary encloses.
  const Mesh m = read_mesh(cgns);
  EXPECT_EQ(m.n_reoriented_cells(), read_mesh(su2).n_reoriented_cells());
  EXPECT_EQ(quality(m).n_unmarked_boundary_faces, 0);
  const Geometry g = compute_geometry(m);
  EXPECT_NEAR(camber_test_mesh::total_volume(g), boundary_volume(m, g),
              1e-12 * boundary_volume(m, g));
}

TEST(CgnsReader, CylinderTetrahedraCloseTheirDomain) {
  const std::string path = camber::test::shared_mesh("cylinder3d_su2_testcases.cgns");
  CAMBER_NEED_SHARED_FILE(path);
  const Mesh m = read_mesh(path);
  EXPECT_EQ(m.dim(), 3);
  EXPECT_EQ(m.n_nodes(), 5696);
  EXPECT_EQ(m.n_cells(), 27591);
  EXPECT_EQ(m.n_reoriented_cells(), 0);
  const std::map<std::string, index_t> expected{{"OUT", 128},           {"WALL", 512},
                                                {"IN", 128},            {"CYLINDER_DOWN", 1040},
                                                {"CYLINDER_UP", 1040}, {"SIDE", 1260}};
  ASSERT_EQ(m.markers().size(), expected.size());
  for (const auto& mk : m.markers()) EXPECT_EQ(mk.n_faces(), expected.at(mk.name)) << mk.name;
  const MeshQuality q = quality(m);
  EXPECT_EQ(q.n_unmarked_boundary_faces, 0);
  EXPECT_EQ(q.n_nonpositive_volumes, 0);
  // Faces: four per tetrahedron, each interior one counted twice.
  EXPECT_EQ(2 * m.n_faces() - m.n_boundary_faces(), 4 * m.n_cells());
  const Geometry g = compute_geometry(m);
  const double v = boundary_volume(m, g);
  EXPECT_GT(v, 0.0);
  EXPECT_NEAR(camber_test_mesh::total_volume(g), v, 1e-12 * v);
}

TEST(CgnsReader, MixedSectionsInCgnsNodeOrder) {
  const MixedBlock b;
  const std::string path = write_cgns("mixed.cgns", 3, b.x, b.y, b.z, {b.cells, b.skin}, 3);
  const Mesh m = read_mesh(path);
  EXPECT_EQ(m.n_cells(), 3);
  // The prism was renumbered to VTK's order, not flipped as inside out.
  EXPECT_EQ(m.n_reoriented_cells(), 0);
  EXPECT_EQ(m.n_faces(), 14);
  EXPECT_EQ(m.n_boundary_faces(), 12);
  ASSERT_EQ(m.markers().size(), 1u);
  EXPECT_EQ(m.markers()[0].name, "skin");
  EXPECT_EQ(m.markers()[0].n_faces(), 12);
  const Geometry g = compute_geometry(m);
  const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_volume);
  EXPECT_NEAR(v(0), 1.0, 1e-15);
  EXPECT_NEAR(v(1), 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(v(2), 0.5, 1e-15);
  EXPECT_NEAR(boundary_volume(m, g), 5.0 / 3.0, 1e-15);
  // The cells in typed sections; the faces in two MIXED sections, two
  // markers: the cube's and the pyramid's, and the prism's.
  const Section hex{"hex", CGNS_ENUMV(HEXA_8), {1, 2, 3, 4, 5, 6, 7, 8}, 1};
  const Section pyra{"pyra", CGNS_ENUMV(PYRA_5), {5, 6, 7, 8, 9}, 1};
  const Section penta{"penta", CGNS_ENUMV(PENTA_6), {2, 10, 3, 6, 11, 7}, 1};
  const std::ptrdiff_t split = 4 * 5 + 4 * 4;  // four quads, four triangles
  const Section cube{"cube", CGNS_ENUMV(MIXED), {b.skin.conn.begin(), b.skin.conn.begin() + split}, 8};
  const Section prism{"prism", CGNS_ENUMV(MIXED), {b.skin.conn.begin() + split, b.skin.conn.end()}, 4};
  const Mesh typed =
      read_mesh(write_cgns("typed.cgns", 3, b.x, b.y, b.z, {hex, pyra, penta, cube, prism}, 3));
  ASSERT_EQ(typed.markers().size(), 2u);
  EXPECT_EQ(typed.markers()[typed.marker_index("cube")].n_faces(), 8);
  EXPECT_EQ(typed.markers()[typed.marker_index("prism")].n_faces(), 4);
  EXPECT_EQ(typed.n_reoriented_cells(), 0);
  EXPECT_NEAR(boundary_volume(typed, compute_geometry(typed)), 5.0 / 3.0, 1e-15);
}

TEST(CgnsReader, InsideOutCellsAreTurnedAndCounted) {
  MixedBlock b;
  // The hexahedron with its bottom and top read the other way round.
  b.cells.conn = {CGNS_ENUMV(HEXA_8), 1, 4, 3, 2, 5, 8, 7, 6, CGNS_ENUMV(PYRA_5), 5, 6, 7, 8, 9,
                  CGNS_ENUMV(PENTA_6), 2, 10, 3, 6, 11, 7};
  const Mesh m = read_mesh(write_cgns("inverted.cgns", 3, b.x, b.y, b.z, {b.cells, b.skin}, 3));
  EXPECT_EQ(m.n_reoriented_cells(), 1);
  EXPECT_NEAR(camber_test_mesh::total_volume(compute_geometry(m)), 5.0 / 3.0, 1e-15);
  EXPECT_TRUE(throws_bad_input(
      [&] { (void)Mesh::from_cells(read_cgns_data(temp_path("inverted.cgns")), Orientation::require); },
      {"inverted.cgns", "hexahedron cell 0", "inside out"}));
}

TEST(CgnsReader, RefusesWhatItDoesNotSupport) {
  const MixedBlock b;
  // A structured zone.
  {
    const std::string path = temp_path("structured.cgns");
    std::remove(path.c_str());
    int fn = 0, base = 0, zone = 0;
    ASSERT_EQ(cg_set_file_type(CG_FILE_ADF), CG_OK);
    ASSERT_EQ(cg_open(path.c_str(), CG_MODE_WRITE, &fn), CG_OK);
    ASSERT_EQ(cg_base_write(fn, "Base", 3, 3, &base), CG_OK);
    cgsize_t sizes[9] = {2, 2, 2, 1, 1, 1, 0, 0, 0};
    ASSERT_EQ(cg_zone_write(fn, base, "block", sizes, CGNS_ENUMV(Structured), &zone), CG_OK);
    ASSERT_EQ(cg_close(fn), CG_OK);
    EXPECT_TRUE(throws_bad_input([&] { (void)read_cgns(path); },
                                 {"structured.cgns", "zone 'block' is structured",
                                  "supported: unstructured zones", "HEXA_8"}));
  }
  // Second-order triangles in a 2-D zone.
  {
    const std::vector<double> x{0, 1, 0, 0.5, 0.5, 0}, y{0, 0, 1, 0, 0.5, 0.5}, z(6, 0.0);
    const Section tri6{"tris", CGNS_ENUMV(TRI_6), {1, 2, 3, 4, 5, 6}, 1};
    EXPECT_TRUE(throws_bad_input(
        [&] { (void)read_cgns(write_cgns("tri6.cgns", 2, x, y, z, {tri6}, 1)); },
        {"tri6.cgns: zone 'blk', section 'tris' holds TRI_6 elements", "supported: BAR_2, TRI_3"}));
  }
  // Polyhedra.
  {
    const Section ngon{"faces", CGNS_ENUMV(NGON_n), {3, 1, 2, 3}, 1};
    EXPECT_TRUE(throws_bad_input(
        [&] { (void)read_cgns(write_cgns("ngon.cgns", 3, b.x, b.y, b.z, {ngon}, 1)); },
        {"section 'faces' holds NGON_n elements"}));
  }
  // A node index past the zone's nodes, in a MIXED section.
  {
    Section cells = b.cells;
    cells.conn[5] = 12;
    EXPECT_TRUE(throws_bad_input(
        [&] { (void)read_cgns(write_cgns("range.cgns", 3, b.x, b.y, b.z, {cells, b.skin}, 3)); },
        {"range.cgns: zone 'blk', section 'cells': element 1 has node 12, outside the zone's 1..11"}));
  }
  // An element of neither dimension: edges in a 3-D zone.
  {
    const Section edges{"edges", CGNS_ENUMV(BAR_2), {1, 2}, 1};
    EXPECT_TRUE(throws_bad_input(
        [&] { (void)read_cgns(write_cgns("edges.cgns", 3, b.x, b.y, b.z, {b.cells, edges}, 3)); },
        {"section 'edges'", "BAR_2, neither a cell nor a boundary face of a 3-D zone"}));
  }
  // A 2-D zone whose nodes do not lie in one plane z = const.
  {
    const std::vector<double> x{0, 1, 0}, y{0, 0, 1}, z{0, 0, 0.25};
    const Section tri{"tri", CGNS_ENUMV(TRI_3), {1, 2, 3}, 1};
    EXPECT_TRUE(throws_bad_input(
        [&] { (void)read_cgns(write_cgns("plane.cgns", 2, x, y, z, {tri}, 1)); },
        {"plane.cgns: zone 'blk' is 2-D but node 3 has z = 0.25"}));
  }
  // The declared cell count disagrees with the sections.
  EXPECT_TRUE(throws_bad_input(
      [&] { (void)read_cgns(write_cgns("count.cgns", 3, b.x, b.y, b.z, {b.cells, b.skin}, 4)); },
      {"count.cgns: zone 'blk' declares 4 cells but its sections hold 3 3-D elements"}));
  // Not a CGNS file; no file at all.
  const std::string text = camber_test_mesh::write_temp("text.cgns", "NDIME= 2\n");
  EXPECT_TRUE(throws_bad_input([&] { (void)read_mesh(text); }, {"text.cgns", "not a CGNS file"}));
  EXPECT_TRUE(throws_bad_input([&] { (void)read_mesh(temp_path("absent.cgns")); },
                               {"absent.cgns", "cannot open"}));
}

// The bytes this process maps now (VmSize), from /proc/self/status.
long long mapped_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long long kb = 0;
  while (status >> key)
    if (key == "VmSize:" && status >> kb) return kb * 1024;
  return -1;
}

// Runs `check` in a child process whose address space may grow by at most
// `extra` bytes over the parent's (RLIMIT_AS), so that an allocation of the
// sizes a file declares fails there instead of succeeding lazily: passes
// when the child's check passes; an exception out of it (std::bad_alloc)
// fails, with its text.
::testing::AssertionResult under_memory_limit(long long extra,
                                              const std::function<::testing::AssertionResult()>& check) {
  const long long mapped = mapped_bytes();
  if (mapped <= 0) return ::testing::AssertionFailure() << "cannot read /proc/self/status";
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) return ::testing::AssertionFailure() << "fork failed";
  if (child == 0) {
    const rlimit limit{static_cast<rlim_t>(mapped + extra), static_cast<rlim_t>(mapped + extra)};
    if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
    int code = 0;
    try {
      const ::testing::AssertionResult r = check();
      if (!r) {
        std::cerr << r.message() << std::endl;
        code = 1;
      }
    } catch (const std::exception& e) {
      std::cerr << "threw " << e.what() << std::endl;
      code = 2;
    }
    std::fflush(nullptr);
    _exit(code);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "under a limit of " << extra << " bytes more: "
         << (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                               : "signal " + std::to_string(WTERMSIG(status)))
         << " (2: an exception other than camber::Error, see stderr)";
}

// A few kilobytes declaring 2e9 nodes (16 GB of coordinates) or 2e9
// elements: refused from the declarations, before allocating, with the
// file, the zone, the section and the size, within 256 MB.
TEST(CgnsReader, HugeDeclaredSizesAreRefusedBeforeAllocating) {
  const MixedBlock b;
  constexpr long long limit = 256LL << 20;
  // The zone and its coordinate arrays declare 2e9 nodes (libcgns itself
  // refuses a zone whose arrays disagree with it).
  const std::string nodes = write_cgns("huge_nodes.cgns", 3, b.x, b.y, b.z, {b.cells, b.skin}, 3);
  ASSERT_TRUE(camber_test_mesh::overwrite_cgns_ints(nodes, {"Base", "blk"}, {2000000000, 3, 0}));
  for (const char* axis : {"CoordinateX", "CoordinateY", "CoordinateZ"})
    ASSERT_TRUE(camber_test_mesh::declare_cgns_length(
        nodes, {"Base", "blk", "GridCoordinates", axis}, 2000000000));
  EXPECT_TRUE(under_memory_limit(limit, [&] {
    return throws_bad_input([&] { (void)read_cgns_data(nodes); },
                            {"huge_nodes.cgns: zone 'blk'", "2000000000"});
  }));
  // The MIXED skin (elements 4..15) declared as elements 4..2e9.
  const std::string elements =
      write_cgns("huge_elements.cgns", 3, b.x, b.y, b.z, {b.cells, b.skin}, 3);
  ASSERT_TRUE(camber_test_mesh::overwrite_cgns_ints(
      elements, {"Base", "blk", "skin", "ElementRange"}, {4, 2000000000}));
  EXPECT_TRUE(under_memory_limit(limit, [&] {
    return throws_bad_input([&] { (void)read_cgns_data(elements); },
                            {"huge_elements.cgns: zone 'blk', section 'skin'", "1999999997"});
  }));
}

// An HDF5 file whose CGNSLibraryVersion node holds an integer: libcgns
// 3.4's cg_open refuses it but keeps it in its table of 128 open files.
// Refused 200 times, it must leave a valid file readable (found by
// fuzz/fuzz_cgns.cpp: every later file was "Too many files opened").
TEST(CgnsReader, FilesRefusedByLibcgnsAreClosed) {
  const MixedBlock b;
  const std::string good = temp_path("version_good.cgns");
  camber_test_mesh::write_cgns_file(good, 3, b.x, b.y, b.z, {b.cells, b.skin}, 3, CG_FILE_HDF5);
  const std::string bad = temp_path("version_int.cgns");
  camber_test_mesh::write_cgns_file(bad, 3, b.x, b.y, b.z, {b.cells, b.skin}, 3, CG_FILE_HDF5);
  ASSERT_TRUE(camber_test_mesh::edit_cgns_node(bad, {"CGNSLibraryVersion"}, [](int cgio, double node) {
    const std::int32_t version = 3;
    const cgsize_t n = 1;
    return cgio_set_dimensions(cgio, node, "I4", 1, &n) == CGIO_ERR_NONE &&
           cgio_write_all_data(cgio, node, &version) == CGIO_ERR_NONE;
  }));
  for (int i = 0; i < 200; ++i)
    ASSERT_TRUE(throws_bad_input([&] { (void)read_cgns_data(bad); },
                                 {"version_int.cgns", "CGNS-Library-Version"}))
        << "read " << i;
  // The hexahedron, the pyramid and the prism, on all 11 nodes.
  const MeshData d = read_cgns_data(good);
  EXPECT_EQ(d.n_cells(), 3);
  EXPECT_EQ(d.n_nodes(), 11);
}

// A PointRange stored as 2 x 2 entries: libcgns reports a range (2
// points) but reads all 4 entries, past a buffer sized by its report (a
// heap overflow found by fuzz/fuzz_cgns.cpp). It is refused by the
// array's size before anything is read.
TEST(CgnsReader, PointRangesHoldingMoreThanTwoEntriesAreRefused) {
  const MixedBlock b;  // 11 nodes
  using camber_test_mesh::write_cgns_bc;
  const std::string range = write_cgns("bc_range_2x2.cgns", 3, b.x, b.y, b.z, {b.cells, b.skin}, 3);
  write_cgns_bc(range, "corner", CGNS_ENUMV(PointRange), CGNS_ENUMV(Vertex), {1, 3});
  ASSERT_TRUE(camber_test_mesh::edit_cgns_node(
      range, {"Base", "blk", "ZoneBC", "corner", "PointRange"}, [](int cgio, double node) {
        const cgsize_t dims[2] = {2, 2};
        const std::int32_t values[4] = {1, 3, 1, 3};  // nodes the zone has
        return cgio_set_dimensions(cgio, node, "I4", 2, dims) == CGIO_ERR_NONE &&
               cgio_write_all_data(cgio, node, values) == CGIO_ERR_NONE;
      }));
  EXPECT_TRUE(throws_bad_input([&] { (void)read_cgns_data(range); },
                               {"bc_range_2x2.cgns: zone 'blk', boundary condition 'corner': its "
                                "point set holds 4 entries, its header declares 2"}));
}

// A QUAD_4 section of one element whose ElementConnectivity holds 2 x 4
// entries: libcgns reports the 4 the range needs but reads all 8 into the
// reader's buffer (a heap overflow found by fuzz/fuzz_cgns.cpp). Refused by
// the array's size before it is read.
TEST(CgnsReader, ConnectivityHoldingMoreThanItsRangeIsRefused) {
  const std::vector<double> x{0, 1, 1, 0}, y{0, 0, 1, 1}, z{0, 0, 0, 0};
  const std::string path = write_cgns("conn_2x4.cgns", 2, x, y, z,
                                      {{"cells", CGNS_ENUMV(QUAD_4), {1, 2, 3, 4}, 1}}, 1);
  ASSERT_EQ(read_cgns_data(path).n_cells(), 1);
  ASSERT_TRUE(camber_test_mesh::edit_cgns_node(
      path, {"Base", "blk", "cells", "ElementConnectivity"}, [](int cgio, double node) {
        const cgsize_t dims[2] = {4, 2};
        const std::int32_t nodes[8] = {1, 2, 3, 4, 1, 2, 3, 4};
        return cgio_set_dimensions(cgio, node, "I4", 2, dims) == CGIO_ERR_NONE &&
               cgio_write_all_data(cgio, node, nodes) == CGIO_ERR_NONE;
      }));
  EXPECT_TRUE(throws_bad_input([&] { (void)read_cgns_data(path); },
                               {"conn_2x4.cgns: zone 'blk', section 'cells': its "
                                "ElementConnectivity holds 8 entries, the section declares 4"}));
}

// Boundary conditions (ZoneBC) naming a node or an element the zone does
// not have; one naming existing faces reads.
TEST(CgnsReader, BoundaryConditionsNamingNoElementAreRefused) {
  const MixedBlock b;  // 11 nodes; elements 1..3 cells, 4..15 the skin
  using camber_test_mesh::write_cgns_bc;
  auto file = [&](const std::string& name) {
    return write_cgns(name, 3, b.x, b.y, b.z, {b.cells, b.skin}, 3);
  };
  const std::string good = file("bc_good.cgns");
  write_cgns_bc(good, "wall", CGNS_ENUMV(PointList), CGNS_ENUMV(FaceCenter), {4, 5, 15});
  write_cgns_bc(good, "corner", CGNS_ENUMV(PointList), CGNS_ENUMV(Vertex), {1, 11});
  EXPECT_EQ(read_cgns(good).n_cells(), 3);

  const std::string node = file("bc_node.cgns");
  write_cgns_bc(node, "wall", CGNS_ENUMV(PointList), CGNS_ENUMV(Vertex), {1, 62, 3});
  EXPECT_TRUE(throws_bad_input([&] { (void)read_cgns(node); },
                               {"bc_node.cgns: zone 'blk', boundary condition 'wall': names node "
                                "62, outside the zone's 1..11"}));
  const std::string list = file("bc_list.cgns");
  write_cgns_bc(list, "wall", CGNS_ENUMV(PointList), CGNS_ENUMV(FaceCenter), {4, 99});
  EXPECT_TRUE(throws_bad_input([&] { (void)read_cgns(list); },
                               {"bc_list.cgns: zone 'blk', boundary condition 'wall': names "
                                "element 99, which no section holds (the sections hold 1..15)"}));
  const std::string range = file("bc_range.cgns");
  write_cgns_bc(range, "far", CGNS_ENUMV(PointRange), CGNS_ENUMV(FaceCenter), {10, 20});
  EXPECT_TRUE(throws_bad_input([&] { (void)read_cgns(range); },
                               {"bc_range.cgns: zone 'blk', boundary condition 'far': range "
                                "10..20 names element 16, which no section holds"}));
}

// A coordinate that is NaN or infinite is named with its node and axis.
TEST(CgnsReader, NonFiniteCoordinatesAreNamedByNode) {
  MixedBlock b;
  b.x[4] = std::numeric_limits<double>::quiet_NaN();
  const std::string nan = write_cgns("nan.cgns", 3, b.x, b.y, b.z, {b.cells, b.skin}, 3);
  EXPECT_TRUE(throws_bad_input([&] { (void)read_cgns(nan); },
                               {"nan.cgns: zone 'blk': node 5 has CoordinateX = ",
                                "coordinates must be finite numbers"}));
  MixedBlock c;
  c.z[10] = std::numeric_limits<double>::infinity();
  const std::string inf = write_cgns("inf.cgns", 3, c.x, c.y, c.z, {c.cells, c.skin}, 3);
  EXPECT_TRUE(throws_bad_input([&] { (void)read_cgns(inf); },
                               {"inf.cgns: zone 'blk': node 11 has CoordinateZ = inf"}));
}

}  // namespace
