#include <camber/autodiff/functional.hpp>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>

#include <camber/autodiff/fusion.hpp>
#include <camber/core/error.hpp>

namespace camber::ad {

namespace {

using detail::VarAccess;

struct BackwardOptions {
  GradOptions grad;
  // Do not walk past the inputs (checkpoint's recomputation, whose inputs
  // are fresh identity nodes, none an ancestor of another).
  bool stop_at_inputs = false;
};

Vars backward(const Vars& outputs, const Vars& inputs, const Vars& cotangents,
              const BackwardOptions& options) {
  CAMBER_REQUIRE(cotangents.size() <= outputs.size(), "vjp: " << cotangents.size()
                                                              << " cotangents for "
                                                              << outputs.size() << " outputs");
  const bool create_graph = options.grad.create_graph;
  const bool retain = options.grad.retain_graph || create_graph;

  std::unordered_map<const void*, size_t> position;  // id -> index in order
  std::unordered_map<const void*, size_t> target;    // id -> index in inputs
  for (size_t k = 0; k < inputs.size(); ++k) {
    CAMBER_REQUIRE(inputs[k].defined(), "vjp: input " << k << " is an undefined Var");
    const auto& impl = VarAccess::impl(inputs[k]);
    CAMBER_REQUIRE(!(impl->inlined && impl->node),
                   "vjp: input " << k << " (op '" << impl->node->name
                                 << "') was fused into a later element-wise expression, so the "
                                    "graph of the outputs does not pass through it; call "
                                    "ad::materialize() on it before using it, or turn fusion "
                                    "off (ad::FusionGuard, CAMBER_FUSION=0)");
    target.emplace(inputs[k].id(), k);
  }

  // Post-order (every Var after the Vars it was computed from), iterative so
  // deep graphs (high-order derivatives) do not overflow the stack.
  std::vector<Var> order;
  std::vector<char> needed;         // a target, or computed from one
  std::vector<char> inputs_needed;  // its VJP must run: some input is needed
  struct Frame {
    Var var;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  for (const Var& y : outputs) {
    CAMBER_REQUIRE(y.defined(), "vjp: an output is an undefined Var");
    if (position.count(y.id())) continue;
    stack.push_back({y, 0});
    position.emplace(y.id(), SIZE_MAX);
    while (!stack.empty()) {
      Frame& f = stack.back();
      const auto& impl = VarAccess::impl(f.var);
      const bool is_target = target.count(f.var.id()) > 0;
      const detail::Node* node = impl->node.get();
      const bool descend = node && !(options.stop_at_inputs && is_target);
      if (descend && node->released && !is_target)
        CAMBER_REQUIRE(false,
                       "vjp: the graph behind this output was released by an earlier "
                       "backward pass (op '"
                           << node->name
                           << "'); pass retain_graph = true to differentiate it again");
      if (descend && f.next < node->inputs.size()) {
        const Var& child = node->inputs[f.next++];
        if (child.requires_grad() && !position.count(child.id())) {
          position.emplace(child.id(), SIZE_MAX);
          stack.push_back({child, 0});
        }
        continue;
      }
      bool any_input = false;
      if (descend)
        for (const Var& in : node->inputs) {
          auto it = position.find(in.id());
          if (it != position.end() && it->second != SIZE_MAX && needed[it->second])
            any_input = true;
        }
      position[f.var.id()] = order.size();
      order.push_back(f.var);
      needed.push_back(is_target || any_input ? 1 : 0);
      inputs_needed.push_back(any_input ? 1 : 0);
      stack.pop_back();
    }
  }

  std::unique_ptr<NoGradGuard> no_grad;
  if (!create_graph) no_grad = std::make_unique<NoGradGuard>();

  std::vector<Var> cot(order.size());
  for (size_t k = 0; k < cotangents.size(); ++k) {
    if (!cotangents[k].defined()) continue;
    CAMBER_REQUIRE(cotangents[k].shape() == outputs[k].shape(),
                   "vjp: cotangent " << k << " has shape " << shape_string(cotangents[k].shape())
                                     << ", output has " << shape_string(outputs[k].shape()));
    Var& c = cot[position.at(outputs[k].id())];
    c = c.defined() ? add(c, cotangents[k]) : cotangents[k];
  }

  for (size_t i = order.size(); i-- > 0;) {
    const Var v = order[i];
    const auto& node = VarAccess::impl(v)->node;
    const bool is_target = target.count(v.id()) > 0;
    if (inputs_needed[i] && cot[i].defined()) {
      CAMBER_REQUIRE(!node->released, "vjp: op '" << node->name
                                                  << "' was released by an earlier backward "
                                                     "pass; pass retain_graph = true");
      node->check_unmodified(v);
      const Vars g = node->vjp(node->inputs, v, cot[i]);
      CAMBER_REQUIRE(g.size() == node->inputs.size(), "op '" << node->name << "': VJP returned "
                                                             << g.size() << " cotangents for "
                                                             << node->inputs.size() << " inputs");
      for (size_t j = 0; j < g.size(); ++j) {
        const Var& in = node->inputs[j];
        auto it = position.find(in.id());
        if (!g[j].defined() || it == position.end() || it->second == SIZE_MAX ||
            !needed[it->second])
          continue;
        CAMBER_REQUIRE(g[j].shape() == in.shape(), "op '" << node->name << "': VJP returned shape "
                                                          << shape_string(g[j].shape())
                                                          << " for input " << j << " of shape "
                                                          << shape_string(in.shape()));
        Var& c = cot[it->second];
        c = c.defined() ? add(c, g[j]) : g[j];
      }
    }
    if (node && !retain) node->release();
    // Intermediates no later step needs go away now.
    order[i] = Var();
    if (!is_target) cot[i] = Var();
  }

  Vars result(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    auto it = position.find(inputs[k].id());
    if (it != position.end() && it->second != SIZE_MAX && cot[it->second].defined()) {
      result[k] = cot[it->second];
    } else {
      CAMBER_REQUIRE(options.grad.allow_unused, "vjp: the outputs do not depend on input " << k);
      result[k] = zeros_like(inputs[k]);
    }
  }
  // Gradients are results: compute pending ones now, sharing kernels. With
  // create_graph they may be differentiated further, and stay pending.
  if (!create_graph) materialize(result);
  return result;
}

Var identity(const Var& x) {
  return record_op(
      "identity", x.value(), {x}, [](const Vars&, const Var&, const Var& g) -> Vars { return {g}; },
      [](const Vars&, const Var&, const Vars& t) { return t[0]; });
}

}  // namespace

Vars vjp(const Vars& outputs, const Vars& inputs, const Vars& cotangents,
         const GradOptions& options) {
  BackwardOptions b;
  b.grad = options;
  return backward(outputs, inputs, cotangents, b);
}

Vars grad(const Var& output, const Vars& inputs, bool create_graph, bool retain_graph) {
  CAMBER_REQUIRE(output.size() == 1, "grad: the output must be a scalar, not shape "
                                         << shape_string(output.shape())
                                         << "; use vjp with a cotangent");
  GradOptions o;
  o.create_graph = create_graph;
  o.retain_graph = retain_graph;
  return vjp({output}, inputs, {ones_like(output)}, o);
}

namespace {

// x itself when it requires a gradient (so the result's graph reaches it),
// else a leaf over its value.
Var differentiable(const Var& x) {
  CAMBER_REQUIRE(x.defined(), "an input is an undefined Var");
  return x.requires_grad() ? x : variable(x.value());
}

}  // namespace

ValueAndGrad value_and_grad(const ScalarFunction& f, const Vars& inputs, bool create_graph) {
  Vars xs;
  for (const Var& x : inputs) xs.push_back(differentiable(x));
  ValueAndGrad r;
  r.value = f(xs);
  CAMBER_REQUIRE(r.value.defined() && r.value.size() == 1,
                 "value_and_grad: f must return a scalar, not shape "
                     << (r.value.defined() ? shape_string(r.value.shape()) : "(undefined)"));
  // The value stays usable after the pass: keep the graph only if asked.
  r.grads = grad(r.value, xs, create_graph, create_graph);
  if (!create_graph) r.value = r.value.detach();
  return r;
}

ValueAndGrad value_and_grad(const VarFunction& f, const Var& x, bool create_graph) {
  return value_and_grad([&f](const Vars& xs) { return f(xs[0]); }, Vars{x}, create_graph);
}

Var hvp(const VarFunction& f, const Var& x, const Var& v, bool create_graph) {
  CAMBER_REQUIRE(x.shape() == v.shape(), "hvp: v has shape " << shape_string(v.shape())
                                                             << ", x has "
                                                             << shape_string(x.shape()));
  const Var xv = differentiable(x);
  const Var g = grad(f(xv), {xv}, /*create_graph=*/true)[0];
  // d/dx <grad f(x), v> = H v (H symmetric).
  const Var hv = grad(sum(mul(g, v)), {xv}, create_graph)[0];
  return create_graph ? hv : hv.detach();
}

Var jacobian(const VarFunction& f, const Var& x, bool create_graph) {
  const Var xv = differentiable(x);
  const Var y = f(xv);
  GradOptions o;
  o.create_graph = create_graph;
  o.retain_graph = true;
  Vars rows;
  for (index_t e = 0; e < y.size(); ++e) {
    std::vector<double> w(static_cast<size_t>(y.size()), 0.0);
    w[static_cast<size_t>(e)] = 1.0;
    const Var row = vjp({y}, {xv}, {constant(Tensor::from_host(y.shape(), w))}, o)[0];
    rows.push_back(reshape(row, {1, x.size()}));
  }
  Shape shape = y.shape();
  shape.insert(shape.end(), x.shape().begin(), x.shape().end());
  if (rows.empty()) return constant(Tensor(shape));
  const Var j = reshape(concat(rows, 0), shape);
  return create_graph ? j : j.detach();
}

Var hessian(const VarFunction& f, const Var& x, bool create_graph) {
  return jacobian([&f](const Var& z) { return grad(f(z), {z}, /*create_graph=*/true)[0]; }, x,
                  create_graph);
}

namespace {

// f at primals with tangents attached at `level`; outputs' tangents at that
// level. Levels up to `level` propagate inside f, whatever the caller's
// limit (checkpoint's JVP rule runs with the limit at its own level and
// re-runs f with that level's tangents).
JvpResult jvp_at_level(const MultiFunction& f, const Vars& primals, const Vars& tangents,
                       int level) {
  CAMBER_REQUIRE(primals.size() == tangents.size(),
                 "jvp: " << tangents.size() << " tangents for " << primals.size() << " primals");
  detail::ForwardLimitGuard forward(std::max(detail::forward_limit(), level + 1));
  detail::RuleLevelGuard outside_rules(-1);
  Vars xs;
  for (size_t i = 0; i < primals.size(); ++i) {
    CAMBER_REQUIRE(tangents[i].shape() == primals[i].shape(),
                   "jvp: tangent " << i << " has shape " << shape_string(tangents[i].shape())
                                   << ", primal has " << shape_string(primals[i].shape()));
    xs.push_back(with_tangent(primals[i], tangents[i], level));
  }
  JvpResult r;
  r.outputs = f(xs);
  for (const Var& y : r.outputs)
    r.tangents.push_back(y.has_tangent(level) ? y.tangent(level) : zeros_like(y));
  return r;
}

// What checkpoint's JVP rule calls: the level the rule is computing.
JvpResult jvp_same_level(const MultiFunction& f, const Vars& primals, const Vars& tangents) {
  return jvp_at_level(f, primals, tangents, detail::rule_level());
}

}  // namespace

JvpResult jvp(const MultiFunction& f, const Vars& primals, const Vars& tangents) {
  const int level = detail::jvp_depth();
  detail::JvpDepthGuard deeper;
  return jvp_at_level(f, primals, tangents, level);
}

JvpResult jvp(const VarFunction& f, const Var& primal, const Var& tangent) {
  return jvp([&f](const Vars& x) { return Vars{f(x[0])}; }, Vars{primal}, Vars{tangent});
}

Tensor hvp(const VarFunction& f, const Tensor& x, const Tensor& v) {
  CAMBER_REQUIRE(x.shape() == v.shape(), "hvp: v has shape " << shape_string(v.shape())
                                                             << ", x has "
                                                             << shape_string(x.shape()));
  const int level = detail::jvp_depth();
  detail::JvpDepthGuard deeper;
  detail::ForwardLimitGuard forward(std::max(detail::forward_limit(), level + 1));
  const Var xt = with_tangent(variable(x), constant(v), level);
  const Var y = f(xt);
  const Var g = grad(y, {xt})[0];
  return g.has_tangent(level) ? g.tangent(level).value() : Tensor::zeros(x.shape(), x.dtype());
}

Tensor jacobian(const VarFunction& f, const Tensor& x) {
  const Var xv = variable(x);
  const Var y = f(xv);
  Shape shape = y.shape();
  shape.insert(shape.end(), x.shape().begin(), x.shape().end());
  std::vector<double> values(static_cast<size_t>(y.size() * x.size()));
  GradOptions o;
  o.retain_graph = true;
  for (index_t e = 0; e < y.size(); ++e) {
    std::vector<double> w(static_cast<size_t>(y.size()), 0.0);
    w[static_cast<size_t>(e)] = 1.0;
    const std::vector<double> row =
        vjp({y}, {xv}, {constant(Tensor::from_host(y.shape(), w))}, o)[0].value().to_vector();
    std::copy(row.begin(), row.end(), values.begin() + e * x.size());
  }
  return Tensor::from_host(shape, values);
}

Tensor hessian(const VarFunction& f, const Tensor& x) {
  const index_t n = x.size();
  Shape shape = x.shape();
  shape.insert(shape.end(), x.shape().begin(), x.shape().end());
  std::vector<double> values(static_cast<size_t>(n * n));
  for (index_t i = 0; i < n; ++i) {
    std::vector<double> e(static_cast<size_t>(n), 0.0);
    e[static_cast<size_t>(i)] = 1.0;
    const std::vector<double> col = hvp(f, x, Tensor::from_host(x.shape(), e)).to_vector();
    for (index_t j = 0; j < n; ++j)
      values[static_cast<size_t>(j * n + i)] = col[static_cast<size_t>(j)];
  }
  return Tensor::from_host(shape, values);
}

Var checkpoint(const MultiFunction& f, const Vars& inputs) {
  Tensor value;
  {
    NoGradGuard no_grad;
    detail::ForwardLimitGuard no_forward(0);
    Vars detached;
    for (const Var& x : inputs) detached.push_back(x.detach());
    const Vars out = f(detached);
    CAMBER_REQUIRE(out.size() == 1, "checkpoint: f must return one Var, not " << out.size());
    value = out[0].value();
  }
  return record_op(
      "checkpoint", value, inputs,
      [f](const Vars& in, const Var&, const Var& g) -> Vars {
        const bool create_graph = grad_enabled();
        Vars xs;
        Var y;
        {
          EnableGradGuard recompute;
          for (const Var& x : in) xs.push_back(x.requires_grad() ? identity(x) : x);
          y = f(xs)[0];
        }
        BackwardOptions b;
        b.grad.create_graph = create_graph;
        b.stop_at_inputs = true;
        Vars gx = backward({y}, xs, {g}, b);
        for (size_t i = 0; i < in.size(); ++i)
          if (!in[i].requires_grad()) gx[i] = Var();
        return gx;
      },
      [f](const Vars& in, const Var&, const Vars& t) {
        return jvp_same_level(f, in, t).tangents[0];
      });
}

Var custom_op(const std::string& name, const Vars& inputs, const CustomForward& forward,
              VjpRule vjp_rule, JvpRule jvp_rule) {
  CAMBER_REQUIRE(forward && vjp_rule, "custom_op '" << name << "': forward and vjp are required");
  std::vector<Tensor> values;
  for (const Var& x : inputs) values.push_back(x.value());
  return record_op(name, forward(values), inputs, std::move(vjp_rule), std::move(jvp_rule));
}

namespace {

// The outputs of a multi-output op packed into one Var: flattened and
// concatenated. Offsets of each output in the packing, and the inverse.
struct Packing {
  std::vector<Shape> shapes;
  std::vector<index_t> offsets;  // size n + 1

  explicit Packing(const std::vector<Shape>& s) : shapes(s), offsets(s.size() + 1, 0) {
    for (size_t k = 0; k < s.size(); ++k) offsets[k + 1] = offsets[k] + shape_size(s[k]);
  }
  Tensor pack(const std::vector<Tensor>& values) const {
    Tensor packed = Tensor::uninitialized({offsets.back()});
    for (size_t k = 0; k < values.size(); ++k) {
      auto dst = Kokkos::subview(packed.view(), std::make_pair(offsets[k], offsets[k + 1]));
      Kokkos::deep_copy(dst, values[k].view());
    }
    return packed;
  }
  Var pack(const Vars& parts) const {
    Vars flat;
    for (size_t k = 0; k < parts.size(); ++k)
      flat.push_back(parts[k].defined() ? reshape(parts[k], {shape_size(shapes[k])})
                                        : constant(Tensor({shape_size(shapes[k])})));
    return flat.size() == 1 ? flat[0] : concat(flat, 0);
  }
  Vars unpack(const Var& packed) const {
    Vars out;
    for (size_t k = 0; k < shapes.size(); ++k)
      out.push_back(reshape(slice(packed, 0, offsets[k], offsets[k + 1]), shapes[k]));
    return out;
  }
};

std::vector<Shape> shapes_of(const std::vector<Tensor>& values) {
  std::vector<Shape> shapes;
  for (const Tensor& v : values) shapes.push_back(v.shape());
  return shapes;
}

}  // namespace

Vars custom_op_multi(const std::string& name, const Vars& inputs,
                     const CustomForwardMulti& forward, MultiVjpRule vjp_rule,
                     MultiJvpRule jvp_rule) {
  CAMBER_REQUIRE(forward && vjp_rule,
                 "custom_op_multi '" << name << "': forward and vjp are required");
  std::vector<Tensor> values;
  for (const Var& x : inputs) values.push_back(x.value());
  const std::vector<Tensor> outs = forward(values);
  CAMBER_REQUIRE(!outs.empty(), "custom_op_multi '" << name << "': forward returned no outputs");
  const auto packing = std::make_shared<const Packing>(shapes_of(outs));
  VjpRule vjp = [packing, vjp_rule, name](const Vars& in, const Var& out, const Var& g) -> Vars {
    const Vars gs = vjp_rule(in, packing->unpack(out), packing->unpack(g));
    CAMBER_REQUIRE(gs.size() == in.size(), "custom_op_multi '" << name << "': VJP returned "
                                                                 << gs.size() << " cotangents for "
                                                                 << in.size() << " inputs");
    return gs;
  };
  JvpRule jvp;
  if (jvp_rule)
    jvp = [packing, jvp_rule, name](const Vars& in, const Var& out, const Vars& t) -> Var {
      const Vars ts = jvp_rule(in, packing->unpack(out), t);
      CAMBER_REQUIRE(ts.size() == packing->shapes.size(),
                     "custom_op_multi '" << name << "': JVP returned " << ts.size()
                                         << " tangents for " << packing->shapes.size()
                                         << " outputs");
      return packing->pack(ts);
    };
  const Var packed = record_op(name, packing->pack(outs), inputs, std::move(vjp), std::move(jvp));
  return packing->unpack(packed);
}

Vars checkpoint_multi(const MultiFunction& f, const Vars& inputs) {
  std::vector<Tensor> values;
  {
    NoGradGuard no_grad;
    detail::ForwardLimitGuard no_forward(0);
    Vars detached;
    for (const Var& x : inputs) detached.push_back(x.detach());
    for (const Var& y : f(detached)) values.push_back(y.value());
  }
  CAMBER_REQUIRE(!values.empty(), "checkpoint_multi: f returned no outputs");
  const auto packing = std::make_shared<const Packing>(shapes_of(values));
  const Var packed = record_op(
      "checkpoint", packing->pack(values), inputs,
      [f, packing](const Vars& in, const Var&, const Var& g) -> Vars {
        const bool create_graph = grad_enabled();
        Vars xs, ys;
        {
          EnableGradGuard recompute;
          for (const Var& x : in) xs.push_back(x.requires_grad() ? identity(x) : x);
          ys = f(xs);
        }
        BackwardOptions b;
        b.grad.create_graph = create_graph;
        b.stop_at_inputs = true;
        Vars gx = backward(ys, xs, packing->unpack(g), b);
        for (size_t i = 0; i < in.size(); ++i)
          if (!in[i].requires_grad()) gx[i] = Var();
        return gx;
      },
      [f, packing](const Vars& in, const Var&, const Vars& t) {
        return packing->pack(jvp_same_level(f, in, t).tangents);
      });
  return packing->unpack(packed);
}

}  // namespace camber::ad
