#include <camber/parallel/partition.hpp>

#include <metis.h>
#include <ptscotch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/parallel/collectives.hpp>

namespace camber::par {

namespace {

// Every METIS return code goes through here.
void check_metis(int code, const char* call) {
  if (code == METIS_OK) return;
  const char* what = code == METIS_ERROR_INPUT    ? "invalid input"
                     : code == METIS_ERROR_MEMORY ? "out of memory"
                                                  : "internal error";
  detail::throw_error(ErrorKind::failure,
                      CAMBER_MSG("METIS call " << call << " failed: " << what << " (code "
                                               << code << ")"),
                      __FILE__, __LINE__);
}
#define CAMBER_CHECK_METIS(call) check_metis((call), #call)

// METIS' idx_t is 32 or 64 bits depending on how it was built
// (IDXTYPEWIDTH); refuse values it cannot hold instead of truncating.
std::vector<idx_t> to_idx(const std::vector<std::int64_t>& values, const char* what) {
  std::vector<idx_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    CAMBER_REQUIRE(values[i] >= std::numeric_limits<idx_t>::min() &&
                       values[i] <= std::numeric_limits<idx_t>::max(),
                   what << "[" << i << "] = " << values[i] << " does not fit METIS' "
                        << IDXTYPEWIDTH << "-bit index type; the graph is too large for "
                        << "this METIS build (rebuild METIS with IDXTYPEWIDTH=64)");
    out[i] = static_cast<idx_t>(values[i]);
  }
  return out;
}

// With for_metis, also refuse weight totals that METIS' idx_t cannot hold.
void check_weights(const std::vector<std::int64_t>& xadj, const std::vector<std::int64_t>& adjncy,
                   const PartitionOptions& o, bool for_metis) {
  const size_t n = xadj.size() - 1;
  CAMBER_REQUIRE(o.vertex_weights.empty() || o.vertex_weights.size() == n,
                 "partition: " << o.vertex_weights.size() << " vertex weights for " << n
                               << " vertices; give one per vertex or none");
  CAMBER_REQUIRE(o.edge_weights.empty() || o.edge_weights.size() == adjncy.size(),
                 "partition: " << o.edge_weights.size() << " edge weights for "
                               << adjncy.size() << " adjacency entries; give one per entry or none");
  // METIS sums weights in idx_t: keep the totals representable.
  const std::int64_t limit = for_metis ? std::int64_t{std::numeric_limits<idx_t>::max()}
                                       : std::numeric_limits<std::int64_t>::max() / 2;
  std::int64_t total = 0;
  for (auto w : o.vertex_weights) {
    CAMBER_REQUIRE(w >= 0, "partition: negative vertex weight " << w);
    total += std::min(w, limit);
    CAMBER_REQUIRE(total <= limit, "partition: the vertex weights sum past " << limit
                                       << " (METIS uses " << IDXTYPEWIDTH
                                       << "-bit indices); scale them down");
  }
  total = 0;
  for (auto w : o.edge_weights) {
    CAMBER_REQUIRE(w > 0, "partition: edge weights must be positive, got " << w);
    total += std::min(w, limit);
    CAMBER_REQUIRE(total <= limit, "partition: the edge weights sum past " << limit
                                       << " (METIS uses " << IDXTYPEWIDTH
                                       << "-bit indices); scale them down");
  }
}

}  // namespace

void validate_graph(const std::vector<std::int64_t>& xadj,
                    const std::vector<std::int64_t>& adjncy) {
  CAMBER_REQUIRE(!xadj.empty(), "graph: xadj must have n_vertices + 1 entries (got none)");
  CAMBER_REQUIRE(xadj.front() == 0, "graph: xadj[0] must be 0, got " << xadj.front());
  const std::int64_t n = static_cast<std::int64_t>(xadj.size()) - 1;
  for (std::int64_t v = 0; v < n; ++v)
    CAMBER_REQUIRE(xadj[v + 1] >= xadj[v], "graph: xadj decreases at vertex " << v);
  CAMBER_REQUIRE(xadj.back() == static_cast<std::int64_t>(adjncy.size()),
                 "graph: xadj ends at " << xadj.back() << " but adjncy has " << adjncy.size()
                                         << " entries");
  // Sorted copies of each row make the symmetry check O(E log degree).
  std::vector<std::int64_t> sorted(adjncy);
  for (std::int64_t v = 0; v < n; ++v) {
    auto b = sorted.begin() + xadj[v], e = sorted.begin() + xadj[v + 1];
    std::sort(b, e);
    for (auto it = b; it != e; ++it) {
      CAMBER_REQUIRE(*it >= 0 && *it < n,
                     "graph: vertex " << v << " has neighbour " << *it << " outside [0, " << n << ")");
      CAMBER_REQUIRE(*it != v, "graph: vertex " << v << " has a self-loop");
      CAMBER_REQUIRE(it == b || *(it - 1) != *it,
                     "graph: edge " << v << " - " << *it << " is listed twice");
    }
  }
  for (std::int64_t v = 0; v < n; ++v)
    for (std::int64_t k = xadj[v]; k < xadj[v + 1]; ++k) {
      const std::int64_t w = adjncy[k];
      CAMBER_REQUIRE(std::binary_search(sorted.begin() + xadj[w], sorted.begin() + xadj[w + 1], v),
                     "graph: edge " << v << " -> " << w << " has no reverse " << w << " -> " << v
                                    << "; list every edge in both directions");
    }
}

std::vector<int> partition_graph(const std::vector<std::int64_t>& xadj,
                                 const std::vector<std::int64_t>& adjncy, int n_parts,
                                 const PartitionOptions& options) {
  CAMBER_REQUIRE(n_parts >= 1, "partition_graph: n_parts must be at least 1, got " << n_parts);
  validate_graph(xadj, adjncy);
  check_weights(xadj, adjncy, options, true);
  CAMBER_REQUIRE(options.imbalance_tolerance > 0.0 && options.imbalance_tolerance < 10.0,
                 "partition_graph: imbalance_tolerance must be in (0, 10), got "
                     << options.imbalance_tolerance);
  const std::int64_t n = static_cast<std::int64_t>(xadj.size()) - 1;
  std::vector<int> part(static_cast<size_t>(n), 0);
  if (n_parts == 1 || n == 0) return part;
  if (n_parts >= n) {
    for (std::int64_t v = 0; v < n; ++v) part[static_cast<size_t>(v)] = static_cast<int>(v);
    return part;
  }

  std::vector<idx_t> m_xadj = to_idx(xadj, "xadj");
  std::vector<idx_t> m_adjncy = to_idx(adjncy, "adjncy");
  std::vector<idx_t> m_vwgt = to_idx(options.vertex_weights, "vertex_weights");
  std::vector<idx_t> m_adjwgt = to_idx(options.edge_weights, "edge_weights");
  idx_t nvtxs = static_cast<idx_t>(n);
  idx_t ncon = 1;
  idx_t nparts = n_parts;
  idx_t objval = 0;
  std::vector<idx_t> m_part(static_cast<size_t>(n), 0);

  idx_t opts[METIS_NOPTIONS];
  CAMBER_CHECK_METIS(METIS_SetDefaultOptions(opts));
  opts[METIS_OPTION_NUMBERING] = 0;
  opts[METIS_OPTION_SEED] = options.seed;
  // METIS' ufactor is the allowed imbalance in thousandths.
  opts[METIS_OPTION_UFACTOR] =
      static_cast<idx_t>(std::max(1.0, std::round(options.imbalance_tolerance * 1000.0)));

  PartitionMethod method = options.method;
  if (method == PartitionMethod::automatic)
    method = n_parts <= 8 ? PartitionMethod::recursive : PartitionMethod::kway;
  idx_t* vwgt = m_vwgt.empty() ? nullptr : m_vwgt.data();
  idx_t* adjwgt = m_adjwgt.empty() ? nullptr : m_adjwgt.data();
  if (method == PartitionMethod::kway) {
    CAMBER_CHECK_METIS(METIS_PartGraphKway(&nvtxs, &ncon, m_xadj.data(), m_adjncy.data(), vwgt,
                                           nullptr, adjwgt, &nparts, nullptr, nullptr, opts,
                                           &objval, m_part.data()));
  } else {
    CAMBER_CHECK_METIS(METIS_PartGraphRecursive(&nvtxs, &ncon, m_xadj.data(), m_adjncy.data(),
                                                vwgt, nullptr, adjwgt, &nparts, nullptr, nullptr,
                                                opts, &objval, m_part.data()));
  }
  for (size_t v = 0; v < part.size(); ++v) {
    CAMBER_REQUIRE(m_part[v] >= 0 && m_part[v] < nparts,
                   "METIS returned part " << m_part[v] << " for vertex " << v);
    part[v] = static_cast<int>(m_part[v]);
  }
  return part;
}

std::vector<int> partition_over_ranks(MPI_Comm comm, const std::vector<std::int64_t>& xadj,
                                      const std::vector<std::int64_t>& adjncy,
                                      const PartitionOptions& options) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  std::vector<int> part;
  collective_guard(comm, [&] {
    if (rank == 0) part = partition_graph(xadj, adjncy, size, options);
  });
  std::int64_t n = static_cast<std::int64_t>(part.size());
  CAMBER_CHECK_MPI(MPI_Bcast(&n, 1, MPI_INT64_T, 0, comm));
  part.resize(static_cast<size_t>(n));
  // MPI counts are int: broadcast in chunks so any vertex count works.
  constexpr std::int64_t chunk = std::numeric_limits<int>::max() / 2;
  for (std::int64_t begin = 0; begin < n; begin += chunk) {
    const int count = static_cast<int>(std::min(chunk, n - begin));
    CAMBER_CHECK_MPI(MPI_Bcast(part.data() + begin, count, MPI_INT, 0, comm));
  }
  return part;
}

PartitionQuality partition_quality(const std::vector<std::int64_t>& xadj,
                                   const std::vector<std::int64_t>& adjncy,
                                   const std::vector<int>& part, int n_parts,
                                   const PartitionOptions& weights) {
  CAMBER_REQUIRE(!xadj.empty() && xadj.back() == static_cast<std::int64_t>(adjncy.size()),
                 "partition_quality: xadj/adjncy are not a CSR graph");
  const size_t n = xadj.size() - 1;
  CAMBER_REQUIRE(part.size() == n,
                 "partition_quality: " << part.size() << " parts for " << n << " vertices");
  CAMBER_REQUIRE(n_parts >= 1, "partition_quality: n_parts must be at least 1");
  check_weights(xadj, adjncy, weights, false);
  PartitionQuality q;
  std::vector<std::int64_t> load(static_cast<size_t>(n_parts), 0);
  std::int64_t total = 0;
  std::int64_t cut_twice = 0;
  for (size_t v = 0; v < n; ++v) {
    CAMBER_REQUIRE(part[v] >= 0 && part[v] < n_parts,
                   "partition_quality: vertex " << v << " has part " << part[v] << " outside [0, "
                                                << n_parts << ")");
    const std::int64_t w = weights.vertex_weights.empty() ? 1 : weights.vertex_weights[v];
    load[static_cast<size_t>(part[v])] += w;
    total += w;
    for (std::int64_t k = xadj[v]; k < xadj[v + 1]; ++k)
      if (part[static_cast<size_t>(adjncy[static_cast<size_t>(k)])] != part[v])
        cut_twice += weights.edge_weights.empty() ? 1 : weights.edge_weights[static_cast<size_t>(k)];
  }
  q.edge_cut = cut_twice / 2;  // each edge is listed in both directions
  const double mean = static_cast<double>(total) / n_parts;
  const std::int64_t max_load = *std::max_element(load.begin(), load.end());
  q.imbalance = mean > 0.0 ? static_cast<double>(max_load) / mean - 1.0 : 0.0;
  return q;
}

namespace {

// First global vertex of every rank, and the total at the end (size + 1).
std::vector<std::int64_t> vertex_starts(MPI_Comm comm, std::int64_t n_mine) {
  const int size = comm_size(comm);
  std::vector<std::int64_t> counts(static_cast<size_t>(size));
  CAMBER_CHECK_MPI(MPI_Allgather(&n_mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm));
  std::vector<std::int64_t> starts(1, 0);
  for (std::int64_t c : counts) starts.push_back(starts.back() + c);
  return starts;
}

// The rank whose range holds global vertex v.
int rank_of(const std::vector<std::int64_t>& starts, std::int64_t v) {
  return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), v) - starts.begin()) - 1;
}

}  // namespace

std::vector<int> partition_distributed(MPI_Comm comm, const std::vector<std::int64_t>& xadj,
                                       const std::vector<std::int64_t>& adjncy,
                                       const PartitionOptions& options) {
  const int size = comm_size(comm);
  const std::int64_t n_mine = xadj.empty() ? 0 : static_cast<std::int64_t>(xadj.size()) - 1;
  const std::vector<std::int64_t> starts = vertex_starts(comm, n_mine);
  std::vector<SCOTCH_Num> vert, edge, weight;
  collective_guard(comm, [&] {
    CAMBER_REQUIRE(!xadj.empty() && xadj.front() == 0 &&
                       xadj.back() == static_cast<std::int64_t>(adjncy.size()),
                   "partition_distributed: xadj must have n + 1 entries from 0 to adjncy.size()");
    CAMBER_REQUIRE(options.vertex_weights.empty() ||
                       static_cast<std::int64_t>(options.vertex_weights.size()) == n_mine,
                   "partition_distributed: " << options.vertex_weights.size()
                                             << " vertex weights for " << n_mine
                                             << " local vertices");
    const std::int64_t limit = std::numeric_limits<SCOTCH_Num>::max();
    CAMBER_REQUIRE(starts.back() < limit && static_cast<std::int64_t>(adjncy.size()) < limit,
                   "partition_distributed: " << starts.back() << " vertices and "
                                             << adjncy.size()
                                             << " local edge entries; PT-Scotch here takes "
                                                "fewer than 2^31 of each");
    vert.assign(xadj.begin(), xadj.end());
    edge.reserve(adjncy.size());
    for (std::int64_t v : adjncy) {
      CAMBER_REQUIRE(v >= 0 && v < starts.back(), "partition_distributed: neighbour "
                                                      << v << " outside [0, " << starts.back()
                                                      << ")");
      edge.push_back(static_cast<SCOTCH_Num>(v));
    }
    weight.assign(options.vertex_weights.begin(), options.vertex_weights.end());
  });
  if (size == 1) return std::vector<int>(static_cast<size_t>(n_mine), 0);

  // A context with a fixed seed, so equal input at equal rank count gives
  // equal parts (Scotch's default seeds vary), and one thread per rank (the
  // ranks already fill the cores; by default each rank starts a thread per
  // core). The sequential stages of a distributed bipartition run in
  // Scotch's default context, whose thread count SCOTCH_PTHREAD_NUMBER sets
  // when the library loads: the test environment sets it to 1
  // (cmake/CamberTesting.cmake; docs/getting-started.md).
  SCOTCH_Context context;
  SCOTCH_Dgraph graph, bound;
  SCOTCH_Strat strategy;
  CAMBER_REQUIRE(SCOTCH_contextInit(&context) == 0 && SCOTCH_dgraphInit(&graph, comm) == 0 &&
                     SCOTCH_dgraphInit(&bound, comm) == 0,
                 "partition_distributed: SCOTCH_contextInit or SCOTCH_dgraphInit failed");
  const int spawned = SCOTCH_contextThreadSpawn(&context, 1, nullptr);
  SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
  SCOTCH_contextOptionSetNum(&context, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1);
  SCOTCH_contextRandomSeed(&context, static_cast<SCOTCH_Num>(options.seed));
  SCOTCH_stratInit(&strategy);
  std::vector<SCOTCH_Num> part(static_cast<size_t>(std::max<std::int64_t>(n_mine, 1)));
  int status = spawned != 0 ? spawned : SCOTCH_dgraphBuild(
      &graph, 0, static_cast<SCOTCH_Num>(n_mine), static_cast<SCOTCH_Num>(n_mine), vert.data(),
      nullptr, weight.empty() ? nullptr : weight.data(), nullptr,
      static_cast<SCOTCH_Num>(edge.size()), static_cast<SCOTCH_Num>(edge.size()), edge.data(),
      nullptr, nullptr);
  // Scotch's routines are collective and report locally; agree before going on.
  const auto agree = [&](int local) {
    int any = 0;
    CAMBER_CHECK_MPI(MPI_Allreduce(&local, &any, 1, MPI_INT, MPI_MAX, comm));
    return any;
  };
  if (agree(status) == 0) status = SCOTCH_dgraphCheck(&graph);
  if (agree(status) == 0) status = SCOTCH_contextBindDgraph(&context, &graph, &bound);
  const bool built = agree(status) == 0;
  if (built) {
    SCOTCH_stratDgraphMapBuild(&strategy, SCOTCH_STRATQUALITY, static_cast<SCOTCH_Num>(size),
                               static_cast<SCOTCH_Num>(size), options.imbalance_tolerance);
    status = SCOTCH_dgraphPart(&bound, static_cast<SCOTCH_Num>(size), &strategy, part.data());
  }
  const bool parted = built && agree(status) == 0;
  SCOTCH_stratExit(&strategy);
  SCOTCH_dgraphExit(&bound);
  SCOTCH_dgraphExit(&graph);
  SCOTCH_contextExit(&context);
  collective_guard(comm, [&] {
    CAMBER_REQUIRE(built, "partition_distributed: PT-Scotch refused the graph (SCOTCH_contextThreadSpawn, "
                          "SCOTCH_dgraphBuild or SCOTCH_dgraphCheck failed: an edge listed one "
                          "way, or a bad index)");
    CAMBER_REQUIRE(parted, "partition_distributed: SCOTCH_dgraphPart failed");
  });
  return std::vector<int>(part.begin(), part.begin() + n_mine);
}

PartitionQuality partition_quality(MPI_Comm comm, const std::vector<std::int64_t>& xadj,
                                   const std::vector<std::int64_t>& adjncy,
                                   const std::vector<int>& part) {
  const int size = comm_size(comm), me = comm_rank(comm);
  const std::int64_t n_mine = static_cast<std::int64_t>(part.size());
  const std::vector<std::int64_t> starts = vertex_starts(comm, n_mine);
  // Ask each neighbour's rank for its part.
  std::vector<std::vector<std::int64_t>> ask(static_cast<size_t>(size));
  for (std::int64_t v : adjncy) ask[static_cast<size_t>(rank_of(starts, v))].push_back(v);
  std::vector<std::int64_t> from;
  const std::vector<std::int64_t> asked = exchange(ask, comm, &from);
  std::vector<std::vector<std::int64_t>> answer(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r)
    for (std::int64_t k = from[static_cast<size_t>(r)]; k < from[static_cast<size_t>(r) + 1]; ++k)
      answer[static_cast<size_t>(r)].push_back(
          part[static_cast<size_t>(asked[static_cast<size_t>(k)] - starts[static_cast<size_t>(me)])]);
  std::vector<std::int64_t> got_from;
  const std::vector<std::int64_t> got = exchange(answer, comm, &got_from);
  // The answers come back grouped by rank, in the order asked.
  std::vector<std::int64_t> next(got_from.begin(), got_from.end() - 1);
  std::int64_t cut2 = 0;
  std::vector<std::int64_t> weight(static_cast<size_t>(size), 0);
  for (std::int64_t v = 0; v < n_mine; ++v) {
    ++weight[static_cast<size_t>(part[static_cast<size_t>(v)])];
    for (std::int64_t k = xadj[static_cast<size_t>(v)]; k < xadj[static_cast<size_t>(v) + 1]; ++k) {
      const int r = rank_of(starts, adjncy[static_cast<size_t>(k)]);
      if (got[static_cast<size_t>(next[static_cast<size_t>(r)]++)] != part[static_cast<size_t>(v)])
        ++cut2;
    }
  }
  std::vector<std::int64_t> total(static_cast<size_t>(size) + 1, 0);
  weight.push_back(cut2);
  CAMBER_CHECK_MPI(MPI_Allreduce(weight.data(), total.data(), size + 1, MPI_INT64_T, MPI_SUM, comm));
  PartitionQuality q;
  q.edge_cut = total.back() / 2;
  const std::int64_t heaviest = *std::max_element(total.begin(), total.end() - 1);
  q.imbalance = starts.back() == 0 ? 0.0
                                   : static_cast<double>(heaviest) * size /
                                             static_cast<double>(starts.back()) - 1.0;
  return q;
}

}  // namespace camber::par
