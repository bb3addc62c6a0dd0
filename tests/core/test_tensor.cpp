// Tensor: construction, broadcasting, element-wise kernels and reductions,
// checked against values computed by hand or by closed-form sums.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/tensor.hpp>

using camber::Shape;
using camber::Tensor;

TEST(Tensor, ShapeSizeAndZeroInit) {
  Tensor t({2, 3, 4});
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.size(), 24);
  EXPECT_EQ(t.dim(1), 3);
  EXPECT_EQ(t.strides(), (Shape{12, 4, 1}));
  EXPECT_EQ(t.sum(), 0.0);
  EXPECT_THROW(t.dim(3), camber::Error);
}

TEST(Tensor, ScalarAndEmpty) {
  Tensor s = Tensor::scalar(2.5);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.size(), 1);
  EXPECT_EQ(s.item(), 2.5);
  Tensor e({0, 3});
  EXPECT_TRUE(e.empty());
  EXPECT_EQ(e.sum(), 0.0);
  EXPECT_EQ(e.max_abs(), 0.0);
  EXPECT_THROW(e.max(), camber::Error);
}

TEST(Tensor, FromHostRoundTripAndMismatch) {
  Tensor t = Tensor::from_host({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(t.to_vector(), (std::vector<double>{1, 2, 3, 4}));
  auto h = t.host();
  EXPECT_EQ(h(3), 4.0);
  EXPECT_THROW(Tensor::from_host({2, 2}, {1, 2, 3}), camber::Error);
}

TEST(Tensor, CopiesShareStorageCloneDoesNot) {
  Tensor a = Tensor::full({3}, 1.0);
  Tensor shared = a;
  Tensor deep = a.clone();
  a.fill(7.0);
  EXPECT_EQ(shared.sum(), 21.0);
  EXPECT_EQ(deep.sum(), 3.0);
}

TEST(Tensor, ReshapeInfersAxisAndSharesStorage) {
  Tensor a = Tensor::arange(12);
  Tensor b = a.reshape({3, -1});
  EXPECT_EQ(b.shape(), (Shape{3, 4}));
  b.fill(1.0);
  EXPECT_EQ(a.sum(), 12.0);
  EXPECT_THROW(a.reshape({5, -1}), camber::Error);
  EXPECT_THROW(a.reshape({-1, -1}), camber::Error);
}

TEST(Tensor, BroadcastShapesFollowNumPy) {
  EXPECT_EQ(camber::broadcast_shapes({3, 1}, {4}), (Shape{3, 4}));
  EXPECT_EQ(camber::broadcast_shapes({2, 1, 5}, {3, 1}), (Shape{2, 3, 5}));
  EXPECT_EQ(camber::broadcast_shapes({}, {2, 2}), (Shape{2, 2}));
  EXPECT_THROW(camber::broadcast_shapes({3}, {4}), camber::Error);
}

TEST(Tensor, BroadcastAddMatchesHandComputation) {
  // a[i, j] = i (column), b[j] = 10 j (row): c[i, j] = i + 10 j.
  Tensor a = Tensor::from_host({3, 1}, {0, 1, 2});
  Tensor b = Tensor::from_host({4}, {0, 10, 20, 30});
  Tensor c = camber::add(a, b);
  ASSERT_EQ(c.shape(), (Shape{3, 4}));
  auto h = c.host();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(h(i * 4 + j), i + 10.0 * j);
  // Sum of i + 10 j over the grid: 4 * (0+1+2) + 3 * 10 * (0+1+2+3) = 12 + 180.
  EXPECT_EQ(c.sum(), 192.0);
}

TEST(Tensor, BinaryOpsElementwise) {
  Tensor a = Tensor::from_host({4}, {1, 2, 3, 4});
  Tensor b = Tensor::from_host({4}, {4, 3, 2, 1});
  EXPECT_EQ(camber::sub(a, b).to_vector(), (std::vector<double>{-3, -1, 1, 3}));
  EXPECT_EQ(camber::mul(a, b).to_vector(), (std::vector<double>{4, 6, 6, 4}));
  EXPECT_EQ(camber::div(a, b).to_vector(), (std::vector<double>{0.25, 2.0 / 3.0, 1.5, 4}));
  EXPECT_EQ(camber::pow(a, b).to_vector(), (std::vector<double>{1, 8, 9, 4}));
  EXPECT_EQ(camber::maximum(a, b).to_vector(), (std::vector<double>{4, 3, 3, 4}));
  EXPECT_EQ(camber::minimum(a, b).to_vector(), (std::vector<double>{1, 2, 2, 1}));
}

TEST(Tensor, UnaryOpsMatchStdMath) {
  const std::vector<double> x = {-1.5, -0.25, 0.5, 2.0};
  Tensor a = Tensor::from_host({4}, x);
  const auto e = camber::exp(a).to_vector();
  const auto th = camber::tanh(a).to_vector();
  const auto s = camber::sin(a).to_vector();
  const auto c = camber::cos(a).to_vector();
  const auto ab = camber::abs(a).to_vector();
  const auto n = camber::neg(a).to_vector();
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_DOUBLE_EQ(e[i], std::exp(x[i]));
    EXPECT_DOUBLE_EQ(th[i], std::tanh(x[i]));
    EXPECT_DOUBLE_EQ(s[i], std::sin(x[i]));
    EXPECT_DOUBLE_EQ(c[i], std::cos(x[i]));
    EXPECT_EQ(ab[i], std::fabs(x[i]));
    EXPECT_EQ(n[i], -x[i]);
  }
  Tensor p = camber::abs(a);
  const auto l = camber::log(p).to_vector();
  const auto r = camber::sqrt(p).to_vector();
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_DOUBLE_EQ(l[i], std::log(std::fabs(x[i])));
    EXPECT_DOUBLE_EQ(r[i], std::sqrt(std::fabs(x[i])));
  }
}

TEST(Tensor, ReductionsAgainstClosedForms) {
  const camber::index_t n = 1000;
  Tensor a = Tensor::arange(n);
  EXPECT_EQ(a.sum(), n * (n - 1) / 2.0);
  EXPECT_EQ(a.min(), 0.0);
  EXPECT_EQ(a.max(), n - 1.0);
  // sum of i^2 = (n-1) n (2n-1) / 6
  EXPECT_DOUBLE_EQ(camber::dot(a, a), (n - 1.0) * n * (2.0 * n - 1.0) / 6.0);
  EXPECT_DOUBLE_EQ(a.norm2(), std::sqrt((n - 1.0) * n * (2.0 * n - 1.0) / 6.0));
  Tensor m = camber::add_scalar(camber::scale(a, -1.0), 3.0);  // 3 - i
  EXPECT_EQ(m.max_abs(), n - 4.0);
}

TEST(Tensor, AxisReductions) {
  // a[i, j, k] = 100 i + 10 j + k with shape {2, 3, 4}.
  std::vector<double> v;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) v.push_back(100 * i + 10 * j + k);
  Tensor a = Tensor::from_host({2, 3, 4}, v);
  Tensor s1 = camber::sum(a, 1);  // sum over j: 300 i + 30 + 3 k
  ASSERT_EQ(s1.shape(), (Shape{2, 4}));
  auto h = s1.host();
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(h(i * 4 + k), 300.0 * i + 30 + 3 * k);
  Tensor m2 = camber::max(a, 2);  // max over k: 100 i + 10 j + 3
  ASSERT_EQ(m2.shape(), (Shape{2, 3}));
  auto hm = m2.host();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(hm(i * 3 + j), 100.0 * i + 10 * j + 3);
  EXPECT_THROW(camber::sum(a, 3), camber::Error);
}

TEST(Tensor, InPlaceOps) {
  Tensor y = Tensor::full({5}, 1.0);
  Tensor x = Tensor::arange(5);
  y.axpy(2.0, x);  // 1 + 2 i
  EXPECT_EQ(y.sum(), 5.0 + 2.0 * 10.0);
  y -= x;  // 1 + i
  y *= 2.0;  // 2 + 2 i
  EXPECT_EQ(y.to_vector(), (std::vector<double>{2, 4, 6, 8, 10}));
  EXPECT_THROW(y += Tensor({4}), camber::Error);
  EXPECT_EQ(camber::max_abs_diff(y, camber::scale(camber::add_scalar(x, 1.0), 2.0)), 0.0);
}

// v(i, j) = 10 i + j. (Device lambdas may not live in a TEST body, whose
// class is private to GoogleTest: nvcc rejects that.)
void fill_ten_i_plus_j(const Kokkos::View<double**, Kokkos::LayoutRight>& v) {
  const int n = static_cast<int>(v.extent(1));
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<>(0, static_cast<int>(v.size())),
      KOKKOS_LAMBDA(const int i) { v(i / n, i % n) = 10.0 * (i / n) + (i % n); });
}

// Tensor::from_view shares the View's storage: writes through either side
// are seen by the other, and the Tensor keeps the allocation alive after
// the View handle is gone.
TEST(Tensor, FromViewSharesStorageAndKeepsItAlive) {
  Tensor t;
  {
    Kokkos::View<double**, Kokkos::LayoutRight> v("v", 2, 3);
    fill_ten_i_plus_j(v);
    t = Tensor::from_view(v);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.data(), v.data());
    EXPECT_EQ(t.to_vector(), (std::vector<double>{0, 1, 2, 10, 11, 12}));
    t *= 2.0;  // through the Tensor...
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    EXPECT_EQ(h(1, 2), 24.0);  // ...seen in the View
  }
  // The View handle is gone; its storage lives on in t (and in a reshape).
  const Tensor r = t.reshape({6});
  t = Tensor();
  EXPECT_EQ(r.to_vector(), (std::vector<double>{0, 2, 4, 20, 22, 24}));
  EXPECT_EQ(r.sum(), 72.0);
}

TEST(Tensor, FromViewOfOneDimensionalAndScalarViews) {
  Kokkos::View<double*> v("v", 4);
  Kokkos::deep_copy(v, 1.5);
  EXPECT_EQ(Tensor::from_view(v).sum(), 6.0);
  Kokkos::View<double> s("s");
  Kokkos::deep_copy(s, 7.0);
  const Tensor ts = Tensor::from_view(s);
  EXPECT_EQ(ts.rank(), 0);
  EXPECT_EQ(ts.item(), 7.0);
}

TEST(Tensor, FromViewRejectsAColumnMajorView) {
  // A 2x3 LayoutLeft View has strides (1, 2): not row-major, so no
  // zero-copy Tensor of shape {2, 3} exists.
  Kokkos::View<double**, Kokkos::LayoutLeft> v("v", 2, 3);
  try {
    (void)Tensor::from_view(v);
    FAIL() << "expected an error";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not row-major"), std::string::npos) << e.what();
  }
  // A single column of it is contiguous in either layout.
  Kokkos::View<double**, Kokkos::LayoutLeft> column("column", 5, 1);
  EXPECT_EQ(Tensor::from_view(column).shape(), (Shape{5, 1}));
}

TEST(Tensor, WrapExternalMemoryWithAnOwner) {
  // Memory of the default memory space (device memory on a GPU), owned by
  // a shared_ptr the Tensor must keep alive.
  auto storage = std::make_shared<Kokkos::View<double*>>("external", 6);
  std::weak_ptr<Kokkos::View<double*>> watch = storage;
  {
    Tensor t = Tensor::wrap(storage->data(), {3, 2}, storage);
    storage.reset();
    EXPECT_FALSE(watch.expired());  // the Tensor holds the owner
    t.fill(0.5);
    EXPECT_EQ(t.sum(), 3.0);
  }
  EXPECT_TRUE(watch.expired());  // last Tensor gone: the owner is released
}

TEST(Tensor, BroadcastErrorsNameTheOperationAndShapes) {
  try {
    (void)camber::mul(Tensor({3}), Tensor({4}));
    FAIL() << "expected an error";
  } catch (const camber::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("camber::mul"), std::string::npos) << m;
    EXPECT_NE(m.find("{3}"), std::string::npos) << m;
    EXPECT_NE(m.find("{4}"), std::string::npos) << m;
  }
}

// ---- dtypes ---------------------------------------------------------------------

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const camber::Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(TensorDType, ZerosAndRoundTripsOfEachDtype) {
  using camber::DType;
  EXPECT_EQ(Tensor({2}).dtype(), DType::float64);
  const Tensor z32 = Tensor::zeros({2, 3}, DType::float32);
  EXPECT_EQ(z32.dtype(), DType::float32);
  EXPECT_EQ(z32.size(), 6);
  EXPECT_EQ(z32.to_vector_float32(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(Tensor::zeros({4}, DType::int64).to_vector_int64(), std::vector<std::int64_t>(4, 0));
  const std::vector<std::int64_t> idx = {5, -3, 0, 1LL << 40};
  const Tensor i = Tensor::from_host_int64({2, 2}, idx);
  EXPECT_EQ(i.to_vector_int64(), idx);
  // clone and reshape keep the dtype; clone copies.
  Tensor c = i.clone().reshape({4});
  EXPECT_EQ(c.dtype(), DType::int64);
  EXPECT_EQ(c.to_vector_int64(), idx);
  EXPECT_NE(c.raw_data(), i.raw_data());
  EXPECT_EQ(camber::dtype_size(DType::float32), 4u);
  EXPECT_STREQ(camber::dtype_name(DType::int64), "int64");
}

TEST(TensorDType, ConversionsAreExplicitAndExact) {
  using camber::DType;
  const Tensor x = Tensor::from_host({4}, {1.5, -1.7, 0.1, 3e9});
  // float64 -> float32 rounds to nearest, as static_cast<float>.
  const std::vector<float> f = x.to(DType::float32).to_vector_float32();
  for (size_t k = 0; k < f.size(); ++k)
    EXPECT_EQ(f[k], static_cast<float>(x.to_vector()[k])) << k;
  // float -> int64 truncates toward zero; int64 -> float64 is exact here.
  EXPECT_EQ(x.to(DType::int64).to_vector_int64(),
            (std::vector<std::int64_t>{1, -1, 0, 3000000000LL}));
  EXPECT_EQ(Tensor::from_host_int64({2}, {7, -9}).to(DType::float64).to_vector(),
            (std::vector<double>{7.0, -9.0}));
  // The same dtype shares the storage.
  EXPECT_EQ(x.to(DType::float64).raw_data(), x.raw_data());
}

TEST(TensorDType, Float64OpsRejectOtherDtypesNamingTheOp) {
  using camber::DType;
  const Tensor a = Tensor::zeros({3}, DType::float32);
  const std::string m = error_of([&] { (void)camber::add(a, Tensor({3})); });
  EXPECT_NE(m.find("camber::add"), std::string::npos) << m;
  EXPECT_NE(m.find("float32"), std::string::npos) << m;
  EXPECT_NE(m.find("float64"), std::string::npos) << m;
  EXPECT_NE(error_of([&] { (void)a.view(); }).find("float32"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)a.to_vector(); }).find("Tensor::to_vector"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)a.typed_view<double>(); }).find("float64"), std::string::npos);
  Tensor i = Tensor::zeros({2}, DType::int64);
  EXPECT_NE(error_of([&] { i.fill(1.0); }).find("Tensor::fill"), std::string::npos);
}
