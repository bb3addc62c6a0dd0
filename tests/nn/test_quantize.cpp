// int8 post-training quantization: the per-channel weight scales and
// integers and the quantized layer's output against the QDQ formula
// written out by hand (round half to even, saturation); a quantized MLP
// stays close to the float one on its calibration range; inputs beyond the
// range saturate; Jacobian and forward() use the dequantized weights.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>
#include <camber/nn/quantize.hpp>

namespace {

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::DType;
using camber::index_t;
using camber::Tensor;

nn::Surrogate linear(const std::vector<double>& w, const std::vector<double>& b) {
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 2;
  return nn::Surrogate(spec, {Tensor::from_host({2, 2}, w), Tensor::from_host({2}, b)},
                       {{"u", "v"}, {"", ""}}, {{"p", "q"}, {"", ""}}, {{0.0, 0.0}, {1.0, 1.0}},
                       {{0.0, 0.0}, {1.0, 1.0}});
}

TEST(Quantize, LinearLayerMatchesTheQdqFormula) {
  // Powers of two keep every step exact. W column 0: (127/128, -63.5/128)
  // -> scale 1/128, q (127, -64: -63.5 rounds half to even); column 1:
  // (127/64, 63.5/64) -> scale 1/64, q (127, 64).
  const std::vector<double> w{127.0 / 128, 127.0 / 64, -63.5 / 128, 63.5 / 64}, b{0.1, -0.2};
  const nn::Surrogate f = linear(w, b);
  // Calibration: largest |input| 127/32 -> input scale 1/32.
  const nn::Surrogate q = nn::quantize_int8(f, Tensor::from_host({2, 2}, {127.0 / 32, 0.0, -1.0, 1.0}));
  ASSERT_TRUE(q.quantized());
  const nn::Int8Layer& l = q.int8_layers()[0];
  EXPECT_EQ(l.input_scale, 1.0 / 32);
  EXPECT_EQ(l.scales[0], 1.0 / 128);
  EXPECT_EQ(l.scales[1], 1.0 / 64);
  EXPECT_EQ(l.values, (std::vector<std::int8_t>{127, 127, -64, 64}));
  // x = (1.5/32, -5): 1.5 rounds to 2 (half to even), -160 saturates to -128.
  const Tensor x = Tensor::from_host({1, 2}, {1.5 / 32, -5.0});
  const std::vector<double> y = q.predict(x).to_vector();
  const double x0 = 2.0 / 32, x1 = -128.0 / 32;
  EXPECT_NEAR(y[0], x0 * 127 / 128 + x1 * -64 / 128 + 0.1, 1e-6);
  EXPECT_NEAR(y[1], x0 * 127 / 64 + x1 * 64 / 64 - 0.2, 1e-6);
  // jacobian() and forward(): the dequantized weights, no input rounding.
  const std::vector<double> j = q.jacobian(x).to_vector();
  EXPECT_EQ(j[0], 127.0 / 128);  // dy0/dx0
  EXPECT_EQ(j[1], -64.0 / 128);  // dy0/dx1
  const std::vector<double> fw =
      q.forward(ad::constant(x.to(DType::float32))).value().to(DType::float64).to_vector();
  EXPECT_NEAR(fw[0], 1.5 / 32 * 127 / 128 + -5.0 * -64 / 128 + 0.1, 1e-6);
}

TEST(Quantize, MlpStaysCloseToTheFloatNetworkOnItsCalibrationRange) {
  nn::NetworkSpec spec;
  spec.in = 4;
  spec.out = 2;
  spec.hidden = {64, 64};
  nn::Rng rng(7);
  auto net = nn::make_network(spec, rng);
  const nn::Surrogate f(spec, net->parameter_values(), {{"a", "b", "c", "d"}, {"", "", "", ""}},
                        {{"y", "z"}, {"", ""}}, {{0, 0, 0, 0}, {1, 1, 1, 1}}, {{0, 0}, {1, 1}});
  const Tensor calib = nn::uniform({512, 4}, -1.0, 1.0, rng);
  const nn::Surrogate q = nn::quantize_int8(f, calib);
  const Tensor x = nn::uniform({256, 4}, -1.0, 1.0, rng);
  const std::vector<double> yf = f.predict(x).to_vector(), yq = q.predict(x).to_vector();
  double err = 0.0, scale = 0.0;
  for (size_t i = 0; i < yf.size(); ++i) {
    err = std::max(err, std::abs(yf[i] - yq[i]));
    scale = std::max(scale, std::abs(yf[i]));
  }
  // 8-bit weights and activations: a few percent of the output range at most.
  EXPECT_LT(err, 0.03 * scale) << "max |int8 - float| " << err << " of " << scale;
  EXPECT_GT(err, 0.0);  // it is quantized
  EXPECT_THROW(nn::quantize_int8(q, calib), camber::Error);
  EXPECT_THROW(nn::quantize_int8(f, Tensor({0, 4})), camber::Error);
}

}  // namespace
