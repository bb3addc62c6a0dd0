// main() for every GoogleTest executable: starts the Camber runtime (MPI,
// Kokkos) around the tests. Under MPI every rank runs every test; only rank 0
// prints GoogleTest's report, and the exit code is the worst over ranks, so a
// failure on any rank fails the test.
#include <gtest/gtest.h>

#include <cstdio>

#include <camber/core/runtime.hpp>

namespace {
// On ranks other than 0, print only failed assertions, prefixed with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};
}  // namespace

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (runtime.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(runtime.rank()));
  }
  int local = RUN_ALL_TESTS();
  int worst = local;
  MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}
