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

Tensor normalize_gradients(const Tensor& dy, const Normalization& in, const Normalization& out) {
  CAMBER_REQUIRE(dy.rank() == 3 && static_cast<size_t>(dy.dim(1)) == out.stddev.size() &&
                     static_cast<size_t>(dy.dim(2)) == in.stddev.size(),
                 "normalize_gradients: " << shape_string(dy.shape()) << " is not {rows, "
                                         << out.stddev.size() << ", " << in.stddev.size() << "}");
  const index_t rows = dy.dim(0), n_out = dy.dim(1), n_in = dy.dim(2);
  std::vector<double> g = dy.to(DType::float64).to_vector();
  for (index_t r = 0; r < rows; ++r)
    for (index_t o = 0; o < n_out; ++o)
      for (index_t k = 0; k < n_in; ++k)
        g[static_cast<size_t>((r * n_out + o) * n_in + k)] *=
            in.stddev[static_cast<size_t>(k)] / out.stddev[static_cast<size_t>(o)];
  return Tensor::from_host({rows, n_out, n_in}, g);
}

}  // namespace camber::nn
