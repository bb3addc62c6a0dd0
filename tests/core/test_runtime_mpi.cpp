// Runtime and collective error handling, at 1, 2 and 4 ranks.
#include <gtest/gtest.h>

#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

TEST(Runtime, CommMatchesWorld) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(camber::comm_size(MPI_COMM_WORLD), size);
  EXPECT_GE(camber::comm_rank(MPI_COMM_WORLD), 0);
}

TEST(Runtime, CollectiveGuardPassesWhenNoRankFails) {
  int calls = 0;
  EXPECT_NO_THROW(camber::collective_guard(MPI_COMM_WORLD, [&] { ++calls; }));
  EXPECT_EQ(calls, 1);
}

TEST(Runtime, CollectiveGuardRaisesOnEveryRankWithLowestRanksMessage) {
  const int rank = camber::comm_rank(MPI_COMM_WORLD);
  const int size = camber::comm_size(MPI_COMM_WORLD);
  // The last rank fails with bad input; with more ranks, rank 1 fails too
  // with another message, and rank 1's message (the lowest) must win.
  const int expect_from = size > 2 ? 1 : size - 1;
  try {
    camber::collective_guard(MPI_COMM_WORLD, [&] {
      if (rank == size - 1) CAMBER_INPUT_REQUIRE(false, "bad value on rank " << rank);
      if (size > 2 && rank == 1) CAMBER_INPUT_REQUIRE(false, "bad value on rank " << rank);
    });
    FAIL() << "collective_guard did not throw on rank " << rank;
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_EQ(e.message(), "bad value on rank " + std::to_string(expect_from));
  }
}

TEST(Runtime, RunGuardedReturnsAgreedExitCodeOnEveryRank) {
  const int rank = camber::comm_rank(MPI_COMM_WORLD);
  const int code = camber::run_guarded(MPI_COMM_WORLD, [&] {
    camber::collective_guard(MPI_COMM_WORLD, [&] {
      if (rank == 0) CAMBER_INPUT_REQUIRE(false, "unknown key 'mahc'");
    });
    return 0;
  });
  EXPECT_EQ(code, 2);
  EXPECT_EQ(camber::run_guarded(MPI_COMM_WORLD, [] { return 0; }), 0);
}

// The peak resident memory is the largest rank's: rank 0 touches 64 MiB
// more than the others, and every rank must report at least that, the
// same figure on every rank.
TEST(Runtime, PeakResidentMemoryIsTheLargestRanks) {
  const int rank = camber::comm_rank(MPI_COMM_WORLD);
  std::vector<char> block;
  if (rank == 0) block.assign(64u << 20, 1);
  const double peak = camber::peak_resident_mib(MPI_COMM_WORLD);
  EXPECT_GE(peak, 64.0);
  EXPECT_LT(peak, 1e6);
  double low = peak, high = peak;
  MPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &high, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(low, high);
  if (rank == 0) EXPECT_EQ(block[12345], 1);
}
