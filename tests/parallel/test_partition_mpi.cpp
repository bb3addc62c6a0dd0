// Graph partitioning with METIS: assignment, balance, cut, determinism, and
// rejection of malformed graphs. Runs on every rank count; the serial
// partitioner is called on every rank with the same input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include <camber/parallel/partition.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include "tests/parallel/graphs.hpp"

namespace par = camber::par;
using camber::test::chain_graph;
using camber::test::grid_graph;

TEST(Partition, QualityOfHandMadePartitionIsExact) {
  // Chain of 8 split 3 | 5: one cut edge, largest part 5 over mean 4.
  const auto g = chain_graph(8);
  const std::vector<int> part{0, 0, 0, 1, 1, 1, 1, 1};
  const auto q = par::partition_quality(g.xadj, g.adjncy, part, 2);
  EXPECT_EQ(q.edge_cut, 1);
  EXPECT_DOUBLE_EQ(q.imbalance, 5.0 / 4.0 - 1.0);
  // Alternating parts cut all 7 edges and balance perfectly.
  const std::vector<int> alt{0, 1, 0, 1, 0, 1, 0, 1};
  const auto qa = par::partition_quality(g.xadj, g.adjncy, alt, 2);
  EXPECT_EQ(qa.edge_cut, 7);
  EXPECT_DOUBLE_EQ(qa.imbalance, 0.0);
}

TEST(Partition, ChainOfEightInTwoIsTwoHalves) {
  const auto g = chain_graph(8);
  const auto part = par::partition_graph(g.xadj, g.adjncy, 2);
  ASSERT_EQ(part.size(), 8u);
  const auto q = par::partition_quality(g.xadj, g.adjncy, part, 2);
  EXPECT_EQ(q.edge_cut, 1);  // the optimum: one cut between cells 3 and 4
  EXPECT_DOUBLE_EQ(q.imbalance, 0.0);
  for (int v = 1; v < 4; ++v) EXPECT_EQ(part[v], part[0]);
  for (int v = 5; v < 8; ++v) EXPECT_EQ(part[v], part[4]);
  EXPECT_NE(part[0], part[4]);
}

TEST(Partition, TrivialCases) {
  const auto g = grid_graph(5, 4);
  const auto one = par::partition_graph(g.xadj, g.adjncy, 1);
  EXPECT_TRUE(std::all_of(one.begin(), one.end(), [](int p) { return p == 0; }));
  // At least as many parts as vertices: one vertex per part.
  const auto chain = chain_graph(3);
  const auto many = par::partition_graph(chain.xadj, chain.adjncy, 5);
  EXPECT_EQ(many, (std::vector<int>{0, 1, 2}));
  const auto empty = par::partition_graph({0}, {}, 4);
  EXPECT_TRUE(empty.empty());
}

// The requirement: a 10k-cell mesh splits with imbalance <= 5%, and
// the cut is within 3x of the ideal straight cuts ((P-1) * 100 for strips).
TEST(Partition, GridOf10kCellsIsBalancedWithSmallCut) {
  const auto g = grid_graph(100, 100);
  const int rank = camber::comm_rank(MPI_COMM_WORLD);
  for (int n_parts : {2, 3, 4, 8, 16}) {
    const auto part = par::partition_graph(g.xadj, g.adjncy, n_parts);
    ASSERT_EQ(static_cast<std::int64_t>(part.size()), g.n());
    std::set<int> used(part.begin(), part.end());
    EXPECT_EQ(static_cast<int>(used.size()), n_parts) << "every part gets cells";
    EXPECT_GE(*used.begin(), 0);
    EXPECT_LT(*used.rbegin(), n_parts);
    const auto q = par::partition_quality(g.xadj, g.adjncy, part, n_parts);
    const std::int64_t strip_cut = (n_parts - 1) * 100;
    if (rank == 0)
      std::printf("[ partition ] 100x100 grid, %2d parts: edge cut %lld (strips %lld), "
                  "imbalance %.4f\n",
                  n_parts, static_cast<long long>(q.edge_cut), static_cast<long long>(strip_cut),
                  q.imbalance);
    EXPECT_LE(q.imbalance, 0.05) << n_parts << " parts";
    EXPECT_GT(q.edge_cut, 0);
    EXPECT_LE(q.edge_cut, 3 * strip_cut) << n_parts << " parts";
  }
}

TEST(Partition, KwayAndWeightsAreHonoured) {
  const auto g = grid_graph(100, 100);
  par::PartitionOptions o;
  o.method = par::PartitionMethod::kway;
  const auto part = par::partition_graph(g.xadj, g.adjncy, 4, o);
  const auto q = par::partition_quality(g.xadj, g.adjncy, part, 4);
  EXPECT_LE(q.imbalance, 0.05);
  EXPECT_LE(q.edge_cut, 3 * 300);
  // The right half of the grid costs 3x: balance the weighted load.
  par::PartitionOptions w;
  w.vertex_weights.resize(static_cast<size_t>(g.n()));
  for (std::int64_t c = 0; c < g.n(); ++c) w.vertex_weights[static_cast<size_t>(c)] = c % 100 >= 50 ? 3 : 1;
  const auto wpart = par::partition_graph(g.xadj, g.adjncy, 4, w);
  const auto wq = par::partition_quality(g.xadj, g.adjncy, wpart, 4, w);
  EXPECT_LE(wq.imbalance, 0.05);
}

TEST(Partition, IsDeterministicAndAgreesAcrossRanks) {
  const auto g = grid_graph(60, 40);
  const int size = camber::comm_size(MPI_COMM_WORLD);
  const auto a = par::partition_graph(g.xadj, g.adjncy, 4);
  const auto b = par::partition_graph(g.xadj, g.adjncy, 4);
  EXPECT_EQ(a, b);
  // Only rank 0's graph is read; other ranks pass nothing.
  const bool root = camber::comm_rank(MPI_COMM_WORLD) == 0;
  const auto spread = par::partition_over_ranks(MPI_COMM_WORLD, root ? g.xadj : std::vector<std::int64_t>{},
                                                root ? g.adjncy : std::vector<std::int64_t>{});
  EXPECT_EQ(spread, par::partition_graph(g.xadj, g.adjncy, size));
}

TEST(Partition, RejectsMalformedGraphs) {
  // One-way edge 0 -> 1.
  EXPECT_THROW(par::validate_graph({0, 1, 1}, {1}), camber::Error);
  // Self-loop.
  EXPECT_THROW(par::validate_graph({0, 1}, {0}), camber::Error);
  // Neighbour out of range.
  EXPECT_THROW(par::validate_graph({0, 1, 2}, {5, 0}), camber::Error);
  // Duplicate edge.
  EXPECT_THROW(par::validate_graph({0, 2, 4}, {1, 1, 0, 0}), camber::Error);
  // xadj not ending at adjncy.size().
  EXPECT_THROW(par::validate_graph({0, 1, 3}, {1, 0}), camber::Error);
  EXPECT_THROW(par::partition_graph({0, 1, 1}, {1}, 2), camber::Error);
  const auto g = chain_graph(4);
  EXPECT_THROW(par::partition_graph(g.xadj, g.adjncy, 0), camber::Error);
  par::PartitionOptions o;
  o.vertex_weights = {1, 2};  // wrong length
  EXPECT_THROW(par::partition_graph(g.xadj, g.adjncy, 2, o), camber::Error);
  EXPECT_NO_THROW(par::validate_graph(g.xadj, g.adjncy));
}

TEST(Partition, FailureOnRootRaisesOnEveryRank) {
  // Only rank 0 holds a (bad) graph: every rank must get the error.
  const bool root = camber::comm_rank(MPI_COMM_WORLD) == 0;
  std::vector<std::int64_t> xadj{0, 1, 1}, adjncy{1};
  EXPECT_THROW(par::partition_over_ranks(MPI_COMM_WORLD, root ? xadj : std::vector<std::int64_t>{},
                                         root ? adjncy : std::vector<std::int64_t>{}),
               camber::Error);
}

namespace {
// This rank's rows of g when the ranks hold contiguous blocks of vertices.
camber::test::CsrGraph my_rows(const camber::test::CsrGraph& g, std::int64_t& first) {
  const int size = camber::comm_size(MPI_COMM_WORLD), rank = camber::comm_rank(MPI_COMM_WORLD);
  first = g.n() * rank / size;
  const std::int64_t last = g.n() * (rank + 1) / size;
  camber::test::CsrGraph mine;
  mine.xadj.push_back(0);
  for (std::int64_t v = first; v < last; ++v) {
    mine.adjncy.insert(mine.adjncy.end(), g.adjncy.begin() + g.xadj[v], g.adjncy.begin() + g.xadj[v + 1]);
    mine.xadj.push_back(static_cast<std::int64_t>(mine.adjncy.size()));
  }
  return mine;
}

// Every rank's parts, gathered in vertex order.
std::vector<int> gather_parts(const std::vector<int>& mine, std::int64_t n) {
  const int size = camber::comm_size(MPI_COMM_WORLD);
  std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) {
    displs[static_cast<size_t>(r)] = static_cast<int>(n * r / size);
    counts[static_cast<size_t>(r)] = static_cast<int>(n * (r + 1) / size - n * r / size);
  }
  std::vector<int> all(static_cast<size_t>(n));
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_INT, all.data(), counts.data(),
                 displs.data(), MPI_INT, MPI_COMM_WORLD);
  return all;
}
}  // namespace

// PT-Scotch on a graph no rank holds whole: the 100 x 100 grid in row
// blocks. Parts are balanced within 5%, every rank gets vertices, the cut
// is within 3x of straight strips, the distributed quality equals the
// serial formula on the gathered parts, and a second call repeats the first.
TEST(PartitionDistributed, GridHeldInPiecesIsBalancedWithSmallCut) {
  const auto g = grid_graph(100, 100);
  const int size = camber::comm_size(MPI_COMM_WORLD);
  std::int64_t first = 0;
  const auto mine = my_rows(g, first);
  const std::vector<int> part = par::partition_distributed(MPI_COMM_WORLD, mine.xadj, mine.adjncy);
  ASSERT_EQ(part.size(), mine.xadj.size() - 1);
  const std::vector<int> all = gather_parts(part, g.n());
  std::set<int> used(all.begin(), all.end());
  EXPECT_EQ(static_cast<int>(used.size()), size);
  EXPECT_GE(*used.begin(), 0);
  EXPECT_LT(*used.rbegin(), size);
  const auto serial = par::partition_quality(g.xadj, g.adjncy, all, size);
  const auto q = par::partition_quality(MPI_COMM_WORLD, mine.xadj, mine.adjncy, part);
  EXPECT_EQ(q.edge_cut, serial.edge_cut);
  EXPECT_NEAR(q.imbalance, serial.imbalance, 1e-14);
  EXPECT_LE(q.imbalance, 0.05);
  EXPECT_LE(q.edge_cut, 3 * (size - 1) * 100);
  if (size == 1) {
    EXPECT_EQ(q.edge_cut, 0);
  }
  if (camber::comm_rank(MPI_COMM_WORLD) == 0)
    std::printf("[ pt-scotch ] 100x100 grid, %d parts: edge cut %lld (strips %d), imbalance %.4f\n",
                size, static_cast<long long>(q.edge_cut), (size - 1) * 100, q.imbalance);
  EXPECT_EQ(par::partition_distributed(MPI_COMM_WORLD, mine.xadj, mine.adjncy), part);
}

TEST(PartitionDistributed, BadRowsAreAnErrorOnEveryRank) {
  // A neighbour beyond the last vertex, on the last rank only.
  const auto g = chain_graph(8);
  std::int64_t first = 0;
  auto mine = my_rows(g, first);
  if (camber::comm_rank(MPI_COMM_WORLD) == camber::comm_size(MPI_COMM_WORLD) - 1)
    mine.adjncy.back() = 99;
  EXPECT_THROW(par::partition_distributed(MPI_COMM_WORLD, mine.xadj, mine.adjncy), camber::Error);
}
