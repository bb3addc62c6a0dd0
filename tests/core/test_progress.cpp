// Progress line formatting (the terminal/plain choice is made by isatty).
#include <gtest/gtest.h>

#include <camber/core/progress.hpp>

TEST(Progress, FormatShowsCountPercentAndStatus) {
  camber::Progress p("newton", 200);
  const std::string line = p.format(50, "residual 1.0e-03");
  EXPECT_EQ(line.rfind("newton 50/200 ( 25%)", 0), 0u) << line;
  EXPECT_NE(line.find("residual 1.0e-03"), std::string::npos);
  EXPECT_NE(line.find(" s"), std::string::npos);
}

TEST(Progress, UnknownTotalOmitsPercent) {
  camber::Progress p("steps", 0);
  const std::string line = p.format(7, "");
  EXPECT_EQ(line.rfind("steps 7  ", 0), 0u) << line;
  EXPECT_EQ(line.find('%'), std::string::npos);
}
