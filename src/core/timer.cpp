#include <camber/core/timer.hpp>

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include <camber/core/error.hpp>

namespace camber {

namespace {
// Orders paths as a tree: a parent before its children, siblings by name.
bool tree_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i <= a.size() && j <= b.size()) {
    const size_t ea = std::min(a.find('/', i), a.size());
    const size_t eb = std::min(b.find('/', j), b.size());
    const int c = a.compare(i, ea - i, b, j, eb - j);
    if (c != 0) return c < 0;
    if (ea == a.size() || eb == b.size()) return ea == a.size() && eb != b.size();
    i = ea + 1;
    j = eb + 1;
  }
  return false;
}
}  // namespace

TimerRegistry& TimerRegistry::instance() {
  static TimerRegistry registry;
  return registry;
}

void TimerRegistry::start(const std::string& name) {
  CAMBER_REQUIRE(name.find('/') == std::string::npos && !name.empty(),
                 "timer name '" << name << "' must be non-empty and contain no '/'");
  std::string path = open_.empty() ? name : open_.back().path + "/" + name;
  open_.push_back({std::move(path), std::chrono::steady_clock::now()});
}

void TimerRegistry::stop() {
  CAMBER_ASSERT(!open_.empty());
  const auto now = std::chrono::steady_clock::now();
  Open o = std::move(open_.back());
  open_.pop_back();
  auto [it, inserted] = index_.emplace(o.path, records_.size());
  if (inserted) records_.push_back({o.path, 0, 0.0});
  TimerRecord& r = records_[it->second];
  r.calls += 1;
  r.seconds += std::chrono::duration<double>(now - o.began).count();
}

std::vector<TimerRecord> TimerRegistry::records() const {
  // Parents close after their children; list parents first for the table.
  std::vector<TimerRecord> out = records_;
  std::stable_sort(out.begin(), out.end(), [](const TimerRecord& a, const TimerRecord& b) {
    return tree_less(a.path, b.path);
  });
  return out;
}

void TimerRegistry::clear() {
  open_.clear();
  index_.clear();
  records_.clear();
}

namespace {

std::string serialize(const std::vector<TimerRecord>& records) {
  std::ostringstream os;
  os << std::setprecision(17);
  for (const auto& r : records) os << r.path << '\t' << r.calls << '\t' << r.seconds << '\n';
  return os.str();
}

struct Merged {
  long calls_max = 0;
  double t_max = 0.0, t_min = 0.0, t_sum = 0.0;
  int n_ranks = 0;
};

}  // namespace

void print_timer_summary(MPI_Comm comm, std::ostream& os) {
  int rank = 0, size = 1;
  CAMBER_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CAMBER_CHECK_MPI(MPI_Comm_size(comm, &size));
  const std::string mine = serialize(TimerRegistry::instance().records());
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<size_t>(size)), offsets(static_cast<size_t>(size));
  CAMBER_CHECK_MPI(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm));
  int total = 0;
  if (rank == 0)
    for (int r = 0; r < size; ++r) {
      offsets[static_cast<size_t>(r)] = total;
      total += lengths[static_cast<size_t>(r)];
    }
  std::vector<char> all(static_cast<size_t>(std::max(total, 1)));
  CAMBER_CHECK_MPI(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(),
                               offsets.data(), MPI_CHAR, 0, comm));
  if (rank != 0) return;

  std::map<std::string, Merged> merged;
  std::vector<std::string> order;
  std::istringstream in(std::string(all.data(), static_cast<size_t>(total)));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string path;
    long calls = 0;
    double seconds = 0.0;
    std::getline(fields, path, '\t');
    fields >> calls >> seconds;
    auto [it, inserted] = merged.try_emplace(path);
    Merged& m = it->second;
    if (inserted) {
      order.push_back(path);
      m.t_min = seconds;
    }
    m.calls_max = std::max(m.calls_max, calls);
    m.t_max = std::max(m.t_max, seconds);
    m.t_min = std::min(m.t_min, seconds);
    m.t_sum += seconds;
    m.n_ranks += 1;
  }
  std::sort(order.begin(), order.end(), tree_less);
  double root_time = 0.0;
  for (const auto& p : order)
    if (p.find('/') == std::string::npos) root_time += merged[p].t_max;

  char buf[256];
  os << "\nTimers (" << size << (size == 1 ? " rank" : " ranks")
     << "; time in seconds, max/min over ranks)\n";
  std::snprintf(buf, sizeof buf, "%-40s %8s %11s %11s %11s %7s %7s\n", "timer", "calls",
                "max", "min", "mean", "ratio", "%total");
  os << buf;
  os << std::string(100, '-') << '\n';
  for (const auto& p : order) {
    const Merged& m = merged[p];
    const int depth = static_cast<int>(std::count(p.begin(), p.end(), '/'));
    const std::string name = std::string(static_cast<size_t>(2 * depth), ' ') +
                             p.substr(p.find_last_of('/') == std::string::npos
                                          ? 0
                                          : p.find_last_of('/') + 1);
    // Ranks that never opened this timer count as zero time.
    const double t_min = m.n_ranks < size ? 0.0 : m.t_min;
    const double ratio = t_min > 0.0 ? m.t_max / t_min : 0.0;
    const double pct = root_time > 0.0 ? 100.0 * m.t_max / root_time : 0.0;
    std::snprintf(buf, sizeof buf, "%-40.40s %8ld %11.4e %11.4e %11.4e %7.2f %7.1f\n",
                  name.c_str(), m.calls_max, m.t_max, t_min, m.t_sum / size, ratio, pct);
    os << buf;
  }
  os << std::flush;
}

}  // namespace camber
