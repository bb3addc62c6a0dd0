// A nonsymmetric block system on the 100 x 100 grid of the parallel tests
// (tests/parallel/halo_grids.hpp, METIS over the ranks), defined entry by
// entry from global cell ids so that every rank can compute any entry: a
// convection-diffusion stencil (diagonal 4.5, neighbours -1 -/+ the
// convection in x and y) whose blocks couple the bs components through
// fixed dense matrices. Diagonally dominant, so point-block Jacobi and
// GMRES converge.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <camber/solvers/linear/block_sparse_matrix.hpp>
#include "tests/parallel/halo_grids.hpp"

namespace camber::test {

inline constexpr std::int64_t grid_nx = 100;

// Entry (r, c) of the block coupling global cell g to global cell h.
inline double grid_entry(std::int64_t g, std::int64_t h, int r, int c, int bs) {
  const double mix = 0.1 * std::sin(1.0 + 3.0 * r + 7.0 * c + 0.5 * bs);
  if (g == h) return (r == c ? 4.5 : 0.0) + 3.0 * mix;
  double w = -1.0;
  if (h == g + 1) w -= 0.4;
  if (h == g - 1) w += 0.4;
  if (h == g + grid_nx) w -= 0.2;
  if (h == g - grid_nx) w += 0.2;
  return w * ((r == c ? 1.0 : 0.0) + mix);
}

// A smooth global field: component k of cell g.
inline double grid_field(std::int64_t g, int k) {
  return std::cos(0.01 * static_cast<double>(g) + 0.7 * k) + 0.001 * static_cast<double>(g % 17);
}

// The matrix on dist (the grid's distribution), blocks of bs.
inline camber::solvers::linear::BlockSparseMatrix grid_matrix(const camber::par::CellDistribution& dist,
                                                              int bs) {
  std::vector<camber::index_t> ptr(1, 0), cols;
  for (camber::index_t i = 0; i < dist.n_owned(); ++i) {
    std::vector<camber::index_t> row(1, i);
    const auto& xadj = dist.owned_xadj();
    const auto& adj = dist.owned_adjncy();
    for (auto e = xadj[static_cast<size_t>(i)]; e < xadj[static_cast<size_t>(i) + 1]; ++e)
      row.push_back(adj[static_cast<size_t>(e)]);
    std::sort(row.begin(), row.end());
    cols.insert(cols.end(), row.begin(), row.end());
    ptr.push_back(static_cast<camber::index_t>(cols.size()));
  }
  camber::solvers::linear::BlockSparseMatrix A(dist, bs, ptr, cols);
  const auto v = Kokkos::create_mirror_view(A.values());
  for (camber::index_t i = 0; i < dist.n_owned(); ++i)
    for (auto b = ptr[static_cast<size_t>(i)]; b < ptr[static_cast<size_t>(i) + 1]; ++b)
      for (int c = 0; c < bs; ++c)
        for (int r = 0; r < bs; ++r)
          v(static_cast<size_t>((b * bs + c) * bs + r)) =
              grid_entry(dist.global_id(i), dist.global_id(cols[static_cast<size_t>(b)]), r, c, bs);
  Kokkos::deep_copy(A.values(), v);
  return A;
}

// (A x)_i for owned row i with x = grid_field, from the definition alone.
inline double grid_product(const camber::par::CellDistribution& dist, camber::index_t i, int r, int bs) {
  const std::int64_t g = dist.global_id(i);
  std::vector<std::int64_t> cells(1, g);
  const auto& xadj = dist.owned_xadj();
  const auto& adj = dist.owned_adjncy();
  for (auto e = xadj[static_cast<size_t>(i)]; e < xadj[static_cast<size_t>(i) + 1]; ++e)
    cells.push_back(dist.global_id(adj[static_cast<size_t>(e)]));
  double s = 0.0;
  for (const std::int64_t h : cells)
    for (int c = 0; c < bs; ++c) s += grid_entry(g, h, r, c, bs) * grid_field(h, c);
  return s;
}

}  // namespace camber::test
