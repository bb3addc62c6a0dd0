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
#include <camber/mesh/reorder.hpp>

namespace {

using camber::index_t;
using camber::mesh::CellType;
using camber::mesh::Mesh;
using camber::mesh::MeshData;

// The unit cube in n^3 cubes of six tetrahedra each (Kuhn's split: every
// tetrahedron runs from corner 0 to corner 7 along one path of edges), the
// face x = 0 as marker "left"; cells and nodes shuffled with `seed`.
MeshData shuffled_box(int n, unsigned seed) {
  MeshData d;
  d.dim = 3;
  const auto id = [n](int i, int j, int k) { return static_cast<index_t>((k * (n + 1) + j) * (n + 1) + i); };
  for (int k = 0; k <= n; ++k)
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) d.add_node(double(i) / n, double(j) / n, double(k) / n);
  std::vector<std::array<index_t, 4>> cells;
  const int paths[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (const auto& p : paths) {
          int c[3] = {i, j, k};
          std::array<index_t, 4> t{};
          t[0] = id(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[p[s]];
            t[static_cast<size_t>(s) + 1] = id(c[0], c[1], c[2]);
          }
          cells.push_back(t);
        }
  std::vector<std::array<index_t, 3>> left;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j) {
      left.push_back({id(0, j, k), id(0, j + 1, k), id(0, j + 1, k + 1)});
      left.push_back({id(0, j, k), id(0, j, k + 1), id(0, j + 1, k + 1)});
    }
  std::mt19937 rng(seed);
  std::shuffle(cells.begin(), cells.end(), rng);
  std::vector<index_t> perm(static_cast<size_t>(d.n_nodes()));
  std::iota(perm.begin(), perm.end(), index_t{0});
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<double> coords(d.coords.size());
  for (size_t v = 0; v < perm.size(); ++v)
    for (int a = 0; a < 3; ++a) coords[static_cast<size_t>(perm[v]) * 3 + static_cast<size_t>(a)] = d.coords[v * 3 + static_cast<size_t>(a)];
  d.coords = coords;
  for (auto& t : cells) {
    for (auto& v : t) v = perm[static_cast<size_t>(v)];
    d.add_cell(CellType::tetrahedron, t.data(), 4);
  }
  auto& m = d.add_marker("left");
  for (auto& f : left) {
    for (auto& v : f) v = perm[static_cast<size_t>(v)];
    m.add_element(f.data(), 3);
  }
  return d;
}

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

}  // namespace
