// Element-wise ops: values from camber::Tensor kernels, derivative rules in
// ad:: ops (see ops.hpp for conventions at kinks).
#include <camber/autodiff/detail/kernels.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/error.hpp>

namespace camber::ad {

namespace {

// Both operands broadcast to their common shape (a no-op where they match);
// broadcast_to's VJP sums cotangents back to each operand's shape.
std::pair<Var, Var> broadcast_pair(const Var& a, const Var& b, const char* op) {
  const Shape s = broadcast_shapes(a.shape(), b.shape(), op);
  return {broadcast_to(a, s), broadcast_to(b, s)};
}

bool need(const Var& v) { return v.requires_grad(); }

// A unary op whose VJP and JVP both multiply by the same local derivative
// d(a, out): y' = d * a'. `d` is built with ad:: ops.
template <class Deriv>
Var unary_op(const char* name, Tensor value, const Var& a, Deriv d) {
  return record_op(
      name, std::move(value), {a},
      [d](const Vars& in, const Var& out, const Var& g) -> Vars { return {mul(g, d(in[0], out))}; },
      [d](const Vars& in, const Var& out, const Vars& t) { return mul(t[0], d(in[0], out)); });
}

// cond != 0 ? a : b for same-shape operands.
Var select(const Tensor& mask, const Var& a, const Var& b) {
  return record_op(
      "where", detail::select(mask, a.value(), b.value()), {a, b},
      [mask](const Vars& in, const Var&, const Var& g) -> Vars {
        const Var z = zeros_like(g);
        return {need(in[0]) ? select(mask, g, z) : Var(), need(in[1]) ? select(mask, z, g) : Var()};
      },
      [mask](const Vars&, const Var&, const Vars& t) { return select(mask, t[0], t[1]); });
}

// The partial derivatives of a^b, with autodiff/dual.hpp's conventions at a
// base of 0 (same-shape operands):
//   d/da = b a^(b-1), but 0 where a = 0 and b = 0 (a^0 is the constant 1, as
//          pow(a, 0.0) and Dual's pow; b a^(b-1) would be 0 * inf);
//   d/db = a^b log a, but 0 where a = 0 (0^b = 0 for b > 0; not 0 * log 0).
// The masked entries are also fed a base of 1, so no derivative of these
// rules (reverse over reverse, hvp) multiplies a zero cotangent by inf.
Var pow_dbase(const Var& a, const Var& b) {
  const Tensor zero(a.shape());
  const Tensor both_zero =
      camber::mul(detail::eq_mask(a.value(), zero), detail::eq_mask(b.value(), zero));
  const Var safe_a = select(both_zero, ones_like(a), a);
  return select(both_zero, zeros_like(a), mul(b, pow(safe_a, add_scalar(b, -1.0))));
}
Var pow_dexponent(const Var& a, const Var& out) {
  const Tensor a_zero = detail::eq_mask(a.value(), Tensor(a.shape()));
  const Var safe_a = select(a_zero, ones_like(a), a);
  return select(a_zero, zeros_like(a), mul(out, log(safe_a)));
}

}  // namespace

Var zeros_like(const Var& a) { return constant(Tensor(a.shape())); }
Var ones_like(const Var& a) { return constant(Tensor::full(a.shape(), 1.0)); }

Var add(const Var& a0, const Var& b0) {
  auto [a, b] = broadcast_pair(a0, b0, "ad::add");
  return record_op(
      "add", camber::add(a.value(), b.value()), {a, b},
      [](const Vars& in, const Var&, const Var& g) -> Vars {
        return {need(in[0]) ? g : Var(), need(in[1]) ? g : Var()};
      },
      [](const Vars&, const Var&, const Vars& t) { return add(t[0], t[1]); },
      Reads::nothing());
}

Var sub(const Var& a0, const Var& b0) {
  auto [a, b] = broadcast_pair(a0, b0, "ad::sub");
  return record_op(
      "sub", camber::sub(a.value(), b.value()), {a, b},
      [](const Vars& in, const Var&, const Var& g) -> Vars {
        return {need(in[0]) ? g : Var(), need(in[1]) ? neg(g) : Var()};
      },
      [](const Vars&, const Var&, const Vars& t) { return sub(t[0], t[1]); },
      Reads::nothing());
}

Var mul(const Var& a0, const Var& b0) {
  auto [a, b] = broadcast_pair(a0, b0, "ad::mul");
  return record_op(
      "mul", camber::mul(a.value(), b.value()), {a, b},
      [](const Vars& in, const Var&, const Var& g) -> Vars {
        return {need(in[0]) ? mul(g, in[1]) : Var(), need(in[1]) ? mul(g, in[0]) : Var()};
      },
      [](const Vars& in, const Var&, const Vars& t) {
        return add(mul(t[0], in[1]), mul(in[0], t[1]));
      });
}

Var div(const Var& a0, const Var& b0) {
  auto [a, b] = broadcast_pair(a0, b0, "ad::div");
  return record_op(
      "div", camber::div(a.value(), b.value()), {a, b},
      [](const Vars& in, const Var& out, const Var& g) -> Vars {
        const Var ga = div(g, in[1]);
        return {need(in[0]) ? ga : Var(), need(in[1]) ? neg(mul(ga, out)) : Var()};
      },
      [](const Vars& in, const Var& out, const Vars& t) {
        return div(sub(t[0], mul(out, t[1])), in[1]);
      });
}

Var pow(const Var& a0, const Var& b0) {
  auto [a, b] = broadcast_pair(a0, b0, "ad::pow");
  return record_op(
      "pow", camber::pow(a.value(), b.value()), {a, b},
      [](const Vars& in, const Var& out, const Var& g) -> Vars {
        Var ga, gb;
        if (need(in[0])) ga = mul(g, pow_dbase(in[0], in[1]));
        if (need(in[1])) gb = mul(g, pow_dexponent(in[0], out));
        return {ga, gb};
      },
      [](const Vars& in, const Var& out, const Vars& t) {
        // Skip the term of an operand without a tangent: log(a) is NaN for a < 0.
        Var r = zeros_like(out);
        if (in[0].has_tangent()) r = mul(t[0], pow_dbase(in[0], in[1]));
        if (in[1].has_tangent()) r = add(r, mul(t[1], pow_dexponent(in[0], out)));
        return r;
      });
}

Var where(const Tensor& cond, const Var& a, const Var& b) {
  const Shape s =
      broadcast_shapes(broadcast_shapes(cond.shape(), a.shape(), "ad::where"), b.shape(), "ad::where");
  return select(detail::broadcast_to(cond, s), broadcast_to(a, s), broadcast_to(b, s));
}

Var maximum(const Var& a0, const Var& b0) {
  auto [a, b] = broadcast_pair(a0, b0, "ad::maximum");
  return select(detail::ge_mask(a.value(), b.value()), a, b);
}

Var minimum(const Var& a0, const Var& b0) {
  auto [a, b] = broadcast_pair(a0, b0, "ad::minimum");
  return select(detail::ge_mask(b.value(), a.value()), a, b);
}

Var neg(const Var& a) {
  return record_op(
      "neg", camber::neg(a.value()), {a},
      [](const Vars&, const Var&, const Var& g) -> Vars { return {neg(g)}; },
      [](const Vars&, const Var&, const Vars& t) { return neg(t[0]); },
      Reads::nothing());
}

Var add_scalar(const Var& a, double c) {
  return record_op(
      "add_scalar", camber::add_scalar(a.value(), c), {a},
      [](const Vars&, const Var&, const Var& g) -> Vars { return {g}; },
      [](const Vars&, const Var&, const Vars& t) { return t[0]; },
      Reads::nothing());
}

Var mul_scalar(const Var& a, double c) {
  return record_op(
      "mul_scalar", camber::scale(a.value(), c), {a},
      [c](const Vars&, const Var&, const Var& g) -> Vars { return {mul_scalar(g, c)}; },
      [c](const Vars&, const Var&, const Vars& t) { return mul_scalar(t[0], c); },
      Reads::nothing());
}

Var pow(const Var& a, double p) {
  if (p == 0.0) return ones_like(a);
  if (p == 1.0) return a;
  return unary_op("pow_scalar", camber::pow(a.value(), Tensor::scalar(p)), a,
                  [p](const Var& x, const Var&) { return mul_scalar(pow(x, p - 1.0), p); });
}

Var square(const Var& a) { return mul(a, a); }

Var exp(const Var& a) {
  return unary_op("exp", camber::exp(a.value()), a, [](const Var&, const Var& y) { return y; });
}
Var log(const Var& a) {
  return unary_op("log", camber::log(a.value()), a,
                  [](const Var& x, const Var&) { return pow(x, -1.0); });
}
Var sqrt(const Var& a) {
  return unary_op("sqrt", camber::sqrt(a.value()), a,
                  [](const Var&, const Var& y) { return mul_scalar(pow(y, -1.0), 0.5); });
}
Var sin(const Var& a) {
  return unary_op("sin", camber::sin(a.value()), a,
                  [](const Var& x, const Var&) { return cos(x); });
}
Var cos(const Var& a) {
  return unary_op("cos", camber::cos(a.value()), a,
                  [](const Var& x, const Var&) { return neg(sin(x)); });
}
Var tanh(const Var& a) {
  return unary_op("tanh", camber::tanh(a.value()), a,
                  [](const Var&, const Var& y) { return sub(ones_like(y), mul(y, y)); });
}
Var sigmoid(const Var& a) {
  return unary_op("sigmoid", detail::sigmoid(a.value()), a,
                  [](const Var&, const Var& y) { return mul(y, sub(ones_like(y), y)); });
}
Var relu(const Var& a) {
  return unary_op("relu", detail::relu(a.value()), a,
                  [](const Var& x, const Var&) { return constant(detail::heaviside(x.value())); });
}
Var softplus(const Var& a) {
  return unary_op("softplus", detail::softplus(a.value()), a,
                  [](const Var& x, const Var&) { return sigmoid(x); });
}
Var abs(const Var& a) {
  return unary_op("abs", camber::abs(a.value()), a,
                  [](const Var& x, const Var&) { return constant(detail::sign(x.value())); });
}

Var operator+(const Var& a, const Var& b) { return add(a, b); }
Var operator-(const Var& a, const Var& b) { return sub(a, b); }
Var operator*(const Var& a, const Var& b) { return mul(a, b); }
Var operator/(const Var& a, const Var& b) { return div(a, b); }
Var operator-(const Var& a) { return neg(a); }
Var operator+(const Var& a, double c) { return add_scalar(a, c); }
Var operator+(double c, const Var& a) { return add_scalar(a, c); }
Var operator-(const Var& a, double c) { return add_scalar(a, -c); }
Var operator-(double c, const Var& a) { return add_scalar(neg(a), c); }
Var operator*(const Var& a, double c) { return mul_scalar(a, c); }
Var operator*(double c, const Var& a) { return mul_scalar(a, c); }
Var operator/(const Var& a, double c) { return mul_scalar(a, 1.0 / c); }
Var operator/(double c, const Var& a) { return mul_scalar(pow(a, -1.0), c); }

}  // namespace camber::ad
