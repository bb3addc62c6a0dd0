#include <camber/nn/serve/batcher.hpp>

#include <exception>
#include <stdexcept>

namespace camber::nn::serve {

Batcher::Batcher(Predict predict, std::size_t max_rows, std::chrono::microseconds max_wait,
                 Metrics* metrics, std::function<long()> in_flight,
                 ModelLabel label)
    : predict_(std::move(predict)),
      max_rows_(max_rows < 1 ? 1 : max_rows),
      max_wait_(max_wait),
      metrics_(metrics),
      in_flight_(std::move(in_flight)),
      label_(std::move(label)),
      worker_([this] { work(); }) {}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

std::vector<double> Batcher::predict(std::vector<double> rows, std::size_t n) {
  std::future<std::vector<double>> result;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) throw std::runtime_error("the server is shutting down");
    Job job;
    job.rows = std::move(rows);
    job.n = n;
    result = job.result.get_future();
    queue_.push_back(std::move(job));
    queued_rows_ += n;
  }
  cv_.notify_all();
  return result.get();
}

void Batcher::work() {
  for (;;) {
    std::vector<Job> batch;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) return;  // stopping, nothing left
      // Wait for company, up to max_wait or until a full batch is queued.
      const auto deadline = std::chrono::steady_clock::now() + max_wait_;
      cv_.wait_until(lock, deadline, [&] {
        return queued_rows_ >= max_rows_ || stopping_ ||
               (in_flight_ && in_flight_() <= static_cast<long>(queue_.size()));
      });
      std::size_t rows = 0;
      while (!queue_.empty() && (batch.empty() || rows + queue_.front().n <= max_rows_)) {
        rows += queue_.front().n;
        queued_rows_ -= queue_.front().n;
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    std::vector<double> x;
    std::size_t n = 0;
    for (const Job& j : batch) {
      x.insert(x.end(), j.rows.begin(), j.rows.end());
      n += j.n;
    }
    std::vector<double> y;
    try {
      y = predict_(x, n);
    } catch (...) {
      for (Job& j : batch) j.result.set_exception(std::current_exception());
      continue;
    }
    if (metrics_ != nullptr) metrics_->batch(n, label_);
    const std::size_t width = n > 0 ? y.size() / n : 0;
    std::size_t at = 0;
    for (Job& j : batch) {
      j.result.set_value(std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(at * width),
                                             y.begin() + static_cast<std::ptrdiff_t>((at + j.n) * width)));
      at += j.n;
    }
  }
}

}  // namespace camber::nn::serve
