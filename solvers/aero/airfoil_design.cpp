#include <camber/solvers/aero/airfoil_design.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

std::unique_ptr<design::ShapeParametrization> checked(
    std::unique_ptr<design::ShapeParametrization> shape) {
  CAMBER_REQUIRE(shape, "AirfoilDesign: no shape parametrization");
  return shape;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double largest(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

}  // namespace

AirfoilDesign::AirfoilDesign(const mesh::Mesh& global, MPI_Comm comm,
                             std::unique_ptr<design::ShapeParametrization> shape,
                             AirfoilDesignSettings settings)
    : global_(global),
      comm_(comm),
      shape_(checked(std::move(shape))),
      settings_(std::move(settings)),
      idw_(global_, {settings_.wall}, settings_.deformation),
      stations_(shape_->wall()),
      thickness_(stations_, *shape_),
      flow_(global_, comm_, settings_.flow) {
  CAMBER_INPUT_REQUIRE(settings_.bound > 0.0, "AirfoilDesign: bound = " << settings_.bound
                                                                         << " must be positive");
  CAMBER_INPUT_REQUIRE(settings_.thickness_fraction >= 0.0 && settings_.max_thickness_min >= 0.0,
                       "AirfoilDesign: thickness_fraction and max_thickness_min must be >= 0");
  CAMBER_INPUT_REQUIRE(settings_.lift == LiftConstraint::none ||
                           settings_.objective != Coefficient::cl,
                       "AirfoilDesign: the objective is CL, so the lift cannot also be held");
  CAMBER_INPUT_REQUIRE(!trims_alpha() || settings_.alpha_range_deg > 0.0,
                       "AirfoilDesign: alpha_range_deg = " << settings_.alpha_range_deg
                                                           << " must be positive");
  CAMBER_INPUT_REQUIRE(!std::isnan(settings_.cm_min), "AirfoilDesign: cm_min is NaN");
}

Tensor AirfoilDesign::coordinates(const std::vector<double>& a) const {
  return design::deformed_coordinates(*shape_, idw_, Tensor::from_host({n_design()}, a));
}

const std::array<double, 3>& AirfoilDesign::baseline() {
  if (!have_baseline_) {
    const std::vector<double> c =
        flow_.coefficients(coordinates(std::vector<double>(static_cast<size_t>(n_design()), 0.0)))
            .to_vector();
    baseline_ = {c[0], c[1], c[2]};
    have_baseline_ = true;
  }
  return baseline_;
}

double AirfoilDesign::lift_target() {
  return std::isnan(settings_.lift_target) ? baseline()[0] : settings_.lift_target;
}

int AirfoilDesign::n_inequality() const {
  return (settings_.thickness_fraction > 0.0 ? static_cast<int>(stations_.size()) : 0) +
         (settings_.max_thickness_min > 0.0 ? 1 : 0) +
         (settings_.lift == LiftConstraint::at_least ? 1 : 0) +
         (std::isfinite(settings_.cm_min) ? 1 : 0);
}

opt::Problem AirfoilDesign::problem() {
  const double target = lift_target();
  const index_t n = n_design();
  const bool stations = settings_.thickness_fraction > 0.0;
  const bool thickest = settings_.max_thickness_min > 0.0;
  const bool trim = trims_alpha();
  const double alpha0 = settings_.flow.flow.alpha_deg;
  opt::Problem p;
  p.x0.assign(static_cast<size_t>(n), 0.0);
  p.lower.assign(static_cast<size_t>(n), -settings_.bound);
  p.upper.assign(static_cast<size_t>(n), settings_.bound);
  if (trim) {
    p.x0.push_back(alpha0);
    p.lower.push_back(alpha0 - settings_.alpha_range_deg);
    p.upper.push_back(alpha0 + settings_.alpha_range_deg);
  }
  p.n_inequality = n_inequality();
  p.n_equality = trim ? 1 : 0;
  p.evaluate = [this, target, n, stations, thickest, trim](const std::vector<double>& x) {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<double> a(x.begin(), x.begin() + n);
    const ad::Var av = ad::variable(Tensor::from_host({n}, a));
    const ad::Var alpha = ad::variable(Tensor::from_host({1}, {trim ? x.back() : 0.0}));
    const ad::Var X = design::deformed_coordinates(*shape_, idw_, av);
    ad::Var c;
    try {
      design::check_cell_volumes(global_, X.value());
      c = trim ? flow_.coefficients(X, alpha) : flow_.coefficients(X);
    } catch (const Error& e) {
      throw opt::EvaluationFailed(e.what());  // a folded cell or a flow that did not converge
    }
    const std::vector<double> cv = c.value().to_vector();
    DesignCosts costs;
    costs.coefficients = {cv[0], cv[1], cv[2]};
    costs.newton_iterations = flow_.report().newton_iterations;
    costs.cold_restart = flow_.report().cold_restart;
    costs.flow_seconds = flow_.report().solve_seconds;
    const auto gradient_of = [&](int m) {
      std::vector<double> w(3, 0.0);
      w[static_cast<size_t>(m)] = 1.0;
      ad::GradOptions go;
      go.retain_graph = true;
      std::vector<double> g;
      try {
        const ad::Vars d = trim ? ad::vjp({c}, {av, alpha}, {ad::constant(Tensor::from_host({3}, w))}, go)
                                : ad::vjp({c}, {av}, {ad::constant(Tensor::from_host({3}, w))}, go);
        g = d[0].value().to_vector();
        if (trim) g.push_back(d[1].item());
      } catch (const Error& e) {
        throw opt::EvaluationFailed(e.what());  // an adjoint that did not converge
      }
      costs.adjoint_iterations += flow_.report().adjoint_iterations;
      costs.adjoint_seconds += flow_.report().adjoint_seconds;
      return g;
    };
    opt::Evaluation e;
    const int objective = static_cast<int>(settings_.objective);
    e.objective = cv[static_cast<size_t>(objective)];
    e.objective_gradient = gradient_of(objective);
    const std::vector<double> t = thickness_(a);
    const std::vector<double>& t0 = thickness_.baseline();
    const auto& T = thickness_.jacobian();
    const auto minus_row = [&](size_t s) {
      std::vector<double> g(T[s]);
      for (double& v : g) v = -v;
      if (trim) g.push_back(0.0);  // the thickness does not depend on alpha
      return g;
    };
    const auto negated = [](std::vector<double> g) {
      for (double& v : g) v = -v;
      return g;
    };
    if (stations)
      for (size_t s = 0; s < t.size(); ++s) {
        e.inequality.push_back(settings_.thickness_fraction * t0[s] - t[s]);
        e.inequality_gradients.push_back(minus_row(s));
      }
    if (thickest) {
      const size_t s = static_cast<size_t>(std::max_element(t.begin(), t.end()) - t.begin());
      e.inequality.push_back(settings_.max_thickness_min - t[s]);
      e.inequality_gradients.push_back(minus_row(s));
    }
    if (settings_.lift == LiftConstraint::at_least) {
      e.inequality.push_back(target - cv[0]);
      e.inequality_gradients.push_back(negated(gradient_of(0)));
    }
    if (std::isfinite(settings_.cm_min)) {
      e.inequality.push_back(settings_.cm_min - cv[2]);
      e.inequality_gradients.push_back(negated(gradient_of(2)));
    }
    if (trim) {
      e.equality.push_back(cv[0] - target);
      e.equality_gradients.push_back(gradient_of(0));
    }
    costs.seconds = seconds_since(start);
    costs_ = costs;
    return e;
  };
  return p;
}

opt::Options AirfoilDesign::options() {
  const std::array<double, 3> base = baseline();
  const double lift_scale = 1.0 / std::max(std::abs(lift_target()), 1e-6);
  opt::Options o = settings_.optimizer;
  o.x_scale.assign(static_cast<size_t>(n_design()), settings_.bound);
  if (trims_alpha()) o.x_scale.push_back(1.0);  // degrees
  o.objective_scale =
      1.0 / std::max(std::abs(base[static_cast<size_t>(settings_.objective)]), 1e-6);
  // In the order of evaluate(): thickness stations and largest thickness,
  // lift (at_least), moment, then lift (equal).
  o.constraint_scale.assign(static_cast<size_t>(n_inequality()), 1.0 / settings_.bound);
  size_t k = o.constraint_scale.size();
  if (std::isfinite(settings_.cm_min))
    o.constraint_scale[--k] = 1.0 / std::max(std::abs(settings_.cm_min), 1e-2);
  if (settings_.lift == LiftConstraint::at_least) o.constraint_scale[--k] = lift_scale;
  if (trims_alpha()) o.constraint_scale.push_back(lift_scale);
  return o;
}

std::string AirfoilDesign::state_path(std::size_t k) const {
  return settings_.checkpoint + "_state_" + std::to_string(k) + ".h5";
}

const opt::History& AirfoilDesign::history() const {
  CAMBER_REQUIRE(optimizer_, "AirfoilDesign::history: run() has not been called");
  return optimizer_->history();
}

AirfoilDesignResult AirfoilDesign::run(const Report& report, bool restart) {
  const bool checkpoints = !settings_.checkpoint.empty();
  CAMBER_INPUT_REQUIRE(!restart || checkpoints,
                       "AirfoilDesign::run: a restart needs settings.checkpoint");
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  const std::string history_path = settings_.checkpoint + ".history";
  const std::string baseline_path = settings_.checkpoint + "_baseline.txt";
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
      CAMBER_INPUT_REQUIRE(fs::exists(state_path(h.size())),
                           "--restart: the checkpoint's flow state '" << state_path(h.size())
                                                                      << "' is missing");
      std::ifstream in(baseline_path);
      std::string cl, cd, cm;
      CAMBER_INPUT_REQUIRE(in >> cl >> cd >> cm, "--restart: '" << baseline_path
                                                                << "' is missing or unreadable");
      baseline_ = {std::strtod(cl.c_str(), nullptr), std::strtod(cd.c_str(), nullptr),
                   std::strtod(cm.c_str(), nullptr)};
      have_baseline_ = true;
    });
  }
  AirfoilDesignResult result;
  result.baseline = baseline();
  result.baseline_max_thickness = largest(thickness_.baseline());
  optimizer_ = std::make_unique<opt::Optimizer>(problem(), options(), comm_);
  if (checkpoints && rank == 0) {
    const fs::path parent = fs::path(history_path).parent_path();
    if (!parent.empty()) fs::create_directories(parent);
    if (!restart) {
      std::ostringstream text;
      text << std::hexfloat << baseline_[0] << ' ' << baseline_[1] << ' ' << baseline_[2] << '\n';
      write_file_atomically(baseline_path, text.str());
    }
  }
  if (checkpoints) MPI_Barrier(comm_);
  if (restart) {
    mesh::DistributedMesh dm(global_, comm_);
    flow_.set_state(read_flow_state(state_path(h.size()), dm));
    optimizer_->replay(std::move(h));
  }
  int best_evaluation = 0, last_best = 0;
  std::array<double, 3> best_coefficients{};
  Tensor best_state;
  optimizer_->on_evaluation([&](const opt::Record& r) {
    if (checkpoints && !r.replayed) {
      // The state is written first and the previous one removed only after
      // the history, so whenever the job dies the state matching the
      // history's length exists.
      const std::size_t k = optimizer_->history().size();
      {
        io::H5File file(state_path(k), io::Mode::create, comm_);
        write_flow_state(file, flow_.discretization().mesh(), flow_.state());
        file.close();
      }
      if (rank == 0) {
        opt::save_history(history_path, optimizer_->history());
        std::error_code ec;
        fs::remove(state_path(k - 1), ec);
      }
    }
    // A new best design evaluated now: its coefficients and flow.
    if (!r.replayed && !r.failed && r.best_evaluation == r.evaluation) {
      best_evaluation = r.evaluation;
      best_coefficients = costs_.coefficients;
      best_state = flow_.state().clone();
    }
    last_best = r.best_evaluation;
    if (report) report(r, !r.replayed && !r.failed ? &costs_ : nullptr);
  });
  result.optimizer = optimizer_->minimize();
  // The final design: the coefficients it was accepted with, and its flow
  // as the next warm start. (A transonic limited scheme may have more
  // than one discrete solution; solving the design again from the last
  // design's flow could reach another.) A best design served from a
  // replayed history is solved again, warm from the checkpoint's flow.
  const std::vector<double> shape_x(result.optimizer.x.begin(),
                                    result.optimizer.x.begin() + n_design());
  const Tensor a = Tensor::from_host({n_design()}, shape_x);
  result.baseline_alpha_deg = settings_.flow.flow.alpha_deg;
  result.final_alpha_deg = trims_alpha() ? result.optimizer.x.back() : result.baseline_alpha_deg;
  result.final_coordinates = design::deformed_coordinates(*shape_, idw_, a);
  result.final_wall = shape_->wall_coordinates(a);
  if (last_best > 0 && last_best == best_evaluation) {
    result.final = best_coefficients;
    flow_.set_state(best_state);
  } else {
    const std::vector<double> c =
        flow_.coefficients(result.final_coordinates, result.final_alpha_deg).to_vector();
    result.final = {c[0], c[1], c[2]};
  }
  result.final_max_thickness = largest(thickness_(shape_x));
  return result;
}

}  // namespace camber::solvers::aero
