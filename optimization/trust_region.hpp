/// @file
/// camber::opt::TrustRegionOptimizer — surrogate-based optimization with
/// a trust region: the expensive problem (a flow solve and its adjoints
/// per evaluation) is optimized on a cheap model of it (a network trained
/// on every evaluation so far, values and gradients), and each model
/// optimum is checked by one expensive evaluation before it is accepted.
///
/// One iteration, at the accepted design x_c with its expensive values
/// f(x_c), g(x_c), h(x_c) and gradients:
///  1. the model m (SurrogateModel::evaluate) is corrected to first order
///     at x_c, for the objective and every constraint:
///       m_c(x) = m(x) + [f(x_c) - m(x_c)] + [grad f(x_c) - grad m(x_c)] . (x - x_c),
///     so that m_c matches the expensive function's value and gradient at
///     the centre whatever the model's quality (the condition under which
///     trust-region model management converges to a stationary point of
///     the expensive problem: Alexandrov, Dennis, Lewis and Torczon, 1998);
///  2. m_c is minimized subject to its constraints inside the box
///     |x_i - x_c,i| <= radius x_scale_i (and the problem's bounds), with
///     opt::Optimizer (SLSQP by default): thousands of model evaluations,
///     milliseconds each;
///  3. the candidate x* is evaluated expensively (one flow and its
///     adjoints), and the ratio of actual to predicted reduction of the
///     merit function
///       phi = objective_scale f + penalty (sum_i constraint_scale_i max(0, g_i)
///                                          + sum_j constraint_scale_j |h_j|)
///     decides: rho > accept_ratio accepts x* as the new centre; rho <
///     shrink_ratio (or a failed evaluation) shrinks the radius to shrink
///     times the step; rho > expand_ratio with the step on the boundary
///     expands it by expand (up to max_radius);
///  4. the point joins the samples (accepted or not: it is data either
///     way) and the model is refitted (SurrogateModel::fit).
///
/// It stops when the budget of expensive evaluations is spent, when the
/// model's optimum lies within xtol of the centre (the centre is then a
/// stationary point of the corrected model, hence to first order of the
/// expensive problem), or when the radius falls below min_radius: the
/// trust region collapsed (Status::trust_region_collapsed). A collapse
/// means the model kept predicting reductions the expensive function did
/// not deliver even on tiny steps: gradients inconsistent with the values
/// (an adjoint of another function than the one solved), or noise. The
/// result is always the last accepted design with its expensive values.
///
/// MPI. Every rank runs the loop; each expensive evaluation is collective
/// (every rank calls Problem::evaluate with the same x, failures agreed on
/// as in opt::Optimizer) and rank 0's values are shared, so every decision
/// is the same on every rank. The subproblem runs through opt::Optimizer
/// on the same communicator (its evaluations call the model on every
/// rank).
#pragma once

#include <mpi.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <camber/optimization/history.hpp>
#include <camber/optimization/optimizer.hpp>

namespace camber::opt {

/// What the trust-region optimizer optimizes on: a cheap approximation of
/// the expensive problem's objective and constraints.
class SurrogateModel {
 public:
  virtual ~SurrogateModel() = default;
  /// Refits the model to every successful expensive evaluation so far
  /// (x, values and gradients). Called once after the start, then after
  /// every new evaluation. Collective.
  virtual void fit(const History& samples) = 0;
  /// The model's objective, constraints and their gradients at x (sizes
  /// as the expensive problem's). Collective: every rank calls it with the
  /// same x.
  virtual Evaluation evaluate(const std::vector<double>& x) = 0;
  /// The model's uncertainty of the objective at x (an ensemble's spread),
  /// or NaN when it has none. Collective.
  virtual double objective_uncertainty(const std::vector<double>& /*x*/) {
    return std::numeric_limits<double>::quiet_NaN();
  }
};

struct TrustRegionOptions {
  /// Expensive evaluations, the start's included.
  int max_evaluations = 30;
  /// Radii are in the scaled variables x_i / x_scale_i, infinity norm.
  double initial_radius = 0.25;
  double min_radius = 1e-3;
  double max_radius = 1.0;
  double accept_ratio = 0.0;   ///< rho above it: the candidate is accepted
  double shrink_ratio = 0.25;  ///< rho below it: radius = shrink * step
  double expand_ratio = 0.75;  ///< rho above it, step on the boundary: radius *= expand
  double shrink = 0.5;
  double expand = 2.0;
  /// Weight of the scaled constraint violations in the merit function.
  double penalty = 10.0;
  /// The model's optimum within xtol (scaled, infinity norm) of the
  /// centre: converged.
  double xtol = 1e-4;
  /// Failed expensive evaluations tolerated (each shrinks the radius).
  int max_failures = 3;
  /// The subproblem's optimizer: algorithm, evaluations, tolerances. Its
  /// x_scale, objective_scale and constraint_scale are also the trust
  /// region's scales (radius, merit).
  Options subproblem;
};

/// One expensive evaluation, as reported to the hook.
struct TrustRegionRecord {
  int evaluation = 0;  ///< 1, 2, ... (1: the start)
  int iteration = 0;   ///< trust-region iteration (0: the start)
  std::vector<double> x;
  bool failed = false;
  std::string failure;
  double objective = 0.0, max_violation = 0.0, merit = 0.0;  ///< expensive, at x
  /// What the corrected model predicted at x (NaN for the start), the raw
  /// model's prediction (the network before correction), its uncertainty.
  double predicted_objective = 0.0, model_objective = 0.0, model_uncertainty = 0.0;
  double predicted_reduction = 0.0, actual_reduction = 0.0, ratio = 0.0;  ///< of the merit
  double step = 0.0;    ///< |x - x_c| scaled, infinity norm
  double radius = 0.0;  ///< after this evaluation's update
  bool accepted = false;
  int model_evaluations = 0;  ///< of the subproblem that proposed x
  double model_seconds = 0.0;     ///< fitting and the subproblem, before x
  double evaluation_seconds = 0.0;  ///< the expensive evaluation of x
  double best_objective = 0.0, best_violation = 0.0;  ///< the centre after the update
};
using TrustRegionReport = std::function<void(const TrustRegionRecord&)>;

struct TrustRegionResult {
  std::vector<double> x;  ///< the last accepted design
  double objective = 0.0, max_violation = 0.0;
  Status status = Status::failure;
  std::string message;
  int n_evaluations = 0;  ///< expensive ones, failed included
  int n_failures = 0;
  int n_accepted = 0;     ///< steps accepted (the start not counted)
  int n_iterations = 0;
  double radius = 0.0;    ///< at the end
  double model_seconds = 0.0, evaluation_seconds = 0.0;
};

class TrustRegionOptimizer {
 public:
  /// Checks the options (bad input naming the field). Collective.
  TrustRegionOptimizer(Problem problem, SurrogateModel& model, TrustRegionOptions options,
                       MPI_Comm comm);
  void on_evaluation(TrustRegionReport hook) { hook_ = std::move(hook); }
  /// Runs the loop. Collective; the same result on every rank.
  TrustRegionResult minimize();
  /// Every expensive evaluation, in order.
  const History& history() const noexcept { return history_; }
  /// The merit function at an evaluation (see the file comment).
  double merit(const Evaluation& e) const;

 private:
  Problem problem_;
  SurrogateModel& model_;
  TrustRegionOptions o_;
  MPI_Comm comm_;
  TrustRegionReport hook_;
  History history_;
};

}  // namespace camber::opt
