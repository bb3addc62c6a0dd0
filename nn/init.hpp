/// @file
/// Seeded random numbers and weight initialisation for camber::nn.
///
/// Rng wraps std::mt19937_64, whose output sequence the C++ standard fixes:
/// one seed gives the same bits on every compiler, platform, MPI rank and
/// Kokkos backend. Uniform doubles take the top 53 bits; normal deviates come
/// from the Box-Muller transform, both written here rather than taken from
/// std::uniform_real_distribution / std::normal_distribution, whose
/// algorithms the standard leaves to the library. Values are drawn on the
/// host and copied to the device once.
///
/// @code
///   camber::nn::Rng rng(42);
///   camber::Tensor w = camber::nn::init_weight(camber::nn::Init::xavier_uniform,
///                                              16, 256, rng);   // shape {16, 256}
/// @endcode
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include <camber/core/tensor.hpp>

namespace camber::nn {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0);
  std::uint64_t next_u64();
  double uniform();                       ///< in [0, 1), 53 random bits
  double uniform(double lo, double hi);   ///< in [lo, hi)
  double normal();                        ///< standard normal (Box-Muller)
  /// An index in [0, n): the rejection method, no modulo bias.
  std::uint64_t below(std::uint64_t n);
  /// The engine and the cached normal deviate as text (for checkpoints);
  /// set_state(state()) resumes the same sequence.
  std::string state() const;
  void set_state(const std::string& state);

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

enum class Init {
  xavier_uniform,  ///< U(-a, a), a = sqrt(6 / (fan_in + fan_out))  (Glorot & Bengio 2010)
  xavier_normal,   ///< N(0, 2 / (fan_in + fan_out))
  he_uniform,      ///< U(-a, a), a = sqrt(6 / fan_in)               (He et al. 2015)
  he_normal,       ///< N(0, 2 / fan_in)
  zeros
};
/// "xavier_uniform", "xavier_normal", "he_uniform", "he_normal", "zeros";
/// a camber::Error listing them for another name.
Init init_from_name(const std::string& name);
std::string init_name(Init init);

/// A {fan_in, fan_out} weight matrix drawn by `init`.
Tensor init_weight(Init init, index_t fan_in, index_t fan_out, Rng& rng,
                   DType dtype = DType::float64);
Tensor uniform(const Shape& shape, double lo, double hi, Rng& rng, DType dtype = DType::float64);
Tensor normal(const Shape& shape, double mean, double stddev, Rng& rng,
              DType dtype = DType::float64);

}  // namespace camber::nn
