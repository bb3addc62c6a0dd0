#include <camber/nn/lbfgs.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include <camber/core/error.hpp>
#include <camber/nn/module.hpp>
#include <camber/nn/optim.hpp>

namespace camber::nn {

namespace {

using Vec = std::vector<double>;

double dot(const Vec& a, const Vec& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

double max_abs(const Vec& a) {
  double m = 0.0;
  for (double v : a) m = std::max(m, std::abs(v));
  return m;
}

Vec flatten(const std::vector<Tensor>& ts) {
  Vec out;
  for (const Tensor& t : ts) {
    const std::vector<double> v = t.to(DType::float64).to_vector();
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

// The minimizer of the cubic through (a, fa, da) and (b, fb, db), kept
// inside the interval's middle 80% (bisection when the cubic has none).
double cubic_step(double a, double fa, double da, double b, double fb, double db) {
  const double lo = std::min(a, b), hi = std::max(a, b), w = hi - lo;
  const double d1 = da + db - 3.0 * (fa - fb) / (a - b);
  const double disc = d1 * d1 - da * db;
  double t = 0.5 * (lo + hi);
  if (disc >= 0.0) {
    const double d2 = std::copysign(std::sqrt(disc), b - a);
    const double den = db - da + 2.0 * d2;
    if (den != 0.0) t = b - (b - a) * (db + d2 - d1) / den;
  }
  if (!std::isfinite(t)) t = 0.5 * (lo + hi);
  return std::clamp(t, lo + 0.1 * w, hi - 0.1 * w);
}

class Problem {
 public:
  Problem(const ad::Vars& params, const ValueAndGradient& f) : params_(params), f_(f) {
    for (const ad::Var& p : params_) {
      CAMBER_REQUIRE(p.defined() && p.requires_grad() && !p.has_node(),
                     "lbfgs: a parameter is not a leaf that requires gradients");
      sizes_.push_back(static_cast<size_t>(p.size()));
    }
  }
  Vec values() const {
    std::vector<Tensor> v;
    for (const ad::Var& p : params_) v.push_back(p.value());
    return flatten(v);
  }
  void set(const Vec& x) {
    size_t at = 0;
    for (size_t k = 0; k < params_.size(); ++k) {
      Tensor dst = params_[k].value();
      const Tensor src =
          Tensor::from_host(dst.shape(), std::vector<double>(x.begin() + static_cast<long>(at),
                                                             x.begin() + static_cast<long>(at + sizes_[k])))
              .to(dst.dtype());
      copy_into(dst, src);
      at += sizes_[k];
    }
  }
  // f and g at x (sets the parameters to x).
  double eval(const Vec& x, Vec& g) {
    set(x);
    std::vector<Tensor> grads;
    const double f = f_(grads);
    CAMBER_REQUIRE(grads.size() == params_.size(), "lbfgs: the closure returned "
                                                       << grads.size() << " gradients for "
                                                       << params_.size() << " parameters");
    g = flatten(grads);
    ++evaluations;
    return f;
  }
  int evaluations = 0;

 private:
  ad::Vars params_;
  ValueAndGradient f_;
  std::vector<size_t> sizes_;
};

struct Trial {
  double a = 0.0, f = 0.0, d = 0.0;
  Vec g;
};

}  // namespace

LbfgsResult lbfgs(const ad::Vars& params, const std::function<ad::Var()>& loss,
                  const LbfgsOptions& o) {
  return lbfgs(
      params,
      [&](std::vector<Tensor>& grads) {
        const ad::Var l = loss();
        grads = values(ad::grad(l, params));
        return l.item();
      },
      o);
}

LbfgsResult lbfgs(const ad::Vars& params, const ValueAndGradient& value_and_gradient,
                  const LbfgsOptions& o) {
  CAMBER_REQUIRE(o.history > 0 && o.max_iterations >= 0 && o.c1 > 0.0 && o.c1 < o.c2 &&
                     o.c2 < 1.0 && o.max_line_search > 0,
                 "lbfgs: needs history > 0, 0 < c1 < c2 < 1 and max_line_search > 0");
  Problem prob(params, value_and_gradient);
  const int max_evals = o.max_evaluations > 0 ? o.max_evaluations : 25 * std::max(o.max_iterations, 1);
  Vec x = prob.values(), g;
  double f = prob.eval(x, g);
  CAMBER_REQUIRE(std::isfinite(f), "lbfgs: the loss at the start is " << f);
  std::deque<Vec> S, Y;
  std::deque<double> rho;
  LbfgsResult r;
  const auto finish = [&](bool converged, const std::string& why) {
    prob.set(x);
    r.loss = f;
    r.gradient_max = max_abs(g);
    r.evaluations = prob.evaluations;
    r.converged = converged;
    r.stop_reason = why;
    return r;
  };
  if (max_abs(g) <= o.gradient_tolerance) return finish(true, "gradient below tolerance at the start");
  for (int it = 0; it < o.max_iterations; ++it) {
    // Two-loop recursion: p = -H g.
    Vec q = g;
    std::vector<double> alpha(S.size());
    for (size_t k = S.size(); k-- > 0;) {
      alpha[k] = rho[k] * dot(S[k], q);
      for (size_t i = 0; i < q.size(); ++i) q[i] -= alpha[k] * Y[k][i];
    }
    const double gamma = S.empty() ? 1.0 : dot(S.back(), Y.back()) / dot(Y.back(), Y.back());
    for (double& v : q) v *= gamma;
    for (size_t k = 0; k < S.size(); ++k) {
      const double beta = rho[k] * dot(Y[k], q);
      for (size_t i = 0; i < q.size(); ++i) q[i] += S[k][i] * (alpha[k] - beta);
    }
    Vec p(q.size());
    for (size_t i = 0; i < q.size(); ++i) p[i] = -q[i];
    double d0 = dot(g, p);
    if (!(d0 < 0.0)) {  // not a descent direction: restart from steepest descent
      S.clear();
      Y.clear();
      rho.clear();
      for (size_t i = 0; i < p.size(); ++i) p[i] = -g[i];
      d0 = dot(g, p);
    }
    // Strong-Wolfe line search.
    double a = S.empty() ? std::min(1.0, 1.0 / std::max(max_abs(g), 1e-300)) : 1.0;
    const auto phi = [&](double step) {
      Trial t;
      t.a = step;
      Vec xt(x.size());
      for (size_t i = 0; i < x.size(); ++i) xt[i] = x[i] + step * p[i];
      t.f = prob.eval(xt, t.g);
      t.d = dot(t.g, p);
      return t;
    };
    const auto armijo = [&](const Trial& t) { return t.f <= f + o.c1 * t.a * d0; };
    const auto curvature = [&](const Trial& t) { return std::abs(t.d) <= -o.c2 * d0; };
    Trial prev{0.0, f, d0, g}, accepted;
    bool found = false;
    const auto zoom = [&](Trial lo, Trial hi) {
      for (int j = 0; j < o.max_line_search && prob.evaluations < max_evals; ++j) {
        const Trial t = phi(cubic_step(lo.a, lo.f, lo.d, hi.a, hi.f, hi.d));
        if (!std::isfinite(t.f) || !armijo(t) || t.f >= lo.f) {
          hi = t;
        } else {
          if (curvature(t)) {
            accepted = t;
            return true;
          }
          if (t.d * (hi.a - lo.a) >= 0.0) hi = lo;
          lo = t;
        }
        if (std::abs(hi.a - lo.a) <= 1e-12 * std::max(1.0, lo.a)) break;
      }
      // No point met both conditions: take the best with sufficient decrease.
      if (lo.a > 0.0) {
        accepted = lo;
        return true;
      }
      return false;
    };
    for (int i = 0; i < o.max_line_search && prob.evaluations < max_evals; ++i) {
      const Trial t = phi(a);
      if (!std::isfinite(t.f) || !armijo(t) || (i > 0 && t.f >= prev.f)) {
        found = zoom(prev, t);
        break;
      }
      if (curvature(t)) {
        accepted = t;
        found = true;
        break;
      }
      if (t.d >= 0.0) {
        found = zoom(t, prev);
        break;
      }
      prev = t;
      a *= 2.0;
    }
    if (!found) return finish(false, "line search found no point of sufficient decrease");
    // Update the pairs.
    Vec s(x.size()), y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      s[i] = accepted.a * p[i];
      y[i] = accepted.g[i] - g[i];
    }
    const double sy = dot(s, y);
    if (sy > 1e-10 * std::sqrt(dot(s, s) * dot(y, y))) {
      if (static_cast<int>(S.size()) == o.history) {
        S.pop_front();
        Y.pop_front();
        rho.pop_front();
      }
      S.push_back(s);
      Y.push_back(y);
      rho.push_back(1.0 / sy);
    }
    const double f_old = f;
    for (size_t i = 0; i < x.size(); ++i) x[i] += s[i];
    f = accepted.f;
    g = accepted.g;
    r.iterations = it + 1;
    if (max_abs(g) <= o.gradient_tolerance) return finish(true, "gradient below tolerance");
    if (std::abs(f_old - f) <= o.change_tolerance * std::max(1.0, std::abs(f_old)))
      return finish(true, "loss change below tolerance");
    if (prob.evaluations >= max_evals) return finish(false, "evaluation limit");
  }
  return finish(false, "iteration limit");
}

}  // namespace camber::nn
