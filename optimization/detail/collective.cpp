#include "collective.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>
#include <thread>

#include <camber/core/runtime.hpp>

namespace camber::opt::detail {

void bcast_doubles(std::vector<double>& v, MPI_Comm comm) {
  long long size = static_cast<long long>(v.size());
  CAMBER_CHECK_MPI(MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, comm));
  v.resize(static_cast<size_t>(size));
  if (size > 0) CAMBER_CHECK_MPI(MPI_Bcast(v.data(), static_cast<int>(size), MPI_DOUBLE, 0, comm));
}

void bcast_string(std::string& s, int root, MPI_Comm comm) {
  int size = static_cast<int>(s.size());
  CAMBER_CHECK_MPI(MPI_Bcast(&size, 1, MPI_INT, root, comm));
  std::vector<char> text(s.begin(), s.end());
  text.resize(static_cast<size_t>(size));
  if (size > 0) CAMBER_CHECK_MPI(MPI_Bcast(text.data(), size, MPI_CHAR, root, comm));
  s.assign(text.begin(), text.end());
}

// An evaluation as a flat array (failed flag, then the values; the sizes
// are the problem's).
std::vector<double> pack(const HistoryEntry& e) {
  std::vector<double> v;
  v.push_back(e.failed ? 1.0 : 0.0);
  v.insert(v.end(), e.x.begin(), e.x.end());
  const Evaluation& ev = e.values;
  v.push_back(ev.objective);
  v.insert(v.end(), ev.objective_gradient.begin(), ev.objective_gradient.end());
  v.insert(v.end(), ev.inequality.begin(), ev.inequality.end());
  for (const auto& row : ev.inequality_gradients) v.insert(v.end(), row.begin(), row.end());
  v.insert(v.end(), ev.equality.begin(), ev.equality.end());
  for (const auto& row : ev.equality_gradients) v.insert(v.end(), row.begin(), row.end());
  return v;
}

HistoryEntry unpack(const std::vector<double>& v, size_t n, size_t mi, size_t me) {
  HistoryEntry e;
  size_t k = 0;
  auto take = [&](size_t count) {
    std::vector<double> out(v.begin() + static_cast<std::ptrdiff_t>(k),
                            v.begin() + static_cast<std::ptrdiff_t>(k + count));
    k += count;
    return out;
  };
  e.failed = v.at(k++) != 0.0;
  e.x = take(n);
  if (e.failed) return e;
  Evaluation& ev = e.values;
  ev.objective = v.at(k++);
  ev.objective_gradient = take(n);
  ev.inequality = take(mi);
  for (size_t i = 0; i < mi; ++i) ev.inequality_gradients.push_back(take(n));
  ev.equality = take(me);
  for (size_t j = 0; j < me; ++j) ev.equality_gradients.push_back(take(n));
  return e;
}

bool same_point(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Checks sizes (a programming error: throws) and finiteness (a failed
// evaluation: returns the reason, or "" when fine).
std::string check_evaluation(const Evaluation& ev, size_t n, size_t mi, size_t me) {
  CAMBER_REQUIRE(ev.objective_gradient.size() == n,
                 "the evaluation callback returned an objective gradient of "
                     << ev.objective_gradient.size() << " values; expected " << n);
  CAMBER_REQUIRE(ev.inequality.size() == mi && ev.inequality_gradients.size() == mi,
                 "the evaluation callback returned " << ev.inequality.size()
                     << " inequality constraints and " << ev.inequality_gradients.size()
                     << " gradients; the problem declares " << mi);
  CAMBER_REQUIRE(ev.equality.size() == me && ev.equality_gradients.size() == me,
                 "the evaluation callback returned " << ev.equality.size()
                     << " equality constraints and " << ev.equality_gradients.size()
                     << " gradients; the problem declares " << me);
  for (const auto& row : ev.inequality_gradients)
    CAMBER_REQUIRE(row.size() == n, "an inequality constraint gradient has "
                                        << row.size() << " values; expected " << n);
  for (const auto& row : ev.equality_gradients)
    CAMBER_REQUIRE(row.size() == n, "an equality constraint gradient has "
                                        << row.size() << " values; expected " << n);
  auto all_finite = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double d) { return std::isfinite(d); });
  };
  if (!std::isfinite(ev.objective) || !all_finite(ev.objective_gradient))
    return "non-finite objective or objective gradient";
  if (!all_finite(ev.inequality) || !all_finite(ev.equality))
    return "non-finite constraint value";
  for (const auto& row : ev.inequality_gradients)
    if (!all_finite(row)) return "non-finite constraint gradient";
  for (const auto& row : ev.equality_gradients)
    if (!all_finite(row)) return "non-finite constraint gradient";
  return "";
}

HistoryEntry share(const HistoryEntry& e, std::size_t n, std::size_t mi, std::size_t me,
                   MPI_Comm comm) {
  std::vector<double> packed = pack(e);
  bcast_doubles(packed, comm);
  std::string failure = e.failure;
  bcast_string(failure, 0, comm);
  HistoryEntry shared = unpack(packed, n, mi, me);
  shared.failure = failure;
  return shared;
}

HistoryEntry evaluate_agreed(const Problem& p_, const std::vector<double>& x, MPI_Comm comm_,
                             double timeout_seconds, bool* peers_gone) {
  const std::size_t n_ = p_.x0.size(), mi_ = static_cast<std::size_t>(p_.n_inequality),
                    me_ = static_cast<std::size_t>(p_.n_equality);
    HistoryEntry entry;
    entry.x = x;
    std::string why;
    const int failing = agreed(comm_, timeout_seconds, [&] {
      try {
        entry.values = p_.evaluate(x);
        why = check_evaluation(entry.values, n_, mi_, me_);
      } catch (const EvaluationFailed& e) {
        why = e.message().empty() ? "evaluation failed" : e.message();
      }
      return why;
    }, peers_gone);
    const int size = comm_size(comm_);
    if (failing < size) {
      bcast_string(why, failing, comm_);
      entry.failed = true;
      entry.failure = size > 1 ? "rank " + std::to_string(failing) + ": " + why : why;
      entry.values = Evaluation{};
    }
    return entry;
  }

int agreed(MPI_Comm comm_, double timeout_seconds, const std::function<std::string()>& body,
           bool* peers_gone) {
  const int rank_ = comm_rank(comm_);
    const int size = comm_size(comm_);
    int local[2] = {size, size};  // lowest rank with an error, with a failure
    std::exception_ptr error;
    std::string what;
    try {
      what = body();
      if (!what.empty()) local[1] = rank_;
    } catch (const std::exception& e) {
      error = std::current_exception();
      what = e.what();
      local[0] = rank_;
    } catch (...) {
      what = "unknown exception (not a std::exception) in an optimizer callback";
      error = std::make_exception_ptr(Error(ErrorKind::failure, what));
      local[0] = rank_;
    }
    int global[2] = {size, size};
    MPI_Request request = MPI_REQUEST_NULL;
    CAMBER_CHECK_MPI(MPI_Iallreduce(local, global, 2, MPI_INT, MPI_MIN, comm_, &request));
    if (size > 1 && (local[0] < size || local[1] < size)) {
      const auto start = std::chrono::steady_clock::now();
      for (;;) {
        int done = 0;
        CAMBER_CHECK_MPI(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
        if (done) break;
        const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
        if (waited.count() > timeout_seconds) {
          // One write: std::cerr flushes after every <<, and mpirun relays
          // each piece on its own, so its abort banner could land inside
          // the line.
          std::ostringstream line;
          line << "camber: error on rank " << rank_ << ": " << what
               << "\ncamber: the other ranks did not reach the optimizer within "
               << timeout_seconds
               << " s (they wait in the evaluation's own communication); ending the job\n";
          const std::string text = line.str();
          std::fwrite(text.data(), 1, text.size(), stderr);
          std::fflush(stderr);
          MPI_Abort(comm_, 1);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    } else {
      CAMBER_CHECK_MPI(MPI_Wait(&request, MPI_STATUS_IGNORE));
    }
    if (global[0] < size) {
      if (peers_gone) *peers_gone = true;  // every rank throws now: nobody listens any more
      collective_guard(comm_, [&] {
        if (rank_ == global[0]) std::rethrow_exception(error);
      });
    }
    return global[1];
  }


}  // namespace camber::opt::detail
