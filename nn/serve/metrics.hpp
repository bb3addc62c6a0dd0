/// @file
/// The inference server's counters, in the Prometheus text exposition
/// format (version 0.0.4) that GET /metrics returns:
///
///   camber_requests_total{path,code}      requests answered, by path and status
///   camber_request_errors_total           answers with status >= 400
///   camber_request_duration_seconds       latency histogram (buckets 0.5 ms .. 2.5 s)
///   camber_batch_rows                     rows per network evaluation (histogram)
///   camber_predicted_rows_total           rows predicted
///   camber_in_flight_requests             requests being handled now
///
/// Every member is thread-safe (one mutex; the counts are tiny next to a
/// request). The server counts every answer (its own and the HTTP
/// library's, e.g. 413 for a body over the limit) in count(), and the
/// latency of the requests its handlers answer in observe_latency().
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace camber::nn::serve {

class Metrics {
 public:
  Metrics();
  void request_started();
  void request_done(double seconds);
  void count(const std::string& path, int status);
  void batch(std::size_t rows);
  std::string prometheus_text() const;

  // For tests and the load generator's summary.
  std::uint64_t requests(const std::string& path, int status) const;
  std::uint64_t errors() const;
  long in_flight() const;

 private:
  struct Histogram {
    std::vector<double> bounds;          ///< upper bounds, ascending (+Inf implied)
    std::vector<std::uint64_t> counts;   ///< per bound, not cumulative; last: +Inf
    double sum = 0.0;
    std::uint64_t count = 0;
    void observe(double v);
    void print(std::string& out, const std::string& name) const;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;
  std::uint64_t errors_ = 0, rows_ = 0;
  long in_flight_ = 0;
  Histogram latency_, batch_rows_;
};

}  // namespace camber::nn::serve
