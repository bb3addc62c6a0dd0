// Dtypes in the tensor graph: index ops take int64 index tensors that stay
// on the device (the graph keeps the tensor, not a host copy); results and
// derivatives equal the std::vector overloads'; other dtypes are errors
// naming the op and the dtypes.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <camber/autodiff/graph.hpp>
#include <camber/error.hpp>

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
