// camber::nn layers, initialisation and losses: values against closed
// forms, derivatives against finite differences (ad::check_all: reverse,
// forward, second order, dot product) with respect to inputs and
// parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>

#include <camber/autodiff/gradcheck.hpp>
#include <camber/core/error.hpp>
#include <camber/nn/init.hpp>
#include <camber/nn/layers.hpp>
#include <camber/nn/loss.hpp>

#include "tests/common/central_difference.hpp"

namespace {

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::index_t;
using camber::Shape;
using camber::Tensor;

Tensor random_input(const Shape& shape, std::uint64_t seed, double lo = -1.0, double hi = 1.0) {
  nn::Rng rng(seed);
  return nn::uniform(shape, lo, hi, rng);
}

// The module's output summed with fixed weights, as a function of the input
// and every parameter (a functional call), for the gradient checks.
ad::GradCheckResult check_module(const nn::Module& m, const Tensor& x,
                                 const ad::GradCheckOptions& o = {}) {
  std::vector<Tensor> inputs{x};
  for (const Tensor& p : m.parameter_values()) inputs.push_back(p.clone());
  const auto f = [&m](const ad::Vars& in) {
    const ad::Vars params(in.begin() + 1, in.end());
    return m.with_parameters(params, [&] { return m.forward(in[0]); });
  };
  return ad::check_all(f, inputs, o);
}

// ---- Rng and initialisation ---------------------------------------------------

TEST(Rng, IsTheStandardsMersenneTwister) {
  // [rand.predef]: the 10000th output of a default-constructed
  // mt19937_64 (seed 5489) is 9981545732273789042.
  nn::Rng rng(5489);
  for (int k = 0; k < 9999; ++k) rng.next_u64();
  EXPECT_EQ(rng.next_u64(), 9981545732273789042ULL);
}

TEST(Rng, UniformAndNormalHaveTheirMoments) {
  nn::Rng rng(3);
  const int n = 200000;
  double su = 0, su2 = 0, sn = 0, sn2 = 0, sn4 = 0;
  for (int k = 0; k < n; ++k) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    su += u;
    su2 += u * u;
    const double z = rng.normal();
    sn += z;
    sn2 += z * z;
    sn4 += z * z * z * z;
  }
  // Means within 5 standard errors; variance of U(0,1) is 1/12; N(0,1)
  // has variance 1 and fourth moment 3.
  EXPECT_NEAR(su / n, 0.5, 5 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(su2 / n - (su / n) * (su / n), 1.0 / 12, 5 * std::sqrt(1.0 / 180 / n));
  EXPECT_NEAR(sn / n, 0.0, 5 * std::sqrt(1.0 / n));
  EXPECT_NEAR(sn2 / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(sn4 / n, 3.0, 5 * std::sqrt(96.0 / n));
}

TEST(Rng, StateRoundTripResumesTheSequence) {
  nn::Rng a(11);
  for (int k = 0; k < 7; ++k) a.normal();  // leaves a spare normal cached
  nn::Rng b(0);
  b.set_state(a.state());
  for (int k = 0; k < 20; ++k) {
    EXPECT_EQ(a.normal(), b.normal());
    EXPECT_EQ(a.below(1000), b.below(1000));
  }
  EXPECT_THROW(b.set_state("not a state"), camber::Error);
}

TEST(Init, BoundsVariancesAndSeeds) {
  const index_t fi = 200, fo = 300;
  nn::Rng r1(1), r2(1), r3(2);
  const Tensor a = nn::init_weight(nn::Init::xavier_uniform, fi, fo, r1);
  const Tensor b = nn::init_weight(nn::Init::xavier_uniform, fi, fo, r2);
  const Tensor c = nn::init_weight(nn::Init::xavier_uniform, fi, fo, r3);
  EXPECT_EQ(a.shape(), (Shape{fi, fo}));
  EXPECT_EQ(a.to_vector(), b.to_vector());  // same seed, same weights
  EXPECT_NE(a.to_vector(), c.to_vector());
  const double bound = std::sqrt(6.0 / (fi + fo));
  EXPECT_LE(a.max_abs(), bound);
  const auto variance = [](const Tensor& t) {
    const std::vector<double> v = t.to_vector();
    double s = 0, s2 = 0;
    for (double x : v) {
      s += x;
      s2 += x * x;
    }
    const double n = static_cast<double>(v.size());
    return s2 / n - (s / n) * (s / n);
  };
  // 60000 samples: the variance within 3%.
  EXPECT_NEAR(variance(a), 2.0 / (fi + fo), 0.03 * 2.0 / (fi + fo));
  nn::Rng r(5);
  EXPECT_NEAR(variance(nn::init_weight(nn::Init::xavier_normal, fi, fo, r)), 2.0 / (fi + fo),
              0.03 * 2.0 / (fi + fo));
  EXPECT_NEAR(variance(nn::init_weight(nn::Init::he_uniform, fi, fo, r)), 2.0 / fi, 0.03 * 2.0 / fi);
  EXPECT_NEAR(variance(nn::init_weight(nn::Init::he_normal, fi, fo, r)), 2.0 / fi, 0.03 * 2.0 / fi);
  EXPECT_EQ(nn::init_weight(nn::Init::zeros, 2, 3, r).max_abs(), 0.0);
  EXPECT_EQ(nn::init_from_name("he_normal"), nn::Init::he_normal);
  EXPECT_THROW(nn::init_from_name("glorot"), camber::Error);
}

// ---- layers ---------------------------------------------------------------------

TEST(Linear, ComputesXWPlusBAndItsDerivatives) {
  nn::Rng rng(4);
  nn::Linear lin(3, 2, rng);
  // A non-zero bias, so its role is visible.
  Tensor b = lin.bias().value();
  b.assign({0.5, -0.25});
  const Tensor x = random_input({4, 3}, 9);
  const std::vector<double> xv = x.to_vector(), w = lin.weight().value().to_vector();
  const std::vector<double> y = lin.forward(ad::constant(x)).value().to_vector();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) {
      double want = j == 0 ? 0.5 : -0.25;
      for (int k = 0; k < 3; ++k) want += xv[i * 3 + k] * w[k * 2 + j];
      EXPECT_NEAR(y[i * 2 + j], want, 1e-15);
    }
  const ad::GradCheckResult r = check_module(lin, x);
  EXPECT_TRUE(r.ok) << r.report();
  EXPECT_EQ(lin.describe(), "Linear(3 -> 2)");
  EXPECT_THROW(lin.forward(ad::constant(random_input({4, 5}, 1))), camber::Error);
}

TEST(Activation, ValuesAgainstClosedFormsAndDerivatives) {
  const std::vector<double> xs{-2.1, -0.7, -0.05, 0.3, 1.2, 2.6};
  const Tensor x = Tensor::from_host({2, 3}, xs);
  const auto gelu = [](double v) {
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  };
  const std::vector<std::pair<nn::Activation, double (*)(double)>> cases = {
      {nn::Activation::tanh, [](double v) { return std::tanh(v); }},
      {nn::Activation::relu, [](double v) { return v > 0 ? v : 0.0; }},
      {nn::Activation::silu, [](double v) { return v / (1 + std::exp(-v)); }},
      {nn::Activation::softplus, [](double v) { return std::log1p(std::exp(v)); }},
      {nn::Activation::sin, [](double v) { return std::sin(v); }},
      {nn::Activation::identity, [](double v) { return v; }},
  };
  for (const auto& [a, ref] : cases) {
    const std::vector<double> y = nn::activate(a, ad::constant(x)).value().to_vector();
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_NEAR(y[i], ref(xs[i]), 1e-15 * (1 + std::abs(ref(xs[i])))) << nn::activation_name(a);
    const ad::GradCheckResult r =
        ad::check_all([a = a](const ad::Vars& in) { return nn::activate(a, in[0]); }, {x});
    EXPECT_TRUE(r.ok) << nn::activation_name(a) << ": " << r.report();
  }
  const std::vector<double> y = nn::activate(nn::Activation::gelu, ad::constant(x)).value().to_vector();
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(y[i], gelu(xs[i]), 1e-15);
  const ad::GradCheckResult r = ad::check_all(
      [](const ad::Vars& in) { return nn::activate(nn::Activation::gelu, in[0]); }, {x});
  EXPECT_TRUE(r.ok) << "gelu: " << r.report();
  EXPECT_EQ(nn::activation_from_name("silu"), nn::Activation::silu);
  try {
    nn::activation_from_name("swish");
    FAIL() << "expected an error";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'swish'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gelu"), std::string::npos) << e.what();
  }
}

TEST(Mlp, NamesCountsAndDerivatives) {
  nn::Rng rng(8);
  const auto net = nn::mlp({2, {5, 4}, 3, nn::Activation::tanh}, rng);
  const auto named = net->named_parameters();
  ASSERT_EQ(named.size(), 6u);
  EXPECT_EQ(named[0].first, "0.weight");
  EXPECT_EQ(named[1].first, "0.bias");
  EXPECT_EQ(named[2].first, "2.weight");
  EXPECT_EQ(named[5].first, "4.bias");
  EXPECT_EQ(net->num_parameters(), 2 * 5 + 5 + 5 * 4 + 4 + 4 * 3 + 3);
  EXPECT_NE(net->summary().find("Linear(5 -> 4)"), std::string::npos) << net->summary();
  // Biases are zero at initialisation: give them values first.
  for (const auto& p : named)
    if (p.first.find("bias") != std::string::npos) {
      Tensor b = p.second.value();
      b.assign(random_input(b.shape(), 3).to_vector());
    }
  const ad::GradCheckResult r = check_module(*net, random_input({3, 2}, 12));
  EXPECT_TRUE(r.ok) << r.report();
  // The same seed builds the same network.
  nn::Rng again(8);
  const auto twin = nn::mlp({2, {5, 4}, 3, nn::Activation::tanh}, again);
  EXPECT_EQ(twin->parameter_values()[2].to_vector(), net->parameter_values()[2].to_vector());
}

TEST(ResidualMlp, ForwardMatchesItsDefinitionAndDerivatives) {
  nn::Rng rng(21);
  nn::ResidualMlp net(2, 4, 2, 1, nn::Activation::tanh, rng);
  for (const auto& p : net.named_parameters())
    if (p.first.find("bias") != std::string::npos) {
      Tensor b = p.second.value();
      b.assign(random_input(b.shape(), 5).to_vector());
    }
  EXPECT_EQ(net.named_parameters().size(), 2u * (1 + 2 * 2 + 1));
  const Tensor x = random_input({3, 2}, 2);
  // The definition, with the module's own Linear layers as building blocks.
  const auto P = net.named_parameters();
  const auto lin = [&](const ad::Var& h, size_t k) { return ad::matmul(h, P[2 * k].second) + P[2 * k + 1].second; };
  ad::Var h = lin(ad::constant(x), 0);
  h = h + lin(ad::tanh(lin(ad::tanh(h), 1)), 2);
  h = h + lin(ad::tanh(lin(ad::tanh(h), 3)), 4);
  const ad::Var want = lin(ad::tanh(h), 5);
  const std::vector<double> got = net.forward(ad::constant(x)).value().to_vector();
  const std::vector<double> ref = want.value().to_vector();
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(got[i], ref[i], 1e-15);
  const ad::GradCheckResult r = check_module(net, x);
  EXPECT_TRUE(r.ok) << r.report();
}

TEST(FourierFeatures, AreSinesAndCosinesOfTheProjection) {
  nn::Rng rng(6);
  nn::FourierFeatures ff(2, 3, 1.5, rng);
  EXPECT_EQ(ff.num_parameters(), 0);
  const Tensor x = random_input({4, 2}, 7);
  const std::vector<double> xv = x.to_vector(), b = ff.frequencies().to_vector();
  const std::vector<double> y = ff.forward(ad::constant(x)).value().to_vector();
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      const double z = 2 * M_PI * (xv[i * 2] * b[j] + xv[i * 2 + 1] * b[3 + j]);
      EXPECT_NEAR(y[i * 6 + j], std::sin(z), 1e-14);
      EXPECT_NEAR(y[i * 6 + 3 + j], std::cos(z), 1e-14);
    }
  const ad::GradCheckResult r = check_module(ff, x);
  EXPECT_TRUE(r.ok) << r.report();
}

TEST(LayerNorm, NormalisesEachRowAndDifferentiates) {
  nn::LayerNorm ln(5, 1e-5);
  const Tensor x = random_input({3, 5}, 13, -2.0, 3.0);
  const std::vector<double> xv = x.to_vector();
  const std::vector<double> y = ln.forward(ad::constant(x)).value().to_vector();
  for (int i = 0; i < 3; ++i) {
    double m = 0, v = 0;
    for (int j = 0; j < 5; ++j) m += xv[i * 5 + j] / 5;
    for (int j = 0; j < 5; ++j) v += (xv[i * 5 + j] - m) * (xv[i * 5 + j] - m) / 5;
    for (int j = 0; j < 5; ++j)
      EXPECT_NEAR(y[i * 5 + j], (xv[i * 5 + j] - m) / std::sqrt(v + 1e-5), 1e-14);
  }
  Tensor g = ln.named_parameters()[0].second.value();
  g.assign({1.5, 0.5, -1.0, 2.0, 0.25});
  Tensor b = ln.named_parameters()[1].second.value();
  b.assign({0.1, 0.2, 0.3, 0.4, 0.5});
  const ad::GradCheckResult r = check_module(ln, x);
  EXPECT_TRUE(r.ok) << r.report();
}

TEST(WithParameters, RestoresTheParametersAfterAThrow) {
  nn::Rng rng(1);
  nn::Linear lin(2, 2, rng);
  const ad::Vars before = lin.parameters();
  // The replacement is what forward() uses (so the gradient checks above
  // differentiate with respect to it): W = 0, b = (3, 4) gives b.
  const ad::Var x = ad::constant(Tensor::from_host({1, 2}, {0.5, 0.7}));
  const std::vector<double> y = lin.with_parameters(
      {ad::constant(Tensor({2, 2})), ad::constant(Tensor::from_host({2}, {3.0, 4.0}))},
      [&] { return lin.forward(x).value().to_vector(); });
  EXPECT_EQ(y, (std::vector<double>{3.0, 4.0}));
  EXPECT_NE(lin.forward(x).value().to_vector(), y);
  EXPECT_THROW(lin.with_parameters({ad::constant(Tensor({2, 2})), ad::constant(Tensor({2}))},
                                   [&]() -> int {
                                     CAMBER_REQUIRE(false, "inside");
                                     return 0;
                                   }),
               camber::Error);
  EXPECT_EQ(lin.parameters()[0].id(), before[0].id());
  EXPECT_THROW(lin.with_parameters({ad::constant(Tensor({2, 3}))}, [] { return 0; }),
               camber::Error);
}

// ---- losses ---------------------------------------------------------------------

TEST(Loss, ValuesAndDerivatives) {
  const Tensor p = Tensor::from_host({2, 2}, {0.5, -1.0, 3.0, 0.2});
  const Tensor t = Tensor::from_host({2, 2}, {0.0, 1.0, 0.5, 0.1});
  // r = 0.5, -2, 2.5, 0.1
  EXPECT_NEAR(nn::mse(ad::constant(p), ad::constant(t)).item(),
              (0.25 + 4 + 6.25 + 0.01) / 4, 1e-15);
  EXPECT_NEAR(nn::l1(ad::constant(p), ad::constant(t)).item(), (0.5 + 2 + 2.5 + 0.1) / 4, 1e-15);
  // delta 1: 0.125, 2 - 0.5, 2.5 - 0.5, 0.005
  EXPECT_NEAR(nn::huber(ad::constant(p), ad::constant(t)).item(),
              (0.125 + 1.5 + 2.0 + 0.005) / 4, 1e-15);
  EXPECT_NEAR(nn::sum_squared_error(ad::constant(p), ad::constant(t)).item(), 10.51, 1e-14);
  const ad::Var tc = ad::constant(t);
  for (const auto& f : std::vector<ad::CheckFunction>{
           [&](const ad::Vars& in) { return nn::mse(in[0], tc); },
           [&](const ad::Vars& in) { return nn::l1(in[0], tc); },
           [&](const ad::Vars& in) { return nn::huber(in[0], tc, 1.0); }}) {
    const ad::GradCheckResult r = ad::check_all(f, {p});
    EXPECT_TRUE(r.ok) << r.report();
  }
  EXPECT_THROW(nn::mse(ad::constant(p), ad::constant(Tensor({4}))), camber::Error);
}

// ---- input derivatives of a network (what physics-informed losses use) ----------

TEST(InputDerivatives, LaplacianByNestedForwardModeAndItsWeightGradient) {
  // u = net(x, y); the Laplacian u_xx + u_yy by forward over forward, for
  // every point of a batch at once (points are independent rows).
  nn::Rng rng(30);
  const auto net = nn::mlp({2, {6, 6}, 1, nn::Activation::tanh}, rng);
  const Tensor pts = random_input({5, 2}, 31);
  const auto laplacian = [&](const ad::Var& x) {
    ad::Var total;
    for (int axis = 0; axis < 2; ++axis) {
      std::vector<double> e(10, 0.0);
      for (int i = 0; i < 5; ++i) e[static_cast<size_t>(i * 2 + axis)] = 1.0;
      const ad::Var dir = ad::constant(Tensor::from_host({5, 2}, e));
      const auto du = [&](const ad::Var& z) { return ad::jvp([&](const ad::Var& w) { return net->forward(w); }, z, dir).tangents[0]; };
      const ad::Var d2 = ad::jvp(du, x, dir).tangents[0];
      total = axis == 0 ? d2 : total + d2;
    }
    return total;
  };
  const std::vector<double> lap = laplacian(ad::constant(pts)).value().to_vector();
  // Against central second differences of the network itself.
  const double h = 1e-4;
  const std::vector<double> pv = pts.to_vector();
  const auto u_at = [&](double dx, double dy) {
    std::vector<double> q = pv;
    for (int i = 0; i < 5; ++i) {
      q[static_cast<size_t>(i * 2)] += dx;
      q[static_cast<size_t>(i * 2 + 1)] += dy;
    }
    return net->forward(ad::constant(Tensor::from_host({5, 2}, q))).value().to_vector();
  };
  const auto u0 = u_at(0, 0), xp = u_at(h, 0), xm = u_at(-h, 0), yp = u_at(0, h), ym = u_at(0, -h);
  for (int i = 0; i < 5; ++i) {
    const double fd = (xp[i] - 2 * u0[i] + xm[i] + yp[i] - 2 * u0[i] + ym[i]) / (h * h);
    EXPECT_NEAR(lap[static_cast<size_t>(i)], fd, 1e-5 * (1 + std::abs(fd)));
  }
  // The residual loss's gradient with respect to the weights (reverse over
  // forward over forward) against finite differences.
  std::vector<Tensor> params;
  for (const Tensor& p : net->parameter_values()) params.push_back(p.clone());
  const ad::GradCheckResult r = ad::check_gradients(
      [&](const ad::Vars& w) {
        return net->with_parameters(w, [&] {
          const ad::Var l = laplacian(ad::constant(pts));
          return ad::sum(l * l);
        });
      },
      params);
  EXPECT_TRUE(r.ok) << r.report();
}

}  // namespace

namespace {

// The Jacobian misfit of gradient-enhanced training. A linear layer's
// input Jacobian is its weight transposed at every row, so the misfit is
// rows * ||W^T - T||^2 exactly; through a tanh MLP its gradient in the
// weights (a second derivative of the network: create_graph) against
// central differences of the misfit itself.
TEST(JacobianMisfit, LinearLayerIsExactAndTheMlpWeightGradientMatchesDifferences) {
  nn::Rng rng(21);
  nn::Linear lin(3, 2, rng);
  const index_t rows = 5;
  std::vector<double> xs(static_cast<size_t>(rows * 3)), ts(static_cast<size_t>(rows * 6));
  for (double& v : xs) v = rng.uniform(-1, 1);
  for (double& v : ts) v = rng.uniform(-1, 1);
  const Tensor target = Tensor::from_host({rows, 2, 3}, ts);
  const ad::Var x = ad::variable(Tensor::from_host({rows, 3}, xs));
  const std::vector<double> w = lin.weight().value().to_vector();  // {in 3, out 2}
  double want = 0.0;
  for (index_t r = 0; r < rows; ++r)
    for (index_t o = 0; o < 2; ++o)
      for (index_t k = 0; k < 3; ++k) {
        const double e = w[static_cast<size_t>(k * 2 + o)] - ts[static_cast<size_t>((r * 2 + o) * 3 + k)];
        want += e * e;
      }
  EXPECT_NEAR(nn::sum_squared_jacobian_error(lin.forward(x), x, target).item(), want, 1e-13 * want);

  auto net = nn::mlp({3, {8, 8}, 2, nn::Activation::tanh}, rng);
  const ad::Vars params = net->parameters();
  auto misfit = [&] { return nn::sum_squared_jacobian_error(net->forward(x), x, target); };
  const std::vector<Tensor> g = [&] {
    std::vector<Tensor> out;
    for (const ad::Var& v : ad::grad(misfit(), params)) out.push_back(v.value());
    return out;
  }();
  double worst = 0.0, largest = 0.0;
  for (size_t p = 0; p < params.size(); ++p)
    for (double v : g[p].to_vector()) largest = std::max(largest, std::abs(v));
  const double h = 1e-6;
  for (size_t p = 0; p < params.size(); ++p) {
    Tensor value = params[p].value();
    const std::vector<double> gp = g[p].to_vector();
    for (index_t i = 0; i < value.size(); i += 3) {  // every third entry of every parameter
      const double v0 = value.data()[i];
      const double fd = camber::test::central_difference(
          [&](double vi) {
            value.data()[i] = vi;
            return misfit().item();
          },
          v0, h);
      value.data()[i] = v0;
      worst = std::max(worst, std::abs(gp[static_cast<size_t>(i)] - fd) / largest);
      EXPECT_NEAR(gp[static_cast<size_t>(i)], fd, 1e-7 * largest) << "parameter " << p << " entry " << i;
    }
  }
  std::printf("[jacobian misfit] second-order weight gradient against central differences: %.2e of "
              "the largest component\n", worst);
}

}  // namespace
