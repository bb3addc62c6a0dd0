#include <camber/autodiff/gradcheck.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>

#include <camber/core/error.hpp>

namespace camber::ad {

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

using Values = std::vector<double>;

Tensor random_like(const Shape& shape, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Values v(static_cast<size_t>(shape_size(shape)));
  for (double& x : v) x = normal(rng);
  return Tensor::from_host(shape, v);
}

// f at constant inputs, no graph.
Values evaluate(const CheckFunction& f, const std::vector<Tensor>& x) {
  NoGradGuard no_grad;
  Vars xs;
  for (const Tensor& t : x) xs.push_back(constant(t));
  return f(xs).value().to_vector();
}

double weighted(const Values& w, const Values& y) {
  double s = 0.0;
  for (size_t j = 0; j < y.size(); ++j) s += w[j] * y[j];
  return s;
}
double magnitude(const Values& w, const Values& y) {
  double s = 0.0;
  for (size_t j = 0; j < y.size(); ++j) s += std::abs(w[j] * y[j]);
  return s;
}

std::vector<Tensor> perturbed(const std::vector<Tensor>& x, size_t i, size_t e, double delta) {
  std::vector<Tensor> out = x;
  Values v = x[i].to_vector();
  v[e] += delta;
  out[i] = Tensor::from_host(x[i].shape(), v);
  return out;
}

std::vector<Tensor> along(const std::vector<Tensor>& x, const std::vector<Tensor>& v, double t) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < x.size(); ++i) {
    Tensor y = x[i].clone();
    y.axpy(t, v[i]);
    out.push_back(y);
  }
  return out;
}

double max_abs_all(const std::vector<Tensor>& x) {
  double m = 0.0;
  for (const Tensor& t : x) m = std::max(m, t.max_abs());
  return m;
}

// Compares one AD value with one finite difference.
void compare(GradCheckResult& r, double ad_value, double fd, double h, double S,
             const GradCheckOptions& o, const std::string& where) {
  const double err = std::abs(ad_value - fd);
  const double scale = std::max(std::abs(ad_value), std::abs(fd));
  const double tol = o.rtol * scale + o.c_trunc * h * h * (1.0 + S) + o.c_round * eps * S / h +
                     std::numeric_limits<double>::min();
  const double ratio = std::isfinite(err) ? err / tol : std::numeric_limits<double>::infinity();
  r.n_compared += 1;
  r.max_abs_error = std::max(r.max_abs_error, err);
  if (scale > 0) r.max_rel_error = std::max(r.max_rel_error, err / scale);
  if (!(ratio <= 1.0)) r.ok = false;
  if (!(ratio <= r.worst_ratio)) {
    r.worst_ratio = ratio;
    std::ostringstream os;
    os << std::setprecision(10) << where << ": AD " << ad_value << ", finite difference " << fd
       << ", error " << err << " > tolerance " << tol;
    if (ratio <= 1.0) os.str(where + ": within tolerance");
    r.worst = os.str();
  }
}

// J^T w at x for each input (first order, no graph).
std::vector<Values> vjp_values(const CheckFunction& f, const std::vector<Tensor>& x,
                               const Tensor& w) {
  Vars xs;
  for (const Tensor& t : x) xs.push_back(variable(t));
  const Var y = f(xs);
  CAMBER_REQUIRE(y.shape() == w.shape(), "gradcheck: f returned shape " << shape_string(y.shape())
                                                                        << ", expected "
                                                                        << shape_string(w.shape()));
  const Vars g = vjp({y}, xs, {constant(w)});
  std::vector<Values> out;
  for (const Var& gi : g) out.push_back(gi.value().to_vector());
  return out;
}

double inner(const std::vector<Values>& a, const std::vector<Tensor>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += weighted(a[i], b[i].to_vector());
  return s;
}

}  // namespace

std::string GradCheckResult::report() const {
  std::ostringstream os;
  os << (ok ? "passed" : "FAILED") << " (" << n_compared << " entries; max abs error "
     << max_abs_error << ", max rel error " << max_rel_error << ", worst error/tolerance "
     << worst_ratio << ")";
  if (!worst.empty()) os << "; worst: " << worst;
  return os.str();
}

void GradCheckResult::merge(const GradCheckResult& o) {
  ok = ok && o.ok;
  max_abs_error = std::max(max_abs_error, o.max_abs_error);
  max_rel_error = std::max(max_rel_error, o.max_rel_error);
  if (!(o.worst_ratio <= worst_ratio)) {
    worst_ratio = o.worst_ratio;
    worst = o.worst;
  }
  n_compared += o.n_compared;
}

GradCheckResult check_gradients(const CheckFunction& f, const std::vector<Tensor>& x,
                                const GradCheckOptions& o) {
  std::mt19937_64 rng(o.seed);
  GradCheckResult r;
  const Values y0 = evaluate(f, x);
  const Tensor w = random_like(Shape{static_cast<index_t>(y0.size())}, rng);
  const Values wv = w.to_vector();
  Shape y_shape;
  {
    Vars xs;
    for (const Tensor& t : x) xs.push_back(constant(t));
    y_shape = f(xs).shape();
  }
  const std::vector<Values> a = vjp_values(f, x, w.reshape(y_shape));

  // Reverse mode against central differences, entry by entry.
  for (size_t i = 0; i < x.size(); ++i) {
    const Values xi = x[i].to_vector();
    for (size_t e = 0; e < xi.size(); ++e) {
      const double h = o.step * std::max(1.0, std::abs(xi[e]));
      const Values yp = evaluate(f, perturbed(x, i, e, h));
      const Values ym = evaluate(f, perturbed(x, i, e, -h));
      const double fd = (weighted(wv, yp) - weighted(wv, ym)) / (2 * h);
      const double S = std::max(magnitude(wv, yp), magnitude(wv, ym));
      compare(r, a[i][e], fd, h, S, o,
              CAMBER_MSG("reverse mode, input " << i << ", element " << e));
    }
  }

  // Forward mode along a random direction against a directional difference.
  std::vector<Tensor> v;
  for (const Tensor& t : x) v.push_back(random_like(t.shape(), rng));
  const double vmax = max_abs_all(v);
  if (vmax > 0)
    for (Tensor& t : v) t *= 1.0 / vmax;
  Vars xs, vs;
  for (size_t i = 0; i < x.size(); ++i) {
    xs.push_back(constant(x[i]));
    vs.push_back(constant(v[i]));
  }
  const Values jv =
      jvp([&f](const Vars& in) { return Vars{f(in)}; }, xs, vs).tangents[0].value().to_vector();
  const double h = o.step * std::max(1.0, max_abs_all(x));
  const Values yp = evaluate(f, along(x, v, h));
  const Values ym = evaluate(f, along(x, v, -h));
  for (size_t j = 0; j < jv.size(); ++j) {
    const double fd = (yp[j] - ym[j]) / (2 * h);
    const double S = std::max(std::abs(yp[j]), std::abs(ym[j]));
    compare(r, jv[j], fd, h, S, o, CAMBER_MSG("forward mode, output element " << j));
  }
  return r;
}

GradCheckResult check_second_order(const CheckFunction& f, const std::vector<Tensor>& x,
                                   const GradCheckOptions& o) {
  std::mt19937_64 rng(o.seed + 1);
  GradCheckResult r;
  Shape y_shape;
  {
    NoGradGuard no_grad;
    Vars xs;
    for (const Tensor& t : x) xs.push_back(constant(t));
    y_shape = f(xs).shape();
  }
  const Tensor w = random_like(y_shape, rng);
  std::vector<Tensor> u;
  for (const Tensor& t : x) u.push_back(random_like(t.shape(), rng));

  // s(x) = <u, J(x)^T w> from first-order VJPs, and its rounding magnitude.
  auto s_of = [&](const std::vector<Tensor>& at, double& S) {
    const std::vector<Values> q = vjp_values(f, at, w);
    double s = 0.0;
    S = 0.0;
    for (size_t i = 0; i < q.size(); ++i) {
      const Values ui = u[i].to_vector();
      s += weighted(ui, q[i]);
      S += magnitude(ui, q[i]);
    }
    return s;
  };
  // q(x) = J^T w with a graph, so it can be differentiated again.
  auto q_graph = [&f, &w](const Vars& xs) {
    const Var y = f(xs);
    GradOptions go;
    go.create_graph = true;
    return vjp({y}, xs, {constant(w)}, go);
  };

  // Reverse over reverse: grad of s.
  Vars xs;
  for (const Tensor& t : x) xs.push_back(variable(t));
  const Vars q = q_graph(xs);
  Var s = scalar(0.0);
  for (size_t i = 0; i < q.size(); ++i) s = add(s, dot(q[i], constant(u[i])));
  const Vars a = vjp({s}, xs, {ones_like(s)});
  for (size_t i = 0; i < x.size(); ++i) {
    const Values ai = a[i].value().to_vector();
    const Values xi = x[i].to_vector();
    for (size_t e = 0; e < xi.size(); ++e) {
      const double h = o.step * std::max(1.0, std::abs(xi[e]));
      double Sp = 0, Sm = 0;
      const double fd =
          (s_of(perturbed(x, i, e, h), Sp) - s_of(perturbed(x, i, e, -h), Sm)) / (2 * h);
      compare(r, ai[e], fd, h, std::max(Sp, Sm), o,
              CAMBER_MSG("reverse over reverse, input " << i << ", element " << e));
    }
  }

  // Forward over reverse along a random direction v.
  std::vector<Tensor> v;
  for (const Tensor& t : x) v.push_back(random_like(t.shape(), rng));
  const double vmax = max_abs_all(v);
  if (vmax > 0)
    for (Tensor& t : v) t *= 1.0 / vmax;
  Vars xv, vv;
  for (size_t i = 0; i < x.size(); ++i) {
    xv.push_back(variable(x[i]));
    vv.push_back(constant(v[i]));
  }
  const JvpResult jr = jvp(q_graph, xv, vv);
  double fwd = 0.0;
  for (size_t i = 0; i < jr.tangents.size(); ++i)
    fwd += weighted(u[i].to_vector(), jr.tangents[i].value().to_vector());
  const double h = o.step * std::max(1.0, max_abs_all(x));
  double Sp = 0, Sm = 0;
  const double fd = (s_of(along(x, v, h), Sp) - s_of(along(x, v, -h), Sm)) / (2 * h);
  compare(r, fwd, fd, h, std::max(Sp, Sm), o, "forward over reverse, <u, H v>");
  return r;
}

GradCheckResult check_dot_product(const CheckFunction& f, const std::vector<Tensor>& x,
                                  const GradCheckOptions& o) {
  std::mt19937_64 rng(o.seed + 2);
  GradCheckResult r;
  Vars xs, vs;
  std::vector<Tensor> v;
  for (const Tensor& t : x) {
    v.push_back(random_like(t.shape(), rng));
    xs.push_back(constant(t));
    vs.push_back(constant(v.back()));
  }
  const Values jv =
      jvp([&f](const Vars& in) { return Vars{f(in)}; }, xs, vs).tangents[0].value().to_vector();
  Shape y_shape;
  {
    NoGradGuard no_grad;
    y_shape = f(xs).shape();
  }
  const Tensor w = random_like(y_shape, rng);
  const Values wv = w.to_vector();
  const std::vector<Values> a = vjp_values(f, x, w);
  const double lhs = weighted(jv, wv);
  const double rhs = inner(a, v);
  double S = magnitude(jv, wv);
  for (size_t i = 0; i < a.size(); ++i) S += magnitude(a[i], v[i].to_vector());
  const double err = std::abs(lhs - rhs);
  const double tol = o.c_round * eps * S + std::numeric_limits<double>::min();
  r.n_compared = 1;
  r.max_abs_error = err;
  r.max_rel_error = std::max(std::abs(lhs), std::abs(rhs)) > 0
                        ? err / std::max(std::abs(lhs), std::abs(rhs))
                        : 0.0;
  r.worst_ratio = std::isfinite(err) ? err / tol : std::numeric_limits<double>::infinity();
  r.ok = r.worst_ratio <= 1.0;
  std::ostringstream os;
  os << std::setprecision(17) << "dot product: <J v, w> = " << lhs << ", <v, J^T w> = " << rhs
     << ", tolerance " << tol;
  r.worst = os.str();
  return r;
}

GradCheckResult check_all(const CheckFunction& f, const std::vector<Tensor>& x,
                          const GradCheckOptions& o) {
  GradCheckResult r = check_gradients(f, x, o);
  r.merge(check_second_order(f, x, o));
  r.merge(check_dot_product(f, x, o));
  return r;
}

}  // namespace camber::ad
