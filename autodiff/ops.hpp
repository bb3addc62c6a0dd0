/// @file
/// Differentiable tensor ops on camber::ad::Var.
///
/// Each op computes its value with a Kokkos kernel (camber::Tensor's or
/// autodiff/detail/kernels.hpp) and records a VJP rule and a JVP rule, both
/// written with the ops of this header. So every op supports
///   - reverse mode (grad, vjp), to any order with create_graph,
///   - forward mode (jvp), and forward-over-reverse (hvp),
///
/// unless its comment says otherwise.
///
/// @code
///   namespace ad = camber::ad;
///   ad::Var W = ad::variable(W0), b = ad::variable(b0), x = ad::constant(x0);
///   ad::Var h = ad::tanh(ad::matmul(x, W) + b);   // b broadcasts over rows
///   ad::Var loss = ad::mean(h * h);
///   auto g = ad::grad(loss, {W, b});              // autodiff/functional.hpp
/// @endcode
///
/// Broadcasting follows NumPy (as camber::Tensor): the binary element-wise
/// ops and where() broadcast their operands, and the VJP sums the cotangent
/// back to each operand's shape (sum_to_shape). A broadcast operand is
/// materialized at the output's shape (one extra tensor of that size while
/// the graph lives). Empty tensors and size-1 axes work everywhere.
///
/// Conventions where a derivative does not exist (as autodiff/dual.hpp):
///  - relu, abs at 0: derivative 0. maximum/minimum at a tie: the first
///    argument gets the whole derivative. max over an axis at a tie: the
///    cotangent is split evenly between the tied entries.
///  - sqrt, log, pow(x, p < 1) at 0, and norm at 0, give inf/NaN derivatives:
///    keep the argument away from 0 (e.g. sqrt(x*x + eps*eps)).
///  - pow(a, b) at a = 0: d/db is 0 (0^b = 0 for b > 0; no 0 * log 0), and
///    d/da is b 0^(b-1) except 0 where b = 0 too (0^0 = 1, as pow(a, 0.0)):
///    b = 1 gives 1, b > 1 gives 0, 0 < b < 1 gives inf. A differentiable
///    exponent needs a >= 0 (d/db uses log a).
///
/// Masks (relu, abs, where, maximum, max) are constants: their own
/// derivative is 0 almost everywhere, so higher derivatives are exact off the
/// kinks.
#pragma once

#include <initializer_list>
#include <vector>

#include <camber/autodiff/variable.hpp>

namespace camber::ad {

using Index = std::vector<index_t>;

Var zeros_like(const Var& a);
Var ones_like(const Var& a);

// ---- element-wise, binary with broadcasting --------------------------------
Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
Var div(const Var& a, const Var& b);
Var pow(const Var& a, const Var& b);      ///< a^b, a >= 0 where b needs a gradient
Var maximum(const Var& a, const Var& b);  ///< tie -> a
Var minimum(const Var& a, const Var& b);  ///< tie -> a
/// cond != 0 ? a : b, all three broadcast. cond is a constant mask.
Var where(const Tensor& cond, const Var& a, const Var& b);

// ---- element-wise, unary ----------------------------------------------------
Var neg(const Var& a);
Var add_scalar(const Var& a, double c);
Var mul_scalar(const Var& a, double c);
Var pow(const Var& a, double p);  ///< a^p; p = 0 gives the constant 1
Var square(const Var& a);
Var exp(const Var& a);
Var log(const Var& a);
Var sqrt(const Var& a);
Var sin(const Var& a);
Var cos(const Var& a);
Var tanh(const Var& a);
Var sigmoid(const Var& a);
Var relu(const Var& a);
Var softplus(const Var& a);  ///< log(1 + e^a)
Var abs(const Var& a);

Var operator+(const Var& a, const Var& b);
Var operator-(const Var& a, const Var& b);
Var operator*(const Var& a, const Var& b);
Var operator/(const Var& a, const Var& b);
Var operator-(const Var& a);
Var operator+(const Var& a, double c);
Var operator+(double c, const Var& a);
Var operator-(const Var& a, double c);
Var operator-(double c, const Var& a);
Var operator*(const Var& a, double c);
Var operator*(double c, const Var& a);
Var operator/(const Var& a, double c);
Var operator/(double c, const Var& a);

// ---- shape -------------------------------------------------------------------
/// NumPy broadcast to `shape` (returns a itself when the shape already fits).
Var broadcast_to(const Var& a, const Shape& shape);
/// Sum over the axes broadcasting from `shape` would stretch; adjoint of
/// broadcast_to.
Var sum_to_shape(const Var& a, const Shape& shape);
Var reshape(const Var& a, const Shape& shape);                   ///< one axis may be -1
Var transpose(const Var& a);                                     ///< swaps the last two axes
Var slice(const Var& a, int axis, index_t start, index_t stop);  ///< [start, stop)
Var concat(const Vars& parts, int axis);
/// Index arguments are int64 tensors on the device (Tensor::from_host_int64):
/// the graph keeps that tensor, not a host copy, and the range check runs on
/// the device. The Index (std::vector) overloads copy their indices to such
/// a tensor once. Another dtype is an error naming the op.
///
/// out[.., j, ..] = a[.., index[j], ..] along `axis` (1-D index).
Var index_select(const Var& a, int axis, const Tensor& index);
Var index_select(const Var& a, int axis, const Index& index);
Var index_select(const Var& a, int axis, std::initializer_list<index_t> index);
/// Rows of a (axis 0) picked by an index tensor of any shape: the result has
/// shape index.shape() + a.shape()[1:] (a[index] in NumPy).
Var gather(const Var& a, const Tensor& index);
Var gather(const Var& a, std::initializer_list<index_t> index);
/// Rows of a (axis 0) picked by an index array of shape index_shape: the
/// result has shape index_shape + a.shape()[1:] (a[index] in NumPy).
Var gather(const Var& a, const Index& index, const Shape& index_shape);
Var gather(const Var& a, const Index& index);
/// base with src[.., j, ..] added to base[.., index[j], ..] along `axis`;
/// repeated indices accumulate (atomic adds). Mesh use: cell -> node sums.
Var scatter_add(const Var& base, int axis, const Tensor& index, const Var& src);
Var scatter_add(const Var& base, int axis, const Index& index, const Var& src);
Var scatter_add(const Var& base, int axis, std::initializer_list<index_t> index, const Var& src);

// ---- reductions ----------------------------------------------------------------
Var sum(const Var& a);  ///< all elements, shape {}
Var sum(const Var& a, int axis, bool keepdims = false);
Var mean(const Var& a);  ///< NaN for an empty tensor
Var mean(const Var& a, int axis, bool keepdims = false);
Var max(const Var& a, int axis, bool keepdims = false);  ///< non-empty axis
Var max(const Var& a);                                   ///< all elements, non-empty
/// Over several axes (negative counts from the end; order and repeats do not
/// matter).
Var sum(const Var& a, const std::vector<int>& axes, bool keepdims = false);
Var mean(const Var& a, const std::vector<int>& axes, bool keepdims = false);
Var max(const Var& a, const std::vector<int>& axes, bool keepdims = false);

// ---- linear algebra -------------------------------------------------------------
Var dot(const Var& a, const Var& b);  ///< sum(a * b), shape {}
Var norm(const Var& a);               ///< Euclidean norm of all elements
/// (.., m, k) x (.., k, n), equal batch axes (Eigen GEMM per batch).
Var matmul(const Var& a, const Var& b);
/// A (.., m, n) times x (.., n) -> (.., m), batch axes broadcast.
Var batched_matvec(const Var& a, const Var& x);
/// u (m) outer v (n) -> (m, n).
Var outer(const Var& u, const Var& v);

}  // namespace camber::ad
