// User-defined ops (ad::custom_op), with the documented example: a dense
// linear solve x = A^{-1} b as one graph node.
//
// The VJP of x = A^{-1} b for a cotangent g is another solve, with A^T:
//   grad_b = A^{-T} g,   grad_A = -grad_b x^T,
// and the JVP is  dx = A^{-1} (db - dA x).
// Both are written with solve() itself (and ad:: ops), so the derivatives
// are differentiable again: second-order checks and hvp pass through it.
// This is the pattern of DESIGN.md's implicit ops: the adjoint solve, not a
// tape through the factorization.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include <camber/autodiff/graph.hpp>
#include <camber/core/error.hpp>

namespace camber_test_custom_op {

namespace ad = camber::ad;
using ad::Var;
using ad::Vars;
using camber::Tensor;

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Values only: LU with partial pivoting (Eigen), on host copies.
Tensor dense_solve(const Tensor& A, const Tensor& b) {
  CAMBER_REQUIRE(A.rank() == 2 && A.dim(0) == A.dim(1) && b.rank() == 1 && b.dim(0) == A.dim(0),
                 "solve: needs A (n, n) and b (n)");
  const auto n = A.dim(0);
  const std::vector<double> av = A.to_vector(), bv = b.to_vector();
  std::vector<double> xv(static_cast<size_t>(n));
  if (n > 0) {
    Eigen::Map<const RowMat> Am(av.data(), n, n);
    Eigen::Map<const Eigen::VectorXd> bm(bv.data(), n);
    Eigen::Map<Eigen::VectorXd>(xv.data(), n) = Am.partialPivLu().solve(bm);
  }
  return Tensor::from_host({n}, xv);
}

// x = A^{-1} b, differentiable in A and b, to any order.
Var solve(const Var& A, const Var& b) {
  return ad::custom_op(
      "solve", {A, b}, [](const std::vector<Tensor>& v) { return dense_solve(v[0], v[1]); },
      [](const Vars& in, const Var& x, const Var& g) -> Vars {
        const Var gb = solve(ad::transpose(in[0]), g);  // A^T gb = g
        return {in[0].requires_grad() ? -ad::outer(gb, x) : Var(),
                in[1].requires_grad() ? gb : Var()};
      },
      [](const Vars& in, const Var& x, const Vars& t) {
        return solve(in[0], t[1] - ad::batched_matvec(t[0], x));
      });
}

// A well-conditioned random A (diagonally dominant) and a random b.
std::vector<Tensor> random_system(camber::index_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(static_cast<size_t>(n * n)), b(static_cast<size_t>(n));
  for (auto i = 0; i < n; ++i)
    for (auto j = 0; j < n; ++j) a[static_cast<size_t>(i * n + j)] = u(rng) + (i == j ? 4.0 : 0.0);
  for (double& x : b) x = u(rng);
  return {Tensor::from_host({n, n}, a), Tensor::from_host({n}, b)};
}

TEST(CustomOp, SolveValueAndAdjoint) {
  const std::vector<Tensor> sys = random_system(4, 1);
  const Var A = ad::variable(sys[0]), b = ad::variable(sys[1]);
  const Var x = solve(A, b);
  // A x == b.
  const std::vector<double> r = ad::batched_matvec(A, x).value().to_vector();
  const std::vector<double> bv = sys[1].to_vector();
  for (size_t i = 0; i < bv.size(); ++i) EXPECT_NEAR(r[i], bv[i], 1e-14);
  // For J = sum(c * x): grad_b = A^{-T} c, checked as A^T grad_b == c.
  const Tensor c = Tensor::from_host({4}, {1.0, -2.0, 0.5, 3.0});
  const Vars g = ad::grad(ad::dot(x, ad::constant(c)), {A, b});
  const std::vector<double> atg = ad::batched_matvec(ad::transpose(A), g[1]).value().to_vector();
  const std::vector<double> cv = c.to_vector();
  for (size_t i = 0; i < cv.size(); ++i) EXPECT_NEAR(atg[i], cv[i], 1e-13);
}

TEST(CustomOp, SolvePassesAllGradientChecks) {
  for (camber::index_t n : {1, 3, 5}) {
    const std::vector<Tensor> sys = random_system(n, static_cast<std::uint64_t>(n));
    // A nonlinear function of x, so second derivatives are not trivial.
    const ad::CheckFunction f = [](const Vars& in) { return ad::tanh(solve(in[0], in[1])); };
    const ad::GradCheckResult res = ad::check_all(f, sys);
    EXPECT_TRUE(res.ok) << "n = " << n << ": " << res.report();
  }
}

TEST(CustomOp, HvpThroughTheSolve) {
  // f(b) = 0.5 |A^{-1} b|^2 has Hessian H = A^{-1}^T A^{-1}; with forward
  // over reverse, H v == A^{-T} (A^{-1} v).
  const std::vector<Tensor> sys = random_system(3, 7);
  const Var A = ad::constant(sys[0]);
  auto f = [&A](const Var& b) {
    const Var x = solve(A, b);
    return ad::dot(x, x) * 0.5;
  };
  const Tensor v = Tensor::from_host({3}, {0.3, -1.0, 2.0});
  const Tensor Hv = ad::hvp(f, sys[1], v);
  const Tensor expected = dense_solve(camber::Tensor(sys[0]), v);
  const Tensor At = ad::transpose(A).value();
  const std::vector<double> e = dense_solve(At, expected).to_vector();
  const std::vector<double> h = Hv.to_vector();
  for (size_t i = 0; i < e.size(); ++i)
    EXPECT_NEAR(h[i], e[i], 1e-13 * std::max(1.0, std::abs(e[i])));
}

TEST(CustomOp, MissingJvpIsAClearError) {
  auto no_jvp = [](const Var& x) {
    return ad::custom_op(
        "square_no_jvp", {x}, [](const std::vector<Tensor>& v) { return camber::mul(v[0], v[0]); },
        [](const Vars& in, const Var&, const Var& g) -> Vars { return {g * in[0] * 2.0}; });
  };
  const Var x = ad::variable(Tensor::from_host({2}, {1.0, 2.0}));
  EXPECT_NO_THROW(ad::grad(ad::sum(no_jvp(x)), {x}));
  EXPECT_THROW(ad::jvp(no_jvp, x, ad::constant(Tensor::full({2}, 1.0))), camber::Error);
}

// An op with three outputs of different shapes, from x and y (shape {3}):
//   o0 = sin(x) y          {3}
//   o1 = sum(x y)          {}
//   o2 = cos(x) as {3, 1}
// Its VJP and JVP are the hand derivatives, in ad:: ops.
Vars three_outputs(const Var& x, const Var& y) {
  return ad::custom_op_multi(
      "three_outputs", {x, y},
      [](const std::vector<Tensor>& v) {
        return std::vector<Tensor>{camber::mul(camber::sin(v[0]), v[1]),
                                   Tensor::scalar(camber::dot(v[0], v[1])),
                                   camber::cos(v[0]).reshape({3, 1})};
      },
      [](const Vars& in, const Vars&, const Vars& g) -> Vars {
        const Var g2 = ad::reshape(g[2], {3});
        const Var gx = g[0] * ad::cos(in[0]) * in[1] + g[1] * in[1] - g2 * ad::sin(in[0]);
        const Var gy = g[0] * ad::sin(in[0]) + g[1] * in[0];
        return {gx, gy};
      },
      [](const Vars& in, const Vars&, const Vars& t) -> Vars {
        return {ad::cos(in[0]) * in[1] * t[0] + ad::sin(in[0]) * t[1],
                ad::sum(t[0] * in[1] + in[0] * t[1]),
                ad::reshape(-(ad::sin(in[0]) * t[0]), {3, 1})};
      });
}

// A nonlinear function of all three outputs, shape {7}.
Var mix(const Vars& o) {
  return ad::concat({ad::tanh(o[0]), ad::reshape(o[1] * o[1], {1}), ad::reshape(o[2], {3}) * o[0]},
                    0);
}

TEST(CustomOpMulti, ValuesShapesAndAnUnusedOutputsZeroCotangent) {
  const Var x = ad::variable(Tensor::from_host({3}, {0.3, -1.2, 2.0}));
  const Var y = ad::variable(Tensor::from_host({3}, {1.5, 0.25, -0.5}));
  const Vars o = three_outputs(x, y);
  ASSERT_EQ(o.size(), 3u);
  EXPECT_EQ(o[1].shape(), camber::Shape{});
  EXPECT_EQ(o[2].shape(), (camber::Shape{3, 1}));
  EXPECT_DOUBLE_EQ(o[1].item(), 0.3 * 1.5 - 1.2 * 0.25 - 2.0 * 0.5);
  // Only o1 used: d/dx sum(x y) = y and d/dy = x, exactly (the other
  // outputs' cotangents are zeros).
  const Vars g = ad::grad(o[1], {x, y});
  EXPECT_EQ(g[0].value().to_vector(), y.value().to_vector());
  EXPECT_EQ(g[1].value().to_vector(), x.value().to_vector());
}

TEST(CustomOpMulti, PassesAllGradientChecks) {
  // Central differences (first and second order) and the dot-product test
  // of a nonlinear function of all three outputs.
  const ad::CheckFunction f = [](const Vars& in) { return mix(three_outputs(in[0], in[1])); };
  const std::vector<Tensor> at{Tensor::from_host({3}, {0.3, -1.2, 2.0}),
                               Tensor::from_host({3}, {1.5, 0.25, -0.5})};
  const ad::GradCheckResult res = ad::check_all(f, at);
  EXPECT_TRUE(res.ok) << res.report();
}

TEST(CustomOpMulti, JvpMatchesTheVjpByTheDotProductIdentity) {
  const Tensor x0 = Tensor::from_host({3}, {0.7, 0.1, -0.4});
  const Tensor y0 = Tensor::from_host({3}, {-1.0, 2.0, 0.5});
  const Tensor tx = Tensor::from_host({3}, {0.2, -0.3, 1.1});
  const Tensor ty = Tensor::from_host({3}, {1.0, 0.4, -0.6});
  const ad::MultiFunction f = [](const Vars& in) { return Vars{mix(three_outputs(in[0], in[1]))}; };
  const ad::JvpResult j = ad::jvp(f, {ad::variable(x0), ad::variable(y0)},
                                  {ad::constant(tx), ad::constant(ty)});
  const Tensor w = Tensor::from_host({7}, {0.5, -1.0, 2.0, 0.3, -0.7, 1.2, 0.9});
  const Var x = ad::variable(x0), y = ad::variable(y0);
  const Vars g = ad::vjp(f({x, y}), {x, y}, {ad::constant(w)});
  const double lhs = camber::dot(j.tangents[0].value(), w);
  const double rhs = camber::dot(g[0].value(), tx) + camber::dot(g[1].value(), ty);
  EXPECT_NEAR(lhs, rhs, 1e-14 * (std::abs(lhs) + 1.0));
}

TEST(CheckpointMulti, SameDerivativesAsWithoutCheckpointing) {
  const ad::MultiFunction f = [](const Vars& in) {
    const Var p = in[0] * in[1];
    return Vars{ad::exp(p), ad::sum(ad::sin(in[0]) + p * in[1])};
  };
  const auto combine = [](const Vars& o) { return ad::sum(ad::tanh(o[0])) * o[1]; };
  const Tensor x0 = Tensor::from_host({4}, {0.1, -0.5, 0.8, 0.3});
  const Tensor y0 = Tensor::from_host({4}, {1.2, 0.4, -0.9, 0.6});
  const Var x = ad::variable(x0), y = ad::variable(y0);
  const Vars plain = ad::grad(combine(f({x, y})), {x, y});
  const Vars ck = ad::grad(combine(ad::checkpoint_multi(f, {x, y})), {x, y});
  for (int k = 0; k < 2; ++k) {
    const auto a = plain[k].value().to_vector(), b = ck[k].value().to_vector();
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-15 * (std::abs(a[i]) + 1.0));
  }
  // Second order and forward mode through the recomputation.
  const ad::CheckFunction g = [&](const Vars& in) {
    return ad::reshape(combine(ad::checkpoint_multi(f, in)), {1});
  };
  const ad::GradCheckResult res = ad::check_all(g, {x0, y0});
  EXPECT_TRUE(res.ok) << res.report();
  const ad::JvpResult jp = ad::jvp([&](const Vars& in) { return Vars{combine(f(in))}; },
                                   {ad::variable(x0), ad::variable(y0)},
                                   {ad::constant(y0), ad::constant(x0)});
  const ad::JvpResult jc =
      ad::jvp([&](const Vars& in) { return Vars{combine(ad::checkpoint_multi(f, in))}; },
              {ad::variable(x0), ad::variable(y0)}, {ad::constant(y0), ad::constant(x0)});
  EXPECT_NEAR(jp.tangents[0].item(), jc.tangents[0].item(),
              1e-14 * (std::abs(jp.tangents[0].item()) + 1.0));
}

TEST(CustomOp, ForwardOverForwardThroughTheSolve) {
  // x(A) = A^{-1} b. Its second derivative in directions E, F:
  //   D^2 x[E, F] = A^{-1} (E A^{-1} F x + F A^{-1} E x),
  // from two nested jvps through the solve's JVP rule (itself a solve),
  // against solves of the formula.
  const std::vector<Tensor> sys = random_system(4, 11);
  const std::vector<Tensor> dirs = random_system(4, 12);
  const Tensor E = dirs[0], F = camber::scale(random_system(4, 13)[0], 0.5);
  const Var b = ad::constant(sys[1]);
  const ad::VarFunction dx_f = [&](const Var& A) {
    return ad::jvp([&](const Var& M) { return solve(M, b); }, A, ad::constant(F)).tangents[0];
  };
  const std::vector<double> d2 =
      ad::jvp(dx_f, ad::variable(sys[0]), ad::constant(E)).tangents[0].value().to_vector();
  const Var A = ad::constant(sys[0]);
  const Var x = solve(A, b);
  const Var Ev = ad::constant(E), Fv = ad::constant(F);
  const Var term = ad::batched_matvec(Ev, solve(A, ad::batched_matvec(Fv, x))) +
                   ad::batched_matvec(Fv, solve(A, ad::batched_matvec(Ev, x)));
  const std::vector<double> expected = solve(A, term).value().to_vector();
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(d2[i], expected[i], 1e-13 * (std::abs(expected[i]) + 1.0));
}

TEST(CheckpointMulti, ForwardOverForwardThroughARecomputation) {
  // d^2/dt^2 of f(x + t u) at t = 0 with f = sum(exp(x) * y), y = sin(x):
  // sum(u^2 (exp(x) sin x)'') with (e^x sin x)'' = 2 e^x cos x.
  const Tensor x0 = Tensor::from_host({3}, {0.2, -0.7, 1.3});
  const Tensor u = Tensor::from_host({3}, {1.0, -2.0, 0.5});
  const ad::MultiFunction f = [](const Vars& in) { return Vars{ad::exp(in[0]), ad::sin(in[0])}; };
  const ad::VarFunction g = [&](const Var& a) {
    const Vars o = ad::checkpoint_multi(f, {a});
    return ad::sum(o[0] * o[1]);
  };
  const ad::VarFunction dg = [&](const Var& a) {
    return ad::jvp(g, a, ad::constant(u)).tangents[0];
  };
  const double d2 = ad::jvp(dg, ad::variable(x0), ad::constant(u)).tangents[0].item();
  double expected = 0;
  const auto xv = x0.to_vector(), uv = u.to_vector();
  for (size_t i = 0; i < xv.size(); ++i) expected += uv[i] * uv[i] * 2 * std::exp(xv[i]) * std::cos(xv[i]);
  EXPECT_NEAR(d2, expected, 1e-14 * (std::abs(expected) + 1.0));
}

}  // namespace camber_test_custom_op
