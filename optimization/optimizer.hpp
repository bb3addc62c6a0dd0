/// @file
/// camber::opt::Optimizer — gradient-based constrained optimization with
/// NLopt (SLSQP, MMA, CCSAQ; L-BFGS for bound-constrained problems with many
/// variables) for design loops in which every evaluation is
/// an expensive, MPI-collective solve (a flow solve and its adjoint).
///
/// The problem, with n design variables x:
/// @code
///   minimize f(x)  subject to  g_i(x) <= 0,  h_j(x) = 0,  lower <= x <= upper
/// @endcode
/// One callback returns f, every g_i and h_j and all their gradients at x,
/// because one flow solve and one adjoint solve per output give them all.
/// The optimizer caches evaluations by x, so NLopt's separate requests for
/// the objective and the constraints at one point cost one solve.
///
/// @code
///   namespace opt = camber::opt;
///   opt::Problem p;
///   p.x0 = {1, 5, 5, 1};  p.lower = {1, 1, 1, 1};  p.upper = {5, 5, 5, 5};
///   p.n_inequality = 1;   p.n_equality = 1;
///   p.evaluate = [&](const std::vector<double>& x) { return solve_flow_and_adjoints(x); };
///   opt::Options o;  o.algorithm = "slsqp";  o.max_evaluations = 60;
///   opt::Optimizer optimizer(p, o, MPI_COMM_WORLD);          // collective
///   optimizer.on_evaluation([](const opt::Record& r) { print(r); });
///   opt::Result r = optimizer.minimize();                    // collective; same r everywhere
/// @endcode
///
/// MPI. Rank 0 drives NLopt; before each evaluation it broadcasts x (over a
/// private duplicate of the communicator), and every rank calls `evaluate`
/// with that x, so the callback is collective and free to run MPI solves.
/// Rank 0's results are used and broadcast, so the history, the report
/// hook's records and the Result are identical on every rank. An exception
/// thrown by the callback (or the report hook) on any rank is agreed on by
/// all ranks, which all throw camber::Error with the message of the lowest
/// failing rank. That needs the other ranks to finish their callback: if
/// one rank throws while the others wait in the callback's own
/// communication (a solver's halo exchange), they never return; the
/// throwing rank then waits Options::error_timeout_seconds and ends the job
/// with MPI_Abort, as camber::run_guarded does, so no rank hangs either way.
/// Problem and Options must be the same on all ranks (sizes are checked;
/// rank 0's values are the ones used).
///
/// Iterations. NLopt exposes evaluations, not iterations (SLSQP's line
/// search and MMA's inner loop evaluate points that are never accepted), so
/// here an iteration is one evaluation at a new x: the report hook gets one
/// Record per evaluation with the best point so far, and max_evaluations is
/// the iteration limit.
///
/// Failed evaluations (the flow solve did not converge). The callback
/// throws EvaluationFailed (on any subset of ranks); a non-finite value
/// counts as a failure too. A failed point is never accepted. Because
/// NLopt's line search cannot be steered, the optimizer stops NLopt
/// (forced stop) and restarts it from the best point so far inside a box
/// around it whose half-width is failure_step_shrink times the largest
/// (scaled) distance to the failed point ("trust-region cut-back"). When
/// that run ends, one more run from its end point with the original bounds
/// checks that the box did not stop the design short; its first point is
/// served from the cache. After max_failures failures the optimizer gives
/// up and returns the best point with Status::evaluation_failed.
///
/// Restart. NLopt cannot be checkpointed mid-run. Instead the caller saves
/// history() (history.hpp) and, in the new job, passes it to replay()
/// before minimize(): evaluations at points that match an entry bit for bit
/// are served from it, so NLopt, being deterministic, retraces the old run
/// without a single solve and then continues with live evaluations. The
/// restarted run reaches the same final design as an uninterrupted one, bit
/// for bit, when the options are the same and the replayed values are the
/// values the live run produced (a deterministic solver).
///
/// Scaling. SLSQP is not scale-invariant: NLopt works on y = x / x_scale
/// and minimizes objective_scale * f (constraints times constraint_scale);
/// choose them so that y, f and the gradients are of order one. Tolerances
/// (xtol_rel, ftol_rel, constraint_tol) apply to the scaled quantities.
///
/// Limits: MMA and CCSAQ handle inequality constraints only (an equality
/// constraint is an error: use SLSQP). The callback always returns the
/// gradients: NLopt's gradient-based algorithms request them at every point.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/optimization/history.hpp>
#include <camber/parallel/communicator.hpp>

namespace camber::opt {

/// Thrown by an evaluation callback when the design point cannot be
/// evaluated (the flow solve did not converge, the mesh folded). The
/// optimizer treats it as a failed evaluation (see the file comment) rather
/// than as an error; any other exception ends minimize().
class EvaluationFailed : public Error {
 public:
  explicit EvaluationFailed(const std::string& why);
};

/// The values and gradients at x; collective over the optimizer's
/// communicator. May throw EvaluationFailed.
using EvaluateFunction = std::function<Evaluation(const std::vector<double>& x)>;

/// What to minimize. n = x0.size().
struct Problem {
  std::vector<double> x0;     ///< start, within the bounds
  std::vector<double> lower;  ///< n values, or empty for no lower bounds
  std::vector<double> upper;  ///< n values, or empty for no upper bounds
  int n_inequality = 0;       ///< constraints g_i(x) <= 0
  int n_equality = 0;         ///< constraints h_j(x) = 0
  EvaluateFunction evaluate;  ///< f, g, h and their gradients at x
};

struct Options {
  /// "slsqp" (default), "mma", "ccsaq" or "lbfgs" (bounds only; case-insensitive).
  std::string algorithm = "slsqp";
  /// Evaluations (= iterations, see the file comment) at distinct points,
  /// failed and replayed ones included.
  int max_evaluations = 100;
  double ftol_rel = 1e-8;        ///< relative change of the scaled objective; 0: off
  double ftol_abs = 0.0;         ///< absolute change of the scaled objective; 0: off
  double xtol_rel = 1e-8;        ///< relative change of the scaled design; 0: off
  double constraint_tol = 1e-8;  ///< on the scaled constraints
  /// Per variable: NLopt works on y = x / x_scale. Empty: all 1.
  std::vector<double> x_scale;
  /// NLopt minimizes objective_scale * f.
  double objective_scale = 1.0;
  /// Per constraint, inequality ones first, then equality ones. Empty: all 1.
  std::vector<double> constraint_scale;
  /// Failed evaluations tolerated (each followed by a cut-back restart).
  int max_failures = 3;
  /// Half-width of the cut-back box as a fraction of the distance from the
  /// best point to the failed one, in (0, 1).
  double failure_step_shrink = 0.5;
  /// How long a rank whose callback threw (or failed) waits for the other
  /// ranks to reach the optimizer before it ends the job with MPI_Abort
  /// (see "MPI" in the file comment).
  double error_timeout_seconds = 60.0;
};

/// The algorithm names Options::algorithm accepts.
std::vector<std::string> algorithm_names();

/// One evaluation, as reported to the hook of Optimizer::on_evaluation.
struct Record {
  int evaluation = 0;            ///< 1, 2, ... (= iteration)
  int stage = 0;                 ///< NLopt run: 0, then one per restart
  std::vector<double> x;         ///< unscaled
  bool failed = false;           ///< EvaluationFailed; values below are NaN
  std::string failure;           ///< why, when failed
  bool replayed = false;         ///< served from the replayed history
  double objective = 0.0;        ///< f(x), unscaled
  double max_violation = 0.0;    ///< max(0, max g_i, max |h_j|), unscaled
  double gradient_norm = 0.0;    ///< |grad f(x)|, unscaled
  int best_evaluation = 0;       ///< the best point so far (0: none yet)
  double best_objective = 0.0;
  double best_violation = 0.0;
};
using ReportFunction = std::function<void(const Record&)>;

enum class Status {
  success,            ///< NLopt: generic success
  ftol_reached,       ///< ftol_rel or ftol_abs met
  xtol_reached,       ///< xtol_rel met
  max_evaluations,    ///< Options::max_evaluations spent
  evaluation_failed,  ///< more than max_failures failures, or the start failed
  roundoff_limited,   ///< NLopt: no further progress possible in round-off
  failure,            ///< NLopt reported a failure (see Result::message)
  trust_region_collapsed  ///< TrustRegionOptimizer: the radius fell below its minimum
};
/// "ftol_reached", ...
std::string to_string(Status status);

struct Result {
  /// The final design: never a failed point (x0, with a NaN objective, when
  /// even the starting design could not be evaluated).
  std::vector<double> x;
  double objective = 0.0;      ///< f(x), unscaled
  double max_violation = 0.0;  ///< max(0, max g_i, max |h_j|) at x, unscaled
  Status status = Status::failure;
  std::string message;         ///< what stopped the run, in words
  int n_evaluations = 0;       ///< history entries (live, replayed and failed)
  int n_live_evaluations = 0;  ///< calls of Problem::evaluate
  int n_failures = 0;
  int n_stages = 0;            ///< NLopt runs (1 without failures)
};

class Optimizer {
 public:
  /// Checks the problem and options (a bad algorithm name lists the valid
  /// ones) and duplicates `comm`. Collective over `comm`.
  Optimizer(Problem problem, Options options, MPI_Comm comm);

  /// Called on every rank after each evaluation (live or replayed); the
  /// records are the same on every rank. May throw: minimize() then throws
  /// on all ranks.
  void on_evaluation(ReportFunction hook);

  /// Serve evaluations from `history` (a previous run's, see history.hpp)
  /// where x matches bit for bit. Only rank 0's is used.
  void replay(History history);

  /// Runs the optimization. Collective; returns the same Result on every
  /// rank. Throws camber::Error on all ranks if an evaluation or the hook
  /// threw anything but EvaluationFailed on any rank.
  Result minimize();

  /// Every evaluation of the last (or current) minimize() call, in order;
  /// complete up to the last evaluation even after minimize() threw.
  const History& history() const noexcept { return history_; }

  const Problem& problem() const noexcept { return problem_; }
  const Options& options() const noexcept { return options_; }

 private:
  Problem problem_;
  Options options_;
  par::Communicator comm_;
  ReportFunction hook_;
  History replay_;
  History history_;
};

}  // namespace camber::opt
