/// @file
/// Optimizers of camber::nn: SGD (momentum, Nesterov, weight decay), Adam
/// and AdamW, and gradient clipping by the global norm.
///
/// Update rules, per parameter p with gradient g at step t = 1, 2, ...
/// (the conventions of PyTorch's torch.optim, so results carry over):
///
///   SGD     g += wd p;  b = mu b + g (b = g at t = 1);
///           p -= lr (g + mu b) with Nesterov, else p -= lr b
///   Adam    g += wd p;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;
///           p -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
///   AdamW   as Adam without the g += wd p, and p *= 1 - lr wd before the step
///           (decoupled weight decay, Loshchilov & Hutter 2019)
///
/// Updates run as Kokkos kernels on the parameters' storage, in their dtype
/// (float64 or float32; arithmetic in double), in place: the optimizer state
/// (b, m, v) has the parameters' shapes and dtypes. The learning rate may be
/// changed between steps (schedule.hpp).
///
/// @code
///   nn::Adam opt(net->parameters(), {.lr = 1e-3});
///   for (int it = 0; it < n; ++it) {
///     ad::Var loss = nn::mse(net->forward(x), y);
///     opt.step(ad::grad(loss, net->parameters()));
///   }
/// @endcode
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <camber/autodiff/graph.hpp>

namespace camber::nn {

namespace ad = camber::ad;

class Optimizer {
 public:
  Optimizer(ad::Vars params, double lr);
  virtual ~Optimizer() = default;

  /// One update; grads[k] has params[k]'s shape and dtype.
  void step(const ad::Vars& grads);
  void step(const std::vector<Tensor>& grads);

  double lr() const { return lr_; }
  void set_lr(double lr);
  /// Steps taken so far (t of the update rules).
  long steps() const { return steps_; }
  const ad::Vars& params() const { return params_; }

  /// The state a resumed run needs, as named tensors ("step" is a {1}
  /// float64 tensor; "m.3" the first moment of parameter 3; ...).
  std::vector<std::pair<std::string, Tensor>> state() const;
  /// Restores what state() returned (names, shapes and dtypes checked).
  void load_state(const std::vector<std::pair<std::string, Tensor>>& state);

 protected:
  /// Updates parameter k in place; `t` is the step number (1, 2, ...).
  virtual void update(size_t k, Tensor& p, const Tensor& g, long t) = 0;
  /// Named state tensors of this optimizer (without the step count).
  virtual std::vector<std::pair<std::string, Tensor*>> buffers() { return {}; }

  ad::Vars params_;

 private:
  double lr_;
  long steps_ = 0;
};

struct SgdOptions {
  double lr = 1e-2;
  double momentum = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
};

class Sgd : public Optimizer {
 public:
  Sgd(ad::Vars params, const SgdOptions& options);

 protected:
  void update(size_t k, Tensor& p, const Tensor& g, long t) override;
  std::vector<std::pair<std::string, Tensor*>> buffers() override;

 private:
  SgdOptions o_;
  std::vector<Tensor> b_;
};

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  bool decoupled = false;  ///< AdamW
};

class Adam : public Optimizer {
 public:
  Adam(ad::Vars params, const AdamOptions& options);

 protected:
  void update(size_t k, Tensor& p, const Tensor& g, long t) override;
  std::vector<std::pair<std::string, Tensor*>> buffers() override;

 private:
  AdamOptions o_;
  std::vector<Tensor> m_, v_;
};

/// AdamW: Adam with decoupled weight decay (default 1e-2, as PyTorch).
class AdamW : public Adam {
 public:
  AdamW(ad::Vars params, AdamOptions options);
};

/// Scales every gradient by min(1, max_norm / |g|), |g| the 2-norm of all
/// gradients together; returns |g| before clipping.
double clip_grad_norm(std::vector<Tensor>& grads, double max_norm);
/// The 2-norm of all gradients together.
double global_norm(const std::vector<Tensor>& grads);

/// Values of Vars (pending ones computed).
std::vector<Tensor> values(const ad::Vars& vars);

}  // namespace camber::nn
