// Tests of the tensor graph API (autodiff/variable.hpp, functional.hpp):
// reverse mode to 4th order, forward mode, hvp/jacobian/hessian against
// analytic derivatives, no_grad, graph release, checkpointing.
//
// Reference values are analytic (derived in comments). AD evaluates the same
// formulas as the analytic expressions with a few more roundings, so the
// tolerances are a small multiple of eps times the size of the terms.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/graph.hpp>
#include <camber/core/error.hpp>

namespace camber_test_graph {

namespace ad = camber::ad;
using ad::Var;
using ad::Vars;
using camber::Shape;
using camber::Tensor;

std::vector<double> values(const Var& v) { return v.value().to_vector(); }

void expect_close(const std::vector<double>& actual, const std::vector<double>& expected,
                  double rtol, const char* what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], rtol * std::max(1.0, std::abs(expected[i])))
        << what << ", element " << i;
}

const std::vector<double> points = {-1.3, -0.4, 0.0, 0.7, 1.9};

TEST(Graph, GradientOfAnExpression) {
  // y = sum(sin(x) x),  dy/dx = cos(x) x + sin(x).
  const Var x = ad::variable(Tensor::from_host({5}, points));
  const Var y = ad::sum(ad::sin(x) * x);
  const Var g = ad::grad(y, {x})[0];
  std::vector<double> expected;
  for (double p : points) expected.push_back(std::cos(p) * p + std::sin(p));
  expect_close(values(g), expected, 1e-15, "dy/dx");
  EXPECT_FALSE(g.requires_grad());  // no create_graph: a constant
}

TEST(Graph, FourthDerivativeOfSinExp) {
  // f = sin(x) e^x:  f' = e^x (sin + cos),  f'' = 2 e^x cos,
  // f''' = 2 e^x (cos - sin),  f'''' = -4 e^x sin.
  const Var x = ad::variable(Tensor::from_host({5}, points));
  Var d = ad::sin(x) * ad::exp(x);
  std::vector<std::vector<double>> expected(5);
  for (double p : points) {
    const double e = std::exp(p), s = std::sin(p), c = std::cos(p);
    expected[1].push_back(e * (s + c));
    expected[2].push_back(2 * e * c);
    expected[3].push_back(2 * e * (c - s));
    expected[4].push_back(-4 * e * s);
  }
  for (int order = 1; order <= 4; ++order) {
    // Elementwise f: the gradient of sum(f^(k)) is f^(k+1).
    d = ad::grad(ad::sum(d), {x}, /*create_graph=*/true)[0];
    EXPECT_TRUE(d.requires_grad());
    expect_close(values(d), expected[static_cast<size_t>(order)], 1e-13, "derivative");
  }
}

TEST(Graph, FourthDerivativeForwardOverThreeReverse) {
  // s(x) = sum(f''(x)) for f = sin(x) e^x; its Hessian is diag(f''''), so
  // hvp(s, x, 1) = f''''(x) = -4 e^x sin x: one forward level over three
  // reverse levels.
  auto s = [](const Var& x) {
    Var d = ad::sin(x) * ad::exp(x);
    for (int k = 0; k < 2; ++k) d = ad::grad(ad::sum(d), {x}, true)[0];
    return ad::sum(d);
  };
  const Tensor x = Tensor::from_host({5}, points);
  const Tensor h = ad::hvp(s, x, Tensor::full({5}, 1.0));
  std::vector<double> expected;
  for (double p : points) expected.push_back(-4 * std::exp(p) * std::sin(p));
  expect_close(h.to_vector(), expected, 1e-13, "f'''' by hvp");
}

TEST(Graph, FourthDerivativeOfAPower) {
  // f = x^5 (pow) and x*x*x*x*x (mul): f'''' = 120 x, f''''' = 120.
  for (int variant = 0; variant < 2; ++variant) {
    const Var x = ad::variable(Tensor::from_host({5}, points));
    Var d = variant == 0 ? ad::pow(x, 5.0) : x * x * x * x * x;
    for (int order = 1; order <= 5; ++order) d = ad::grad(ad::sum(d), {x}, true)[0];
    expect_close(values(d), std::vector<double>(5, 120.0), 1e-13, "5th derivative");
  }
  const Var x = ad::variable(Tensor::from_host({5}, points));
  Var d = ad::pow(x, 5.0);
  for (int order = 1; order <= 4; ++order) d = ad::grad(ad::sum(d), {x}, true)[0];
  std::vector<double> expected;
  for (double p : points) expected.push_back(120 * p);
  expect_close(values(d), expected, 1e-13, "4th derivative");
}

TEST(Graph, MixedSecondDerivativeOfTwoInputs) {
  // f = sum(x^2 y^3): df/dx = 2 x y^3, d/dy (sum df/dx) = 6 x y^2.
  const Var x = ad::variable(Tensor::from_host({3}, {0.5, -1.0, 2.0}));
  const Var y = ad::variable(Tensor::from_host({3}, {1.5, 0.3, -0.7}));
  const Var f = ad::sum(ad::square(x) * ad::pow(y, 3.0));
  const Vars g = ad::grad(f, {x, y}, true);
  const Var gxy = ad::grad(ad::sum(g[0]), {y})[0];
  const auto xv = values(x), yv = values(y);
  std::vector<double> expected;
  for (size_t i = 0; i < 3; ++i) expected.push_back(6 * xv[i] * yv[i] * yv[i]);
  expect_close(values(gxy), expected, 1e-14, "d2f/dxdy");
}

TEST(Graph, JvpIsTheDirectionalDerivative) {
  // f = e^x sin x, J v = e^x (sin + cos) v.
  const Tensor x = Tensor::from_host({5}, points);
  const Tensor v = Tensor::from_host({5}, {1.0, -2.0, 0.5, 3.0, 0.0});
  const ad::JvpResult r = ad::jvp([](const Var& a) { return ad::exp(a) * ad::sin(a); },
                                  ad::constant(x), ad::constant(v));
  std::vector<double> expected;
  for (size_t i = 0; i < points.size(); ++i) {
    const double p = points[i];
    expected.push_back(std::exp(p) * (std::sin(p) + std::cos(p)) * v.to_vector()[i]);
  }
  expect_close(values(r.tangents[0]), expected, 1e-14, "J v");
}

TEST(Graph, ReverseOverForward) {
  // g(x) = <f'(x), v> for f = sum(x^3): g = 3 x^2 . v, dg/dx = 6 x v.
  const Var x = ad::variable(Tensor::from_host({3}, {0.5, -1.0, 2.0}));
  const Var v = ad::constant(Tensor::from_host({3}, {1.0, 2.0, -1.0}));
  const ad::JvpResult r = ad::jvp([](const Var& a) { return ad::sum(ad::pow(a, 3.0)); }, x, v);
  const Var dg = ad::grad(r.tangents[0], {x})[0];
  expect_close(values(dg), {6 * 0.5 * 1.0, 6 * -1.0 * 2.0, 6 * 2.0 * -1.0}, 1e-15, "d<f', v>/dx");
}

TEST(Graph, ReverseOverForwardThroughTheOutput) {
  // exp's JVP uses its output (t * e^x): g = <J v, 1> = sum(e^x v) needs
  // d(e^x)/dx through that output: dg/dx = e^x v.
  const Var x = ad::variable(Tensor::from_host({2}, {0.3, -0.6}));
  const Var v = ad::constant(Tensor::from_host({2}, {2.0, 5.0}));
  const ad::JvpResult r = ad::jvp([](const Var& a) { return ad::exp(a); }, x, v);
  const Var dg = ad::grad(ad::sum(r.tangents[0]), {x})[0];
  expect_close(values(dg), {std::exp(0.3) * 2.0, std::exp(-0.6) * 5.0}, 1e-15, "d<J v, 1>/dx");
}

TEST(Graph, ForwardModeLeavesNoReferenceCycles) {
  // A tangent computed from its own output (exp, tanh, div, sqrt, ...)
  // must not keep that output alive: dropping the results frees the values.
  const Var x = ad::variable(Tensor::from_host({2}, {0.3, -0.6}));
  Tensor kept;
  {
    const ad::JvpResult r = ad::jvp([](const Var& a) { return ad::tanh(ad::exp(a) / a); }, x,
                                    ad::constant(Tensor::full({2}, 1.0)));
    kept = r.outputs[0].value();
    EXPECT_GT(kept.use_count(), 1);
  }
  EXPECT_EQ(kept.use_count(), 1);
}

// f(x) = sum(exp(A x)) with A 3x2: grad = A^T e, Hessian = A^T diag(e) A,
// e = exp(A x).
struct ExpOfLinear {
  std::vector<double> a = {1.0, -0.5, 0.3, 2.0, -1.2, 0.4};  // 3x2, row-major
  Var operator()(const Var& x) const {
    const Var A = ad::constant(Tensor::from_host({3, 2}, a));
    return ad::sum(ad::exp(ad::matmul(A, ad::reshape(x, {2, 1}))));
  }
  std::vector<double> hessian(const std::vector<double>& x) const {
    std::vector<double> H(4, 0.0);
    for (int i = 0; i < 3; ++i) {
      const double e = std::exp(a[2 * i] * x[0] + a[2 * i + 1] * x[1]);
      for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 2; ++q) H[2 * p + q] += a[2 * i + p] * e * a[2 * i + q];
    }
    return H;
  }
};

TEST(Graph, HessianAndHvpMatchAnalytic) {
  const ExpOfLinear f;
  const std::vector<double> x0 = {0.3, -0.2};
  const std::vector<double> H = f.hessian(x0);
  const Tensor Hs = ad::hessian(f, Tensor::from_host({2}, x0));
  EXPECT_EQ(Hs.shape(), (Shape{2, 2}));
  expect_close(Hs.to_vector(), H, 1e-14, "hessian");
  const Tensor Hv = ad::hvp(f, Tensor::from_host({2}, x0), Tensor::from_host({2}, {1.0, -3.0}));
  expect_close(Hv.to_vector(), {H[0] - 3 * H[1], H[2] - 3 * H[3]}, 1e-14, "H v");
}

TEST(Graph, ValueAndGradOfOneAndOfSeveralInputs) {
  // f(x) = sum(sin(x) e^x): value sum sin e^x, gradient (cos + sin) e^x.
  const Var x = ad::variable(Tensor::from_host({5}, points));
  const auto [y, g] = ad::value_and_grad([](const Var& z) { return ad::sum(ad::sin(z) * ad::exp(z)); }, x);
  double expected = 0;
  std::vector<double> dg;
  for (double p : points) {
    expected += std::sin(p) * std::exp(p);
    dg.push_back((std::cos(p) + std::sin(p)) * std::exp(p));
  }
  EXPECT_NEAR(y.value().item(), expected, 1e-14 * 10);
  ASSERT_EQ(g.size(), 1u);
  expect_close(values(g[0]), dg, 1e-14, "value_and_grad");
  // f(a, b) = sum(a b^2), with b a constant: differentiated all the same.
  const Var a = ad::variable(Tensor::from_host({2}, {1.5, -2.0}));
  const Var b = ad::constant(Tensor::from_host({2}, {3.0, 0.5}));
  const ad::ValueAndGrad r =
      ad::value_and_grad([](const Vars& v) { return ad::sum(v[0] * v[1] * v[1]); }, Vars{a, b});
  EXPECT_DOUBLE_EQ(r.value.value().item(), 1.5 * 9.0 - 2.0 * 0.25);
  expect_close(values(r.grads[0]), {9.0, 0.25}, 1e-15, "d/da");
  expect_close(values(r.grads[1]), {2 * 1.5 * 3.0, 2 * -2.0 * 0.5}, 1e-15, "d/db");
}

TEST(Graph, VarFormsOfHvpJacobianAndHessian) {
  const ExpOfLinear f;
  const std::vector<double> x0 = {0.3, -0.2}, v0 = {1.0, -3.0}, w0 = {0.7, 0.4};
  const std::vector<double> H = f.hessian(x0);
  const Var x = ad::variable(Tensor::from_host({2}, x0));
  const Var v = ad::constant(Tensor::from_host({2}, v0));
  // Values equal the Tensor forms' analytic ones.
  expect_close(values(ad::hvp(f, x, v)), {H[0] - 3 * H[1], H[2] - 3 * H[3]}, 1e-14, "hvp");
  expect_close(values(ad::hessian(f, x)), H, 1e-14, "hessian");
  const Var J = ad::jacobian([](const Var& z) { return ad::sin(z) * z; }, x);
  EXPECT_EQ(J.shape(), (Shape{2, 2}));
  expect_close(values(J),
               {std::cos(x0[0]) * x0[0] + std::sin(x0[0]), 0.0, 0.0,
                std::cos(x0[1]) * x0[1] + std::sin(x0[1])},
               1e-15, "jacobian");
  // Third derivatives through the Var forms with create_graph, against
  // f = sum_i exp(a_i . x):  d/dx_r (w^T H v) = sum_i e_i (a_i.w)(a_i.v) a_ir
  // and d/dx_r sum(H) = sum_i e_i (a_i1 + a_i2)^2 a_ir.
  const Var w = ad::constant(Tensor::from_host({2}, w0));
  const Var whv = ad::sum(ad::hvp(f, x, v, /*create_graph=*/true) * w);
  const Var sh = ad::sum(ad::hessian(f, x, /*create_graph=*/true));
  std::vector<double> d3_whv(2, 0.0), d3_sum(2, 0.0);
  for (int i = 0; i < 3; ++i) {
    const double* ai = &f.a[static_cast<size_t>(2 * i)];
    const double e = std::exp(ai[0] * x0[0] + ai[1] * x0[1]);
    const double aw = ai[0] * w0[0] + ai[1] * w0[1], av = ai[0] * v0[0] + ai[1] * v0[1];
    for (int r = 0; r < 2; ++r) {
      d3_whv[r] += e * aw * av * ai[r];
      d3_sum[r] += e * (ai[0] + ai[1]) * (ai[0] + ai[1]) * ai[r];
    }
  }
  expect_close(values(ad::grad(whv, {x})[0]), d3_whv, 1e-13, "d(w.Hv)/dx");
  expect_close(values(ad::grad(sh, {x})[0]), d3_sum, 1e-13, "d(sum H)/dx");
  // Without create_graph the results are constants.
  EXPECT_FALSE(ad::hvp(f, x, v).requires_grad());
}

TEST(Graph, BroadcastErrorsNameTheOp) {
  const Var x = ad::variable(Tensor({2, 3}));
  try {
    (void)ad::div(x, ad::constant(Tensor({2})));
    FAIL() << "expected an error";
  } catch (const camber::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ad::div"), std::string::npos) << m;
    EXPECT_NE(m.find("{2, 3}"), std::string::npos) << m;
  }
}

TEST(Graph, JacobianOfAnElementwiseMap) {
  // f = sin(x) on a 2x3 tensor: J[i, j, k, l] = cos(x_ij) when (i,j) == (k,l).
  const std::vector<double> xv = {0.1, 0.2, 0.3, -0.4, -0.5, 0.6};
  const Tensor J =
      ad::jacobian([](const Var& x) { return ad::sin(x); }, Tensor::from_host({2, 3}, xv));
  EXPECT_EQ(J.shape(), (Shape{2, 3, 2, 3}));
  std::vector<double> expected(36, 0.0);
  for (size_t i = 0; i < 6; ++i) expected[i * 6 + i] = std::cos(xv[i]);
  expect_close(J.to_vector(), expected, 1e-15, "jacobian");
}

TEST(Graph, NoGradRecordsNothing) {
  const Var x = ad::variable(Tensor::from_host({2}, {1.0, 2.0}));
  Var y;
  {
    ad::NoGradGuard guard;
    EXPECT_FALSE(ad::grad_enabled());
    y = ad::exp(x) * x;
  }
  EXPECT_TRUE(ad::grad_enabled());
  EXPECT_FALSE(y.requires_grad());
  EXPECT_FALSE(y.has_node());
  // The output does not depend on x through a graph: a zero gradient.
  expect_close(values(ad::grad(ad::sum(y), {x})[0]), {0.0, 0.0}, 0.0, "no-grad gradient");
  ad::GradOptions strict;
  strict.allow_unused = false;
  EXPECT_THROW(ad::vjp({ad::sum(y)}, {x}, {ad::scalar(1.0)}, strict), camber::Error);
}

TEST(Graph, BackwardReleasesIntermediates) {
  const Var x = ad::variable(Tensor::from_host({3}, {1.0, 2.0, 3.0}));
  Tensor kept;
  Var y;
  {
    const Var h = ad::exp(x);
    kept = h.value();
    y = ad::sum(h * h);
    (void)y.item();  // a sum not yet computed would hold h until read
  }
  // The graph behind y holds h's value; so does `kept`.
  EXPECT_GT(kept.use_count(), 1);
  const Var g = ad::grad(y, {x})[0];
  EXPECT_EQ(kept.use_count(), 1);  // released by the backward pass
  std::vector<double> expected;
  for (double p : {1.0, 2.0, 3.0}) expected.push_back(2 * std::exp(2 * p));
  expect_close(values(g), expected, 1e-15, "gradient");
  // The released graph cannot be differentiated again.
  EXPECT_THROW(ad::grad(y, {x}), camber::Error);
}

TEST(Graph, GradientWithRespectToAnIntermediate) {
  // y = sum(h^2), h = exp(x): dy/dh = 2h, and h's own VJP is not needed.
  const Var x = ad::variable(Tensor::from_host({2}, {0.1, 0.2}));
  const Var h = ad::exp(x);
  // With fusion, h * h would fold exp(x) into its own expression and y's
  // graph would not pass through h: materialize h (a fusion barrier).
  ad::materialize(h);
  const Var y = ad::sum(h * h);
  expect_close(values(ad::grad(y, {h})[0]), {2 * std::exp(0.1), 2 * std::exp(0.2)}, 1e-15, "dy/dh");
  // y's graph is released now, h's node with it; a new graph on h still
  // differentiates with respect to h.
  const Var z = ad::sum(ad::sin(h));
  expect_close(values(ad::grad(z, {h})[0]), {std::cos(std::exp(0.1)), std::cos(std::exp(0.2))},
               1e-15, "dz/dh");
}

TEST(Graph, GradientWithRespectToAFusedIntermediateIsAnError) {
  const Var x = ad::variable(Tensor::from_host({2}, {0.1, 0.2}));
  Var h, y;
  {
    ad::FusionGuard on(true);  // whatever CAMBER_FUSION says
    h = ad::exp(x);
    y = ad::sum(h * h);  // folds exp(x) into h * h
  }
  try {
    (void)ad::grad(y, {h});
    FAIL() << "expected an error";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("materialize"), std::string::npos) << e.what();
  }
  // Without fusion the same program differentiates with respect to h.
  ad::FusionGuard off(false);
  const Var h2 = ad::exp(x);
  const Var y2 = ad::sum(h2 * h2);
  expect_close(values(ad::grad(y2, {h2})[0]), {2 * std::exp(0.1), 2 * std::exp(0.2)}, 1e-15,
               "dy/dh without fusion");
}

TEST(Graph, RetainGraphAllowsRepeatedBackward) {
  const Var x = ad::variable(Tensor::from_host({2}, {0.5, 1.5}));
  const Var y = ad::sum(ad::tanh(x));
  const Var g1 = ad::grad(y, {x}, false, /*retain_graph=*/true)[0];
  const Var g2 = ad::grad(y, {x})[0];
  expect_close(values(g1), values(g2), 0.0, "repeated gradient");
}

TEST(Graph, CheckpointRecomputesInBackward) {
  int calls = 0;
  const ad::MultiFunction block = [&calls](const Vars& in) {
    ++calls;
    return Vars{ad::sin(ad::exp(in[0])) * in[1]};
  };
  const Tensor x0 = Tensor::from_host({3}, {0.1, -0.3, 0.8});
  const Tensor w0 = Tensor::from_host({3}, {2.0, 1.0, -1.0});
  // Plain graph as the reference.
  const Var xr = ad::variable(x0), wr = ad::variable(w0);
  const Vars gr = ad::grad(ad::sum(block({xr, wr})[0]), {xr, wr}, true);
  const Var hr = ad::grad(ad::sum(gr[0]), {xr})[0];
  calls = 0;
  const Var x = ad::variable(x0), w = ad::variable(w0);
  const Var y = ad::checkpoint(block, {x, w});
  EXPECT_EQ(y.op_name(), "checkpoint");
  EXPECT_EQ(calls, 1);
  const Vars g = ad::grad(ad::sum(y), {x, w}, true);
  EXPECT_EQ(calls, 2);  // recomputed once in backward
  expect_close(values(g[0]), values(gr[0]), 1e-15, "checkpoint d/dx");
  expect_close(values(g[1]), values(gr[1]), 1e-15, "checkpoint d/dw");
  // Second order through the recomputed graph.
  expect_close(values(ad::grad(ad::sum(g[0]), {x})[0]), values(hr), 1e-15, "checkpoint d2/dx2");
  // And all gradient checks, forward mode included.
  const ad::GradCheckResult r =
      ad::check_all([&block](const Vars& in) { return ad::checkpoint(block, in); }, {x0, w0});
  EXPECT_TRUE(r.ok) << r.report();
}

TEST(Graph, DeepGraphsAreBuiltDifferentiatedAndFreedWithoutRecursion) {
  // 200000 ops in a chain (a long time loop): y = x * 1.00001^n + n * 1e-6.
  constexpr int n = 200000;
  const Var x = ad::variable(Tensor::from_host({1}, {2.0}));
  Var y = x;
  for (int i = 0; i < n; ++i) y = ad::add_scalar(ad::mul_scalar(y, 1.00001), 1e-6);
  const Var g = ad::grad(ad::sum(y), {x}, false, /*retain_graph=*/true)[0];
  EXPECT_NEAR(g.item(), std::pow(1.00001, n), 1e-9 * std::pow(1.00001, n));
  y = Var();  // frees the whole chain; recursive destruction would overflow
  Var z = x;
  for (int i = 0; i < n; ++i) z = ad::sin(z);
  z = Var();
  SUCCEED();
}

TEST(Graph, ConventionsAtKinksAndTies) {
  // ops.hpp: relu'(0) = abs'(0) = 0; maximum/minimum at a tie give the
  // whole derivative to the first argument; max over an axis splits the
  // cotangent evenly between tied entries.
  const Var z = ad::variable(Tensor::from_host({3}, {-1.0, 0.0, 2.0}));
  expect_close(values(ad::grad(ad::sum(ad::relu(z)), {z})[0]), {0.0, 0.0, 1.0}, 0.0, "relu'");
  expect_close(values(ad::grad(ad::sum(ad::abs(z)), {z})[0]), {-1.0, 0.0, 1.0}, 0.0, "abs'");
  const Var a = ad::variable(Tensor::from_host({2}, {1.0, 3.0}));
  const Var b = ad::variable(Tensor::from_host({2}, {1.0, 2.0}));
  for (int k = 0; k < 2; ++k) {
    const Var m = k == 0 ? ad::maximum(a, b) : ad::minimum(a, b);
    const Vars g = ad::grad(ad::sum(m), {a, b});
    expect_close(values(g[0]), {1.0, k == 0 ? 1.0 : 0.0}, 0.0, "d/da at a tie");
    expect_close(values(g[1]), {0.0, k == 0 ? 0.0 : 1.0}, 0.0, "d/db at a tie");
  }
  const Var t = ad::variable(Tensor::from_host({2, 3}, {5.0, 1.0, 5.0, 2.0, 2.0, 2.0}));
  const Var mx = ad::max(t, 1);
  expect_close(values(mx), {5.0, 2.0}, 0.0, "max values");
  expect_close(values(ad::grad(ad::sum(mx), {t})[0]), {0.5, 0.0, 0.5, 1.0 / 3, 1.0 / 3, 1.0 / 3},
               1e-16, "max at ties");
}

TEST(Graph, PowAtAZeroBaseFollowsTheDualConvention) {
  // f(a, b) = a^b at a = 0, for b = 0, 1, 2, 3, 2.5, 0.5. The math:
  //   d/da: a^0 = 1 for every a, so 0 at b = 0; b 0^(b-1) otherwise: 1 at
  //         b = 1, 0 for b > 1, +inf (from the right) for 0 < b < 1.
  //   d/db: 0^b = 0 for all b > 0, so 0; at b = 0 it does not exist and the
  //         convention (ops.hpp, dual.hpp) is 0.
  // Reverse mode, forward mode and Dual must all give these, without NaN.
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> bs = {0.0, 1.0, 2.0, 3.0, 2.5, 0.5};
  const std::vector<double> value = {1.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  const std::vector<double> d_da = {0.0, 1.0, 0.0, 0.0, 0.0, inf};
  const size_t n = bs.size();
  const Var a = ad::variable(Tensor(Shape{static_cast<camber::index_t>(n)}));
  const Var b = ad::variable(Tensor::from_host({static_cast<camber::index_t>(n)}, bs));
  const Var y = ad::pow(a, b);
  const Vars g = ad::grad(ad::sum(y), {a, b});
  const ad::JvpResult ta = ad::jvp([&b](const Var& z) { return ad::pow(z, b); }, a,
                                   ad::constant(Tensor::full({static_cast<camber::index_t>(n)}, 1.0)));
  const ad::JvpResult tb = ad::jvp([&a](const Var& z) { return ad::pow(a, z); }, b,
                                   ad::constant(Tensor::full({static_cast<camber::index_t>(n)}, 1.0)));
  // A constant zero base: the exponent's derivative alone.
  const Var gb0 = ad::grad(ad::sum(ad::pow(ad::constant(Tensor({static_cast<camber::index_t>(n)})), b)),
                           {b})[0];
  const auto yv = values(y), ga = values(g[0]), gb = values(g[1]);
  const auto ja = values(ta.tangents[0]), jb = values(tb.tangents[0]), gbc = values(gb0);
  for (size_t i = 0; i < n; ++i) {
    const double bi = bs[i];
    SCOPED_TRACE("b = " + std::to_string(bi));
    EXPECT_EQ(yv[i], value[i]);
    EXPECT_EQ(ga[i], d_da[i]) << "reverse d/da";
    EXPECT_EQ(gb[i], 0.0) << "reverse d/db";
    EXPECT_EQ(ja[i], d_da[i]) << "forward d/da";
    EXPECT_EQ(jb[i], 0.0) << "forward d/db";
    EXPECT_EQ(gbc[i], 0.0) << "d/db with a constant base";
    // Dual with a Dual exponent, a plain-number exponent, a plain base.
    using D2 = ad::Dual<double, 2>;
    const D2 r = ad::pow(ad::make_variable<2>(0.0, 0), ad::make_variable<2>(bi, 1));
    EXPECT_EQ(r.val(), value[i]);
    EXPECT_EQ(r.der(0), ga[i]) << "Dual d/da";
    if (std::isfinite(d_da[i])) {
      EXPECT_EQ(r.der(1), gb[i]) << "Dual d/db";
    } else {
      // Dual mixes the partials: inf * 0 in the direction a is not seeded
      // in gives NaN, as for sqrt at 0 (dual.hpp); ad::pow keeps them apart.
      EXPECT_TRUE(std::isnan(r.der(1))) << "Dual d/db";
    }
    EXPECT_EQ(ad::pow(ad::make_variable<1>(0.0, 0), bi).der(0), d_da[i]) << "Dual, plain b";
    EXPECT_EQ(ad::pow(0.0, ad::make_variable<1>(bi, 0)).der(0), 0.0) << "Dual, plain a";
    // The Var op with a plain-number exponent.
    const Var ap = ad::variable(Tensor::scalar(0.0));
    EXPECT_EQ(ad::grad(ad::sum(ad::pow(ap, bi)), {ap})[0].value().item(), d_da[i])
        << "Var, plain b";
  }
}

TEST(Graph, PowSecondDerivativesAtAZeroBase) {
  // f(a, b) = a^b at (0, 2): f_aa = b (b-1) a^(b-2) = 2; f_ab = a^(b-1)
  // (1 + b log a) -> 0 as a -> 0 (a log a -> 0); f_bb = a^b log^2 a -> 0.
  // Reverse over reverse, forward over reverse (hessian) and nested Dual.
  const std::vector<double> H = {2.0, 0.0, 0.0, 0.0};
  const ad::VarFunction f = [](const Var& x) {
    return ad::sum(ad::pow(ad::slice(x, 0, 0, 1), ad::slice(x, 0, 1, 2)));
  };
  const Var x = ad::variable(Tensor::from_host({2}, {0.0, 2.0}));
  const Var g = ad::grad(f(x), {x}, /*create_graph=*/true)[0];
  expect_close(values(g), {0.0, 0.0}, 0.0, "gradient at (0, 2)");
  const Var h0 = ad::grad(ad::sum(ad::slice(g, 0, 0, 1)), {x}, false, true)[0];
  const Var h1 = ad::grad(ad::sum(ad::slice(g, 0, 1, 2)), {x})[0];
  expect_close(values(h0), {H[0], H[1]}, 1e-15, "reverse over reverse, row a");
  expect_close(values(h1), {H[2], H[3]}, 1e-15, "reverse over reverse, row b");
  expect_close(ad::hessian(f, Tensor::from_host({2}, {0.0, 2.0})).to_vector(), H, 1e-15,
               "forward over reverse");
  using DD2 = ad::Dual<ad::Dual<double, 2>, 2>;
  const DD2 r = ad::pow(ad::make_nested_variable<DD2>(0.0, 0), ad::make_nested_variable<DD2>(2.0, 1));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(r.der(i).der(j), H[static_cast<size_t>(2 * i + j)]);
}

TEST(Graph, ErrorsTellTheUserWhatToChange) {
  const Var x = ad::variable(Tensor::from_host({2}, {1.0, 2.0}));
  EXPECT_THROW(ad::grad(x * x, {x}), camber::Error);                   // not a scalar
  EXPECT_THROW(ad::add(x, ad::constant(Tensor({3}))), camber::Error);  // shapes
  EXPECT_THROW(ad::index_select(x, 0, {2}), camber::Error);            // index out of range
  EXPECT_THROW(ad::max(ad::constant(Tensor({0}))), camber::Error);     // empty max
}

// Forward over forward (a jvp inside a jvp), against the math.
//   f(x) = sin(x) x^2 (element-wise):
//   f''  = (2 - x^2) sin x + 4 x cos x,   D^2 f[u, v] = f'' u v,
//   f''' = (6 - x^2) cos x - 6 x sin x,   D^3 f[u, u, u] = f''' u^3.
TEST(Graph, ForwardOverForwardGivesSecondAndThirdDerivatives) {
  const std::vector<double> xs = {0.3, -1.1, 2.0};
  const Var x = ad::variable(Tensor::from_host({3}, xs));
  const Var u = ad::constant(Tensor::from_host({3}, {1.0, 0.5, -2.0}));
  const Var w = ad::constant(Tensor::from_host({3}, {0.25, -1.0, 3.0}));
  const ad::VarFunction f = [](const Var& a) { return ad::sin(a) * a * a; };
  const ad::VarFunction df_w = [&](const Var& a) { return ad::jvp(f, a, w).tangents[0]; };
  const std::vector<double> d2 = values(ad::jvp(df_w, x, u).tangents[0]);
  const ad::VarFunction df_u = [&](const Var& a) { return ad::jvp(f, a, u).tangents[0]; };
  const ad::VarFunction d2f_uu = [&](const Var& a) { return ad::jvp(df_u, a, u).tangents[0]; };
  const std::vector<double> d3 = values(ad::jvp(d2f_uu, x, u).tangents[0]);
  const std::vector<double> uv = u.value().to_vector(), wv = w.value().to_vector();
  std::vector<double> e2, e3;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double a = xs[i];
    e2.push_back(((2 - a * a) * std::sin(a) + 4 * a * std::cos(a)) * uv[i] * wv[i]);
    e3.push_back(((6 - a * a) * std::cos(a) - 6 * a * std::sin(a)) * uv[i] * uv[i] * uv[i]);
  }
  expect_close(d2, e2, 1e-14, "D^2 f[u, w]");
  expect_close(d3, e3, 1e-13, "D^3 f[u, u, u]");
}

TEST(Graph, ForwardOverForwardMatchesForwardOverReverse) {
  // u^T H v of f(x) = sum(exp(x0 x) / (1 + x^2)) with x0 = x[0] coupling the
  // entries: two nested jvps against hvp (forward over reverse).
  const Tensor x0 = Tensor::from_host({4}, {0.4, -0.3, 0.9, 0.1});
  const Tensor u = Tensor::from_host({4}, {1.0, -0.5, 0.25, 2.0});
  const Tensor v = Tensor::from_host({4}, {-0.3, 0.7, 1.5, 0.2});
  const ad::VarFunction f = [](const Var& a) {
    const Var first = ad::reshape(ad::slice(a, 0, 0, 1), {});
    return ad::sum(ad::exp(a * first) / (ad::square(a) + 1.0));
  };
  const ad::VarFunction df_v = [&](const Var& a) {
    return ad::jvp(f, a, ad::constant(v)).tangents[0];
  };
  const double ff = ad::jvp(df_v, ad::variable(x0), ad::constant(u)).tangents[0].item();
  const double fr = camber::dot(ad::hvp(f, x0, v), u);
  EXPECT_NEAR(ff, fr, 1e-14 * (std::abs(fr) + 1.0));
}

TEST(Graph, ForwardModeUnderNoGrad) {
  // jvp needs no graph: under no_grad the tangent is computed, nothing recorded.
  ad::NoGradGuard guard;
  const Var x = ad::variable(Tensor::from_host({2}, {0.5, 1.0}));
  const ad::JvpResult r =
      ad::jvp([](const Var& a) { return ad::tanh(a); }, x, ad::constant(Tensor::full({2}, 2.0)));
  EXPECT_FALSE(r.outputs[0].has_node());
  const double t0 = std::tanh(0.5), t1 = std::tanh(1.0);
  expect_close(values(r.tangents[0]), {2 * (1 - t0 * t0), 2 * (1 - t1 * t1)}, 1e-15, "J v");
}

}  // namespace camber_test_graph
