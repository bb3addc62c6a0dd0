#include <camber/nn/sampling.hpp>

#include <utility>

#include <camber/core/error.hpp>
#include <camber/nn/init.hpp>

namespace camber::nn {

std::vector<std::vector<double>> latin_hypercube(int n, std::uint64_t seed,
                                                 const std::vector<std::array<double, 2>>& ranges) {
  CAMBER_INPUT_REQUIRE(n >= 1, "latin_hypercube: needs at least one point, got " << n);
  for (size_t c = 0; c < ranges.size(); ++c)
    CAMBER_INPUT_REQUIRE(ranges[c][0] < ranges[c][1], "latin_hypercube: range " << c << " is ["
                                                          << ranges[c][0] << ", " << ranges[c][1]
                                                          << "]; it needs lo < hi");
  Rng rng(seed);
  const size_t m = static_cast<size_t>(n);
  std::vector<std::vector<double>> x(m, std::vector<double>(ranges.size()));
  std::vector<int> perm(m);
  for (size_t c = 0; c < ranges.size(); ++c) {
    // A Fisher-Yates shuffle of the strata, then a uniform point in each.
    for (size_t i = 0; i < m; ++i) perm[i] = static_cast<int>(i);
    for (size_t i = m - 1; i > 0; --i) std::swap(perm[i], perm[static_cast<size_t>(rng.below(i + 1))]);
    const double lo = ranges[c][0], width = ranges[c][1] - ranges[c][0];
    for (size_t i = 0; i < m; ++i) x[i][c] = lo + width * (perm[i] + rng.uniform()) / n;
  }
  return x;
}

}  // namespace camber::nn
