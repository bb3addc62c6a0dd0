// camber::nn::Surrogate: the inference plan against a closed form (a single
// linear layer between the normalisations), against the AD engine's forward
// for every activation and both architectures, its Jacobian against the
// engine's gradients and central differences, concurrent predictions from
// several threads, the checks on specs and parameters, and the float32 and
// int8 products through oneDNN against the Eigen path (below).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>
#include <camber/nn/quantize.hpp>
#include <camber/nn/surrogate.hpp>

#include "tests/common/central_difference.hpp"

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

TEST(Surrogate, JacobianMisfitIsTheRelativeFrobeniusError) {
  // Reference gradients that are the network's own Jacobian scaled by
  // 1 + c_o per output: the relative error is |c_o| / (1 + c_o) exactly.
  nn::NetworkSpec spec;
  spec.in = 3;
  spec.out = 2;
  spec.hidden = {8};
  const nn::Surrogate s = make(spec, 5);
  const Tensor x = inputs(7, 3, 9);
  std::vector<double> dy = s.jacobian(x).to_vector();
  const double c[2] = {0.25, -0.1};
  for (size_t i = 0; i < dy.size(); ++i) dy[i] *= 1.0 + c[(i / 3) % 2];
  const nn::JacobianMisfit m = nn::jacobian_misfit(s, x, Tensor::from_host({7, 2, 3}, dy));
  const std::vector<double> r = m.relative();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0], 0.25 / 1.25, 1e-14);
  EXPECT_NEAR(r[1], 0.1 / 0.9, 1e-14);
  EXPECT_THROW(nn::jacobian_misfit(s, x, Tensor::from_host({7, 3, 2}, dy)), camber::Error);
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
  const auto predict = [&](const std::vector<double>& y) {
    return s.predict(Tensor::from_host({6, 3}, y)).to_vector();
  };
  for (int i = 0; i < 3; ++i) {
    std::vector<double> input_i(18, 0.0);  // input i of every row at once
    for (int r = 0; r < 6; ++r) input_i[static_cast<size_t>(r * 3 + i)] = 1.0;
    const std::vector<double> dy = camber::test::directional_difference(predict, xv, input_i, h);
    for (int r = 0; r < 6; ++r)
      for (int o = 0; o < 2; ++o) {
        const double fd = dy[static_cast<size_t>(r * 2 + o)];
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


// The float32 and int8 predict() through oneDNN (from 16 rows
// on, where built with it) against the Eigen path of the same plan
// (Surrogate::Gemm::eigen) and the float64 network; the int8 rounding and
// saturation rules at their edges; concurrent first calls.
//
// Tolerances, with u = 2^-24 (float32's unit roundoff):
//   - float32 against float64: a dot product of K terms carries at most
//     K u |W| |h| (Higham's gamma_K), the activations are Lipschitz with a
//     constant near one and evaluated to a few ulps, so L layers of width
//     at most K stay within L (K + 4) u relative to the largest output
//     (|W| |h| ~ |W h| for these unit-scale networks).
//   - float32 oneDNN against float32 Eigen: each within that bound of the
//     float64 result, so within twice it of each other.
//   - int8 oneDNN against int8 Eigen: at int8_gap() below.

using Gemm = nn::Surrogate::Gemm;

constexpr double kU = 5.9604644775390625e-8;  // 2^-24

nn::Normalization uniform_stats(index_t n, double mean, double stddev) {
  return {std::vector<double>(static_cast<size_t>(n), mean), std::vector<double>(static_cast<size_t>(n), stddev)};
}

// The float64 network of `spec` (random weights) and the same weights in
// float32.
struct Pair {
  nn::Surrogate f64, f32;
};

Pair make_pair(nn::NetworkSpec spec, unsigned seed) {
  spec.dtype = DType::float64;
  nn::Rng rng(seed);
  const std::vector<Tensor> p64 = nn::make_network(spec, rng)->parameter_values();
  std::vector<Tensor> p32;
  for (const Tensor& t : p64) p32.push_back(t.to(DType::float32));
  nn::Surrogate f64(spec, p64, columns(spec.in, "x"), columns(spec.out, "y"), uniform_stats(spec.in, 0.5, 2.0),
                    uniform_stats(spec.out, -1.0, 3.0));
  spec.dtype = DType::float32;
  nn::Surrogate f32(spec, p32, f64.inputs(), f64.outputs(), f64.input_stats(), f64.output_stats());
  return {std::move(f64), std::move(f32)};
}

// The row counts of the tests: below, at and above the 16-row switch, past
// a padded grid size (17 -> 32, 100 -> 128), and over one 1024-row block.
const index_t kRows[] = {1, 15, 16, 17, 100, 1024, 1300};

class SurrogateGemm : public ::testing::TestWithParam<Arch> {
 protected:
  // 5 inputs, 3 outputs, three hidden layers of `width`.
  nn::NetworkSpec spec(index_t width) const {
    nn::NetworkSpec s;
    s.kind = GetParam().kind;
    s.in = 5;
    s.out = 3;
    s.hidden = {width, width, width};
    s.activation = GetParam().act;
    return s;
  }
};

TEST_P(SurrogateGemm, Float32AgreesWithEigenAndFloat64ToRounding) {
  const nn::NetworkSpec spec = this->spec(32);
  const Pair p = make_pair(spec, 7);
  const double layers = 4, width = 32;
  const double tol = layers * (width + 4) * kU;
  for (index_t rows : kRows) {
    const Tensor x = inputs(rows, spec.in, 100 + static_cast<unsigned>(rows));
    const std::vector<double> ref = p.f64.predict(x).to_vector();
    const std::vector<double> fast = p.f32.predict(x).to_vector();
    const std::vector<double> eigen = p.f32.predict(x, Gemm::eigen).to_vector();
    EXPECT_LE(max_rel(fast, ref), tol) << "rows " << rows << ", " << p.f32.gemm_backend(rows);
    EXPECT_LE(max_rel(eigen, ref), tol) << "rows " << rows;
    EXPECT_LE(max_rel(fast, eigen), 2 * tol) << "rows " << rows;
    std::printf("%-60s rows %4lld %-6s |fast - f64| %.1e  |eigen - f64| %.1e  (tol %.1e)\n",
                ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                static_cast<long long>(rows), p.f32.gemm_backend(rows).c_str(), max_rel(fast, ref),
                max_rel(eigen, ref), tol);
#if CAMBER_TEST_WITH_DNNL
    EXPECT_EQ(p.f32.gemm_backend(rows), rows < 16 ? "Eigen" : "oneDNN");
#else
    EXPECT_EQ(p.f32.gemm_backend(rows), "Eigen");
#endif
    EXPECT_EQ(p.f64.gemm_backend(rows), "Eigen");
  }
}

// How far the int8 oneDNN outputs `fast` are from the Eigen path's `eigen`
// (rows of q's outputs): the fraction of rows that differ by more than
// rounding (4 u relative, as in float32), and the largest difference in
// units of one quantization step of the last layer's input: per output j,
// s_L max_i |W_L[i][j]| stddev_j, the move of output j when one input of
// the last layer lands one step away.
struct Int8Gap {
  double rows_differing = 0.0, steps = 0.0;
};

Int8Gap int8_gap(const nn::Surrogate& q, const std::vector<double>& fast, const std::vector<double>& eigen) {
  const nn::Int8Layer& last = q.int8_layers().back();
  const size_t out = static_cast<size_t>(q.spec().out), in = last.values.size() / out;
  std::vector<double> step(out, 0.0);
  for (size_t i = 0; i < in; ++i)
    for (size_t j = 0; j < out; ++j)
      step[j] = std::max(step[j], last.input_scale * std::abs(last.values[i * out + j]) * last.scales[j] *
                                      q.output_stats().stddev[j]);
  double largest = 1e-300;
  for (double v : eigen) largest = std::max(largest, std::abs(v));
  Int8Gap g;
  const size_t rows = eigen.size() / out;
  size_t differing = 0;
  for (size_t r = 0; r < rows; ++r) {
    bool differs = false;
    for (size_t j = 0; j < out; ++j) {
      const double d = std::abs(fast[r * out + j] - eigen[r * out + j]);
      differs = differs || d > 4 * kU * largest;
      g.steps = std::max(g.steps, d / step[j]);
    }
    differing += differs ? 1 : 0;
  }
  g.rows_differing = static_cast<double>(differing) / static_cast<double>(rows);
  return g;
}

// Tolerances of int8 oneDNN against int8 Eigen (dnnl_dense.hpp says where
// they differ). Both quantize the first layer's inputs with the same code;
// after that, a quantized value comes out one step away where the float
// value before rounding, v / s, lies within its error of a half-integer.
// That error is a few float32 ulps of the terms that make v (the
// activation's formula, the bias added before the scale, v * (1 / s)
// against v / s); with terms of the size of v, and |v| / s <= 128, it is
// below 8 u * 128 = 6e-5 steps, so a value flips with probability at most
// 1.2e-4 (twice that, over a uniform fractional part). A row of these
// networks quantizes 3 x 48 values after the first layer, so at most 1.7%
// of the rows carry a flip in expectation; allow 5%.
// A flip in the last layer's inputs moves the outputs by at most one step
// of the last layer (int8_gap()); one upstream moves each value of the next
// layer by s |w|, a fraction of that layer's step, and so flips a few of
// them in turn. Allow 8 steps of the last layer. (Measured: 1 row of 1300
// differs, by 1.5 to 1.8 steps, tanh networks only.) A wrong scale breaks
// the first: almost every row differs (below; its largest move, 4.5 to 16
// steps, need not exceed the second).
constexpr double kInt8RowsDiffering = 0.05, kInt8Steps = 8.0;

TEST_P(SurrogateGemm, Int8AgreesWithTheEigenPathToAFewQuantizationSteps) {
  const nn::NetworkSpec spec = this->spec(48);
  const Pair p = make_pair(spec, 9);
  // Calibrated on fewer rows than are evaluated: some inputs saturate.
  const nn::Surrogate q = nn::quantize_int8(p.f32, inputs(64, spec.in, 3));
  for (index_t rows : kRows) {
    const Tensor x = inputs(rows, spec.in, 200 + static_cast<unsigned>(rows));
    const std::vector<double> fast = q.predict(x).to_vector();
    const std::vector<double> eigen = q.predict(x, Gemm::eigen).to_vector();
    const Int8Gap g = int8_gap(q, fast, eigen);
    EXPECT_LE(g.rows_differing, kInt8RowsDiffering) << "rows " << rows << ", " << q.gemm_backend(rows);
    EXPECT_LE(g.steps, kInt8Steps) << "rows " << rows << ", " << q.gemm_backend(rows);
    std::printf("%-60s rows %4lld %-6s rows differing %.4f  steps %.3f\n",
                ::testing::UnitTest::GetInstance()->current_test_info()->name(),
                static_cast<long long>(rows), q.gemm_backend(rows).c_str(), g.rows_differing, g.steps);
    if (rows < 16) {
      EXPECT_EQ(g.rows_differing, 0.0) << "rows " << rows << ": the same Eigen code";
    }
  }
  // The checks can fail: the same network with the second layer's input
  // scale 3% off, against the right one's Eigen path.
  std::vector<Tensor> values;
  for (const auto& np : q.network().named_parameters()) values.push_back(np.second.value());
  std::vector<nn::Int8Layer> wrong = q.int8_layers();
  wrong[1].input_scale *= 1.03;
  const nn::Surrogate bad(q.spec(), values, q.inputs(), q.outputs(), q.input_stats(), q.output_stats(), wrong);
  const Tensor x = inputs(1024, spec.in, 11);
  const Int8Gap g = int8_gap(q, bad.predict(x).to_vector(), q.predict(x, Gemm::eigen).to_vector());
  EXPECT_GT(g.rows_differing, 0.5);
  std::printf("%-60s wrong scale: rows differing %.4f  steps %.3f\n",
              ::testing::UnitTest::GetInstance()->current_test_info()->name(), g.rows_differing, g.steps);
}

INSTANTIATE_TEST_SUITE_P(Networks, SurrogateGemm,
                         ::testing::Values(Arch{"mlp", nn::Activation::tanh}, Arch{"mlp", nn::Activation::relu},
                                           Arch{"mlp", nn::Activation::gelu}, Arch{"mlp", nn::Activation::silu},
                                           Arch{"mlp", nn::Activation::softplus},
                                           Arch{"mlp", nn::Activation::sin},
                                           Arch{"mlp", nn::Activation::identity},
                                           Arch{"residual_mlp", nn::Activation::tanh},
                                           Arch{"residual_mlp", nn::Activation::gelu},
                                           Arch{"residual_mlp", nn::Activation::sin}),
                         [](const auto& i) {
                           return std::string(i.param.kind) + "_" + nn::activation_name(i.param.act);
                         });

// One int8 layer {in, out} with unit scales, identity normalisation and a
// zero bias: predict() returns the integer sums themselves.
nn::Surrogate int8_layer(index_t in, index_t out, const std::vector<std::int8_t>& values) {
  nn::NetworkSpec spec;
  spec.in = in;
  spec.out = out;
  spec.hidden = {};
  spec.dtype = DType::float32;
  std::vector<double> w(values.begin(), values.end());
  nn::Int8Layer l;
  l.values = values;
  l.scales.assign(static_cast<size_t>(out), 1.0);
  l.input_scale = 1.0;
  return nn::Surrogate(spec,
                       {Tensor::from_host({in, out}, w).to(DType::float32),
                        Tensor::zeros({out}, DType::float32)},
                       columns(in, "x"), columns(out, "y"), uniform_stats(in, 0.0, 1.0), uniform_stats(out, 0.0, 1.0),
                       {l});
}

Tensor repeat_rows(const std::vector<double>& row, index_t rows) {
  std::vector<double> v;
  for (index_t r = 0; r < rows; ++r) v.insert(v.end(), row.begin(), row.end());
  return Tensor::from_host({rows, static_cast<index_t>(row.size())}, v);
}

TEST(SurrogateGemmInt8, RoundsHalfToEvenAndSaturates) {
  // Identity weights: y = the quantized input.
  const index_t n = 8;
  std::vector<std::int8_t> eye(static_cast<size_t>(n * n), 0);
  for (index_t i = 0; i < n; ++i) eye[static_cast<size_t>(i * n + i)] = 1;
  const nn::Surrogate s = int8_layer(n, n, eye);
  const std::vector<std::vector<double>> x = {
      {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 127.5, -128.5},
      {126.5, 1000.0, -1000.0, -127.5, 3.5, -3.5, 0.4999999701976776, -129.0}};
  const std::vector<std::vector<double>> want = {{0, 2, 2, 0, -2, -2, 127, -128},
                                                 {126, 127, -128, -128, 4, -4, 0, -128}};
  for (size_t k = 0; k < x.size(); ++k)
    for (index_t rows : {index_t(1), index_t(40)}) {
      const std::vector<double> y = s.predict(repeat_rows(x[k], rows)).to_vector();
      for (index_t r = 0; r < rows; ++r)
        for (index_t j = 0; j < n; ++j)
          EXPECT_EQ(y[static_cast<size_t>(r * n + j)], want[k][static_cast<size_t>(j)])
              << "row " << r << " of " << rows << ", input " << x[k][static_cast<size_t>(j)];
    }
}

TEST(SurrogateGemmInt8, ExtremeProductsSumExactly) {
  // 64 inputs at -128 against weights of -128, 127 and alternating signs:
  // sums 64 * 16384, -64 * 16256 and 0, exact in float32 (below 2^24).
  const index_t in = 64, out = 3;
  std::vector<std::int8_t> w;
  for (index_t i = 0; i < in; ++i) {
    w.push_back(-128);
    w.push_back(127);
    w.push_back(i % 2 ? 127 : -127);
  }
  const nn::Surrogate s = int8_layer(in, out, w);
  for (index_t rows : {index_t(1), index_t(16), index_t(33)}) {
    const std::vector<double> y = s.predict(repeat_rows(std::vector<double>(in, -200.0), rows)).to_vector();
    for (index_t r = 0; r < rows; ++r) {
      EXPECT_EQ(y[static_cast<size_t>(r * out)], 64.0 * 16384) << rows;
      EXPECT_EQ(y[static_cast<size_t>(r * out + 1)], -64.0 * 16256) << rows;
      EXPECT_EQ(y[static_cast<size_t>(r * out + 2)], 0.0) << rows;
    }
  }
}

TEST(SurrogateGemm, ConcurrentFirstCallsEqualSerialOnes) {
  // Two plans with the same weights: `serial` computes alone, then eight
  // threads make `fresh`'s kernels at once, each with its own row counts.
  nn::NetworkSpec spec;
  spec.in = 6;
  spec.out = 2;
  spec.hidden = {64, 64};
  for (bool int8 : {false, true}) {
    const Pair a = make_pair(spec, 21), b = make_pair(spec, 21);
    const Tensor calib = inputs(64, spec.in, 4);
    const nn::Surrogate serial = int8 ? nn::quantize_int8(a.f32, calib) : a.f32;
    const nn::Surrogate fresh = int8 ? nn::quantize_int8(b.f32, calib) : b.f32;
    const index_t rows[] = {1, 15, 16, 17, 40, 100, 300, 1100};
    std::vector<Tensor> x;
    std::vector<std::vector<double>> want;
    for (size_t k = 0; k < 8; ++k) {
      x.push_back(inputs(rows[k], spec.in, 300 + static_cast<unsigned>(k)));
      want.push_back(serial.predict(x.back()).to_vector());
    }
    std::vector<std::vector<double>> got(8);
    std::vector<std::thread> threads;
    for (size_t k = 0; k < 8; ++k)
      threads.emplace_back([&, k] {
        for (int rep = 0; rep < 5; ++rep) got[k] = fresh.predict(x[(k + static_cast<size_t>(rep)) % 8]).to_vector();
      });
    for (auto& t : threads) t.join();
    for (size_t k = 0; k < 8; ++k) EXPECT_EQ(got[k], want[(k + 4) % 8]) << (int8 ? "int8 " : "float32 ") << k;
  }
}

}  // namespace
