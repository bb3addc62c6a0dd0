// Small cell graphs for the parallel tests, built in CSR form over global ids.
#pragma once

#include <cstdint>
#include <vector>

namespace camber::test {

struct CsrGraph {
  std::vector<std::int64_t> xadj;
  std::vector<std::int64_t> adjncy;
  std::int64_t n() const { return static_cast<std::int64_t>(xadj.size()) - 1; }
};

// nx x ny structured grid, cell (i, j) = j * nx + i, 4-neighbour adjacency.
inline CsrGraph grid_graph(std::int64_t nx, std::int64_t ny) {
  CsrGraph g;
  g.xadj.push_back(0);
  for (std::int64_t j = 0; j < ny; ++j)
    for (std::int64_t i = 0; i < nx; ++i) {
      if (j > 0) g.adjncy.push_back((j - 1) * nx + i);
      if (i > 0) g.adjncy.push_back(j * nx + i - 1);
      if (i + 1 < nx) g.adjncy.push_back(j * nx + i + 1);
      if (j + 1 < ny) g.adjncy.push_back((j + 1) * nx + i);
      g.xadj.push_back(static_cast<std::int64_t>(g.adjncy.size()));
    }
  return g;
}

// A chain 0 - 1 - ... - (n-1).
inline CsrGraph chain_graph(std::int64_t n) { return grid_graph(n, 1); }

// Rank r owns the r-th contiguous block of n cells (as even as possible).
inline std::vector<int> block_partition(std::int64_t n, int n_parts) {
  std::vector<int> part(static_cast<size_t>(n));
  for (std::int64_t g = 0; g < n; ++g) part[static_cast<size_t>(g)] = static_cast<int>(g * n_parts / n);
  return part;
}

}  // namespace camber::test
