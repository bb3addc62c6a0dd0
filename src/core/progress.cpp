#include <camber/core/progress.hpp>

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <sstream>

#include <camber/core/log.hpp>

namespace camber {

Progress::Progress(std::string label, long total, double interval_s)
    : label_(std::move(label)),
      total_(total),
      interval_s_(interval_s),
      terminal_(isatty(STDOUT_FILENO) == 1),
      active_(logging::enabled(logging::Level::info)),
      began_(std::chrono::steady_clock::now()),
      last_print_(began_) {}

Progress::~Progress() {
  if (!finished_ && terminal_ && active_ && last_done_ > 0) std::cout << '\n' << std::flush;
}

std::string Progress::format(long done, const std::string& status) const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
  std::ostringstream os;
  os << label_ << ' ' << done;
  if (total_ > 0) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "/%ld (%3.0f%%)", total_, 100.0 * double(done) / double(total_));
    os << pct;
  }
  char t[32];
  std::snprintf(t, sizeof t, "  %.1f s", elapsed);
  os << t;
  if (!status.empty()) os << "  " << status;
  return os.str();
}

void Progress::update(long done, const std::string& status) {
  last_done_ = done;
  last_status_ = status;
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  if (terminal_) {
    std::cout << "\r\033[K" << format(done, status) << std::flush;
    return;
  }
  if (std::chrono::duration<double>(now - last_print_).count() >= interval_s_) {
    last_print_ = now;
    printed_ = true;
    logging::info(format(done, status));
  }
}

void Progress::finish(const std::string& status) {
  if (finished_) return;
  finished_ = true;
  if (!active_) return;
  const std::string& s = status.empty() ? last_status_ : status;
  if (terminal_) {
    if (last_done_ > 0) std::cout << "\r\033[K" << format(last_done_, s) << '\n' << std::flush;
  } else if (printed_) {
    // A loop short enough to print nothing meanwhile stays silent: its
    // caller reports the outcome.
    logging::info(format(last_done_, s));
  }
}

}  // namespace camber
