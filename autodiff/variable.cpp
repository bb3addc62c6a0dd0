#include <camber/autodiff/variable.hpp>

#include <algorithm>
#include <limits>

#include "detail/fusion.hpp"
#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>

namespace camber::ad {

namespace {
thread_local bool tl_grad_enabled = true;
thread_local int tl_forward_limit = std::numeric_limits<int>::max();
thread_local int tl_rule_level = -1;
thread_local int tl_jvp_depth = 0;
}  // namespace

using detail::VarAccess;
using detail::VarImpl;

const Tensor& Var::value() const {
  CAMBER_REQUIRE(impl_, "use of an undefined ad::Var (a gradient that was not computed?)");
  if (impl_->deferred) {
    std::function<Tensor()> compute = std::move(impl_->deferred);
    impl_->deferred = nullptr;
    impl_->value = compute();
  }
  if (impl_->expr) {
    impl_->value = detail::evaluate({impl_->expr})[0];
    impl_->expr = nullptr;
    impl_->leaves = nullptr;
  }
  return impl_->value;
}

DType Var::dtype() const {
  CAMBER_REQUIRE(impl_, "use of an undefined ad::Var (a gradient that was not computed?)");
  if (impl_->expr) return impl_->expr->dtype;
  return impl_->deferred ? impl_->deferred_dtype : impl_->value.dtype();
}

const Shape& Var::shape() const {
  CAMBER_REQUIRE(impl_, "use of an undefined ad::Var (a gradient that was not computed?)");
  return detail::value_shape(*impl_);
}

namespace detail {
const Shape& value_shape(const VarImpl& impl) {
  if (impl.expr) return impl.expr->shape;
  return impl.deferred ? impl.deferred_shape : impl.value.shape();
}
}  // namespace detail

const void* Var::id() const noexcept {
  if (impl_ && impl_->node) return impl_->node.get();
  return impl_.get();
}

bool Var::requires_grad() const { return impl_ && impl_->requires_grad; }
bool Var::has_node() const { return impl_ && impl_->node != nullptr; }
std::string Var::op_name() const { return has_node() ? impl_->node->name : "leaf"; }

const Var& Var::tangent(int level) const {
  static const Var none;
  if (!impl_ || level < 0 || static_cast<size_t>(level) >= impl_->tangents.size()) return none;
  return impl_->tangents[static_cast<size_t>(level)];
}
bool Var::has_tangent(int level) const { return tangent(level).defined(); }

namespace {
// The level tangent() and has_tangent() report without one.
int default_level(const VarImpl* impl) {
  if (tl_rule_level >= 0) return tl_rule_level;
  if (!impl) return -1;
  for (size_t l = impl->tangents.size(); l-- > 0;)
    if (impl->tangents[l].defined()) return static_cast<int>(l);
  return -1;
}
}  // namespace

const Var& Var::tangent() const { return tangent(default_level(impl_.get())); }
bool Var::has_tangent() const { return has_tangent(default_level(impl_.get())); }

Var Var::detach() const { return constant(value()); }

Var variable(const Tensor& value, bool requires_grad) {
  auto impl = std::make_shared<VarImpl>();
  impl->value = value;
  impl->requires_grad = requires_grad;
  return VarAccess::make(std::move(impl));
}

Var constant(const Tensor& value) { return variable(value, false); }
Var scalar(double value) { return constant(Tensor::scalar(value)); }

Var with_tangent(const Var& x, const Var& tangent, int level) {
  CAMBER_REQUIRE(!tangent.defined() || tangent.shape() == x.shape(),
                 "tangent of shape " << shape_string(tangent.shape()) << " for a Var of shape "
                                     << shape_string(x.shape()));
  if (level < 0) level = tl_jvp_depth;
  auto impl = std::make_shared<VarImpl>();
  impl->value = x.value();
  const auto& below = VarAccess::impl(x)->tangents;
  impl->tangents.assign(below.begin(),
                        below.begin() + std::min(below.size(), static_cast<size_t>(level)));
  impl->tangents.resize(static_cast<size_t>(level) + 1);
  impl->tangents[static_cast<size_t>(level)] = tangent;
  if (x.requires_grad() && grad_enabled()) {
    // An identity node keeps the new Var connected to x, so reverse mode
    // through a jvp (reverse-over-forward) reaches x.
    impl->requires_grad = true;
    auto node = std::make_shared<detail::Node>();
    node->name = "with_tangent";
    node->inputs = {x};
    node->vjp = [](const Vars&, const Var&, const Var& g) -> Vars { return {g}; };
    impl->node = std::move(node);
  }
  return VarAccess::make(std::move(impl));
}

bool grad_enabled() noexcept { return tl_grad_enabled; }

NoGradGuard::NoGradGuard() : previous_(tl_grad_enabled) { tl_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { tl_grad_enabled = previous_; }
EnableGradGuard::EnableGradGuard() : previous_(tl_grad_enabled) { tl_grad_enabled = true; }
EnableGradGuard::~EnableGradGuard() { tl_grad_enabled = previous_; }

namespace detail {

int forward_limit() noexcept { return tl_forward_limit; }
int rule_level() noexcept { return tl_rule_level; }
int jvp_depth() noexcept { return tl_jvp_depth; }
ForwardLimitGuard::ForwardLimitGuard(int limit) : previous_(tl_forward_limit) {
  tl_forward_limit = limit;
}
ForwardLimitGuard::~ForwardLimitGuard() { tl_forward_limit = previous_; }
RuleLevelGuard::RuleLevelGuard(int level) : previous_(tl_rule_level) { tl_rule_level = level; }
RuleLevelGuard::~RuleLevelGuard() { tl_rule_level = previous_; }
JvpDepthGuard::JvpDepthGuard() { ++tl_jvp_depth; }
JvpDepthGuard::~JvpDepthGuard() { --tl_jvp_depth; }

namespace {
// Takes the Vars' references; every node or tangent graph only they kept
// alive is unlinked on an explicit work list before it is destroyed.
void free_iteratively(Vars& roots) {
  std::vector<std::shared_ptr<VarImpl>> work;
  auto take = [&work](Var& v) {
    std::shared_ptr<VarImpl> p = std::move(VarAccess::impl(v));
    if (p && p.use_count() == 1) work.push_back(std::move(p));
  };
  for (Var& v : roots) take(v);
  roots.clear();
  while (!work.empty()) {
    std::shared_ptr<VarImpl> p = std::move(work.back());
    work.pop_back();
    if (p->node && p->node.use_count() == 1) {
      for (Var& v : p->node->inputs) take(v);
      p->node->inputs.clear();
    }
    for (Var& t : p->tangents) take(t);
    if (p->leaves && p->leaves.use_count() == 1) {
      for (Var& v : p->leaves->vars) take(v);
      p->leaves->vars.clear();
    }
    // p (and its node, now without inputs) is destroyed here.
  }
}
}  // namespace

Node::~Node() { free_iteratively(inputs); }

void Node::release() {
  free_iteratively(inputs);
  inputs.shrink_to_fit();
  vjp = nullptr;
  released = true;
}

void Node::check_unmodified(const Var& output) const {
  auto fail = [this](const std::string& what, const Tensor& t, std::uint64_t then) {
    CAMBER_REQUIRE(false, "op '" << name << "' needs " << what << " (shape " << shape_string(t.shape())
                        << ") for its gradient, but that tensor was changed in place after the "
                           "op ran (version "
                        << then << ", now " << t.version()
                        << "); the gradient would be wrong. clone() the tensor before changing "
                           "it, or differentiate before the change");
  };
  if (reads.inputs) {
    const std::vector<char> mask = input_reads ? input_reads() : std::vector<char>();
    for (size_t k = 0; k < input_versions.size() && k < inputs.size(); ++k)
      if (input_versions[k] != pending_version && (mask.empty() || mask[k]) &&
          inputs[k].value().version() != input_versions[k])
        fail("the value of its input " + std::to_string(k), inputs[k].value(), input_versions[k]);
  }
  // A pending output is recomputed by its VJP, not read.
  if (reads.output && !input_versions.empty() && !value_pending(*VarAccess::impl(output)) &&
      output.value().version() != output_version)
    fail("its output's value", output.value(), output_version);
}

}  // namespace detail

Var record_op(const std::string& name, Tensor value, Vars inputs, VjpRule vjp, JvpRule jvp,
              Reads reads) {
  bool any_grad = false;
  size_t levels = 0;  // forward levels some input carries, below the limit
  for (const Var& in : inputs) {
    CAMBER_REQUIRE(in.defined(), name << ": an input is an undefined ad::Var");
    any_grad = any_grad || in.requires_grad();
    levels = std::max(levels, VarAccess::impl(in)->tangents.size());
  }
  levels = std::min(levels, static_cast<size_t>(std::max(detail::forward_limit(), 0)));
  auto impl = std::make_shared<VarImpl>();
  impl->value = std::move(value);
  const bool record = grad_enabled() && any_grad;
  const bool forward = levels > 0;
  if (record) {
    impl->requires_grad = true;
    auto node = std::make_shared<detail::Node>();
    node->name = name;
    node->reads = reads;
    node->input_versions.reserve(inputs.size());
    for (const Var& in : inputs)
      node->input_versions.push_back(detail::value_pending(*VarAccess::impl(in))
                                         ? detail::pending_version
                                                               : in.value().version());
    node->output_version = impl->value.version();
    node->inputs = forward ? inputs : std::move(inputs);
    node->vjp = std::move(vjp);
    impl->node = std::move(node);
  }
  if (forward) detail::attach_tangents(name, impl, inputs, jvp);
  return VarAccess::make(std::move(impl));
}

namespace detail {

void attach_tangents(const std::string& name, const std::shared_ptr<VarImpl>& impl,
                     const Vars& inputs, const JvpRule& jvp) {
  size_t levels = 0;  // forward levels some input carries, below the limit
  for (const Var& in : inputs) levels = std::max(levels, VarAccess::impl(in)->tangents.size());
  levels = std::min(levels, static_cast<size_t>(std::max(detail::forward_limit(), 0)));
  for (size_t l = 0; l < levels; ++l) {
    const int level = static_cast<int>(l);
    bool any = false;
    for (const Var& in : inputs) any = any || in.has_tangent(level);
    if (!any) continue;
    CAMBER_REQUIRE(jvp, name << ": this op has no JVP rule, so forward mode (jvp, hvp) cannot "
                                "pass through it; register one with custom_op");
    Vars tangents;
    tangents.reserve(inputs.size());
    for (const Var& in : inputs)
      tangents.push_back(in.has_tangent(level) ? in.tangent(level) : zeros_like(in));
    // The rule sees a twin of the output: same value, same node (so the
    // tangent stays differentiable through the output), the tangents of the
    // levels below (so they propagate through the rule), but not the output
    // itself, which will own this tangent: the tangent's graph referring to
    // its owner would be a reference cycle. Backward passes identify Vars by
    // node, so the twin and the output are one Var there.
    auto twin = std::make_shared<VarImpl>();
    twin->value = impl->value;
    twin->requires_grad = impl->requires_grad;
    twin->node = impl->node;
    twin->tangents = impl->tangents;
    twin->expr = impl->expr;
    twin->leaves = impl->leaves;
    twin->deferred = impl->deferred;
    twin->deferred_shape = impl->deferred_shape;
    twin->deferred_dtype = impl->deferred_dtype;
    Var t;
    {
      detail::ForwardLimitGuard below(level);
      detail::RuleLevelGuard rule(level);
      t = jvp(inputs, VarAccess::make(std::move(twin)), tangents);
    }
    const Shape& shape = value_shape(*impl);
    CAMBER_REQUIRE(t.shape() == shape, name << ": JVP rule returned shape "
                                            << shape_string(t.shape()) << " for an output of shape "
                                            << shape_string(shape));
    impl->tangents.resize(l + 1);
    impl->tangents[l] = std::move(t);
  }
}

}  // namespace detail

}  // namespace camber::ad
