/// @file
/// The evaluation history of an optimization run: every design point the
/// optimizer asked for, with its objective, constraints and gradients (or
/// the reason the evaluation failed), written and read back exactly.
///
/// The history is what makes a run restartable (see optimizer.hpp):
/// NLopt cannot be checkpointed, but it is deterministic, so a new run fed
/// the same values at the same points retraces the old one. The file keeps
/// every double as a hexadecimal float, so the values read back are the
/// values written, bit for bit:
///
/// @code
///   camber::opt::Optimizer optimizer(problem, options, MPI_COMM_WORLD);
///   try { optimizer.minimize(); } catch (...) { /* crash, time limit */ }
///   if (rank == 0) camber::opt::save_history("design.history", optimizer.history());
///   // later, a new job:
///   optimizer.replay(camber::opt::load_history("design.history"));
///   camber::opt::Result r = optimizer.minimize();   // no flow solve repeated
/// @endcode
///
/// Most users only pass a history from save_history to replay(); the
/// entries are plain data for plotting or post-processing.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace camber::opt {

/// Objective, constraints and their gradients at one design point x of n
/// variables. Constraints follow NLopt's convention: inequality constraints
/// are g_i(x) <= 0 (write "lift >= L0" as g = L0 - lift), equality
/// constraints are h_j(x) = 0. Gradients are with respect to x, unscaled.
struct Evaluation {
  double objective = 0.0;
  std::vector<double> objective_gradient;                 ///< n values
  std::vector<double> inequality;                         ///< g_i(x), m_ineq values
  std::vector<std::vector<double>> inequality_gradients;  ///< m_ineq rows of n values
  std::vector<double> equality;                           ///< h_j(x), m_eq values
  std::vector<std::vector<double>> equality_gradients;    ///< m_eq rows of n values

  /// max(0, max_i g_i, max_j |h_j|): zero at a feasible point.
  double max_violation() const;
  /// Euclidean norm of the objective gradient.
  double gradient_norm() const;
};

/// One evaluation of a run, in the order the optimizer asked for them.
struct HistoryEntry {
  std::vector<double> x;  ///< the design point, unscaled
  bool failed = false;    ///< the evaluation threw EvaluationFailed
  std::string failure;    ///< its message, when failed
  Evaluation values;      ///< empty when failed
};

using History = std::vector<HistoryEntry>;

/// Writes the history as text, every double as a hexadecimal float (exact).
void write_history(std::ostream& out, const History& history);
/// Reads what write_history wrote; `source` names the stream in errors
/// ("source:line: expected ..."). Throws camber::Error (bad input).
History read_history(std::istream& in, const std::string& source = "history");
/// The same, to and from a file.
void save_history(const std::string& path, const History& history);
History load_history(const std::string& path);

}  // namespace camber::opt
