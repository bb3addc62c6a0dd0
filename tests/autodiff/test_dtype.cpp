// Dtypes in the tensor graph: index ops take int64 index tensors that stay
// on the device (the graph keeps the tensor, not a host copy); results and
// derivatives equal the std::vector overloads'; other dtypes are errors
// naming the op and the dtypes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <camber/autodiff/graph.hpp>
#include <camber/core/error.hpp>

namespace camber_test_dtype {

namespace ad = camber::ad;
using ad::Var;
using camber::DType;
using camber::Shape;
using camber::Tensor;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const camber::Error& e) {
    return e.what();
  }
  return "";
}

TEST(DType, IndexTensorsGiveTheVectorOverloadsResultsAndGradients) {
  const Tensor a0 = Tensor::from_host({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const std::vector<camber::index_t> rows = {3, 0, 3, 1, 2, 0};
  const Tensor idx = Tensor::from_host_int64({2, 3}, {3, 0, 3, 1, 2, 0});
  const Var a = ad::variable(a0);
  const Var by_tensor = ad::gather(a, idx);
  const Var by_vector = ad::gather(a, rows, {2, 3});
  EXPECT_EQ(by_tensor.shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(by_tensor.value().to_vector(), by_vector.value().to_vector());
  // d/da of sum(w * a[idx]): each row of a collects the weights of its picks:
  // row 0 picked twice, row 3 twice, rows 1 and 2 once.
  const Tensor w = Tensor::from_host({2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const auto g = ad::grad(ad::sum(by_tensor * ad::constant(w)), {a})[0].value().to_vector();
  const std::vector<double> expected = {3 + 11, 4 + 12, 7, 8, 9, 10, 1 + 5, 2 + 6};
  EXPECT_EQ(g, expected);
  // scatter_add with an index tensor: repeated indices add.
  const Var s = ad::scatter_add(ad::constant(Tensor({3})), 0,
                                Tensor::from_host_int64({4}, {2, 0, 2, 2}),
                                ad::constant(Tensor::from_host({4}, {1, 10, 100, 1000})));
  EXPECT_EQ(s.value().to_vector(), (std::vector<double>{10, 0, 1101}));
}

TEST(DType, IndexTensorsAreCheckedOnTheDevice) {
  const Var a = ad::variable(Tensor({3, 2}));
  const std::string range =
      error_of([&] { (void)ad::index_select(a, 0, Tensor::from_host_int64({2}, {1, 3})); });
  EXPECT_NE(range.find("index_select: index 3 out of range [0, 3) on axis 0"), std::string::npos)
      << range;
  const std::string negative =
      error_of([&] { (void)ad::gather(a, Tensor::from_host_int64({1}, {-1})); });
  EXPECT_NE(negative.find("index -1 out of range"), std::string::npos) << negative;
  const std::string dtype =
      error_of([&] { (void)ad::index_select(a, 0, Tensor::from_host({1}, {1.0})); });
  EXPECT_NE(dtype.find("int64"), std::string::npos) << dtype;
  EXPECT_NE(dtype.find("float64"), std::string::npos) << dtype;
}

TEST(DType, ElementwiseOpsRejectOtherDtypesNamingTheOp) {
  const Var x = ad::variable(Tensor({2}));
  const Var i = ad::constant(Tensor::zeros({2}, DType::int64));
  const std::string m = error_of([&] { (void)ad::mul(x, i); });
  EXPECT_NE(m.find("ad::mul"), std::string::npos) << m;
  EXPECT_NE(m.find("float64, int64"), std::string::npos) << m;
  // After an explicit conversion the op runs.
  const Var j = ad::constant(Tensor::from_host_int64({2}, {3, 4}).to(DType::float64));
  EXPECT_EQ(ad::sum(x + j).item(), 7.0);
}

}  // namespace camber_test_dtype

namespace camber_test_dtype {

// float32 against its float64 twin: the same program on inputs rounded to
// float32, then widened back to float64. Element-wise programs compute in
// double and round once on store; matmul runs in float32 (Eigen); so
// results differ from the twin by float32 roundings of inputs and results
// plus GEMM's float32 accumulation over k = 16 or 8 terms: a relative 2e-6
// of the largest value bounds them with a margin of about 4 over
// k * 2^-24 * (condition of tanh and the squares, <= 4).
double rel_diff(const Tensor& f32, const Tensor& f64) {
  const std::vector<double> a = f32.to(DType::float64).to_vector(), b = f64.to_vector();
  double worst = 0.0, scale = 0.0;
  for (double v : b) scale = std::max(scale, std::abs(v));
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst / std::max(scale, 1e-300);
}

Tensor random(const Shape& shape, unsigned seed) {
  std::vector<double> v(static_cast<size_t>(camber::shape_size(shape)));
  unsigned s = seed;
  for (double& x : v) {
    s = s * 1103515245u + 12345u;
    x = static_cast<double>((s >> 8) % 2001) / 1000.0 - 1.0;  // in [-1, 1]
  }
  // Round to float32 first, so both twins start from the same values.
  return Tensor::from_host(shape, v).to(DType::float32).to(DType::float64);
}

TEST(DType, Float32MatchesItsFloat64TwinInValueGradientAndHvp) {
  const Tensor x = random({8, 16}, 1), w = random({16, 8}, 2), b = random({8}, 3),
               v = random({16, 8}, 4);
  auto loss = [&](DType d) {
    return [x, b, d](const Var& wv) {
      const Var h = ad::tanh(ad::matmul(ad::constant(x.to(d)), wv) + ad::constant(b.to(d)));
      return ad::mean(h * h) + ad::sum(ad::exp(wv * 0.1));
    };
  };
  const Var w64 = ad::variable(w), w32 = ad::variable(w.to(DType::float32));
  const Var y64 = loss(DType::float64)(w64), y32 = loss(DType::float32)(w32);
  EXPECT_EQ(y32.dtype(), DType::float32);
  EXPECT_LE(rel_diff(y32.value(), y64.value()), 2e-6);
  const Var g32 = ad::grad(y32, {w32})[0], g64 = ad::grad(y64, {w64})[0];
  EXPECT_EQ(g32.dtype(), DType::float32);
  EXPECT_LE(rel_diff(g32.value(), g64.value()), 2e-6);
  const Tensor h32 = ad::hvp(loss(DType::float32), w.to(DType::float32), v.to(DType::float32));
  const Tensor h64 = ad::hvp(loss(DType::float64), w, v);
  EXPECT_EQ(h32.dtype(), DType::float32);
  EXPECT_LE(rel_diff(h32, h64), 2e-6);
}

TEST(DType, MixingFloat32AndFloat64IsAnErrorNamingTheOp) {
  const Var a = ad::variable(Tensor::zeros({2}, DType::float32));
  const Var b = ad::variable(Tensor({2}));
  const std::string m = error_of([&] { (void)(a + b); });
  EXPECT_NE(m.find("ad::add"), std::string::npos) << m;
  EXPECT_NE(m.find("float32, float64"), std::string::npos) << m;
  const std::string mm = error_of([&] {
    (void)ad::matmul(ad::constant(Tensor::zeros({2, 2}, DType::float32)), ad::constant(Tensor({2, 2})));
  });
  EXPECT_NE(mm.find("matmul"), std::string::npos) << mm;
  EXPECT_NE(mm.find("float32 and float64"), std::string::npos) << mm;
}

}  // namespace camber_test_dtype

namespace camber_test_dtype {

TEST(DType, Float32IndexAndShapeOpsMatchTheirFloat64Twins) {
  // Small integers and halves are exact in float32: results equal exactly.
  const Tensor a64 = Tensor::from_host({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const Tensor idx = Tensor::from_host_int64({5}, {3, 1, 3, 0, 2});
  const Tensor w = Tensor::from_host({5, 2}, {0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5});
  auto run = [&](DType d, bool fuse) {
    ad::FusionGuard mode(fuse);
    const Var a = ad::variable(a64.to(d));
    const Var y = ad::sum(ad::slice(ad::gather(a, idx), 1, 1, 3) * ad::constant(w.to(d)));
    const Var g = ad::grad(y, {a})[0];
    EXPECT_EQ(g.dtype(), d);
    return std::make_pair(y.item(), g.value().to(DType::float64).to_vector());
  };
  for (const bool fuse : {true, false}) {
    const auto r32 = run(DType::float32, fuse), r64 = run(DType::float64, fuse);
    EXPECT_EQ(r32.first, r64.first) << "fusion " << fuse;
    EXPECT_EQ(r32.second, r64.second) << "fusion " << fuse;
  }
}

}  // namespace camber_test_dtype
