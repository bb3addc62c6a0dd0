// camber::nn::Surrogate: the inference plan against a closed form (a single
// linear layer between the normalisations), against the AD engine's forward
// for every activation and both architectures, its Jacobian against the
// engine's gradients and central differences, concurrent predictions from
// several threads, and the checks on specs and parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>
#include <camber/nn/surrogate.hpp>

namespace {

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::DType;
using camber::index_t;
using camber::Tensor;

nn::Columns columns(index_t n, const std::string& prefix) {
  nn::Columns c;
  for (index_t j = 0; j < n; ++j) {
    c.names.push_back(prefix + std::to_string(j));
    c.units.push_back(j % 2 ? "m/s" : "");
  }
  return c;
}

nn::Normalization stats(index_t n, double base) {
  nn::Normalization s;
  for (index_t j = 0; j < n; ++j) {
    s.mean.push_back(base + 0.5 * static_cast<double>(j));
    s.stddev.push_back(0.25 + 0.75 * static_cast<double>(j));
  }
  return s;
}

nn::Surrogate make(const nn::NetworkSpec& spec, unsigned seed) {
  nn::Rng rng(seed);
  auto net = nn::make_network(spec, rng);
  return nn::Surrogate(spec, net->parameter_values(), columns(spec.in, "x"),
                       columns(spec.out, "y"), stats(spec.in, 1.0), stats(spec.out, -2.0));
}

Tensor inputs(index_t rows, index_t cols, unsigned seed) {
  nn::Rng rng(seed);
  return nn::uniform({rows, cols}, -2.0, 3.0, rng);
}

double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0.0, den = 1e-300;
  for (size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / den;
}

TEST(Surrogate, LinearLayerMatchesClosedForm) {
  // hidden {}: y = ((x - m_in) / s_in W + b) s_out + m_out, written out here.
  nn::NetworkSpec spec;
  spec.in = 3;
  spec.out = 2;
  const std::vector<double> w{0.5, -1.0, 2.0, 0.25, -0.75, 1.5}, b{0.1, -0.2};
  const nn::Normalization si = stats(3, 1.0), so = stats(2, -2.0);
  nn::Surrogate s(spec, {Tensor::from_host({3, 2}, w), Tensor::from_host({2}, b)},
                  columns(3, "x"), columns(2, "y"), si, so);
  const std::vector<double> x{1.0, -2.0, 0.5, 3.0, 0.0, -1.0};
  const std::vector<double> y = s.predict(Tensor::from_host({2, 3}, x)).to_vector();
  for (int r = 0; r < 2; ++r)
    for (int o = 0; o < 2; ++o) {
      double z = b[o];
      for (int i = 0; i < 3; ++i) z += (x[r * 3 + i] - si.mean[i]) / si.stddev[i] * w[i * 2 + o];
      EXPECT_NEAR(y[r * 2 + o], z * so.stddev[o] + so.mean[o], 1e-14) << r << " " << o;
    }
  // The Jacobian is constant: s_out[o] W[i][o] / s_in[i].
  const std::vector<double> j = s.jacobian(Tensor::from_host({2, 3}, x)).to_vector();
  for (int r = 0; r < 2; ++r)
    for (int o = 0; o < 2; ++o)
      for (int i = 0; i < 3; ++i)
        EXPECT_NEAR(j[(r * 2 + o) * 3 + i], so.stddev[o] * w[i * 2 + o] / si.stddev[i], 1e-14);
}

struct Arch {
  const char* kind;
  nn::Activation act;
};

class SurrogatePlan : public ::testing::TestWithParam<Arch> {};

TEST_P(SurrogatePlan, PredictAndJacobianMatchTheEngine) {
  nn::NetworkSpec spec;
  spec.kind = GetParam().kind;
  spec.activation = GetParam().act;
  spec.in = 3;
  spec.out = 2;
  spec.hidden = spec.kind == std::string("mlp") ? std::vector<index_t>{8, 6}
                                                : std::vector<index_t>{7, 7, 7};
  const nn::Surrogate s = make(spec, 5);
  const Tensor x = inputs(6, 3, 9);
  const std::vector<double> plan = s.predict(x).to_vector();
  const std::vector<double> engine = s.forward(ad::constant(x)).value().to_vector();
  EXPECT_LT(max_rel(plan, engine), 1e-13) << nn::activation_name(spec.activation);

  // d y_o / d x_i: reverse mode of the engine, one output column at a time
  // (rows are independent, so the gradient of the column's sum is per row).
  const std::vector<double> jac = s.jacobian(x).to_vector();
  for (index_t o = 0; o < 2; ++o) {
    const ad::Var xv = ad::variable(x);
    const ad::Var y = s.forward(xv);
    std::vector<double> pick(12, 0.0);
    for (int r = 0; r < 6; ++r) pick[static_cast<size_t>(r * 2 + o)] = 1.0;
    const ad::Var col = ad::sum(y * ad::constant(Tensor::from_host({6, 2}, pick)));
    const std::vector<double> g = ad::grad(col, {xv})[0].value().to_vector();
    std::vector<double> mine;
    for (int r = 0; r < 6; ++r)
      for (int i = 0; i < 3; ++i) mine.push_back(jac[static_cast<size_t>((r * 2 + o) * 3 + i)]);
    EXPECT_LT(max_rel(mine, g), 1e-12) << nn::activation_name(spec.activation) << " output " << o;
  }
  // And central differences of predict() (relu: away from its kink).
  const double h = 1e-6;
  std::vector<double> xv = x.to_vector();
  for (int i = 0; i < 3; ++i) {
    std::vector<double> xp = xv, xm = xv;
    for (int r = 0; r < 6; ++r) {
      xp[static_cast<size_t>(r * 3 + i)] += h;
      xm[static_cast<size_t>(r * 3 + i)] -= h;
    }
    const std::vector<double> yp = s.predict(Tensor::from_host({6, 3}, xp)).to_vector();
    const std::vector<double> ym = s.predict(Tensor::from_host({6, 3}, xm)).to_vector();
    for (int r = 0; r < 6; ++r)
      for (int o = 0; o < 2; ++o) {
        const double fd = (yp[static_cast<size_t>(r * 2 + o)] - ym[static_cast<size_t>(r * 2 + o)]) / (2 * h);
        EXPECT_NEAR(jac[static_cast<size_t>((r * 2 + o) * 3 + i)], fd, 1e-6 * (1.0 + std::abs(fd)));
      }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Architectures, SurrogatePlan,
    ::testing::Values(Arch{"mlp", nn::Activation::tanh}, Arch{"mlp", nn::Activation::relu},
                      Arch{"mlp", nn::Activation::gelu}, Arch{"mlp", nn::Activation::silu},
                      Arch{"mlp", nn::Activation::softplus}, Arch{"mlp", nn::Activation::sin},
                      Arch{"residual_mlp", nn::Activation::tanh},
                      Arch{"residual_mlp", nn::Activation::gelu}));

TEST(Surrogate, Float32PlanMatchesTheFloat64OneToSinglePrecision) {
  nn::NetworkSpec spec;
  spec.in = 4;
  spec.out = 3;
  spec.hidden = {32, 32};
  const nn::Surrogate s64 = make(spec, 3);
  spec.dtype = DType::float32;
  nn::Rng rng(3);
  std::vector<Tensor> p;
  for (const Tensor& t : s64.network().parameter_values()) p.push_back(t.to(DType::float32));
  const nn::Surrogate s32(spec, p, s64.inputs(), s64.outputs(), s64.input_stats(), s64.output_stats());
  const Tensor x = inputs(50, 4, 2);
  EXPECT_LT(max_rel(s32.predict(x).to_vector(), s64.predict(x).to_vector()), 1e-5);
  EXPECT_LT(max_rel(s32.predict(x).to_vector(), s32.forward(ad::constant(x.to(DType::float32))).value().to(DType::float64).to_vector()), 1e-6);
}

TEST(Surrogate, ConcurrentPredictionsEqualSerialOnes) {
  nn::NetworkSpec spec;
  spec.in = 5;
  spec.out = 2;
  spec.hidden = {64, 64, 64};
  const nn::Surrogate s = make(spec, 11);
  std::vector<Tensor> x;
  std::vector<std::vector<double>> serial;
  for (unsigned k = 0; k < 8; ++k) {
    x.push_back(inputs(1 + 17 * k, 5, 100 + k));
    serial.push_back(s.predict(x.back()).to_vector());
  }
  std::vector<std::vector<double>> got(8);
  std::vector<std::thread> threads;
  for (size_t k = 0; k < 8; ++k)
    threads.emplace_back([&, k] {
      for (int rep = 0; rep < 20; ++rep) got[k] = s.predict(x[k]).to_vector();
    });
  for (auto& t : threads) t.join();
  for (size_t k = 0; k < 8; ++k) EXPECT_EQ(got[k], serial[k]) << k;
}

TEST(Surrogate, BadSpecsAndParametersAreBadInput) {
  nn::NetworkSpec spec;
  spec.kind = "transformer";
  try {
    nn::check_spec(spec);
    FAIL() << "an unknown kind passed";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("transformer"), std::string::npos);
  }
  spec.kind = "residual_mlp";
  spec.hidden = {8, 4};
  EXPECT_THROW(nn::check_spec(spec), camber::Error);
  spec.kind = "mlp";
  spec.hidden = {4};
  spec.in = 2;
  try {
    nn::Surrogate s(spec, {Tensor({3, 4}), Tensor({4}), Tensor({4, 1}), Tensor({1})}, columns(2, "x"),
                    columns(1, "y"), stats(2, 0.0), stats(1, 0.0));
    FAIL() << "a wrong weight shape passed";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("0.weight"), std::string::npos) << e.what();
  }
  nn::Normalization zero = stats(2, 0.0);
  zero.stddev[1] = 0.0;
  EXPECT_THROW(nn::Surrogate(spec, {Tensor({2, 4}), Tensor({4}), Tensor({4, 1}), Tensor({1})},
                             columns(2, "x"), columns(1, "y"), zero, stats(1, 0.0)),
               camber::Error);
  const nn::Surrogate ok(spec, {Tensor({2, 4}), Tensor({4}), Tensor({4, 1}), Tensor({1})},
                         columns(2, "x"), columns(1, "y"), stats(2, 0.0), stats(1, 0.0));
  EXPECT_THROW(ok.predict(Tensor({3, 3})), camber::Error);
}

}  // namespace
