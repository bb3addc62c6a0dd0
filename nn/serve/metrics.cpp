#include <camber/nn/serve/metrics.hpp>

#include <cmath>
#include <cstdio>

namespace camber::nn::serve {

namespace {

std::string number(double v) {
  if (std::isinf(v)) return "+Inf";
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

}  // namespace

Metrics::Metrics() {
  latency_.bounds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5};
  latency_.counts.assign(latency_.bounds.size() + 1, 0);
  batch_rows_.bounds = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  batch_rows_.counts.assign(batch_rows_.bounds.size() + 1, 0);
}

void Metrics::Histogram::observe(double v) {
  std::size_t k = 0;
  while (k < bounds.size() && v > bounds[k]) ++k;
  ++counts[k];
  sum += v;
  ++count;
}

void Metrics::Histogram::print(std::string& out, const std::string& name) const {
  std::uint64_t cumulative = 0;
  for (std::size_t k = 0; k <= bounds.size(); ++k) {
    cumulative += counts[k];
    out += name + "_bucket{le=\"" + number(k < bounds.size() ? bounds[k] : INFINITY) + "\"} " +
           std::to_string(cumulative) + "\n";
  }
  out += name + "_sum " + number(sum) + "\n" + name + "_count " + std::to_string(count) + "\n";
}

void Metrics::request_started() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++in_flight_;
}

void Metrics::request_done(double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  --in_flight_;
  latency_.observe(seconds);
}

void Metrics::count(const std::string& path, int status) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{path, status}];
  if (status >= 400) ++errors_;
}

void Metrics::batch(std::size_t rows) {
  std::lock_guard<std::mutex> lock(mutex_);
  rows_ += rows;
  batch_rows_.observe(static_cast<double>(rows));
}

std::uint64_t Metrics::requests(const std::string& path, int status) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = requests_.find({path, status});
  return it == requests_.end() ? 0 : it->second;
}

long Metrics::in_flight() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_flight_;
}

std::uint64_t Metrics::errors() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return errors_;
}

std::string Metrics::prometheus_text() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  out += "# HELP camber_requests_total Requests answered, by path and HTTP status.\n"
         "# TYPE camber_requests_total counter\n";
  for (const auto& [key, n] : requests_)
    out += "camber_requests_total{path=\"" + key.first + "\",code=\"" + std::to_string(key.second) +
           "\"} " + std::to_string(n) + "\n";
  out += "# HELP camber_request_errors_total Answers with status 400 or above.\n"
         "# TYPE camber_request_errors_total counter\n"
         "camber_request_errors_total " + std::to_string(errors_) + "\n";
  out += "# HELP camber_request_duration_seconds Time from request to answer.\n"
         "# TYPE camber_request_duration_seconds histogram\n";
  latency_.print(out, "camber_request_duration_seconds");
  out += "# HELP camber_batch_rows Rows per network evaluation (requests batched together).\n"
         "# TYPE camber_batch_rows histogram\n";
  batch_rows_.print(out, "camber_batch_rows");
  out += "# HELP camber_predicted_rows_total Rows predicted.\n"
         "# TYPE camber_predicted_rows_total counter\n"
         "camber_predicted_rows_total " + std::to_string(rows_) + "\n";
  out += "# HELP camber_in_flight_requests Requests being handled.\n"
         "# TYPE camber_in_flight_requests gauge\n"
         "camber_in_flight_requests " + std::to_string(in_flight_) + "\n";
  return out;
}

}  // namespace camber::nn::serve
