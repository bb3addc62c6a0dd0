// Element-wise ops: each one an expression node of the fusion layer
// (autodiff/fusion.cpp holds their derivative rules; see ops.hpp for the
// conventions at kinks).
#include "detail/fusion.hpp"
#include <camber/autodiff/ops.hpp>

namespace camber::ad {

using detail::ExprOp;
using detail::fused_op;

Var zeros_like(const Var& a) { return detail::fused_const(a.shape(), 0.0, a.dtype()); }
Var ones_like(const Var& a) { return detail::fused_const(a.shape(), 1.0, a.dtype()); }

Var add(const Var& a, const Var& b) { return fused_op(ExprOp::Add, {a, b}); }
Var sub(const Var& a, const Var& b) { return fused_op(ExprOp::Sub, {a, b}); }
Var mul(const Var& a, const Var& b) { return fused_op(ExprOp::Mul, {a, b}); }
Var div(const Var& a, const Var& b) { return fused_op(ExprOp::Div, {a, b}); }
Var pow(const Var& a, const Var& b) { return fused_op(ExprOp::Pow, {a, b}); }

Var where(const Tensor& cond, const Var& a, const Var& b) {
  return fused_op(ExprOp::Select, {constant(cond), a, b});
}
Var maximum(const Var& a, const Var& b) {
  return fused_op(ExprOp::Select, {fused_op(ExprOp::Ge, {a, b}), a, b});
}
Var minimum(const Var& a, const Var& b) {
  return fused_op(ExprOp::Select, {fused_op(ExprOp::Ge, {b, a}), a, b});
}

Var neg(const Var& a) { return fused_op(ExprOp::Neg, {a}); }
Var add_scalar(const Var& a, double c) { return fused_op(ExprOp::AddC, {a}, c); }
Var mul_scalar(const Var& a, double c) { return fused_op(ExprOp::MulC, {a}, c); }
Var pow(const Var& a, double p) {
  if (p == 0.0) return ones_like(a);
  if (p == 1.0) return a;
  return fused_op(ExprOp::PowC, {a}, p);
}
Var square(const Var& a) { return mul(a, a); }
Var exp(const Var& a) { return fused_op(ExprOp::Exp, {a}); }
Var log(const Var& a) { return fused_op(ExprOp::Log, {a}); }
Var sqrt(const Var& a) { return fused_op(ExprOp::Sqrt, {a}); }
Var sin(const Var& a) { return fused_op(ExprOp::Sin, {a}); }
Var cos(const Var& a) { return fused_op(ExprOp::Cos, {a}); }
Var tanh(const Var& a) { return fused_op(ExprOp::Tanh, {a}); }
Var sigmoid(const Var& a) { return fused_op(ExprOp::Sigmoid, {a}); }
Var relu(const Var& a) { return fused_op(ExprOp::Relu, {a}); }
Var softplus(const Var& a) { return fused_op(ExprOp::Softplus, {a}); }
Var abs(const Var& a) { return fused_op(ExprOp::Abs, {a}); }

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
