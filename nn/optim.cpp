#include <camber/nn/optim.hpp>

#include <cmath>

#include <Kokkos_Core.hpp>

#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>
#include <camber/nn/module.hpp>

namespace camber::nn {

std::vector<Tensor> values(const ad::Vars& vars) {
  std::vector<Tensor> out;
  out.reserve(vars.size());
  for (const ad::Var& v : vars) out.push_back(v.value());
  return out;
}

Optimizer::Optimizer(ad::Vars params, double lr) : params_(std::move(params)), lr_(lr) {
  set_lr(lr);
  for (size_t k = 0; k < params_.size(); ++k) {
    CAMBER_REQUIRE(params_[k].defined() && params_[k].requires_grad() && !params_[k].has_node(),
                   "Optimizer: parameter " << k << " is not a leaf that requires gradients");
    const DType d = params_[k].dtype();
    CAMBER_REQUIRE(d == DType::float64 || d == DType::float32,
                   "Optimizer: parameter " << k << " is " << dtype_name(d)
                                           << "; parameters are float64 or float32");
  }
}

void Optimizer::set_lr(double lr) {
  CAMBER_REQUIRE(std::isfinite(lr) && lr >= 0.0, "Optimizer: learning rate " << lr
                                                                             << " must be finite and >= 0");
  lr_ = lr;
}

void Optimizer::step(const ad::Vars& grads) { step(values(grads)); }

void Optimizer::step(const std::vector<Tensor>& grads) {
  CAMBER_REQUIRE(grads.size() == params_.size(), "Optimizer::step: " << grads.size()
                                                                      << " gradients for "
                                                                      << params_.size()
                                                                      << " parameters");
  for (size_t k = 0; k < params_.size(); ++k) {
    const Tensor& p = params_[k].value();
    CAMBER_REQUIRE(grads[k].shape() == p.shape() && grads[k].dtype() == p.dtype(),
                   "Optimizer::step: gradient " << k << " is " << dtype_name(grads[k].dtype())
                                                << " " << shape_string(grads[k].shape())
                                                << ", its parameter "
                                                << dtype_name(p.dtype()) << " "
                                                << shape_string(p.shape()));
  }
  ++steps_;
  for (size_t k = 0; k < params_.size(); ++k) {
    Tensor p = params_[k].value();
    update(k, p, grads[k], steps_);
    p.mark_modified();
  }
}

std::vector<std::pair<std::string, Tensor>> Optimizer::state() const {
  std::vector<std::pair<std::string, Tensor>> out;
  out.emplace_back("step", Tensor::from_host({1}, {static_cast<double>(steps_)}));
  out.emplace_back("lr", Tensor::from_host({1}, {lr_}));
  for (const auto& b : const_cast<Optimizer*>(this)->buffers())
    out.emplace_back(b.first, b.second->clone());
  return out;
}

void Optimizer::load_state(const std::vector<std::pair<std::string, Tensor>>& state) {
  const auto bufs = buffers();
  CAMBER_REQUIRE(state.size() == bufs.size() + 2,
                 "Optimizer::load_state: " << state.size() << " entries, expected "
                                           << bufs.size() + 2);
  CAMBER_REQUIRE(state[0].first == "step" && state[1].first == "lr",
                 "Optimizer::load_state: expected 'step' and 'lr' first");
  for (size_t k = 0; k < bufs.size(); ++k) {
    CAMBER_REQUIRE(state[k + 2].first == bufs[k].first,
                   "Optimizer::load_state: entry '" << state[k + 2].first << "' where '"
                                                    << bufs[k].first << "' was expected");
    copy_into(*bufs[k].second, state[k + 2].second);
  }
  steps_ = static_cast<long>(state[0].second.item());
  set_lr(state[1].second.item());
}

// ---- kernels ------------------------------------------------------------------
namespace {

template <class T>
void sgd_kernel(const Tensor& p, const Tensor& g, const Tensor& b, double lr, double mu,
                double wd, bool nesterov, bool first) {
  auto vp = p.typed_view<T>();
  auto vg = g.typed_view<T>();
  auto vb = b.typed_view<T>();
  const bool has_b = b.size() > 0;
  Kokkos::parallel_for(
      "camber::nn::sgd", Kokkos::RangePolicy<>(0, p.size()), KOKKOS_LAMBDA(index_t i) {
        double gi = static_cast<double>(vg(i)) + wd * static_cast<double>(vp(i));
        if (has_b) {
          const double bi = first ? gi : mu * static_cast<double>(vb(i)) + gi;
          vb(i) = static_cast<T>(bi);
          gi = nesterov ? gi + mu * bi : bi;
        }
        vp(i) = static_cast<T>(static_cast<double>(vp(i)) - lr * gi);
      });
}

template <class T>
void adam_kernel(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, double lr,
                 double b1, double b2, double eps, double wd, bool decoupled, long t) {
  auto vp = p.typed_view<T>();
  auto vg = g.typed_view<T>();
  auto vm = m.typed_view<T>();
  auto vv = v.typed_view<T>();
  const double c1 = 1.0 - std::pow(b1, static_cast<double>(t));
  const double c2 = 1.0 - std::pow(b2, static_cast<double>(t));
  Kokkos::parallel_for(
      "camber::nn::adam", Kokkos::RangePolicy<>(0, p.size()), KOKKOS_LAMBDA(index_t i) {
        double pi = static_cast<double>(vp(i));
        double gi = static_cast<double>(vg(i));
        if (decoupled) {
          pi *= 1.0 - lr * wd;
        } else {
          gi += wd * pi;
        }
        const double mi = b1 * static_cast<double>(vm(i)) + (1.0 - b1) * gi;
        const double ui = b2 * static_cast<double>(vv(i)) + (1.0 - b2) * gi * gi;
        vm(i) = static_cast<T>(mi);
        vv(i) = static_cast<T>(ui);
        vp(i) = static_cast<T>(pi - lr * (mi / c1) / (kmath::sqrt(ui / c2) + eps));
      });
}

template <class T>
double sum_squares(const Tensor& g) {
  auto vg = g.typed_view<T>();
  double s = 0.0;
  Kokkos::parallel_reduce(
      "camber::nn::sum_squares", Kokkos::RangePolicy<>(0, g.size()),
      KOKKOS_LAMBDA(index_t i, double& acc) {
        const double x = static_cast<double>(vg(i));
        acc += x * x;
      },
      s);
  return s;
}

template <class T>
void scale_kernel(const Tensor& g, double c) {
  auto vg = g.typed_view<T>();
  Kokkos::parallel_for(
      "camber::nn::scale", Kokkos::RangePolicy<>(0, g.size()),
      KOKKOS_LAMBDA(index_t i) { vg(i) = static_cast<T>(c * static_cast<double>(vg(i))); });
}

}  // namespace

Sgd::Sgd(ad::Vars params, const SgdOptions& o) : Optimizer(std::move(params), o.lr), o_(o) {
  CAMBER_REQUIRE(o.momentum >= 0.0 && o.weight_decay >= 0.0,
                 "Sgd: momentum and weight_decay must be >= 0");
  CAMBER_REQUIRE(!o.nesterov || o.momentum > 0.0, "Sgd: Nesterov needs momentum > 0");
  for (const ad::Var& p : params_)
    b_.push_back(o.momentum > 0.0 ? Tensor::zeros(p.shape(), p.dtype())
                                  : Tensor::zeros({0}, p.dtype()));
}

void Sgd::update(size_t k, Tensor& p, const Tensor& g, long t) {
  if (p.dtype() == DType::float32) {
    sgd_kernel<float>(p, g, b_[k], lr(), o_.momentum, o_.weight_decay, o_.nesterov, t == 1);
  } else {
    sgd_kernel<double>(p, g, b_[k], lr(), o_.momentum, o_.weight_decay, o_.nesterov, t == 1);
  }
  b_[k].mark_modified();
}

std::vector<std::pair<std::string, Tensor*>> Sgd::buffers() {
  std::vector<std::pair<std::string, Tensor*>> out;
  if (o_.momentum > 0.0)
    for (size_t k = 0; k < b_.size(); ++k) out.emplace_back("momentum." + std::to_string(k), &b_[k]);
  return out;
}

Adam::Adam(ad::Vars params, const AdamOptions& o) : Optimizer(std::move(params), o.lr), o_(o) {
  CAMBER_REQUIRE(o.beta1 >= 0.0 && o.beta1 < 1.0 && o.beta2 >= 0.0 && o.beta2 < 1.0,
                 "Adam: beta1 and beta2 must be in [0, 1), got " << o.beta1 << " and " << o.beta2);
  CAMBER_REQUIRE(o.eps > 0.0 && o.weight_decay >= 0.0,
                 "Adam: eps must be > 0 and weight_decay >= 0");
  for (const ad::Var& p : params_) {
    m_.push_back(Tensor::zeros(p.shape(), p.dtype()));
    v_.push_back(Tensor::zeros(p.shape(), p.dtype()));
  }
}

void Adam::update(size_t k, Tensor& p, const Tensor& g, long t) {
  if (p.dtype() == DType::float32) {
    adam_kernel<float>(p, g, m_[k], v_[k], lr(), o_.beta1, o_.beta2, o_.eps, o_.weight_decay,
                       o_.decoupled, t);
  } else {
    adam_kernel<double>(p, g, m_[k], v_[k], lr(), o_.beta1, o_.beta2, o_.eps, o_.weight_decay,
                        o_.decoupled, t);
  }
  m_[k].mark_modified();
  v_[k].mark_modified();
}

std::vector<std::pair<std::string, Tensor*>> Adam::buffers() {
  std::vector<std::pair<std::string, Tensor*>> out;
  for (size_t k = 0; k < m_.size(); ++k) out.emplace_back("m." + std::to_string(k), &m_[k]);
  for (size_t k = 0; k < v_.size(); ++k) out.emplace_back("v." + std::to_string(k), &v_[k]);
  return out;
}

namespace {
AdamOptions decoupled(AdamOptions o) {
  o.decoupled = true;
  return o;
}
}  // namespace

AdamW::AdamW(ad::Vars params, AdamOptions o) : Adam(std::move(params), decoupled(o)) {}

double global_norm(const std::vector<Tensor>& grads) {
  double s = 0.0;
  for (const Tensor& g : grads) {
    CAMBER_REQUIRE(g.dtype() != DType::int64, "global_norm: an int64 gradient");
    s += g.dtype() == DType::float32 ? sum_squares<float>(g) : sum_squares<double>(g);
  }
  return std::sqrt(s);
}

double clip_grad_norm(std::vector<Tensor>& grads, double max_norm) {
  CAMBER_REQUIRE(max_norm > 0.0, "clip_grad_norm: max_norm must be positive, got " << max_norm);
  const double norm = global_norm(grads);
  CAMBER_REQUIRE(std::isfinite(norm), "clip_grad_norm: the gradient norm is " << norm);
  if (norm <= max_norm) return norm;
  const double c = max_norm / norm;
  for (Tensor& g : grads) {
    if (g.dtype() == DType::float32) {
      scale_kernel<float>(g, c);
    } else {
      scale_kernel<double>(g, c);
    }
    g.mark_modified();
  }
  return norm;
}

}  // namespace camber::nn
