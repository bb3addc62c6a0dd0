#include <camber/solvers/aero/shape_design.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include <camber/autodiff/functional.hpp>
#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/optimization/history.hpp>
#include <camber/solvers/aero/flow_state.hpp>

namespace camber::solvers::aero {

namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::vector<OperatingPoint> resolved_points(const ShapeDesignSettings& s) {
  std::vector<OperatingPoint> points = s.points;
  if (points.empty()) points.push_back({s.flow.flow.mach, s.flow.flow.alpha_deg, 1.0});
  for (const OperatingPoint& p : points)
    CAMBER_INPUT_REQUIRE(p.mach > 0.0 && p.weight > 0.0 && std::isfinite(p.alpha_deg),
                         "ShapeDesign: an operating point has mach "
                             << p.mach << ", weight " << p.weight << ", alpha " << p.alpha_deg
                             << " deg; mach and weight must be positive, alpha finite");
  return points;
}

}  // namespace

opt::Options design_optimizer_options() {
  opt::Options o;
  o.algorithm = "slsqp";
  o.max_evaluations = 30;
  o.ftol_rel = 1e-6;
  o.xtol_rel = 1e-6;
  o.constraint_tol = 1e-6;
  return o;
}

ShapeDesign::ShapeDesign(MPI_Comm comm, ShapeDesignSettings settings,
                         const FlowFactory& make_flow)
    : comm_(comm), base_(std::move(settings)), points_(resolved_points(base_)) {
  CAMBER_INPUT_REQUIRE(base_.bound > 0.0, "ShapeDesign: bound = " << base_.bound
                                                                   << " must be positive");
  CAMBER_INPUT_REQUIRE(base_.lift == LiftConstraint::none || base_.objective != Coefficient::cl,
                       "ShapeDesign: the objective is CL, so the lift cannot also be held");
  CAMBER_INPUT_REQUIRE(!fixes_lift() || (base_.trim_tolerance > 0.0 && base_.trim_max_solves > 0),
                       "ShapeDesign: trim_tolerance = " << base_.trim_tolerance
                                                        << " and trim_max_solves = "
                                                        << base_.trim_max_solves
                                                        << " must be positive");
  CAMBER_INPUT_REQUIRE(!(trims_alpha() || fixes_lift()) || base_.alpha_range_deg > 0.0,
                       "ShapeDesign: alpha_range_deg = " << base_.alpha_range_deg
                                                         << " must be positive");
  CAMBER_INPUT_REQUIRE(!std::isnan(base_.cm_min), "ShapeDesign: cm_min is NaN");
  double weight_sum = 0.0;
  for (const OperatingPoint& p : points_) weight_sum += p.weight;
  for (const OperatingPoint& p : points_) {
    weights_.push_back(p.weight / weight_sum);
    alpha_.push_back(p.alpha_deg);
    cl_alpha_.push_back(0.0);
    euler::SteadyFlowSettings f = base_.flow;
    f.flow.mach = p.mach;
    f.flow.alpha_deg = p.alpha_deg;
    flows_.push_back(make_flow(f));
  }
  // One deformation of this rank's node rows serves every point: the
  // points' flows are partitioned alike (the same mesh, the same
  // deterministic partitioner) and have the same stencils.
  const std::vector<std::int64_t>& rows = flow(0).node_rows();
  for (int i = 1; i < n_points(); ++i)
    CAMBER_REQUIRE(flow(i).node_rows() == rows,
                   "ShapeDesign: operating point " << i << " is distributed unlike the first");
}

ShapeDesign::~ShapeDesign() = default;

void ShapeDesign::attach(std::unique_ptr<DesignGeometry> geometry) {
  CAMBER_REQUIRE(geometry, "ShapeDesign: no geometry");
  geometry_ = std::move(geometry);
}

const DesignGeometry& ShapeDesign::geometry() const {
  CAMBER_REQUIRE(geometry_, "ShapeDesign: no geometry attached");
  return *geometry_;
}

const std::array<double, 3>& ShapeDesign::baseline(int point) {
  if (!have_baseline_) {
    const Tensor X = geometry().rank_rows(ad::constant(Tensor({n_design()}))).value();
    baseline_.clear();
    for (int i = 0; i < n_points(); ++i) {
      const std::vector<double> c =
          flow(i).rank_coefficients(X, points_[static_cast<size_t>(i)].alpha_deg).to_vector();
      baseline_.push_back({c[0], c[1], c[2]});
    }
    have_baseline_ = true;
  }
  return baseline_.at(static_cast<size_t>(point));
}

double ShapeDesign::lift_target(int point) {
  return std::isnan(base_.lift_target) ? baseline(point)[0] : base_.lift_target;
}

int ShapeDesign::n_inequality() const {
  return geometry().n_constraints() +
         n_points() * ((base_.lift == LiftConstraint::at_least ? 1 : 0) +
                       (std::isfinite(base_.cm_min) ? 1 : 0));
}

ad::Var ShapeDesign::trimmed(int i, const ad::Var& X, double target,
                               std::array<double, 3>& d_alpha, DesignCosts& costs) {
  euler::SteadyFlow& f = flow(i);
  const double alpha0 = points_[static_cast<size_t>(i)].alpha_deg;
  double& alpha = alpha_[static_cast<size_t>(i)];
  // The angles known to give too little lift (below) and too much (above),
  // and this trim's previous state (the secant's other point).
  const double inf = std::numeric_limits<double>::infinity();
  double below = -inf, r_below = 0.0, above = inf, r_above = 0.0;
  double alpha_prev = std::numeric_limits<double>::quiet_NaN(), r_prev = 0.0;
  for (int solves = 1;; ++solves) {
    const ad::Var c = f.rank_coefficients(X, ad::constant(Tensor::from_host({1}, {alpha})));
    costs.newton_iterations += f.report().newton_iterations;
    costs.cold_restart = costs.cold_restart || f.report().cold_restart;
    costs.flow_seconds += f.report().solve_seconds;
    ++costs.trim_solves;
    const double r = c.value().to_vector()[0] - target;
    double& reference = cl_alpha_[static_cast<size_t>(i)];
    const bool trimmed_now = std::abs(r) <= base_.trim_tolerance;
    // The tangent (a linear solve with this state's Jacobian, which the
    // gradient's adjoint then reuses) at the trimmed state, for the
    // derivative at constant lift, and at the first state of the first
    // trim, for a lift slope to start from; between them the steps take
    // secants, since every tangent assembles a Jacobian.
    if (trimmed_now || reference <= 0.0) {
      d_alpha = f.alpha_tangent();
      costs.flow_seconds += f.report().adjoint_seconds;
      if (d_alpha[0] > 0.0) reference = d_alpha[0];  // kept with this design's flow
    }
    if (trimmed_now) return c;
    CAMBER_REQUIRE(solves < base_.trim_max_solves,
                   "the lift trim did not reach CL = " << target << " in "
                                                       << base_.trim_max_solves
                                                       << " flow solves (CL - target = " << r
                                                       << " at alpha " << alpha << " deg)");
    if (r < 0.0) {
      below = alpha, r_below = r;
    } else {
      above = alpha, r_above = r;
    }
    CAMBER_REQUIRE(reference > 0.0, "the lift trim stopped: dCL/dalpha = "
                                        << d_alpha[0] << " per degree at alpha " << alpha
                                        << " deg (the lift does not rise with alpha)");
    // The step takes the secant of this trim's last two states or, at its
    // first state, the reference slope (the nearest converged design's);
    // a secant below a quarter of the reference (a transonic design can
    // have a flat or falling stretch of lift curve) is replaced by the
    // reference.
    double slope = reference;
    if (std::isfinite(alpha_prev) && alpha != alpha_prev) {
      const double secant = (r - r_prev) / (alpha - alpha_prev);
      if (secant >= 0.25 * reference) slope = secant;
    }
    double next = alpha - r / slope;
    // Once the target is bracketed, a step that leaves the bracket (the
    // lift curve of a transonic section can bend sharply: on SU2's
    // QuickStart mesh its slope is 0.13 per degree at 1.15-1.2 deg and 0.56
    // at 1.2-1.25) is replaced by the secant of the bracket, or its middle
    // when the secant lands near an end.
    if (std::isfinite(below) && std::isfinite(above)) {
      const double lo = std::min(below, above), width = std::abs(above - below);
      if (!(next > lo && next < lo + width)) {
        next = below - r_below * (above - below) / (r_above - r_below);
        if (!(next > lo + 0.1 * width && next < lo + 0.9 * width)) next = lo + 0.5 * width;
      }
    }
    alpha_prev = alpha, r_prev = r;
    alpha = next;
    CAMBER_REQUIRE(std::abs(alpha - alpha0) <= base_.alpha_range_deg,
                   "the lift trim left alpha_range_deg: it asks for alpha "
                       << alpha << " deg, more than " << base_.alpha_range_deg
                       << " deg from " << alpha0 << " deg");
  }
}

void validate_design_start(const ShapeDesignSettings& s, index_t n_design, const ShapeDesignReject& reject,
                           const std::string& design_name, const std::string& bound_name) {
  if (s.start.empty()) return;
  if (s.start.size() != static_cast<size_t>(n_design))
    reject("start", CAMBER_MSG("holds " << s.start.size() << " shape variables; " << design_name << " makes "
                                        << n_design));
  for (size_t k = 0; k < s.start.size(); ++k)
    if (std::abs(s.start[k]) > s.bound)
      reject("start", CAMBER_MSG("variable " << k << " = " << s.start[k] << " lies outside " << bound_name
                                             << " = " << s.bound));
}

opt::Problem ShapeDesign::problem() {
  std::vector<double> target;
  for (int i = 0; i < n_points(); ++i) target.push_back(lift_target(i));
  const index_t n = n_design();
  const int np = n_points();
  const bool trim = trims_alpha();
  const bool fixed = fixes_lift();
  opt::Problem p;
  p.x0.assign(static_cast<size_t>(n), 0.0);
  p.lower.assign(static_cast<size_t>(n), -base_.bound);
  p.upper.assign(static_cast<size_t>(n), base_.bound);
  if (trim)
    for (const OperatingPoint& o : points_) {
      p.x0.push_back(o.alpha_deg);
      p.lower.push_back(o.alpha_deg - base_.alpha_range_deg);
      p.upper.push_back(o.alpha_deg + base_.alpha_range_deg);
    }
  if (!base_.start.empty()) {
    // The first design evaluated (a design from another run or grid).
    validate_design_start(base_, n, [](const std::string& member, const std::string& what) {
      throw_bad_input("ShapeDesign: " + member + " " + what);
    });
    std::copy(base_.start.begin(), base_.start.end(), p.x0.begin());
  }
  p.n_inequality = n_inequality();
  p.n_equality = trim ? np : 0;
  p.evaluate = [this, target, n, np, trim, fixed](const std::vector<double>& x) {
    const auto start = std::chrono::steady_clock::now();
    const size_t nx = x.size();
    warm_start_nearest(x);
    const std::vector<double> a(x.begin(), x.begin() + n);
    const ad::Var av = ad::variable(Tensor::from_host({n}, a));
    const ad::Var X = geometry().rank_rows(av);
    DesignCosts costs;
    // Per point: its coefficients (a Var of the shape and, trimmed, its
    // alpha) and the gradient of one of them over all variables.
    std::vector<ad::Var> alpha(static_cast<size_t>(np)), c(static_cast<size_t>(np));
    // LiftConstraint::fixed: each point's d(CL, CD, CM)/dalpha at its trim.
    std::vector<std::array<double, 3>> d_alpha(static_cast<size_t>(np));
    try {
      geometry().check(X.value());
      for (int i = 0; i < np; ++i) {
        euler::SteadyFlow& f = flow(i);
        if (fixed) {
          c[static_cast<size_t>(i)] =
              trimmed(i, X, target[static_cast<size_t>(i)], d_alpha[static_cast<size_t>(i)], costs);
          const std::vector<double> cv = c[static_cast<size_t>(i)].value().to_vector();
          costs.point_coefficients.push_back({cv[0], cv[1], cv[2]});
          costs.point_alpha_deg.push_back(alpha_[static_cast<size_t>(i)]);
          continue;
        }
        if (trim) {
          alpha[static_cast<size_t>(i)] =
              ad::variable(Tensor::from_host({1}, {x[static_cast<size_t>(n + i)]}));
          c[static_cast<size_t>(i)] = f.rank_coefficients(X, alpha[static_cast<size_t>(i)]);
        } else {
          c[static_cast<size_t>(i)] = f.rank_coefficients(X);
        }
        const std::vector<double> cv = c[static_cast<size_t>(i)].value().to_vector();
        costs.point_coefficients.push_back({cv[0], cv[1], cv[2]});
        costs.point_alpha_deg.push_back(trim ? x[static_cast<size_t>(n + i)]
                                             : points_[static_cast<size_t>(i)].alpha_deg);
        costs.newton_iterations += f.report().newton_iterations;
        costs.cold_restart = costs.cold_restart || f.report().cold_restart;
        costs.flow_seconds += f.report().solve_seconds;
      }
    } catch (const Error& e) {
      throw opt::EvaluationFailed(e.what());  // a folded cell or a flow that did not converge
    }
    costs.coefficients = costs.point_coefficients.front();
    const auto gradient_of = [&](int i, int m) {
      std::vector<double> w(3, 0.0);
      w[static_cast<size_t>(m)] = 1.0;
      // At constant lift: dJ/da - (J_alpha / CL_alpha) dCL/da.
      if (fixed) w[0] -= d_alpha[static_cast<size_t>(i)][static_cast<size_t>(m)] /
                         d_alpha[static_cast<size_t>(i)][0];
      ad::GradOptions go;
      go.retain_graph = true;
      std::vector<double> g(nx, 0.0);
      const ad::Var& ci = c[static_cast<size_t>(i)];
      const ad::Var cot = ad::constant(Tensor::from_host({3}, w));
      try {
        const ad::Vars d = trim ? ad::vjp({ci}, {av, alpha[static_cast<size_t>(i)]}, {cot}, go)
                                : ad::vjp({ci}, {av}, {cot}, go);
        const std::vector<double> ga = d[0].value().to_vector();
        std::copy(ga.begin(), ga.end(), g.begin());
        if (trim) g[static_cast<size_t>(n + i)] = d[1].item();
      } catch (const Error& e) {
        throw opt::EvaluationFailed(e.what());  // an adjoint that did not converge
      }
      costs.adjoint_iterations += flow(i).report().adjoint_iterations;
      costs.adjoint_seconds += flow(i).report().adjoint_seconds;
      return g;
    };
    const auto negated = [](std::vector<double> g) {
      for (double& v : g) v = -v;
      return g;
    };
    // The coefficients the optimizer sees. With the lift fixed: each at the
    // target lift to first order, C + (C_alpha / CL_alpha) (target - CL),
    // so that the trim's residual (below trim_tolerance) does not show in
    // differences of the objective.
    std::vector<std::array<double, 3>> seen = costs.point_coefficients;
    if (fixed)
      for (int i = 0; i < np; ++i) {
        std::array<double, 3>& ci = seen[static_cast<size_t>(i)];
        const std::array<double, 3>& d = d_alpha[static_cast<size_t>(i)];
        const double dalpha = (target[static_cast<size_t>(i)] - ci[0]) / d[0];
        for (size_t m = 0; m < 3; ++m) ci[m] += d[m] * dalpha;
      }
    opt::Evaluation e;
    const int objective = static_cast<int>(base_.objective);
    e.objective = objective_mean(seen);
    e.objective_gradient.assign(nx, 0.0);
    for (int i = 0; i < np; ++i) {
      const double w = weights_[static_cast<size_t>(i)];
      const std::vector<double> g = gradient_of(i, objective);
      for (size_t k = 0; k < nx; ++k) e.objective_gradient[k] += w * g[k];
    }
    {
      std::vector<double> g;
      std::vector<std::vector<double>> dg;
      geometry().constraints(av, g, dg);
      for (size_t j = 0; j < g.size(); ++j) {
        e.inequality.push_back(g[j]);
        dg[j].resize(nx, 0.0);  // the geometry does not depend on alpha
        e.inequality_gradients.push_back(std::move(dg[j]));
      }
    }
    for (int i = 0; i < np; ++i) {
      const auto& cv = seen[static_cast<size_t>(i)];
      if (base_.lift == LiftConstraint::at_least) {
        e.inequality.push_back(target[static_cast<size_t>(i)] - cv[0]);
        e.inequality_gradients.push_back(negated(gradient_of(i, 0)));
      }
      if (std::isfinite(base_.cm_min)) {
        e.inequality.push_back(base_.cm_min - cv[2]);
        e.inequality_gradients.push_back(negated(gradient_of(i, 2)));
      }
      if (trim) {
        e.equality.push_back(cv[0] - target[static_cast<size_t>(i)]);
        e.equality_gradients.push_back(gradient_of(i, 0));
      }
    }
    costs.seconds = seconds_since(start);
    costs_ = costs;
    remember(x);
    return e;
  };
  return p;
}

std::vector<double> ShapeDesign::x_scale() const {
  std::vector<double> scale(static_cast<size_t>(n_design()), base_.bound);
  scale.resize(static_cast<size_t>(n_variables()), 1.0);  // alpha: degrees
  return scale;
}

std::vector<double> ShapeDesign::scaled(const std::vector<double>& x) const {
  const std::vector<double> scale = x_scale();
  std::vector<double> y(x);
  for (size_t k = 0; k < y.size(); ++k) y[k] /= scale[k];
  return y;
}

double ShapeDesign::objective_mean(const std::vector<std::array<double, 3>>& c) const {
  const size_t m = static_cast<size_t>(base_.objective);
  double mean = 0.0;
  for (size_t i = 0; i < c.size(); ++i) mean += weights_[i] * c[i][m];
  return mean;
}

void ShapeDesign::remember(const std::vector<double>& x) {
  std::vector<Tensor> states;
  for (int i = 0; i < n_points(); ++i) states.push_back(flow(i).state().clone());
  converged_.push_back({scaled(x), std::move(states), alpha_, cl_alpha_});
}

void ShapeDesign::warm_start_nearest(const std::vector<double>& x) {
  if (converged_.empty()) return;
  const std::vector<double> y = scaled(x);
  size_t best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < converged_.size(); ++j) {
    double d = 0.0;
    for (size_t k = 0; k < y.size(); ++k) d += (y[k] - converged_[j].y[k]) * (y[k] - converged_[j].y[k]);
    if (d < best_d) best_d = d, best = j;  // the earliest of equally near designs
  }
  for (int i = 0; i < n_points(); ++i)
    flow(i).set_state(converged_[best].states[static_cast<size_t>(i)]);
  alpha_ = converged_[best].alpha;
  cl_alpha_ = converged_[best].cl_alpha;
}

opt::Options ShapeDesign::options() {
  baseline();
  opt::Options o = base_.optimizer;
  o.x_scale = x_scale();
  o.objective_scale = 1.0 / std::max(std::abs(objective_mean(baseline_)), 1e-6);
  // In the order of evaluate(): the geometry's constraints,
  // then per point the lift (at_least) and the moment; the lift equalities.
  o.constraint_scale.assign(static_cast<size_t>(n_inequality()), 1.0 / base_.bound);
  size_t k = o.constraint_scale.size();
  for (int i = n_points() - 1; i >= 0; --i) {
    if (std::isfinite(base_.cm_min))
      o.constraint_scale[--k] = 1.0 / std::max(std::abs(base_.cm_min), 1e-2);
    if (base_.lift == LiftConstraint::at_least)
      o.constraint_scale[--k] = 1.0 / std::max(std::abs(lift_target(i)), 1e-6);
  }
  if (trims_alpha())
    for (int i = 0; i < n_points(); ++i)
      o.constraint_scale.push_back(1.0 / std::max(std::abs(lift_target(i)), 1e-6));
  return o;
}

std::string ShapeDesign::state_path(std::size_t k, int point) const {
  return base_.checkpoint + "_state_" + std::to_string(k) +
         (point > 0 ? "_point" + std::to_string(point) : std::string()) + ".h5";
}

const opt::History& ShapeDesign::history() const {
  if (tr_) return tr_->history();
  CAMBER_REQUIRE(optimizer_, "ShapeDesign::history: run() has not been called");
  return optimizer_->history();
}

void ShapeDesign::use_trust_region(opt::SurrogateModel* model, opt::TrustRegionOptions options,
                                   TrustRegionHook hook) {
  surrogate_ = model;
  tr_options_ = std::move(options);
  tr_hook_ = std::move(hook);
}

ShapeDesignResult ShapeDesign::run(const Report& report, bool restart) {
  const bool checkpoints = !base_.checkpoint.empty() && surrogate_ == nullptr;
  CAMBER_INPUT_REQUIRE(!restart || surrogate_ == nullptr,
                       "ShapeDesign::run: the trust-region optimizer does not restart");
  CAMBER_INPUT_REQUIRE(!restart || checkpoints,
                       "ShapeDesign::run: a restart needs settings.checkpoint");
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  const int np = n_points();
  const std::string history_path = base_.checkpoint + ".history";
  const std::string baseline_path = base_.checkpoint + "_baseline.txt";
  opt::History h;
  if (restart) {
    // The baseline's coefficients (the optimizer's scales) as the first
    // run had them: a solve again could differ in round-off (at several
    // ranks the assembly's sums arrive in any order), and NLopt would then
    // leave the replayed path.
    collective_guard(comm_, [&] {
      CAMBER_INPUT_REQUIRE(fs::exists(history_path), "--restart: no checkpoint '"
                                                         << history_path
                                                         << "'; run once without --restart");
      h = opt::load_history(history_path);
      for (int i = 0; i < np; ++i)
        CAMBER_INPUT_REQUIRE(fs::exists(state_path(h.size(), i)),
                             "--restart: the checkpoint's flow state '"
                                 << state_path(h.size(), i) << "' is missing");
      std::ifstream in(baseline_path);
      baseline_.clear();
      for (int i = 0; i < np; ++i) {
        std::string cl, cd, cm;
        CAMBER_INPUT_REQUIRE(in >> cl >> cd >> cm,
                             "--restart: '" << baseline_path << "' is missing, unreadable or "
                                            << "has fewer than " << np << " operating points");
        baseline_.push_back({std::strtod(cl.c_str(), nullptr), std::strtod(cd.c_str(), nullptr),
                             std::strtod(cm.c_str(), nullptr)});
      }
      have_baseline_ = true;
    });
  }
  ShapeDesignResult result;
  result.baseline = baseline();
  result.baseline_points = baseline_;
  result.baseline_objective = objective_mean(baseline_);
  optimizer_.reset();
  tr_.reset();
  if (surrogate_ == nullptr) optimizer_ = std::make_unique<opt::Optimizer>(problem(), options(), comm_);
  if (checkpoints && rank == 0) {
    const fs::path parent = fs::path(history_path).parent_path();
    if (!parent.empty()) fs::create_directories(parent);
    if (!restart) {
      std::ostringstream text;
      text << std::hexfloat;
      for (const auto& b : baseline_) text << b[0] << ' ' << b[1] << ' ' << b[2] << '\n';
      write_file_atomically(baseline_path, text.str());
    }
  }
  if (checkpoints) MPI_Barrier(comm_);
  // A restart reads the flows of the replayed designs back: the warm starts
  // of the designs to come are theirs, as in the uninterrupted run.
  // (Every point's flow has the same distribution: the first one's reads.)
  converged_.clear();
  // With the lift fixed each state file holds the trimmed alpha it was
  // solved at and the lift slope there (the next trim starts from them).
  const auto read_state = [&](std::size_t k, int i, double& alpha, double& cl_alpha) {
    return read_flow_state(state_path(k, i), flow(0).distributed_mesh(), [&](io::H5File& file) {
      if (!fixes_lift()) return;
      alpha = file.attribute<double>("", "alpha_deg");
      cl_alpha = file.attribute<double>("", "cl_alpha");
    });
  };
  if (restart) {
    for (int i = 0; i < np; ++i)
      flow(i).set_state(read_state(h.size(), i, alpha_[static_cast<size_t>(i)],
                                   cl_alpha_[static_cast<size_t>(i)]));
    optimizer_->replay(std::move(h));
  }
  int best_evaluation = 0, last_best = 0;
  std::vector<std::array<double, 3>> best_coefficients;
  std::vector<double> best_alpha;
  std::vector<Tensor> best_state(static_cast<size_t>(np));
  const auto on_record = [&](const opt::Record& r) {
    if (r.replayed && !r.failed) {
      std::vector<Tensor> states;
      std::vector<double> alphas, slopes;
      for (int i = 0; i < np; ++i) {
        alphas.push_back(points_[static_cast<size_t>(i)].alpha_deg);
        slopes.push_back(0.0);
        states.push_back(read_state(static_cast<std::size_t>(r.evaluation), i, alphas.back(),
                                    slopes.back()));
      }
      converged_.push_back({scaled(r.x), std::move(states), std::move(alphas), std::move(slopes)});
    }
    if (checkpoints && !r.replayed) {
      // The states are written before the history, so whenever the job
      // dies the states of every design in the history exist (each
      // design's are kept: a restart warm-starts from them as the
      // uninterrupted run does).
      const std::size_t k = optimizer_->history().size();
      for (int i = 0; i < np; ++i) {
        io::H5File file(state_path(k, i), io::Mode::create, comm_);
        write_flow_state(file, flow(i).discretization().mesh(), flow(i).state());
        file.set_attribute("", "alpha_deg", alpha_[static_cast<size_t>(i)]);
        file.set_attribute("", "cl_alpha", cl_alpha_[static_cast<size_t>(i)]);
        file.close();
      }
      if (rank == 0) opt::save_history(history_path, optimizer_->history());
    }
    // A new best design evaluated now: its coefficients and flows.
    if (!r.replayed && !r.failed && r.best_evaluation == r.evaluation) {
      best_evaluation = r.evaluation;
      best_coefficients = costs_.point_coefficients;
      best_alpha = costs_.point_alpha_deg;
      for (int i = 0; i < np; ++i) best_state[static_cast<size_t>(i)] = flow(i).state().clone();
    }
    last_best = r.best_evaluation;
    if (report) report(r, !r.replayed && !r.failed ? &costs_ : nullptr);
  };
  if (surrogate_ == nullptr) {
    optimizer_->on_evaluation(on_record);
    result.optimizer = optimizer_->minimize();
  } else {
    // The trust region in this problem's scales; its accepted design is
    // the best one.
    opt::TrustRegionOptions o = tr_options_;
    const opt::Options scales = options();
    o.subproblem.x_scale = scales.x_scale;
    o.subproblem.objective_scale = scales.objective_scale;
    o.subproblem.constraint_scale = scales.constraint_scale;
    tr_ = std::make_unique<opt::TrustRegionOptimizer>(problem(), *surrogate_, o, comm_);
    int accepted = 0;
    tr_->on_evaluation([&](const opt::TrustRegionRecord& t) {
      opt::Record r;
      r.evaluation = t.evaluation;
      r.stage = t.iteration;
      r.x = t.x;
      r.failed = t.failed;
      r.failure = t.failure;
      r.objective = t.objective;
      r.max_violation = t.max_violation;
      r.gradient_norm = t.failed ? std::numeric_limits<double>::quiet_NaN()
                                 : tr_->history().back().values.gradient_norm();
      if (t.accepted) accepted = t.evaluation;
      r.best_evaluation = accepted;
      r.best_objective = t.best_objective;
      r.best_violation = t.best_violation;
      on_record(r);
      if (tr_hook_) tr_hook_(t, t.failed ? nullptr : &costs_);
    });
    tr_result_ = tr_->minimize();
    opt::Result& out = result.optimizer;
    out.x = tr_result_.x;
    out.objective = tr_result_.objective;
    out.max_violation = tr_result_.max_violation;
    out.status = tr_result_.status;
    out.message = tr_result_.message;
    out.n_evaluations = out.n_live_evaluations = tr_result_.n_evaluations;
    out.n_failures = tr_result_.n_failures;
    out.n_stages = tr_result_.n_iterations;
  }
  // The final design: the coefficients it was accepted with, and its flows
  // as the next warm starts. (A transonic limited scheme may have more
  // than one discrete solution; solving the design again from the last
  // design's flow could reach another.) A best design served from a
  // replayed history is solved again, warm from the checkpoint's flows.
  const std::vector<double> shape_x(result.optimizer.x.begin(),
                                    result.optimizer.x.begin() + n_design());
  const Tensor a = Tensor::from_host({n_design()}, shape_x);
  const Tensor final_rows = geometry().rank_rows(ad::constant(a)).value();
  result.final_shape = shape_x;
  result.final_rows = final_rows;
  for (int i = 0; i < np; ++i)
    result.final_alpha_points.push_back(
        trims_alpha() ? result.optimizer.x[static_cast<size_t>(n_design() + i)]
                      : points_[static_cast<size_t>(i)].alpha_deg);
  if (last_best > 0 && last_best == best_evaluation) {
    result.final_points = best_coefficients;
    if (fixes_lift()) result.final_alpha_points = best_alpha;
    for (int i = 0; i < np; ++i) flow(i).set_state(best_state[static_cast<size_t>(i)]);
  } else if (fixes_lift()) {
    // Trimmed again from the nearest kept design's flow and alpha.
    warm_start_nearest(result.optimizer.x);
    const ad::Var X = ad::constant(final_rows);
    DesignCosts unused;
    for (int i = 0; i < np; ++i) {
      std::array<double, 3> d{};
      const std::vector<double> c = trimmed(i, X, lift_target(i), d, unused).value().to_vector();
      result.final_points.push_back({c[0], c[1], c[2]});
      result.final_alpha_points[static_cast<size_t>(i)] = alpha_[static_cast<size_t>(i)];
    }
  } else {
    for (int i = 0; i < np; ++i) {
      const std::vector<double> c =
          flow(i)
              .rank_coefficients(final_rows, result.final_alpha_points[static_cast<size_t>(i)])
              .to_vector();
      result.final_points.push_back({c[0], c[1], c[2]});
    }
  }
  result.final = result.final_points.front();
  result.baseline_alpha_deg = points_.front().alpha_deg;
  result.final_alpha_deg = result.final_alpha_points.front();
  return result;
}

}  // namespace camber::solvers::aero
