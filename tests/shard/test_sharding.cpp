// Sharded tensors at 1, 2 and 4 ranks: every layout change and every
// propagation rule, on 1-d meshes and (at 4 ranks) a 2 x 2 mesh, with even
// and uneven splits, gives the single-rank program's values, gradients,
// Jacobian-vector products and Hessian-vector products to round-off.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>
#include <camber/shard/sharded_var.hpp>

#include "tests/mpi_test_utils.hpp"

namespace camber {
namespace {

using ad::Var;
using ad::Vars;
using shard::MeshPtr;
using shard::Placement;
using shard::Placements;
using shard::ShardedVar;

const Placement R = Placement::replicate();
const Placement P = Placement::partial();
Placement S(int d) { return Placement::shard(d); }

// The same pseudo-random tensor on every rank.
Tensor pattern(const Shape& shape, int seed) {
  index_t n = 1;
  for (index_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.7 * static_cast<double>(i + 1) + 0.37 * seed) + 0.1 * seed;
  return Tensor::from_host(shape, v);
}

Tensor mul_scalar_tensor(Tensor t, double c) {
  t *= c;
  return t;
}

double scale_of(const Tensor& a) { return std::max(1.0, a.max_abs()); }

// The meshes a case runs on: the whole world as one axis, and at 4 ranks a
// 2 x 2 grid (and at 2 ranks a 2 x 1 one).
std::vector<MeshPtr> meshes(int axes) {
  const int n = test::size();
  std::vector<MeshPtr> out;
  if (axes == 1) out.push_back(shard::DeviceMesh::create(test::world(), {{"x", n}}));
  if (axes == 2) {
    if (n == 4) out.push_back(shard::DeviceMesh::create(test::world(), {{"a", 2}, {"b", 2}}));
    if (n == 2) out.push_back(shard::DeviceMesh::create(test::world(), {{"a", 2}, {"b", 1}}));
    if (n == 1) out.push_back(shard::DeviceMesh::create(test::world(), {{"a", 1}, {"b", 1}}));
  }
  return out;
}

using Program = std::function<Var(const Vars&)>;

// The sharded program (inputs: whole tensors; output: the whole result)
// against the plain one: values, gradients of <y, w>, JVPs, to 1e-12.
void expect_same(const std::string& what, const Program& plain, const Program& sharded,
                 const std::vector<Shape>& shapes) {
  Vars in;
  for (size_t i = 0; i < shapes.size(); ++i) in.push_back(ad::variable(pattern(shapes[i], static_cast<int>(i) + 1)));
  const Var y0 = plain(in), y1 = sharded(in);
  ASSERT_EQ(y0.shape(), y1.shape()) << what;
  const double s = scale_of(y0.value());
  EXPECT_LE(max_abs_diff(y0.value(), y1.value()), 1e-12 * s) << what << ": values";
  const Var w = ad::constant(pattern(y0.shape(), 17));
  const Vars g0 = ad::grad(ad::sum(ad::mul(y0, w)), in), g1 = ad::grad(ad::sum(ad::mul(y1, w)), in);
  for (size_t i = 0; i < in.size(); ++i)
    EXPECT_LE(max_abs_diff(g0[i].value(), g1[i].value()), 1e-12 * scale_of(g0[i].value()))
        << what << ": gradient of input " << i;
  Vars tangents;
  for (size_t i = 0; i < shapes.size(); ++i) tangents.push_back(ad::constant(pattern(shapes[i], 30 + static_cast<int>(i))));
  const auto j0 = ad::jvp([&](const Vars& x) { return Vars{plain(x)}; }, in, tangents);
  const auto j1 = ad::jvp([&](const Vars& x) { return Vars{sharded(x)}; }, in, tangents);
  EXPECT_LE(max_abs_diff(j0.tangents[0].value(), j1.tangents[0].value()), 1e-12 * scale_of(j0.tangents[0].value()))
      << what << ": JVP";
}

TEST(Sharding, EveryLayoutChangeRoundTripsWithItsGradient) {
  const std::vector<Placement> kinds = {R, S(0), S(1), P};
  for (const MeshPtr& mesh : meshes(1))
    for (const Shape& shape : {Shape{5, 7}, Shape{8, 4}})  // uneven, and even at 1, 2 and 4 ranks
      for (const Placement& from : kinds)
        for (const Placement& to : kinds) {
          const std::string what = "[" + std::to_string(shape[0]) + "," + std::to_string(shape[1]) + "] " +
                                   shard::to_string({from}) + " -> " + shard::to_string({to});
          expect_same(what, [](const Vars& x) { return ad::mul_scalar(x[0], 1.0); },
                      [&](const Vars& x) {
                        const ShardedVar a = shard::distribute(x[0], mesh, {from});
                        return shard::full(shard::redistribute(a, {to}));
                      },
                      {shape});
        }
}

// Shard(0) -> Shard(1) is one all-to-all: each rank sends every other rank
// the (n/m) x (n/m) block it needs, (m - 1) n^2 / m^2 values in all.
TEST(Sharding, ShardToShardSendsOnlyTheBlocksAllToAll) {
  for (const MeshPtr& mesh : meshes(1)) {
    const int m = mesh->size(0);
    const ShardedVar a = shard::distribute(ad::constant(pattern({8, 8}, 1)), mesh, {S(0)});
    const std::int64_t before = shard::bytes_sent();
    const ShardedVar b = shard::redistribute(a, {S(1)});
    EXPECT_EQ(shard::bytes_sent() - before, static_cast<std::int64_t>(8 * (m - 1) * 64 / (m * m)));
    EXPECT_EQ(b.local.shape(), (Shape{8, 8 / m}));
  }
}

TEST(Sharding, TwoAxisLayoutsRoundTrip) {
  for (const MeshPtr& mesh : meshes(2))
    for (const Placements& from : {Placements{S(0), S(1)}, Placements{S(1), R}, Placements{P, S(0)}, Placements{R, P}})
      for (const Placements& to : {Placements{S(1), S(0)}, Placements{R, R}, Placements{S(0), P}})
        expect_same(shard::to_string(from) + " -> " + shard::to_string(to),
                    [](const Vars& x) { return ad::mul_scalar(x[0], 1.0); },
                    [&](const Vars& x) { return shard::full(shard::redistribute(shard::distribute(x[0], mesh, from), to)); },
                    {Shape{6, 5}});
}

TEST(Sharding, ElementwiseRulesAndFallbacks) {
  struct Case {
    const char* name;
    Placement pa, pb;
    Shape sa, sb;
  };
  const std::vector<Case> cases = {
      {"S0 * S0", S(0), S(0), {7, 3}, {7, 3}},       {"S0 + R", S(0), R, {7, 3}, {7, 3}},
      {"R - S1", R, S(1), {7, 5}, {7, 5}},           {"S0 + R bias", S(0), R, {7, 3}, {3}},
      {"S1 * R bias", S(1), R, {4, 6}, {6}},         {"P + P", P, P, {5, 3}, {5, 3}},
      {"P * R", P, R, {5, 3}, {5, 3}},               {"P + R", P, R, {5, 3}, {5, 3}},
      {"R * P", R, P, {5, 3}, {5, 3}},               {"S0 * S1 (fallback)", S(0), S(1), {6, 6}, {6, 6}},
      {"P * P (fallback)", P, P, {5, 3}, {5, 3}},    {"S0 / R", S(0), R, {7, 3}, {7, 3}},
  };
  for (const MeshPtr& mesh : meshes(1))
    for (const Case& c : cases) {
      const bool is_add = std::string(c.name).find('+') != std::string::npos;
      const bool is_sub = std::string(c.name).find('-') != std::string::npos;
      const bool is_div = std::string(c.name).find('/') != std::string::npos;
      const auto op = [&](const Var& a, const Var& b) {
        return is_add ? ad::add(a, b) : is_sub ? ad::sub(a, b) : is_div ? ad::div(a, ad::add_scalar(ad::square(b), 1.0)) : ad::mul(a, b);
      };
      const auto sop = [&](const ShardedVar& a, const ShardedVar& b) {
        if (is_add) return shard::add(a, b);
        if (is_sub) return shard::sub(a, b);
        if (is_div) {
          const ShardedVar d = shard::map(b, [](const Var& v) { return ad::add_scalar(ad::square(v), 1.0); }, false, "1+b^2");
          return shard::div(a, d);
        }
        return shard::mul(a, b);
      };
      expect_same(c.name, [&](const Vars& x) { return op(x[0], x[1]); },
                  [&](const Vars& x) {
                    return shard::full(sop(shard::distribute(x[0], mesh, {c.pa}), shard::distribute(x[1], mesh, {c.pb})));
                  },
                  {c.sa, c.sb});
    }
}

TEST(Sharding, UnaryAndReductionRules) {
  for (const MeshPtr& mesh : meshes(1)) {
    for (const Placement& p : {R, S(0), S(1), P}) {
      const std::string name = shard::to_string({p});
      expect_same("tanh " + name, [](const Vars& x) { return ad::tanh(x[0]); },
                  [&](const Vars& x) { return shard::full(shard::tanh(shard::distribute(x[0], mesh, {p}))); }, {{7, 5}});
      expect_same("3 x " + name, [](const Vars& x) { return ad::mul_scalar(x[0], 3.0); },
                  [&](const Vars& x) { return shard::full(shard::mul_scalar(shard::distribute(x[0], mesh, {p}), 3.0)); },
                  {{7, 5}});
      for (int k = 0; k < 2; ++k)
        expect_same("sum over " + std::to_string(k) + " of " + name, [k](const Vars& x) { return ad::sum(x[0], k); },
                    [&](const Vars& x) { return shard::full(shard::sum(shard::distribute(x[0], mesh, {p}), k)); }, {{7, 5}});
      for (int k = 0; k < 2; ++k) {
        expect_same("mean over " + std::to_string(k) + " of " + name, [k](const Vars& x) { return ad::mean(x[0], k); },
                    [&](const Vars& x) { return shard::full(shard::mean(shard::distribute(x[0], mesh, {p}), k)); }, {{7, 5}});
        expect_same("max over " + std::to_string(k) + " of " + name, [k](const Vars& x) { return ad::max(x[0], k); },
                    [&](const Vars& x) { return shard::full(shard::max(shard::distribute(x[0], mesh, {p}), k)); }, {{7, 5}});
      }
      for (const Placement& q : {R, S(0), P}) {
        const std::string pair = name + " " + shard::to_string({q});
        expect_same("maximum " + pair, [](const Vars& x) { return ad::maximum(x[0], x[1]); },
                    [&](const Vars& x) {
                      return shard::full(shard::maximum(shard::distribute(x[0], mesh, {p}), shard::distribute(x[1], mesh, {q})));
                    },
                    {{7, 5}, {7, 5}});
        expect_same("pow " + pair, [](const Vars& x) { return ad::pow(ad::add_scalar(ad::square(x[0]), 1.0), x[1]); },
                    [&](const Vars& x) {
                      const ShardedVar base = shard::map(shard::distribute(x[0], mesh, {p}),
                                                         [](const Var& v) { return ad::add_scalar(ad::square(v), 1.0); }, false, "1+x^2");
                      return shard::full(shard::pow(base, shard::distribute(x[1], mesh, {q})));
                    },
                    {{7, 5}, {7, 5}});
      }
      expect_same("sum of " + name, [](const Vars& x) { return ad::sum(x[0]); },
                  [&](const Vars& x) { return shard::full(shard::sum(shard::distribute(x[0], mesh, {p}))); }, {{7, 5}});
    }
  }
}

TEST(Sharding, ShapeOpRules) {
  for (const MeshPtr& mesh : meshes(1))
    for (const Placement& p : {R, S(0), S(1), P}) {
      const std::string name = shard::to_string({p});
      expect_same("transpose " + name, [](const Vars& x) { return ad::transpose(x[0]); },
                  [&](const Vars& x) { return shard::full(shard::transpose(shard::distribute(x[0], mesh, {p}))); },
                  {{7, 5}});
      expect_same("reshape rows-kept " + name, [](const Vars& x) { return ad::reshape(x[0], {7, 2, 3}); },
                  [&](const Vars& x) { return shard::full(shard::reshape(shard::distribute(x[0], mesh, {p}), {7, 2, 3})); },
                  {{7, 6}});
      expect_same("reshape flat " + name, [](const Vars& x) { return ad::reshape(x[0], {42}); },
                  [&](const Vars& x) { return shard::full(shard::reshape(shard::distribute(x[0], mesh, {p}), {42})); },
                  {{7, 6}});
 const Tensor idx = Tensor::from_host_int64({4}, {5, 0, 2, 2});
      for (int k = 0; k < 2; ++k) {
        expect_same("index_select " + std::to_string(k) + " of " + name,
                    [&](const Vars& x) { return ad::index_select(x[0], k, idx); },
                    [&](const Vars& x) { return shard::full(shard::index_select(shard::distribute(x[0], mesh, {p}), k, idx)); },
                    {{7, 6}});
        expect_same("slice " + std::to_string(k) + " of " + name, [k](const Vars& x) { return ad::slice(x[0], k, 1, 4); },
                    [&](const Vars& x) { return shard::full(shard::slice(shard::distribute(x[0], mesh, {p}), k, 1, 4)); },
                    {{7, 6}});
        expect_same("concat " + std::to_string(k) + " of " + name + " and R",
                    [k](const Vars& x) { return ad::concat({x[0], x[1]}, k); },
                    [&](const Vars& x) {
                      return shard::full(shard::concat({shard::distribute(x[0], mesh, {p}), shard::distribute(x[1], mesh, {R})}, k));
                    },
                    {{6, 6}, {6, 6}});
      }
    }
}

TEST(Sharding, MatmulRulesOnOneAndTwoAxes) {
  const std::vector<std::pair<Placement, Placement>> one = {{S(0), R}, {R, S(1)}, {S(1), S(0)}, {R, R}, {S(1), R},
                                                            {R, S(0)}, {P, R},    {R, P},       {S(0), S(0)},
                                                            {S(0), S(1)}, {P, P}};
  for (const MeshPtr& mesh : meshes(1))
    for (const auto& [pa, pb] : one)
      expect_same("matmul " + shard::to_string({pa}) + " x " + shard::to_string({pb}),
                  [](const Vars& x) { return ad::matmul(x[0], x[1]); },
                  [&](const Vars& x) {
                    return shard::full(shard::matmul(shard::distribute(x[0], mesh, {pa}), shard::distribute(x[1], mesh, {pb})));
                  },
                  {{7, 6}, {6, 5}});
  const std::vector<std::pair<Placements, Placements>> two = {
      {{S(0), R}, {R, S(1)}},      // data x model: rows and columns, no communication
      {{S(0), S(1)}, {R, S(0)}},   // model axis contracted: partial sums
      {{R, R}, {S(1), S(0)}},      // everything through fallbacks
      {{S(0), S(1)}, {S(0), R}}};  // fallbacks on both axes
  for (const MeshPtr& mesh : meshes(2))
    for (const auto& [pa, pb] : two)
      expect_same("matmul " + shard::to_string(pa) + " x " + shard::to_string(pb),
                  [](const Vars& x) { return ad::matmul(x[0], x[1]); },
                  [&](const Vars& x) {
                    return shard::full(shard::matmul(shard::distribute(x[0], mesh, pa), shard::distribute(x[1], mesh, pb)));
                  },
                  {{6, 5}, {5, 7}});
}

// A two-layer MLP loss, data parallel on one axis and Megatron-style tensor
// parallel (column- then row-parallel layer) on the other; its gradients
// and a Hessian-vector product with respect to the first layer's weights.
TEST(Sharding, MlpLossGradientAndHessianVectorProductMatchOneRank) {
  const auto plain = [](const Vars& x) {
    const Var h = ad::tanh(ad::add(ad::matmul(x[0], x[1]), x[2]));
    return ad::mul_scalar(ad::sum(ad::square(ad::matmul(h, x[3]))), 0.5);
  };
  for (int axes = 1; axes <= 2; ++axes)
    for (const MeshPtr& mesh : meshes(axes)) {
      const int data = 0, model = axes - 1;
      const auto place = [&](std::vector<std::pair<int, Placement>> spec) {
        Placements p(static_cast<size_t>(mesh->ndim()), R);
        for (const auto& [axis, q] : spec) p[static_cast<size_t>(axis)] = q;
        return p;
      };
      const auto sharded = [&](const Vars& x) {
        const ShardedVar X = shard::distribute(x[0], mesh, place({{data, S(0)}}));
        const ShardedVar W1 = shard::distribute(x[1], mesh, axes == 2 ? place({{model, S(1)}}) : place({}));
        const ShardedVar b1 = shard::distribute(x[2], mesh, axes == 2 ? place({{model, S(0)}}) : place({}));
        const ShardedVar W2 = shard::distribute(x[3], mesh, axes == 2 ? place({{model, S(0)}}) : place({}));
        const ShardedVar h = shard::tanh(shard::add(shard::matmul(X, W1), b1));
        return shard::full(shard::mul_scalar(shard::sum(shard::square(shard::matmul(h, W2))), 0.5));
      };
      const std::vector<Shape> shapes = {{9, 5}, {5, 6}, {6}, {6, 3}};
      expect_same("MLP on " + mesh->describe(), plain, sharded, shapes);
      // Hessian-vector product in the first layer's weights, reverse over reverse.
      Vars in;
      for (size_t i = 0; i < shapes.size(); ++i) in.push_back(ad::variable(pattern(shapes[i], static_cast<int>(i) + 1)));
      const Var v = ad::constant(pattern(shapes[1], 99));
      const auto hv = [&](const Program& f) {
        const Var g = ad::grad(f(in), {in[1]}, true)[0];
        return ad::grad(ad::sum(ad::mul(g, v)), {in[1]})[0].value();
      };
      const Tensor h0 = hv(plain), h1 = hv(sharded);
      EXPECT_LE(max_abs_diff(h0, h1), 1e-12 * scale_of(h0)) << "Hessian-vector product on " << mesh->describe();
    }
}

// Second order through a reduce-scatter: a contraction left partial, then
// scattered by rows, squared and summed.
TEST(Sharding, HessianVectorProductThroughReduceScatter) {
  const auto plain = [](const Vars& x) { return ad::sum(ad::square(ad::tanh(ad::matmul(x[0], x[1])))); };
  for (const MeshPtr& mesh : meshes(1)) {
    const auto sharded = [&](const Vars& x) {
      const ShardedVar z = shard::matmul(shard::distribute(x[0], mesh, {S(1)}), shard::distribute(x[1], mesh, {S(0)}));
      const ShardedVar rows = shard::redistribute(z, {S(0)});  // Partial -> Shard(0): reduce-scatter
      return shard::full(shard::sum(shard::square(shard::tanh(rows))));
    };
    expect_same("reduce-scatter program", plain, sharded, {{7, 6}, {6, 5}});
    Vars in = {ad::variable(pattern({7, 6}, 1)), ad::variable(pattern({6, 5}, 2))};
    const Var v = ad::constant(pattern({7, 6}, 5));
    const auto hv = [&](const Program& f) {
      const Var g = ad::grad(f(in), {in[0]}, true)[0];
      return ad::grad(ad::sum(ad::mul(g, v)), {in[0]})[0].value();
    };
    const Tensor h0 = hv(plain), h1 = hv(sharded);
    EXPECT_LE(max_abs_diff(h0, h1), 1e-12 * scale_of(h0));
  }
}

// SGD on a two-layer MLP whose parameters live only as this rank's
// blocks. The program is written once; data parallel, tensor parallel
// (column- then row-parallel) and both (2 x 2) change only the
// placements, and give one rank's loss curve to 1e-10.
struct Plan {
  std::string name;
  std::vector<std::pair<std::string, int>> axes;
  // per mesh axis: the batch's, W1's, b1's and W2's placement
  Placements x, w1, b1, w2;
};

std::vector<double> train(const MeshPtr& mesh, const Plan& plan, int steps) {
  const Tensor X = pattern({16, 8}, 3), Y = pattern({16, 4}, 4);
  const Tensor W1 = mul_scalar_tensor(pattern({8, 12}, 5), 0.3), b1 = pattern({12}, 6), W2 = mul_scalar_tensor(pattern({12, 4}, 7), 0.3);
  Vars params = {ad::variable(shard::local_part(W1, *mesh, plan.w1)), ad::variable(shard::local_part(b1, *mesh, plan.b1)),
                 ad::variable(shard::local_part(W2, *mesh, plan.w2))};
  std::vector<double> losses;
  for (int step = 0; step < steps; ++step) {
    const ShardedVar x = shard::distribute(ad::constant(X), mesh, plan.x);
    const ShardedVar y = shard::distribute(ad::constant(Y), mesh, plan.x);
    const ShardedVar w1 = shard::from_local(params[0], W1.shape(), mesh, plan.w1);
    const ShardedVar bb = shard::from_local(params[1], b1.shape(), mesh, plan.b1);
    const ShardedVar w2 = shard::from_local(params[2], W2.shape(), mesh, plan.w2);
    const ShardedVar h = shard::tanh(shard::add(shard::matmul(x, w1), bb));
    const ShardedVar r = shard::sub(shard::matmul(h, w2), y);
    const Var loss = shard::full(shard::mul_scalar(shard::sum(shard::square(r)), 0.5 / 16.0));
    losses.push_back(loss.item());
    const Vars g = ad::grad(loss, params);
    for (size_t i = 0; i < params.size(); ++i) {
      Tensor next = params[i].value().clone();
      next.axpy(-0.5, g[i].value());
      params[i] = ad::variable(next);
    }
  }
  return losses;
}

TEST(Sharding, MlpTrainingGivesTheOneRankLossCurveUnderEveryPlan) {
  const int n = test::size();
  const Placements none = {R};
  const std::vector<double> reference =
      train(shard::DeviceMesh::create(MPI_COMM_SELF, {{"x", 1}}), {"one rank", {{"x", 1}}, none, none, none, none}, 20);
  const std::vector<Plan> plans = {
      {"data parallel", {{"data", n}}, {S(0)}, {R}, {R}, {R}},
      {"tensor parallel", {{"model", n}}, {R}, {S(1)}, {S(0)}, {S(0)}},
      {"data x tensor parallel", {{"data", n >= 2 ? 2 : 1}, {"model", n / (n >= 2 ? 2 : 1)}}, {S(0), R}, {R, S(1)},
       {R, S(0)}, {R, S(0)}},
  };
  for (const Plan& plan : plans) {
    const MeshPtr mesh = shard::DeviceMesh::create(test::world(), plan.axes);
    const std::vector<double> losses = train(mesh, plan, 20);
    double worst = 0.0;
    for (size_t i = 0; i < losses.size(); ++i)
      worst = std::max(worst, std::abs(losses[i] - reference[i]) / std::abs(reference[i]));
    test::say("%s on %s: loss %.6e -> %.6e, worst relative difference from one rank %.2e\n", plan.name.c_str(),
              mesh->describe().c_str(), losses.front(), losses.back(), worst);
    EXPECT_LT(losses.back(), 0.5 * losses.front()) << plan.name;  // it trains
    EXPECT_LE(worst, 1e-10) << plan.name;
  }
}

TEST(Sharding, BadPlacementsAreBadInput) {
  const MeshPtr mesh = meshes(1)[0];
  const Var x = ad::constant(pattern({4, 4}, 1));
  EXPECT_THROW(shard::distribute(x, mesh, {S(2)}), Error);
  EXPECT_THROW(shard::distribute(x, mesh, {R, R}), Error);
  EXPECT_THROW(shard::DeviceMesh::create(test::world(), {{"x", test::size() + 1}}), Error);
  for (const MeshPtr& m2 : meshes(2)) EXPECT_THROW(shard::distribute(x, m2, {S(0), S(0)}), Error);
}

}  // namespace
}  // namespace camber
