#include <camber/optimization/optimizer.hpp>

#include <nlopt.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

#include <camber/core/runtime.hpp>
#include "detail/collective.hpp"

namespace camber::opt {

using detail::bcast_doubles;
using detail::bcast_string;
using detail::same_point;

EvaluationFailed::EvaluationFailed(const std::string& why) : Error(ErrorKind::failure, why) {}

namespace {

struct AlgorithmEntry {
  const char* name;
  nlopt_algorithm id;
  bool equality_constraints;
  bool inequality_constraints;
};
constexpr AlgorithmEntry kAlgorithms[] = {
    {"slsqp", NLOPT_LD_SLSQP, true, true},
    {"mma", NLOPT_LD_MMA, false, true},
    {"ccsaq", NLOPT_LD_CCSAQ, false, true},
    // Bound-constrained limited-memory BFGS: many variables (fields), no
    // constraints besides the bounds.
    {"lbfgs", NLOPT_LD_LBFGS, false, false},
};

std::string lower_case(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string valid_names() {
  std::string list;
  for (const auto& a : kAlgorithms) list += (list.empty() ? "" : ", ") + std::string(a.name);
  return list;
}

const AlgorithmEntry& find_algorithm(const std::string& name) {
  const std::string key = lower_case(name);
  for (const auto& a : kAlgorithms)
    if (key == a.name) return a;
  throw_bad_input("unknown optimization algorithm '" + name + "'; valid names: " + valid_names());
}

bool finite(double v) { return std::isfinite(v); }

void validate(const Problem& p, const Options& o) {
  const size_t n = p.x0.size();
  CAMBER_INPUT_REQUIRE(n > 0, "the optimization problem has no design variables (Problem::x0 is empty)");
  CAMBER_INPUT_REQUIRE(static_cast<bool>(p.evaluate), "Problem::evaluate is not set");
  CAMBER_INPUT_REQUIRE(p.n_inequality >= 0 && p.n_equality >= 0,
                       "constraint counts must be >= 0, not " << p.n_inequality << " and "
                                                              << p.n_equality);
  CAMBER_INPUT_REQUIRE(p.lower.empty() || p.lower.size() == n,
                       "Problem::lower has " << p.lower.size() << " values; expected " << n
                                             << " (one per design variable) or none");
  CAMBER_INPUT_REQUIRE(p.upper.empty() || p.upper.size() == n,
                       "Problem::upper has " << p.upper.size() << " values; expected " << n
                                             << " (one per design variable) or none");
  for (size_t i = 0; i < n; ++i) {
    const double lo = p.lower.empty() ? -HUGE_VAL : p.lower[i];
    const double hi = p.upper.empty() ? HUGE_VAL : p.upper[i];
    CAMBER_INPUT_REQUIRE(finite(p.x0[i]), "Problem::x0[" << i << "] is not finite");
    CAMBER_INPUT_REQUIRE(!std::isnan(lo) && !std::isnan(hi) && lo <= hi,
                         "bounds of design variable " << i << " are [" << lo << ", " << hi
                                                      << "]; need lower <= upper");
    CAMBER_INPUT_REQUIRE(lo <= p.x0[i] && p.x0[i] <= hi,
                         "Problem::x0[" << i << "] = " << p.x0[i] << " is outside its bounds ["
                                        << lo << ", " << hi << "]");
  }
  const AlgorithmEntry& algorithm = find_algorithm(o.algorithm);
  CAMBER_INPUT_REQUIRE(p.n_equality == 0 || algorithm.equality_constraints,
                       "algorithm '" << o.algorithm << "' handles inequality constraints only, and "
                                     << "the problem has " << p.n_equality
                                     << " equality constraint(s); use slsqp");
  CAMBER_INPUT_REQUIRE(p.n_inequality == 0 || algorithm.inequality_constraints,
                       "algorithm '" << o.algorithm << "' handles bounds only, and the problem has "
                                     << p.n_inequality << " inequality constraint(s); use slsqp, mma or ccsaq");
  CAMBER_INPUT_REQUIRE(o.max_evaluations >= 1, "Options::max_evaluations must be >= 1");
  CAMBER_INPUT_REQUIRE(o.max_failures >= 0, "Options::max_failures must be >= 0");
  CAMBER_INPUT_REQUIRE(o.error_timeout_seconds > 0.0,
                       "Options::error_timeout_seconds must be > 0");
  CAMBER_INPUT_REQUIRE(o.failure_step_shrink > 0.0 && o.failure_step_shrink < 1.0,
                       "Options::failure_step_shrink must be in (0, 1), not "
                           << o.failure_step_shrink);
  CAMBER_INPUT_REQUIRE(o.ftol_rel >= 0.0 && o.ftol_abs >= 0.0 && o.xtol_rel >= 0.0 &&
                           o.constraint_tol >= 0.0,
                       "optimizer tolerances must be >= 0");
  CAMBER_INPUT_REQUIRE(o.x_scale.empty() || o.x_scale.size() == n,
                       "Options::x_scale has " << o.x_scale.size() << " values; expected " << n
                                               << " or none");
  for (double s : o.x_scale)
    CAMBER_INPUT_REQUIRE(finite(s) && s > 0.0, "Options::x_scale values must be finite and > 0");
  CAMBER_INPUT_REQUIRE(finite(o.objective_scale) && o.objective_scale > 0.0,
                       "Options::objective_scale must be finite and > 0");
  const size_t m = static_cast<size_t>(p.n_inequality + p.n_equality);
  CAMBER_INPUT_REQUIRE(o.constraint_scale.empty() || o.constraint_scale.size() == m,
                       "Options::constraint_scale has " << o.constraint_scale.size()
                                                        << " values; expected " << m
                                                        << " (inequality then equality) or none");
  for (double s : o.constraint_scale)
    CAMBER_INPUT_REQUIRE(finite(s) && s > 0.0,
                         "Options::constraint_scale values must be finite and > 0");
}

// What rank 0 tells the other ranks next.
enum Command : int { kEvaluate = 1, kRecord = 2, kDone = 3, kError = 4 };

struct NloptDeleter {
  void operator()(nlopt_opt o) const { nlopt_destroy(o); }
};
using NloptHandle = std::unique_ptr<std::remove_pointer_t<nlopt_opt>, NloptDeleter>;

}  // namespace

std::vector<std::string> algorithm_names() {
  std::vector<std::string> names;
  for (const auto& a : kAlgorithms) names.emplace_back(a.name);
  return names;
}

std::string to_string(Status status) {
  switch (status) {
    case Status::success: return "success";
    case Status::ftol_reached: return "ftol_reached";
    case Status::xtol_reached: return "xtol_reached";
    case Status::max_evaluations: return "max_evaluations";
    case Status::evaluation_failed: return "evaluation_failed";
    case Status::roundoff_limited: return "roundoff_limited";
    case Status::failure: return "failure";
    case Status::trust_region_collapsed: return "trust_region_collapsed";
  }
  return "unknown";
}

// ---- one minimize() call ---------------------------------------------------------

namespace {

// Runs on every rank: rank 0 drives NLopt (run_driver), the others serve
// (run_worker). Both share the collective steps: evaluate, record.
class Run {
 public:
  Run(const Problem& p, const Options& o, MPI_Comm comm, const ReportFunction& hook,
      const History& replay, History& history)
      : p_(p), o_(o), comm_(comm), hook_(hook), replay_(replay), history_(history),
        n_(p.x0.size()), mi_(static_cast<size_t>(p.n_inequality)),
        me_(static_cast<size_t>(p.n_equality)) {
    rank_ = comm_rank(comm);
    scale_.assign(n_, 1.0);
    if (!o.x_scale.empty()) scale_ = o.x_scale;
    cscale_.assign(mi_ + me_, 1.0);
    if (!o.constraint_scale.empty()) cscale_ = o.constraint_scale;
  }

  Result run() {
    history_.clear();
    if (rank_ != 0) return run_worker();
    try {
      return run_driver();
    } catch (const std::exception& e) {
      // An agreed error already ended the other ranks' loops; anything else
      // (NLopt rejecting its input) they still have to hear about.
      if (!peers_gone_) {
        int header[3] = {kError, 0, 0};
        CAMBER_CHECK_MPI(MPI_Bcast(header, 3, MPI_INT, 0, comm_));
        std::string what = e.what();
        bcast_string(what, 0, comm_);
      }
      throw;
    }
  }

 private:
  // ---- collective steps ----

  // Every rank evaluates at x; failures are agreed on, other errors thrown
  // on all ranks (detail/collective.hpp).
  HistoryEntry evaluate(const std::vector<double>& x) {
    return detail::evaluate_agreed(p_, x, comm_, o_.error_timeout_seconds, &peers_gone_);
  }

  int agreed(const std::function<std::string()>& body) {
    return detail::agreed(comm_, o_.error_timeout_seconds, body, &peers_gone_);
  }

  void guarded(const std::function<void()>& body) {
    agreed([&] {
      body();
      return std::string();
    });
  }

  // Rank 0's entry reaches every rank, joins the history, and is reported.
  void record(HistoryEntry entry, bool replayed) {
    int header[3] = {kRecord, replayed ? 1 : 0, stage_};
    CAMBER_CHECK_MPI(MPI_Bcast(header, 3, MPI_INT, 0, comm_));
    share_and_append(std::move(entry), replayed);
  }

  void share_and_append(HistoryEntry entry, bool replayed) {
    history_.push_back(detail::share(entry, n_, mi_, me_, comm_));
    const HistoryEntry& e = history_.back();

    Record r;
    r.evaluation = static_cast<int>(history_.size());
    r.stage = stage_;
    r.x = e.x;
    r.failed = e.failed;
    r.failure = e.failure;
    r.replayed = replayed;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (e.failed) {
      r.objective = r.max_violation = r.gradient_norm = nan;
    } else {
      r.objective = e.values.objective;
      r.max_violation = e.values.max_violation();
      r.gradient_norm = e.values.gradient_norm();
      update_best(history_.size() - 1);
    }
    r.best_evaluation = best_ + 1;
    r.best_objective = best_ >= 0 ? history_[static_cast<size_t>(best_)].values.objective : nan;
    r.best_violation = best_ >= 0 ? history_[static_cast<size_t>(best_)].values.max_violation()
                                  : nan;
    guarded([&] {
      if (hook_) hook_(r);
    });
  }

  // Best point so far: the lowest objective among points whose scaled
  // violation is within constraint_tol; while there is none, the lowest
  // scaled violation.
  double scaled_violation(const Evaluation& ev) const {
    double v = 0.0;
    for (size_t i = 0; i < mi_; ++i) v = std::max(v, cscale_[i] * ev.inequality[i]);
    for (size_t j = 0; j < me_; ++j) v = std::max(v, cscale_[mi_ + j] * std::abs(ev.equality[j]));
    return v;
  }
  void update_best(size_t k) {
    const Evaluation& ev = history_[k].values;
    const double v = scaled_violation(ev);
    const bool feasible = v <= o_.constraint_tol;
    if (best_ < 0) {
      best_ = static_cast<long>(k);
      return;
    }
    const Evaluation& b = history_[static_cast<size_t>(best_)].values;
    const double bv = scaled_violation(b);
    const bool best_feasible = bv <= o_.constraint_tol;
    if ((feasible && (!best_feasible || ev.objective < b.objective)) ||
        (!feasible && !best_feasible && v < bv))
      best_ = static_cast<long>(k);
  }

  // ---- ranks other than 0 ----

  Result run_worker() {
    for (;;) {
      int header[3] = {0, 0, 0};
      CAMBER_CHECK_MPI(MPI_Bcast(header, 3, MPI_INT, 0, comm_));
      stage_ = header[2];
      switch (header[0]) {
        case kEvaluate: {
          std::vector<double> x;
          bcast_doubles(x, comm_);
          evaluate(x);  // rank 0's values follow as a record
          break;
        }
        case kRecord: share_and_append(HistoryEntry{}, header[1] != 0); break;
        case kDone: return receive_result();
        case kError: {
          std::string what;
          bcast_string(what, 0, comm_);
          throw Error(ErrorKind::failure, "optimizer stopped on rank 0: " + what);
        }
        default: CAMBER_REQUIRE(false, "optimizer protocol error: command " << header[0]);
      }
    }
  }

  Result receive_result() {
    Result r;
    std::vector<double> values;
    bcast_doubles(values, comm_);
    int counts[5] = {0, 0, 0, 0, 0};
    CAMBER_CHECK_MPI(MPI_Bcast(counts, 5, MPI_INT, 0, comm_));
    bcast_string(r.message, 0, comm_);
    r.x.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(n_));
    r.objective = values[n_];
    r.max_violation = values[n_ + 1];
    r.status = static_cast<Status>(counts[0]);
    r.n_evaluations = counts[1];
    r.n_live_evaluations = counts[2];
    r.n_failures = counts[3];
    r.n_stages = counts[4];
    return r;
  }

  // ---- rank 0 ----

  std::vector<double> unscale(const double* y) const {
    std::vector<double> x(n_);
    for (size_t i = 0; i < n_; ++i) x[i] = y[i] * scale_[i];
    return x;
  }

  // The entry at y: cached, replayed or evaluated now. nullptr once NLopt is
  // being stopped (then nothing is evaluated and no rank is contacted).
  const HistoryEntry* point(const double* y) {
    if (stopping_) return nullptr;
    try {
      const std::vector<double> x = unscale(y);
      for (size_t k = history_.size(); k-- > 0;)
        if (same_point(history_[k].x, x)) return &history_[k];
      for (const HistoryEntry& old : replay_) {
        if (same_point(old.x, x)) {
          record(old, /*replayed=*/true);
          return &history_.back();
        }
      }
      if (static_cast<int>(history_.size()) >= o_.max_evaluations) {
        budget_spent_ = true;
        stop();
        return nullptr;
      }
      int header[3] = {kEvaluate, 0, stage_};
      CAMBER_CHECK_MPI(MPI_Bcast(header, 3, MPI_INT, 0, comm_));
      std::vector<double> shared = x;
      bcast_doubles(shared, comm_);
      HistoryEntry entry = evaluate(x);
      ++n_live_;
      record(std::move(entry), /*replayed=*/false);
      return &history_.back();
    } catch (...) {
      error_ = std::current_exception();
      stop();
      return nullptr;
    }
  }

  void stop() {
    stopping_ = true;
    nlopt_force_stop(opt_);
  }

  // The entry at y, or nullptr when NLopt must stop (failure included).
  const HistoryEntry* usable_point(const double* y) {
    const HistoryEntry* e = point(y);
    if (e != nullptr && e->failed) {
      stage_failed_ = true;
      failed_x_ = e->x;
      stop();
      return nullptr;
    }
    return e;
  }

  static double objective_callback(unsigned n, const double* y, double* grad, void* data) {
    Run& self = *static_cast<Run*>(data);
    const HistoryEntry* e = self.usable_point(y);
    if (e == nullptr) {
      if (grad != nullptr) std::fill(grad, grad + n, 0.0);
      return HUGE_VAL;
    }
    const double s = self.o_.objective_scale;
    if (grad != nullptr)
      for (unsigned i = 0; i < n; ++i)
        grad[i] = s * e->values.objective_gradient[i] * self.scale_[i];
    return s * e->values.objective;
  }

  static void constraints(Run& self, bool equality, unsigned m, double* result, unsigned n,
                          const double* y, double* grad) {
    const HistoryEntry* e = self.usable_point(y);
    if (e == nullptr) {
      std::fill(result, result + m, HUGE_VAL);
      if (grad != nullptr) std::fill(grad, grad + static_cast<size_t>(m) * n, 0.0);
      return;
    }
    const auto& values = equality ? e->values.equality : e->values.inequality;
    const auto& grads = equality ? e->values.equality_gradients : e->values.inequality_gradients;
    const size_t offset = equality ? self.mi_ : 0;
    for (unsigned k = 0; k < m; ++k) {
      const double c = self.cscale_[offset + k];
      result[k] = c * values[k];
      if (grad != nullptr)
        for (unsigned i = 0; i < n; ++i)
          grad[static_cast<size_t>(k) * n + i] = c * grads[k][i] * self.scale_[i];
    }
  }
  static void inequality_callback(unsigned m, double* result, unsigned n, const double* y,
                                  double* grad, void* data) {
    constraints(*static_cast<Run*>(data), false, m, result, n, y, grad);
  }
  static void equality_callback(unsigned m, double* result, unsigned n, const double* y,
                                double* grad, void* data) {
    constraints(*static_cast<Run*>(data), true, m, result, n, y, grad);
  }

  // One NLopt run from y within [lo, hi]; returns NLopt's code, y updated to
  // the point NLopt returns.
  nlopt_result run_stage(std::vector<double>& y, const std::vector<double>& lo,
                         const std::vector<double>& hi) {
    const unsigned n = static_cast<unsigned>(n_);
    NloptHandle handle(nlopt_create(find_algorithm(o_.algorithm).id, n));
    CAMBER_REQUIRE(handle != nullptr, "NLopt could not create its optimizer");
    opt_ = handle.get();
    auto check = [&](nlopt_result rc, const char* what) {
      CAMBER_REQUIRE(rc > 0, "NLopt rejected " << what << ": " << nlopt_result_to_string(rc));
    };
    check(nlopt_set_lower_bounds(opt_, lo.data()), "the lower bounds");
    check(nlopt_set_upper_bounds(opt_, hi.data()), "the upper bounds");
    check(nlopt_set_min_objective(opt_, objective_callback, this), "the objective");
    if (mi_ > 0) {
      std::vector<double> tol(mi_, o_.constraint_tol);
      check(nlopt_add_inequality_mconstraint(opt_, static_cast<unsigned>(mi_),
                                             inequality_callback, this, tol.data()),
            "the inequality constraints");
    }
    if (me_ > 0) {
      std::vector<double> tol(me_, o_.constraint_tol);
      check(nlopt_add_equality_mconstraint(opt_, static_cast<unsigned>(me_), equality_callback,
                                           this, tol.data()),
            "the equality constraints");
    }
    check(nlopt_set_ftol_rel(opt_, o_.ftol_rel), "ftol_rel");
    check(nlopt_set_ftol_abs(opt_, o_.ftol_abs), "ftol_abs");
    check(nlopt_set_xtol_rel(opt_, o_.xtol_rel), "xtol_rel");
    stopping_ = false;
    stage_failed_ = false;
    double f = 0.0;
    const nlopt_result rc = nlopt_optimize(opt_, y.data(), &f);
    opt_ = nullptr;
    if (error_) std::rethrow_exception(error_);
    return rc;
  }

  Result run_driver() {
    Result result;
    std::vector<double> lower(n_), upper(n_), y(n_);
    for (size_t i = 0; i < n_; ++i) {
      lower[i] = p_.lower.empty() ? -HUGE_VAL : p_.lower[i] / scale_[i];
      upper[i] = p_.upper.empty() ? HUGE_VAL : p_.upper[i] / scale_[i];
      y[i] = p_.x0[i] / scale_[i];
    }
    std::vector<double> lo = lower, hi = upper;
    bool in_box = false;
    long final_entry = -1;
    for (stage_ = 0;; ++stage_) {
      const nlopt_result rc = run_stage(y, lo, hi);
      result.n_stages = stage_ + 1;
      if (stage_failed_) {
        ++result.n_failures;
        const std::string why = history_.empty() ? "" : last_failure();
        if (best_ < 0) {
          result.status = Status::evaluation_failed;
          result.message = "the starting design could not be evaluated (" + why + ")";
          break;
        }
        if (result.n_failures > o_.max_failures) {
          result.status = Status::evaluation_failed;
          result.message = std::to_string(result.n_failures) +
                           " evaluations failed (last: " + why +
                           "); the result is the best design evaluated";
          final_entry = best_;
          break;
        }
        // Cut back: restart from the best point in a box that stops short
        // of the failed one.
        const std::vector<double>& good = history_[static_cast<size_t>(best_)].x;
        double distance = 0.0;
        for (size_t i = 0; i < n_; ++i)
          distance = std::max(distance, std::abs(failed_x_[i] - good[i]) / scale_[i]);
        const double h = o_.failure_step_shrink * distance;
        for (size_t i = 0; i < n_; ++i) {
          y[i] = good[i] / scale_[i];
          lo[i] = std::max(lower[i], y[i] - h);
          hi[i] = std::min(upper[i], y[i] + h);
        }
        in_box = true;
        continue;
      }
      if (budget_spent_) {
        result.status = Status::max_evaluations;
        result.message = "Options::max_evaluations (" + std::to_string(o_.max_evaluations) +
                         ") reached; the result is the best design evaluated";
        final_entry = best_;
        break;
      }
      if (in_box) {
        // The box may have stopped the design short: one more run from here
        // with the original bounds (its first point comes from the cache).
        lo = lower;
        hi = upper;
        in_box = false;
        continue;
      }
      switch (rc) {
        case NLOPT_SUCCESS:
        case NLOPT_STOPVAL_REACHED: result.status = Status::success; break;
        case NLOPT_FTOL_REACHED: result.status = Status::ftol_reached; break;
        case NLOPT_XTOL_REACHED: result.status = Status::xtol_reached; break;
        case NLOPT_MAXEVAL_REACHED: result.status = Status::max_evaluations; break;
        case NLOPT_ROUNDOFF_LIMITED: result.status = Status::roundoff_limited; break;
        case NLOPT_INVALID_ARGS:
        case NLOPT_OUT_OF_MEMORY:
          CAMBER_REQUIRE(false, "NLopt stopped: " << nlopt_result_to_string(rc));
          break;
        default: result.status = Status::failure; break;
      }
      result.message = std::string("NLopt (") + find_algorithm(o_.algorithm).name +
                       ") returned " + nlopt_result_to_string(rc);
      // NLopt returns a point it evaluated; fall back to the best one.
      const std::vector<double> x = unscale(y.data());
      final_entry = best_;
      for (size_t k = 0; k < history_.size(); ++k)
        if (same_point(history_[k].x, x) && !history_[k].failed) final_entry = static_cast<long>(k);
      break;
    }
    if (final_entry >= 0) {
      const HistoryEntry& e = history_[static_cast<size_t>(final_entry)];
      result.x = e.x;
      result.objective = e.values.objective;
      result.max_violation = e.values.max_violation();
    } else {
      result.x = p_.x0;
      result.objective = result.max_violation = std::numeric_limits<double>::quiet_NaN();
    }
    result.n_evaluations = static_cast<int>(history_.size());
    result.n_live_evaluations = n_live_;
    send_result(result);
    return result;
  }

  std::string last_failure() const {
    for (size_t k = history_.size(); k-- > 0;)
      if (history_[k].failed) return history_[k].failure;
    return "";
  }

  void send_result(Result& r) {
    int header[3] = {kDone, 0, stage_};
    CAMBER_CHECK_MPI(MPI_Bcast(header, 3, MPI_INT, 0, comm_));
    std::vector<double> values = r.x;
    values.push_back(r.objective);
    values.push_back(r.max_violation);
    bcast_doubles(values, comm_);
    int counts[5] = {static_cast<int>(r.status), r.n_evaluations, r.n_live_evaluations,
                     r.n_failures, r.n_stages};
    CAMBER_CHECK_MPI(MPI_Bcast(counts, 5, MPI_INT, 0, comm_));
    bcast_string(r.message, 0, comm_);
  }

  const Problem& p_;
  const Options& o_;
  MPI_Comm comm_;
  const ReportFunction& hook_;
  const History& replay_;
  History& history_;
  size_t n_, mi_, me_;
  int rank_ = 0;
  std::vector<double> scale_, cscale_;

  int stage_ = 0;
  long best_ = -1;  // index into history_
  int n_live_ = 0;
  bool peers_gone_ = false;

  // Rank 0, during one NLopt run.
  nlopt_opt opt_ = nullptr;
  bool stopping_ = false;
  bool stage_failed_ = false;
  bool budget_spent_ = false;
  std::vector<double> failed_x_;
  std::exception_ptr error_;
};

}  // namespace

Optimizer::Optimizer(Problem problem, Options options, MPI_Comm comm)
    : problem_(std::move(problem)), options_(std::move(options)) {
  // Bad input is found on every rank alike; the guard also covers ranks
  // whose arguments differ, so none is left waiting.
  collective_guard(comm, [&] { validate(problem_, options_); });
  long long sizes[3] = {static_cast<long long>(problem_.x0.size()), problem_.n_inequality,
                        problem_.n_equality};
  long long low[3], high[3];
  CAMBER_CHECK_MPI(MPI_Allreduce(sizes, low, 3, MPI_LONG_LONG, MPI_MIN, comm));
  CAMBER_CHECK_MPI(MPI_Allreduce(sizes, high, 3, MPI_LONG_LONG, MPI_MAX, comm));
  CAMBER_INPUT_REQUIRE(std::equal(low, low + 3, high),
                       "the optimization problem differs between ranks (design variables "
                           << low[0] << ".." << high[0] << ", inequality constraints " << low[1]
                           << ".." << high[1] << ", equality constraints " << low[2] << ".."
                           << high[2] << "); every rank must pass the same Problem");
  comm_ = par::Communicator(comm);
}

void Optimizer::on_evaluation(ReportFunction hook) { hook_ = std::move(hook); }

void Optimizer::replay(History history) {
  const size_t n = problem_.x0.size();
  for (const HistoryEntry& e : history) {
    CAMBER_INPUT_REQUIRE(e.x.size() == n, "a replayed history entry has "
                                              << e.x.size() << " design variables; the problem has "
                                              << n);
    // Entries of another problem have other sizes: check_evaluation says which.
    if (!e.failed)
      detail::check_evaluation(e.values, n, static_cast<size_t>(problem_.n_inequality),
                       static_cast<size_t>(problem_.n_equality));
  }
  replay_ = std::move(history);
}

Result Optimizer::minimize() {
  Run run(problem_, options_, comm_.get(), hook_, replay_, history_);
  return run.run();
}

}  // namespace camber::opt
