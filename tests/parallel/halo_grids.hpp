// Distributed 100x100 grids shared by the HaloExchange tests (each test
// binary builds them once, collectively).
#pragma once

#include <cstdint>
#include <vector>

#include <camber/parallel/cell_distribution.hpp>
#include <camber/parallel/partition.hpp>
#include <camber/core/runtime.hpp>
#include "tests/parallel/graphs.hpp"

namespace camber::test {

// The 100x100 grid distributed with METIS, or "scattered": cells dealt to
// ranks by a hash, so that many cells are ghosts on several ranks at once
// (the hard case for reverse_add's accumulation), or in "strips" of rows
// (rank r neighbours r - 1 and r + 1 only).
enum class Layout { metis, scattered, strips };

inline std::vector<int> scattered_partition(std::int64_t n, int n_ranks) {
  std::vector<int> part(static_cast<size_t>(n));
  for (std::int64_t c = 0; c < n; ++c)
    part[static_cast<size_t>(c)] = static_cast<int>((static_cast<std::uint64_t>(c) * 2654435761u >> 7) %
                                                    static_cast<std::uint64_t>(n_ranks));
  return part;
}

struct Grid {
  explicit Grid(Layout layout)
      : part(layout == Layout::metis
                 ? camber::par::partition_over_ranks(MPI_COMM_WORLD, graph.xadj, graph.adjncy)
             : layout == Layout::scattered
                 ? scattered_partition(graph.n(), camber::comm_size(MPI_COMM_WORLD))
                 : camber::test::block_partition(graph.n(), camber::comm_size(MPI_COMM_WORLD))),
        dist(MPI_COMM_WORLD, graph.xadj, graph.adjncy, part) {}
  camber::test::CsrGraph graph = camber::test::grid_graph(100, 100);
  std::vector<int> part;
  camber::par::CellDistribution dist;
};

// Built once, collectively (every rank runs the tests in the same order).
inline const Grid& grid(Layout layout = Layout::metis) {
  static const Grid metis(Layout::metis);
  static const Grid scattered(Layout::scattered);
  static const Grid strips(Layout::strips);
  return layout == Layout::metis ? metis : layout == Layout::scattered ? scattered : strips;
}

inline double f(std::int64_t global, camber::index_t k) { return 1000.0 * static_cast<double>(global) + static_cast<double>(k) + 0.25; }

}  // namespace camber::test
