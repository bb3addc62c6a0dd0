// Optimizers against closed forms of their update rules, schedules,
// gradient clipping, state round trips, float32 against float64, and a
// small regression trained to a stated accuracy.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/nn/layers.hpp>
#include <camber/nn/lbfgs.hpp>
#include <camber/nn/loss.hpp>
#include <camber/nn/optim.hpp>
#include <camber/nn/schedule.hpp>

namespace {

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::DType;
using camber::Tensor;

// Gradient of f(p) = 0.5 sum a_i p_i^2 is a_i p_i.
std::vector<Tensor> quadratic_grad(const ad::Var& p, const std::vector<double>& a) {
  std::vector<double> g = p.value().to_vector();
  for (size_t i = 0; i < g.size(); ++i) g[i] *= a[i];
  return {Tensor::from_host(p.shape(), g)};
}

TEST(Sgd, PlainStepsFollowTheGeometricSequence) {
  const std::vector<double> a{0.5, 2.0, 3.0}, p0{1.0, -2.0, 0.5};
  const ad::Var p = ad::variable(Tensor::from_host({3}, p0));
  nn::Sgd opt({p}, {0.1});
  for (int t = 0; t < 10; ++t) opt.step(quadratic_grad(p, a));
  const std::vector<double> got = p.value().to_vector();
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(got[i], std::pow(1 - 0.1 * a[i], 10) * p0[i], 1e-15);
  EXPECT_EQ(opt.steps(), 10);
}

TEST(Sgd, HeavyBallMatchesTheLinearRecurrence) {
  // On f = a p^2 / 2 heavy ball is the linear map (p, b) -> (p - lr (mu b + a p), mu b + a p):
  // its second-order recurrence p_{t+1} = (1 + mu - lr a) p_t - mu p_{t-1}
  // holds from t = 1 (b_1 = g_1 = a p_0).
  const double a = 2.0, lr = 0.05, mu = 0.9, p0 = 1.0;
  const ad::Var p = ad::variable(Tensor::from_host({1}, {p0}));
  nn::Sgd opt({p}, {lr, mu});
  std::vector<double> seq{p0};
  for (int t = 0; t < 30; ++t) {
    opt.step(quadratic_grad(p, {a}));
    seq.push_back(p.item());
  }
  EXPECT_NEAR(seq[1], p0 - lr * a * p0, 1e-16);
  for (size_t t = 1; t + 1 < seq.size(); ++t)
    EXPECT_NEAR(seq[t + 1], (1 + mu - lr * a) * seq[t] - mu * seq[t - 1], 1e-14);
}

TEST(Sgd, NesterovAndWeightDecay) {
  // Nesterov on a constant gradient g: b_t = g (1 - mu^t) / (1 - mu) ... and
  // the step is g + mu b_t. Weight decay adds wd p to the gradient.
  const double g = 0.3, lr = 0.1, mu = 0.5;
  const ad::Var p = ad::variable(Tensor::from_host({1}, {0.0}));
  nn::Sgd opt({p}, {lr, mu, 0.0, true});
  double want = 0.0, b = 0.0;
  for (int t = 1; t <= 6; ++t) {
    opt.step(std::vector<Tensor>{Tensor::from_host({1}, {g})});
    b = t == 1 ? g : mu * b + g;
    want -= lr * (g + mu * b);
    EXPECT_NEAR(p.item(), want, 1e-15);
  }
  const ad::Var q = ad::variable(Tensor::from_host({1}, {2.0}));
  nn::Sgd decay({q}, {0.1, 0.0, 0.5});
  decay.step(std::vector<Tensor>{Tensor::from_host({1}, {0.0})});
  EXPECT_NEAR(q.item(), 2.0 * (1 - 0.1 * 0.5), 1e-15);
}

TEST(Adam, ConstantGradientMovesLrPerStep) {
  // A constant gradient g: m_hat = g and v_hat = g^2 at every step, so each
  // step is lr g / (|g| + eps).
  const std::vector<double> g{0.3, -2.0, 1e-3};
  const ad::Var p = ad::variable(Tensor::from_host({3}, {0.0, 0.0, 0.0}));
  const double lr = 0.01, eps = 1e-8;
  nn::Adam opt({p}, {lr, 0.9, 0.999, eps});
  for (int t = 0; t < 25; ++t) opt.step(std::vector<Tensor>{Tensor::from_host({3}, g)});
  const std::vector<double> got = p.value().to_vector();
  for (size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(got[i], -25 * lr * g[i] / (std::abs(g[i]) + eps), 1e-14);
}

TEST(Adam, WeightDecayCoupledAndDecoupled) {
  // Zero loss gradient. AdamW: p_t = p_0 (1 - lr wd)^t exactly. Adam (L2):
  // the gradient is wd p, and each step moves about lr against sign(p).
  const double lr = 0.01, wd = 0.1;
  const ad::Var a = ad::variable(Tensor::from_host({2}, {1.5, -0.5}));
  nn::AdamW adamw({a}, {lr, 0.9, 0.999, 1e-8, wd});
  for (int t = 0; t < 10; ++t) adamw.step(std::vector<Tensor>{Tensor({2})});
  EXPECT_NEAR(a.value().to_vector()[0], 1.5 * std::pow(1 - lr * wd, 10), 1e-15);
  EXPECT_NEAR(a.value().to_vector()[1], -0.5 * std::pow(1 - lr * wd, 10), 1e-15);
  const ad::Var b = ad::variable(Tensor::from_host({1}, {1.5}));
  nn::Adam adam({b}, {lr, 0.9, 0.999, 1e-8, wd});
  adam.step(std::vector<Tensor>{Tensor({1})});
  EXPECT_NEAR(b.item(), 1.5 - lr, 1e-9);  // first step: lr g / |g|
}

TEST(Adam, Float32FollowsItsFloat64Twin) {
  const std::vector<double> p0{0.7, -1.3, 2.2, 0.05};
  const ad::Var p64 = ad::variable(Tensor::from_host({4}, p0));
  const ad::Var p32 = ad::variable(Tensor::from_host({4}, p0).to(DType::float32));
  nn::Adam o64({p64}, {0.05});
  nn::Adam o32({p32}, {0.05});
  const std::vector<double> a{1.0, 3.0, 0.5, 2.0};
  for (int t = 0; t < 20; ++t) {
    o64.step(quadratic_grad(p64, a));
    const ad::Var as64 = ad::constant(p32.value().to(DType::float64));
    o32.step(std::vector<Tensor>{quadratic_grad(as64, a)[0].to(DType::float32)});
  }
  const std::vector<double> x = p64.value().to_vector();
  const std::vector<double> y = p32.value().to(DType::float64).to_vector();
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(y[i], x[i], 1e-5 * (1 + std::abs(x[i])));
  EXPECT_THROW(o32.step(quadratic_grad(p64, a)), camber::Error);  // float64 gradient
}

TEST(Optimizer, StateRoundTripGivesTheSameTrajectoryBitForBit) {
  const std::vector<double> a{1.0, 4.0}, p0{1.0, -1.0};
  const ad::Var p = ad::variable(Tensor::from_host({2}, p0));
  nn::Adam opt({p}, {0.03});
  for (int t = 0; t < 5; ++t) opt.step(quadratic_grad(p, a));
  const auto saved = opt.state();
  const Tensor p_saved = p.value().clone();
  for (int t = 0; t < 5; ++t) opt.step(quadratic_grad(p, a));
  const ad::Var q = ad::variable(p_saved);
  nn::Adam resumed({q}, {0.5});  // the learning rate comes from the state
  resumed.load_state(saved);
  EXPECT_EQ(resumed.steps(), 5);
  EXPECT_EQ(resumed.lr(), 0.03);
  for (int t = 0; t < 5; ++t) resumed.step(quadratic_grad(q, a));
  EXPECT_EQ(q.value().to_vector(), p.value().to_vector());
  nn::Sgd sgd({q}, {0.1, 0.9});
  EXPECT_THROW(sgd.load_state(saved), camber::Error);
}

TEST(Optimizer, StepAfterTheGraphWasBuiltIsDetected) {
  // A loss built before a step and differentiated after it would use the
  // old weights in its saved values: the engine refuses.
  nn::Rng rng(2);
  const auto net = nn::mlp({1, {3}, 1}, rng);
  const ad::Var x = ad::constant(Tensor::from_host({2, 1}, {0.1, 0.2}));
  const ad::Var loss = ad::sum(net->forward(x) * net->forward(x));
  nn::Sgd opt(net->parameters(), {0.1});
  opt.step(ad::grad(loss, net->parameters(), false, true));
  EXPECT_THROW(ad::grad(loss, net->parameters()), camber::Error);
}

TEST(Schedule, ValuesAtChosenSteps) {
  EXPECT_EQ(nn::constant_lr(0.1)(1000), 0.1);
  const auto st = nn::step_lr(1.0, 10, 0.5);
  EXPECT_EQ(st(0), 1.0);
  EXPECT_EQ(st(9), 1.0);
  EXPECT_EQ(st(10), 0.5);
  EXPECT_EQ(st(25), 0.25);
  const auto cs = nn::cosine_lr(1.0, 100, 0.1);
  EXPECT_NEAR(cs(0), 1.0, 1e-15);
  EXPECT_NEAR(cs(50), 0.55, 1e-15);
  EXPECT_NEAR(cs(100), 0.1, 1e-15);
  EXPECT_NEAR(cs(200), 0.1, 1e-15);
  EXPECT_NEAR(cs(25), 0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI / 4)), 1e-15);
  const auto wu = nn::warmup(nn::constant_lr(2.0), 4);
  EXPECT_EQ(wu(0), 0.5);
  EXPECT_EQ(wu(3), 2.0);
  EXPECT_EQ(wu(10), 2.0);
  EXPECT_THROW(nn::step_lr(1.0, 0, 0.5), camber::Error);
}

TEST(Clip, ScalesToTheGlobalNorm) {
  std::vector<Tensor> g{Tensor::from_host({2}, {3.0, 4.0}), Tensor::from_host({1}, {12.0})};
  EXPECT_DOUBLE_EQ(nn::global_norm(g), 13.0);
  EXPECT_DOUBLE_EQ(nn::clip_grad_norm(g, 26.0), 13.0);  // below: unchanged
  EXPECT_EQ(g[0].to_vector()[0], 3.0);
  EXPECT_DOUBLE_EQ(nn::clip_grad_norm(g, 6.5), 13.0);
  EXPECT_DOUBLE_EQ(g[0].to_vector()[1], 2.0);
  EXPECT_DOUBLE_EQ(g[1].to_vector()[0], 6.0);
  EXPECT_NEAR(nn::global_norm(g), 6.5, 1e-15);
}

TEST(Training, AnMlpFitsASineToAStatedAccuracy) {
  // y = sin(x) on [-pi, pi], 64 points, tanh 1 -> 16 -> 16 -> 1, Adam with
  // a cosine schedule: the mean squared error falls below 1e-4 (the
  // variance of y is 0.5, so 2e-4 of it).
  std::vector<double> xs(64), ys(64);
  for (int i = 0; i < 64; ++i) {
    xs[static_cast<size_t>(i)] = -M_PI + 2 * M_PI * i / 63.0;
    ys[static_cast<size_t>(i)] = std::sin(xs[static_cast<size_t>(i)]);
  }
  const ad::Var x = ad::constant(Tensor::from_host({64, 1}, xs));
  const ad::Var y = ad::constant(Tensor::from_host({64, 1}, ys));
  nn::Rng rng(17);
  const auto net = nn::mlp({1, {16, 16}, 1, nn::Activation::tanh}, rng);
  nn::Adam opt(net->parameters(), {1e-2});
  const auto lr = nn::cosine_lr(1e-2, 1500, 1e-4);
  double loss = 0.0;
  for (long s = 0; s < 1500; ++s) {
    opt.set_lr(lr(s));
    const ad::Var l = nn::mse(net->forward(x), y);
    opt.step(ad::grad(l, net->parameters()));
    loss = l.item();
  }
  EXPECT_LT(loss, 1e-4);
}

// ---- L-BFGS -------------------------------------------------------------------

TEST(Lbfgs, FindsTheRosenbrockMinimum) {
  // f = 100 (y - x^2)^2 + (1 - x)^2 from the classic start (-1.2, 1):
  // minimum 0 at (1, 1).
  const ad::Var p = ad::variable(Tensor::from_host({2}, {-1.2, 1.0}));
  const auto f = [&] {
    const ad::Var x = ad::slice(p, 0, 0, 1), y = ad::slice(p, 0, 1, 2);
    const ad::Var a = y - x * x, b = 1.0 - x;
    return ad::sum(100.0 * a * a + b * b);
  };
  nn::LbfgsOptions o;
  o.max_iterations = 200;
  o.gradient_tolerance = 1e-10;
  o.change_tolerance = 0.0;
  const nn::LbfgsResult r = nn::lbfgs({p}, f, o);
  EXPECT_TRUE(r.converged) << r.stop_reason;
  EXPECT_LT(r.iterations, 100);
  const std::vector<double> x = p.value().to_vector();
  EXPECT_NEAR(x[0], 1.0, 1e-8);
  EXPECT_NEAR(x[1], 1.0, 1e-8);
  EXPECT_LT(r.loss, 1e-16);
}

TEST(Lbfgs, SolvesAnIllConditionedQuadratic) {
  // f = 1/2 sum a_i x_i^2 - sum b_i x_i with a_i = 1 .. 100 (condition 100):
  // minimizer x_i = b_i / a_i.
  const int n = 100;
  std::vector<double> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[static_cast<size_t>(i)] = 1.0 + i;
    b[static_cast<size_t>(i)] = std::sin(0.3 * i);
  }
  const ad::Var x = ad::variable(Tensor({n}));
  const ad::Var av = ad::constant(Tensor::from_host({n}, a)), bv = ad::constant(Tensor::from_host({n}, b));
  // |x_i - x_i*| = |g_i| / a_i. A line search on f (values O(1)) cannot
  // resolve decreases below round-off, O(|g|^2) ~ 1e-16 at |g| ~ 1e-8:
  // a gradient tolerance of 1e-7 bounds the error by 1e-7.
  nn::LbfgsOptions o;
  o.gradient_tolerance = 1e-7;
  o.change_tolerance = 0.0;
  const nn::LbfgsResult r =
      nn::lbfgs({x}, [&] { return ad::sum(0.5 * av * x * x - bv * x); }, o);
  EXPECT_TRUE(r.converged) << r.stop_reason;
  EXPECT_LE(r.gradient_max, 1e-7);
  EXPECT_LT(r.iterations, 100);
  const std::vector<double> got = x.value().to_vector();
  for (int i = 0; i < n; ++i)
    EXPECT_NEAR(got[static_cast<size_t>(i)], b[static_cast<size_t>(i)] / a[static_cast<size_t>(i)], 1e-7);
}

TEST(Lbfgs, ExtendedRosenbrockInAnyDtype) {
  for (camber::DType dt : {DType::float64, DType::float32}) {
    std::vector<double> x0(20);
    for (size_t i = 0; i < x0.size(); ++i) x0[i] = i % 2 == 0 ? -1.2 : 1.0;
    const ad::Var p = ad::variable(Tensor::from_host({20}, x0).to(dt));
    const auto f = [&] {
      const ad::Var pairs = ad::reshape(p, {10, 2});
      const ad::Var x = ad::slice(pairs, 1, 0, 1), y = ad::slice(pairs, 1, 1, 2);
      const ad::Var a = y - x * x, b = 1.0 - x;
      return ad::sum(100.0 * a * a + b * b);
    };
    nn::LbfgsOptions o;
    o.max_iterations = 300;
    o.gradient_tolerance = dt == DType::float64 ? 1e-9 : 1e-3;
    o.change_tolerance = 0.0;
    const nn::LbfgsResult r = nn::lbfgs({p}, f, o);
    const std::vector<double> x = p.value().to(DType::float64).to_vector();
    const double tol = dt == DType::float64 ? 1e-7 : 1e-3;
    for (double v : x) EXPECT_NEAR(v, 1.0, tol) << camber::dtype_name(dt) << ": " << r.stop_reason;
  }
}
}  // namespace
