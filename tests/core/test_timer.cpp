// Hierarchical timers: nesting, call counts and the summary table.
#include <gtest/gtest.h>

#include <sstream>
#include <thread>

#include <camber/core/error.hpp>
#include <camber/core/timer.hpp>

TEST(Timer, NestingBuildsPathsAndCounts) {
  auto& reg = camber::TimerRegistry::instance();
  reg.clear();
  {
    camber::ScopedTimer run("run");
    for (int i = 0; i < 3; ++i) {
      camber::ScopedTimer solve("solve");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    camber::ScopedTimer write("write");
  }
  const auto records = reg.records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].path, "run");
  EXPECT_EQ(records[1].path, "run/solve");
  EXPECT_EQ(records[2].path, "run/write");
  EXPECT_EQ(records[1].calls, 3);
  EXPECT_GE(records[1].seconds, 0.006);
  EXPECT_GE(records[0].seconds, records[1].seconds);
}

TEST(Timer, TreeOrderPutsChildrenUnderParents) {
  auto& reg = camber::TimerRegistry::instance();
  reg.clear();
  { camber::ScopedTimer t("a-b"); }
  {
    camber::ScopedTimer a("a");
    camber::ScopedTimer x("x");
  }
  const auto records = reg.records();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].path, "a");
  EXPECT_EQ(records[1].path, "a/x");
  EXPECT_EQ(records[2].path, "a-b");
}

TEST(Timer, SummaryListsEveryTimerOnRankZero) {
  auto& reg = camber::TimerRegistry::instance();
  reg.clear();
  {
    camber::ScopedTimer run("run");
    camber::ScopedTimer solve("solve");
  }
  std::ostringstream os;
  camber::print_timer_summary(MPI_COMM_WORLD, os);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    EXPECT_NE(os.str().find("run"), std::string::npos);
    EXPECT_NE(os.str().find("  solve"), std::string::npos);
    EXPECT_NE(os.str().find("100.0"), std::string::npos);  // root is 100 %
  } else {
    EXPECT_TRUE(os.str().empty());
  }
  EXPECT_THROW(camber::ScopedTimer bad("a/b"), camber::Error);
  reg.clear();
}
