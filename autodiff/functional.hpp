/// @file
/// Derivatives of programs written with camber::ad ops: grad, vjp, jvp, hvp,
/// jacobian, hessian; checkpointing; user-defined ops.
///
/// Reverse mode (vjp, grad) walks the graph recorded behind the outputs:
/// @code
///   vjp:  given outputs y = f(x) and cotangents w, returns J^T w per input,
///   grad: the vjp of a scalar with w = 1.
/// @endcode
/// Forward mode (jvp) pushes tangents through f: returns J v.
/// hvp(f, x, v) = H v is forward-over-reverse: jvp of x -> grad f(x).
///
/// @code
///   namespace ad = camber::ad;
///   auto f = [](const ad::Var& x) { return ad::sum(ad::sin(x) * ad::exp(x)); };
///   ad::Var x = ad::variable(x0);
///   auto [y, g1] = ad::value_and_grad(f, x);                  // f(x) and its gradient
///   ad::Var g = ad::grad(f(x), {x}, /*create_graph=*/true)[0];
///   ad::Var g2 = ad::grad(ad::sum(g), {x}, true)[0];        // 2nd derivative, again
///   camber::Tensor Hv = ad::hvp(f, x0, v0);                  // H v, no Hessian formed
///   camber::Tensor H = ad::hessian(f, x0);                   // shape x0 + x0
///   ad::Var Hv2 = ad::hvp(f, x, ad::constant(v0));           // the same, as a Var
/// @endcode
///
/// Every function comes in a Var form (inputs and results are Vars, and with
/// create_graph the results can be differentiated again) and, where a plain
/// value is all one wants, a Tensor form (hvp, jacobian, hessian).
///
/// create_graph = true records the backward pass itself, so its results can
/// be differentiated again (any order). Otherwise the backward pass runs
/// under no_grad and its results are constants.
/// retain_graph = false (the default unless create_graph) releases every node
/// of the graph behind the outputs as soon as the pass has used it, freeing
/// intermediates; differentiating the same graph again then throws. Pass
/// retain_graph = true to call vjp several times on one graph.
///
/// Nesting: a jvp inside a jvp attaches its tangents at the next level
/// (variable.hpp), so forward over forward gives D^2 f[u, v] and deeper
/// nests higher directional derivatives; each level costs the JVP rules
/// once more on top of the levels below. Reverse over forward works too:
/// jvp's tangents are Vars with a graph.
/// jacobian and hessian cost one vjp / one hvp per output / input element:
/// meant for small problems and tests. Ops record only on the calling thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <camber/autodiff/ops.hpp>
#include <camber/autodiff/variable.hpp>

namespace camber::ad {

struct GradOptions {
  bool create_graph = false;
  bool retain_graph = false;  ///< implied by create_graph
  /// An input the outputs do not depend on gets a zero gradient (true) or
  /// makes vjp throw (false).
  bool allow_unused = true;
};

/// J^T w for each input: cotangents[k] has outputs[k]'s shape (a missing or
/// undefined cotangent counts as zero). Each result has its input's shape.
Vars vjp(const Vars& outputs, const Vars& inputs, const Vars& cotangents,
         const GradOptions& options = {});
/// Gradient of a scalar (size-1) output.
Vars grad(const Var& output, const Vars& inputs, bool create_graph = false,
          bool retain_graph = false);

using VarFunction = std::function<Var(const Var&)>;
using MultiFunction = std::function<Vars(const Vars&)>;
/// A scalar function of several inputs.
using ScalarFunction = std::function<Var(const Vars&)>;

/// f(x) and its gradient from one forward and one reverse pass.
struct ValueAndGrad {
  Var value;   ///< f(x), size 1
  Vars grads;  ///< one per input, each of its input's shape
};
/// f must return a scalar (size 1). An input that does not require a
/// gradient (a constant) is differentiated as if it did. With create_graph
/// the gradients can be differentiated again.
ValueAndGrad value_and_grad(const VarFunction& f, const Var& x, bool create_graph = false);
ValueAndGrad value_and_grad(const ScalarFunction& f, const Vars& inputs,
                            bool create_graph = false);

struct JvpResult {
  Vars outputs;
  Vars tangents;  ///< J v, one per output (differentiable Vars)
};
/// Forward mode: f evaluated at primals with tangents attached.
JvpResult jvp(const MultiFunction& f, const Vars& primals, const Vars& tangents);
JvpResult jvp(const VarFunction& f, const Var& primal, const Var& tangent);

/// Hessian-vector product of a scalar function at x along v
/// (forward-over-reverse: one forward pass with tangents and one backward).
Tensor hvp(const VarFunction& f, const Tensor& x, const Tensor& v);
/// Jacobian of f at x, shape f(x).shape() + x.shape(); one vjp per output
/// element (reverse mode).
Tensor jacobian(const VarFunction& f, const Tensor& x);
/// Hessian of a scalar f at x, shape x.shape() + x.shape(); one hvp per
/// input element.
Tensor hessian(const VarFunction& f, const Tensor& x);

/// Var forms of the three above. The result is differentiable with respect
/// to x (and v) when create_graph is true and they require gradients
/// (reverse over reverse: hvp = d/dx <grad f(x), v>); otherwise a constant.
Var hvp(const VarFunction& f, const Var& x, const Var& v, bool create_graph = false);
Var jacobian(const VarFunction& f, const Var& x, bool create_graph = false);
Var hessian(const VarFunction& f, const Var& x, bool create_graph = false);

/// Checkpointing (recompute in backward): returns f(inputs) but records only
/// the inputs, not f's intermediates. The forward pass runs f under no_grad;
/// the backward pass runs f again with grad on and differentiates through
/// it (with create_graph too). Forward mode re-runs f with the tangents.
/// f must be a pure function of its inputs.
Var checkpoint(const MultiFunction& f, const Vars& inputs);

/// A user-defined op. `forward` computes the value from the inputs' values;
/// `vjp` returns one cotangent per input (undefined where an input needs
/// none) written with ad:: ops (or with custom ops, as below) so it can be
/// differentiated again; `jvp` (optional) returns the output tangent. Without
/// `jvp`, forward mode through the op throws. See tests/autodiff/
/// test_custom_op.cpp for a linear solve x = A^{-1} b whose VJP is another
/// solve with A^T:
///
/// @code
///   ad::Var solve(const ad::Var& A, const ad::Var& b) {   // b: shape {n}
///     return ad::custom_op("solve", {A, b},
///         [](const std::vector<camber::Tensor>& v) { return dense_solve(v[0], v[1]); },
///         [](const ad::Vars& in, const ad::Var& x, const ad::Var& g) -> ad::Vars {
///           ad::Var gb = solve(ad::transpose(in[0]), g);  // A^T gb = g
///           return {-ad::outer(gb, x), gb};               // grad_A = -gb x^T
///         },
///         [](const ad::Vars& in, const ad::Var& x, const ad::Vars& t) {
///           // dx = A^{-1} (db - dA x)
///           return solve(in[0], t[1] - ad::batched_matvec(t[0], x));
///         });
///   }
/// @endcode
using CustomForward = std::function<Tensor(const std::vector<Tensor>& inputs)>;
Var custom_op(const std::string& name, const Vars& inputs, const CustomForward& forward,
              VjpRule vjp, JvpRule jvp = nullptr);

/// Ops with several outputs. `forward` returns one Tensor per output (any
/// shapes); `vjp` receives the op's inputs, its outputs and one cotangent
/// per output (zeros for an output nothing downstream used) and returns one
/// cotangent per input; `jvp` (optional) returns one tangent per output.
/// Rules are written with ad:: ops, as for custom_op, so they differentiate
/// again:
///
/// @code
///   ad::Vars sc = ad::custom_op_multi("sincos", {x},
///       [](const std::vector<camber::Tensor>& v) {
///         return std::vector<camber::Tensor>{camber::sin(v[0]), camber::cos(v[0])};
///       },
///       [](const ad::Vars&, const ad::Vars& out, const ad::Vars& g) -> ad::Vars {
///         return {g[0] * out[1] - g[1] * out[0]};      // d sin = cos, d cos = -sin
///       });
/// @endcode
///
/// One node records the op; its value is the outputs flattened and
/// concatenated, and each output is a slice of it (one extra copy of the
/// outputs in the forward pass, and of the cotangents in the backward pass).
using CustomForwardMulti = std::function<std::vector<Tensor>(const std::vector<Tensor>& inputs)>;
using MultiVjpRule =
    std::function<Vars(const Vars& inputs, const Vars& outputs, const Vars& grad_outputs)>;
using MultiJvpRule =
    std::function<Vars(const Vars& inputs, const Vars& outputs, const Vars& tangents)>;
Vars custom_op_multi(const std::string& name, const Vars& inputs,
                     const CustomForwardMulti& forward, MultiVjpRule vjp,
                     MultiJvpRule jvp = nullptr);

/// checkpoint() for an f with several outputs: f(inputs), recording only
/// the inputs; the backward pass recomputes f once for all outputs.
Vars checkpoint_multi(const MultiFunction& f, const Vars& inputs);

}  // namespace camber::ad
