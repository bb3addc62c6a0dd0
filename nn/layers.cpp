#include <camber/nn/layers.hpp>

#include <cmath>
#include <sstream>

#include <camber/core/error.hpp>

namespace camber::nn {

Activation activation_from_name(const std::string& name) {
  if (name == "identity") return Activation::identity;
  if (name == "tanh") return Activation::tanh;
  if (name == "relu") return Activation::relu;
  if (name == "gelu") return Activation::gelu;
  if (name == "silu") return Activation::silu;
  if (name == "softplus") return Activation::softplus;
  if (name == "sin") return Activation::sin;
  CAMBER_INPUT_REQUIRE(false, "unknown activation '"
                                  << name
                                  << "' (identity, tanh, relu, gelu, silu, softplus, sin)");
  return Activation::identity;
}

std::string activation_name(Activation a) {
  switch (a) {
    case Activation::identity: return "identity";
    case Activation::tanh: return "tanh";
    case Activation::relu: return "relu";
    case Activation::gelu: return "gelu";
    case Activation::silu: return "silu";
    case Activation::softplus: return "softplus";
    case Activation::sin: return "sin";
  }
  return "?";
}

ad::Var activate(Activation a, const ad::Var& x) {
  switch (a) {
    case Activation::identity: return x;
    case Activation::tanh: return ad::tanh(x);
    case Activation::relu: return ad::relu(x);
    case Activation::gelu: {
      const double c = std::sqrt(2.0 / M_PI);
      return 0.5 * x * (1.0 + ad::tanh(c * (x + 0.044715 * x * x * x)));
    }
    case Activation::silu: return x * ad::sigmoid(x);
    case Activation::softplus: return ad::softplus(x);
    case Activation::sin: return ad::sin(x);
  }
  return x;
}

namespace {
void check_input(const ad::Var& x, index_t features, const std::string& who) {
  const Shape& s = x.shape();
  CAMBER_REQUIRE(s.size() == 2 && s[1] == features,
                 who << ": expects input of shape {batch, " << features << "}, got "
                     << shape_string(s));
}
}  // namespace

Linear::Linear(index_t in, index_t out, Rng& rng, Init init, bool bias, DType dtype)
    : in_(in), out_(out) {
  CAMBER_REQUIRE(in > 0 && out > 0, "Linear: sizes must be positive, got " << in << " -> " << out);
  weight_ = register_parameter("weight", init_weight(init, in, out, rng, dtype));
  if (bias) {
    bias_ = register_parameter("bias", Tensor::zeros({out}, dtype));
    has_bias_ = true;
  }
}

const ad::Var& Linear::bias() const {
  static const ad::Var none;
  return has_bias_ ? param(bias_) : none;
}

ad::Var Linear::forward(const ad::Var& x) const {
  check_input(x, in_, describe());
  ad::Var y = ad::matmul(x, param(weight_));
  return has_bias_ ? y + param(bias_) : y;
}

std::string Linear::describe() const {
  std::ostringstream s;
  s << "Linear(" << in_ << " -> " << out_ << (has_bias_ ? "" : ", no bias") << ")";
  return s.str();
}

void Sequential::add(ModulePtr layer) {
  register_module(std::to_string(layers_.size()), layer);
  layers_.push_back(std::move(layer));
}

ad::Var Sequential::forward(const ad::Var& x) const {
  ad::Var h = x;
  for (const ModulePtr& l : layers_) h = l->forward(h);
  return h;
}

std::string Sequential::describe() const {
  std::string s = "Sequential(";
  for (size_t k = 0; k < layers_.size(); ++k) s += (k ? ", " : "") + layers_[k]->describe();
  return s + ")";
}

std::shared_ptr<Sequential> mlp(const MlpOptions& o, Rng& rng) {
  auto net = std::make_shared<Sequential>();
  index_t in = o.in;
  for (index_t width : o.hidden) {
    net->add(std::make_shared<Linear>(in, width, rng, o.init, true, o.dtype));
    net->add(std::make_shared<ActivationLayer>(o.activation));
    in = width;
  }
  net->add(std::make_shared<Linear>(in, o.out, rng, o.init, true, o.dtype));
  return net;
}

ResidualMlp::ResidualMlp(index_t in, index_t width, int blocks, index_t out,
                         Activation activation, Rng& rng, Init init, DType dtype)
    : activation_(activation) {
  CAMBER_REQUIRE(blocks >= 0, "ResidualMlp: blocks must be >= 0, got " << blocks);
  input_ = register_module("input", std::make_shared<Linear>(in, width, rng, init, true, dtype));
  for (int b = 0; b < blocks; ++b) {
    first_.push_back(register_module("block" + std::to_string(b) + "_1",
                                     std::make_shared<Linear>(width, width, rng, init, true, dtype)));
    second_.push_back(register_module("block" + std::to_string(b) + "_2",
                                      std::make_shared<Linear>(width, width, rng, init, true, dtype)));
  }
  output_ = register_module("output", std::make_shared<Linear>(width, out, rng, init, true, dtype));
}

ad::Var ResidualMlp::forward(const ad::Var& x) const {
  ad::Var h = input_->forward(x);
  for (size_t b = 0; b < first_.size(); ++b)
    h = h + second_[b]->forward(activate(activation_, first_[b]->forward(activate(activation_, h))));
  return output_->forward(activate(activation_, h));
}

std::string ResidualMlp::describe() const {
  std::ostringstream s;
  s << "ResidualMlp(" << input_->in_features() << " -> " << input_->out_features() << " x "
    << first_.size() << " blocks -> " << output_->out_features() << ", "
    << activation_name(activation_) << ")";
  return s.str();
}

FourierFeatures::FourierFeatures(index_t in, index_t features, double sigma, Rng& rng, DType dtype)
    : in_(in), features_(features), sigma_(sigma) {
  CAMBER_REQUIRE(in > 0 && features > 0 && sigma > 0.0,
                 "FourierFeatures: in, features and sigma must be positive");
  b_ = normal({in, features}, 0.0, sigma, rng, dtype);
  // [sin(z), cos(z)] with z = 2 pi x B, as one matmul and one sin:
  // sin([z, z] + [0, pi/2]), so no concatenation is needed.
  const std::vector<double> b = b_.to(DType::float64).to_vector();
  std::vector<double> bb(static_cast<size_t>(in_ * 2 * features_));
  for (index_t i = 0; i < in_; ++i)
    for (index_t j = 0; j < features_; ++j) {
      const double v = 2.0 * M_PI * b[static_cast<size_t>(i * features_ + j)];
      bb[static_cast<size_t>(i * 2 * features_ + j)] = v;
      bb[static_cast<size_t>(i * 2 * features_ + features_ + j)] = v;
    }
  std::vector<double> phase(static_cast<size_t>(2 * features_), 0.0);
  for (index_t j = 0; j < features_; ++j) phase[static_cast<size_t>(features_ + j)] = M_PI / 2.0;
  projection_ = Tensor::from_host({in_, 2 * features_}, bb).to(dtype);
  phase_ = Tensor::from_host({2 * features_}, phase).to(dtype);
}

ad::Var FourierFeatures::forward(const ad::Var& x) const {
  check_input(x, in_, describe());
  return ad::sin(ad::matmul(x, ad::constant(projection_)) + ad::constant(phase_));
}

std::string FourierFeatures::describe() const {
  std::ostringstream s;
  s << "FourierFeatures(" << in_ << " -> " << 2 * features_ << ", sigma " << sigma_ << ")";
  return s.str();
}

LayerNorm::LayerNorm(index_t features, double eps, DType dtype)
    : features_(features), eps_(eps) {
  CAMBER_REQUIRE(features > 0 && eps > 0.0, "LayerNorm: features and eps must be positive");
  gain_ = register_parameter(
      "gain", Tensor::from_host({features}, std::vector<double>(static_cast<size_t>(features), 1.0))
                  .to(dtype));
  bias_ = register_parameter("bias", Tensor::zeros({features}, dtype));
}

ad::Var LayerNorm::forward(const ad::Var& x) const {
  check_input(x, features_, describe());
  const ad::Var mean = ad::mean(x, 1, true);
  const ad::Var centred = x - mean;
  const ad::Var var = ad::mean(centred * centred, 1, true);
  return centred / ad::sqrt(var + eps_) * param(gain_) + param(bias_);
}

std::string LayerNorm::describe() const {
  std::ostringstream s;
  s << "LayerNorm(" << features_ << ", eps " << eps_ << ")";
  return s.str();
}

}  // namespace camber::nn
