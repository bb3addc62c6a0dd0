// Element-wise expression DAGs and the kernels that evaluate them in one
// pass. Internal to the tensor graph; the user-facing switch is in
// autodiff/fusion.hpp.
//
// An Expr is an immutable node of a DAG of element-wise operations. Every
// node of one DAG has the same shape (broadcasting and slicing are pushed
// down to the leaves when a DAG is built), so a DAG is evaluated element by
// element: element i of the root needs element i of every node. A leaf reads
// a materialized Tensor through a view: an offset and one stride per axis of
// the DAG's shape (0 on broadcast axes), so broadcasts and slices cost no
// copy.
//
// Evaluation compiles a DAG (or several roots over one shape) into a
// register program: the nodes in topological order, each an instruction
// writing one register, registers reused once their last reader has run.
// One Kokkos kernel runs the program. On host backends it runs over tiles
// of elements (each instruction a short vectorizable loop over the tile, so
// the interpreter's dispatch is paid once per tile, not per element); on a
// GPU each thread runs it for one element with the registers in local
// memory. Reductions (the sum over all elements or over some axes) run the
// program inside the reduction kernel, so a sum of an expression reads only
// the expression's leaves.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <camber/autodiff/variable.hpp>
#include <camber/core/tensor.hpp>

namespace camber::ad::detail {

enum class ExprOp : std::uint8_t {
  Leaf,
  Const,  // c
  // binary
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Ge,  // a >= b ? 1 : 0 (a constant mask)
  // ternary
  Select,  // a != 0 ? b : c
  // unary
  Neg,
  AddC,  // a + c
  MulC,  // a * c
  PowC,  // a ^ c
  Exp,
  Log,
  Sqrt,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Softplus,
  Relu,
  Abs,
  Step,    // a > 0 ? 1 : 0
  Sign,    // -1, 0, 1
  IsZero,  // a == 0 ? 1 : 0
  // Programs only (never a DAG node): sin and cos of one argument at once.
  SinCos,
};

const char* expr_op_name(ExprOp op);
int expr_arity(ExprOp op);
// Masks: their value is piecewise constant, so no derivative flows through.
bool expr_is_mask(ExprOp op);

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

struct Expr {
  ExprOp op = ExprOp::Const;
  double c = 0.0;  // Const's value, AddC/MulC/PowC's scalar
  Shape shape;
  // float64 or float32 (the storage of the leaves and of the result; a
  // program computes in double and rounds once when it stores).
  DType dtype = DType::float64;
  ExprPtr args[3];
  // Distinct nodes in the DAG below and including this one: an upper bound
  // (shared nodes counted once per distinct argument), made exact by a count
  // whenever it passes max_expr_size.
  std::int64_t size = 1;

  // Leaf only: `value`'s element (i_0, ..., i_k) of this node's shape is at
  // value.data()[offset + sum i_d * strides[d]].
  Tensor value;
  index_t offset = 0;
  Shape strides;
  std::uint64_t version = 0;  // value.version() when the leaf was made
  // The view as differentiable ops, from a Var of the source's shape to this
  // leaf's (broadcast_to, slice: used for tangents), and its adjoint, from a
  // cotangent of this leaf's shape to the source's (sum_to_shape, pad). Both
  // null when the leaf is the whole source, unchanged.
  std::function<Var(const Var&)> view;
  std::function<Var(const Var&)> adjoint;
};

// The leaves below a pending expression and the Vars they read, in the same
// order: the inputs of the graph node that differentiates the expression.
struct ExprLeaves {
  std::vector<ExprPtr> exprs;
  Vars vars;
};

// The leaf reading all of `v` (materialized) at its own shape.
ExprPtr leaf_expr(const Var& v);
ExprPtr const_expr(const Shape& shape, double c, DType dtype = DType::float64);
// A node over args of equal shape; size counts distinct nodes.
ExprPtr op_expr(ExprOp op, const std::vector<ExprPtr>& args, double c = 0.0);

// The same DAG seen through a view change applied to its value: broadcast to
// `shape`, or a slice [start, stop) on `axis`. Leaves get the new view (and
// a composed adjoint); `out_leaves` receives the new leaves with the Vars of
// the old ones (`leaves` lists the old).
ExprPtr broadcast_expr(const ExprPtr& e, const Shape& shape, const ExprLeaves& leaves,
                       ExprLeaves& out_leaves);
ExprPtr slice_expr(const ExprPtr& e, int axis, index_t start, index_t stop,
                   const ExprLeaves& leaves, ExprLeaves& out_leaves);

// Post-order (arguments before their users) of the DAG under `roots`.
std::vector<const Expr*> expr_topological(const std::vector<ExprPtr>& roots);

// True when strides (one per axis of `shape`) address element i (row-major
// flat index) at i * step for one step, which is then set.
bool affine_step(const Shape& shape, const Shape& strides, index_t& step);

// Evaluates roots that share one shape in one kernel (one output each).
std::vector<Tensor> evaluate(const std::vector<ExprPtr>& roots);
// Where element i (row-major over the roots' shape) of a root goes in a
// tensor: offset + sum i_d strides[d]. Must be injective.
struct ScatterTarget {
  Tensor out;
  index_t offset = 0;
  Shape strides;
};
// target_k.out[target_k(i)] = root_k(i) (or += with accumulate) for every
// root k, in one kernel. Targets of different roots must not overlap (two
// roots writing one element would race).
void scatter(const std::vector<ExprPtr>& roots, const std::vector<ScatterTarget>& targets,
             bool accumulate);

// Sum of the root's elements over `axes` (sorted, distinct), kept as
// extent-1 axes in the result: one kernel, the expression never stored.
Tensor reduce_sum(const ExprPtr& root, const std::vector<int>& axes);
// The same for up to 4 roots of one shape in one kernel.
std::vector<Tensor> reduce_sums(const std::vector<ExprPtr>& roots, const std::vector<int>& axes);

// ---- pending Vars (autodiff/fusion.cpp) ----------------------------------------

// The element-wise op `op` on args (broadcast to their common shape): a
// pending Var when fusion is on, computed at once otherwise; recorded for
// reverse mode and given tangents for forward mode.
Var fused_op(ExprOp op, const Vars& args, double c = 0.0);
// A constant of `shape` with every element c, never stored while pending.
Var fused_const(const Shape& shape, double c, DType dtype = DType::float64);
// broadcast_to and slice as pending views (fusion on only).
Var fused_broadcast(const Var& a, const Shape& shape);
Var fused_slice(const Var& a, int axis, index_t start, index_t stop);

// A strided view into a row-major tensor: element i (of `shape`) is at
// offset + sum i_d strides[d]. Views made by slicing are injective.
struct StridedView {
  Shape shape;
  index_t offset = 0;
  Shape strides;
};
// The view of src's value as a pending leaf (its adjoint: scatter_views).
Var view_of(const Var& src, const StridedView& view);
// A tensor of `shape` that is zero except where the injective views are:
// the sum over k of parts[k] written at views[k]. The adjoint of several
// slices of one tensor: one kernel when the views are disjoint and the parts
// share a shape (the parts' pending expressions computed in it), with no
// zero fill when they also cover the tensor.
Var scatter_views(const Vars& parts, const std::vector<StridedView>& views, const Shape& shape);

// The expression of v: its pending one, or a leaf reading its value.
ExprPtr expr_of(const Var& v);
// A reduction of `a` over `axes` (sorted; extent-1 axes kept, then reshaped
// to out_shape) recorded with the rules given. When a carries one forward
// level, its tangent's reduction is computed by the same kernel.
Var fused_reduction(const std::string& name, const Var& a, const std::vector<int>& axes,
                    const Shape& out_shape, const VjpRule& vjp, const JvpRule& jvp);

// Largest size (distinct nodes) a pending expression may reach; past it the
// operands are materialized first.
inline constexpr std::int64_t max_expr_size = 1024;

}  // namespace camber::ad::detail
