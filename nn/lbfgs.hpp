/// @file
/// L-BFGS with a strong-Wolfe line search, for full-batch problems
/// (physics-informed losses, small regressions), over the parameters of a
/// model.
///
/// The direction comes from the two-loop recursion over the last `history`
/// pairs (s, y) (Nocedal & Wright, Numerical Optimization, 2nd ed., Alg.
/// 7.4), scaled by gamma = s'y / y'y; the step from the line search of Alg.
/// 3.5 and 3.6 (bracketing, then zoom by cubic interpolation safeguarded to
/// the bracket's interior), so every accepted step satisfies
///   f(x + a p) <= f(x) + c1 a g'p   and   |g(x + a p)'p| <= c2 |g'p|.
/// A pair with s'y <= 1e-10 |s| |y| is skipped (curvature too small to keep
/// the inverse-Hessian estimate positive definite).
///
/// The loss is a closure that builds the loss Var of the current parameter
/// values; it is evaluated once per line-search trial (with its gradient).
/// Parameters are updated in place. Arithmetic is in float64 on the host
/// (parameters are gathered into one vector per evaluation): meant for
/// models of up to some 1e5 parameters. Under data parallelism the closure
/// must return the global loss and the caller must sum the gradients; use
/// lbfgs(params, value_and_grad) for that.
///
/// @code
///   nn::LbfgsResult r = nn::lbfgs(net->parameters(), [&] { return pinn_loss(); });
/// @endcode
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <camber/autodiff/graph.hpp>

namespace camber::nn {

namespace ad = camber::ad;

struct LbfgsOptions {
  int history = 10;                ///< (s, y) pairs kept
  int max_iterations = 100;        ///< directions taken
  int max_evaluations = 0;         ///< loss evaluations in all (0: 25 per iteration)
  double gradient_tolerance = 1e-9;  ///< stop when max |g| <= this
  double change_tolerance = 1e-12;   ///< stop when |f_k - f_{k+1}| <= this * max(1, |f_k|)
  double c1 = 1e-4;                ///< sufficient decrease
  double c2 = 0.9;                 ///< curvature
  int max_line_search = 25;        ///< trials per line search
};

struct LbfgsResult {
  double loss = 0.0;        ///< at the final parameters
  double gradient_max = 0.0;  ///< max |g| there
  int iterations = 0;
  int evaluations = 0;
  bool converged = false;   ///< a tolerance was met (not a limit)
  std::string stop_reason;
};

/// The loss and its gradient (one per parameter) at the current values.
using ValueAndGradient = std::function<double(std::vector<Tensor>& gradients)>;

LbfgsResult lbfgs(const ad::Vars& params, const std::function<ad::Var()>& loss,
                  const LbfgsOptions& options = {});
LbfgsResult lbfgs(const ad::Vars& params, const ValueAndGradient& value_and_gradient,
                  const LbfgsOptions& options = {});

}  // namespace camber::nn
