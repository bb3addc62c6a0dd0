// mesh::reorder_for_locality on a box of tetrahedra numbered at random: the
// same cells and markers (compared by their nodes' coordinates), nodes
// numbered in first use, a result that depends only on the mesh (two
// shuffles give the same file), and locality: face neighbours' numbers
// close together.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include <camber/mesh/mesh.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/mesh/reorder.hpp>
#include <camber/mesh/su2_writer.hpp>
#include "mesh_test_utils.hpp"
#include "shuffled_box.hpp"

namespace {

using camber::index_t;
using camber::mesh::CellType;
using camber::mesh::Mesh;
using camber::mesh::MeshData;
using camber_test_mesh::shuffled_box;

using Point = std::array<double, 3>;
Point point(const MeshData& d, index_t v) {
  return {d.coords[static_cast<size_t>(v) * 3], d.coords[static_cast<size_t>(v) * 3 + 1],
          d.coords[static_cast<size_t>(v) * 3 + 2]};
}
// Each cell (or marker element) as the sorted coordinates of its nodes.
std::vector<std::vector<Point>> elements(const MeshData& d, const std::vector<index_t>& offsets,
                                         const std::vector<index_t>& nodes) {
  std::vector<std::vector<Point>> out;
  for (size_t e = 0; e + 1 < offsets.size(); ++e) {
    std::vector<Point> pts;
    for (index_t j = offsets[e]; j < offsets[e + 1]; ++j) pts.push_back(point(d, nodes[static_cast<size_t>(j)]));
    std::sort(pts.begin(), pts.end());
    out.push_back(pts);
  }
  return out;
}

// Mean |left - right| over interior faces, in units of the cell count.
double mean_face_distance(const MeshData& d) {
  const Mesh m = Mesh::from_cells(d);
  const auto l = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_left());
  const auto r = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_right());
  double sum = 0.0;
  index_t interior = 0;
  for (index_t f = 0; f < m.n_faces(); ++f)
    if (r(f) >= 0) {
      sum += static_cast<double>(std::llabs(static_cast<long long>(l(f) - r(f))));
      ++interior;
    }
  return sum / static_cast<double>(interior) / static_cast<double>(m.n_cells());
}

TEST(MeshReorder, SameCellsAndMarkersNodesInFirstUse) {
  const MeshData in = shuffled_box(6, 1);
  const MeshData out = camber::mesh::reorder_for_locality(in);
  ASSERT_EQ(out.n_cells(), in.n_cells());
  ASSERT_EQ(out.n_nodes(), in.n_nodes());
  auto a = elements(in, in.cell_offsets, in.cell_nodes), b = elements(out, out.cell_offsets, out.cell_nodes);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  ASSERT_EQ(out.markers.size(), 1u);
  EXPECT_EQ(out.markers[0].name, "left");
  // Marker elements keep their order, with the same corners.
  EXPECT_EQ(elements(in, in.markers[0].offsets, in.markers[0].nodes),
            elements(out, out.markers[0].offsets, out.markers[0].nodes));
  // Scanned in cell order, each node first appears as the next number.
  index_t next = 0;
  std::vector<bool> seen(static_cast<size_t>(out.n_nodes()), false);
  for (const index_t v : out.cell_nodes)
    if (!seen[static_cast<size_t>(v)]) {
      EXPECT_EQ(v, next);
      seen[static_cast<size_t>(v)] = true;
      ++next;
    }
  EXPECT_EQ(next, out.n_nodes());
}

TEST(MeshReorder, DependsOnlyOnTheMesh) {
  // Every centroid differs, so two numberings of one mesh give one file.
  const MeshData a = camber::mesh::reorder_for_locality(shuffled_box(5, 2));
  const MeshData b = camber::mesh::reorder_for_locality(shuffled_box(5, 3));
  EXPECT_EQ(a.coords, b.coords);
  EXPECT_EQ(a.cell_nodes, b.cell_nodes);
  EXPECT_EQ(a.markers[0].nodes.size(), b.markers[0].nodes.size());
}

TEST(MeshReorder, FaceNeighboursNumberedClose) {
  // Numbered at random, two face neighbours are a third of the cell count
  // apart on average (E|X - Y| = N / 3 for independent uniform X, Y); along
  // Morton's curve through 8^3 cubes of 6 tetrahedra (3,072 cells) the
  // mean is a few percent: neighbours across a cube face are one cube
  // apart on the curve except at its jumps between octants.
  const MeshData in = shuffled_box(8, 4);
  const double before = mean_face_distance(in);
  const double after = mean_face_distance(camber::mesh::reorder_for_locality(in));
  EXPECT_NEAR(before, 1.0 / 3.0, 0.03);
  EXPECT_LT(after, 0.05);
}

// reorder_mesh_file (what `camber mesh-reorder` calls): the file it
// writes holds the reordered mesh of the file it read, and an output not
// named .su2 or a missing input is bad input naming the file.
TEST(MeshReorder, FileRoundTripAndBadInput) {
  const MeshData in = shuffled_box(4, 6);
  const std::string src = ::testing::TempDir() + "camber_mesh_reorder_in.su2";
  const std::string dst = ::testing::TempDir() + "camber_mesh_reorder_out.su2";
  camber::mesh::write_su2(Mesh::from_cells(in), src);
  const camber::mesh::ReorderedFile f = camber::mesh::reorder_mesh_file(src, dst, MPI_COMM_WORLD);
  EXPECT_EQ(f.n_cells, in.n_cells());
  EXPECT_EQ(f.n_nodes, in.n_nodes());
  const MeshData back = camber::mesh::read_mesh_data(dst);
  const MeshData expect = camber::mesh::reorder_for_locality(camber::mesh::read_mesh_data(src));
  EXPECT_EQ(back.cell_nodes, expect.cell_nodes);
  EXPECT_EQ(back.coords, expect.coords);
  EXPECT_TRUE(camber_test_mesh::throws_bad_input(
      [&] { camber::mesh::reorder_mesh_file(src, dst + ".vtk", MPI_COMM_WORLD); },
      {"the output '" + dst + ".vtk' must be an SU2 file"}));
  EXPECT_TRUE(camber_test_mesh::throws_bad_input(
      [&] { camber::mesh::reorder_mesh_file(src + ".missing", dst, MPI_COMM_WORLD); },
      {src + ".missing"}));
}

}  // namespace
