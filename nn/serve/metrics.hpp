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
/// and per model and version (labels model, version) for the requests a
/// model answered:
///
///   camber_model_requests_total{model,version,code}
///   camber_model_request_duration_seconds{model,version}  (histogram)
///   camber_model_batch_rows{model,version}                (histogram)
///   camber_model_predicted_rows_total{model,version}
///   camber_model_loaded{model,version}    1 while that version is served
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

/// The labels of a model's series.
struct ModelLabel {
  std::string model, version;
  bool operator<(const ModelLabel& o) const {
    return model != o.model ? model < o.model : version < o.version;
  }
};

class Metrics {
 public:
  Metrics();
  void request_started();
  void request_done(double seconds);
  void count(const std::string& path, int status);
  /// A network evaluation of `rows` rows (of `model`, when named).
  void batch(std::size_t rows, const ModelLabel& model = {});
  /// A request `model` answered with `status` after `seconds`.
  void model_request(const ModelLabel& model, int status, double seconds);
  /// `model` is served from now on (true) or no more (false).
  void model_loaded(const ModelLabel& model, bool loaded);
  std::string prometheus_text() const;

  // For tests and the load generator's summary.
  std::uint64_t requests(const std::string& path, int status) const;
  std::uint64_t errors() const;
  long in_flight() const;
  std::uint64_t model_requests(const ModelLabel& model, int status) const;

 private:
  struct Histogram {
    std::vector<double> bounds;          ///< upper bounds, ascending (+Inf implied)
    std::vector<std::uint64_t> counts;   ///< per bound, not cumulative; last: +Inf
    double sum = 0.0;
    std::uint64_t count = 0;
    void observe(double v);
    /// `labels`: "" or `a="x",b="y"` (put before le).
    void print(std::string& out, const std::string& name, const std::string& labels = "") const;
  };
  struct PerModel {
    std::map<int, std::uint64_t> requests;  ///< by status
    Histogram latency, batch_rows;
    std::uint64_t rows = 0;
    bool loaded = false;
  };
  PerModel& model(const ModelLabel& m);  ///< with mutex_ held
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;
  std::uint64_t errors_ = 0, rows_ = 0;
  long in_flight_ = 0;
  Histogram latency_, batch_rows_;
  std::map<ModelLabel, PerModel> models_;
};

}  // namespace camber::nn::serve
