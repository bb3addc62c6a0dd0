/// @file
/// Dynamic batching for the inference server: requests that arrive close
/// together are evaluated by one network call.
///
/// A request's rows wait in a queue; the worker thread takes the first
/// request, waits at most `max_wait` for more (or until `max_rows` rows are
/// queued), evaluates them together and hands each request its rows of
/// the result. It does not wait when no more can come: given `in_flight`
/// (the requests the server is handling), it stops waiting once every
/// request in flight is queued, so a lone client pays no batching delay.
/// With max_wait = 0 every request is evaluated at once (still one at a
/// time). A request larger than max_rows is evaluated alone.
///
/// @code
///   serve::Batcher b([&](const std::vector<double>& x, std::size_t n) { ... },
///                    64, std::chrono::microseconds(2000), &metrics);
///   std::vector<double> y = b.predict(rows, n);   // blocks; any thread
/// @endcode
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include <camber/nn/serve/metrics.hpp>

namespace camber::nn::serve {

class Batcher {
 public:
  /// rows (row-major, n rows) -> outputs (row-major, n rows).
  using Predict = std::function<std::vector<double>(const std::vector<double>&, std::size_t)>;

  Batcher(Predict predict, std::size_t max_rows, std::chrono::microseconds max_wait,
          Metrics* metrics = nullptr, std::function<long()> in_flight = {},
          ModelLabel label = {});
  /// Evaluates what is queued, then ends the worker.
  ~Batcher();
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  /// Blocks until the rows are evaluated; rethrows the evaluation's error.
  std::vector<double> predict(std::vector<double> rows, std::size_t n);

 private:
  struct Job {
    std::vector<double> rows;
    std::size_t n = 0;
    std::promise<std::vector<double>> result;
  };
  void work();

  Predict predict_;
  std::size_t max_rows_;
  std::chrono::microseconds max_wait_;
  Metrics* metrics_;
  std::function<long()> in_flight_;
  ModelLabel label_;  ///< the metrics' labels of its evaluations
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  std::size_t queued_rows_ = 0;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace camber::nn::serve
