// Central differences for derivative tests: one way to difference a
// function, so that every check against finite differences reads the same.
//
//   f'(x) ~ (f(x + h) - f(x - h)) / 2h,  error h^2 |f'''| / 6 + eps |f| / h.
//
//   const double h = 1e-6;
//   const std::vector<double> g = central_gradient(f, x, h);      // f: x -> double
//   const auto J = central_jacobian(F, x, h);                      // J[i][k] = dF_i/dx_k
//   const double dv = directional_difference(f, x, v, h);         // grad f . v
//   const Tensor hv = central_difference(grad_along_v, 0.0, h);    // any t -> value
//
// f may be any callable. Its value may be a double, a std::vector<double>
// (differenced entry by entry) or a type with -= and *= (camber::Tensor).
// x may be a std::vector<double>, a std::array or a C array: f is called
// with a copy of x's type, moved by +-h in one entry (or along v). A step h
// is one double, or one per entry of x (h[k]). Each difference costs two
// evaluations of f and nothing else: tolerances, and which entries to
// check, stay with the test. For opt::Evaluation, check_central_differences
// in tests/solvers/aero/aero_test_utils.hpp asserts every gradient at once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace camber::test {

namespace detail {

// (p - m) / 2h for the values f may return.
inline double quotient(double p, double m, double h) { return (p - m) / (2 * h); }

inline std::vector<double> quotient(std::vector<double> p, const std::vector<double>& m, double h) {
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = (p[i] - m[i]) / (2 * h);
  return p;
}

template <class R>
R quotient(R p, const R& m, double h) {
  p -= m;
  p *= 1.0 / (2.0 * h);
  return p;
}

// A mutable copy of x that f accepts as x's own type (C arrays included).
template <class X>
struct Copy {
  X v;
  explicit Copy(const X& x) : v(x) {}
};

template <class T, std::size_t N>
struct Copy<T[N]> {
  T v[N];
  explicit Copy(const T (&x)[N]) { std::copy(x, x + N, v); }
};

inline double step(double h, std::size_t) { return h; }
inline double step(const std::vector<double>& h, std::size_t k) { return h[k]; }

}  // namespace detail

// (f(x + h) - f(x - h)) / 2h for f of one double; f(x + h) is called first.
template <class F>
auto central_difference(F&& f, double x, double h) {
  auto plus = f(x + h);  // in this order: a solve may warm-start from the last
  const auto minus = f(x - h);
  return detail::quotient(std::move(plus), minus, h);
}

// df/dx_k at x: f of x with entry k moved by +-h.
template <class F, class X>
auto central_partial(F&& f, const X& x, std::size_t k, double h) {
  return central_difference(
      [&](double t) {
        detail::Copy<X> y(x);
        y.v[k] += t;
        return f(y.v);
      },
      0.0, h);
}

// d/dt f(x + t v) at t = 0, i.e. the derivative of f at x along v.
template <class F, class X, class V>
auto directional_difference(F&& f, const X& x, const V& v, double h) {
  return central_difference(
      [&](double t) {
        detail::Copy<X> y(x);
        for (std::size_t i = 0; i < std::size(y.v); ++i) y.v[i] += t * v[i];
        return f(y.v);
      },
      0.0, h);
}

// Every partial of f at x: entry k is df/dx_k with step h (or h[k]). For a
// scalar f this is its gradient; for a vector f, entry k is the column dF/dx_k.
template <class F, class X, class H>
auto central_partials(F&& f, const X& x, const H& h) {
  std::vector<decltype(central_partial(f, x, 0, 0.0))> d;
  for (std::size_t k = 0; k < std::size(x); ++k) d.push_back(central_partial(f, x, k, detail::step(h, k)));
  return d;
}

// The gradient of a scalar f at x, step h (or h[k] in entry k).
template <class F, class X, class H>
std::vector<double> central_gradient(F&& f, const X& x, const H& h) {
  return central_partials(f, x, h);
}

// The Jacobian of a std::vector<double>-valued f at x by rows, one per
// value: J[i][k] = dF_i/dx_k, step h (or h[k] in entry k).
template <class F, class X, class H>
std::vector<std::vector<double>> central_jacobian(F&& f, const X& x, const H& h) {
  const std::vector<std::vector<double>> columns = central_partials(f, x, h);
  std::vector<std::vector<double>> rows(columns.empty() ? 0 : columns[0].size(),
                                        std::vector<double>(columns.size()));
  for (std::size_t k = 0; k < columns.size(); ++k)
    for (std::size_t i = 0; i < rows.size() && i < columns[k].size(); ++i) rows[i][k] = columns[k][i];
  return rows;
}

}  // namespace camber::test
