#include <camber/nn/loss.hpp>

#include <camber/core/error.hpp>

namespace camber::nn {

namespace {
ad::Var residual(const ad::Var& p, const ad::Var& t, const char* who) {
  CAMBER_REQUIRE(p.shape() == t.shape(), who << ": prediction " << shape_string(p.shape())
                                             << " and target " << shape_string(t.shape())
                                             << " differ in shape");
  return p - t;
}
}  // namespace

ad::Var mse(const ad::Var& prediction, const ad::Var& target) {
  const ad::Var r = residual(prediction, target, "mse");
  return ad::mean(r * r);
}

ad::Var sum_squared_error(const ad::Var& prediction, const ad::Var& target) {
  const ad::Var r = residual(prediction, target, "sum_squared_error");
  return ad::sum(r * r);
}

ad::Var l1(const ad::Var& prediction, const ad::Var& target) {
  return ad::mean(ad::abs(residual(prediction, target, "l1")));
}

ad::Var huber(const ad::Var& prediction, const ad::Var& target, double delta) {
  CAMBER_REQUIRE(delta > 0.0, "huber: delta must be positive, got " << delta);
  const ad::Var a = ad::abs(residual(prediction, target, "huber"));
  // m = min(|r|, delta) = |r| - relu(|r| - delta); h = m^2 / 2 + delta (|r| - m).
  const ad::Var m = a - ad::relu(a - delta);
  return ad::mean(0.5 * m * m + delta * (a - m));
}

}  // namespace camber::nn
