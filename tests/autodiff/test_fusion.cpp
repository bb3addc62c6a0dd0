// Fusion of element-wise ops (autodiff/fusion.hpp): random expression DAGs
// with broadcasting, slices and shared subexpressions give the same values,
// gradients, forward-mode and second derivatives fused and unfused (to
// round-off: the same operations in the same order per element; only sums
// may add in another order), and pass the finite-difference checks of
// gradcheck.hpp fused. Kernel counts (Kokkos Tools callbacks) show that a
// chain and its sum run as one kernel and that the graph keeps no
// intermediate.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <camber/autodiff/graph.hpp>
#include <camber/core/error.hpp>

namespace camber_test_fusion {

namespace ad = camber::ad;
using ad::Var;
using ad::Vars;
using camber::Shape;
using camber::Tensor;

Tensor random_tensor(const Shape& shape, std::mt19937_64& rng, double lo = -1.0, double hi = 1.0) {
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(camber::shape_size(shape)));
  for (double& x : v) x = u(rng);
  return Tensor::from_host(shape, v);
}

double max_rel_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  const auto x = a.to_vector(), y = b.to_vector();
  double worst = 0.0;
  for (size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::abs(x[i] - y[i]) / std::max(1.0, std::abs(y[i])));
  return worst;
}

// A random DAG of element-wise ops over three inputs of broadcasting shapes
// ({3, 4}, {4}, {3, 1}), a slice of one of them, and scalar constants.
// Every op keeps values bounded and away from singularities (log, sqrt and
// div take arguments >= 0.5; pow a positive base), so the same DAG is
// differentiable everywhere the tests evaluate it. `ops` is a list of
// (op, operand, operand) codes drawn once from the seed.
bool broadcasts(const Var& a, const Var& b) {
  try {
    (void)camber::broadcast_shapes(a.shape(), b.shape());
    return true;
  } catch (const camber::Error&) {
    return false;
  }
}

struct RandomDag {
  std::vector<std::array<int, 3>> ops;

  explicit RandomDag(std::uint64_t seed, int n_ops) {
    std::mt19937_64 rng(seed);
    for (int k = 0; k < n_ops; ++k) {
      const int n_nodes = 4 + k;
      std::uniform_int_distribution<int> op(0, 17), pick(0, n_nodes - 1);
      ops.push_back({op(rng), pick(rng), pick(rng)});
    }
  }

  Var operator()(const Vars& x) const {
    Vars n = {x[0], x[1], x[2], ad::slice(x[0], 1, 1, 4)};  // {3, 3}: broadcasts only with {3, 1}
    auto pos = [](const Var& v) { return ad::sigmoid(v) + 0.5; };  // in (0.5, 1.5)
    for (const auto& [op, i, j] : ops) {
      Var a = n[static_cast<size_t>(i)], b = n[static_cast<size_t>(j)];
      // The {3, 3} slice broadcasts with {3, 1} only: use x[2] instead of a
      // partner it does not broadcast with.
      if (!broadcasts(a, b)) b = x[2];
      Var r;
      switch (op) {
        case 0: r = a + b; break;
        case 1: r = a - b; break;
        case 2: r = a * b; break;
        case 3: r = a / pos(b); break;
        case 4: r = ad::sin(a); break;
        case 5: r = ad::cos(a) * 0.7; break;
        case 6: r = ad::tanh(a + b); break;
        case 7: r = ad::exp(ad::tanh(a)); break;
        case 8: r = ad::log(pos(a)); break;
        case 9: r = ad::sqrt(pos(a)); break;
        case 10: r = ad::pow(pos(a), ad::tanh(b)); break;
        case 11: r = ad::softplus(a) - 0.3; break;
        case 12: r = ad::maximum(a, b * 0.5 + 0.05); break;
        case 13: {
          const Shape s = camber::broadcast_shapes(a.shape(), b.shape());
          std::vector<double> mask(static_cast<size_t>(camber::shape_size(s)));
          for (size_t e = 0; e < mask.size(); ++e) mask[e] = (e * 7 + 3) % 3 == 0 ? 1.0 : 0.0;
          r = ad::where(Tensor::from_host(s, mask), a, b);
          break;
        }
        case 14: r = ad::square(a) - 0.25; break;
        case 15: r = ad::pow(pos(a), 1.5); break;
        case 16: r = 2.0 - ad::sigmoid(a) * b; break;
        default: r = ad::abs(a + 3.0); break;  // away from the kink
      }
      n.push_back(r);
    }
    // Mix the last nodes so most of the DAG reaches the output.
    Var y = n.back();
    for (size_t k = n.size() - 4; k + 1 < n.size(); ++k)
      if (broadcasts(y, n[k])) y = y + n[k] * 0.25;
    return y;
  }
};

const Shape shapes[] = {{3, 4}, {4}, {3, 1}};


struct Results {
  Tensor value;
  std::vector<Tensor> grad;  // of <w, f>
  Tensor jvp;                // J v
  std::vector<Tensor> hvp;   // d/dx <grad <w, f>, v>, forward over reverse
  std::vector<Tensor> rr;    // d/dx <grad <w, f>, u>, reverse over reverse
};

Results run_all(const RandomDag& f, bool fuse, std::uint64_t seed) {
  ad::FusionGuard mode(fuse);
  std::mt19937_64 rng(seed);
  std::vector<Tensor> x0, v0, u0;
  for (const Shape& s : shapes) x0.push_back(random_tensor(s, rng));
  for (const Shape& s : shapes) v0.push_back(random_tensor(s, rng));
  for (const Shape& s : shapes) u0.push_back(random_tensor(s, rng));
  Results r;
  Vars x;
  for (const Tensor& t : x0) x.push_back(ad::variable(t));
  const Var y = f(x);
  const Tensor w = random_tensor(y.shape(), rng);
  r.value = y.value().clone();
  for (const Var& g : ad::vjp({y}, x, {ad::constant(w)})) r.grad.push_back(g.value().clone());
  const auto phi = [&](const Vars& xs) { return ad::sum(f(xs) * ad::constant(w)); };
  // J v by forward mode.
  {
    ad::Vars xt;
    for (size_t k = 0; k < x0.size(); ++k)
      xt.push_back(ad::with_tangent(ad::constant(x0[k]), ad::constant(v0[k])));
    const Var yt = f(xt);
    r.jvp = yt.tangent().value().clone();
  }
  // Forward over reverse: the tangent of the gradient.
  {
    ad::Vars xt;
    for (size_t k = 0; k < x0.size(); ++k)
      xt.push_back(ad::with_tangent(ad::variable(x0[k]), ad::constant(v0[k])));
    const Vars g = ad::grad(phi(xt), xt, /*create_graph=*/true);
    // A gradient that does not depend on x carries no tangent: H v = 0 there.
    for (const Var& gk : g)
      r.hvp.push_back(gk.has_tangent() ? gk.tangent().value().clone() : Tensor(gk.shape()));
  }
  // Reverse over reverse.
  {
    Vars xs;
    for (const Tensor& t : x0) xs.push_back(ad::variable(t));
    const Vars g = ad::grad(phi(xs), xs, /*create_graph=*/true);
    Var s = ad::sum(g[0] * ad::constant(u0[0]));
    for (size_t k = 1; k < g.size(); ++k) s = s + ad::sum(g[k] * ad::constant(u0[k]));
    for (const Var& h : ad::grad(s, xs)) r.rr.push_back(h.value().clone());
  }
  return r;
}

TEST(Fusion, RandomDagsMatchTheUnfusedGraph) {
  // Per element the fused kernel does the unfused ops' arithmetic in the
  // same order; only broadcast sums (sum_to_shape) may add in another
  // order: 1e-13 relative is some hundred roundings.
  constexpr double tol = 1e-13;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    const RandomDag f(seed, 14);
    const Results a = run_all(f, true, 100 + seed);
    const Results b = run_all(f, false, 100 + seed);
    const std::string where = "DAG seed " + std::to_string(seed);
    EXPECT_LE(max_rel_diff(a.value, b.value), tol) << where;
    EXPECT_LE(max_rel_diff(a.jvp, b.jvp), tol) << where;
    for (size_t k = 0; k < a.grad.size(); ++k) {
      EXPECT_LE(max_rel_diff(a.grad[k], b.grad[k]), tol) << where << " grad " << k;
      EXPECT_LE(max_rel_diff(a.hvp[k], b.hvp[k]), tol) << where << " hvp " << k;
      EXPECT_LE(max_rel_diff(a.rr[k], b.rr[k]), tol) << where << " rev-rev " << k;
    }
  }
}

TEST(Fusion, RandomDagsPassTheFiniteDifferenceChecks) {
  ASSERT_TRUE(ad::fusion_enabled());
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const RandomDag f(seed, 10);
    std::mt19937_64 rng(200 + seed);
    std::vector<Tensor> x0;
    for (const Shape& s : shapes) x0.push_back(random_tensor(s, rng));
    const ad::GradCheckResult r = ad::check_all([&f](const Vars& x) { return f(x); }, x0);
    EXPECT_TRUE(r.ok) << "DAG seed " << seed << ": " << r.report();
  }
}

// Kernel launches seen by Kokkos Tools, by label.
struct KernelLog {
  static inline std::vector<std::string> names;
  // Kokkos' own fences (View destruction) are not kernels.
  static void begin(const char* name, uint32_t, uint64_t*) {
    if (std::strncmp(name, "Kokkos::View::destruction", 25) != 0) names.emplace_back(name);
  }
  KernelLog() {
    names.clear();
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(&KernelLog::begin);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(&KernelLog::begin);
  }
  static std::string list() {
    std::string s;
    for (const std::string& n : names) s += n + "; ";
    return s;
  }
  ~KernelLog() {
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
  }
  static int count() { return static_cast<int>(names.size()); }
  static int count(const char* label) {
    int n = 0;
    for (const std::string& s : names) n += s == label ? 1 : 0;
    return n;
  }
};

// Recorded ops behind y.
int count_nodes(const Var& y) {
  std::vector<const void*> seen;
  std::vector<Var> work{y};
  while (!work.empty()) {
    const Var v = work.back();
    work.pop_back();
    if (!v.has_node() || std::find(seen.begin(), seen.end(), v.id()) != seen.end()) continue;
    seen.push_back(v.id());
    for (const Var& in : ad::detail::VarAccess::impl(v)->node->inputs) work.push_back(in);
  }
  return static_cast<int>(seen.size());
}

Var chain(const Var& x, int n) {
  Var y = x;
  for (int k = 0; k < n; ++k) y = (k % 2 == 0) ? ad::sin(y) * 1.1 : y * y + 0.1;
  return y;
}

TEST(Fusion, AChainAndItsSumRunAsOneKernelAndKeepOnlyTheLeaf) {
  ASSERT_TRUE(ad::fusion_enabled());
  const Tensor x0 = Tensor::from_host({1000}, std::vector<double>(1000, 0.3));
  const Var x = ad::variable(x0);
  Var y;
  {
    KernelLog log;
    y = ad::sum(chain(x, 60));
    // Nothing runs until the value is read (a loss under grad need not be).
    EXPECT_EQ(KernelLog::count(), 0) << KernelLog::list();
    // Then the sum evaluates the 60 ops (120 instructions) inside its
    // reduction.
    (void)y.item();
    EXPECT_EQ(KernelLog::count(), 1) << KernelLog::list();
    EXPECT_EQ(KernelLog::count("camber::fused_sum"), 1);
  }
  // The graph: the sum and one fused node over x (no intermediate saved).
  EXPECT_EQ(count_nodes(y), 2);
  Tensor g;
  {
    KernelLog log;
    g = ad::grad(y, {x})[0].value();
    // The gradient (forward recomputed in registers, then the reverse
    // sweep) is one kernel, plus the fill of the broadcast seed none: the
    // seed is a broadcast view of the scalar cotangent.
    EXPECT_EQ(KernelLog::count("camber::fused"), 1);
    EXPECT_EQ(KernelLog::count(), 1) << KernelLog::list();
  }
  // Against the closed form, element by element.
  double v = 0.3, d = 1.0;
  for (int k = 0; k < 60; ++k) {
    if (k % 2 == 0) {
      d *= 1.1 * std::cos(v);
      v = 1.1 * std::sin(v);
    } else {
      d *= 2.0 * v;
      v = v * v + 0.1;
    }
  }
  EXPECT_NEAR(y.item(), 1000 * v, 1e-12 * 1000 * std::abs(v));
  for (double gi : g.to_vector()) EXPECT_NEAR(gi, d, 1e-13 * std::abs(d));
}

// Sums over axes have two kernels: one thread per output element, and one
// team per output element (the GPU default, where few outputs sum many
// terms). Both are forced here on every backend, over the leading, middle,
// trailing and two axes at once, and compared with the closed form.
class AxisSumKernel : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { ::setenv("CAMBER_FUSED_AXIS_SUM", GetParam(), 1); }
  void TearDown() override { ::unsetenv("CAMBER_FUSED_AXIS_SUM"); }
};

TEST_P(AxisSumKernel, MatchesTheClosedFormOnEveryAxis) {
  const camber::index_t a = 37, b = 5, c = 70;
  std::vector<double> v(static_cast<size_t>(a * b * c));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.001 * static_cast<double>(i % 997) - 0.4;
  const Var x = ad::variable(Tensor::from_host({a, b, c}, v));
  const auto at = [&](camber::index_t i, camber::index_t j, camber::index_t k) {
    const double t = v[static_cast<size_t>((i * b + j) * c + k)];
    return std::sin(t) * t;
  };
  const std::vector<std::vector<int>> axes_list = {{0}, {1}, {2}, {0, 2}};
  for (const std::vector<int>& axes : axes_list) {
    const Tensor s = ad::sum(ad::sin(x) * x, axes).value();
    const std::vector<double> got = s.to_vector();
    size_t q = 0;
    const bool r0 = axes[0] == 0, r1 = axes == std::vector<int>{1},
               r2 = axes.back() == 2;
    for (camber::index_t i = 0; i < (r0 ? 1 : a); ++i)
      for (camber::index_t j = 0; j < (r1 ? 1 : b); ++j)
        for (camber::index_t k = 0; k < (r2 ? 1 : c); ++k, ++q) {
          double want = 0.0, mag = 0.0;
          for (camber::index_t ii = 0; ii < (r0 ? a : 1); ++ii)
            for (camber::index_t jj = 0; jj < (r1 ? b : 1); ++jj)
              for (camber::index_t kk = 0; kk < (r2 ? c : 1); ++kk) {
                const double t = at(r0 ? ii : i, r1 ? jj : j, r2 ? kk : k);
                want += t;
                mag += std::abs(t);
              }
          ASSERT_LT(q, got.size());
          EXPECT_NEAR(got[q], want, 1e-14 * mag) << GetParam() << " axes " << axes.size();
        }
    EXPECT_EQ(q, got.size());
  }
  // The gradient of a broadcast (the bias-gradient pattern) through the
  // same kernel: d/db sum(tanh(x + b)) = sum over rows of 1 - tanh^2.
  const Var bias = ad::variable(Tensor::from_host({c}, std::vector<double>(c, 0.25)));
  const Var rows = ad::reshape(x, {a * b, c});
  const Tensor g = ad::grad(ad::sum(ad::tanh(rows + bias)), {bias})[0].value();
  const std::vector<double> gv = g.to_vector();
  for (camber::index_t k = 0; k < c; ++k) {
    double want = 0.0;
    for (camber::index_t r = 0; r < a * b; ++r) {
      const double t = std::tanh(v[static_cast<size_t>(r * c + k)] + 0.25);
      want += 1.0 - t * t;
    }
    EXPECT_NEAR(gv[static_cast<size_t>(k)], want, 1e-13 * want) << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Fusion, AxisSumKernel, ::testing::Values("teams", "threads"));

TEST(Fusion, ASumOfSquaresIsOnePass) {
  const Var x = ad::variable(Tensor::from_host({4}, {1, 2, 3, 4}));
  KernelLog log;
  const Var y = ad::sum(x * x);
  EXPECT_EQ(y.item(), 30.0);
  EXPECT_EQ(KernelLog::count(), 1) << KernelLog::list();
}

TEST(Fusion, ExpressionsPastTheSizeLimitAreSplitAndStayExact) {
  // 1500 ops exceed max_expr_size: the expression is computed in parts.
  const Tensor x0 = Tensor::from_host({5}, {0.1, 0.2, 0.3, 0.4, 0.5});
  Tensor fused_value, plain_value, fused_grad, plain_grad;
  for (const bool fuse : {true, false}) {
    ad::FusionGuard mode(fuse);
    const Var x = ad::variable(x0);
    Var y = x;
    for (int k = 0; k < 1500; ++k) y = ad::sin(y) + 0.01;
    const Var g = ad::grad(ad::sum(y), {x})[0];
    (fuse ? fused_value : plain_value) = y.value();
    (fuse ? fused_grad : plain_grad) = g.value();
  }
  EXPECT_EQ(fused_value.to_vector(), plain_value.to_vector());
  EXPECT_LE(max_rel_diff(fused_grad, plain_grad), 1e-14);
}

TEST(Fusion, SlicesAndBroadcastsAreReadInPlace) {
  // Rosenbrock on pairs (x0, x1) of a {m, 2} view: value and gradient
  // against the closed form.
  const std::vector<double> xs = {0.5, -1.0, 1.5, 2.0, -0.3, 0.7};
  const Var x = ad::variable(Tensor::from_host({6}, xs));
  const Var p = ad::reshape(x, {3, 2});
  const Var a = ad::slice(p, 1, 0, 1), b = ad::slice(p, 1, 1, 2);
  EXPECT_TRUE(ad::is_pending(a));
  const Var t = b - a * a, u = 1.0 - a;
  const Var f = ad::sum(100.0 * (t * t) + u * u);
  const auto g = ad::grad(f, {x})[0].value().to_vector();
  double f_ref = 0.0;
  for (size_t i = 0; i < xs.size(); i += 2) {
    const double ti = xs[i + 1] - xs[i] * xs[i], ui = 1.0 - xs[i];
    f_ref += 100.0 * ti * ti + ui * ui;
    EXPECT_NEAR(g[i], -400.0 * ti * xs[i] - 2.0 * ui, 1e-12) << i;
    EXPECT_NEAR(g[i + 1], 200.0 * ti, 1e-12) << i;
  }
  EXPECT_NEAR(f.item(), f_ref, 1e-12 * f_ref);
}

TEST(Fusion, OverlappingSlicesOfAStencilDifferentiate) {
  // f = sum over i of (x[i+1] - x[i])^2 + x[i+2] x[i]: the three slices of x
  // overlap, so their adjoints add into x one after the other. Gradient and
  // Hessian-vector product against the closed form, second order through
  // the views' adjoints (scatter) and their adjoints (views).
  const std::vector<double> xs = {0.3, -0.2, 0.9, 1.4, -0.7, 0.1, 0.5};
  const size_t n = xs.size();
  const auto f = [n](const Var& x) {
    const auto m = static_cast<camber::index_t>(n);
    const Var d = ad::slice(x, 0, 1, m - 1) - ad::slice(x, 0, 0, m - 2);
    return ad::sum(d * d + ad::slice(x, 0, 2, m) * ad::slice(x, 0, 0, m - 2));
  };
  const Var x = ad::variable(Tensor::from_host({7}, xs));
  const auto g = ad::grad(f(x), {x})[0].value().to_vector();
  std::vector<double> g_ref(n, 0.0);
  for (size_t i = 0; i + 2 < n; ++i) {
    const double di = xs[i + 1] - xs[i];
    g_ref[i + 1] += 2 * di;
    g_ref[i] += -2 * di + xs[i + 2];
    g_ref[i + 2] += xs[i];
  }
  for (size_t i = 0; i < n; ++i) EXPECT_NEAR(g[i], g_ref[i], 1e-14) << i;
  // H v: d/dx of the gradient along v (the quadratic's Hessian is constant).
  const std::vector<double> vs = {1, -2, 0.5, 3, -1, 2, 0.25};
  const auto hv = ad::hvp(f, Tensor::from_host({7}, xs), Tensor::from_host({7}, vs)).to_vector();
  std::vector<double> hv_ref(n, 0.0);
  for (size_t i = 0; i + 2 < n; ++i) {
    const double dv = vs[i + 1] - vs[i];
    hv_ref[i + 1] += 2 * dv;
    hv_ref[i] += -2 * dv + vs[i + 2];
    hv_ref[i + 2] += vs[i];
  }
  for (size_t i = 0; i < n; ++i) EXPECT_NEAR(hv[i], hv_ref[i], 1e-13) << i;
}

TEST(Fusion, ChangingALeafBeforeTheValueIsComputedIsAnError) {
  Tensor t = Tensor::from_host({3}, {1, 2, 3});
  const Var y = ad::exp(ad::constant(t)) * 2.0;
  ASSERT_TRUE(ad::is_pending(y));
  t.fill(0.0);
  try {
    (void)y.value();
    FAIL() << "expected an error";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("changed in place"), std::string::npos) << e.what();
  }
  // Materialized first, the value is the one of the tensor at that time.
  Tensor s = Tensor::from_host({1}, {1.0});
  const Var z = ad::materialize(ad::exp(ad::constant(s)));
  s.fill(0.0);
  EXPECT_EQ(z.item(), std::exp(1.0));
}

TEST(Fusion, AGradientDoesNotComputeTheLossItDoesNotRead) {
  // grad(sum(f(x))) needs f's derivative, not the sum's value: one kernel
  // (the backward one), and the loss is computed only if read.
  const Var x = ad::variable(Tensor::from_host({3}, {0.1, 0.2, 0.3}));
  KernelLog log;
  const Var y = ad::sum(ad::exp(x) * x);
  const Tensor g = ad::grad(y, {x}, false, /*retain_graph=*/true)[0].value();
  EXPECT_EQ(KernelLog::count(), 1) << KernelLog::list();
  EXPECT_NEAR(g.to_vector()[1], std::exp(0.2) * 1.2, 1e-15);
  EXPECT_NEAR(y.item(), 0.1 * std::exp(0.1) + 0.2 * std::exp(0.2) + 0.3 * std::exp(0.3), 1e-15);
  EXPECT_EQ(KernelLog::count(), 2) << KernelLog::list();
}

TEST(Fusion, OffComputesEveryOpAtOnce) {
  const Var x = ad::variable(Tensor::from_host({2}, {1.0, 2.0}));
  {
    ad::FusionGuard off(false);
    EXPECT_FALSE(ad::fusion_enabled());
    EXPECT_FALSE(ad::is_pending(ad::sin(x) * x));
    EXPECT_FALSE(ad::is_pending(ad::slice(x, 0, 0, 1)));
  }
  EXPECT_TRUE(ad::is_pending(ad::sin(x) * x));
}

TEST(Fusion, MaterializeComputesSeveralValuesInOneKernel) {
  const Var x = ad::variable(Tensor::from_host({3}, {0.1, 0.2, 0.3}));
  const Var a = ad::sin(x), b = ad::cos(x) * 2.0;
  KernelLog log;
  ad::materialize({a, b});
  EXPECT_EQ(KernelLog::count(), 1) << KernelLog::list();
  EXPECT_FALSE(ad::is_pending(a));
  EXPECT_FALSE(ad::is_pending(b));
  EXPECT_EQ(a.value().to_vector()[2], std::sin(0.3));
  EXPECT_EQ(b.value().to_vector()[1], 2.0 * std::cos(0.2));
}

}  // namespace camber_test_fusion
