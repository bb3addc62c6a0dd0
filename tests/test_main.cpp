// main() for every GoogleTest executable: starts the Camber runtime (MPI,
// Kokkos) around the tests. Under MPI every rank runs every test; only rank 0
// prints GoogleTest's report, and the exit code is the worst over ranks, so a
// failure on any rank fails the test.
#include <gtest/gtest.h>

#include "src/runtime.hpp"

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (runtime.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int local = RUN_ALL_TESTS();
  int worst = local;
  MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst != 0 && local != 0 && runtime.rank() != 0)
    std::fprintf(stderr, "tests failed on rank %d\n", runtime.rank());
  return worst;
}
