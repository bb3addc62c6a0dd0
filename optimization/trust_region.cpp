#include <camber/optimization/trust_region.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include "detail/collective.hpp"

namespace camber::opt {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// f + (v_c - m_c) + (g_c - gm_c) . (x - x_c) for one function.
struct Correction {
  double value = 0.0;
  std::vector<double> gradient;
};

Correction correction(double truth, const std::vector<double>& truth_gradient, double model,
                      const std::vector<double>& model_gradient) {
  Correction c;
  c.value = truth - model;
  c.gradient.resize(truth_gradient.size());
  for (size_t i = 0; i < truth_gradient.size(); ++i)
    c.gradient[i] = truth_gradient[i] - model_gradient[i];
  return c;
}

void apply(const Correction& c, const std::vector<double>& dx, double& value,
           std::vector<double>& gradient) {
  value += c.value;
  for (size_t i = 0; i < dx.size(); ++i) {
    value += c.gradient[i] * dx[i];
    gradient[i] += c.gradient[i];
  }
}

}  // namespace

TrustRegionOptimizer::TrustRegionOptimizer(Problem problem, SurrogateModel& model,
                                           TrustRegionOptions options, MPI_Comm comm)
    : problem_(std::move(problem)), model_(model), o_(std::move(options)), comm_(comm) {
  const size_t n = problem_.x0.size();
  CAMBER_INPUT_REQUIRE(n > 0, "the trust-region problem has no design variables");
  CAMBER_INPUT_REQUIRE(static_cast<bool>(problem_.evaluate), "Problem::evaluate is not set");
  CAMBER_INPUT_REQUIRE(o_.max_evaluations >= 1, "TrustRegionOptions::max_evaluations must be >= 1");
  CAMBER_INPUT_REQUIRE(o_.min_radius > 0.0 && o_.min_radius <= o_.initial_radius &&
                           o_.initial_radius <= o_.max_radius,
                       "trust region radii must satisfy 0 < min_radius <= initial_radius <= "
                       "max_radius, not "
                           << o_.min_radius << ", " << o_.initial_radius << ", " << o_.max_radius);
  CAMBER_INPUT_REQUIRE(o_.shrink > 0.0 && o_.shrink < 1.0,
                       "TrustRegionOptions::shrink must be in (0, 1), not " << o_.shrink);
  CAMBER_INPUT_REQUIRE(o_.expand >= 1.0, "TrustRegionOptions::expand must be >= 1, not " << o_.expand);
  CAMBER_INPUT_REQUIRE(o_.accept_ratio < o_.shrink_ratio && o_.shrink_ratio <= o_.expand_ratio,
                       "trust region ratios must satisfy accept_ratio < shrink_ratio <= "
                       "expand_ratio");
  CAMBER_INPUT_REQUIRE(o_.penalty > 0.0, "TrustRegionOptions::penalty must be > 0");
  CAMBER_INPUT_REQUIRE(o_.xtol >= 0.0, "TrustRegionOptions::xtol must be >= 0");
  CAMBER_INPUT_REQUIRE(o_.max_failures >= 0, "TrustRegionOptions::max_failures must be >= 0");
  Options& s = o_.subproblem;
  if (s.x_scale.empty()) s.x_scale.assign(n, 1.0);
  const size_t m = static_cast<size_t>(problem_.n_inequality + problem_.n_equality);
  if (s.constraint_scale.empty()) s.constraint_scale.assign(m, 1.0);
  CAMBER_INPUT_REQUIRE(s.x_scale.size() == n && s.constraint_scale.size() == m,
                       "the subproblem's x_scale and constraint_scale must have "
                           << n << " and " << m << " values");
}

double TrustRegionOptimizer::merit(const Evaluation& e) const {
  const Options& s = o_.subproblem;
  const size_t mi = e.inequality.size();
  double violation = 0.0;
  for (size_t i = 0; i < mi; ++i) violation += s.constraint_scale[i] * std::max(0.0, e.inequality[i]);
  for (size_t j = 0; j < e.equality.size(); ++j)
    violation += s.constraint_scale[mi + j] * std::abs(e.equality[j]);
  return s.objective_scale * e.objective + o_.penalty * violation;
}

TrustRegionResult TrustRegionOptimizer::minimize() {
  const size_t n = problem_.x0.size();
  const size_t mi = static_cast<size_t>(problem_.n_inequality);
  const size_t me = static_cast<size_t>(problem_.n_equality);
  const std::vector<double>& scale = o_.subproblem.x_scale;
  history_.clear();
  TrustRegionResult result;
  const auto expensive = [&](const std::vector<double>& x) {
    bool peers_gone = false;
    HistoryEntry local =
        detail::evaluate_agreed(problem_, x, comm_, o_.subproblem.error_timeout_seconds, &peers_gone);
    HistoryEntry e = detail::share(local, n, mi, me, comm_);
    history_.push_back(e);
    ++result.n_evaluations;
    return e;
  };
  const auto done = [&](Status status, const std::string& message) {
    result.status = status;
    result.message = message;
    return result;
  };
  const auto report = [&](const TrustRegionRecord& r) {
    if (hook_) collective_guard(comm_, [&] { hook_(r); });
  };

  // The start.
  auto t0 = std::chrono::steady_clock::now();
  HistoryEntry centre = expensive(problem_.x0);
  const double start_seconds = seconds_since(t0);
  result.evaluation_seconds += start_seconds;
  result.x = problem_.x0;
  double radius = o_.initial_radius;
  result.radius = radius;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  {
    TrustRegionRecord r;
    r.evaluation = 1;
    r.x = problem_.x0;
    r.failed = centre.failed;
    r.failure = centre.failure;
    r.objective = centre.failed ? nan : centre.values.objective;
    r.max_violation = centre.failed ? nan : centre.values.max_violation();
    r.merit = centre.failed ? nan : merit(centre.values);
    r.predicted_objective = r.model_objective = r.model_uncertainty = nan;
    r.predicted_reduction = r.actual_reduction = r.ratio = nan;
    r.radius = radius;
    r.accepted = !centre.failed;
    r.evaluation_seconds = start_seconds;
    r.best_objective = r.objective;
    r.best_violation = r.max_violation;
    report(r);
  }
  if (centre.failed) {
    result.objective = nan;
    result.n_failures = 1;
    return done(Status::evaluation_failed, "the starting design could not be evaluated: " + centre.failure);
  }
  result.objective = centre.values.objective;
  result.max_violation = centre.values.max_violation();
  double centre_merit = merit(centre.values);

  History samples{centre};
  double fit_seconds = 0.0;
  {
    t0 = std::chrono::steady_clock::now();
    model_.fit(samples);
    fit_seconds = seconds_since(t0);
  }
  for (;;) {
    if (result.n_evaluations >= o_.max_evaluations)
      return done(Status::max_evaluations,
                  CAMBER_MSG(o_.max_evaluations << " expensive evaluations spent"));
    ++result.n_iterations;
    t0 = std::chrono::steady_clock::now();
    // The model corrected to first order at the centre.
    const Evaluation at_centre = model_.evaluate(centre.x);
    const Evaluation& c = centre.values;
    Correction cf = correction(c.objective, c.objective_gradient, at_centre.objective,
                               at_centre.objective_gradient);
    std::vector<Correction> cg, ch;
    for (size_t i = 0; i < mi; ++i)
      cg.push_back(correction(c.inequality[i], c.inequality_gradients[i], at_centre.inequality[i],
                              at_centre.inequality_gradients[i]));
    for (size_t j = 0; j < me; ++j)
      ch.push_back(correction(c.equality[j], c.equality_gradients[j], at_centre.equality[j],
                              at_centre.equality_gradients[j]));
    const std::vector<double> xc = centre.x;
    const auto corrected = [&](const std::vector<double>& x) {
      Evaluation e = model_.evaluate(x);
      std::vector<double> dx(n);
      for (size_t i = 0; i < n; ++i) dx[i] = x[i] - xc[i];
      apply(cf, dx, e.objective, e.objective_gradient);
      for (size_t i = 0; i < mi; ++i) apply(cg[i], dx, e.inequality[i], e.inequality_gradients[i]);
      for (size_t j = 0; j < me; ++j) apply(ch[j], dx, e.equality[j], e.equality_gradients[j]);
      return e;
    };
    Problem sub;
    sub.x0 = xc;
    sub.lower.resize(n);
    sub.upper.resize(n);
    for (size_t i = 0; i < n; ++i) {
      sub.lower[i] = xc[i] - radius * scale[i];
      sub.upper[i] = xc[i] + radius * scale[i];
      if (!problem_.lower.empty()) sub.lower[i] = std::max(sub.lower[i], problem_.lower[i]);
      if (!problem_.upper.empty()) sub.upper[i] = std::min(sub.upper[i], problem_.upper[i]);
      sub.lower[i] = std::min(sub.lower[i], xc[i]);
      sub.upper[i] = std::max(sub.upper[i], xc[i]);
    }
    sub.n_inequality = problem_.n_inequality;
    sub.n_equality = problem_.n_equality;
    sub.evaluate = corrected;
    Optimizer sub_optimizer(sub, o_.subproblem, comm_);
    const Result proposal = sub_optimizer.minimize();
    const std::vector<double> x = proposal.x;
    const Evaluation predicted = corrected(x);
    const double model_objective = model_.evaluate(x).objective;
    const double uncertainty = model_.objective_uncertainty(x);
    const double model_seconds = fit_seconds + seconds_since(t0);
    result.model_seconds += model_seconds;
    double step = 0.0;
    for (size_t i = 0; i < n; ++i) step = std::max(step, std::abs(x[i] - xc[i]) / scale[i]);
    const double predicted_reduction = centre_merit - merit(predicted);
    if (step <= o_.xtol || !(predicted_reduction > 0.0)) {
      --result.n_iterations;
      return done(Status::xtol_reached,
                  CAMBER_MSG("the model's optimum in the trust region is the current design (step "
                             << step << ", predicted merit reduction " << predicted_reduction
                             << ")"));
    }

    t0 = std::chrono::steady_clock::now();
    const HistoryEntry e = expensive(x);
    const double evaluation_seconds = seconds_since(t0);
    result.evaluation_seconds += evaluation_seconds;
    TrustRegionRecord r;
    r.evaluation = result.n_evaluations;
    r.iteration = result.n_iterations;
    r.x = x;
    r.failed = e.failed;
    r.failure = e.failure;
    r.predicted_objective = predicted.objective;
    r.model_objective = model_objective;
    r.model_uncertainty = uncertainty;
    r.predicted_reduction = predicted_reduction;
    r.step = step;
    r.model_evaluations = static_cast<int>(sub_optimizer.history().size());
    r.model_seconds = model_seconds;
    r.evaluation_seconds = evaluation_seconds;
    double ratio = -std::numeric_limits<double>::infinity();
    if (e.failed) {
      ++result.n_failures;
      r.objective = r.max_violation = r.merit = r.actual_reduction = nan;
    } else {
      r.objective = e.values.objective;
      r.max_violation = e.values.max_violation();
      r.merit = merit(e.values);
      r.actual_reduction = centre_merit - r.merit;
      ratio = r.actual_reduction / predicted_reduction;
    }
    r.ratio = ratio;
    r.accepted = !e.failed && ratio > o_.accept_ratio;
    if (e.failed || ratio < o_.shrink_ratio)
      radius = o_.shrink * std::min(radius, step);
    else if (ratio > o_.expand_ratio && step >= 0.9 * radius)
      radius = std::min(o_.max_radius, o_.expand * radius);
    r.radius = radius;
    if (r.accepted) {
      centre = e;
      centre_merit = r.merit;
      ++result.n_accepted;
      result.x = e.x;
      result.objective = e.values.objective;
      result.max_violation = e.values.max_violation();
    }
    result.radius = radius;
    r.best_objective = result.objective;
    r.best_violation = result.max_violation;
    report(r);
    if (result.n_failures > o_.max_failures)
      return done(Status::evaluation_failed,
                  CAMBER_MSG(result.n_failures << " expensive evaluations failed (more than "
                                               << o_.max_failures << "); the last: " << e.failure));
    if (radius < o_.min_radius)
      return done(Status::trust_region_collapsed,
                  CAMBER_MSG("the trust region collapsed: radius "
                             << radius << " < " << o_.min_radius << " after evaluation "
                             << result.n_evaluations << " (ratio " << ratio
                             << "); the model's predictions were not borne out on steps down to "
                                "min_radius (gradients inconsistent with the values, noise in "
                                "them, or a min_radius too large)"));
    if (!e.failed) {
      samples.push_back(e);
      if (result.n_evaluations < o_.max_evaluations) {
        t0 = std::chrono::steady_clock::now();
        model_.fit(samples);
        fit_seconds = seconds_since(t0);
      }
    } else {
      fit_seconds = 0.0;
    }
  }
}

}  // namespace camber::opt
