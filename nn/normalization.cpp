#include <camber/nn/normalization.hpp>

#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>

namespace camber::nn {

namespace {

// t * mul + add per column.
ad::Var affine_columns(const ad::Var& t, const std::vector<double>& mul,
                       const std::vector<double>& add) {
  const Shape& s = t.shape();
  CAMBER_REQUIRE(s.size() == 2 && static_cast<size_t>(s[1]) == mul.size() &&
                     add.size() == mul.size(),
                 "Normalization: a tensor of shape " << shape_string(s) << " for " << mul.size()
                                                     << " columns");
  const DType dt = t.value().dtype();
  const ad::Var m = ad::constant(Tensor::from_host({s[1]}, mul).to(dt));
  const ad::Var a = ad::constant(Tensor::from_host({s[1]}, add).to(dt));
  return t * m + a;
}

std::vector<double> reciprocal(const std::vector<double>& v) {
  std::vector<double> r;
  for (double x : v) r.push_back(1.0 / x);
  return r;
}

std::vector<double> shift(const std::vector<double>& mean, const std::vector<double>& stddev) {
  std::vector<double> r;
  for (size_t j = 0; j < mean.size(); ++j) r.push_back(-mean[j] / stddev[j]);
  return r;
}

}  // namespace

ad::Var Normalization::apply(const ad::Var& t) const {
  return affine_columns(t, reciprocal(stddev), shift(mean, stddev));
}

ad::Var Normalization::invert(const ad::Var& t) const { return affine_columns(t, stddev, mean); }

Tensor Normalization::apply(const Tensor& t) const { return apply(ad::constant(t)).value(); }

Tensor Normalization::invert(const Tensor& t) const { return invert(ad::constant(t)).value(); }

}  // namespace camber::nn
