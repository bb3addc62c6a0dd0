/// @file
/// Designs of experiments for surrogate data: where to run the expensive
/// model (a flow solve) so that a network fitted to the results sees the
/// whole input space.
///
/// A Latin hypercube of n points over d ranges cuts each range into n equal
/// strata and puts exactly one point in each stratum of each range, the
/// strata of the ranges paired by seeded random permutations, the point
/// uniform within its stratum (McKay, Beckman and Conover, Technometrics
/// 21(2), 1979).
///
/// @code
///   // 32 (Mach, alpha) pairs over [0.6, 0.85] x [0, 3] degrees:
///   std::vector<std::vector<double>> x =
///       nn::latin_hypercube(32, /*seed=*/7, {{0.6, 0.85}, {0.0, 3.0}});
///   // x[i] = {mach_i, alpha_i}; the same seed gives the same points
/// @endcode
///
/// Most users want `camber sample` (solvers/aero's AirfoilDesign::sample
/// at these points), which also adds points where an ensemble disagrees
/// (nn::most_disagreeing, ensemble.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace camber::nn {

/// n points (rows of ranges.size() values) of a Latin hypercube over
/// `ranges` ({lo, hi} each, lo < hi), from `seed`. The ranges are drawn
/// column by column, so the first k columns do not depend on the ranges
/// after them: a design with more variables keeps the points of one with
/// fewer. Throws camber::Error (bad input) for n < 1 or a range with
/// hi <= lo.
std::vector<std::vector<double>> latin_hypercube(int n, std::uint64_t seed,
                                                 const std::vector<std::array<double, 2>>& ranges);

}  // namespace camber::nn
