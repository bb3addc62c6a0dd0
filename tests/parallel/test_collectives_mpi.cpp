// Global reductions over owned cells agree with the serial computation on
// the whole grid, for any rank count.
#include <gtest/gtest.h>

#include <cmath>

#include <camber/parallel/cell_distribution.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/parallel/partition.hpp>
#include <camber/core/runtime.hpp>
#include "tests/parallel/graphs.hpp"

namespace par = camber::par;
using camber::index_t;
using camber::Tensor;

namespace {
double value(std::int64_t c, index_t k) { return std::sin(0.001 * static_cast<double>(c) + k) + 0.5; }
}  // namespace

TEST(Collectives, AllreduceOfScalars) {
  const int rank = camber::comm_rank(MPI_COMM_WORLD);
  const int size = camber::comm_size(MPI_COMM_WORLD);
  EXPECT_EQ(par::allreduce_sum(rank + 1.0, MPI_COMM_WORLD), size * (size + 1) / 2.0);
  EXPECT_EQ(par::allreduce_max(static_cast<double>(rank), MPI_COMM_WORLD), size - 1.0);
  EXPECT_EQ(par::allreduce_min(static_cast<double>(rank), MPI_COMM_WORLD), 0.0);
  Tensor t = Tensor::full({2, 3}, 1.0);
  par::allreduce_sum_in_place(t, MPI_COMM_WORLD);
  EXPECT_EQ(t.min(), static_cast<double>(size));
  EXPECT_EQ(t.max(), static_cast<double>(size));
}

// Rank r sends r + 1 copies of r; rank 0 receives 0, 1, 1, 2, 2, 2, ... in
// rank order (a rank with nothing to send included), the others nothing.
TEST(Collectives, GatherOnRootConcatenatesInRankOrder) {
  const int rank = camber::comm_rank(MPI_COMM_WORLD);
  const int size = camber::comm_size(MPI_COMM_WORLD);
  const std::vector<double> mine(static_cast<size_t>(rank == 1 ? 0 : rank + 1),
                                 static_cast<double>(rank));
  const std::vector<double> all = par::gather_on_root(mine, MPI_COMM_WORLD);
  if (rank != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  std::vector<double> expected;
  for (int r = 0; r < size; ++r)
    if (r != 1) expected.insert(expected.end(), static_cast<size_t>(r + 1), static_cast<double>(r));
  EXPECT_EQ(all, expected);
}

TEST(Collectives, OwnedReductionsEqualSerialOnes) {
  const auto g = camber::test::grid_graph(100, 100);
  const auto part = par::partition_over_ranks(MPI_COMM_WORLD, g.xadj, g.adjncy);
  par::CellDistribution dist(MPI_COMM_WORLD, g.xadj, g.adjncy, part);
  const index_t nc = 3;
  std::vector<double> whole(static_cast<size_t>(g.n() * nc));
  double serial_sum = 0.0, serial_dot = 0.0, serial_max = 0.0;
  std::vector<double> serial_comp(nc, 0.0);
  for (std::int64_t c = 0; c < g.n(); ++c)
    for (index_t k = 0; k < nc; ++k) {
      const double x = value(c, k);
      whole[c * nc + k] = x;
      serial_sum += x;
      serial_dot += x * x;
      serial_max = std::max(serial_max, std::abs(x));
      serial_comp[k] += x;
    }
  const Tensor global = Tensor::from_host({g.n(), nc}, whole);
  Tensor local = par::scatter_global(global, dist);
  // Garbage in the ghost rows must not matter.
  {
    auto h = local.to_vector();
    for (index_t i = dist.n_owned() * nc; i < dist.n_local() * nc; ++i) h[i] = 1e6;
    local.assign(h);
  }
  // Summation order differs from the serial loop: agree to round-off.
  const double tol = 1e-12;
  EXPECT_NEAR(par::sum_owned(local, dist), serial_sum, tol * std::abs(serial_sum));
  EXPECT_NEAR(par::dot_owned(local, local, dist), serial_dot, tol * serial_dot);
  EXPECT_NEAR(par::norm2_owned(local, dist), std::sqrt(serial_dot), tol * std::sqrt(serial_dot));
  EXPECT_EQ(par::max_abs_owned(local, dist), serial_max);
  const auto comp = par::sum_owned_per_component(local, dist).to_vector();
  ASSERT_EQ(comp.size(), static_cast<size_t>(nc));
  for (index_t k = 0; k < nc; ++k) EXPECT_NEAR(comp[k], serial_comp[k], tol * std::abs(serial_comp[k]));
  // Round trip: scatter, then gather of owned rows, gives the field back exactly.
  EXPECT_EQ(camber::max_abs_diff(par::gather_owned(local, dist), global), 0.0);
}
