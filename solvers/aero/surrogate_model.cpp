#include <camber/solvers/aero/surrogate_model.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include <camber/autodiff/variable.hpp>
#include <camber/core/error.hpp>

namespace camber::solvers::aero {

NetworkModel::NetworkModel(ShapeDesign& design, nn::EnsembleOptions options)
    : design_(design), options_(std::move(options)), comm_(design.flow().distributed_mesh().comm()) {
  const opt::Problem p = design_.problem();
  const opt::Options scales = design_.options();
  n_ = static_cast<index_t>(p.x0.size());
  n_geometry_ = design_.geometry().n_constraints();
  n_inequality_ = p.n_inequality;
  n_equality_ = p.n_equality;
  x_scale_ = scales.x_scale;
  output_scale_.push_back(1.0 / scales.objective_scale);
  for (int i = n_geometry_; i < n_inequality_ + n_equality_; ++i)
    output_scale_.push_back(1.0 / scales.constraint_scale[static_cast<size_t>(i)]);
}

std::vector<double> NetworkModel::outputs(const opt::Evaluation& e) const {
  std::vector<double> y{e.objective};
  for (int i = n_geometry_; i < n_inequality_; ++i) y.push_back(e.inequality[static_cast<size_t>(i)]);
  for (int j = 0; j < n_equality_; ++j) y.push_back(e.equality[static_cast<size_t>(j)]);
  return y;
}

void NetworkModel::fit(const opt::History& samples) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<const opt::HistoryEntry*> rows;
  for (const opt::HistoryEntry& s : samples)
    if (!s.failed) rows.push_back(&s);
  CAMBER_REQUIRE(!rows.empty(), "NetworkModel::fit: no successful evaluation to fit");
  const index_t n_out = static_cast<index_t>(output_scale_.size());
  if (!ensemble_) {
    // Inputs in units of the scales around zero (the undeformed shape);
    // outputs in the problem's scales relative to the first design.
    nn::Columns in, out;
    for (index_t k = 0; k < n_; ++k) {
      in.names.push_back("x" + std::to_string(k));
      in.units.push_back("");
    }
    out.names.push_back("objective");
    out.units.push_back("");
    for (index_t k = 1; k < n_out; ++k) {
      out.names.push_back("constraint" + std::to_string(k - 1));
      out.units.push_back("");
    }
    nn::Normalization in_stats{std::vector<double>(static_cast<size_t>(n_), 0.0), x_scale_};
    nn::Normalization out_stats{outputs(rows.front()->values), output_scale_};
    ensemble_ = std::make_unique<nn::Ensemble>(in, out, in_stats, out_stats, options_, comm_);
  }
  const index_t r = static_cast<index_t>(rows.size());
  std::vector<double> x, y, dy;
  for (const opt::HistoryEntry* s : rows) {
    x.insert(x.end(), s->x.begin(), s->x.end());
    const std::vector<double> v = outputs(s->values);
    y.insert(y.end(), v.begin(), v.end());
    const opt::Evaluation& e = s->values;
    dy.insert(dy.end(), e.objective_gradient.begin(), e.objective_gradient.end());
    for (int i = n_geometry_; i < n_inequality_; ++i)
      dy.insert(dy.end(), e.inequality_gradients[static_cast<size_t>(i)].begin(),
                e.inequality_gradients[static_cast<size_t>(i)].end());
    for (int j = 0; j < n_equality_; ++j)
      dy.insert(dy.end(), e.equality_gradients[static_cast<size_t>(j)].begin(),
                e.equality_gradients[static_cast<size_t>(j)].end());
  }
  ensemble_->fit(Tensor::from_host({r, n_}, x), Tensor::from_host({r, n_out}, y),
                 Tensor::from_host({r, n_out, n_}, dy));
  fit_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

opt::Evaluation NetworkModel::evaluate(const std::vector<double>& x) {
  CAMBER_REQUIRE(ensemble_, "NetworkModel::evaluate before fit()");
  CAMBER_INPUT_REQUIRE(static_cast<index_t>(x.size()) == n_, "NetworkModel::evaluate: " << x.size()
                                                                  << " variables, the model has " << n_);
  const Tensor xt = Tensor::from_host({1, n_}, x);
  const std::vector<double> y = ensemble_->predict(xt).to_vector();
  const std::vector<double> j = ensemble_->jacobian(xt).to_vector();
  const auto row = [&](size_t o) {
    return std::vector<double>(j.begin() + static_cast<std::ptrdiff_t>(o * static_cast<size_t>(n_)),
                               j.begin() + static_cast<std::ptrdiff_t>((o + 1) * static_cast<size_t>(n_)));
  };
  opt::Evaluation e;
  e.objective = y[0];
  e.objective_gradient = row(0);
  // The geometry's constraints, exact (they need no flow).
  const index_t n_shape = design_.n_design();
  const ad::Var a = ad::variable(Tensor::from_host({n_shape}, std::vector<double>(x.begin(), x.begin() + n_shape)));
  std::vector<double> g;
  std::vector<std::vector<double>> dg;
  design_.geometry().constraints(a, g, dg);
  for (size_t i = 0; i < g.size(); ++i) {
    e.inequality.push_back(g[i]);
    dg[i].resize(static_cast<size_t>(n_), 0.0);
    e.inequality_gradients.push_back(std::move(dg[i]));
  }
  size_t o = 1;
  for (int i = n_geometry_; i < n_inequality_; ++i, ++o) {
    e.inequality.push_back(y[o]);
    e.inequality_gradients.push_back(row(o));
  }
  for (int k = 0; k < n_equality_; ++k, ++o) {
    e.equality.push_back(y[o]);
    e.equality_gradients.push_back(row(o));
  }
  return e;
}

double NetworkModel::objective_uncertainty(const std::vector<double>& x) {
  CAMBER_REQUIRE(ensemble_, "NetworkModel::objective_uncertainty before fit()");
  return ensemble_->stddev(Tensor::from_host({1, n_}, x)).to_vector()[0];
}

std::string NetworkModel::ensemble_description() const {
  std::string s = "(" + std::to_string(n_);
  for (index_t h : options_.hidden) s += " -> " + std::to_string(h);
  return s + " -> " + std::to_string(output_scale_.size()) + ", " +
         nn::activation_name(options_.activation) + ")";
}

const nn::Ensemble& NetworkModel::ensemble() const {
  CAMBER_REQUIRE(ensemble_, "NetworkModel::ensemble before fit()");
  return *ensemble_;
}

}  // namespace camber::solvers::aero
