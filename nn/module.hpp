/// @file
/// camber::nn::Module — a differentiable function with named parameters.
///
/// A module owns its parameters (ad::Var leaves that require gradients) and
/// its submodules, each under a name; named_parameters() lists them depth
/// first in registration order with dotted names ("0.weight", "2.bias"), the
/// order parameters(), optimizers and checkpoints use. forward() builds the
/// graph of one evaluation; the caller differentiates it with ad::grad:
///
/// @code
///   namespace nn = camber::nn;
///   nn::Rng rng(7);
///   auto net = nn::mlp({.in = 2, .hidden = {32, 32}, .out = 1,
///                       .activation = nn::Activation::tanh}, rng);
///   ad::Var loss = nn::mse(net->forward(ad::constant(x)), ad::constant(y));
///   ad::Vars g = ad::grad(loss, net->parameters());
///   optimizer.step(g);
/// @endcode
///
/// Parameters are updated in place by the optimizers (after the gradient is
/// computed): a graph built before a step and differentiated after it is
/// refused by the engine's version counters, as it should be.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <camber/autodiff/graph.hpp>

namespace camber::nn {

namespace ad = camber::ad;

class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  virtual ~Module() = default;

  virtual ad::Var forward(const ad::Var& x) const = 0;
  ad::Var operator()(const ad::Var& x) const { return forward(x); }
  /// One line, e.g. "Linear(16 -> 256)".
  virtual std::string describe() const = 0;

  std::vector<std::pair<std::string, ad::Var>> named_parameters() const;
  ad::Vars parameters() const;
  /// The parameters' values, in the order of parameters().
  std::vector<Tensor> parameter_values() const;
  /// Copies `values` (same order, shapes and dtypes) into the parameters.
  void load_parameter_values(const std::vector<Tensor>& values);
  index_t num_parameters() const;
  /// The module and its submodules, indented, with parameter counts.
  std::string summary() const;

  /// Calls fn() with the parameters replaced by `replacement` (one Var per
  /// parameter, in the order of parameters(), same shapes), and puts the
  /// originals back afterwards, also when fn throws: a functional call, for
  /// differentiating with respect to parameters given as inputs (gradient
  /// checks, Jacobians with respect to the weights).
  template <class F>
  auto with_parameters(const ad::Vars& replacement, F&& fn) const {
    Swap swap(*this, replacement);
    return fn();
  }

 protected:
  /// Adds a parameter (a leaf that requires gradients) holding `value`;
  /// returns its index for param().
  size_t register_parameter(const std::string& name, const Tensor& value);
  /// The current Var of parameter `index` (what forward() must use, so
  /// with_parameters() can replace it).
  const ad::Var& param(size_t index) const { return params_[index].second; }
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    add_child(name, module);
    return module;
  }

 private:
  void add_child(const std::string& name, std::shared_ptr<Module> module);
  void collect(const std::string& prefix,
               std::vector<std::pair<std::string, ad::Var>>& out) const;
  void summarize(const std::string& name, int depth, std::string& out) const;
  void slots(std::vector<ad::Var*>& out) const;

  class Swap {
   public:
    Swap(const Module& m, const ad::Vars& replacement);
    ~Swap();
    Swap(const Swap&) = delete;
    Swap& operator=(const Swap&) = delete;

   private:
    std::vector<ad::Var*> slots_;
    ad::Vars saved_;
  };

  mutable std::vector<std::pair<std::string, ad::Var>> params_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

using ModulePtr = std::shared_ptr<Module>;

/// dst = src, element by element (same shape and dtype); dst's version is
/// bumped, as for any in-place change.
void copy_into(Tensor& dst, const Tensor& src);

}  // namespace camber::nn
