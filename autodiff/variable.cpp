#include <camber/autodiff/variable.hpp>

#include <camber/error.hpp>

namespace camber::ad {

namespace {
thread_local bool tl_grad_enabled = true;
thread_local bool tl_forward_enabled = true;
}  // namespace

using detail::VarAccess;
using detail::VarImpl;

const Tensor& Var::value() const {
  CAMBER_REQUIRE(impl_, "use of an undefined ad::Var (a gradient that was not computed?)");
  return impl_->value;
}

const void* Var::id() const noexcept {
  if (impl_ && impl_->node) return impl_->node.get();
  return impl_.get();
}

bool Var::requires_grad() const { return impl_ && impl_->requires_grad; }
bool Var::has_node() const { return impl_ && impl_->node != nullptr; }
std::string Var::op_name() const { return has_node() ? impl_->node->name : "leaf"; }

const Var& Var::tangent() const {
  static const Var none;
  return impl_ ? impl_->tangent : none;
}
bool Var::has_tangent() const { return impl_ && impl_->tangent.defined(); }

Var Var::detach() const { return constant(value()); }

Var variable(const Tensor& value, bool requires_grad) {
  auto impl = std::make_shared<VarImpl>();
  impl->value = value;
  impl->requires_grad = requires_grad;
  return VarAccess::make(std::move(impl));
}

Var constant(const Tensor& value) { return variable(value, false); }
Var scalar(double value) { return constant(Tensor::scalar(value)); }

Var with_tangent(const Var& x, const Var& tangent) {
  CAMBER_REQUIRE(!tangent.defined() || tangent.shape() == x.shape(),
                 "tangent of shape " << shape_string(tangent.shape()) << " for a Var of shape "
                                     << shape_string(x.shape()));
  auto impl = std::make_shared<VarImpl>();
  impl->value = x.value();
  impl->tangent = tangent;
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

bool forward_enabled() noexcept { return tl_forward_enabled; }
ForwardModeGuard::ForwardModeGuard(bool enabled) : previous_(tl_forward_enabled) {
  tl_forward_enabled = enabled;
}
ForwardModeGuard::~ForwardModeGuard() { tl_forward_enabled = previous_; }

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
    take(p->tangent);
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
  if (reads.inputs)
    for (size_t k = 0; k < input_versions.size() && k < inputs.size(); ++k)
      if (inputs[k].value().version() != input_versions[k])
        fail("the value of its input " + std::to_string(k), inputs[k].value(), input_versions[k]);
  if (reads.output && !input_versions.empty() && output.value().version() != output_version)
    fail("its output's value", output.value(), output_version);
}

}  // namespace detail

Var record_op(const std::string& name, Tensor value, Vars inputs, VjpRule vjp, JvpRule jvp,
              Reads reads) {
  bool any_grad = false;
  bool any_tangent = false;
  for (const Var& in : inputs) {
    CAMBER_REQUIRE(in.defined(), name << ": an input is an undefined ad::Var");
    any_grad = any_grad || in.requires_grad();
    any_tangent = any_tangent || in.has_tangent();
  }
  auto impl = std::make_shared<VarImpl>();
  impl->value = std::move(value);
  const bool record = grad_enabled() && any_grad;
  const bool forward = detail::forward_enabled() && any_tangent;
  if (record) {
    impl->requires_grad = true;
    auto node = std::make_shared<detail::Node>();
    node->name = name;
    node->reads = reads;
    node->input_versions.reserve(inputs.size());
    for (const Var& in : inputs) node->input_versions.push_back(in.value().version());
    node->output_version = impl->value.version();
    node->inputs = forward ? inputs : std::move(inputs);
    node->vjp = std::move(vjp);
    impl->node = std::move(node);
  }
  if (forward) {
    CAMBER_REQUIRE(jvp, name << ": this op has no JVP rule, so forward mode (jvp, hvp) cannot "
                                "pass through it; register one with custom_op");
    Vars tangents;
    tangents.reserve(inputs.size());
    for (const Var& in : inputs)
      tangents.push_back(in.has_tangent() ? in.tangent() : constant(Tensor(in.shape())));
    // The rule sees a twin of the output: same value, same node (so the
    // tangent stays differentiable through the output), but not the output
    // itself, which will own the tangent: the tangent's graph referring to
    // its owner would be a reference cycle. Backward passes identify Vars by
    // node, so the twin and the output are one Var there.
    auto twin = std::make_shared<VarImpl>();
    twin->value = impl->value;
    twin->requires_grad = impl->requires_grad;
    twin->node = impl->node;
    Var t;
    {
      detail::ForwardModeGuard suspend(false);
      t = jvp(inputs, VarAccess::make(std::move(twin)), tangents);
    }
    CAMBER_REQUIRE(t.shape() == impl->value.shape(),
                   name << ": JVP rule returned shape " << shape_string(t.shape())
                        << " for an output of shape " << shape_string(impl->value.shape()));
    impl->tangent = std::move(t);
  }
  return VarAccess::make(std::move(impl));
}

}  // namespace camber::ad
