// Scale on paper: what a rank would hold and send at 64 to 1024 ranks,
// from the partitioner's halos on a real mesh, without those ranks.
//
//   halo_on_paper MESH [--parts 64,128,256,512,1024] [--kib-per-cell K]
//                      [--base-mib B] [--vars V]
//
// Reads MESH on one process (a measuring tool, not a solver path), builds
// its face graph and node graph (mesh/distributed_mesh.hpp: the ghost layer
// is every cell sharing a node with an owned cell), partitions the face
// graph into each part count with METIS (a whole-graph partitioner here:
// the parallel path's PT-Scotch gives cuts of the same order, see
// docs/performance.md) and prints, per part count:
//   owned cells per part (mean, max), ghost cells per part (mean, max),
//   ghosts / owned, neighbour parts (mean, max), the bytes one halo
//   exchange of V doubles per cell moves out of the busiest part, and the
//   memory of the busiest part, (owned + ghosts) * K KiB + B MiB, with K
//   and B measured at 1 to 4 ranks (benchmarks/run-parallel-input.sh).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/runtime.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/parallel/partition.hpp>

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: halo_on_paper MESH [--parts 64,128,...] [--kib-per-cell K] "
                         "[--base-mib B] [--vars V]\n");
    return 2;
  }
  std::vector<int> parts{64, 128, 256, 512, 1024};
  double kib_per_cell = 0.0, base_mib = 0.0;
  int vars = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--parts") {
      parts.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) parts.push_back(std::stoi(item));
    } else if (key == "--kib-per-cell") {
      kib_per_cell = std::stod(value);
    } else if (key == "--base-mib") {
      base_mib = std::stod(value);
    } else if (key == "--vars") {
      vars = std::stoi(value);
    } else {
      std::fprintf(stderr, "halo_on_paper: unknown option '%s'\n", key.c_str());
      return 2;
    }
  }
  return camber::run_guarded(runtime.comm(), [&] {
    const camber::mesh::Mesh m = camber::mesh::read_mesh(argv[1]);
    std::vector<std::int64_t> fx, fa, nx, na;
    camber::mesh::cell_graph(m, fx, fa);
    camber::mesh::node_graph(m, nx, na);
    const std::int64_t n = m.n_cells();
    std::printf("%s: %lld cells, %lld nodes; %d doubles per cell per exchange\n", argv[1],
                static_cast<long long>(n), static_cast<long long>(m.n_nodes()), vars);
    std::printf("%6s %10s %10s %10s %10s %8s %8s %8s %14s %12s\n", "parts", "owned", "owned",
                "ghosts", "ghosts", "ghost/", "nbrs", "nbrs", "halo out KiB", "memory MiB");
    std::printf("%6s %10s %10s %10s %10s %8s %8s %8s %14s %12s\n", "", "mean", "max", "mean",
                "max", "owned", "mean", "max", "(busiest)", "(busiest)");
    for (int k : parts) {
      const std::vector<int> part = camber::par::partition_graph(fx, fa, k);
      std::vector<std::int64_t> owned(static_cast<size_t>(k), 0), ghosts(owned), sends(owned);
      std::vector<std::vector<int>> nbrs(static_cast<size_t>(k));
      std::vector<std::int64_t> seen(static_cast<size_t>(n), -1), sent(static_cast<size_t>(n), -1);
      for (std::int64_t c = 0; c < n; ++c) ++owned[static_cast<size_t>(part[static_cast<size_t>(c)])];
      // Ghosts of part p: the distinct cells of other parts that share a
      // node with a cell of p. Cells sent by p: its cells that are ghosts
      // somewhere (counted once per receiving part).
      std::vector<std::vector<std::int64_t>> members(static_cast<size_t>(k));
      for (std::int64_t c = 0; c < n; ++c) members[static_cast<size_t>(part[static_cast<size_t>(c)])].push_back(c);
      for (int p = 0; p < k; ++p) {
        for (std::int64_t c : members[static_cast<size_t>(p)])
          for (std::int64_t e = nx[static_cast<size_t>(c)]; e < nx[static_cast<size_t>(c) + 1]; ++e) {
            const std::int64_t d = na[static_cast<size_t>(e)];
            const int q = part[static_cast<size_t>(d)];
            if (q == p || seen[static_cast<size_t>(d)] == p) continue;
            seen[static_cast<size_t>(d)] = p;
            ++ghosts[static_cast<size_t>(p)];
            ++sends[static_cast<size_t>(q)];  // q sends d to p
            nbrs[static_cast<size_t>(p)].push_back(q);
          }
      }
      double nb_mean = 0.0;
      std::int64_t nb_max = 0;
      for (auto& list : nbrs) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        nb_mean += static_cast<double>(list.size()) / k;
        nb_max = std::max<std::int64_t>(nb_max, static_cast<std::int64_t>(list.size()));
      }
      const auto mean = [&](const std::vector<std::int64_t>& v) {
        double s = 0.0;
        for (std::int64_t x : v) s += static_cast<double>(x);
        return s / k;
      };
      std::int64_t busiest = 0;
      for (int p = 1; p < k; ++p)
        if (owned[static_cast<size_t>(p)] + ghosts[static_cast<size_t>(p)] >
            owned[static_cast<size_t>(busiest)] + ghosts[static_cast<size_t>(busiest)])
          busiest = p;
      const double local = static_cast<double>(owned[static_cast<size_t>(busiest)] +
                                                ghosts[static_cast<size_t>(busiest)]);
      std::printf("%6d %10.0f %10lld %10.0f %10lld %8.3f %8.1f %8lld %14.1f %12.0f\n", k,
                  mean(owned), static_cast<long long>(*std::max_element(owned.begin(), owned.end())),
                  mean(ghosts),
                  static_cast<long long>(*std::max_element(ghosts.begin(), ghosts.end())),
                  mean(ghosts) / mean(owned), nb_mean, static_cast<long long>(nb_max),
                  static_cast<double>(*std::max_element(sends.begin(), sends.end())) * vars * 8 /
                      1024.0,
                  local * kib_per_cell / 1024.0 + base_mib);
    }
    return 0;
  });
}
