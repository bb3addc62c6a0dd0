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

void init_latency(std::vector<double>& bounds, std::vector<std::uint64_t>& counts) {
  bounds = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5};
  counts.assign(bounds.size() + 1, 0);
}

void init_rows(std::vector<double>& bounds, std::vector<std::uint64_t>& counts) {
  bounds = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  counts.assign(bounds.size() + 1, 0);
}

// Prometheus label values escape backslash, double quote and newline.
std::string escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string labels_of(const ModelLabel& m) {
  return "model=\"" + escape(m.model) + "\",version=\"" + escape(m.version) + "\"";
}

}  // namespace

Metrics::Metrics() {
  init_latency(latency_.bounds, latency_.counts);
  init_rows(batch_rows_.bounds, batch_rows_.counts);
}

Metrics::PerModel& Metrics::model(const ModelLabel& m) {
  auto [it, fresh] = models_.try_emplace(m);
  if (fresh) {
    init_latency(it->second.latency.bounds, it->second.latency.counts);
    init_rows(it->second.batch_rows.bounds, it->second.batch_rows.counts);
  }
  return it->second;
}

void Metrics::Histogram::observe(double v) {
  std::size_t k = 0;
  while (k < bounds.size() && v > bounds[k]) ++k;
  ++counts[k];
  sum += v;
  ++count;
}

void Metrics::Histogram::print(std::string& out, const std::string& name,
                               const std::string& labels) const {
  const std::string pre = labels.empty() ? "" : labels + ",";
  const std::string own = labels.empty() ? "" : "{" + labels + "}";
  std::uint64_t cumulative = 0;
  for (std::size_t k = 0; k <= bounds.size(); ++k) {
    cumulative += counts[k];
    out += name + "_bucket{" + pre + "le=\"" + number(k < bounds.size() ? bounds[k] : INFINITY) +
           "\"} " + std::to_string(cumulative) + "\n";
  }
  out += name + "_sum" + own + " " + number(sum) + "\n" + name + "_count" + own + " " +
         std::to_string(count) + "\n";
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

void Metrics::batch(std::size_t rows, const ModelLabel& m) {
  std::lock_guard<std::mutex> lock(mutex_);
  rows_ += rows;
  batch_rows_.observe(static_cast<double>(rows));
  if (m.model.empty()) return;
  PerModel& p = model(m);
  p.rows += rows;
  p.batch_rows.observe(static_cast<double>(rows));
}

void Metrics::model_request(const ModelLabel& m, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  PerModel& p = model(m);
  ++p.requests[status];
  p.latency.observe(seconds);
}

void Metrics::model_loaded(const ModelLabel& m, bool loaded) {
  std::lock_guard<std::mutex> lock(mutex_);
  model(m).loaded = loaded;
}

std::uint64_t Metrics::model_requests(const ModelLabel& m, int status) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = models_.find(m);
  if (it == models_.end()) return 0;
  const auto s = it->second.requests.find(status);
  return s == it->second.requests.end() ? 0 : s->second;
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
  if (models_.empty()) return out;
  out += "# HELP camber_model_loaded 1 while the version is served, 0 after it was replaced.\n"
         "# TYPE camber_model_loaded gauge\n";
  for (const auto& [m, p] : models_)
    out += "camber_model_loaded{" + labels_of(m) + "} " + (p.loaded ? "1" : "0") + "\n";
  out += "# HELP camber_model_requests_total Requests a model answered, by HTTP status.\n"
         "# TYPE camber_model_requests_total counter\n";
  for (const auto& [m, p] : models_)
    for (const auto& [code, n] : p.requests)
      out += "camber_model_requests_total{" + labels_of(m) + ",code=\"" + std::to_string(code) +
             "\"} " + std::to_string(n) + "\n";
  out += "# HELP camber_model_request_duration_seconds Time from request to answer, by model.\n"
         "# TYPE camber_model_request_duration_seconds histogram\n";
  for (const auto& [m, p] : models_) p.latency.print(out, "camber_model_request_duration_seconds", labels_of(m));
  out += "# HELP camber_model_batch_rows Rows per network evaluation, by model.\n"
         "# TYPE camber_model_batch_rows histogram\n";
  for (const auto& [m, p] : models_) p.batch_rows.print(out, "camber_model_batch_rows", labels_of(m));
  out += "# HELP camber_model_predicted_rows_total Rows predicted, by model.\n"
         "# TYPE camber_model_predicted_rows_total counter\n";
  for (const auto& [m, p] : models_)
    out += "camber_model_predicted_rows_total{" + labels_of(m) + "} " + std::to_string(p.rows) + "\n";
  return out;
}

}  // namespace camber::nn::serve
