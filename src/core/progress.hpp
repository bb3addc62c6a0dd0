/// @file
/// A progress line for long loops.
///
/// On a terminal, rank 0 redraws one line in place ("\r"): iteration, a
/// percentage when the total is known, elapsed time and a caller's status
/// text. When stdout is a file or a pipe (batch jobs, CI) it prints plain log
/// lines instead, at most one every `interval_s` seconds plus the last one, so
/// a Slurm log stays readable; a loop that ends before the first interval
/// prints nothing.
///
/// @code
///   camber::Progress progress("newton", max_iterations);
///   for (int it = 0; it < max_iterations; ++it) {
///     ...
///     progress.update(it + 1, CAMBER_MSG("residual " << res));
///   }
///   progress.finish("converged");
/// @endcode
#pragma once

#include <chrono>
#include <string>

namespace camber {

class Progress {
 public:
  /// total <= 0 means unknown. Only ranks for which logging::enabled(info) print.
  Progress(std::string label, long total, double interval_s = 2.0);
  ~Progress();
  void update(long done, const std::string& status = {});
  void finish(const std::string& status = {});

  /// Forces terminal (true) or plain-line (false) mode, for tests.
  void set_terminal(bool terminal) { terminal_ = terminal; }

  /// The line update() would print, without printing it.
  std::string format(long done, const std::string& status) const;

 private:
  std::string label_;
  long total_;
  double interval_s_;
  bool terminal_;
  bool active_;
  bool finished_ = false;
  bool printed_ = false;
  long last_done_ = 0;
  std::string last_status_;
  std::chrono::steady_clock::time_point began_;
  std::chrono::steady_clock::time_point last_print_;
};

}  // namespace camber
