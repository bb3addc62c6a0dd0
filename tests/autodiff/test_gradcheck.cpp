// Every op of autodiff/ops.hpp through the gradient checks of
// autodiff/gradcheck.hpp: reverse and forward mode against central finite
// differences, second order (reverse-over-reverse, forward-over-reverse),
// and the tangent/adjoint dot-product test, on shapes with broadcasting,
// empty tensors and size-1 axes. Tolerances are the documented bound of
// gradcheck.hpp (truncation h^2, rounding eps/h), not fitted numbers.
//
// Linear ops (sum, reshape, slice, ...) are wrapped in y -> y * y so their
// second derivatives exercise the VJP of their VJP.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>

#include <camber/autodiff/graph.hpp>

namespace camber_test_gradcheck {

namespace ad = camber::ad;
using ad::Var;
using ad::Vars;
using camber::Shape;
using camber::Tensor;

enum class Domain { any, positive, away_from_zero };

Tensor random_tensor(const Shape& shape, Domain d, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.5, 1.5), pos(0.5, 2.0), mag(0.2, 1.5);
  std::bernoulli_distribution coin(0.5);
  std::vector<double> v(static_cast<size_t>(camber::shape_size(shape)));
  for (double& x : v) {
    if (d == Domain::any) x = u(rng);
    if (d == Domain::positive) x = pos(rng);
    if (d == Domain::away_from_zero) x = (coin(rng) ? 1.0 : -1.0) * mag(rng);
  }
  return Tensor::from_host(shape, v);
}

struct OpCase {
  std::string name;
  ad::CheckFunction f;
  std::vector<std::vector<Shape>> shape_sets;  // one Shape per input
  std::vector<Domain> domains;                 // one per input (default any)
};

Var sq(const Var& y) { return y * y; }

const std::vector<std::vector<Shape>> unary_shapes = {
    {{3, 4}}, {{0, 3}}, {{1, 5}}, {{}}, {{2, 1, 3}}};
const std::vector<std::vector<Shape>> binary_shapes = {
    {{3, 4}, {3, 4}}, {{3, 4}, {4}}, {{3, 1}, {1, 4}},   {{0, 4}, {4}},
    {{1}, {2, 3}},    {{}, {2, 2}},  {{2, 1, 3}, {4, 1}}};

std::vector<OpCase> unary_cases() {
  auto u = [](const std::string& name, Var (*op)(const Var&), Domain d = Domain::any) {
    return OpCase{name, [op](const Vars& x) { return op(x[0]); }, unary_shapes, {d}};
  };
  std::vector<OpCase> c = {
      u("neg", ad::neg),
      u("exp", ad::exp),
      u("log", ad::log, Domain::positive),
      u("sqrt", ad::sqrt, Domain::positive),
      u("sin", ad::sin),
      u("cos", ad::cos),
      u("tanh", ad::tanh),
      u("sigmoid", ad::sigmoid),
      u("relu", ad::relu, Domain::away_from_zero),
      u("softplus", ad::softplus),
      u("abs", ad::abs, Domain::away_from_zero),
      u("square", ad::square),
  };
  c.push_back({"pow_scalar_2.5",
               [](const Vars& x) { return ad::pow(x[0], 2.5); },
               unary_shapes,
               {Domain::positive}});
  c.push_back({"pow_scalar_3",
               [](const Vars& x) { return ad::pow(x[0], 3.0); },
               unary_shapes,
               {Domain::any}});
  c.push_back({"scalar_arith",
               [](const Vars& x) { return 2.0 / x[0] - 3.0 * x[0] + 1.5; },
               unary_shapes,
               {Domain::positive}});
  c.push_back({"reciprocal_scaled",
               [](const Vars& x) { return (x[0] + 1.0) / 4.0 - (2.0 - x[0]); },
               unary_shapes,
               {Domain::any}});
  return c;
}

std::vector<OpCase> binary_cases() {
  auto b = [](const std::string& name, Var (*op)(const Var&, const Var&), Domain da = Domain::any,
              Domain db = Domain::any) {
    return OpCase{name, [op](const Vars& x) { return op(x[0], x[1]); }, binary_shapes, {da, db}};
  };
  std::vector<OpCase> c = {
      b("add", ad::add),
      b("sub", ad::sub),
      b("mul", ad::mul),
      b("div", ad::div, Domain::any, Domain::positive),
      b("pow", ad::pow, Domain::positive, Domain::any),
      b("maximum", ad::maximum),
      b("minimum", ad::minimum),
  };
  c.push_back({"where",
               [](const Vars& x) {
                 // A fixed mask broadcast along the last axis.
                 const Tensor cond = Tensor::from_host({4}, {1, 0, 0, 1}).reshape({4});
                 return ad::where(cond, sq(x[0]), ad::sin(x[1]));
               },
               {{{3, 4}, {3, 4}}, {{3, 4}, {4}}, {{1}, {0, 4}}, {{2, 1, 4}, {1}}},
               {Domain::any, Domain::any}});
  return c;
}

std::vector<OpCase> reduction_and_shape_cases() {
  using camber::index_t;
  std::vector<OpCase> c;
  const std::vector<std::vector<Shape>> mats = {{{3, 4}}, {{0, 4}}, {{1, 4}}, {{3, 1}}};
  c.push_back({"sum_all", [](const Vars& x) { return sq(ad::sum(x[0])); }, unary_shapes, {}});
  c.push_back({"sum_axis0", [](const Vars& x) { return sq(ad::sum(x[0], 0)); }, mats, {}});
  c.push_back(
      {"sum_axis1_keepdims", [](const Vars& x) { return sq(ad::sum(x[0], 1, true)); }, mats, {}});
  c.push_back({"sum_axis_neg1",
               [](const Vars& x) { return sq(ad::sum(x[0], -1)); },
               {{{2, 3, 4}}, {{2, 0, 4}}},
               {}});
  c.push_back(
      {"mean_all", [](const Vars& x) { return sq(ad::mean(x[0])); }, {{{3, 4}}, {{1}}, {{}}}, {}});
  c.push_back({"mean_axis0",
               [](const Vars& x) { return sq(ad::mean(x[0], 0)); },
               {{{3, 4}}, {{1, 4}}, {{3, 0}}},
               {}});
  c.push_back({"max_axis1",
               [](const Vars& x) { return sq(ad::max(x[0], 1)); },
               {{{3, 4}}, {{0, 4}}, {{3, 1}}},
               {}});
  c.push_back({"max_axis0_keepdims",
               [](const Vars& x) { return sq(ad::max(x[0], 0, true)); },
               {{{3, 4}}, {{1, 4}}, {{2, 3, 2}}},
               {}});
  c.push_back(
      {"max_all", [](const Vars& x) { return sq(ad::max(x[0])); }, {{{3, 4}}, {{1}}, {{}}}, {}});
  c.push_back({"sum_axes_0_2",
               [](const Vars& x) {
                 return sq(ad::sum(x[0], {2, 0}));
               },
               {{{2, 3, 4}}, {{1, 3, 1}}, {{2, 0, 4}}},
               {}});
  c.push_back({"mean_axes_keepdims",
               [](const Vars& x) {
                 return sq(ad::mean(x[0], {-1, 1}, true));
               },
               {{{2, 3, 4}}, {{2, 1, 2}}},
               {}});
  c.push_back({"max_axes",
               [](const Vars& x) {
                 return sq(ad::max(x[0], {0, -1}));
               },
               {{{2, 3, 4}}, {{1, 2, 1}}},
               {}});
  c.push_back({"dot",
               [](const Vars& x) { return sq(ad::dot(x[0], x[1])); },
               {{{5}, {5}}, {{0}, {0}}, {{2, 3}, {3}}},
               {}});
  c.push_back({"norm",
               [](const Vars& x) { return ad::norm(x[0]); },
               {{{5}}, {{2, 3}}, {{1}}},
               {Domain::away_from_zero}});
  c.push_back({"broadcast_to",
               [](const Vars& x) {
                 return sq(ad::broadcast_to(x[0], {2, 3, 4}));
               },
               {{{3, 1}}, {{4}}, {{}}, {{1, 3, 4}}},
               {}});
  c.push_back({"sum_to_shape",
               [](const Vars& x) {
                 return sq(ad::sum_to_shape(x[0], {3, 1}));
               },
               {{{3, 4}}, {{2, 3, 4}}, {{3, 0}}, {{3, 1}}},
               {}});
  c.push_back({"reshape",
               [](const Vars& x) {
                 return ad::sin(ad::reshape(x[0], {2, -1}));
               },
               {{{3, 4}}, {{2}}, {{2, 1, 3}}},
               {}});
  c.push_back({"transpose",
               [](const Vars& x) { return sq(ad::transpose(x[0])); },
               {{{3, 4}}, {{2, 3, 1}}, {{0, 3}}, {{1, 1}}},
               {}});
  c.push_back({"slice",
               [](const Vars& x) { return sq(ad::slice(x[0], 1, 1, 3)); },
               {{{3, 4}}, {{0, 4}}, {{2, 3, 5}}},
               {}});
  c.push_back(
      {"slice_empty", [](const Vars& x) { return sq(ad::slice(x[0], 0, 1, 1)); }, {{{3, 4}}}, {}});
  c.push_back({"concat_axis0",
               [](const Vars& x) {
                 return sq(ad::concat({x[0], x[1], x[0]}, 0));
               },
               {{{2, 3}, {1, 3}}, {{0, 3}, {2, 3}}, {{1}, {2}}},
               {}});
  c.push_back({"concat_axis1",
               [](const Vars& x) {
                 return ad::sin(ad::concat({x[0], x[1]}, 1));
               },
               {{{2, 3}, {2, 1}}, {{2, 0}, {2, 2}}},
               {}});
  c.push_back({"index_select",
               [](const Vars& x) {
                 return sq(ad::index_select(x[0], 1, {0, 2, 2, 1}));
               },
               {{{3, 3}}, {{1, 3}}, {{0, 3}}, {{2, 3, 2}}},
               {}});
  c.push_back({"index_select_none",
               [](const Vars& x) { return sq(ad::index_select(x[0], 0, {})); },
               {{{3, 2}}},
               {}});
  c.push_back({"gather",
               [](const Vars& x) {
                 return sq(ad::gather(x[0], {3, 0, 0, 2}, {2, 2}));
               },
               {{{4, 3}}, {{4}}, {{4, 0}}},
               {}});
  c.push_back({"scatter_add",
               [](const Vars& x) {
                 return sq(ad::scatter_add(x[0], 0, {0, 2, 2, 3, 0}, x[1]));
               },
               {{{4, 3}, {5, 3}}, {{4}, {5}}, {{4, 0}, {5, 0}}, {{4, 1}, {5, 1}}},
               {}});
  c.push_back({"scatter_add_axis1",
               [](const Vars& x) {
                 return sq(ad::scatter_add(x[0], 1, {1, 1, 0}, x[1]));
               },
               {{{2, 2}, {2, 3}}},
               {}});
  return c;
}

std::vector<OpCase> linalg_cases() {
  std::vector<OpCase> c;
  c.push_back({"matmul",
               [](const Vars& x) { return ad::matmul(x[0], x[1]); },
               {{{3, 4}, {4, 2}},
                {{2, 3, 4}, {2, 4, 5}},
                {{0, 3}, {3, 2}},
                {{3, 0}, {0, 2}},
                {{1, 1}, {1, 1}}},
               {}});
  c.push_back({"matmul_self",
               [](const Vars& x) { return ad::matmul(x[0], ad::transpose(x[0])); },
               {{{3, 4}}, {{2, 1}}},
               {}});
  c.push_back(
      {"batched_matvec",
       [](const Vars& x) { return ad::batched_matvec(x[0], x[1]); },
       {{{2, 3, 4}, {2, 4}}, {{3, 4}, {4}}, {{2, 3, 4}, {4}}, {{0, 3, 2}, {0, 2}}, {{1, 1}, {1}}},
       {}});
  c.push_back({"outer",
               [](const Vars& x) { return ad::outer(x[0], x[1]); },
               {{{3}, {2}}, {{0}, {2}}, {{1}, {1}}},
               {}});
  // A small MLP loss and a PINN-like residual: compositions of the above.
  c.push_back({"mlp_loss",
               [](const Vars& x) {
                 const Var h = ad::tanh(ad::matmul(x[0], x[1]) + x[2]);
                 return ad::mean(ad::softplus(ad::matmul(h, x[3])));
               },
               {{{4, 3}, {3, 5}, {5}, {5, 2}}},
               {}});
  c.push_back({"pinn_residual",
               [](const Vars& w) {
                 // Loss of u'' + sin(x) = 0 for u(x) = tanh(x W1 + b1) W2, with
                 // u'' from two nested grads: the checks then differentiate
                 // through reverse-over-reverse twice more. Grad mode is
                 // forced on, as the residual needs du/dx even where the
                 // caller (the finite differences) runs under no_grad.
                 ad::EnableGradGuard enable;
                 const Var x = ad::variable(Tensor::from_host({4, 1}, {-1.0, -0.2, 0.4, 1.1}));
                 const Var u = ad::matmul(ad::tanh(ad::matmul(x, w[0]) + w[1]), w[2]);
                 const Var ux = ad::grad(ad::sum(u), {x}, true)[0];  // rows are independent
                 const Var uxx = ad::grad(ad::sum(ux), {x}, true)[0];
                 return ad::mean(ad::square(uxx + ad::sin(x)));
               },
               {{{1, 5}, {5}, {5, 1}}},
               {}});
  c.push_back({"mesh_gather_scatter",
               [](const Vars& x) {
                 // Node values -> per-edge differences -> scattered back.
                 const ad::Index from = {0, 1, 2, 3}, to = {1, 2, 3, 0};
                 const Var d = ad::gather(x[0], to) - ad::gather(x[0], from);
                 return ad::scatter_add(ad::zeros_like(x[0]), 0, from, d * d * x[1]);
               },
               {{{4}, {4}}, {{4, 2}, {4, 2}}},
               {}});
  return c;
}

std::string shapes_string(const std::vector<Shape>& shapes) {
  std::ostringstream os;
  for (const Shape& s : shapes) os << camber::shape_string(s) << ' ';
  return os.str();
}

void run_cases(const std::vector<OpCase>& cases, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const OpCase& c : cases) {
    for (const auto& shapes : c.shape_sets) {
      std::vector<Tensor> inputs;
      for (size_t i = 0; i < shapes.size(); ++i)
        inputs.push_back(
            random_tensor(shapes[i], i < c.domains.size() ? c.domains[i] : Domain::any, rng));
      const ad::GradCheckResult r = ad::check_all(c.f, inputs);
      EXPECT_TRUE(r.ok) << c.name << " at shapes " << shapes_string(shapes) << ": " << r.report();
      // Every entry of every input was compared (first and second order),
      // plus the directional and dot-product checks.
      camber::index_t n_in = 0;
      for (const Tensor& t : inputs) n_in += t.size();
      EXPECT_GE(r.n_compared, 2 * n_in + 2) << c.name << " at shapes " << shapes_string(shapes);
      if (std::getenv("CAMBER_GRADCHECK_VERBOSE"))
        std::printf("%-22s %-26s %s\n", c.name.c_str(), shapes_string(shapes).c_str(),
                    r.report().c_str());
    }
  }
}

TEST(GradCheck, UnaryOps) { run_cases(unary_cases(), 1); }
TEST(GradCheck, BinaryOpsWithBroadcasting) { run_cases(binary_cases(), 2); }
TEST(GradCheck, ReductionAndShapeOps) { run_cases(reduction_and_shape_cases(), 3); }
TEST(GradCheck, LinearAlgebraAndCompositions) { run_cases(linalg_cases(), 4); }

// Random shapes: rank 0 to 3, extents 0 to 3; each operand of a binary op
// drops some leading axes and has some axes set to 1, so every broadcasting
// pattern (and empty and size-1 axes) turns up.
Shape random_shape(std::mt19937_64& rng) {
  // Rank 0 and extent 0 less often than the others.
  std::discrete_distribution<int> rank({1, 3, 3, 3}), extent({1, 2, 3, 3});
  Shape s(static_cast<size_t>(rank(rng)));
  for (auto& d : s) d = extent(rng);
  return s;
}

Shape broadcast_operand(const Shape& out, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> drop(0, out.size());
  std::bernoulli_distribution keep_rank(0.5), squeeze(0.3);
  const size_t n_drop = keep_rank(rng) ? 0 : drop(rng);
  Shape s(out.begin() + static_cast<std::ptrdiff_t>(n_drop), out.end());
  for (auto& d : s)
    if (squeeze(rng)) d = 1;
  return s;
}

TEST(GradCheck, RandomShapes) {
  std::mt19937_64 rng(8);
  std::vector<OpCase> cases = binary_cases();
  cases.pop_back();  // where: fixed mask shape
  for (OpCase& c : cases) {
    c.shape_sets.clear();
    for (int k = 0; k < 6; ++k) {
      const Shape out = random_shape(rng);
      c.shape_sets.push_back({broadcast_operand(out, rng), broadcast_operand(out, rng)});
    }
  }
  for (OpCase c : unary_cases()) {
    c.shape_sets.clear();
    for (int k = 0; k < 3; ++k) c.shape_sets.push_back({random_shape(rng)});
    cases.push_back(c);
  }
  run_cases(cases, 9);
}

// sin with its derivative off by 1%: the checks must notice.
Var wrong_sin(const Var& x, double vjp_factor, double jvp_factor) {
  return ad::custom_op(
      "wrong_sin", {x}, [](const std::vector<Tensor>& v) { return camber::sin(v[0]); },
      [vjp_factor](const Vars& in, const Var&, const Var& g) -> Vars {
        return {g * ad::cos(in[0]) * vjp_factor};
      },
      [jvp_factor](const Vars& in, const Var&, const Vars& t) {
        return t[0] * ad::cos(in[0]) * jvp_factor;
      });
}

TEST(GradCheck, CatchesAWrongVjp) {
  std::mt19937_64 rng(5);
  const std::vector<Tensor> x = {random_tensor({3, 2}, Domain::any, rng)};
  auto f = [](const Vars& v) { return wrong_sin(v[0], 1.01, 1.0); };
  EXPECT_FALSE(ad::check_gradients(f, x).ok);
  EXPECT_FALSE(ad::check_dot_product(f, x).ok);
  auto right = [](const Vars& v) { return wrong_sin(v[0], 1.0, 1.0); };
  EXPECT_TRUE(ad::check_gradients(right, x).ok);
  EXPECT_TRUE(ad::check_dot_product(right, x).ok);
}

TEST(GradCheck, CatchesAWrongJvp) {
  std::mt19937_64 rng(6);
  const std::vector<Tensor> x = {random_tensor({4}, Domain::any, rng)};
  auto f = [](const Vars& v) { return wrong_sin(v[0], 1.0, 0.99); };
  const ad::GradCheckResult r = ad::check_gradients(f, x);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.worst.find("forward mode"), std::string::npos) << r.report();
  EXPECT_FALSE(ad::check_dot_product(f, x).ok);
}

TEST(GradCheck, CatchesAWrongSecondDerivative) {
  // First derivative right, but the VJP uses a constant cos (not
  // differentiable), so the second derivative is wrong.
  auto f = [](const Vars& v) {
    return ad::custom_op(
        "frozen_sin", {v[0]}, [](const std::vector<Tensor>& t) { return camber::sin(t[0]); },
        [](const Vars& in, const Var&, const Var& g) -> Vars {
          return {g * ad::constant(camber::cos(in[0].value()))};
        },
        [](const Vars& in, const Var&, const Vars& t) { return t[0] * ad::cos(in[0]); });
  };
  std::mt19937_64 rng(7);
  const std::vector<Tensor> x = {random_tensor({3}, Domain::any, rng)};
  EXPECT_TRUE(ad::check_gradients(f, x).ok);
  EXPECT_FALSE(ad::check_second_order(f, x).ok);
}

}  // namespace camber_test_gradcheck
