/// @file
/// Layers of camber::nn: Linear, activations, Sequential, MLP, residual MLP,
/// Fourier-feature input encoding and layer normalisation.
///
/// Shapes: inputs are {batch, features}, row-major. Linear computes
/// x W + b with W of shape {in, out}. Every layer is written with ad:: ops,
/// so its gradient, Hessian-vector products and forward-mode derivatives
/// with respect to inputs and parameters come from the engine (tests check
/// each against finite differences).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <camber/nn/init.hpp>
#include <camber/nn/module.hpp>

namespace camber::nn {

enum class Activation {
  identity,
  tanh,
  relu,
  gelu,      ///< tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  silu,      ///< x sigmoid(x)
  softplus,  ///< log(1 + e^x)
  sin
};
/// "identity", "tanh", "relu", "gelu", "silu", "softplus", "sin"; a
/// camber::Error (bad input) listing them for another name.
Activation activation_from_name(const std::string& name);
std::string activation_name(Activation a);
ad::Var activate(Activation a, const ad::Var& x);

class Linear : public Module {
 public:
  Linear(index_t in, index_t out, Rng& rng, Init init = Init::xavier_uniform, bool bias = true,
         DType dtype = DType::float64);
  ad::Var forward(const ad::Var& x) const override;
  std::string describe() const override;
  const ad::Var& weight() const { return param(weight_); }
  /// Undefined without bias.
  const ad::Var& bias() const;
  index_t in_features() const { return in_; }
  index_t out_features() const { return out_; }

 private:
  index_t in_, out_;
  size_t weight_ = 0, bias_ = 0;
  bool has_bias_ = false;
};

class ActivationLayer : public Module {
 public:
  explicit ActivationLayer(Activation a) : a_(a) {}
  ad::Var forward(const ad::Var& x) const override { return activate(a_, x); }
  std::string describe() const override { return activation_name(a_); }

 private:
  Activation a_;
};

class Sequential : public Module {
 public:
  Sequential() = default;
  /// Appends a layer, named by its position ("0", "1", ...).
  void add(ModulePtr layer);
  ad::Var forward(const ad::Var& x) const override;
  /// "Sequential(Linear(2 -> 32), tanh, Linear(32 -> 1))".
  std::string describe() const override;
  size_t size() const { return layers_.size(); }

 private:
  std::vector<ModulePtr> layers_;
};

struct MlpOptions {
  index_t in = 1;
  std::vector<index_t> hidden;  ///< widths of the hidden layers
  index_t out = 1;
  Activation activation = Activation::tanh;
  Init init = Init::xavier_uniform;
  DType dtype = DType::float64;
};
/// Linear layers with `activation` between them (none after the last).
std::shared_ptr<Sequential> mlp(const MlpOptions& options, Rng& rng);

/// in -> Linear -> width, then `blocks` residual blocks
/// h <- h + W2 act(W1 act(h)) (pre-activation, He et al. 2016), then a
/// Linear layer to `out`.
class ResidualMlp : public Module {
 public:
  ResidualMlp(index_t in, index_t width, int blocks, index_t out, Activation activation,
              Rng& rng, Init init = Init::xavier_uniform, DType dtype = DType::float64);
  ad::Var forward(const ad::Var& x) const override;
  std::string describe() const override;

 private:
  Activation activation_;
  std::shared_ptr<Linear> input_, output_;
  std::vector<std::shared_ptr<Linear>> first_, second_;
};

/// Random Fourier features (Tancik et al. 2020): x -> [sin(2 pi x B),
/// cos(2 pi x B)] with B of shape {in, features} drawn once from
/// N(0, sigma^2) and kept fixed (not a parameter). Output {batch, 2 features}.
class FourierFeatures : public Module {
 public:
  FourierFeatures(index_t in, index_t features, double sigma, Rng& rng,
                  DType dtype = DType::float64);
  ad::Var forward(const ad::Var& x) const override;
  std::string describe() const override;
  const Tensor& frequencies() const { return b_; }

 private:
  index_t in_, features_;
  double sigma_;
  Tensor b_;
  // 2 pi [B, B] and the phases [0, pi/2]: forward() is one matmul and one sin.
  Tensor projection_, phase_;
};

/// Layer normalisation over the last axis (Ba et al. 2016):
/// y = (x - mean) / sqrt(var + eps) * gain + bias, gain = 1 and bias = 0 at
/// first; var is the biased (1/n) variance.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(index_t features, double eps = 1e-5, DType dtype = DType::float64);
  ad::Var forward(const ad::Var& x) const override;
  std::string describe() const override;

 private:
  index_t features_;
  double eps_;
  size_t gain_ = 0, bias_ = 0;
};

}  // namespace camber::nn
