// Pending Vars: element-wise ops as expressions (autodiff/fusion.hpp), their
// graph nodes and their derivative rules.
#include <camber/autodiff/fusion.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "detail/fusion.hpp"
#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>

namespace camber::ad {

using detail::Expr;
using detail::ExprLeaves;
using detail::ExprOp;
using detail::ExprPtr;
using detail::VarAccess;
using detail::VarImpl;

namespace {
// -1: not read from the environment yet.
thread_local int tl_fusion = -1;
}  // namespace

bool fusion_enabled() noexcept {
  if (tl_fusion < 0) {
    const char* s = std::getenv("CAMBER_FUSION");
    tl_fusion = s && std::strcmp(s, "0") == 0 ? 0 : 1;
  }
  return tl_fusion == 1;
}

FusionGuard::FusionGuard(bool enabled) : previous_(fusion_enabled()) { tl_fusion = enabled ? 1 : 0; }
FusionGuard::~FusionGuard() { tl_fusion = previous_ ? 1 : 0; }

bool is_pending(const Var& v) { return v.defined() && detail::value_pending(*VarAccess::impl(v)); }

const Var& materialize(const Var& v) {
  if (is_pending(v)) (void)v.value();
  return v;
}

void materialize(const Vars& vs) {
  for (const Var& v : vs)
    if (v.defined() && VarAccess::impl(v)->deferred) (void)v.value();
  std::vector<VarImpl*> waiting;
  for (const Var& v : vs)
    if (v.defined() && VarAccess::impl(v)->expr) {
      VarImpl* p = VarAccess::impl(v).get();
      if (std::find(waiting.begin(), waiting.end(), p) == waiting.end()) waiting.push_back(p);
    }
  while (!waiting.empty()) {
    const Shape shape = waiting.front()->expr->shape;
    std::vector<VarImpl*> group;
    std::vector<ExprPtr> roots;
    for (auto it = waiting.begin(); it != waiting.end() && group.size() < 8;) {
      if ((*it)->expr->shape == shape) {
        group.push_back(*it);
        roots.push_back((*it)->expr);
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
    std::vector<Tensor> values = detail::evaluate(roots);
    for (size_t k = 0; k < group.size(); ++k) {
      group[k]->value = std::move(values[k]);
      group[k]->expr = nullptr;
      group[k]->leaves = nullptr;
    }
  }
}

namespace detail {

namespace {

struct Operand {
  ExprPtr expr;
  ExprLeaves leaves;
};

// a as an expression of `shape` (a broadcast of a's shape): its pending
// expression, or a leaf reading its value.
Operand operand(const Var& a, const Shape& shape) {
  const auto& impl = VarAccess::impl(a);
  ExprPtr e;
  ExprLeaves l;
  if (impl->expr) {
    e = impl->expr;
    l = *impl->leaves;
  } else {
    e = leaf_expr(a);
    l.exprs = {e};
    l.vars = {a};
  }
  if (e->shape == shape) return {std::move(e), std::move(l)};
  Operand r;
  r.expr = broadcast_expr(e, shape, l, r.leaves);
  return r;
}

void merge(ExprLeaves& into, const ExprLeaves& from) {
  for (size_t k = 0; k < from.exprs.size(); ++k) {
    bool have = false;
    for (const ExprPtr& e : into.exprs) have = have || e == from.exprs[k];
    if (have) continue;
    into.exprs.push_back(from.exprs[k]);
    into.vars.push_back(from.vars[k]);
  }
}

Vars fused_vjp(const ExprPtr& root, const std::vector<ExprPtr>& leaf_exprs, const Vars& in,
               const Var& out, const Var& g);

// Which leaves' values the VJP of `root` reads (1 per leaf): those below an
// argument a derivative rule needs (the other factor of a product, the
// argument of exp, a mask's operands, ...). Sums, differences and scalings
// read nothing, so changing their inputs in place does not alter the
// gradient.
std::vector<char> leaves_read(const ExprPtr& root, const std::vector<ExprPtr>& leaf_exprs) {
  const std::vector<const Expr*> order = expr_topological({root});
  std::unordered_set<const Expr*> read;  // nodes whose value a rule needs
  for (const Expr* e : order) {
    switch (e->op) {
      case ExprOp::Leaf:
      case ExprOp::Const:
      case ExprOp::Add:
      case ExprOp::Sub:
      case ExprOp::Neg:
      case ExprOp::AddC:
      case ExprOp::MulC: break;
      case ExprOp::Select: read.insert(e->args[0].get()); break;
      default:
        if (expr_is_mask(e->op)) break;
        for (const ExprPtr& a : e->args)
          if (a) read.insert(a.get());
    }
  }
  // Everything below a read node is read (its value is recomputed).
  for (size_t i = order.size(); i-- > 0;)
    if (read.count(order[i]))
      for (const ExprPtr& a : order[i]->args)
        if (a) read.insert(a.get());
  std::vector<char> mask(leaf_exprs.size(), 0);
  for (size_t k = 0; k < leaf_exprs.size(); ++k) mask[k] = read.count(leaf_exprs[k].get()) ? 1 : 0;
  return mask;
}

// A Var for a pending expression: a graph node over its leaves (when some
// leaf needs a gradient and grad mode is on) whose VJP differentiates the
// expression, tangents from `jvp` on `args` (the op's own operands), and the
// value computed at once when fusion is off.
Var make_pending(const std::string& name, ExprPtr e, ExprLeaves leaves, const Vars& args,
                 const JvpRule& jvp) {
  auto impl = std::make_shared<VarImpl>();
  bool any_grad = false;
  for (const Var& v : leaves.vars) any_grad = any_grad || v.requires_grad();
  if (grad_enabled() && any_grad) {
    impl->requires_grad = true;
    auto node = std::make_shared<Node>();
    node->name = name;
    // The leaves, and the output when it was computed (then read instead of
    // recomputed); output_version is that of a value computed later (0).
    node->reads = {true, true};
    for (const Var& v : leaves.vars) node->input_versions.push_back(v.value().version());
    node->inputs = leaves.vars;
    node->vjp = [e, lex = leaves.exprs](const Vars& inputs, const Var& out, const Var& g) {
      return fused_vjp(e, lex, inputs, out, g);
    };
    node->input_reads = [e, lex = leaves.exprs]() { return leaves_read(e, lex); };
    impl->node = std::move(node);
  }
  impl->expr = std::move(e);
  impl->leaves = std::make_shared<ExprLeaves>(std::move(leaves));
  attach_tangents(name, impl, args, jvp);
  Var v = VarAccess::make(std::move(impl));
  if (!fusion_enabled()) (void)v.value();
  return v;
}

// The pending Var of one leaf of a fused node, over the node's input `src`.
Var leaf_var(const ExprPtr& leaf, const Var& src) {
  ExprLeaves l;
  l.exprs = {leaf};
  l.vars = {src};
  auto view = leaf->view;
  return make_pending("view", leaf, std::move(l), {src},
                      [view](const Vars&, const Var&, const Vars& t) {
                        return view ? view(t[0]) : t[0];
                      });
}

Var konst(const Var& like, double c) { return fused_const(like.shape(), c, like.dtype()); }

// The partial derivatives of a^b, with autodiff/dual.hpp's conventions at a
// base of 0 (see ops.hpp):
//   d/da = b a^(b-1), but 0 where a = 0 and b = 0 (a^0 is the constant 1);
//   d/db = a^b log a, but 0 where a = 0 (0^b = 0 for b > 0; not 0 * log 0).
// The masked entries are fed a base of 1, so no derivative of these rules
// multiplies a zero by inf.
Var pow_dbase(const Var& a, const Var& b) {
  const Var both = mul(fused_op(ExprOp::IsZero, {a}), fused_op(ExprOp::IsZero, {b}));
  const Var safe_a = fused_op(ExprOp::Select, {both, konst(a, 1.0), a});
  return fused_op(ExprOp::Select,
                  {both, konst(a, 0.0), mul(b, pow(safe_a, add_scalar(b, -1.0)))});
}
Var pow_dexponent(const Var& a, const Var& out) {
  const Var zero = fused_op(ExprOp::IsZero, {a});
  const Var safe_a = fused_op(ExprOp::Select, {zero, konst(a, 1.0), a});
  return fused_op(ExprOp::Select, {zero, konst(a, 0.0), mul(out, log(safe_a))});
}

// dy/da for the unary ops, from the argument a and the result y.
Var unary_derivative(ExprOp op, double c, const Var& a, const Var& y) {
  switch (op) {
    case ExprOp::PowC: return c == 2.0 ? mul_scalar(a, 2.0) : mul_scalar(pow(a, c - 1.0), c);
    case ExprOp::Exp: return y;
    case ExprOp::Log: return pow(a, -1.0);
    case ExprOp::Sqrt: return mul_scalar(pow(y, -1.0), 0.5);
    case ExprOp::Sin: return cos(a);
    case ExprOp::Cos: return neg(sin(a));
    case ExprOp::Tanh: return sub(konst(y, 1.0), mul(y, y));
    case ExprOp::Sigmoid: return mul(y, sub(konst(y, 1.0), y));
    case ExprOp::Softplus: return sigmoid(a);
    case ExprOp::Relu: return fused_op(ExprOp::Step, {a});
    case ExprOp::Abs: return fused_op(ExprOp::Sign, {a});
    default: break;
  }
  CAMBER_REQUIRE(false, "fused op " << expr_op_name(op) << " has no unary derivative");
  return {};
}

// Cotangents of the op's arguments (undefined where need[k] is 0).
Vars local_vjp(ExprOp op, double c, const Vars& a, const Var& y, const Var& g,
               const char* need) {
  switch (op) {
    case ExprOp::Add: return {need[0] ? g : Var(), need[1] ? g : Var()};
    case ExprOp::Sub: return {need[0] ? g : Var(), need[1] ? neg(g) : Var()};
    case ExprOp::Mul: return {need[0] ? mul(g, a[1]) : Var(), need[1] ? mul(g, a[0]) : Var()};
    case ExprOp::Div: {
      const Var ga = div(g, a[1]);
      return {need[0] ? ga : Var(), need[1] ? neg(mul(ga, y)) : Var()};
    }
    case ExprOp::Pow:
      return {need[0] ? mul(g, pow_dbase(a[0], a[1])) : Var(),
              need[1] ? mul(g, pow_dexponent(a[0], y)) : Var()};
    case ExprOp::Select: {
      const Var z = konst(g, 0.0);
      return {Var(), need[1] ? fused_op(ExprOp::Select, {a[0], g, z}) : Var(),
              need[2] ? fused_op(ExprOp::Select, {a[0], z, g}) : Var()};
    }
    case ExprOp::Neg: return {neg(g)};
    case ExprOp::AddC: return {g};
    case ExprOp::MulC: return {mul_scalar(g, c)};
    default: return {mul(g, unary_derivative(op, c, a[0], y))};
  }
}

// The output's tangent from the arguments' tangents t (zeros where none).
Var local_jvp(ExprOp op, double c, const Vars& a, const Var& y, const Vars& t) {
  if (expr_is_mask(op)) return konst(y, 0.0);
  switch (op) {
    case ExprOp::Add: return add(t[0], t[1]);
    case ExprOp::Sub: return sub(t[0], t[1]);
    case ExprOp::Mul: return add(mul(t[0], a[1]), mul(a[0], t[1]));
    case ExprOp::Div: return div(sub(t[0], mul(y, t[1])), a[1]);
    case ExprOp::Pow: {
      // Skip the term of an operand without a tangent: log(a) is NaN for a < 0.
      Var r = konst(y, 0.0);
      if (a[0].has_tangent()) r = mul(t[0], pow_dbase(a[0], a[1]));
      if (a[1].has_tangent()) r = add(r, mul(t[1], pow_dexponent(a[0], y)));
      return r;
    }
    case ExprOp::Select: return fused_op(ExprOp::Select, {a[0], t[1], t[2]});
    case ExprOp::Neg: return neg(t[0]);
    case ExprOp::AddC: return t[0];
    case ExprOp::MulC: return mul_scalar(t[0], c);
    default: return mul(t[0], unary_derivative(op, c, a[0], y));
  }
}

// A leaf reading distinct elements (no broadcast axis): a slice or all of
// its input.
bool injective(const Expr& leaf) {
  for (size_t d = 0; d < leaf.shape.size(); ++d)
    if (leaf.shape[d] > 1 && leaf.strides[d] == 0) return false;
  return true;
}

Vars fused_vjp(const ExprPtr& root, const std::vector<ExprPtr>& leaf_exprs, const Vars& in,
               const Var& out, const Var& g) {
  const std::vector<const Expr*> order = expr_topological({root});
  // An output already computed (stored for a matmul, or asked for) is read,
  // not recomputed: tanh's derivative uses tanh's stored value, as an
  // unfused graph does.
  const bool stored = out.defined() && !is_pending(out) && root->op != ExprOp::Leaf &&
                      root->op != ExprOp::Const;
  std::unordered_map<const Expr*, size_t> leaf_of;
  for (size_t k = 0; k < leaf_exprs.size(); ++k) leaf_of.emplace(leaf_exprs[k].get(), k);
  // Which nodes a needed cotangent flows through, and each node as a Var
  // (pending expressions over the inputs, so the cotangents fuse with the
  // recomputed forward values).
  std::unordered_map<const Expr*, char> need;
  std::unordered_map<const Expr*, Var> val;
  for (const Expr* e : order) {
    char n = 0;
    if (e->op == ExprOp::Leaf) {
      const size_t k = leaf_of.at(e);
      n = in[k].requires_grad() ? 1 : 0;
      // A leaf that reads its whole input unchanged is that input.
      val.emplace(e, e->view ? leaf_var(leaf_exprs[k], in[k]) : in[k]);
    } else if (e->op == ExprOp::Const) {
      val.emplace(e, fused_const(e->shape, e->c, e->dtype));
    } else {
      Vars args;
      for (int j = 0; j < expr_arity(e->op); ++j) {
        const Expr* a = e->args[j].get();
        args.push_back(val.at(a));
        if (!expr_is_mask(e->op) && !(e->op == ExprOp::Select && j == 0)) n = n || need.at(a);
      }
      val.emplace(e, stored && e == root.get() ? out : fused_op(e->op, args, e->c));
    }
    need.emplace(e, n);
  }
  std::unordered_map<const Expr*, Var> cot;
  cot.emplace(root.get(), g);
  for (size_t i = order.size(); i-- > 0;) {
    const Expr* e = order[i];
    if (e->op == ExprOp::Leaf || e->op == ExprOp::Const || !need.at(e)) continue;
    auto it = cot.find(e);
    if (it == cot.end()) continue;
    const Var ge = it->second;
    cot.erase(it);
    Vars args;
    char needs[3] = {0, 0, 0};
    for (int j = 0; j < expr_arity(e->op); ++j) {
      args.push_back(val.at(e->args[j].get()));
      needs[j] = need.at(e->args[j].get());
    }
    const Vars ga = local_vjp(e->op, e->c, args, val.at(e), ge, needs);
    for (size_t j = 0; j < ga.size(); ++j) {
      if (!ga[j].defined() || !needs[j]) continue;
      Var& c = cot[e->args[j].get()];
      c = c.defined() ? add(c, ga[j]) : ga[j];
    }
  }
  // Leaf cotangents to input cotangents. Injective views of one input
  // (slices, the whole input) are written into it together by one
  // scatter_views; broadcast leaves sum over their broadcast axes.
  Vars result(in.size());
  std::vector<char> done(in.size(), 0);
  auto cot_of = [&](size_t k) -> const Var* {
    auto it = cot.find(leaf_exprs[k].get());
    return it == cot.end() || !in[k].requires_grad() ? nullptr : &it->second;
  };
  for (size_t k = 0; k < leaf_exprs.size(); ++k) {
    const Var* ck = cot_of(k);
    if (done[k] || !ck) continue;
    done[k] = 1;
    const Expr& leaf = *leaf_exprs[k];
    if (!injective(leaf)) {
      result[k] = leaf.adjoint ? leaf.adjoint(*ck) : *ck;
      continue;
    }
    Vars parts = {*ck};
    std::vector<StridedView> views = {{leaf.shape, leaf.offset, leaf.strides}};
    for (size_t j = k + 1; j < leaf_exprs.size(); ++j) {
      const Var* cj = cot_of(j);
      if (done[j] || !cj || in[j].id() != in[k].id() || !injective(*leaf_exprs[j])) continue;
      done[j] = 1;
      const StridedView v{leaf_exprs[j]->shape, leaf_exprs[j]->offset, leaf_exprs[j]->strides};
      // The same view read twice (x in exp(x) * x): add the cotangents.
      size_t same = 0;
      while (same < views.size() && !(views[same].shape == v.shape &&
                                      views[same].offset == v.offset &&
                                      views[same].strides == v.strides))
        ++same;
      if (same < views.size()) {
        parts[same] = add(parts[same], *cj);
      } else {
        parts.push_back(*cj);
        views.push_back(v);
      }
    }
    // One view of the whole input, unchanged: the cotangent itself.
    const bool whole = parts.size() == 1 && views[0].offset == 0 &&
                       views[0].shape == in[k].shape() &&
                       views[0].strides == leaf_exprs[k]->value.strides();
    result[k] = whole ? parts[0] : scatter_views(parts, views, in[k].shape());
  }
  return result;
}

}  // namespace

Var fused_op(ExprOp op, const Vars& args, double c) {
  const char* name = expr_op_name(op);
  CAMBER_REQUIRE(static_cast<int>(args.size()) == expr_arity(op),
                 name << ": " << args.size() << " arguments");
  Shape shape;
  for (const Var& a : args) {
    CAMBER_REQUIRE(a.defined(), name << ": an input is an undefined ad::Var");
    const DType d = a.dtype();
    if (d != DType::int64 && d == args[0].dtype()) continue;
    std::string dtypes;
    for (const Var& b : args) dtypes += std::string(dtypes.empty() ? "" : ", ") + dtype_name(b.dtype());
    CAMBER_REQUIRE(false, "ad::" << name << ": takes float64 or float32 Vars of one dtype, got "
                                 << dtypes << "; convert explicitly with Tensor::to()");
  }
  for (size_t k = 0; k < args.size(); ++k) {
    shape = k == 0 ? args[k].shape()
                   : broadcast_shapes(shape, args[k].shape(), ("ad::" + std::string(name)).c_str());
  }
  auto build = [&](ExprLeaves& leaves) {
    std::vector<ExprPtr> exprs;
    for (const Var& a : args) {
      Operand o = operand(a, shape);
      exprs.push_back(o.expr);
      merge(leaves, o.leaves);
    }
    return op_expr(op, exprs, c);
  };
  ExprLeaves leaves;
  ExprPtr e = build(leaves);
  if (e->size > max_expr_size) {
    // Too large for one kernel: compute the operands first.
    for (const Var& a : args) materialize(a);
    leaves = {};
    e = build(leaves);
  }
  for (const Var& a : args)
    if (VarAccess::impl(a)->expr) VarAccess::impl(a)->inlined = true;
  return make_pending(name, std::move(e), std::move(leaves), args,
                      [op, c](const Vars& a, const Var& y, const Vars& t) {
                        return local_jvp(op, c, a, y, t);
                      });
}

Var fused_const(const Shape& shape, double c, DType dtype) {
  if (!fusion_enabled()) return constant(Tensor::full(shape, c).to(dtype));
  auto impl = std::make_shared<VarImpl>();
  impl->expr = const_expr(shape, c, dtype);
  impl->leaves = std::make_shared<ExprLeaves>();
  return VarAccess::make(std::move(impl));
}

Var fused_broadcast(const Var& a, const Shape& shape) {
  Operand o = operand(a, shape);
  if (VarAccess::impl(a)->expr) VarAccess::impl(a)->inlined = true;
  return make_pending("broadcast_to", std::move(o.expr), std::move(o.leaves), {a},
                      [shape](const Vars&, const Var&, const Vars& t) {
                        return broadcast_to(t[0], shape);
                      });
}

Var fused_slice(const Var& a, int axis, index_t start, index_t stop) {
  Operand o = operand(a, a.shape());
  ExprLeaves leaves;
  ExprPtr e = slice_expr(o.expr, axis, start, stop, o.leaves, leaves);
  if (VarAccess::impl(a)->expr) VarAccess::impl(a)->inlined = true;
  return make_pending("slice", std::move(e), std::move(leaves), {a},
                      [axis, start, stop](const Vars&, const Var&, const Vars& t) {
                        return slice(t[0], axis, start, stop);
                      });
}

Var view_of(const Var& src, const StridedView& view) {
  auto e = std::make_shared<Expr>(*leaf_expr(src));
  e->shape = view.shape;
  e->offset = view.offset;
  e->strides = view.strides;
  e->view = [view](const Var& t) { return view_of(t, view); };
  const Shape src_shape = src.shape();
  e->adjoint = [view, src_shape](const Var& g) { return scatter_views({g}, {view}, src_shape); };
  ExprLeaves leaves;
  leaves.exprs = {e};
  leaves.vars = {src};
  return make_pending("view", std::move(e), std::move(leaves), {src},
                      [view](const Vars&, const Var&, const Vars& t) { return view_of(t[0], view); });
}

namespace {
// Views of one shape at offsets o_k + i * step (i < n): disjoint when no
// two offsets differ by a multiple of the step smaller than n steps.
bool disjoint(const std::vector<StridedView>& views) {
  std::vector<index_t> steps(views.size());
  for (size_t k = 0; k < views.size(); ++k) {
    if (views[k].shape != views[0].shape || !affine_step(views[k].shape, views[k].strides, steps[k]) ||
        steps[k] != steps[0] || steps[k] <= 0)
      return false;
  }
  const index_t n = shape_size(views[0].shape), s = steps[0];
  for (size_t k = 0; k < views.size(); ++k)
    for (size_t l = k + 1; l < views.size(); ++l) {
      const index_t d = views[k].offset - views[l].offset;
      if (d % s == 0 && (d / s < n && -d / s < n)) return false;
    }
  return true;
}
}  // namespace

ExprPtr expr_of(const Var& v) {
  const auto& impl = VarAccess::impl(v);
  return impl->expr ? impl->expr : leaf_expr(v);
}

namespace {

// Records y = op(inputs) whose value `compute` makes when first read; its
// tangents come from `jvp` as record_op's do (deferred again when the rule
// is a reduction or a scatter).
Var record_deferred(const std::string& name, const Shape& shape, DType dtype,
                    std::function<Tensor()> compute, const Vars& inputs, const VjpRule& vjp,
                    const JvpRule& jvp) {
  Var y;
  {
    ForwardLimitGuard none(0);
    y = record_op(name, Tensor(), inputs, vjp, jvp, Reads::nothing());
  }
  const auto& impl = VarAccess::impl(y);
  impl->deferred = std::move(compute);
  impl->deferred_shape = shape;
  impl->deferred_dtype = dtype;
  attach_tangents(name, impl, inputs, jvp);
  return y;
}

}  // namespace

Var fused_reduction(const std::string& name, const Var& a, const std::vector<int>& axes,
                    const Shape& out_shape, const VjpRule& vjp, const JvpRule& jvp) {
  ExprPtr e = expr_of(a);
  const DType dtype = e->dtype;
  return record_deferred(
      name, out_shape, dtype,
      [e, axes, out_shape]() { return reduce_sum(e, axes).reshape(out_shape); }, {a}, vjp, jvp);
}

Var scatter_views(const Vars& parts, const std::vector<StridedView>& views, const Shape& shape) {
  CAMBER_REQUIRE(!parts.empty() && parts.size() == views.size(), "scatter_views: one view per part");
  index_t covered = 0;
  bool same_shape = true;
  std::vector<ExprPtr> roots;
  for (size_t k = 0; k < parts.size(); ++k) {
    CAMBER_REQUIRE(parts[k].shape() == views[k].shape,
                   "scatter_views: part of shape " << shape_string(parts[k].shape())
                                                   << " for a view of shape "
                                                   << shape_string(views[k].shape));
    covered += shape_size(views[k].shape);
    same_shape = same_shape && views[k].shape == views[0].shape;
    roots.push_back(expr_of(parts[k]));
  }
  const bool one_kernel = same_shape && parts.size() <= 8 && (parts.size() == 1 || disjoint(views));
  const bool full = one_kernel && covered == shape_size(shape);
  const DType dtype = parts[0].dtype();
  auto compute = [roots, views, shape, dtype, one_kernel, full]() {
    Tensor out = full ? Tensor::uninitialized(shape, dtype) : Tensor::zeros(shape, dtype);
    std::vector<ScatterTarget> targets;
    for (const StridedView& v : views) targets.push_back({out, v.offset, v.strides});
    if (one_kernel) {
      scatter(roots, targets, false);
    } else {
      for (size_t k = 0; k < roots.size(); ++k) scatter({roots[k]}, {targets[k]}, true);
    }
    return out;
  };
  return record_deferred(
      "scatter_views", shape, dtype, std::move(compute), parts,
      [views](const Vars& in, const Var&, const Var& g) -> Vars {
        Vars r;
        for (size_t k = 0; k < in.size(); ++k)
          r.push_back(in[k].requires_grad() ? view_of(g, views[k]) : Var());
        return r;
      },
      [views, shape](const Vars&, const Var&, const Vars& t) {
        return scatter_views(t, views, shape);
      });
}


}  // namespace detail
}  // namespace camber::ad
