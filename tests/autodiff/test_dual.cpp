// Tests of camber::ad::Dual and the local Jacobian/Hessian helpers.
//
// Reference values are analytic derivatives (derived in the comments) or
// central finite differences; tolerances follow from double rounding
// (~1e-16 per operation) and, for finite differences, from the truncation
// error h^2 f''' and the cancellation error eps |f| / h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <type_traits>

#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/jacobian.hpp>

#include "tests/common/central_difference.hpp"

namespace camber_test_dual {

namespace ad = camber::ad;
using ad::Dual;
using ad::make_nested_variable;
using ad::make_variable;

using D1 = Dual<double, 1>;
using D2 = Dual<double, 2>;
using D3 = Dual<double, 3>;
using DD1 = Dual<Dual<double, 1>, 1>;             // second derivative
using DD2 = Dual<Dual<double, 2>, 2>;             // Hessian in 2 variables
using DDD1 = Dual<Dual<Dual<double, 1>, 1>, 1>;   // third derivative

// |actual - expected| <= tol |expected| (absolute tol where expected is 0).
::testing::AssertionResult rel_close(double actual, double expected, double tol) {
  const double scale = expected == 0.0 ? 1.0 : std::abs(expected);
  const double err = std::abs(actual - expected);
  if (err <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << std::setprecision(17) << "actual " << actual << ", expected " << expected
         << ", relative error " << err / scale << " > " << tol;
}

// ------------------------------------------------------------------ basics

TEST(Dual, TraitsAndLayout) {
  static_assert(std::is_same<ad::scalar_type_t<double>, double>::value);
  static_assert(std::is_same<ad::scalar_type_t<DD2>, double>::value);
  static_assert(std::is_same<ad::scalar_type_t<DDD1>, double>::value);
  static_assert(ad::derivative_order<double>::value == 0);
  static_assert(ad::derivative_order<D3>::value == 1);
  static_assert(ad::derivative_order<DDD1>::value == 3);
  static_assert(ad::is_dual_v<DD2> && !ad::is_dual_v<double>);
  static_assert(std::is_trivially_copyable<DD2>::value);
  static_assert(sizeof(D3) == 4 * sizeof(double));

  const D3 zero;
  EXPECT_EQ(zero.val(), 0.0);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(zero.der(i), 0.0);
  const D3 c = 2.5;  // a constant
  EXPECT_EQ(c.val(), 2.5);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(c.der(i), 0.0);

  const D3 x = make_variable<3>(1.25, 1);
  EXPECT_EQ(x.val(), 1.25);
  EXPECT_EQ(x.der(0), 0.0);
  EXPECT_EQ(x.der(1), 1.0);
  EXPECT_EQ(x.der(2), 0.0);

  // value() goes to the plain number at every depth.
  const DDD1 y = make_nested_variable<DDD1>(-0.75, 0);
  EXPECT_EQ(ad::value(y), -0.75);
  EXPECT_EQ(ad::value(2.0), 2.0);
  EXPECT_EQ(y.val().val().der(0), 1.0);
  EXPECT_EQ(y.val().der(0).val(), 1.0);
  EXPECT_EQ(y.der(0).val().val(), 1.0);
  EXPECT_EQ(y.der(0).der(0).der(0), 0.0);
}

// a = 1.5 (direction 0), b = -0.75 (direction 1).
TEST(Dual, ArithmeticWithDuals) {
  const double x = 1.5, y = -0.75;
  const D2 a = make_variable<2>(x, 0);
  const D2 b = make_variable<2>(y, 1);

  const D2 sum = a + b;
  EXPECT_EQ(sum.val(), x + y);
  EXPECT_EQ(sum.der(0), 1.0);
  EXPECT_EQ(sum.der(1), 1.0);

  const D2 diff = a - b;
  EXPECT_EQ(diff.val(), x - y);
  EXPECT_EQ(diff.der(0), 1.0);
  EXPECT_EQ(diff.der(1), -1.0);

  const D2 prod = a * b;  // d(xy) = (y, x)
  EXPECT_EQ(prod.val(), x * y);
  EXPECT_EQ(prod.der(0), y);
  EXPECT_EQ(prod.der(1), x);

  const D2 quot = a / b;  // d(x/y) = (1/y, -x/y^2)
  EXPECT_EQ(quot.val(), x / y);
  EXPECT_TRUE(rel_close(quot.der(0), 1.0 / y, 1e-15));
  EXPECT_TRUE(rel_close(quot.der(1), -x / (y * y), 1e-15));

  const D2 neg = -a;
  EXPECT_EQ(neg.val(), -x);
  EXPECT_EQ(neg.der(0), -1.0);
  EXPECT_EQ(neg.der(1), 0.0);
  const D2 pos = +b;
  EXPECT_EQ(pos.val(), y);
  EXPECT_EQ(pos.der(1), 1.0);

  // x^2 y / (x - y): a composite of the four operations.
  // d/dx = (2xy(x-y) - x^2 y) / (x-y)^2, d/dy = (x^2 (x-y) + x^2 y) / (x-y)^2.
  const D2 f = a * a * b / (a - b);
  const double d = x - y;
  EXPECT_TRUE(rel_close(f.der(0), (2 * x * y * d - x * x * y) / (d * d), 1e-15));
  EXPECT_TRUE(rel_close(f.der(1), (x * x * d + x * x * y) / (d * d), 1e-15));
}

TEST(Dual, ArithmeticWithScalarsOnEitherSide) {
  const double x = 1.5;
  const D2 a = make_variable<2>(x, 0);

  auto expect = [](const D2& r, double v, double d0) {
    EXPECT_TRUE(rel_close(r.val(), v, 1e-15));
    EXPECT_TRUE(rel_close(r.der(0), d0, 1e-15));
    EXPECT_EQ(r.der(1), 0.0);
  };
  expect(a + 2.0, x + 2, 1);
  expect(2.0 + a, x + 2, 1);
  expect(a + 2, x + 2, 1);  // int scalars too
  expect(a - 2.0, x - 2, 1);
  expect(2.0 - a, 2 - x, -1);
  expect(a * 3.0, 3 * x, 3);
  expect(3.0 * a, 3 * x, 3);
  expect(3 * a, 3 * x, 3);
  expect(a / 4.0, x / 4, 0.25);
  expect(4.0 / a, 4 / x, -4 / (x * x));  // (4/x)' = -4/x^2
  expect(1.0f * a, x, 1);                // float scalars too
}

// The scalar-type trait lets plain numbers, and Duals of an inner level,
// act as constants on a nested Dual.
TEST(Dual, NestedDualWithPlainAndInnerScalars) {
  using X = Dual<Dual<double, 1>, 2>;
  // x = 1.5 seeded in inner direction 0 and outer direction 0.
  const X x = make_variable<2>(make_variable<1>(1.5, 0), 0);

  const X twice = 2.0 * x;
  EXPECT_EQ(twice.val().val(), 3.0);
  EXPECT_EQ(twice.val().der(0), 2.0);
  EXPECT_EQ(twice.der(0).val(), 2.0);
  EXPECT_EQ(twice.der(1).val(), 0.0);
  const X also = x * 2;
  EXPECT_EQ(also.val().val(), 3.0);
  EXPECT_EQ(also.der(0).val(), 2.0);

  const X shifted = 1.0 - x / 2.0 + 3;  // 4 - x/2
  EXPECT_EQ(shifted.val().val(), 4.0 - 0.75);
  EXPECT_EQ(shifted.val().der(0), -0.5);
  EXPECT_EQ(shifted.der(0).val(), -0.5);

  // 1/x: outer d = -1/x^2 (inner value), inner d of that = 2/x^3.
  const X inv = 1.0 / x;
  EXPECT_TRUE(rel_close(inv.der(0).val(), -1 / (1.5 * 1.5), 1e-15));
  EXPECT_TRUE(rel_close(inv.der(0).der(0), 2 / (1.5 * 1.5 * 1.5), 1e-15));

  // An inner-level Dual c = 3 + 0.5 e (inner direction) is a constant for
  // the outer level: (c x).val = (4.5; 0.5*1.5 + 3*1), (c x).der(0) = c.
  const Dual<double, 1> c = [] {
    Dual<double, 1> r(3.0);
    r.der(0) = 0.5;
    return r;
  }();
  const X cx = c * x;
  EXPECT_EQ(cx.val().val(), 4.5);
  EXPECT_EQ(cx.val().der(0), 0.5 * 1.5 + 3.0);
  EXPECT_EQ(cx.der(0).val(), 3.0);
  EXPECT_EQ(cx.der(0).der(0), 0.5);
  const X xc = x * c + c - c;
  EXPECT_EQ(xc.der(0).der(0), 0.5);

  // Two levels down: a Dual<double,1> constant on a triple-nested Dual.
  const DDD1 t = make_nested_variable<DDD1>(2.0, 0);
  // With t = 2 + e1 + e2 + e3 (innermost to outer) and c = 3 + 0.5 e1:
  // 2 c t has e3-coefficient 2c = 6 + e1 and e1-coefficient 2 (0.5 t + c) = 8.
  const DDD1 ct = c * t * 2.0;
  EXPECT_EQ(ct.der(0).val().val(), 6.0);
  EXPECT_EQ(ct.der(0).val().der(0), 1.0);
  EXPECT_EQ(ct.val().val().der(0), 8.0);
  EXPECT_EQ(ct.der(0).der(0).der(0), 0.0);
}

TEST(Dual, CompoundAssignment) {
  const double x = 1.5, y = -0.75;
  const D2 b = make_variable<2>(y, 1);
  D2 a = make_variable<2>(x, 0);
  a += b;  // x + y, (1, 1)
  EXPECT_EQ(a.val(), x + y);
  EXPECT_EQ(a.der(0), 1.0);
  EXPECT_EQ(a.der(1), 1.0);
  a -= b;  // x, (1, 0)
  EXPECT_EQ(a.val(), x);
  EXPECT_EQ(a.der(1), 0.0);
  a *= b;  // xy, (y, x)
  EXPECT_EQ(a.val(), x * y);
  EXPECT_EQ(a.der(0), y);
  EXPECT_EQ(a.der(1), x);
  a /= b;  // x, (1, 0)
  EXPECT_TRUE(rel_close(a.val(), x, 1e-15));
  EXPECT_TRUE(rel_close(a.der(0), 1.0, 1e-15));
  EXPECT_TRUE(rel_close(a.der(1), 0.0, 1e-15));

  D2 s = make_variable<2>(x, 0);
  s += 2.0;
  EXPECT_EQ(s.val(), x + 2);
  EXPECT_EQ(s.der(0), 1.0);
  s -= 1;
  EXPECT_EQ(s.val(), x + 1);
  s *= 4.0;
  EXPECT_EQ(s.val(), 4 * (x + 1));
  EXPECT_EQ(s.der(0), 4.0);
  s /= 8.0;
  EXPECT_EQ(s.val(), (x + 1) / 2);
  EXPECT_EQ(s.der(0), 0.5);

  DD1 n = make_nested_variable<DD1>(x, 0);
  n *= n;  // x^2: second derivative 2
  n += 1.0;
  EXPECT_EQ(n.val().val(), x * x + 1);
  EXPECT_EQ(n.der(0).val(), 2 * x);
  EXPECT_EQ(n.der(0).der(0), 2.0);
}

// Kokkos 3.x joins reduction values through volatile references.
TEST(Dual, VolatilePlusEqualsForKokkosJoins) {
  volatile D2 acc = make_variable<2>(1.0, 0);
  const volatile D2 src = make_variable<2>(2.0, 1);
  acc += src;
  const double v = acc.val_, d0 = acc.der_[0], d1 = acc.der_[1];
  EXPECT_EQ(v, 3.0);
  EXPECT_EQ(d0, 1.0);
  EXPECT_EQ(d1, 1.0);

  volatile DD2 nacc = make_nested_variable<DD2>(1.0, 0);
  const volatile DD2 nsrc = make_nested_variable<DD2>(2.0, 1);
  nacc += nsrc;
  const double nv = nacc.val_.val_, nv1 = nacc.val_.der_[1];
  const double nd0 = nacc.der_[0].val_, nd1 = nacc.der_[1].val_, nd11 = nacc.der_[1].der_[1];
  EXPECT_EQ(nv, 3.0);
  EXPECT_EQ(nv1, 1.0);
  EXPECT_EQ(nd0, 1.0);
  EXPECT_EQ(nd1, 1.0);
  EXPECT_EQ(nd11, 0.0);
}

TEST(Dual, ComparisonsUseValuesOnly) {
  D1 a(1.0);
  a.der(0) = 5.0;
  const D1 b = make_variable<1>(2.0, 0);
  const D1 c(1.0);  // same value as a, other derivative

  EXPECT_TRUE(a == c);
  EXPECT_FALSE(a != c);
  EXPECT_TRUE(a != b);
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a < b);
  EXPECT_FALSE(b < a);
  EXPECT_FALSE(a < c);
  EXPECT_TRUE(a <= c);
  EXPECT_TRUE(a <= b);
  EXPECT_FALSE(b <= a);
  EXPECT_TRUE(b > a);
  EXPECT_FALSE(a > c);
  EXPECT_TRUE(a >= c);
  EXPECT_FALSE(a >= b);

  EXPECT_TRUE(a == 1.0);
  EXPECT_TRUE(1.0 == a);
  EXPECT_TRUE(a != 2.0);
  EXPECT_TRUE(2 != a);
  EXPECT_TRUE(a < 1.5);
  EXPECT_FALSE(1.5 < a);
  EXPECT_TRUE(a <= 1.0);
  EXPECT_TRUE(1.0 <= a);
  EXPECT_TRUE(b > 1.5);
  EXPECT_FALSE(1.5 > b);
  EXPECT_TRUE(b >= 2.0);
  EXPECT_FALSE(1.0 >= b);

  // Nested: against plain numbers and against inner-level Duals.
  const DD1 n = make_nested_variable<DD1>(3.0, 0);
  EXPECT_TRUE(n > 2.0);
  EXPECT_TRUE(n == 3.0);
  EXPECT_TRUE(b < n);   // Dual<double,1> vs Dual<Dual<double,1>,1>
  EXPECT_FALSE(n <= b);
  EXPECT_TRUE(n == D1(3.0));
}

// ------------------------------------------------------------------ math

// Checks f at each point x against the analytic f0, f1 = f', f2 = f'':
// first derivatives with Dual<double,1> and with a 3-direction Dual seeded
// (0, 1, -2); second derivatives with Dual<Dual<double,1>,1>, where both
// first-derivative slots must agree with f1.
template <class F, class F0, class F1, class F2>
void check_unary(const char* name, F f, F0 f0, F1 f1, F2 f2,
                 std::initializer_list<double> points, double tol1 = 1e-14,
                 double tol2 = 1e-13) {
  for (const double x : points) {
    SCOPED_TRACE(::testing::Message() << name << " at x = " << x);
    const D1 y = f(make_variable<1>(x, 0));
    EXPECT_TRUE(rel_close(y.val(), f0(x), 1e-15));
    EXPECT_TRUE(rel_close(y.der(0), f1(x), tol1));

    D3 x3(x);
    x3.der(1) = 1.0;
    x3.der(2) = -2.0;
    const D3 y3 = f(x3);
    EXPECT_EQ(y3.der(0), 0.0);
    EXPECT_TRUE(rel_close(y3.der(1), f1(x), tol1));
    EXPECT_TRUE(rel_close(y3.der(2), -2 * f1(x), tol1));

    const DD1 z = f(make_nested_variable<DD1>(x, 0));
    EXPECT_TRUE(rel_close(z.val().val(), f0(x), 1e-15));
    EXPECT_TRUE(rel_close(z.val().der(0), f1(x), tol1));
    EXPECT_TRUE(rel_close(z.der(0).val(), f1(x), tol1));
    EXPECT_TRUE(rel_close(z.der(0).der(0), f2(x), tol2));
  }
}

TEST(DualMath, PowersAndRoots) {
  check_unary(
      "sqrt", [](const auto& x) { return ad::sqrt(x); }, [](double x) { return std::sqrt(x); },
      [](double x) { return 0.5 / std::sqrt(x); },
      [](double x) { return -0.25 * std::pow(x, -1.5); }, {0.01, 0.3, 1.0, 2.5, 1e4});
  // cbrt' = 1 / (3 x^(2/3)), cbrt'' = -2 / (9 x^(5/3)), also for x < 0.
  check_unary(
      "cbrt", [](const auto& x) { return ad::cbrt(x); }, [](double x) { return std::cbrt(x); },
      [](double x) { return 1.0 / (3.0 * std::cbrt(x * x)); },
      [](double x) { return -2.0 / (9.0 * x * std::cbrt(x * x)); }, {-8.0, -0.5, 0.2, 1.0, 27.0});
  check_unary(
      "pow(x, 2.5)", [](const auto& x) { return ad::pow(x, 2.5); },
      [](double x) { return std::pow(x, 2.5); }, [](double x) { return 2.5 * std::pow(x, 1.5); },
      [](double x) { return 3.75 * std::sqrt(x); }, {0.2, 1.0, 3.0});
  check_unary(
      "pow(x, 3)", [](const auto& x) { return ad::pow(x, 3); },
      [](double x) { return x * x * x; }, [](double x) { return 3 * x * x; },
      [](double x) { return 6 * x; }, {-1.5, 0.0, 0.5, 2.0});
  check_unary(
      "pow(x, -0.5)", [](const auto& x) { return ad::pow(x, -0.5); },
      [](double x) { return 1 / std::sqrt(x); }, [](double x) { return -0.5 * std::pow(x, -1.5); },
      [](double x) { return 0.75 * std::pow(x, -2.5); }, {0.3, 1.0, 4.0});
  // (2^x)' = 2^x ln 2, (2^x)'' = 2^x ln^2 2.
  const double ln2 = std::log(2.0);
  check_unary(
      "pow(2, x)", [](const auto& x) { return ad::pow(2.0, x); },
      [](double x) { return std::pow(2.0, x); },
      [ln2](double x) { return std::pow(2.0, x) * ln2; },
      [ln2](double x) { return std::pow(2.0, x) * ln2 * ln2; }, {-1.0, 0.0, 1.5, 10.0});
}

TEST(DualMath, ExpAndLog) {
  check_unary(
      "exp", [](const auto& x) { return ad::exp(x); }, [](double x) { return std::exp(x); },
      [](double x) { return std::exp(x); }, [](double x) { return std::exp(x); },
      {-3.0, 0.0, 0.7, 5.0});
  check_unary(
      "log", [](const auto& x) { return ad::log(x); }, [](double x) { return std::log(x); },
      [](double x) { return 1 / x; }, [](double x) { return -1 / (x * x); },
      {0.1, 1.0, 2.5, 100.0});
}

TEST(DualMath, Trigonometric) {
  check_unary(
      "sin", [](const auto& x) { return ad::sin(x); }, [](double x) { return std::sin(x); },
      [](double x) { return std::cos(x); }, [](double x) { return -std::sin(x); },
      {-2.0, 0.0, 0.5, 3.0});
  check_unary(
      "cos", [](const auto& x) { return ad::cos(x); }, [](double x) { return std::cos(x); },
      [](double x) { return -std::sin(x); }, [](double x) { return -std::cos(x); },
      {-2.0, 0.0, 0.5, 3.0});
  // tan' = 1/cos^2, tan'' = 2 sin / cos^3.
  check_unary(
      "tan", [](const auto& x) { return ad::tan(x); }, [](double x) { return std::tan(x); },
      [](double x) { return 1 / (std::cos(x) * std::cos(x)); },
      [](double x) { return 2 * std::sin(x) / std::pow(std::cos(x), 3); },
      {-1.2, 0.0, 0.4, 1.0});
}

TEST(DualMath, Hyperbolic) {
  check_unary(
      "sinh", [](const auto& x) { return ad::sinh(x); }, [](double x) { return std::sinh(x); },
      [](double x) { return std::cosh(x); }, [](double x) { return std::sinh(x); },
      {-2.0, 0.0, 0.8, 3.0});
  check_unary(
      "cosh", [](const auto& x) { return ad::cosh(x); }, [](double x) { return std::cosh(x); },
      [](double x) { return std::sinh(x); }, [](double x) { return std::cosh(x); },
      {-2.0, 0.0, 0.8, 3.0});
  // tanh' = 1/cosh^2, tanh'' = -2 tanh / cosh^2. At |x| = 25 the derivative
  // (~8e-22) must keep its relative accuracy (1 - tanh^2 would give 0).
  check_unary(
      "tanh", [](const auto& x) { return ad::tanh(x); }, [](double x) { return std::tanh(x); },
      [](double x) { return 1 / (std::cosh(x) * std::cosh(x)); },
      [](double x) { return -2 * std::tanh(x) / (std::cosh(x) * std::cosh(x)); },
      {-25.0, -1.0, 0.0, 0.5, 3.0, 25.0});
}

TEST(DualMath, AbsAwayFromZero) {
  auto sign = [](double x) { return x < 0 ? -1.0 : 1.0; };
  check_unary(
      "abs", [](const auto& x) { return ad::abs(x); }, [](double x) { return std::abs(x); },
      sign, [](double) { return 0.0; }, {-3.0, -0.5, 0.5, 2.0});
  check_unary(
      "fabs", [](const auto& x) { return ad::fabs(x); }, [](double x) { return std::abs(x); },
      sign, [](double) { return 0.0; }, {-3.0, 0.5});
}

// Gradient (Dual<double,2>) and Hessian (Dual<Dual<double,2>,2>) of f(x, y)
// against analytic partials.
struct Partials {
  double f, fx, fy, fxx, fxy, fyy;
};
template <class F>
void check_binary(const char* name, F f, double x, double y, const Partials& p,
                  double tol = 1e-14) {
  SCOPED_TRACE(::testing::Message() << name << " at (" << x << ", " << y << ")");
  const D2 r = f(make_variable<2>(x, 0), make_variable<2>(y, 1));
  EXPECT_TRUE(rel_close(r.val(), p.f, 1e-15));
  EXPECT_TRUE(rel_close(r.der(0), p.fx, tol));
  EXPECT_TRUE(rel_close(r.der(1), p.fy, tol));

  const DD2 h = f(make_nested_variable<DD2>(x, 0), make_nested_variable<DD2>(y, 1));
  EXPECT_TRUE(rel_close(h.val().val(), p.f, 1e-15));
  EXPECT_TRUE(rel_close(h.val().der(0), p.fx, tol));
  EXPECT_TRUE(rel_close(h.der(1).val(), p.fy, tol));
  // Second derivatives to 10 tol relative to the largest Hessian entry: an
  // entry that is a cancellation of larger terms (hypot's a^2/h^3 for
  // |a| << |b| is (1 - (b/h)^2)/h) is only accurate to that scale.
  const double scale = std::max({std::abs(p.fxx), std::abs(p.fxy), std::abs(p.fyy), 1e-300});
  EXPECT_NEAR(h.der(0).der(0), p.fxx, 10 * tol * scale);
  EXPECT_NEAR(h.der(0).der(1), p.fxy, 10 * tol * scale);
  EXPECT_NEAR(h.der(1).der(0), p.fxy, 10 * tol * scale);
  EXPECT_NEAR(h.der(1).der(1), p.fyy, 10 * tol * scale);

  // With one argument a plain number: the other's partial alone.
  const D1 rx = f(make_variable<1>(x, 0), y);
  const D1 ry = f(x, make_variable<1>(y, 0));
  EXPECT_TRUE(rel_close(rx.val(), p.f, 1e-15));
  EXPECT_TRUE(rel_close(rx.der(0), p.fx, tol));
  EXPECT_TRUE(rel_close(ry.der(0), p.fy, tol));
}

TEST(DualMath, PowOfTwoDuals) {
  // f = x^y: fx = y x^(y-1), fy = x^y ln x, fxx = y(y-1) x^(y-2),
  // fxy = x^(y-1) (1 + y ln x), fyy = x^y ln^2 x.
  auto f = [](const auto& a, const auto& b) { return ad::pow(a, b); };
  for (const auto& xy : {std::pair<double, double>{0.5, 1.5}, {2.0, -0.7}, {3.0, 2.0}}) {
    const double x = xy.first, y = xy.second, l = std::log(x);
    const double v = std::pow(x, y);
    check_binary("pow", f, x, y,
                 {v, y * std::pow(x, y - 1), v * l, y * (y - 1) * std::pow(x, y - 2),
                  std::pow(x, y - 1) * (1 + y * l), v * l * l});
  }
}

TEST(DualMath, Atan2InEveryQuadrant) {
  // f = atan2(y, x) with arguments (a, b) = (y, x), r2 = a^2 + b^2:
  // fa = b/r2, fb = -a/r2, faa = -2ab/r2^2, fab = (a^2 - b^2)/r2^2, fbb = 2ab/r2^2.
  auto f = [](const auto& a, const auto& b) { return ad::atan2(a, b); };
  for (const auto& ab :
       {std::pair<double, double>{1.0, 2.0}, {1.0, -0.5}, {-3.0, -1.0}, {-0.1, 2.0}}) {
    const double a = ab.first, b = ab.second, r2 = a * a + b * b;
    check_binary("atan2", f, a, b,
                 {std::atan2(a, b), b / r2, -a / r2, -2 * a * b / (r2 * r2),
                  (a * a - b * b) / (r2 * r2), 2 * a * b / (r2 * r2)});
  }
}

TEST(DualMath, Hypot) {
  // h = sqrt(a^2 + b^2): ha = a/h, hb = b/h, haa = b^2/h^3, hab = -ab/h^3,
  // hbb = a^2/h^3.
  auto f = [](const auto& a, const auto& b) { return ad::hypot(a, b); };
  for (const auto& ab : {std::pair<double, double>{3.0, 4.0}, {-1e-3, 2.0}, {-2.5, -0.5}}) {
    const double a = ab.first, b = ab.second, h = std::hypot(a, b), h3 = h * h * h;
    check_binary("hypot", f, a, b, {h, a / h, b / h, b * b / h3, -a * b / h3, a * a / h3});
  }
}

TEST(DualMath, MinMaxAwayFromTies) {
  // min/max select one argument: the gradient is that argument's seed.
  auto fmin = [](const auto& a, const auto& b) { return ad::min(a, b); };
  auto fmax = [](const auto& a, const auto& b) { return ad::max(a, b); };
  check_binary("min", fmin, 1.0, 2.0, {1.0, 1.0, 0.0, 0.0, 0.0, 0.0});
  check_binary("min", fmin, 2.0, -1.0, {-1.0, 0.0, 1.0, 0.0, 0.0, 0.0});
  check_binary("max", fmax, 1.0, 2.0, {2.0, 0.0, 1.0, 0.0, 0.0, 0.0});
  check_binary("max", fmax, 2.0, -1.0, {2.0, 1.0, 0.0, 0.0, 0.0, 0.0});
  // Selection keeps higher derivatives: max(x^2, y) at x = 2 > y.
  const DD2 x = make_nested_variable<DD2>(2.0, 0);
  const DD2 y = make_nested_variable<DD2>(1.0, 1);
  const DD2 m = ad::max(x * x, y);
  EXPECT_EQ(m.der(0).der(0), 2.0);
  EXPECT_EQ(m.der(1).der(1), 0.0);
}

// f(x) = exp(sin x): f' = cos x e^s, f'' = (cos^2 x - sin x) e^s,
// f''' = (cos^3 x - 3 sin x cos x - cos x) e^s, with s = sin x.
// f(x) = x^3 log x: f''' = 6 log x + 11.
TEST(DualMath, ThirdDerivativeByTripleNesting) {
  for (const double x0 : {-1.3, 0.0, 0.7, 2.0}) {
    SCOPED_TRACE(::testing::Message() << "exp(sin x) at x = " << x0);
    const DDD1 x = make_nested_variable<DDD1>(x0, 0);
    const DDD1 y = exp(sin(x));  // ADL
    const double s = std::sin(x0), c = std::cos(x0), e = std::exp(s);
    const double d1 = c * e, d2 = (c * c - s) * e, d3 = (c * c * c - 3 * s * c - c) * e;
    EXPECT_TRUE(rel_close(y.val().val().val(), e, 1e-15));
    EXPECT_TRUE(rel_close(y.val().val().der(0), d1, 1e-14));
    EXPECT_TRUE(rel_close(y.val().der(0).val(), d1, 1e-14));
    EXPECT_TRUE(rel_close(y.der(0).val().val(), d1, 1e-14));
    EXPECT_TRUE(rel_close(y.val().der(0).der(0), d2, 1e-13));
    EXPECT_TRUE(rel_close(y.der(0).val().der(0), d2, 1e-13));
    EXPECT_TRUE(rel_close(y.der(0).der(0).val(), d2, 1e-13));
    EXPECT_TRUE(rel_close(y.der(0).der(0).der(0), d3, 1e-13));
  }
  for (const double x0 : {0.5, 1.0, 3.0}) {
    SCOPED_TRACE(::testing::Message() << "x^3 log x at x = " << x0);
    const DDD1 x = make_nested_variable<DDD1>(x0, 0);
    const DDD1 y = x * x * x * log(x);
    EXPECT_TRUE(rel_close(y.der(0).der(0).val(), 6 * x0 * std::log(x0) + 5 * x0, 1e-13));
    EXPECT_TRUE(rel_close(y.der(0).der(0).der(0), 6 * std::log(x0) + 11, 1e-13));
  }
}

// ------------------------------------------------------------------ kinks

TEST(DualKinks, AbsAtZeroHasZeroDerivative) {
  for (const double z : {0.0, -0.0}) {
    const D2 a = ad::abs(make_variable<2>(z, 0));
    EXPECT_EQ(a.val(), 0.0);
    EXPECT_FALSE(std::signbit(a.val()));
    EXPECT_EQ(a.der(0), 0.0);
    EXPECT_EQ(a.der(1), 0.0);
    const DD1 b = ad::fabs(make_nested_variable<DD1>(z, 0));
    EXPECT_EQ(b.val().der(0), 0.0);
    EXPECT_EQ(b.der(0).val(), 0.0);
    EXPECT_EQ(b.der(0).der(0), 0.0);
  }
  // The kink of |x - y| on the diagonal: zero gradient.
  const D2 d = ad::abs(make_variable<2>(1.25, 0) - make_variable<2>(1.25, 1));
  EXPECT_EQ(d.der(0), 0.0);
  EXPECT_EQ(d.der(1), 0.0);
  // NaN passes through.
  EXPECT_TRUE(std::isnan(ad::abs(D1(std::nan(""))).val()));
}

TEST(DualKinks, MinMaxTieTakesFirstArgument) {
  const D2 a = make_variable<2>(1.0, 0);
  const D2 b = make_variable<2>(1.0, 1);
  EXPECT_EQ(ad::min(a, b).der(0), 1.0);
  EXPECT_EQ(ad::min(a, b).der(1), 0.0);
  EXPECT_EQ(ad::min(b, a).der(0), 0.0);
  EXPECT_EQ(ad::min(b, a).der(1), 1.0);
  EXPECT_EQ(ad::max(a, b).der(0), 1.0);
  EXPECT_EQ(ad::max(a, b).der(1), 0.0);
  EXPECT_EQ(ad::max(b, a).der(1), 1.0);
  // With a plain number on one side the first argument still wins.
  EXPECT_EQ(ad::min(a, 1.0).der(0), 1.0);
  EXPECT_EQ(ad::min(1.0, a).der(0), 0.0);
  EXPECT_EQ(ad::max(a, 1.0).der(0), 1.0);
  EXPECT_EQ(ad::max(1.0, a).der(0), 0.0);
  // Away from the tie the smaller/larger one is taken.
  EXPECT_EQ(ad::min(a, 2.0).der(0), 1.0);
  EXPECT_EQ(ad::min(a, 0.5).der(0), 0.0);
  EXPECT_EQ(ad::min(a, 0.5).val(), 0.5);
  EXPECT_EQ(ad::max(3.0, a).val(), 3.0);
  EXPECT_EQ(ad::max(3.0, a).der(0), 0.0);
}

TEST(DualKinks, SqrtAndCbrtAtZeroAreInfinite) {
  const double inf = std::numeric_limits<double>::infinity();
  const D2 s = ad::sqrt(make_variable<2>(0.0, 0));
  EXPECT_EQ(s.val(), 0.0);
  EXPECT_EQ(s.der(0), inf);
  EXPECT_TRUE(std::isnan(s.der(1)));  // 0 * inf in the unseeded direction
  const D1 c = ad::cbrt(make_variable<1>(0.0, 0));
  EXPECT_EQ(c.val(), 0.0);
  EXPECT_EQ(c.der(0), inf);
}

TEST(DualKinks, PowSpecialCases) {
  // pow(x, 0) is the constant 1, also at x = 0.
  for (const double x : {0.0, 2.0}) {
    const DD1 p = ad::pow(make_nested_variable<DD1>(x, 0), 0.0);
    EXPECT_EQ(p.val().val(), 1.0);
    EXPECT_EQ(p.val().der(0), 0.0);
    EXPECT_EQ(p.der(0).val(), 0.0);
    EXPECT_EQ(p.der(0).der(0), 0.0);
  }
  // pow(x, 1) at 0 has derivative 1; pow(x, 2) at 0 has derivative 0.
  EXPECT_EQ(ad::pow(make_variable<1>(0.0, 0), 1.0).der(0), 1.0);
  EXPECT_EQ(ad::pow(make_variable<1>(0.0, 0), 2).der(0), 0.0);
  // A zero base: 0^y = 0 for y > 0, derivative 0.
  const D1 q = ad::pow(0.0, make_variable<1>(2.0, 0));
  EXPECT_EQ(q.val(), 0.0);
  EXPECT_EQ(q.der(0), 0.0);
  // pow(x, y) at x = 0, y = 2: d/dx = 2*0 = 0 and d/dy = 0 (not 0 * log 0).
  const D2 r = ad::pow(make_variable<2>(0.0, 0), make_variable<2>(2.0, 1));
  EXPECT_EQ(r.val(), 0.0);
  EXPECT_EQ(r.der(0), 0.0);
  EXPECT_EQ(r.der(1), 0.0);
}

TEST(DualKinks, Atan2AndHypotAtOriginAreNaN) {
  const D2 t = ad::atan2(make_variable<2>(0.0, 0), make_variable<2>(0.0, 1));
  EXPECT_EQ(t.val(), 0.0);
  EXPECT_TRUE(std::isnan(t.der(0)));
  EXPECT_TRUE(std::isnan(t.der(1)));
  const D2 h = ad::hypot(make_variable<2>(0.0, 0), make_variable<2>(0.0, 1));
  EXPECT_EQ(h.val(), 0.0);
  EXPECT_TRUE(std::isnan(h.der(0)));
}

// ------------------------------------------------------------------ helpers

// f(x, y, z) = x y^2 + sin(z) e^x / (1 + y^2) - z / x:
// fx = y^2 + sin z e^x / (1 + y^2) + z / x^2
// fy = 2 x y - 2 y sin z e^x / (1 + y^2)^2
// fz = cos z e^x / (1 + y^2) - 1 / x
struct ThreeVariable {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(const T (&v)[3]) const {
    const T& x = v[0];
    const T& y = v[1];
    const T& z = v[2];
    return x * y * y + ad::sin(z) * ad::exp(x) / (1 + y * y) - z / x;
  }
};

TEST(DualHelpers, GradientOfThreeVariableFunction) {
  const double x = 0.8, y = -1.2, z = 2.1;
  const double q = 1 + y * y, e = std::exp(x);
  const double fx = y * y + std::sin(z) * e / q + z / (x * x);
  const double fy = 2 * x * y - 2 * y * std::sin(z) * e / (q * q);
  const double fz = std::cos(z) * e / q - 1 / x;

  // By hand: three directions at once.
  const D3 v[3] = {make_variable<3>(x, 0), make_variable<3>(y, 1), make_variable<3>(z, 2)};
  const D3 f = ThreeVariable{}(v);
  EXPECT_TRUE(rel_close(f.der(0), fx, 1e-14));
  EXPECT_TRUE(rel_close(f.der(1), fy, 1e-14));
  EXPECT_TRUE(rel_close(f.der(2), fz, 1e-14));

  // Through the helper, which must give the same numbers.
  const double p[3] = {x, y, z};
  double g[3];
  const double s = ad::gradient(ThreeVariable{}, p, g);
  EXPECT_EQ(s, f.val());
  EXPECT_TRUE(rel_close(s, x * y * y + std::sin(z) * e / q - z / x, 1e-15));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(g[i], f.der(i));
}

// x-direction flux of the 2-D Euler equations, U = (rho, rho u, rho v, E),
// p = (gamma - 1) (E - rho (u^2 + v^2) / 2).
struct EulerFluxX {
  double gamma;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(const T (&U)[4], T (&F)[4]) const {
    const T u = U[1] / U[0];
    const T v = U[2] / U[0];
    const T p = (gamma - 1) * (U[3] - 0.5 * (U[1] * u + U[2] * v));
    F[0] = U[1];
    F[1] = U[1] * u + p;
    F[2] = U[1] * v;
    F[3] = u * (U[3] + p);
  }
};

// The textbook flux Jacobian dF/dU (e.g. Toro, Riemann Solvers, sec. 3.2),
// with q2 = u^2 + v^2 and enthalpy H = (E + p) / rho.
void euler_jacobian_analytic(const double (&U)[4], double gamma, double (&F)[4],
                             double (&A)[4][4]) {
  const double rho = U[0], u = U[1] / rho, v = U[2] / rho, E = U[3];
  const double q2 = u * u + v * v, g1 = gamma - 1;
  const double p = g1 * (E - 0.5 * rho * q2), H = (E + p) / rho;
  F[0] = rho * u;
  F[1] = rho * u * u + p;
  F[2] = rho * u * v;
  F[3] = u * (E + p);
  const double rows[4][4] = {
      {0, 1, 0, 0},
      {0.5 * g1 * q2 - u * u, (3 - gamma) * u, -g1 * v, g1},
      {-u * v, v, u, 0},
      {u * (0.5 * g1 * q2 - H), H - g1 * u * u, -g1 * u * v, gamma * u}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) A[i][j] = rows[i][j];
}

// A smooth family of subsonic and supersonic states, one per index.
void euler_state(int i, double gamma, double (&U)[4]) {
  const double rho = 1.0 + 0.5 * std::sin(0.37 * i);
  const double u = 1.5 * std::cos(0.71 * i), v = 0.4 * std::sin(1.3 * i);
  const double p = 1.0 + 0.3 * std::cos(0.23 * i);
  U[0] = rho;
  U[1] = rho * u;
  U[2] = rho * v;
  U[3] = p / (gamma - 1) + 0.5 * rho * (u * u + v * v);
}

TEST(DualHelpers, JacobianOfEulerFlux) {
  const double gamma = 1.4;
  for (int i = 0; i < 20; ++i) {
    SCOPED_TRACE(::testing::Message() << "state " << i);
    double U[4], F[4], J[4][4], F_ref[4], A[4][4];
    euler_state(i, gamma, U);
    ad::jacobian(EulerFluxX{gamma}, U, F, J);
    euler_jacobian_analytic(U, gamma, F_ref, A);
    for (int m = 0; m < 4; ++m) {
      EXPECT_TRUE(rel_close(F[m], F_ref[m], 1e-14));
      // Entries are O(1) and some are differences of O(1) terms: absolute
      // error ~ a few eps relative to the row.
      for (int n = 0; n < 4; ++n)
        EXPECT_NEAR(J[m][n], A[m][n], 1e-14 * (4 + std::abs(A[m][n]))) << m << "," << n;
    }
  }
}

// Rosenbrock in 3 variables, f = sum_{i<2} 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2.
struct Rosenbrock3 {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(const T (&x)[3]) const {
    T f = 0.0;
    for (int i = 0; i < 2; ++i) {
      const T a = x[i + 1] - x[i] * x[i];
      const T b = 1.0 - x[i];
      f += 100.0 * a * a + b * b;
    }
    return f;
  }
};

// g_i = [i<2] (-400 x_i (x_{i+1} - x_i^2) - 2 (1 - x_i)) + [i>0] 200 (x_i - x_{i-1}^2)
// H_ii = [i<2] (1200 x_i^2 - 400 x_{i+1} + 2) + [i>0] 200, H_{i,i+1} = -400 x_i.
void rosenbrock3_analytic(const double (&x)[3], double& f, double (&g)[3], double (&H)[3][3]) {
  f = 0;
  for (int i = 0; i < 3; ++i) {
    g[i] = 0;
    for (int j = 0; j < 3; ++j) H[i][j] = 0;
  }
  for (int i = 0; i < 2; ++i) {
    const double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
    f += 100 * a * a + b * b;
    g[i] += -400 * x[i] * a - 2 * b;
    g[i + 1] += 200 * a;
    H[i][i] += 1200 * x[i] * x[i] - 400 * x[i + 1] + 2;
    H[i + 1][i + 1] += 200;
    H[i][i + 1] = H[i + 1][i] = -400 * x[i];
  }
}

TEST(DualHelpers, HessianOfRosenbrock) {
  const double points[][3] = {{1, 1, 1}, {-1.2, 1.0, 0.5}, {0.3, -0.7, 2.0}};
  for (const auto& x : points) {
    SCOPED_TRACE(::testing::Message() << "x = " << x[0] << ", " << x[1] << ", " << x[2]);
    double g[3], H[3][3], f_ref, g_ref[3], H_ref[3][3];
    const double f = ad::hessian(Rosenbrock3{}, x, g, H);
    rosenbrock3_analytic(x, f_ref, g_ref, H_ref);
    EXPECT_TRUE(rel_close(f, f_ref, 1e-14));
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(g[i], g_ref[i], 1e-13 * (1 + std::abs(g_ref[i])));
      for (int j = 0; j < 3; ++j) {
        EXPECT_NEAR(H[i][j], H_ref[i][j], 1e-13 * (1 + std::abs(H_ref[i][j])));
        EXPECT_EQ(H[i][j], H[j][i]);
      }
    }
    // The documented promise: the same gradient as gradient() gives.
    double g1[3];
    EXPECT_EQ(ad::gradient(Rosenbrock3{}, x, g1), f);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(g1[i], g[i]);
  }
  // 2-D Rosenbrock at its minimum (1, 1): H = [[802, -400], [-400, 200]].
  const double x2[2] = {1.0, 1.0};
  double g2[2], H2[2][2];
  const double f2 = ad::hessian(
      [](const auto& x) {
        const auto a = x[1] - x[0] * x[0];
        const auto b = 1.0 - x[0];
        return 100.0 * a * a + b * b;
      },
      x2, g2, H2);
  EXPECT_EQ(f2, 0.0);
  EXPECT_EQ(g2[0], 0.0);
  EXPECT_EQ(g2[1], 0.0);
  EXPECT_EQ(H2[0][0], 802.0);
  EXPECT_EQ(H2[0][1], -400.0);
  EXPECT_EQ(H2[1][0], -400.0);
  EXPECT_EQ(H2[1][1], 200.0);
}

// Every operation and math function in one expression, so that a wrong
// rule anywhere shows up against central differences, which share no code
// with the derivative rules.
struct Composite {
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(const T (&v)[3]) const {
    const T& x = v[0];
    const T& y = v[1];
    const T& z = v[2];
    T f = ad::atan2(y, ad::hypot(x, z)) * ad::exp(-x * x);
    f += ad::pow(y, 2.5) / (1 + z * z) + ad::tanh(x * y) * ad::cbrt(z);
    f -= ad::log(x + y) * ad::sqrt(z) + ad::pow(z, x) + ad::pow(1.7, y * z);
    f += ad::sin(x) * ad::cos(y) / ad::tan(z) + ad::abs(x - y);
    f *= 1.0 + ad::max(x, z) * ad::min(y, z) + ad::cosh(y) - ad::sinh(z);
    f /= 2.0 + x * x;
    return f;
  }
};

TEST(DualHelpers, FiniteDifferenceCrossCheck) {
  const double points[][3] = {{0.7, 1.3, 0.4}, {0.25, 0.9, 1.6}};
  for (const auto& x : points) {
    SCOPED_TRACE(::testing::Message() << "x = " << x[0] << ", " << x[1] << ", " << x[2]);
    double g[3], H[3][3];
    const double f = ad::hessian(Composite{}, x, g, H);
    EXPECT_TRUE(rel_close(f, Composite{}(x), 1e-15));

    // Central differences, h = 1e-6: truncation h^2 f'''/6 ~ 1e-12 and
    // cancellation eps |f| / h ~ 1e-10, so 1e-8 has a wide margin.
    const double h = 1e-6;
    const std::vector<double> fd = camber::test::central_gradient(Composite{}, x, h);
    // The Hessian: central differences of the (AD) gradient.
    const auto hd = camber::test::central_jacobian(
        [](const double (&y)[3]) {
          double gy[3];
          ad::gradient(Composite{}, y, gy);
          return std::vector<double>(gy, gy + 3);
        },
        x, h);
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(g[i], fd[i], 1e-8 * (1 + std::abs(fd[i]))) << "d/dx" << i;
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(H[j][i], hd[j][i], 1e-7 * (1 + std::abs(hd[j][i]))) << "d2/dx" << j << "dx" << i;
    }
  }
}

// ------------------------------------------------------------------ Kokkos

// Kernels live in free functions: CUDA forbids KOKKOS_LAMBDA inside the
// private TestBody() of a TEST.
void euler_jacobians(Kokkos::View<double* [4]> U, Kokkos::View<double* [4]> F,
                     Kokkos::View<double* [4][4]> J, double gamma) {
  const EulerFluxX flux{gamma};
  Kokkos::parallel_for(
      "test_dual::euler_jacobians", U.extent(0), KOKKOS_LAMBDA(const int i) {
        double u[4], f[4], a[4][4];
        for (int k = 0; k < 4; ++k) u[k] = U(i, k);
        ad::jacobian(flux, u, f, a);
        for (int m = 0; m < 4; ++m) {
          F(i, m) = f[m];
          for (int n = 0; n < 4; ++n) J(i, m, n) = a[m][n];
        }
      });
}

TEST(DualKokkos, JacobiansInParallelFor) {
  const int n = 1000;
  const double gamma = 1.4;
  Kokkos::View<double* [4]> U("U", n), F("F", n);
  Kokkos::View<double* [4][4]> J("J", n);
  auto U_host = Kokkos::create_mirror_view(U);
  for (int i = 0; i < n; ++i) {
    double s[4];
    euler_state(i, gamma, s);
    for (int k = 0; k < 4; ++k) U_host(i, k) = s[k];
  }
  Kokkos::deep_copy(U, U_host);
  euler_jacobians(U, F, J, gamma);
  auto F_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), F);
  auto J_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), J);

  int n_bad = 0;
  for (int i = 0; i < n; ++i) {
    double s[4], F_ref[4], A[4][4];
    for (int k = 0; k < 4; ++k) s[k] = U_host(i, k);
    euler_jacobian_analytic(s, gamma, F_ref, A);
    for (int m = 0; m < 4; ++m) {
      if (!rel_close(F_host(i, m), F_ref[m], 1e-14)) ++n_bad;
      for (int k = 0; k < 4; ++k)
        if (!(std::abs(J_host(i, m, k) - A[m][k]) <= 1e-14 * (4 + std::abs(A[m][k])))) ++n_bad;
    }
  }
  EXPECT_EQ(n_bad, 0);
}

// Hessians of Rosenbrock and gradients of a generic lambda defined inside
// the kernel body.
void rosenbrock_hessians(Kokkos::View<double* [3]> X, Kokkos::View<double* [3][3]> H,
                         Kokkos::View<double* [3]> G_kinetic) {
  Kokkos::parallel_for(
      "test_dual::rosenbrock_hessians", X.extent(0), KOKKOS_LAMBDA(const int i) {
        const double x[3] = {X(i, 0), X(i, 1), X(i, 2)};
        double g[3], h[3][3];
        ad::hessian(Rosenbrock3{}, x, g, h);
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) H(i, a, b) = h[a][b];
        // Kinetic energy (x1^2 + x2^2) / (2 x0), x0 playing the density.
        auto kinetic = [](const auto& q) { return 0.5 * (q[1] * q[1] + q[2] * q[2]) / q[0]; };
        ad::gradient(kinetic, x, g);
        for (int a = 0; a < 3; ++a) G_kinetic(i, a) = g[a];
      });
}

TEST(DualKokkos, HessiansInParallelFor) {
  const int n = 500;
  Kokkos::View<double* [3]> X("X", n), G("G", n);
  Kokkos::View<double* [3][3]> H("H", n);
  auto X_host = Kokkos::create_mirror_view(X);
  for (int i = 0; i < n; ++i) {
    X_host(i, 0) = 1.0 + 0.5 * std::sin(0.1 * i);
    X_host(i, 1) = std::cos(0.3 * i);
    X_host(i, 2) = -0.5 + std::sin(0.7 * i);
  }
  Kokkos::deep_copy(X, X_host);
  rosenbrock_hessians(X, H, G);
  auto H_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), H);
  auto G_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), G);

  int n_bad = 0;
  for (int i = 0; i < n; ++i) {
    const double x[3] = {X_host(i, 0), X_host(i, 1), X_host(i, 2)};
    double f, g[3], H_ref[3][3];
    rosenbrock3_analytic(x, f, g, H_ref);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        if (!(std::abs(H_host(i, a, b) - H_ref[a][b]) <= 1e-13 * (1 + std::abs(H_ref[a][b]))))
          ++n_bad;
    // d/drho = -(m^2 + n^2) / (2 rho^2), d/dm = m / rho, d/dn = n / rho.
    const double k_ref[3] = {-(x[1] * x[1] + x[2] * x[2]) / (2 * x[0] * x[0]), x[1] / x[0],
                             x[2] / x[0]};
    for (int a = 0; a < 3; ++a)
      if (!rel_close(G_host(i, a), k_ref[a], 1e-14)) ++n_bad;
  }
  EXPECT_EQ(n_bad, 0);
}

// s(a, b) = sum_{i<n} (a i + b)^2 = a^2 S2 + 2 a b S1 + n b^2, with
// S1 = n(n-1)/2, S2 = (n-1) n (2n-1)/6:
// ds/da = 2 a S2 + 2 b S1, ds/db = 2 a S1 + 2 n b.
D2 sum_of_squares(int n, const D2& a, const D2& b, bool use_sum_reducer) {
  D2 s;
  auto body = KOKKOS_LAMBDA(const int i, D2& acc) {
    const D2 t = a * double(i) + b;
    acc += t * t;
  };
  if (use_sum_reducer)
    Kokkos::parallel_reduce("test_dual::sum_reducer", n, body, Kokkos::Sum<D2>(s));
  else
    Kokkos::parallel_reduce("test_dual::default_join", n, body, s);
  return s;
}

// q(t) = sum_{i<n} (i t)^2 = S2 t^2: q' = 2 S2 t, q'' = 2 S2.
DD1 sum_of_squares_nested(int n, const DD1& t) {
  DD1 q;
  Kokkos::parallel_reduce(
      "test_dual::nested", n,
      KOKKOS_LAMBDA(const int i, DD1& acc) {
        const DD1 y = double(i) * t;
        acc += y * y;
      },
      q);
  return q;
}

TEST(DualKokkos, SumOfDualsInParallelReduce) {
  const int n = 1000;
  const double a0 = 0.3, b0 = -1.7;
  const double S1 = n * (n - 1) / 2.0, S2 = (n - 1.0) * n * (2.0 * n - 1) / 6.0;
  const D2 a = make_variable<2>(a0, 0), b = make_variable<2>(b0, 1);
  for (const bool reducer : {false, true}) {
    SCOPED_TRACE(reducer ? "Kokkos::Sum<Dual>" : "default join");
    const D2 s = sum_of_squares(n, a, b, reducer);
    EXPECT_TRUE(rel_close(s.val(), a0 * a0 * S2 + 2 * a0 * b0 * S1 + n * b0 * b0, 1e-12));
    EXPECT_TRUE(rel_close(s.der(0), 2 * a0 * S2 + 2 * b0 * S1, 1e-12));
    EXPECT_TRUE(rel_close(s.der(1), 2 * a0 * S1 + 2 * n * b0, 1e-12));
  }
  const double t0 = 0.01;
  const DD1 q = sum_of_squares_nested(n, make_nested_variable<DD1>(t0, 0));
  EXPECT_TRUE(rel_close(q.val().val(), S2 * t0 * t0, 1e-12));
  EXPECT_TRUE(rel_close(q.val().der(0), 2 * S2 * t0, 1e-12));
  EXPECT_TRUE(rel_close(q.der(0).val(), 2 * S2 * t0, 1e-12));
  EXPECT_TRUE(rel_close(q.der(0).der(0), 2 * S2, 1e-12));
}

}  // namespace camber_test_dual
