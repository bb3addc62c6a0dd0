// A small trained-looking surrogate for the tests of model files, the
// registry and the server (private to tests/nn): inputs mach and alpha_deg
// [deg], output CL, one hidden layer of 4, normalised; `seed` changes its
// weights (and so a saved file's SHA-256).
#pragma once

#include <cstdint>

#include <camber/nn/init.hpp>
#include <camber/nn/surrogate.hpp>

namespace camber::test {

inline nn::Surrogate small_surrogate(std::uint64_t seed) {
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 1;
  spec.hidden = {4};
  nn::Rng rng(seed);
  auto net = nn::make_network(spec, rng);
  return nn::Surrogate(spec, net->parameter_values(), {{"mach", "alpha_deg"}, {"", "deg"}}, {{"CL"}, {""}},
                       {{0.5, 1.0}, {0.1, 2.0}}, {{0.2}, {0.2}});
}

}  // namespace camber::test
