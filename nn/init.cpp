#include <camber/nn/init.hpp>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

#include <camber/core/error.hpp>

namespace camber::nn {

Rng::Rng(std::uint64_t seed) : engine_(seed) {}

std::uint64_t Rng::next_u64() { return engine_(); }

double Rng::uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // u1 in (0, 1]: the logarithm stays finite.
  const double u1 = 1.0 - uniform(), u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double t = 2.0 * M_PI * u2;
  spare_ = r * std::sin(t);
  has_spare_ = true;
  return r * std::cos(t);
}

std::uint64_t Rng::below(std::uint64_t n) {
  CAMBER_REQUIRE(n > 0, "Rng::below: n must be positive");
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x = engine_();
  while (x >= limit) x = engine_();
  return x % n;
}

std::string Rng::state() const {
  std::ostringstream s;
  s << engine_ << ' ' << (has_spare_ ? 1 : 0) << ' ';
  s.precision(17);
  s << std::hexfloat << spare_;
  return s.str();
}

void Rng::set_state(const std::string& state) {
  std::istringstream s(state);
  int spare = 0;
  std::string spare_text;
  s >> engine_ >> spare >> spare_text;
  CAMBER_REQUIRE(!s.fail() && (spare == 0 || spare == 1),
                 "Rng::set_state: not a state written by Rng::state()");
  has_spare_ = spare == 1;
  spare_ = std::strtod(spare_text.c_str(), nullptr);
}

Init init_from_name(const std::string& name) {
  if (name == "xavier_uniform") return Init::xavier_uniform;
  if (name == "xavier_normal") return Init::xavier_normal;
  if (name == "he_uniform") return Init::he_uniform;
  if (name == "he_normal") return Init::he_normal;
  if (name == "zeros") return Init::zeros;
  CAMBER_INPUT_REQUIRE(false, "unknown initialisation '"
                                  << name
                                  << "' (xavier_uniform, xavier_normal, he_uniform, he_normal, "
                                     "zeros)");
  return Init::zeros;
}

std::string init_name(Init init) {
  switch (init) {
    case Init::xavier_uniform: return "xavier_uniform";
    case Init::xavier_normal: return "xavier_normal";
    case Init::he_uniform: return "he_uniform";
    case Init::he_normal: return "he_normal";
    case Init::zeros: return "zeros";
  }
  return "?";
}

namespace {
Tensor from_values(const Shape& shape, const std::vector<double>& v, DType dtype) {
  Tensor t = Tensor::from_host(shape, v);
  return dtype == DType::float64 ? t : t.to(dtype);
}
}  // namespace

Tensor uniform(const Shape& shape, double lo, double hi, Rng& rng, DType dtype) {
  std::vector<double> v(static_cast<size_t>(shape_size(shape)));
  for (double& x : v) x = rng.uniform(lo, hi);
  return from_values(shape, v, dtype);
}

Tensor normal(const Shape& shape, double mean, double stddev, Rng& rng, DType dtype) {
  std::vector<double> v(static_cast<size_t>(shape_size(shape)));
  for (double& x : v) x = mean + stddev * rng.normal();
  return from_values(shape, v, dtype);
}

Tensor init_weight(Init init, index_t fan_in, index_t fan_out, Rng& rng, DType dtype) {
  CAMBER_REQUIRE(fan_in > 0 && fan_out > 0,
                 "init_weight: fan_in and fan_out must be positive, got " << fan_in << " and "
                                                                          << fan_out);
  const Shape shape{fan_in, fan_out};
  const double fi = static_cast<double>(fan_in), fo = static_cast<double>(fan_out);
  switch (init) {
    case Init::xavier_uniform: {
      const double a = std::sqrt(6.0 / (fi + fo));
      return uniform(shape, -a, a, rng, dtype);
    }
    case Init::xavier_normal: return normal(shape, 0.0, std::sqrt(2.0 / (fi + fo)), rng, dtype);
    case Init::he_uniform: {
      const double a = std::sqrt(6.0 / fi);
      return uniform(shape, -a, a, rng, dtype);
    }
    case Init::he_normal: return normal(shape, 0.0, std::sqrt(2.0 / fi), rng, dtype);
    case Init::zeros: return Tensor::zeros(shape, dtype);
  }
  return Tensor::zeros(shape, dtype);
}

}  // namespace camber::nn
