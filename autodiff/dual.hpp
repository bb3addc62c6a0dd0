/// @file
/// camber::ad::Dual — forward-mode automatic differentiation inside kernels.
///
/// A Dual<T, N> carries a value and N directional derivatives (a truncated
/// Taylor expansion in N infinitesimals e_i with e_i e_j = 0):
///
/// @code
///   x = a + sum_i v_i e_i,    f(x) = f(a) + f'(a) sum_i v_i e_i.
/// @endcode
///
/// Seed input k with derivative 1 in direction k and every result carries its
/// partial derivatives with respect to the seeded inputs. T may itself be a
/// Dual, so derivatives nest to any order: Dual<Dual<double,N>,N> gives the
/// Hessian, Dual<Dual<Dual<double,1>,1>,1> the third derivative.
///
/// @code
///   using camber::ad::Dual;
///   Dual<double, 2> x = camber::ad::make_variable<2>(1.5, 0);  // d/dx
///   Dual<double, 2> y = camber::ad::make_variable<2>(0.5, 1);  // d/dy
///   Dual<double, 2> f = x * sin(y) + 2.0 * exp(x);             // ADL finds sin
///   // f.val() == f(1.5, 0.5), f.der(0) == df/dx, f.der(1) == df/dy
/// @endcode
///
/// Physics kernels are templates on their scalar type, so one source gives
/// values (T = double) and local derivatives (T = Dual). Unqualified calls
/// (`sqrt(x)`) find the Dual overloads by ADL; camber::ad::sqrt etc. also
/// accept double (they are camber::kmath's device-safe functions), so
/// `camber::ad::sqrt(x)` works for every T. Most users want the helpers in
/// autodiff/jacobian.hpp (jacobian, gradient, hessian of a small kernel
/// function) rather than seeding by hand.
///
/// Everything is KOKKOS_INLINE_FUNCTION, with no exceptions, virtuals or
/// std:: containers: a Dual is a trivially copyable value type (for double
/// underneath) that lives in registers, Views and reductions on any backend.
/// Kokkos::Sum and the default parallel_reduce join work on a Dual (Kokkos 3
/// needs the volatile operator+= below).
///
/// Derivative modes: forward (tangent) only; the cost of every operation
/// grows with N (and with N^2 for a nested Dual<Dual<.,N>,N>), so N is meant
/// to be small: the inputs of one cell's or one face's kernel.
///
/// Conventions where the derivative does not exist (tested in
/// tests/autodiff/test_dual.cpp):
///  - abs/fabs: the derivative at 0 is 0 (sign(0) = 0), at every order.
///  - min/max: at a tie the first argument is returned whole, so the result
///    carries the first argument's derivatives (as `std::min`/`std::max` return
///    their first argument on a tie). A NaN value also returns the first.
///  - sqrt and cbrt at 0: the derivative is infinite. Seeded directions get
///    +-inf and unseeded ones NaN (0 * inf). Keep the argument away from 0
///    (e.g. sqrt(x*x + eps*eps)) when it can reach it.
///  - pow(x, 0) for a plain-number exponent is the constant 1 (derivative 0,
///    also at x = 0). pow(0, y) for a plain-number base 0 has derivative 0.
///    pow(x, y) with both Dual drops the d/dy term where x == 0 (where
///    x^y = 0 for y > 0) instead of forming 0 * log(0), and its d/dx is 0
///    where x == 0 and y == 0 (as pow(x, 0)), not 0 * 0^-1 = NaN.
///  - atan2(0, 0) and hypot(0, 0): derivatives are NaN (undefined there).
///  - Comparisons (==, <, ...) look at the values only, derivatives ignored.
#pragma once

#include <Kokkos_Core.hpp>

#include <ostream>
#include <type_traits>

#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>

namespace camber::ad {

template <class T, int N>
struct Dual;

// ---------------------------------------------------------------- traits

template <class T>
struct is_dual : std::false_type {};
template <class T, int N>
struct is_dual<Dual<T, N>> : std::true_type {};
template <class T>
inline constexpr bool is_dual_v = is_dual<T>::value;

/// The real number type at the bottom of a (possibly nested) Dual:
/// scalar_type_t<Dual<Dual<double,1>,3>> is double; scalar_type_t<double> too.
template <class T>
struct scalar_type {
  using type = T;
};
template <class T, int N>
struct scalar_type<Dual<T, N>> : scalar_type<T> {};
template <class T>
using scalar_type_t = typename scalar_type<T>::type;

/// Nesting depth, i.e.\ the highest derivative order a type carries:
/// 0 for double, 1 for Dual<double,N>, 2 for Dual<Dual<double,N>,M>.
template <class T>
struct derivative_order : std::integral_constant<int, 0> {};
template <class T, int N>
struct derivative_order<Dual<T, N>>
    : std::integral_constant<int, 1 + derivative_order<T>::value> {};

namespace detail {
// S acts as a constant (zero derivatives) for Dual<T,N> when it is an
// arithmetic type, T itself, or a Dual level inside T. This is what lets
// `2.0 * x` and `y * x` (y a Dual<double,1>, x a Dual<Dual<double,1>,2>)
// compile without converting through every level.
template <class S, class T>
struct is_scalar_operand
    : std::bool_constant<std::is_arithmetic<S>::value || std::is_same<S, T>::value> {};
template <class S, class T, int N>
struct is_scalar_operand<S, Dual<T, N>>
    : std::bool_constant<std::is_arithmetic<S>::value ||
                         std::is_same<S, Dual<T, N>>::value ||
                         is_scalar_operand<S, T>::value> {};

template <class S, class T>
using enable_if_scalar_t = std::enable_if_t<is_scalar_operand<S, T>::value, int>;
}  // namespace detail

// ---------------------------------------------------------------- Dual

template <class T, int N>
struct Dual {
  static_assert(N >= 1, "Dual<T, N> needs at least one direction");
  static_assert(std::is_floating_point<T>::value || is_dual<T>::value,
                "Dual<T, N>: T must be a floating-point type or a Dual");

  using value_type = T;
  static constexpr int n_directions = N;

  /// Public so that a Dual stays a trivially copyable aggregate-like value;
  /// prefer val() and der(i).
  T val_;
  T der_[N];

  /// Zero value and derivatives.
  KOKKOS_INLINE_FUNCTION constexpr Dual() : val_(), der_() {}

  /// A constant: value v, derivatives zero. Implicit, so kernels templated on
  /// T can write `T rho = 1.0;` or `T p = gamma_minus_1 * (e - k);`.
  template <class S, detail::enable_if_scalar_t<S, T> = 0>
  KOKKOS_INLINE_FUNCTION constexpr Dual(const S& v) : val_(v), der_() {}

  KOKKOS_INLINE_FUNCTION constexpr const T& val() const { return val_; }
  KOKKOS_INLINE_FUNCTION constexpr T& val() { return val_; }
  KOKKOS_INLINE_FUNCTION constexpr const T& der(int i) const { return der_[i]; }
  KOKKOS_INLINE_FUNCTION constexpr T& der(int i) { return der_[i]; }

  KOKKOS_INLINE_FUNCTION Dual& operator+=(const Dual& b) {
    val_ += b.val_;
    for (int i = 0; i < N; ++i) der_[i] += b.der_[i];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION Dual& operator-=(const Dual& b) {
    val_ -= b.val_;
    for (int i = 0; i < N; ++i) der_[i] -= b.der_[i];
    return *this;
  }
  KOKKOS_INLINE_FUNCTION Dual& operator*=(const Dual& b) { return *this = *this * b; }
  KOKKOS_INLINE_FUNCTION Dual& operator/=(const Dual& b) { return *this = *this / b; }

  template <class S, detail::enable_if_scalar_t<S, T> = 0>
  KOKKOS_INLINE_FUNCTION Dual& operator+=(const S& s) {
    val_ += s;
    return *this;
  }
  template <class S, detail::enable_if_scalar_t<S, T> = 0>
  KOKKOS_INLINE_FUNCTION Dual& operator-=(const S& s) {
    val_ -= s;
    return *this;
  }
  template <class S, detail::enable_if_scalar_t<S, T> = 0>
  KOKKOS_INLINE_FUNCTION Dual& operator*=(const S& s) {
    val_ *= s;
    for (int i = 0; i < N; ++i) der_[i] *= s;
    return *this;
  }
  template <class S, detail::enable_if_scalar_t<S, T> = 0>
  KOKKOS_INLINE_FUNCTION Dual& operator/=(const S& s) {
    val_ /= s;
    for (int i = 0; i < N; ++i) der_[i] /= s;
    return *this;
  }

  /// Kokkos 3.x joins custom reduction values through volatile references
  /// (`*(volatile T*)dst += *(const volatile T*)src`). Written as a = a + b
  /// on plain numbers: compound assignment to a volatile is deprecated in
  /// C++20.
  KOKKOS_INLINE_FUNCTION void operator+=(const volatile Dual& b) volatile {
    if constexpr (std::is_arithmetic<T>::value) {
      val_ = val_ + b.val_;
      for (int i = 0; i < N; ++i) der_[i] = der_[i] + b.der_[i];
    } else {
      val_ += b.val_;
      for (int i = 0; i < N; ++i) der_[i] += b.der_[i];
    }
  }
};

// ---------------------------------------------------------------- access

/// The plain number at the bottom: value(Dual<Dual<double,1>,2>) is a double.
template <class S, std::enable_if_t<std::is_arithmetic<S>::value, int> = 0>
KOKKOS_INLINE_FUNCTION constexpr S value(const S& s) {
  return s;
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION constexpr scalar_type_t<T> value(const Dual<T, N>& x) {
  return value(x.val_);
}

/// Input `direction` of N: value v, derivative 1 in that direction, 0 in the
/// others. Composes for nested Duals: make_variable<N>(make_variable<N>(x, i), i)
/// seeds both levels (what a Hessian needs).
template <int N, class T>
KOKKOS_INLINE_FUNCTION Dual<T, N> make_variable(const T& v, int direction) {
  CAMBER_KERNEL_ASSERT(0 <= direction && direction < N);
  Dual<T, N> r(v);
  r.der_[direction] = T(1);
  return r;
}

/// Seeds every level of the (possibly nested) Dual type D in the same
/// direction: make_nested_variable<Dual<Dual<double,1>,1>>(x, 0) gives x with
/// dx = 1 at both levels, so f(x).der(0).der(0) is f''(x).
template <class D>
KOKKOS_INLINE_FUNCTION D make_nested_variable(const scalar_type_t<D>& v, int direction) {
  if constexpr (is_dual<D>::value) {
    using T = typename D::value_type;
    return make_variable<D::n_directions>(make_nested_variable<T>(v, direction), direction);
  } else {
    return v;
  }
}

// ---------------------------------------------------------------- arithmetic

template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator+(const Dual<T, N>& a) {
  return a;
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator-(const Dual<T, N>& a) {
  Dual<T, N> r;
  r.val_ = -a.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = -a.der_[i];
  return r;
}

template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator+(const Dual<T, N>& a, const Dual<T, N>& b) {
  Dual<T, N> r;
  r.val_ = a.val_ + b.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = a.der_[i] + b.der_[i];
  return r;
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator-(const Dual<T, N>& a, const Dual<T, N>& b) {
  Dual<T, N> r;
  r.val_ = a.val_ - b.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = a.der_[i] - b.der_[i];
  return r;
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator*(const Dual<T, N>& a, const Dual<T, N>& b) {
  Dual<T, N> r;
  r.val_ = a.val_ * b.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = a.der_[i] * b.val_ + a.val_ * b.der_[i];
  return r;
}
/// (a/b)' = (a' - (a/b) b') / b: the value is the correctly rounded quotient.
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator/(const Dual<T, N>& a, const Dual<T, N>& b) {
  Dual<T, N> r;
  r.val_ = a.val_ / b.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = (a.der_[i] - r.val_ * b.der_[i]) / b.val_;
  return r;
}

/// With a constant on either side (see detail::is_scalar_operand).
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator+(const Dual<T, N>& a, const S& s) {
  Dual<T, N> r(a);
  r.val_ += s;
  return r;
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator+(const S& s, const Dual<T, N>& a) {
  Dual<T, N> r(a);
  r.val_ = s + a.val_;
  return r;
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator-(const Dual<T, N>& a, const S& s) {
  Dual<T, N> r(a);
  r.val_ -= s;
  return r;
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator-(const S& s, const Dual<T, N>& a) {
  Dual<T, N> r;
  r.val_ = s - a.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = -a.der_[i];
  return r;
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator*(const Dual<T, N>& a, const S& s) {
  Dual<T, N> r;
  r.val_ = a.val_ * s;
  for (int i = 0; i < N; ++i) r.der_[i] = a.der_[i] * s;
  return r;
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator*(const S& s, const Dual<T, N>& a) {
  Dual<T, N> r;
  r.val_ = s * a.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = s * a.der_[i];
  return r;
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator/(const Dual<T, N>& a, const S& s) {
  Dual<T, N> r;
  r.val_ = a.val_ / s;
  for (int i = 0; i < N; ++i) r.der_[i] = a.der_[i] / s;
  return r;
}
/// (s/a)' = -(s/a) a' / a.
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> operator/(const S& s, const Dual<T, N>& a) {
  Dual<T, N> r;
  r.val_ = s / a.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = -(r.val_ * a.der_[i]) / a.val_;
  return r;
}

// ---------------------------------------------------------------- comparisons
// On the values only (value(), the plain number at the bottom).

#define CAMBER_AD_COMPARISON(OP)                                                   \
  template <class T, int N>                                                        \
  KOKKOS_INLINE_FUNCTION bool operator OP(const Dual<T, N>& a, const Dual<T, N>& b) { \
    return value(a) OP value(b);                                                   \
  }                                                                                \
  template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>         \
  KOKKOS_INLINE_FUNCTION bool operator OP(const Dual<T, N>& a, const S& b) {       \
    return value(a) OP value(b);                                                   \
  }                                                                                \
  template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>         \
  KOKKOS_INLINE_FUNCTION bool operator OP(const S& a, const Dual<T, N>& b) {       \
    return value(a) OP value(b);                                                   \
  }
CAMBER_AD_COMPARISON(==)
CAMBER_AD_COMPARISON(!=)
CAMBER_AD_COMPARISON(<)
CAMBER_AD_COMPARISON(<=)
CAMBER_AD_COMPARISON(>)
CAMBER_AD_COMPARISON(>=)
#undef CAMBER_AD_COMPARISON

// ---------------------------------------------------------------- math
/// The plain-number versions (device-safe on every Kokkos version), so that
/// unqualified calls inside the Dual functions below, and camber::ad::sqrt(x)
/// in a kernel templated on its scalar type, work for double as well.
using kmath::atan2;
using kmath::cbrt;
using kmath::cos;
using kmath::cosh;
using kmath::exp;
using kmath::fabs;
using kmath::hypot;
using kmath::log;
using kmath::pow;
using kmath::sin;
using kmath::sinh;
using kmath::sqrt;
using kmath::tan;
using kmath::tanh;

/// abs, min and max on plain numbers, device-safe (std::min is not).
template <class S, std::enable_if_t<std::is_floating_point<S>::value, int> = 0>
KOKKOS_INLINE_FUNCTION S abs(S x) {
  return kmath::fabs(x);
}
template <class S, std::enable_if_t<std::is_arithmetic<S>::value, int> = 0>
KOKKOS_INLINE_FUNCTION S min(S a, S b) {
  return b < a ? b : a;
}
template <class S, std::enable_if_t<std::is_arithmetic<S>::value, int> = 0>
KOKKOS_INLINE_FUNCTION S max(S a, S b) {
  return a < b ? b : a;
}

namespace detail {
// The chain rule: f(a) given f(a.val) = f_val and f'(a.val) = f_der.
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> chain(const Dual<T, N>& a, const T& f_val, const T& f_der) {
  Dual<T, N> r;
  r.val_ = f_val;
  for (int i = 0; i < N; ++i) r.der_[i] = f_der * a.der_[i];
  return r;
}
}  // namespace detail

/// sqrt'(x) = 1 / (2 sqrt(x)); infinite at 0 (see the header comment).
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> sqrt(const Dual<T, N>& a) {
  const T s = sqrt(a.val_);
  return detail::chain(a, s, T(0.5 / s));
}
/// cbrt'(x) = 1 / (3 cbrt(x)^2); infinite at 0.
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> cbrt(const Dual<T, N>& a) {
  const T c = cbrt(a.val_);
  return detail::chain(a, c, T(1 / (3 * (c * c))));
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> exp(const Dual<T, N>& a) {
  const T e = exp(a.val_);
  return detail::chain(a, e, e);
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> log(const Dual<T, N>& a) {
  return detail::chain(a, T(log(a.val_)), T(1 / a.val_));
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> sin(const Dual<T, N>& a) {
  return detail::chain(a, T(sin(a.val_)), T(cos(a.val_)));
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> cos(const Dual<T, N>& a) {
  return detail::chain(a, T(cos(a.val_)), T(-sin(a.val_)));
}
/// tan'(x) = 1 + tan(x)^2.
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> tan(const Dual<T, N>& a) {
  const T t = tan(a.val_);
  return detail::chain(a, t, T(1 + t * t));
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> sinh(const Dual<T, N>& a) {
  return detail::chain(a, T(sinh(a.val_)), T(cosh(a.val_)));
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> cosh(const Dual<T, N>& a) {
  return detail::chain(a, T(cosh(a.val_)), T(sinh(a.val_)));
}
/// tanh'(x) = 1 / cosh(x)^2, not 1 - tanh(x)^2, which cancels to 0 for
/// |x| > ~19 where the true derivative is still ~1e-16 and above.
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> tanh(const Dual<T, N>& a) {
  const T c = cosh(a.val_);
  return detail::chain(a, T(tanh(a.val_)), T(1 / (c * c)));
}

/// |x| with derivative sign(x) x' and sign(0) = 0: at 0 the result is the
/// constant 0 at every order. NaN stays NaN.
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> abs(const Dual<T, N>& a) {
  const auto v = value(a);
  if (v == 0) return Dual<T, N>();
  return v < 0 ? -a : a;
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> fabs(const Dual<T, N>& a) {
  return abs(a);
}

/// x^p for a constant p: (x^p)' = p x^(p-1) x'. Written with pow(x, p-1), not
/// p x^p / x, so x = 0 with p >= 1 gives a finite derivative.
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> pow(const Dual<T, N>& a, const S& p) {
  if constexpr (std::is_arithmetic<S>::value) {
    if (p == S(0)) return Dual<T, N>(T(1));
  }
  return detail::chain(a, T(pow(a.val_, p)), T(p * pow(a.val_, p - 1)));
}
/// s^x for a constant s: (s^x)' = s^x log(s) x'; a base of 0 gives 0.
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> pow(const S& s, const Dual<T, N>& a) {
  const T v = pow(s, a.val_);
  if constexpr (std::is_arithmetic<S>::value) {
    if (s == S(0)) return Dual<T, N>(v);
  }
  return detail::chain(a, v, T(v * log(s)));
}
/// x^y: d = y x^(y-1) dx + x^y log(x) dy, the second term dropped at x = 0,
/// the first at x = 0 with y = 0 (x^0 is the constant 1).
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> pow(const Dual<T, N>& a, const Dual<T, N>& b) {
  Dual<T, N> r;
  r.val_ = pow(a.val_, b.val_);
  const T dx = value(a) == 0 && value(b) == 0 ? T(0) : T(b.val_ * pow(a.val_, b.val_ - 1));
  const T dy = value(a) == 0 ? T(0) : T(r.val_ * log(a.val_));
  for (int i = 0; i < N; ++i) r.der_[i] = dx * a.der_[i] + dy * b.der_[i];
  return r;
}

/// atan2(y, x): d = (x dy - y dx) / (x^2 + y^2).
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> atan2(const Dual<T, N>& y, const Dual<T, N>& x) {
  Dual<T, N> r;
  r.val_ = atan2(y.val_, x.val_);
  const T r2 = x.val_ * x.val_ + y.val_ * y.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = (x.val_ * y.der_[i] - y.val_ * x.der_[i]) / r2;
  return r;
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> atan2(const Dual<T, N>& y, const S& x) {
  return atan2(y, Dual<T, N>(x));
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> atan2(const S& y, const Dual<T, N>& x) {
  return atan2(Dual<T, N>(y), x);
}

/// hypot(a, b) = sqrt(a^2 + b^2) without overflow: d = (a da + b db) / h.
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> hypot(const Dual<T, N>& a, const Dual<T, N>& b) {
  Dual<T, N> r;
  r.val_ = hypot(a.val_, b.val_);
  const T ca = a.val_ / r.val_;
  const T cb = b.val_ / r.val_;
  for (int i = 0; i < N; ++i) r.der_[i] = ca * a.der_[i] + cb * b.der_[i];
  return r;
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> hypot(const Dual<T, N>& a, const S& b) {
  return hypot(a, Dual<T, N>(b));
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> hypot(const S& a, const Dual<T, N>& b) {
  return hypot(Dual<T, N>(a), b);
}

/// min/max compare values; on a tie (or a NaN) they return the first
/// argument with its derivatives.
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> min(const Dual<T, N>& a, const Dual<T, N>& b) {
  return value(b) < value(a) ? b : a;
}
template <class T, int N>
KOKKOS_INLINE_FUNCTION Dual<T, N> max(const Dual<T, N>& a, const Dual<T, N>& b) {
  return value(a) < value(b) ? b : a;
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> min(const Dual<T, N>& a, const S& b) {
  return min(a, Dual<T, N>(b));
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> min(const S& a, const Dual<T, N>& b) {
  return min(Dual<T, N>(a), b);
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> max(const Dual<T, N>& a, const S& b) {
  return max(a, Dual<T, N>(b));
}
template <class T, int N, class S, detail::enable_if_scalar_t<S, T> = 0>
KOKKOS_INLINE_FUNCTION Dual<T, N> max(const S& a, const Dual<T, N>& b) {
  return max(Dual<T, N>(a), b);
}

/// Host only, for test output and logs: "(value; d0, d1, ...)".
template <class T, int N>
std::ostream& operator<<(std::ostream& os, const Dual<T, N>& x) {
  os << '(' << x.val_ << ';';
  for (int i = 0; i < N; ++i) os << (i ? ", " : " ") << x.der_[i];
  return os << ')';
}

}  // namespace camber::ad

// Kokkos::Sum<Dual> (and Kokkos' other sum paths) start from this identity.
namespace Kokkos {
template <class T, int N>
struct reduction_identity<camber::ad::Dual<T, N>> {
  KOKKOS_FORCEINLINE_FUNCTION constexpr static camber::ad::Dual<T, N> sum() noexcept {
    return camber::ad::Dual<T, N>();
  }
};
}  // namespace Kokkos
