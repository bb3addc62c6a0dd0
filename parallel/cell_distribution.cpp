#include <camber/parallel/cell_distribution.hpp>

#include <algorithm>
#include <array>
#include <tuple>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::par {

namespace {

// FNV-1a over the values: cheap evidence that every rank got the same input.
void hash_into(std::uint64_t& h, std::uint64_t value) {
  for (int byte = 0; byte < 8; ++byte) {
    h ^= (value >> (8 * byte)) & 0xffu;
    h *= 1099511628211ull;
  }
}

std::array<std::int64_t, 4> fingerprint(const std::vector<std::int64_t>& xadj,
                                        const std::vector<std::int64_t>& adjncy,
                                        const std::vector<int>& part) {
  std::uint64_t h = 1469598103934665603ull;
  for (auto v : xadj) hash_into(h, static_cast<std::uint64_t>(v));
  for (auto v : adjncy) hash_into(h, static_cast<std::uint64_t>(v));
  for (auto v : part) hash_into(h, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
  return {static_cast<std::int64_t>(xadj.size()), static_cast<std::int64_t>(adjncy.size()),
          static_cast<std::int64_t>(part.size()), static_cast<std::int64_t>(h)};
}

}  // namespace

CellDistribution::CellDistribution(MPI_Comm comm, const std::vector<std::int64_t>& xadj,
                                   const std::vector<std::int64_t>& adjncy,
                                   const std::vector<int>& part)
    : comm_(comm) {
  const MPI_Comm c = comm_.get();
  const int me = comm_.rank();
  const int n_ranks = comm_.size();

  // Every rank must hold the same graph and partition; compare fingerprints
  // before anything that could fail on some ranks only.
  std::array<std::int64_t, 4> fp = fingerprint(xadj, adjncy, part), fp_min{}, fp_max{};
  CAMBER_CHECK_MPI(MPI_Allreduce(fp.data(), fp_min.data(), 4, MPI_INT64_T, MPI_MIN, c));
  CAMBER_CHECK_MPI(MPI_Allreduce(fp.data(), fp_max.data(), 4, MPI_INT64_T, MPI_MAX, c));

  collective_guard(c, [&] {
    CAMBER_REQUIRE(fp_min == fp_max,
                   "CellDistribution: the graph or partition differs between ranks; pass the "
                   "same xadj, adjncy and part on every rank (e.g. from partition_over_ranks)");
    CAMBER_REQUIRE(!xadj.empty() && xadj.front() == 0,
                   "CellDistribution: xadj must have n_cells + 1 entries starting at 0");
    const std::int64_t n = static_cast<std::int64_t>(xadj.size()) - 1;
    CAMBER_REQUIRE(xadj.back() == static_cast<std::int64_t>(adjncy.size()),
                   "CellDistribution: xadj ends at " << xadj.back() << " but adjncy has "
                                                    << adjncy.size() << " entries");
    CAMBER_REQUIRE(static_cast<std::int64_t>(part.size()) == n,
                   "CellDistribution: part has " << part.size() << " entries for " << n
                                                 << " cells");
    for (std::int64_t g = 0; g < n; ++g) {
      CAMBER_REQUIRE(part[g] >= 0 && part[g] < n_ranks,
                     "CellDistribution: cell " << g << " is assigned to rank " << part[g]
                                               << " but the communicator has " << n_ranks
                                               << " ranks");
      CAMBER_REQUIRE(xadj[g + 1] >= xadj[g], "CellDistribution: xadj decreases at cell " << g);
    }
    n_global_ = n;

    for (std::int64_t g = 0; g < n; ++g)
      if (part[g] == me) local_to_global_.push_back(g);
    n_owned_ = static_cast<index_t>(local_to_global_.size());

    // The owned rows, with each neighbour's owner.
    std::vector<std::int64_t> row_xadj(1, 0), row_adjncy;
    std::vector<int> row_owner;
    for (index_t l = 0; l < n_owned_; ++l) {
      const std::int64_t g = local_to_global_[l];
      for (std::int64_t k = xadj[g]; k < xadj[g + 1]; ++k) {
        const std::int64_t nb = adjncy[k];
        CAMBER_REQUIRE(nb >= 0 && nb < n, "CellDistribution: cell " << g << " has neighbour "
                                                                    << nb << " outside [0, " << n
                                                                    << ")");
        // Both ranks derive the pattern from their own rows; a one-way edge
        // would make them disagree (and hang), so refuse it.
        CAMBER_REQUIRE(part[nb] == me ||
                           std::find(adjncy.begin() + xadj[nb], adjncy.begin() + xadj[nb + 1],
                                     g) != adjncy.begin() + xadj[nb + 1],
                       "CellDistribution: edge " << g << " -> " << nb << " has no reverse "
                                                 << nb << " -> " << g
                                                 << "; list every edge in both directions");
        row_adjncy.push_back(nb);
        row_owner.push_back(part[nb]);
      }
      row_xadj.push_back(static_cast<std::int64_t>(row_adjncy.size()));
    }
    lay_out(row_xadj, row_adjncy, row_owner);
  });
  check_counts();
}

CellDistribution::CellDistribution(MPI_Comm comm, std::vector<std::int64_t> owned,
                                   const std::vector<std::int64_t>& xadj,
                                   const std::vector<std::int64_t>& adjncy,
                                   const std::vector<int>& adjncy_owner)
    : comm_(comm) {
  const MPI_Comm c = comm_.get();
  const std::int64_t n_mine = static_cast<std::int64_t>(owned.size());
  CAMBER_CHECK_MPI(MPI_Allreduce(&n_mine, &n_global_, 1, MPI_INT64_T, MPI_SUM, c));
  collective_guard(c, [&] {
    CAMBER_REQUIRE(xadj.size() == owned.size() + 1 && xadj.front() == 0 &&
                       xadj.back() == static_cast<std::int64_t>(adjncy.size()) &&
                       adjncy_owner.size() == adjncy.size(),
                   "CellDistribution: xadj must have one entry per owned cell plus one, from 0 "
                   "to adjncy.size(), and adjncy_owner one entry per adjncy entry");
    std::vector<std::int64_t> sorted(owned);
    std::sort(sorted.begin(), sorted.end());
    CAMBER_REQUIRE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(),
                   "CellDistribution: the owned cells must be distinct");
    for (int r : adjncy_owner)
      CAMBER_REQUIRE(r >= 0 && r < comm_.size(),
                     "CellDistribution: owner rank " << r << " outside the communicator's "
                                                     << comm_.size() << " ranks");
    local_to_global_ = std::move(owned);
    n_owned_ = static_cast<index_t>(local_to_global_.size());
    lay_out(xadj, adjncy, adjncy_owner);
  });
  check_counts();
}

void CellDistribution::lay_out(const std::vector<std::int64_t>& xadj,
                               const std::vector<std::int64_t>& adjncy,
                               const std::vector<int>& owner) {
  const int me = comm_.rank();
  owned_lookup_.clear();
  for (index_t l = 0; l < n_owned_; ++l)
    owned_lookup_.emplace_back(local_to_global_[static_cast<size_t>(l)], l);
  std::sort(owned_lookup_.begin(), owned_lookup_.end());
  // Ghosts as (owner, global id) and sends as (destination, global id,
  // local id): a rank stores its ghosts from r by global id, so r sends
  // them in that order whatever the order of its owned cells.
  std::vector<std::pair<int, std::int64_t>> ghosts;
  std::vector<std::tuple<int, std::int64_t, index_t>> sends;
  for (index_t l = 0; l < n_owned_; ++l)
    for (std::int64_t k = xadj[static_cast<size_t>(l)]; k < xadj[static_cast<size_t>(l) + 1]; ++k) {
      const int r = owner[static_cast<size_t>(k)];
      if (r == me) continue;
      ghosts.emplace_back(r, adjncy[static_cast<size_t>(k)]);
      sends.emplace_back(r, local_to_global_[static_cast<size_t>(l)], l);
    }
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  std::sort(sends.begin(), sends.end());
  sends.erase(std::unique(sends.begin(), sends.end()), sends.end());

  for (const auto& [r, g] : ghosts) {
    ghost_lookup_.emplace_back(g, static_cast<index_t>(local_to_global_.size()));
    local_to_global_.push_back(g);
    ghost_owner_.push_back(r);
  }
  std::sort(ghost_lookup_.begin(), ghost_lookup_.end());

  owned_xadj_.assign(1, 0);
  for (index_t l = 0; l < n_owned_; ++l) {
    for (std::int64_t k = xadj[static_cast<size_t>(l)]; k < xadj[static_cast<size_t>(l) + 1]; ++k) {
      const index_t nb = local_id(adjncy[static_cast<size_t>(k)]);
      CAMBER_REQUIRE(nb >= 0, "CellDistribution: neighbour " << adjncy[static_cast<size_t>(k)]
                                                             << " of cell "
                                                             << local_to_global_[static_cast<size_t>(l)]
                                                             << " is said to be owned here but "
                                                                "is not among the owned cells");
      owned_adjncy_.push_back(nb);
    }
    owned_xadj_.push_back(static_cast<index_t>(owned_adjncy_.size()));
  }

  // Neighbour ranks: the union of owners of ghosts and destinations of sends.
  std::vector<int> ranks;
  for (const auto& gh : ghosts) ranks.push_back(gh.first);
  for (const auto& sd : sends) ranks.push_back(std::get<0>(sd));
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  for (int r : ranks) {
    NeighbourRank nr;
    nr.rank = r;
    for (const auto& sd : sends)
      if (std::get<0>(sd) == r) nr.send_cells.push_back(std::get<2>(sd));
    const auto first = std::lower_bound(ghost_owner_.begin(), ghost_owner_.end(), r);
    const auto last = std::upper_bound(ghost_owner_.begin(), ghost_owner_.end(), r);
    nr.ghost_begin = n_owned_ + static_cast<index_t>(first - ghost_owner_.begin());
    nr.n_ghosts = static_cast<index_t>(last - first);
    neighbours_.push_back(std::move(nr));
  }
}

void CellDistribution::check_counts() const {
  const MPI_Comm c = comm_.get();
  const int me = comm_.rank();
  const int n_ranks = comm_.size();
  // What each rank sends me must be what I expect to receive.
  std::vector<std::int64_t> send_count(static_cast<size_t>(n_ranks), 0);
  std::vector<std::int64_t> expect(static_cast<size_t>(n_ranks), 0);
  std::vector<std::int64_t> incoming(static_cast<size_t>(n_ranks), 0);
  for (const auto& nr : neighbours_) {
    send_count[static_cast<size_t>(nr.rank)] = static_cast<std::int64_t>(nr.send_cells.size());
    expect[static_cast<size_t>(nr.rank)] = nr.n_ghosts;
  }
  CAMBER_CHECK_MPI(MPI_Alltoall(send_count.data(), 1, MPI_INT64_T, incoming.data(), 1,
                                MPI_INT64_T, c));
  collective_guard(c, [&] {
    for (int r = 0; r < n_ranks; ++r)
      CAMBER_REQUIRE(incoming[static_cast<size_t>(r)] == expect[static_cast<size_t>(r)],
                     "CellDistribution: rank " << r << " would send "
                                               << incoming[static_cast<size_t>(r)]
                                               << " cells to rank " << me << ", which has "
                                               << expect[static_cast<size_t>(r)]
                                               << " ghosts owned by it (inconsistent graph)");
  });
}

std::int64_t CellDistribution::global_id(index_t local) const {
  CAMBER_REQUIRE(local >= 0 && local < n_local(),
                 "CellDistribution::global_id: local id " << local << " outside [0, " << n_local()
                                                          << ")");
  return local_to_global_[static_cast<size_t>(local)];
}

index_t CellDistribution::local_id(std::int64_t global) const {
  const auto it = std::lower_bound(owned_lookup_.begin(), owned_lookup_.end(),
                                   std::make_pair(global, index_t{-1}));
  if (it != owned_lookup_.end() && it->first == global) return it->second;
  const auto gh = std::lower_bound(ghost_lookup_.begin(), ghost_lookup_.end(),
                                   std::make_pair(global, index_t{-1}));
  if (gh != ghost_lookup_.end() && gh->first == global) return gh->second;
  return -1;
}

}  // namespace camber::par
