// Test problems with known optima, their gradients from camber::ad (the
// intended use: an objective written with ad:: ops, or a flow solve whose
// adjoint gives the gradient).
//
//   Rosenbrock  f = 100 (x2 - x1^2)^2 + (1 - x1)^2, minimum f = 0 at (1, 1).
//   Hock-Schittkowski 71 (W. Hock, K. Schittkowski, Test Examples for
//   Nonlinear Programming Codes, Springer 1981, problem 71):
//     min x1 x4 (x1 + x2 + x3) + x3
//     s.t. x1 x2 x3 x4 >= 25,  x1^2 + x2^2 + x3^2 + x4^2 = 40,  1 <= x <= 5,
//     x0 = (1, 5, 5, 1);  f* = 17.0140173,
//     x* = (1, 4.7429994, 3.8211503, 1.3794082).
//   NLopt's tutorial problem (NLopt documentation, "NLopt Tutorial"):
//     min sqrt(x2)  s.t.  x2 >= (2 x1)^3,  x2 >= (1 - x1)^3,  x2 >= 0,
//     x0 = (1.234, 5.678);  x* = (1/3, 8/27), f* = sqrt(8/27) = 0.544331054
//     (the two cubics cross at 2 x1 = 1 - x1).
#pragma once

#include <cmath>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

#include <camber/autodiff/functional.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/core/tensor.hpp>

namespace camber::test {

namespace ad = camber::ad;
namespace opt = camber::opt;

using ScalarOfVector = std::function<ad::Var(const ad::Var&)>;

// f(x) and its gradient, one forward and one reverse pass.
inline std::pair<double, std::vector<double>> value_and_gradient(const ScalarOfVector& f,
                                                                 const std::vector<double>& x) {
  const ad::Var v = ad::variable(Tensor::from_host({static_cast<index_t>(x.size())}, x));
  const ad::ValueAndGrad r = ad::value_and_grad(f, v);
  return {r.value.item(), r.grads[0].value().to_vector()};
}

// x[i] as a scalar Var.
inline ad::Var at(const ad::Var& x, index_t i) { return ad::sum(ad::slice(x, 0, i, i + 1)); }

inline ad::Var rosenbrock(const ad::Var& x) {
  const ad::Var x1 = at(x, 0), x2 = at(x, 1);
  return 100.0 * ad::square(x2 - ad::square(x1)) + ad::square(1.0 - x1);
}

inline opt::Evaluation rosenbrock_evaluation(const std::vector<double>& x) {
  opt::Evaluation e;
  std::tie(e.objective, e.objective_gradient) = value_and_gradient(rosenbrock, x);
  return e;
}

inline opt::Problem rosenbrock_problem() {
  opt::Problem p;
  p.x0 = {-1.2, 1.0};
  p.evaluate = rosenbrock_evaluation;
  return p;
}

const std::vector<double> hs71_x_star = {1.0, 4.7429994, 3.8211503, 1.3794082};
constexpr double hs71_f_star = 17.0140173;

inline ad::Var hs71_objective(const ad::Var& x) {
  const ad::Var x1 = at(x, 0), x2 = at(x, 1), x3 = at(x, 2), x4 = at(x, 3);
  return x1 * x4 * (x1 + x2 + x3) + x3;
}
// x1 x2 x3 x4 >= 25 as g = 25 - x1 x2 x3 x4 <= 0.
inline ad::Var hs71_product(const ad::Var& x) {
  return 25.0 - at(x, 0) * at(x, 1) * at(x, 2) * at(x, 3);
}
// h = |x|^2 - 40.
inline ad::Var hs71_sphere(const ad::Var& x) { return ad::sum(ad::square(x)) - 40.0; }

inline opt::Evaluation hs71_evaluation(const std::vector<double>& x) {
  opt::Evaluation e;
  std::tie(e.objective, e.objective_gradient) = value_and_gradient(hs71_objective, x);
  auto [g, dg] = value_and_gradient(hs71_product, x);
  auto [h, dh] = value_and_gradient(hs71_sphere, x);
  e.inequality = {g};
  e.inequality_gradients = {dg};
  e.equality = {h};
  e.equality_gradients = {dh};
  return e;
}

inline opt::Problem hs71_problem() {
  opt::Problem p;
  p.x0 = {1.0, 5.0, 5.0, 1.0};
  p.lower = {1.0, 1.0, 1.0, 1.0};
  p.upper = {5.0, 5.0, 5.0, 5.0};
  p.n_inequality = 1;
  p.n_equality = 1;
  p.evaluate = [](const std::vector<double>& x) { return hs71_evaluation(x); };
  return p;
}

inline ad::Var tutorial_objective(const ad::Var& x) { return ad::sqrt(at(x, 1)); }
// (a x1 + b)^3 - x2 <= 0.
inline ad::Var tutorial_cubic(const ad::Var& x, double a, double b) {
  return ad::pow(a * at(x, 0) + b, 3.0) - at(x, 1);
}

inline opt::Problem tutorial_problem() {
  opt::Problem p;
  p.x0 = {1.234, 5.678};
  p.lower = {-HUGE_VAL, 0.0};
  p.n_inequality = 2;
  p.evaluate = [](const std::vector<double>& x) {
    opt::Evaluation e;
    std::tie(e.objective, e.objective_gradient) = value_and_gradient(tutorial_objective, x);
    for (auto [a, b] : {std::pair{2.0, 0.0}, std::pair{-1.0, 1.0}}) {
      auto [g, dg] = value_and_gradient(
          [a = a, b = b](const ad::Var& v) { return tutorial_cubic(v, a, b); }, x);
      e.inequality.push_back(g);
      e.inequality_gradients.push_back(dg);
    }
    return e;
  };
  return p;
}
const std::vector<double> tutorial_x_star = {1.0 / 3.0, 8.0 / 27.0};
const double tutorial_f_star = std::sqrt(8.0 / 27.0);

inline double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return a.size() == b.size() ? d : HUGE_VAL;
}

}  // namespace camber::test
