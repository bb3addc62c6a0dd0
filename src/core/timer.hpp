/// @file
/// Hierarchical wall-clock timers with a summary table, in the spirit of
/// PETSc's -log_view.
///
/// A ScopedTimer measures its scope and nests under whatever timer is open on
/// the same rank, giving paths such as "run/solve/assemble":
///
/// @code
///   {
///     camber::ScopedTimer t("solve");
///     { camber::ScopedTimer a("assemble"); assemble(); }
///     ksp_solve();
///   }
///   camber::print_timer_summary(MPI_COMM_WORLD);   // collective
/// @endcode
///
/// The summary lists, per path: calls, max/min/mean time over ranks, the
/// max/min load balance ratio and the percentage of the root timer. Ranks may
/// have opened different timers; the table shows the union. Timers live in a
/// per-process registry (not thread-safe: open them on the main thread).
#pragma once

#include <mpi.h>

#include <chrono>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace camber {

struct TimerRecord {
  std::string path;   ///< "run/solve/assemble"
  long calls = 0;
  double seconds = 0.0;
};

class TimerRegistry {
 public:
  static TimerRegistry& instance();
  void start(const std::string& name);
  void stop();
  std::vector<TimerRecord> records() const;  ///< in order of first use
  void clear();
  int depth() const { return static_cast<int>(open_.size()); }

 private:
  struct Open {
    std::string path;
    std::chrono::steady_clock::time_point began;
  };
  std::vector<Open> open_;
  std::map<std::string, size_t> index_;
  std::vector<TimerRecord> records_;
};

class ScopedTimer {
 public:
  explicit ScopedTimer(const std::string& name) { TimerRegistry::instance().start(name); }
  ~ScopedTimer() { TimerRegistry::instance().stop(); }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;
};

/// Collective over comm: gathers every rank's records to rank 0, which writes
/// the table to `os`. Other ranks write nothing.
void print_timer_summary(MPI_Comm comm, std::ostream& os);

}  // namespace camber
