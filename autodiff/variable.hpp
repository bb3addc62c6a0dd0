/// @file
/// camber::ad::Var — a differentiable tensor: a node in a graph of tensor ops.
///
/// A Var holds a camber::Tensor value and, when it was computed from inputs
/// that require gradients, the op that produced it: its inputs and its
/// vector-Jacobian product (VJP) rule. Reverse mode walks this graph backwards
/// from an output (autodiff/functional.hpp: grad, vjp). Every VJP rule is
/// written with differentiable ad:: ops, so with create_graph the gradient is
/// itself a Var with a graph and can be differentiated again (any order).
///
/// Forward mode: a Var may also carry tangents (other Vars of the same
/// shape), one per nesting level of jvp(): level 0 for the outermost jvp,
/// 1 for a jvp inside it, and so on. Every op whose inputs carry tangents
/// computes its output's tangent at each level with its JVP rule, dy = J dx,
/// also written with ad:: ops. The rule for level l runs with the levels
/// below l active, so the level-l tangent carries the lower levels' tangents
/// itself: a jvp inside a jvp gives second directional derivatives (forward
/// over forward), to any depth. jvp() and hvp() (forward-over-reverse) in
/// functional.hpp set this up; users rarely touch tangents directly.
///
/// @code
///   namespace ad = camber::ad;
///   ad::Var x = ad::variable(camber::Tensor::from_host({3}, {1, 2, 3}));
///   ad::Var y = ad::sum(ad::sin(x) * x);              // ops: autodiff/ops.hpp
///   ad::Var g = ad::grad(y, {x}, /*create_graph=*/true)[0];  // cos(x) x + sin(x)
///   ad::Var h = ad::grad(ad::sum(g), {x})[0];         // elementwise 2nd derivative
/// @endcode
///
/// Most users want autodiff/functional.hpp (grad, vjp, jvp, hvp, jacobian,
/// hessian, checkpoint, custom_op) and autodiff/ops.hpp; this header holds the
/// handle, grad-mode guards and the op-recording primitive.
///
/// Ownership and lifetime: a Var is a shared handle (copies refer to the same
/// node). A node owns (shared) its input Vars, so an output keeps the graph
/// that produced it alive, and nothing else does: dropping the output frees
/// every intermediate no other Var refers to. A backward pass without
/// retain_graph releases each node's inputs and rule as soon as it has run, so
/// intermediates go away during the pass. Graphs of any depth are freed
/// without recursion. VJP/JVP closures should not capture Vars (they receive
/// inputs and output as arguments): a captured Var lives as long as the node,
/// and one that captures its own output is a reference cycle that never
/// frees.
///
/// Values are immutable by convention: a Var shares its Tensor's storage
/// (variable() does not copy, reshape shares too), and the graph reads saved
/// values in the backward pass. Changing such a Tensor in place (fill,
/// assign, +=, axpy, a halo exchange) before the backward pass is detected:
/// each node records the Tensor::version() of the values its VJP reads, and
/// the backward pass raises a camber::Error naming the op when one changed
/// (as PyTorch's version counters do). Ops whose VJP reads no values (add,
/// sub, sums, reshapes; Reads::nothing()) do not object. clone() a Tensor
/// before changing it if its graph is still to be differentiated.
///
/// Threads: grad mode and forward mode are thread_local flags; a graph must not
/// be built or differentiated from two threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/tensor.hpp>

namespace camber::ad {

class Var;
using Vars = std::vector<Var>;

/// VJP rule: given the op's inputs, its output and the cotangent of the
/// output, return one cotangent per input (shape of that input), or an
/// undefined Var where the input does not require a gradient. Must use ad::
/// ops only, so the result is differentiable when grad mode is on.
using VjpRule = std::function<Vars(const Vars& inputs, const Var& output, const Var& grad_out)>;
/// JVP rule: given the inputs, the output and one tangent per input (zeros
/// where an input has none), return the output's tangent. ad:: ops only.
using JvpRule = std::function<Var(const Vars& inputs, const Var& output, const Vars& tangents)>;

namespace detail {
struct Node;
struct VarImpl;
struct VarAccess;
struct Expr;
struct ExprLeaves;
}  // namespace detail

class Var {
 public:
  /// An undefined Var (no value): what a VJP returns for an input that needs
  /// no gradient.
  Var() = default;

  bool defined() const noexcept { return impl_ != nullptr; }
  const Tensor& value() const;
  /// Shape, rank and size do not compute a pending value (autodiff/fusion.hpp).
  const Shape& shape() const;
  int rank() const { return static_cast<int>(shape().size()); }
  index_t size() const { return shape_size(shape()); }
  /// The single value of a size-1 Var.
  double item() const { return value().item(); }
  /// The dtype of the value (float64 unless made from a float32 tensor).
  DType dtype() const;

  /// True when gradients flow to this Var: a leaf made by variable(), or the
  /// result of an op on such Vars while grad mode was on.
  bool requires_grad() const;
  /// True for a Var produced by a recorded op (not a leaf or constant).
  bool has_node() const;
  /// Name of the producing op ("leaf" for leaves and constants).
  std::string op_name() const;

  /// Forward mode. The tangent at `level` has this Var's shape; undefined
  /// when none. Without a level: the level a JVP rule is computing while it
  /// runs (so a rule asks about the tangents it is given), otherwise the
  /// innermost level this Var carries.
  const Var& tangent() const;
  const Var& tangent(int level) const;
  bool has_tangent() const;
  bool has_tangent(int level) const;

  /// A new constant sharing this value: no graph, no tangent.
  Var detach() const;

  /// Identity in a graph: the producing node for an op's result, the handle
  /// for a leaf. Var copies, and the twin a JVP rule sees as `output`, share
  /// it. Backward passes key their maps by it.
  const void* id() const noexcept;

 private:
  std::shared_ptr<detail::VarImpl> impl_;

  friend struct detail::VarAccess;
};

/// A leaf that requires a gradient (or not). The Tensor is shared, not copied.
Var variable(const Tensor& value, bool requires_grad = true);
/// A leaf that never requires a gradient.
Var constant(const Tensor& value);
Var scalar(double value);
/// A new Var with x's value (shared storage), x's tangents below `level`,
/// and `tangent` attached at `level` (by default the level of a jvp() called
/// now). When x requires a gradient, the new Var is an identity op on x, so
/// gradients flow back to x. Used by jvp().
Var with_tangent(const Var& x, const Var& tangent, int level = -1);

/// Grad mode: while off, ops record no graph (their results are constants).
bool grad_enabled() noexcept;

/// Scope that turns grad mode off, as torch.no_grad():
/// @code
///   { ad::NoGradGuard guard; auto y = model(x); }  // y has no graph
/// @endcode
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

/// Scope that turns grad mode on (used by checkpoint's recomputation).
class EnableGradGuard {
 public:
  EnableGradGuard();
  ~EnableGradGuard();
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_;
};

/// Which values an op's VJP rule reads: its inputs' and its output's (the
/// default), or none (add, sub, neg, scalar shifts and scales, reshapes:
/// their cotangents need shapes only). A backward pass checks that what a
/// rule reads was not changed in place since the op ran (Tensor::version())
/// and otherwise raises a camber::Error naming the op, instead of
/// computing a wrong gradient from the new values.
struct Reads {
  bool inputs = true;
  bool output = true;
  static Reads nothing() { return {false, false}; }
};

/// Records one op: wraps `value` in a Var whose node has `inputs` and the
/// rules. The node is recorded only if grad mode is on and some input
/// requires a gradient; the tangent is computed only if some input carries
/// one (jvp may be empty: then forward mode through this op is an error).
/// This is how every op in ops.hpp, and custom_op, is built.
Var record_op(const std::string& name, Tensor value, Vars inputs, VjpRule vjp, JvpRule jvp,
              Reads reads = {});

namespace detail {

struct Node {
  std::string name;
  Vars inputs;
  VjpRule vjp;
  bool released = false;
  Reads reads;
  // Tensor::version() of each input's value and of the output's when the op
  // ran (empty for nodes not made by record_op).
  std::vector<std::uint64_t> input_versions;
  std::uint64_t output_version = 0;
  // For a node whose VJP reads only some inputs' values (a fused
  // expression): 1 for each input it reads. Computed when first checked.
  std::function<std::vector<char>()> input_reads;
  // Throws if a value the VJP reads changed in place since the op ran.
  void check_unmodified(const Var& output) const;
  // Drops inputs and rule (what release after backward does).
  void release();
  // Frees the graph behind this node iteratively, so dropping a graph of
  // any depth (a long time loop) does not recurse through destructors.
  ~Node();
};

struct VarImpl {
  Tensor value;  ///< empty while the value is pending
  bool requires_grad = false;
  std::shared_ptr<Node> node;
  std::vector<Var> tangents;  ///< by forward level; undefined where none
  // A pending value (autodiff/fusion.hpp): the expression and the leaves it
  // reads; both null once computed.
  std::shared_ptr<const Expr> expr;
  std::shared_ptr<ExprLeaves> leaves;
  // The expression was folded into a later one (so that one's node does not
  // pass through this Var's node).
  bool inlined = false;
  // A deferred value (a reduction, a scatter): computed by `deferred` when
  // first read, so a value nothing reads (a loss under grad, a gradient
  // under hvp) costs no kernel. Null once computed.
  std::function<Tensor()> deferred;
  Shape deferred_shape;
  DType deferred_dtype = DType::float64;
};

// The shape and dtype of a Var's value without computing it.
const Shape& value_shape(const VarImpl& impl);
// True while the value is not computed (a pending expression or deferred).
inline bool value_pending(const VarImpl& impl) { return impl.expr || impl.deferred; }

// Node::input_versions entry of an input whose value was pending when the
// op ran (its version is not checked).
inline constexpr std::uint64_t pending_version = ~std::uint64_t{0};

// Forward mode for a new Var `impl` computed from `inputs`: its tangent at
// every level some input carries, by `jvp` (see record_op).
void attach_tangents(const std::string& name, const std::shared_ptr<VarImpl>& impl,
                     const Vars& inputs, const JvpRule& jvp);

struct VarAccess {
  static const std::shared_ptr<VarImpl>& impl(const Var& v) { return v.impl_; }
  static std::shared_ptr<VarImpl>& impl(Var& v) { return v.impl_; }
  static Var make(std::shared_ptr<VarImpl> impl) {
    Var v;
    v.impl_ = std::move(impl);
    return v;
  }
};

// Forward-mode levels. Ops propagate tangents at levels below
// forward_limit(): while the rule for level l runs the limit is l (the
// rule's own ops carry the lower levels, not level l itself); 0 turns
// forward mode off (checkpoint's forward pass). rule_level() is the level a
// JVP rule is computing (-1 outside rules); jvp_depth() the number of jvp()
// calls active, which is the level the next one attaches.
int forward_limit() noexcept;
int rule_level() noexcept;
int jvp_depth() noexcept;
class ForwardLimitGuard {
 public:
  explicit ForwardLimitGuard(int limit);
  ~ForwardLimitGuard();
  ForwardLimitGuard(const ForwardLimitGuard&) = delete;
  ForwardLimitGuard& operator=(const ForwardLimitGuard&) = delete;

 private:
  int previous_;
};
class RuleLevelGuard {
 public:
  explicit RuleLevelGuard(int level);
  ~RuleLevelGuard();
  RuleLevelGuard(const RuleLevelGuard&) = delete;
  RuleLevelGuard& operator=(const RuleLevelGuard&) = delete;

 private:
  int previous_;
};
// One more active jvp() while it lives.
class JvpDepthGuard {
 public:
  JvpDepthGuard();
  ~JvpDepthGuard();
  JvpDepthGuard(const JvpDepthGuard&) = delete;
  JvpDepthGuard& operator=(const JvpDepthGuard&) = delete;
};

}  // namespace detail
}  // namespace camber::ad
