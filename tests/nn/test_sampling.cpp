// nn/sampling.hpp: the Latin hypercube's defining property (one point in
// each of the n strata of every range), its seeding, its column-by-column
// draw (a design with more variables keeps the points of one with fewer)
// and its bad-input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/nn/sampling.hpp>

namespace {

using camber::nn::latin_hypercube;

TEST(LatinHypercube, OnePointInEveryStratumOfEveryRange) {
  const std::vector<std::array<double, 2>> ranges = {{0.6, 0.85}, {-2.0, 3.0}, {1e-3, 2e-3}};
  for (int n : {1, 2, 7, 64}) {
    const auto x = latin_hypercube(n, 11, ranges);
    ASSERT_EQ(x.size(), static_cast<size_t>(n));
    for (size_t c = 0; c < ranges.size(); ++c) {
      std::vector<int> hits(static_cast<size_t>(n), 0);
      for (const auto& p : x) {
        ASSERT_EQ(p.size(), ranges.size());
        const double t = (p[c] - ranges[c][0]) / (ranges[c][1] - ranges[c][0]);
        ASSERT_GE(t, 0.0);
        ASSERT_LT(t, 1.0);
        ++hits[static_cast<size_t>(std::floor(t * n))];
      }
      for (int h : hits) EXPECT_EQ(h, 1) << "n " << n << ", range " << c;
    }
  }
}

TEST(LatinHypercube, TheSeedFixesThePoints) {
  const std::vector<std::array<double, 2>> r = {{0.0, 1.0}, {0.0, 1.0}};
  EXPECT_EQ(latin_hypercube(16, 3, r), latin_hypercube(16, 3, r));
  EXPECT_NE(latin_hypercube(16, 3, r), latin_hypercube(16, 4, r));
}

TEST(LatinHypercube, MoreVariablesKeepTheFirstColumns) {
  const auto two = latin_hypercube(20, 5, {{0.6, 0.85}, {0.0, 3.0}});
  const auto four = latin_hypercube(20, 5, {{0.6, 0.85}, {0.0, 3.0}, {-0.01, 0.01}, {-0.01, 0.01}});
  for (size_t i = 0; i < two.size(); ++i) {
    EXPECT_EQ(four[i][0], two[i][0]);
    EXPECT_EQ(four[i][1], two[i][1]);
  }
}

TEST(LatinHypercube, BadInputIsAnError) {
  EXPECT_THROW(latin_hypercube(0, 1, {{0.0, 1.0}}), camber::Error);
  EXPECT_THROW(latin_hypercube(4, 1, {{0.0, 1.0}, {2.0, 2.0}}), camber::Error);
}

}  // namespace
