// A box of tetrahedra numbered at random, shared by the mesh tests of cell
// order (test_mesh_reorder.cpp, test_distributed_mesh_mpi.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <vector>

#include <camber/mesh/mesh.hpp>

namespace camber_test_mesh {

using camber::index_t;
using camber::mesh::CellType;
using camber::mesh::MeshData;

// The unit cube in n^3 cubes of six tetrahedra each (Kuhn's split: every
// tetrahedron runs from corner 0 to corner 7 along one path of edges), the
// face x = 0 as marker "left"; cells and nodes shuffled with `seed`.
inline MeshData shuffled_box(int n, unsigned seed) {
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

}  // namespace camber_test_mesh
