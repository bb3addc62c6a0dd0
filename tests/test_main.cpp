// main() for every GoogleTest executable: starts the Camber runtime (MPI,
// Kokkos) around the tests. Under MPI every rank runs every test; only rank 0
// prints GoogleTest's report, and the exit code is the worst over ranks, so a
// failure on any rank fails the test.
//
// A watchdog: when CAMBER_TEST_WATCHDOG_S is set (CTest sets it a little
// below each test's timeout, cmake/CamberTesting.cmake), a process still
// running at that deadline prints, on every rank, the test it is in and the
// main thread's call stack to stderr, and to a file in
// CAMBER_TEST_WATCHDOG_DIR when that is set (scripts/test.sh prints those
// at the end, also for a test that passed when run again), then goes on
// (CTest's timeout ends it). A rare hang under MPI then shows where each
// rank waits.
#include <gtest/gtest.h>
#include <execinfo.h>
#include <pthread.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <camber/core/runtime.hpp>

namespace {
// On ranks other than 0, print only failed assertions, prefixed with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};

// Filled before the watchdog may fire; read by the signal handler.
int watchdog_rank = 0;
char watchdog_header[512] = {};
int watchdog_file = -1;

// SIGUSR2 on the main thread: its stack, with write(2) and
// backtrace_symbols_fd only (no allocation).
extern "C" void print_main_stack(int) {
  void* frames[64];
  const int depth = ::backtrace(frames, 64);
  for (const int fd : {STDERR_FILENO, watchdog_file}) {
    if (fd < 0) continue;
    ssize_t ignored = ::write(fd, watchdog_header, std::strlen(watchdog_header));
    (void)ignored;
    ::backtrace_symbols_fd(frames, depth, fd);
  }
}

class Watchdog {
 public:
  Watchdog(int rank, double seconds) : main_(pthread_self()) {
    watchdog_rank = rank;
    void* warm[1];
    ::backtrace(warm, 1);  // loads libgcc now, not inside the handler
    std::signal(SIGUSR2, print_main_stack);
    thread_ = std::thread([this, seconds] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (done_cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
        return;
      const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
      std::snprintf(watchdog_header, sizeof watchdog_header,
                    "[rank %d] still running after the watchdog's %.0f s, in %s.%s; main "
                    "thread's stack:\n",
                    watchdog_rank, seconds, test ? test->test_suite_name() : "(no test)",
                    test ? test->name() : "");
      if (const char* dir = std::getenv("CAMBER_TEST_WATCHDOG_DIR")) {
        const std::string path = std::string(dir) + "/" + std::to_string(::getpid()) + ".txt";
        watchdog_file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      }
      pthread_kill(main_, SIGUSR2);
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    done_cv_.notify_one();
    thread_.join();
  }

 private:
  pthread_t main_;
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;
  std::thread thread_;
};
}  // namespace

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (runtime.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(runtime.rank()));
  }
  int local = 0;
  {
    const char* deadline = std::getenv("CAMBER_TEST_WATCHDOG_S");
    const double seconds = deadline ? std::atof(deadline) : 0.0;
    std::unique_ptr<Watchdog> watchdog;
    if (seconds > 0.0) watchdog = std::make_unique<Watchdog>(runtime.rank(), seconds);
    local = RUN_ALL_TESTS();
  }
  int worst = local;
  MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}
