// In-place changes and the tensor graph: Tensor::version() advances with
// every in-place change, and a backward pass that would read a changed value
// raises an error naming the op instead of returning a wrong gradient.
// Ops whose gradients need no values (add, reshape) stay differentiable.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <camber/autodiff/graph.hpp>
#include <camber/core/error.hpp>

namespace {

namespace ad = camber::ad;
using camber::Tensor;

// The message of the camber::Error that f throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const camber::Error& e) {
    return e.what();
  }
  return "";
}

TEST(InPlace, EveryInPlaceChangeAdvancesTheSharedVersion) {
  Tensor a = Tensor::from_host({2, 2}, {1, 2, 3, 4});
  const Tensor copy = a;                   // shares storage and counter
  const Tensor flat = a.reshape({4});      // shares too
  const Tensor other = a.clone();          // its own storage and counter
  const std::uint64_t v0 = a.version();
  a.fill(1.0);
  a += other;
  a -= other;
  a *= 2.0;
  a.axpy(0.5, other);
  a.assign({1, 2, 3, 4});
  EXPECT_EQ(a.version(), v0 + 6);
  EXPECT_EQ(copy.version(), a.version());
  EXPECT_EQ(flat.version(), a.version());
  EXPECT_NE(other.version(), a.version());
  EXPECT_EQ(Tensor().version(), 0u);
}

TEST(InPlace, ChangingAnInputAMulNeedsIsAnError) {
  Tensor t = Tensor::from_host({3}, {1, 2, 3});
  ad::Var x = ad::variable(t);
  ad::Var y = ad::sum(ad::mul(x, x));
  t.fill(5.0);  // the graph's saved x is now 5, 5, 5
  const std::string msg = error_of([&] { ad::grad(y, {x}); });
  EXPECT_NE(msg.find("op 'mul' needs the value of its input 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("changed in place"), std::string::npos) << msg;
  EXPECT_NE(msg.find("clone()"), std::string::npos) << msg;
}

TEST(InPlace, ChangingTheOutputAnExpNeedsIsAnError) {
  // d exp(x)/dx reads exp's output once it was computed (stored, not
  // recomputed), with or without fusion.
  for (const bool fuse : {true, false}) {
    ad::FusionGuard mode(fuse);
    ad::Var x = ad::variable(Tensor::from_host({2}, {0.5, -1.0}));
    ad::Var e = ad::exp(x);
    ad::Var y = ad::sum(e);
    Tensor ev = e.value();
    ev *= 3.0;
    const std::string msg = error_of([&] { ad::grad(y, {x}); });
    EXPECT_NE(msg.find("its output's value"), std::string::npos) << "fusion " << fuse << ": " << msg;
  }
}

TEST(InPlace, APendingOutputIsRecomputedNotRead) {
  // Never computed on its own, exp(x) is recomputed from x by the fused
  // gradient: nothing to change in place, d exp(x)/dx = exp(x) exactly.
  ad::Var x = ad::variable(Tensor::from_host({2}, {0.5, -1.0}));
  ad::Var y = ad::sum(ad::exp(x));
  const auto g = ad::grad(y, {x})[0].value().to_vector();
  EXPECT_EQ(g, (std::vector<double>{std::exp(0.5), std::exp(-1.0)}));
}

TEST(InPlace, ChangingTheOutputANonElementwiseOpNeedsIsAnError) {
  // matmul's VJP reads its inputs: changing m, an input of the second
  // matmul, before the backward pass is detected.
  ad::Var x = ad::variable(Tensor::from_host({2, 2}, {0.5, -1.0, 2.0, 3.0}));
  ad::Var m = ad::matmul(x, x);
  ad::Var y = ad::sum(ad::matmul(m, m));
  Tensor mv = m.value();
  mv *= 3.0;
  const std::string msg = error_of([&] { ad::grad(y, {x}); });
  EXPECT_NE(msg.find("op 'matmul' needs the value of its input"), std::string::npos) << msg;
}

TEST(InPlace, ChangingAViewThroughAReshapeIsSeen) {
  Tensor t = Tensor::from_host({2, 2}, {1, 2, 3, 4});
  ad::Var x = ad::variable(t);
  ad::Var y = ad::sum(ad::sin(x));
  Tensor flat = t.reshape({4});
  flat.fill(0.0);
  EXPECT_NE(error_of([&] { ad::grad(y, {x}); }).find("op 'sin'"), std::string::npos);
}

TEST(InPlace, OpsThatReadNoValuesStayDifferentiable) {
  // d/dx sum(2 (x + c) - c) = 2 whatever x and c hold: changing them after
  // the graph was built does not make the gradient wrong, so it is allowed.
  Tensor t = Tensor::from_host({3}, {1, 2, 3});
  Tensor c = Tensor::from_host({3}, {4, 5, 6});
  ad::Var x = ad::variable(t);
  ad::Var y = ad::sum(ad::sub(ad::mul_scalar(ad::add(x, ad::constant(c)), 2.0), ad::constant(c)));
  t.fill(-7.0);
  c += t;
  const auto g = ad::grad(y, {x})[0].value().to_vector();
  for (double v : g) EXPECT_EQ(v, 2.0);
}

TEST(InPlace, CloneBeforeChangingKeepsTheGradientRight) {
  Tensor t = Tensor::from_host({3}, {1, 2, 3});
  ad::Var x = ad::variable(t.clone());
  ad::Var y = ad::sum(ad::mul(x, x));
  t.fill(5.0);  // not the storage the graph holds
  const auto g = ad::grad(y, {x})[0].value().to_vector();
  EXPECT_EQ(g, (std::vector<double>{2, 4, 6}));  // 2 x, exact
}

TEST(InPlace, ChangesAfterTheBackwardPassAreFine) {
  // An optimizer step: differentiate, then update the parameters in place.
  Tensor w = Tensor::from_host({2}, {1.0, -2.0});
  for (int step = 0; step < 3; ++step) {
    ad::Var x = ad::variable(w);
    const Tensor g = ad::grad(ad::sum(ad::mul(x, x)), {x})[0].value();  // 2 w
    w.axpy(-0.25, g);                                                    // w / 2
  }
  EXPECT_EQ(w.to_vector(), (std::vector<double>{0.125, -0.25}));
}

}  // namespace
