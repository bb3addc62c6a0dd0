// Tests of the SU2 and Gmsh readers: hand-written files whose counts are
// checked by hand, malformed variants (each must be bad_input naming the
// right line), and the real SU2 QuickStart NACA 0012 mesh.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cmath>
#include <iostream>

#include <camber/mesh/geometry.hpp>
#include <camber/mesh/gmsh_reader.hpp>
#include <camber/mesh/quality.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/su2_reader.hpp>
#include <camber/mesh/su2_writer.hpp>
#include "mesh_test_utils.hpp"
#include "tests/shared_data.hpp"

namespace camber_test_mesh {

using namespace camber::mesh;

// mixed_2x1.{su2,msh}: the rectangle [0,2] x [0,1] as the quad (0,1,4,3)
// and the triangles (1,2,5), (1,5,4), one of them written clockwise:
//
//   3 ---- 4 ---- 5     faces: 4 quad edges + 5 triangle edges - 1 shared
//   |      | \    |     = 8; interior 1-4 and 1-5, boundary 6;
//   |      |   \  |     Euler: 6 nodes - 8 edges + 3 cells = 1
//   0 ---- 1 ---- 2     area 2
void expect_mixed_2x1(const Mesh& m) {
  EXPECT_EQ(m.dim(), 2);
  EXPECT_EQ(m.n_nodes(), 6);
  EXPECT_EQ(m.n_cells(), 3);
  EXPECT_EQ(m.count_cells(CellType::quad), 1);
  EXPECT_EQ(m.count_cells(CellType::triangle), 2);
  EXPECT_EQ(m.n_faces(), 8);
  EXPECT_EQ(m.n_boundary_faces(), 6);
  EXPECT_EQ(m.n_reoriented_cells(), 1);
  const Geometry g = compute_geometry(m);
  auto vol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_volume);
  EXPECT_DOUBLE_EQ(vol(0), 1.0);
  EXPECT_DOUBLE_EQ(vol(1), 0.5);
  EXPECT_DOUBLE_EQ(vol(2), 0.5);
  EXPECT_DOUBLE_EQ(boundary_area(m, g), 2.0);
  EXPECT_LE(max_closure_error(m, g), 1e-15);
}

TEST(Su2Reader, HandWrittenMixedMesh) {
  const Mesh m = read_su2(data_path("mixed_2x1.su2"));
  expect_mixed_2x1(m);
  ASSERT_EQ(m.markers().size(), 4u);
  EXPECT_EQ(m.markers()[0].name, "lower");
  EXPECT_EQ(m.markers()[0].n_faces(), 2);
  EXPECT_EQ(m.markers()[1].name, "right");
  EXPECT_EQ(m.markers()[1].n_faces(), 1);
  EXPECT_EQ(m.markers()[2].name, "upper");
  EXPECT_EQ(m.markers()[2].n_faces(), 2);
  EXPECT_EQ(m.markers()[3].name, "left");
  EXPECT_EQ(m.markers()[3].n_faces(), 1);
  // Boundary normals point outward: 'lower' faces have n = (0, -1) * length.
  const Geometry g = compute_geometry(m);
  auto faces = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.markers()[0].faces);
  auto normal = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_normal);
  for (int i = 0; i < 2; ++i) {
    EXPECT_DOUBLE_EQ(normal(faces(i), 0), 0.0);
    EXPECT_DOUBLE_EQ(normal(faces(i), 1), -1.0);
  }
  const MeshQuality q = quality(m);
  EXPECT_EQ(q.n_unmarked_boundary_faces, 0);
  EXPECT_DOUBLE_EQ(q.min_volume, 0.5);
  EXPECT_DOUBLE_EQ(q.max_volume, 1.0);
  // Right isosceles triangle: edges 1, 1, sqrt(2); angles 45, 45, 90:
  // skewness max((90-60)/120, (60-45)/60) = 0.25.
  EXPECT_NEAR(q.max_aspect_ratio, std::sqrt(2.0), 1e-14);
  EXPECT_NEAR(q.max_skewness, 0.25, 1e-14);
}

// Line numbers in mixed_2x1.su2: 3 NELEM, 4-6 elements, 7 NPOIN, 8-13
// points, 14 NMARK, 15-28 markers ('right' element on 21, 'left' on 28).
class Su2Malformed : public ::testing::Test {
 protected:
  std::string base_ = read_text(data_path("mixed_2x1.su2"));
  std::function<void()> reading(const std::string& name, const std::string& text) {
    const std::string path = write_temp(name, text);
    return [path] { (void)read_su2(path); };
  }
};

TEST_F(Su2Malformed, TruncatedInMarkerSection) {
  // Ends right after "MARKER_ELEMS= 1" of 'left' (line 27).
  EXPECT_TRUE(throws_bad_input(reading("trunc1.su2", truncate_lines(base_, 27)),
                               {"trunc1.su2:27:", "MARKER_ELEMS= 1 but only 0 lines follow"}));
}

TEST_F(Su2Malformed, TruncatedMidLine) {
  // The last line cut to "3\t3".
  EXPECT_TRUE(throws_bad_input(reading("trunc2.su2", truncate_lines(base_, 27, "3\t3")),
                               {"trunc2.su2:28:", "expected a line", "found 2 fields"}));
}

TEST_F(Su2Malformed, TruncatedPoints) {
  EXPECT_TRUE(throws_bad_input(reading("trunc3.su2", truncate_lines(base_, 10)),
                               {"trunc3.su2:7:", "NPOIN= 6 but only 3 lines follow"}));
}

TEST_F(Su2Malformed, WrongElementCount) {
  // NELEM= 4 but 3 elements: the 4th "element" is the NPOIN line.
  EXPECT_TRUE(throws_bad_input(reading("count.su2", replace_line(base_, 3, "NELEM= 4")),
                               {"count.su2:7:", "expected an element type id", "'NPOIN='"}));
}

TEST_F(Su2Malformed, WrongMarkerCount) {
  // NMARK= 3 leaves 'left' outside the section.
  EXPECT_TRUE(throws_bad_input(reading("nmark.su2", replace_line(base_, 14, "NMARK= 3")),
                               {"nmark.su2:26:", "MARKER_TAG= outside an NMARK= section"}));
}

TEST_F(Su2Malformed, BadNumber) {
  EXPECT_TRUE(throws_bad_input(reading("num.su2", replace_line(base_, 9, "1.0\t0.0x\t1")),
                               {"num.su2:9:", "expected a coordinate", "'0.0x'"}));
  EXPECT_TRUE(throws_bad_input(reading("nan.su2", replace_line(base_, 9, "1.0\tnan\t1")),
                               {"nan.su2:9:", "finite number", "'nan'"}));
  EXPECT_TRUE(throws_bad_input(reading("dim.su2", replace_line(base_, 2, "NDIME= two")),
                               {"dim.su2:2:", "non-negative integer", "'two'"}));
}

TEST_F(Su2Malformed, NodeIndexOutOfRange) {
  EXPECT_TRUE(throws_bad_input(reading("range.su2", replace_line(base_, 5, "5\t1\t2\t6\t1")),
                               {"range.su2:5:", "node indices in [0, 6)", "found 6"}));
  EXPECT_TRUE(throws_bad_input(reading("neg.su2", replace_line(base_, 5, "5\t1\t-2\t5\t1")),
                               {"neg.su2:5:", "node index >= 0"}));
  EXPECT_TRUE(throws_bad_input(reading("mrange.su2", replace_line(base_, 21, "3\t2\t9")),
                               {"mrange.su2:21:", "node indices in [0, 6)", "marker 'right'"}));
}

TEST_F(Su2Malformed, LyingHugeHeaderIsRejectedFast) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(throws_bad_input(reading("huge.su2", replace_line(base_, 3, "NELEM= 1000000000000")),
                               {"huge.su2:3:", "NELEM= 1000000000000 but only 25 lines follow"}));
  EXPECT_TRUE(throws_bad_input(
      reading("huge2.su2", replace_line(base_, 16, "MARKER_ELEMS= 99999999999999")),
      {"huge2.su2:16:", "MARKER_ELEMS= 99999999999999 but only 12 lines follow"}));
  EXPECT_TRUE(throws_bad_input(
      reading("huge3.su2", replace_line(base_, 14, "NMARK= 9223372036854775807")),
      {"huge3.su2:14:", "NMARK= 9223372036854775807 but only 14 lines follow"}));
  EXPECT_TRUE(throws_bad_input(
      reading("huge4.su2", replace_line(base_, 7, "NPOIN= 99999999999999999999")),
      {"huge4.su2:7:", "expected a non-negative integer after NPOIN=", "'99999999999999999999'"}));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1.0);  // no attempt to reserve or loop over 1e12 entries
}

TEST_F(Su2Malformed, UnknownElementType) {
  EXPECT_TRUE(throws_bad_input(reading("type.su2", replace_line(base_, 4, "7\t0\t1\t4\t3\t0")),
                               {"type.su2:4:", "expected element type 5 (triangle) or 9", "'7'"}));
  // A triangle where a boundary line is expected.
  EXPECT_TRUE(throws_bad_input(reading("btype.su2", replace_line(base_, 21, "5\t2\t5\t4")),
                               {"btype.su2:21:", "expected element type 3 (line)"}));
}

TEST_F(Su2Malformed, MissingSection) {
  auto lines = lines_of(base_);
  EXPECT_TRUE(throws_bad_input(reading("nomark.su2", truncate_lines(base_, 13)),
                               {"nomark.su2:13:", "expected an NMARK= section, found end of file"}));
  std::vector<std::string> no_points(lines.begin(), lines.begin() + 6);
  no_points.insert(no_points.end(), lines.begin() + 13, lines.end());
  EXPECT_TRUE(throws_bad_input(reading("nopoin.su2", join(no_points)),
                               {"nopoin.su2:21:", "expected an NPOIN= section, found end of file"}));
  EXPECT_TRUE(throws_bad_input(reading("nodime.su2", replace_line(base_, 2, "% no dimension")),
                               {"nodime.su2:3:", "expected NDIME= before NELEM="}));
  EXPECT_TRUE(throws_bad_input(reading("empty.su2", ""),
                               {"empty.su2:0:", "expected NDIME= 2 or 3, found end of file"}));
  EXPECT_TRUE(throws_bad_input([] { (void)read_su2("/nonexistent/dir/mesh.su2"); },
                               {"cannot open mesh file '/nonexistent/dir/mesh.su2'"}));
}

TEST_F(Su2Malformed, InconsistentMarker) {
  // 'right' lists the diagonal-free pair 2-4, which is no face of any cell.
  EXPECT_TRUE(throws_bad_input(reading("face.su2", replace_line(base_, 21, "3\t2\t4")),
                               {"face.su2:21:", "marker 'right' element 0 (nodes 2 4) is not a "
                                                "face of any cell"}));
  // 'right' lists the interior face 1-4.
  EXPECT_TRUE(throws_bad_input(reading("interior.su2", replace_line(base_, 21, "3\t1\t4")),
                               {"interior.su2:21:", "is an interior face"}));
  // A degenerate triangle (three collinear nodes).
  EXPECT_TRUE(throws_bad_input(reading("zero.su2", replace_line(base_, 5, "5\t0\t1\t2\t1")),
                               {"zero.su2:5:", "has zero area"}));
}

// write_su2 then read_su2 gives the same mesh: coordinates bit for bit
// (17 digits), cells and their nodes, markers and their face counts.
TEST(Su2Writer, RoundTripThroughTheReader) {
  const camber::mesh::Mesh m =
      camber::mesh::airfoil_ogrid(camber::mesh::naca4("0012", true), 32, 8, 0.01, 50.0);
  const std::string path = ::testing::TempDir() + "camber_su2_roundtrip.su2";
  camber::mesh::write_su2(m, path);
  const camber::mesh::Mesh r = camber::mesh::read_su2(path);
  ASSERT_EQ(r.n_cells(), m.n_cells());
  ASSERT_EQ(r.n_nodes(), m.n_nodes());
  ASSERT_EQ(r.n_faces(), m.n_faces());
  const auto xm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  const auto xr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.coords());
  for (camber::index_t n = 0; n < m.n_nodes(); ++n)
    for (int d = 0; d < 2; ++d) EXPECT_EQ(xr(n, d), xm(n, d));
  const auto cm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_nodes());
  const auto cr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.cell_nodes());
  ASSERT_EQ(cm.extent(0), cr.extent(0));
  for (size_t a = 0; a < cm.extent(0); ++a) EXPECT_EQ(cr(a), cm(a));
  ASSERT_EQ(r.markers().size(), m.markers().size());
  for (const auto& mk : m.markers()) {
    const int k = r.marker_index(mk.name);
    ASSERT_GE(k, 0) << mk.name;
    EXPECT_EQ(r.markers()[static_cast<size_t>(k)].n_faces(), mk.n_faces()) << mk.name;
  }
  std::remove(path.c_str());
}

// 3-D: SU2's brick of tetrahedra and pyramids (../shared/data; triangle
// and quad marker faces) written and read back: the same coordinates (bit
// for bit), cells, faces, markers, and total volume.
TEST(Su2Writer, ThreeDimensionalRoundTrip) {
  const std::string source = camber::test::shared_mesh("brick_pyra_ffd_su2_testcases.su2");
  CAMBER_NEED_SHARED_FILE(source);
  const Mesh m = read_su2(source);
  const std::string path = ::testing::TempDir() + "camber_su2_roundtrip_3d.su2";
  write_su2(m, path);
  const Mesh r = read_su2(path);
  ASSERT_EQ(r.dim(), 3);
  ASSERT_EQ(r.n_nodes(), m.n_nodes());
  ASSERT_EQ(r.n_cells(), m.n_cells());
  EXPECT_EQ(r.n_faces(), m.n_faces());
  EXPECT_EQ(r.count_cells(CellType::pyramid), m.count_cells(CellType::pyramid));
  const auto xm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  const auto xr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.coords());
  index_t differing = 0;
  for (index_t n = 0; n < m.n_nodes(); ++n)
    for (int d = 0; d < 3; ++d) differing += xr(n, d) != xm(n, d);
  EXPECT_EQ(differing, 0);
  const auto cm = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_nodes());
  const auto cr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.cell_nodes());
  ASSERT_EQ(cm.extent(0), cr.extent(0));
  index_t moved = 0;
  for (size_t a = 0; a < cm.extent(0); ++a) moved += cr(a) != cm(a);
  EXPECT_EQ(moved, 0);
  ASSERT_EQ(r.markers().size(), m.markers().size());
  for (const Marker& mk : m.markers()) {
    const int k = r.marker_index(mk.name);
    ASSERT_GE(k, 0) << mk.name;
    EXPECT_EQ(r.markers()[static_cast<size_t>(k)].n_faces(), mk.n_faces()) << mk.name;
  }
  EXPECT_EQ(quality(r).n_unmarked_boundary_faces, 0);
  EXPECT_NEAR(quality(r).total_volume, 2.0, 2e-12);
  std::remove(path.c_str());
}

// The dihedral angles that mesh-info reports for tetrahedra, against two
// computed by hand: the regular tetrahedron (every angle acos(1/3)) and a
// sliver, the nodes (+-1, 0, 0) and (0, +-1, h): outward face normals
// (0, +-h, -1) / sqrt(1 + h^2) and (+-h, 0, 1) / sqrt(1 + h^2) give
// acos((h^2 - 1) / (1 + h^2)) at the edges (+-1, 0, 0) and (0, +-1, h)
// (168.6 degrees for h = 0.1) and acos(1 / (1 + h^2)) at the four others
// (8.07 degrees). Its four faces are congruent isosceles triangles, apex
// angle acos(h^2 / (2 + h^2)): face skewness below 0.25, which is why
// skewness alone does not show slivers.
TEST(MeshQuality, DihedralAnglesOfTetrahedra) {
  const double deg = 180.0 / 3.14159265358979323846;
  const MeshQuality regular = quality(read_su2(write_temp(
      "regular_tet.su2", "NDIME= 3\nNELEM= 1\n10 0 1 2 3 0\nNPOIN= 4\n1 1 1\n1 -1 -1\n-1 1 -1\n"
                         "-1 -1 1\nNMARK= 0\n")));
  EXPECT_NEAR(regular.min_dihedral_angle, std::acos(1.0 / 3.0) * deg, 1e-12);
  EXPECT_NEAR(regular.max_dihedral_angle, std::acos(1.0 / 3.0) * deg, 1e-12);
  EXPECT_NEAR(regular.max_skewness, 0.0, 1e-13);
  EXPECT_NEAR(regular.max_aspect_ratio, 1.0, 1e-15);
  EXPECT_NEAR(regular.min_volume, 8.0 / 3.0, 1e-14);  // edge 2 sqrt 2: a^3 / (6 sqrt 2)

  const double h = 0.1;
  const MeshQuality sliver = quality(read_su2(write_temp(
      "sliver_tet.su2", "NDIME= 3\nNELEM= 1\n10 0 1 2 3 0\nNPOIN= 4\n1 0 0\n-1 0 0\n0 1 0.1\n"
                        "0 -1 0.1\nNMARK= 0\n")));
  EXPECT_NEAR(sliver.min_dihedral_angle, std::acos(1.0 / (1.0 + h * h)) * deg, 1e-10);
  EXPECT_NEAR(sliver.max_dihedral_angle, std::acos((h * h - 1.0) / (1.0 + h * h)) * deg, 1e-10);
  const double apex = std::acos(h * h / (2.0 + h * h)) * deg, base = (180.0 - apex) / 2.0;
  EXPECT_NEAR(sliver.max_skewness, std::max((apex - 60.0) / 120.0, (60.0 - base) / 60.0), 1e-12);
  EXPECT_LT(sliver.max_skewness, 0.25);
  EXPECT_NEAR(sliver.min_volume, 2.0 * h / 3.0, 1e-15);  // |det(p1 - p0, p2 - p0, p3 - p0)| / 6
  // Meshes without tetrahedra report none.
  EXPECT_EQ(quality(read_gmsh(data_path("hex_pyramid.msh"))).max_dihedral_angle, 0.0);
}

TEST(Su2Reader, ThreeDimensionalTetrahedra) {
  // Two tetrahedra sharing the face (0,1,2): 4 + 4 - 1 = 7 faces, 6 on the
  // boundary; one marker triangle.
  const std::string text =
      "NDIME= 3\nNELEM= 2\n10 0 1 2 3 0\n10 0 2 1 4 1\nNPOIN= 5\n"
      "0 0 0\n1 0 0\n0 1 0\n0 0 1\n0 0 -1\nNMARK= 1\nMARKER_TAG= side\nMARKER_ELEMS= 1\n"
      "5 0 1 3\n";
  const Mesh m = read_su2(write_temp("tets.su2", text));
  EXPECT_EQ(m.dim(), 3);
  EXPECT_EQ(m.n_nodes(), 5);
  EXPECT_EQ(m.n_cells(), 2);
  EXPECT_EQ(m.n_faces(), 7);
  EXPECT_EQ(m.n_boundary_faces(), 6);
  EXPECT_EQ(m.markers()[0].n_faces(), 1);
  // The geometry in 3-D: the first tetrahedron's centroid is its nodes'
  // mean; wall distance is 2-D only.
  const Geometry g = compute_geometry(m);
  const auto centroid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_centroid);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(centroid(0, k), 0.25, 1e-16);
  EXPECT_NEAR(centroid(1, 2), -0.25, 1e-16);
  EXPECT_TRUE(throws_bad_input([&] { (void)wall_distance(m, g, {"side"}); }, {"only 2-D meshes"}));
  const MeshQuality q = quality(m);
  EXPECT_EQ(q.n_unmarked_boundary_faces, 5);
  // Each tetrahedron is a corner of the unit cube: volume 1/6; the first's
  // faces are the right triangles with legs 1 (skewness (90 - 60) / 120)
  // and the equilateral one; its longest edge is sqrt 2, its shortest 1.
  EXPECT_NEAR(q.min_volume, 1.0 / 6.0, 1e-16);
  EXPECT_NEAR(q.max_volume, 1.0 / 6.0, 1e-16);
  EXPECT_NEAR(q.total_volume, 1.0 / 3.0, 1e-16);
  EXPECT_NEAR(q.max_aspect_ratio, std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(q.max_skewness, 0.25, 1e-15);
  EXPECT_EQ(q.n_nonpositive_volumes, 0);
  // Dihedral angles of a cube corner: 90 degrees at the three edges on the
  // axes, acos(1/sqrt 3) between the slanted face and each axis plane.
  const double deg = 180.0 / 3.14159265358979323846;
  EXPECT_NEAR(q.min_dihedral_angle, std::acos(1.0 / std::sqrt(3.0)) * deg, 1e-12);
  EXPECT_NEAR(q.max_dihedral_angle, 90.0, 1e-12);
  // Written inside out (nodes 1 and 2 swapped): mirrored back and counted,
  // or an error naming the line when orientation is required; flat: an
  // error either way.
  const std::string inv = write_temp(
      "tets_inv.su2", "NDIME= 3\nNELEM= 1\n10 0 2 1 3 0\nNPOIN= 4\n0 0 0\n1 0 0\n0 1 0\n"
                      "0 0 1\nNMARK= 0\n");
  const Mesh inverted = read_su2(inv);
  EXPECT_EQ(inverted.n_reoriented_cells(), 1);
  EXPECT_EQ(quality(inverted).n_nonpositive_volumes, 0);
  EXPECT_NEAR(quality(inverted).total_volume, 1.0 / 6.0, 1e-16);
  EXPECT_TRUE(throws_bad_input([&] { (void)Mesh::from_cells(read_su2_data(inv), Orientation::require); },
                               {"tets_inv.su2:3:", "tetrahedron cell 0 (nodes 0 2 1 3) is inside out"}));
  EXPECT_TRUE(throws_bad_input(
      [&] {
        (void)read_su2(write_temp("tets_flat.su2", "NDIME= 3\nNELEM= 1\n10 0 1 2 3 0\nNPOIN= 4\n"
                                                   "0 0 0\n1 0 0\n0 1 0\n1 1 0\nNMARK= 0\n"));
      },
      {"tets_flat.su2:3:", "has zero volume"}));
}

// The trailing sections SU2 writes after the markers: the identity
// periodic transformation (accepted), another one (a periodic boundary:
// rejected with its line), and FFD boxes (checked for structure, not kept).
TEST(Su2Reader, PeriodicAndFfdSectionsAfterTheMarkers) {
  const std::string tet =
      "NDIME= 3\nNELEM= 1\n10 0 1 2 3 0\nNPOIN= 4\n0 0 0\n1 0 0\n0 1 0\n0 0 1\nNMARK= 0\n";
  const std::string identity = "NPERIODIC= 1\nPERIODIC_INDEX= 0\n0 0 0\n0 0 0\n0 0 0\n";
  const std::string ffd =
      "FFD_NBOX= 1\nFFD_NLEVEL= 1\nFFD_TAG= BOX\nFFD_LEVEL= 0\nFFD_DEGREE_I= 1\n"
      "FFD_DEGREE_J= 1\nFFD_DEGREE_K= 1\nFFD_BLENDING= BEZIER\nFFD_PARENTS= 0\n"
      "FFD_CHILDREN= 0\nFFD_CORNER_POINTS= 8\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n"
      "1 1 1\n0 1 1\nFFD_CONTROL_POINTS= 1\n0 0 0 0 0 0\nFFD_SURFACE_POINTS= 1\n"
      "side 0 0.1 0.2 0.3\n";
  EXPECT_EQ(read_su2(write_temp("trailer.su2", tet + identity + ffd)).n_cells(), 1);
  EXPECT_TRUE(throws_bad_input(
      [&] {
        (void)read_su2(write_temp("periodic.su2", tet + "NPERIODIC= 1\nPERIODIC_INDEX= 0\n0 0 0\n"
                                                        "0 0 0\n0 0 0.5\n"));
      },
      {"periodic.su2:14:", "periodic boundaries are not supported"}));
  EXPECT_TRUE(throws_bad_input(
      [&] { (void)read_su2(write_temp("ffdkey.su2", tet + "FFD_NBOX= 1\nFFD_NLEVEL= 1\nFFD_COLOUR= 3\n")); },
      {"ffdkey.su2:12:", "expected an FFD box key", "FFD_COLOUR= 3"}));
  EXPECT_TRUE(throws_bad_input(
      [&] {
        (void)read_su2(write_temp("ffdcorner.su2",
                                  tet + "FFD_NBOX= 1\nFFD_NLEVEL= 1\nFFD_TAG= B\nFFD_CORNER_POINTS= 2\n0 0 0\n0 0\n"));
      },
      {"ffdcorner.su2:15:"}));
}

// SU2's 3-D brick meshes (read from ../shared/data): the box [0, 2] x
// [0, 1] x [0, 1] in hexahedra, prisms, tetrahedra, and tetrahedra with a
// layer of pyramids. Checked against math: the cell volumes sum to the
// box's, 2 (1e-12); no cell is inside out; every boundary face is in a
// marker and every marker face lies on its plane (x_m: x = 0, x_p: x = 2,
// ...; 1e-14); each cell's faces are counted once from each side
// (sum of faces per cell = 2 interior + boundary). The hexahedral brick is
// a uniform 39 x 19 x 19 grid: every cell's volume 2 / 14079, aspect ratio
// (1/19) / (2/39) = 39/38, skewness 0.
TEST(Su2Reader, SharedBrickMeshesIn3D) {
  for (const char* kind : {"hex", "prism", "tets", "pyra"}) {
    const std::string path =
        camber::test::shared_mesh(std::string("brick_") + kind + "_ffd_su2_testcases.su2");
    CAMBER_NEED_SHARED_FILE(path);
    const Mesh m = read_su2(path);
    ASSERT_EQ(m.dim(), 3) << kind;
    const MeshQuality q = quality(m);
    EXPECT_NEAR(q.total_volume, 2.0, 2e-12) << kind;
    EXPECT_EQ(q.n_nonpositive_volumes, 0) << kind;
    EXPECT_EQ(q.n_unmarked_boundary_faces, 0) << kind;
    index_t face_sides = 0;
    const auto types = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_types());
    for (index_t c = 0; c < m.n_cells(); ++c)
      face_sides += types(c) == CellType::tetrahedron ? 4 : types(c) == CellType::hexahedron ? 6 : 5;
    EXPECT_EQ(face_sides, 2 * (m.n_faces() - m.n_boundary_faces()) + m.n_boundary_faces()) << kind;
    const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
    const auto fo = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_offsets());
    const auto fn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_nodes());
    index_t marked = 0;
    for (const Marker& marker : m.markers()) {
      const int axis = marker.name[0] - 'x';
      const double plane = marker.name[2] == 'm' ? 0.0 : axis == 0 ? 2.0 : 1.0;
      const auto faces = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), marker.faces);
      double off_plane = 0.0;
      for (std::size_t i = 0; i < faces.extent(0); ++i)
        for (index_t k = fo(faces(i)); k < fo(faces(i) + 1); ++k)
          off_plane = std::max(off_plane, std::abs(x(fn(k), axis) - plane));
      EXPECT_LE(off_plane, 1e-14) << kind << " " << marker.name;
      marked += marker.n_faces();
    }
    EXPECT_EQ(marked, m.n_boundary_faces()) << kind;
    if (std::string(kind) == "hex") {
      EXPECT_EQ(m.n_cells(), 39 * 19 * 19);
      EXPECT_NEAR(q.min_volume, 2.0 / 14079.0, 1e-12 * 2.0 / 14079.0);
      EXPECT_NEAR(q.max_volume, 2.0 / 14079.0, 1e-12 * 2.0 / 14079.0);
      EXPECT_NEAR(q.max_aspect_ratio, 39.0 / 38.0, 1e-12);
      EXPECT_LE(q.max_skewness, 1e-12);
    }
    std::cout << kind << ": " << describe(q);
  }
}

// A 3-D Gmsh 4.1 file (hand-written, tests/mesh/data/hex_pyramid.msh): the
// unit cube as a hexahedron with a pyramid of height 0.5 on its top face.
// Faces 6 + 5 - 1 shared = 10, 9 on the boundary: the marker "bottom" (1
// quad), "roof" (the pyramid's 4 triangles) and the cube's 4 unmarked
// sides. Volume 1 + 1/6; the longest to shortest edge 1 / sqrt(3/4); the
// skewness that of the pyramid's triangles, apex angle acos(1/3):
// (acos(1/3) - 60 deg) / 120 deg.
TEST(GmshReader, HexahedronWithAPyramidIn3D) {
  const Mesh m = read_gmsh(data_path("hex_pyramid.msh"));
  ASSERT_EQ(m.dim(), 3);
  EXPECT_EQ(m.n_nodes(), 9);
  EXPECT_EQ(m.count_cells(CellType::hexahedron), 1);
  EXPECT_EQ(m.count_cells(CellType::pyramid), 1);
  EXPECT_EQ(m.n_faces(), 10);
  EXPECT_EQ(m.n_boundary_faces(), 9);
  ASSERT_GE(m.marker_index("bottom"), 0);
  ASSERT_GE(m.marker_index("roof"), 0);
  EXPECT_EQ(m.markers()[m.marker_index("bottom")].n_faces(), 1);
  EXPECT_EQ(m.markers()[m.marker_index("roof")].n_faces(), 4);
  const MeshQuality q = quality(m);
  EXPECT_EQ(q.n_unmarked_boundary_faces, 4);
  EXPECT_NEAR(q.total_volume, 7.0 / 6.0, 1e-15);
  EXPECT_NEAR(q.min_volume, 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(q.max_volume, 1.0, 1e-15);
  EXPECT_NEAR(q.max_aspect_ratio, 1.0 / std::sqrt(0.75), 1e-14);
  const double apex = std::acos(1.0 / 3.0) * 180.0 / 3.14159265358979323846;
  EXPECT_NEAR(q.max_skewness, (apex - 60.0) / 120.0, 1e-14);
}

TEST(GmshReader, HandWrittenMixedMesh) {
  const Mesh m = read_gmsh(data_path("mixed_2x1.msh"));
  expect_mixed_2x1(m);
  ASSERT_EQ(m.markers().size(), 2u);
  EXPECT_EQ(m.markers()[0].name, "wall");
  EXPECT_EQ(m.markers()[0].n_faces(), 2);
  EXPECT_EQ(m.markers()[1].name, "farfield");
  EXPECT_EQ(m.markers()[1].n_faces(), 4);
  // read_mesh dispatches on the extension.
  EXPECT_EQ(read_mesh(data_path("mixed_2x1.msh")).n_faces(), 8);
  EXPECT_EQ(read_mesh(data_path("mixed_2x1.su2")).n_faces(), 8);
  EXPECT_TRUE(throws_bad_input([] { (void)read_mesh("mesh.vtu"); },
                               {"expected the extension .su2 (SU2), .msh (Gmsh 4.1 ASCII) or .cgns"}));
}

// Line numbers in mixed_2x1.msh: 2 format, 8 PhysicalNames count, 20 Nodes
// header, 21 and 28 node block headers, 35 $EndNodes, 37 Elements header,
// 46 quad block header, 47 the quad, 49-50 triangles.
class GmshMalformed : public ::testing::Test {
 protected:
  std::string base_ = read_text(data_path("mixed_2x1.msh"));
  std::function<void()> reading(const std::string& name, const std::string& text) {
    const std::string path = write_temp(name, text);
    return [path] { (void)read_gmsh(path); };
  }
};

TEST_F(GmshMalformed, BinaryAndOtherVersionsAreRejected) {
  EXPECT_TRUE(throws_bad_input(reading("bin.msh", replace_line(base_, 2, "4.1 1 8")),
                               {"bin.msh:2:", "binary .msh files are not supported"}));
  EXPECT_TRUE(throws_bad_input(reading("v22.msh", replace_line(base_, 2, "2.2 0 8")),
                               {"v22.msh:2:", "expected Gmsh format version 4.1, found '2.2'"}));
  EXPECT_TRUE(throws_bad_input(reading("nofmt.msh", replace_line(base_, 1, "$Nodes")),
                               {"nofmt.msh:1:", "expected $MeshFormat as the first section"}));
}

TEST_F(GmshMalformed, Truncated) {
  EXPECT_TRUE(throws_bad_input(reading("trunc1.msh", truncate_lines(base_, 30)),
                               {"trunc1.msh:20:", "numNodes = 6 but only 10 lines follow (2 per entry)"}));
  EXPECT_TRUE(throws_bad_input(reading("trunc2.msh", truncate_lines(base_, 49, "9 20 50")),
                               {"trunc2.msh:50:", "found 3 fields"}));
  EXPECT_TRUE(throws_bad_input(reading("trunc3.msh", truncate_lines(base_, 50)),
                               {"trunc3.msh:50:", "expected $EndElements, found end of file"}));
}

TEST_F(GmshMalformed, WrongCounts) {
  EXPECT_TRUE(throws_bad_input(reading("nodes.msh", replace_line(base_, 20, "2 7 10 60")),
                               {"nodes.msh:34:", "the node blocks hold 6 nodes, but numNodes = 7"}));
  EXPECT_TRUE(throws_bad_input(reading("block.msh", replace_line(base_, 46, "2 1 3 2")),
                               {"block.msh:48:", "expected an element tag and 4 node tags",
                                "found 4 fields"}));
}

TEST_F(GmshMalformed, BadNumberAndUnknownNode) {
  EXPECT_TRUE(throws_bad_input(reading("num.msh", replace_line(base_, 26, "1 0 zero")),
                               {"num.msh:26:", "expected a coordinate", "'zero'"}));
  EXPECT_TRUE(throws_bad_input(reading("tag.msh", replace_line(base_, 47, "7 10 20 50 70")),
                               {"tag.msh:47:", "expected a node tag defined in $Nodes, found 70"}));
}

TEST_F(GmshMalformed, LyingHugeHeader) {
  EXPECT_TRUE(throws_bad_input(reading("huge.msh", replace_line(base_, 20, "2 600000000000 10 60")),
                               {"huge.msh:20:", "but only 31 lines follow"}));
  // The largest 64-bit count: no overflow in the check.
  EXPECT_TRUE(throws_bad_input(
      reading("huge3.msh", replace_line(base_, 20, "2 9223372036854775807 10 60")),
      {"huge3.msh:20:", "numNodes = 9223372036854775807 but only 31 lines"}));
  EXPECT_TRUE(throws_bad_input(reading("huge2.msh", replace_line(base_, 37, "4 90000000000 1 9")),
                               {"huge2.msh:37:", "numElements = 90000000000 but only 14 lines"}));
}

TEST_F(GmshMalformed, UnsupportedElementType) {
  // Type 9 is the 6-node second-order triangle.
  EXPECT_TRUE(throws_bad_input(reading("type.msh", replace_line(base_, 48, "2 1 9 2")),
                               {"type.msh:48:", "expected a linear element type", "'9'"}));
}

TEST_F(GmshMalformed, MissingSection) {
  auto lines = lines_of(base_);
  EXPECT_TRUE(throws_bad_input(reading("noelem.msh", truncate_lines(base_, 35)),
                               {"noelem.msh:35:", "expected an $Elements section, found end of file"}));
  EXPECT_TRUE(throws_bad_input(reading("noend.msh", replace_line(base_, 6, "still a comment")),
                               {"noend.msh:51:", "expected $EndComments closing the section opened "
                                                 "at line 4"}));
}

// Prisms as Gmsh 4.8 writes them (data/prism_extruded.geo: the triangle
// (0,0)-(1,0)-(0,1) extruded to z = 1 in two recombined layers): 14 prisms
// read in VTK's order, none inside out, volume 1/2, and the faces of the
// three markers cover the boundary.
TEST(GmshReader, PrismsWrittenByGmshAreInVtkOrder) {
  const Mesh m = read_mesh(data_path("prism_extruded.msh"));
  EXPECT_EQ(m.n_cells(), 14);
  EXPECT_EQ(m.n_reoriented_cells(), 0);
  const MeshQuality q = quality(m);
  EXPECT_EQ(q.n_nonpositive_volumes, 0);
  EXPECT_NEAR(q.total_volume, 0.5, 1e-15);
  EXPECT_EQ(q.n_unmarked_boundary_faces, 0);
  EXPECT_EQ(m.markers().size(), 3u);
}

TEST(GmshReader, UnnamedGroupsAndThreeDimensions) {
  // One hexahedron (unit cube, Gmsh/VTK node order) on volume 1; its bottom
  // quad on surface 1 in physical group 7, which has no name.
  const std::string text =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$Entities\n0 0 2 1\n"
      "1 0 0 0 1 1 0 1 7 0\n2 0 0 1 1 1 1 0 0\n"
      "1 0 0 0 1 1 1 0 0\n$EndEntities\n"
      "$Nodes\n1 8 1 8\n3 1 0 8\n1\n2\n3\n4\n5\n6\n7\n8\n"
      "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n$EndNodes\n"
      "$Elements\n3 3 1 3\n2 1 3 1\n1 1 4 3 2\n2 2 3 1\n2 5 6 7 8\n3 1 5 1\n3 1 2 3 4 5 6 7 8\n"
      "$EndElements\n";
  const Mesh m = read_gmsh(write_temp("hex.msh", text));
  EXPECT_EQ(m.dim(), 3);
  EXPECT_EQ(m.n_nodes(), 8);
  EXPECT_EQ(m.n_cells(), 1);
  EXPECT_EQ(m.count_cells(CellType::hexahedron), 1);
  EXPECT_EQ(m.n_faces(), 6);
  EXPECT_EQ(m.n_boundary_faces(), 6);
  ASSERT_EQ(m.markers().size(), 1u);  // the top quad has no physical group
  EXPECT_EQ(m.markers()[0].name, "physical_7");
  EXPECT_EQ(m.markers()[0].n_faces(), 1);
}

TEST(MeshFromCells, HeaderExample) {
  // The usage example of mesh/mesh.hpp.
  MeshData d;
  d.add_node(0, 0);
  d.add_node(1, 0);
  d.add_node(0, 1);
  d.add_cell(CellType::triangle, {0, 1, 2});
  d.add_marker("wall").add_element({0, 1});
  const Mesh m = Mesh::from_cells(std::move(d));
  EXPECT_EQ(m.n_faces(), 3);
  EXPECT_EQ(m.n_boundary_faces(), 3);
  EXPECT_EQ(m.markers()[0].n_faces(), 1);
  const MeshQuality q = quality(m);
  EXPECT_EQ(q.n_unmarked_boundary_faces, 2);
  const std::string text = describe(q);
  EXPECT_NE(text.find("3 nodes, 1 cells (1 triangle), 3 faces (0 interior, 3 boundary)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("wall: 1 faces"), std::string::npos) << text;
  EXPECT_NE(text.find("2 boundary faces belong to no marker"), std::string::npos) << text;
}

TEST(MeshFromCells, OrientationAndConformity) {
  // Orientation::require rejects a clockwise cell; fix reverses it.
  auto clockwise = [] {
    MeshData d;
    d.add_node(0, 0);
    d.add_node(1, 0);
    d.add_node(0, 1);
    d.add_cell(CellType::triangle, {0, 2, 1});
    return d;
  };
  EXPECT_TRUE(throws_bad_input([&] { (void)Mesh::from_cells(clockwise(), Orientation::require); },
                               {"cell 0 (nodes 0 2 1) is clockwise"}));
  const Mesh fixed = Mesh::from_cells(clockwise(), Orientation::fix);
  EXPECT_EQ(fixed.n_reoriented_cells(), 1);
  EXPECT_DOUBLE_EQ(total_volume(compute_geometry(fixed)), 0.5);
  // Three triangles on one edge: not a conforming 2-D mesh.
  MeshData d;
  d.source = "fan.test";
  d.add_node(0, 0);
  d.add_node(1, 0);
  d.add_node(0.5, 1);
  d.add_node(0.5, -1);
  d.add_node(0.5, 2);
  d.add_cell(CellType::triangle, {0, 1, 2}, 11);
  d.add_cell(CellType::triangle, {1, 0, 3}, 12);
  d.add_cell(CellType::triangle, {0, 1, 4}, 13);
  EXPECT_TRUE(throws_bad_input([&] { (void)Mesh::from_cells(d); },
                               {"fan.test:13:", "shared by more than two cells"}));
  // A marker naming the same face twice.
  MeshData e = clockwise();
  e.add_marker("a").add_element({0, 1});
  e.add_marker("b").add_element({1, 0});
  EXPECT_TRUE(throws_bad_input([&] { (void)Mesh::from_cells(e); },
                               {"marker 'b' element 0 (nodes 1 0) is already in marker 'a'"}));
}

// Every prefix of the hand-written files, and every single-character
// corruption ('9', 'x', '-', a space or a newline in each place), either
// reads or fails with camber::Error(bad_input) naming the file and a line:
// no crash, no other exception, no huge allocation.
TEST(Readers, EveryTruncationAndCorruptionIsBadInputOrValid) {
  for (const char* name : {"mixed_2x1.su2", "mixed_2x1.msh"}) {
    const std::string text = read_text(data_path(name));
    const bool su2 = std::string(name).find(".su2") != std::string::npos;
    std::vector<std::string> variants;
    for (std::size_t n = 0; n < text.size(); ++n) variants.push_back(text.substr(0, n));
    for (std::size_t i = 0; i < text.size(); ++i)
      for (char ch : {'9', 'x', '-', ' ', '\n'}) {
        std::string v = text;
        v[i] = ch;
        variants.push_back(v);
      }
    int n_valid = 0, n_bad = 0;
    const std::string path = write_temp(std::string("fuzz_") + name, "");
    for (const std::string& v : variants) {
      // Remove, then write: rewriting through truncation makes ext4 flush
      // to disk every time (its auto_da_alloc heuristic), 100x slower.
      std::remove(path.c_str());
      std::ofstream(path, std::ios::binary) << v;
      try {
        const Mesh m = su2 ? read_su2(path) : read_gmsh(path);
        EXPECT_GT(m.n_cells(), 0);
        ++n_valid;
      } catch (const camber::Error& e) {
        ++n_bad;
        ASSERT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
        ASSERT_EQ(e.message().rfind(path + ":", 0), 0u) << e.message();
      } catch (const std::exception& e) {
        FAIL() << "non-camber exception " << e.what() << " for:\n" << v;
      }
    }
    EXPECT_GT(n_bad, static_cast<int>(text.size()));  // nearly every prefix is bad
    std::cout << name << ": " << variants.size() << " variants, " << n_valid << " valid, "
              << n_bad << " bad input\n";
  }
}

// The real SU2 QuickStart mesh (read from ../shared/data, not copied into
// the project): counts from the file's own headers; faces from Euler's
// formula for a region with one hole, E = V + F = 5233 + 10216.
TEST(Su2Reader, Naca0012QuickStartMesh) {
  const std::string path = camber::test::shared_mesh("naca0012_inviscid_su2_quickstart.su2");
  CAMBER_NEED_SHARED_FILE(path);
  const Mesh m = read_su2(path);
  EXPECT_EQ(m.n_nodes(), 5233);
  EXPECT_EQ(m.n_cells(), 10216);
  EXPECT_EQ(m.count_cells(CellType::triangle), 10216);
  EXPECT_EQ(m.n_faces(), 5233 + 10216);
  EXPECT_EQ(m.n_boundary_faces(), 250);
  const int airfoil = m.marker_index("airfoil"), farfield = m.marker_index("farfield");
  ASSERT_GE(airfoil, 0);
  ASSERT_GE(farfield, 0);
  EXPECT_EQ(m.markers()[airfoil].n_faces(), 200);
  EXPECT_EQ(m.markers()[farfield].n_faces(), 50);
  const Geometry g = compute_geometry(m);
  const MeshQuality q = quality(m);
  EXPECT_EQ(q.n_nonpositive_volumes, 0);
  EXPECT_EQ(q.n_unmarked_boundary_faces, 0);
  // Cell volumes tile the region the boundary encloses.
  EXPECT_NEAR(total_volume(g), boundary_area(m, g), 1e-11 * total_volume(g));
  EXPECT_LE(max_closure_error(m, g), 1e-14);
  // Wall distance: positive, below the far-field distance (~20 chords).
  const auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                     wall_distance(m, g, {"airfoil"}));
  double dmin = 1e300, dmax = 0;
  for (std::size_t c = 0; c < d.extent(0); ++c) {
    dmin = std::min(dmin, d(c));
    dmax = std::max(dmax, d(c));
  }
  EXPECT_GT(dmin, 0.0);
  EXPECT_LT(dmax, 25.0);
  std::cout << describe(q);
}

}  // namespace camber_test_mesh
