/// @file
/// Losses of camber::nn: means over every element of prediction - target
/// (same shapes), as scalars (shape {}) ready for ad::grad.
///
///   mse    mean(r^2)
///   l1     mean(|r|)                     (derivative 0 at r = 0, as abs)
///   huber  mean(h(r)), h = r^2 / 2 for |r| <= delta, delta (|r| - delta/2) beyond
///
/// A weighted sum of losses is plain arithmetic on the returned Vars
/// (0.5 * mse(a, b) + 2.0 * l1(c, d)).
#pragma once

#include <camber/autodiff/graph.hpp>

namespace camber::nn {

namespace ad = camber::ad;

ad::Var mse(const ad::Var& prediction, const ad::Var& target);
ad::Var l1(const ad::Var& prediction, const ad::Var& target);
ad::Var huber(const ad::Var& prediction, const ad::Var& target, double delta = 1.0);

/// Sums instead of means: data-parallel training divides by the global batch
/// size itself (data_parallel.hpp).
ad::Var sum_squared_error(const ad::Var& prediction, const ad::Var& target);

/// The misfit of a network's input Jacobian: the sum over rows, outputs o
/// and inputs k of (d prediction[r, o] / d x[r, k] - target[r, o, k])^2,
/// prediction {rows, n_out} computed from x {rows, n_in} (a Var that
/// requires its gradient), target {rows, n_out, n_in} (e.g. adjoint
/// gradients). The Jacobian is taken with create_graph (one backward pass
/// per output; rows are independent, so the gradient of a row sum is each
/// row's), so the result is differentiable in the network's weights:
/// gradient-enhanced (Sobolev) training differentiates it to second order.
ad::Var sum_squared_jacobian_error(const ad::Var& prediction, const ad::Var& x,
                                   const Tensor& target);

}  // namespace camber::nn
