// CellDistribution: owned cells, the ghost layer, numbering and the
// communication pattern, on a hand-checkable chain and a 10k-cell grid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include <camber/parallel/cell_distribution.hpp>
#include <camber/parallel/partition.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include "tests/parallel/graphs.hpp"

namespace par = camber::par;
using camber::index_t;
using camber::test::block_partition;
using camber::test::chain_graph;
using camber::test::grid_graph;

namespace {
int world_rank() { return camber::comm_rank(MPI_COMM_WORLD); }
int world_size() { return camber::comm_size(MPI_COMM_WORLD); }
}  // namespace

// Chain 0-1-...-7 in contiguous blocks: rank r owns [lo, hi], its ghosts
// are lo-1 (owned by the rank below) and hi+1 (the rank above), in that order.
TEST(CellDistribution, ChainOfEightHasExactGhostLists) {
  const auto g = chain_graph(8);
  const int size = world_size(), rank = world_rank();
  const auto part = block_partition(8, size);
  par::CellDistribution dist(MPI_COMM_WORLD, g.xadj, g.adjncy, part);

  std::vector<std::int64_t> owned, ghosts;
  for (std::int64_t c = 0; c < 8; ++c)
    if (part[c] == rank) owned.push_back(c);
  const std::int64_t lo = owned.front(), hi = owned.back();
  if (lo > 0) ghosts.push_back(lo - 1);
  if (hi < 7) ghosts.push_back(hi + 1);

  EXPECT_EQ(dist.n_global_cells(), 8);
  EXPECT_EQ(dist.n_owned(), static_cast<index_t>(owned.size()));
  EXPECT_EQ(dist.n_ghosts(), static_cast<index_t>(ghosts.size()));
  std::vector<std::int64_t> expect_l2g = owned;
  expect_l2g.insert(expect_l2g.end(), ghosts.begin(), ghosts.end());
  EXPECT_EQ(dist.local_to_global(), expect_l2g);

  // Each neighbour receives exactly the end cell facing it.
  ASSERT_EQ(dist.neighbours().size(), ghosts.size());
  for (const auto& nr : dist.neighbours()) {
    ASSERT_EQ(nr.n_ghosts, 1);
    ASSERT_EQ(nr.send_cells.size(), 1u);
    const std::int64_t ghost = dist.global_id(nr.ghost_begin);
    EXPECT_EQ(part[ghost], nr.rank);
    EXPECT_EQ(dist.global_id(nr.send_cells[0]), ghost < lo ? lo : hi);
  }
  if (size == 2) {  // the case written out by hand
    if (rank == 0) {
      EXPECT_EQ(dist.local_to_global(), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
      EXPECT_EQ(dist.ghost_owner(), (std::vector<int>{1}));
      EXPECT_EQ(dist.neighbours()[0].send_cells, (std::vector<index_t>{3}));
      EXPECT_EQ(dist.neighbours()[0].ghost_begin, 4);
    } else {
      EXPECT_EQ(dist.local_to_global(), (std::vector<std::int64_t>{4, 5, 6, 7, 3}));
      EXPECT_EQ(dist.ghost_owner(), (std::vector<int>{0}));
      EXPECT_EQ(dist.neighbours()[0].send_cells, (std::vector<index_t>{0}));
      EXPECT_EQ(dist.neighbours()[0].ghost_begin, 4);
    }
  }
  // Owned adjacency in local ids: the chain's interior cell lo+1 (if owned)
  // touches lo and lo+2.
  EXPECT_EQ(dist.owned_xadj().size(), static_cast<size_t>(dist.n_owned()) + 1);
  for (index_t l = 0; l < dist.n_owned(); ++l)
    for (index_t k = dist.owned_xadj()[l]; k < dist.owned_xadj()[l + 1]; ++k) {
      const index_t nb = dist.owned_adjncy()[k];
      ASSERT_GE(nb, 0);
      EXPECT_EQ(std::abs(dist.global_id(nb) - dist.global_id(l)), 1);
    }
}

TEST(CellDistribution, GridGhostsAreExactlyOffRankNeighbours) {
  const auto g = grid_graph(100, 100);
  const int rank = world_rank();
  const auto part = par::partition_over_ranks(MPI_COMM_WORLD, g.xadj, g.adjncy);
  par::CellDistribution dist(MPI_COMM_WORLD, g.xadj, g.adjncy, part);

  // Owned cells over all ranks add up to the grid, each counted once.
  std::int64_t owned = dist.n_owned(), total = 0;
  MPI_Allreduce(&owned, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, 10000);
  EXPECT_EQ(dist.n_global_cells(), 10000);

  // Owned: sorted, and exactly part == rank.
  std::vector<std::int64_t> expect_owned;
  std::set<std::int64_t> expect_ghosts;
  for (std::int64_t c = 0; c < g.n(); ++c) {
    if (part[c] != rank) continue;
    expect_owned.push_back(c);
    for (auto k = g.xadj[c]; k < g.xadj[c + 1]; ++k)
      if (part[g.adjncy[k]] != rank) expect_ghosts.insert(g.adjncy[k]);
  }
  const auto& l2g = dist.local_to_global();
  EXPECT_TRUE(std::equal(expect_owned.begin(), expect_owned.end(), l2g.begin(),
                         l2g.begin() + dist.n_owned()));
  EXPECT_EQ(std::set<std::int64_t>(l2g.begin() + dist.n_owned(), l2g.end()), expect_ghosts);
  EXPECT_EQ(dist.n_ghosts(), static_cast<index_t>(expect_ghosts.size()));

  // Ghosts grouped by owner rank ascending, sorted by global id within a group.
  for (index_t i = 0; i < dist.n_ghosts(); ++i) {
    const std::int64_t gid = l2g[dist.n_owned() + i];
    EXPECT_EQ(dist.ghost_owner()[i], part[gid]);
    if (i > 0) {
      const auto prev = std::make_pair(dist.ghost_owner()[i - 1], l2g[dist.n_owned() + i - 1]);
      EXPECT_LT(prev, std::make_pair(dist.ghost_owner()[i], gid));
    }
  }
  // global <-> local round trip, and cells that are not here.
  for (index_t l = 0; l < dist.n_local(); ++l) EXPECT_EQ(dist.local_id(l2g[l]), l);
  for (std::int64_t c = 0; c < g.n(); ++c)
    if (part[c] != rank && !expect_ghosts.count(c)) {
      ASSERT_EQ(dist.local_id(c), -1);
    }

  // Send lists: owned cells with a neighbour on that rank, in global order.
  for (const auto& nr : dist.neighbours()) {
    std::vector<std::int64_t> expect_send;
    for (auto c : expect_owned)
      for (auto k = g.xadj[c]; k < g.xadj[c + 1]; ++k)
        if (part[g.adjncy[k]] == nr.rank) {
          expect_send.push_back(c);
          break;
        }
    std::vector<std::int64_t> send;
    for (auto l : nr.send_cells) send.push_back(dist.global_id(l));
    EXPECT_EQ(send, expect_send) << "to rank " << nr.rank;
    EXPECT_GT(nr.n_ghosts, 0);
  }
  if (world_size() == 1) {
    EXPECT_EQ(dist.n_ghosts(), 0);
  }
}

TEST(CellDistribution, RankWithoutCellsIsValid) {
  // Every cell on rank 0: other ranks own nothing and have no ghosts.
  const auto g = chain_graph(5);
  par::CellDistribution dist(MPI_COMM_WORLD, g.xadj, g.adjncy, std::vector<int>(5, 0));
  EXPECT_EQ(dist.n_owned(), world_rank() == 0 ? 5 : 0);
  EXPECT_EQ(dist.n_ghosts(), 0);
  EXPECT_TRUE(dist.neighbours().empty());
}

TEST(CellDistribution, BadInputRaisesOnEveryRank) {
  const auto g = chain_graph(8);
  const int size = world_size();
  // A part out of range.
  auto bad = block_partition(8, size);
  bad[3] = size;
  EXPECT_THROW(par::CellDistribution(MPI_COMM_WORLD, g.xadj, g.adjncy, bad), camber::Error);
  // A one-way edge 0 -> 7 (7 does not list 0).
  auto xadj = g.xadj;
  auto adjncy = g.adjncy;
  adjncy.insert(adjncy.begin() + 1, 7);
  for (size_t v = 1; v < xadj.size(); ++v) ++xadj[v];
  std::vector<int> split(8, 0);
  split[7] = size - 1;
  if (size > 1) {
    EXPECT_THROW(par::CellDistribution(MPI_COMM_WORLD, xadj, adjncy, split), camber::Error);
    // Ranks disagree on the partition.
    auto mine = block_partition(8, size);
    if (world_rank() == 1) std::reverse(mine.begin(), mine.end());
    EXPECT_THROW(par::CellDistribution(MPI_COMM_WORLD, g.xadj, g.adjncy, mine), camber::Error);
  }
}

// Built from each rank's own rows (owned cells, their neighbours and the
// neighbours' owners), the layout is the one the global constructor gives
// for the same graph and partition: the same local numbering, ghost owners,
// owned adjacency and send lists.
TEST(CellDistribution, FromOwnRowsEqualsFromTheWholeGraph) {
  const auto g = grid_graph(37, 23);
  const int size = world_size(), rank = world_rank();
  // A partition that is not blocks: cells dealt round-robin in stripes of 5.
  std::vector<int> part(static_cast<size_t>(g.n()));
  for (std::int64_t c = 0; c < g.n(); ++c) part[static_cast<size_t>(c)] = static_cast<int>((c / 5) % size);
  const par::CellDistribution whole(MPI_COMM_WORLD, g.xadj, g.adjncy, part);

  std::vector<std::int64_t> owned, xadj{0}, adjncy;
  std::vector<int> owner;
  for (std::int64_t c = 0; c < g.n(); ++c) {
    if (part[static_cast<size_t>(c)] != rank) continue;
    owned.push_back(c);
    for (std::int64_t k = g.xadj[c]; k < g.xadj[c + 1]; ++k) {
      adjncy.push_back(g.adjncy[k]);
      owner.push_back(part[static_cast<size_t>(g.adjncy[k])]);
    }
    xadj.push_back(static_cast<std::int64_t>(adjncy.size()));
  }
  const par::CellDistribution rows(MPI_COMM_WORLD, owned, xadj, adjncy, owner);
  EXPECT_EQ(rows.n_global_cells(), g.n());
  EXPECT_EQ(rows.n_owned(), whole.n_owned());
  EXPECT_EQ(rows.local_to_global(), whole.local_to_global());
  EXPECT_EQ(rows.ghost_owner(), whole.ghost_owner());
  EXPECT_EQ(rows.owned_xadj(), whole.owned_xadj());
  EXPECT_EQ(rows.owned_adjncy(), whole.owned_adjncy());
  ASSERT_EQ(rows.neighbours().size(), whole.neighbours().size());
  for (size_t i = 0; i < rows.neighbours().size(); ++i) {
    EXPECT_EQ(rows.neighbours()[i].rank, whole.neighbours()[i].rank);
    EXPECT_EQ(rows.neighbours()[i].send_cells, whole.neighbours()[i].send_cells);
    EXPECT_EQ(rows.neighbours()[i].ghost_begin, whole.neighbours()[i].ghost_begin);
    EXPECT_EQ(rows.neighbours()[i].n_ghosts, whole.neighbours()[i].n_ghosts);
  }
}

// Rows that disagree between ranks (an edge one rank lists and its
// neighbour's owner does not) are one error on every rank, not a hang.
TEST(CellDistribution, FromOwnRowsWithAOneWayEdgeFailsOnEveryRank) {
  const int size = world_size(), rank = world_rank();
  // Chain in blocks; rank 0 adds an edge from its first cell to the last
  // cell of the chain, which the last rank does not list (at one rank: to
  // a cell 8 said to be its own, which it does not own).
  const auto g = chain_graph(8);
  const auto part = block_partition(8, size);
  std::vector<std::int64_t> owned, xadj{0}, adjncy;
  std::vector<int> owner;
  for (std::int64_t c = 0; c < 8; ++c) {
    if (part[static_cast<size_t>(c)] != rank) continue;
    owned.push_back(c);
    for (std::int64_t k = g.xadj[c]; k < g.xadj[c + 1]; ++k) {
      adjncy.push_back(g.adjncy[k]);
      owner.push_back(part[static_cast<size_t>(g.adjncy[k])]);
    }
    if (c == 0) {
      adjncy.push_back(size > 1 ? 7 : 8);
      owner.push_back(size > 1 ? part[7] : 0);
    }
    xadj.push_back(static_cast<std::int64_t>(adjncy.size()));
  }
  EXPECT_THROW(par::CellDistribution(MPI_COMM_WORLD, owned, xadj, adjncy, owner), camber::Error);
}
