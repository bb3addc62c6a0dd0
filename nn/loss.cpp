#include <camber/nn/loss.hpp>

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
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

ad::Var sum_squared_jacobian_error(const ad::Var& prediction, const ad::Var& x,
                                   const Tensor& target) {
  CAMBER_REQUIRE(prediction.rank() == 2 && x.rank() == 2 && prediction.shape()[0] == x.shape()[0] &&
                     target.shape() == (Shape{x.shape()[0], prediction.shape()[1], x.shape()[1]}),
                 "sum_squared_jacobian_error: prediction " << shape_string(prediction.shape())
                                                           << ", x " << shape_string(x.shape())
                                                           << " and target "
                                                           << shape_string(target.shape()));
  const index_t n_out = prediction.shape()[1], n_in = x.shape()[1], rows = x.shape()[0];
  const Tensor flat = target.to(prediction.dtype()).reshape({rows, n_out * n_in});
  ad::Var total;
  for (index_t o = 0; o < n_out; ++o) {
    // d (sum over rows of prediction[:, o]) / dx = each row's d prediction[r, o] / d x[r, :].
    const ad::Var g = ad::grad(ad::sum(ad::slice(prediction, 1, o, o + 1)), {x}, true)[0];
    const ad::Var r = g - ad::slice(ad::constant(flat), 1, o * n_in, (o + 1) * n_in);
    total = o == 0 ? ad::sum(r * r) : total + ad::sum(r * r);
  }
  return total;
}

}  // namespace camber::nn
