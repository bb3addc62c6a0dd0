#include <camber/nn/serve/server.hpp>

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>

#include <nlohmann/json.hpp>

#include <camber/core/error.hpp>
#include <camber/nn/serve/batcher.hpp>
#include <camber/nn/serve/request.hpp>

namespace camber::nn::serve {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

ColumnSchema schema_of(const Columns& c) { return {c.names, c.units}; }

json columns_json(const Columns& c, const Normalization& n) {
  json a = json::array();
  for (size_t k = 0; k < c.names.size(); ++k)
    a.push_back({{"name", c.names[k]}, {"unit", c.units[k]}, {"mean", n.mean[k]}, {"std", n.stddev[k]}});
  return a;
}

const char* json_type = "application/json";

// The metrics label of a path: the known endpoints, or "other".
std::string path_label(const std::string& path) {
  for (const char* p : {"/predict", "/health", "/model", "/metrics"})
    if (path == p) return p;
  return "other";
}

// cpp-httplib 0.11 listens with a backlog of 5 (compiled into Debian's
// library): a burst of more simultaneous connections overflows the accept
// queue and some clients get no answer. Linux takes a second listen() on
// a listening socket as a new backlog, so find ours (listening, bound to
// `port`) and raise it.
void raise_listen_backlog(int port) {
  for (int fd = 0; fd < 4096; ++fd) {
    int listening = 0;
    socklen_t len = sizeof(listening);
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening == 0) continue;
    sockaddr_storage addr{};
    socklen_t alen = sizeof(addr);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &alen) != 0) continue;
    int bound = -1;
    if (addr.ss_family == AF_INET) bound = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    if (addr.ss_family == AF_INET6) bound = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
    if (bound == port) ::listen(fd, 1024);
  }
}

}  // namespace

// One model as served: its columns, card, and batcher. Replaced whole on a
// reload; a request holds the one it started with.
struct Served {
  explicit Served(io::Model m) : model(std::move(m)) {}
  io::Model model;
  ColumnSchema inputs, outputs;
  std::string model_json;
  std::unique_ptr<Batcher> batcher;
};

// Token buckets, one per token name: `rate` per second up to `burst`.
class RateLimiter {
 public:
  RateLimiter(double rate, double burst) : rate_(rate), burst_(burst) {}
  /// 0 when a request may pass now (and takes one), else the seconds
  /// until one may.
  double take(const std::string& who) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Clock::time_point now = Clock::now();
    auto [it, fresh] = buckets_.try_emplace(who, Bucket{burst_, now});
    Bucket& b = it->second;
    if (!fresh)
      b.level = std::min(burst_, b.level + rate_ * std::chrono::duration<double>(now - b.last).count());
    b.last = now;
    if (b.level >= 1.0) {
      b.level -= 1.0;
      return 0.0;
    }
    return (1.0 - b.level) / rate_;
  }

 private:
  struct Bucket {
    double level;
    Clock::time_point last;
  };
  double rate_, burst_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

struct InferenceServer::Impl {
  ServeOptions options;
  Metrics metrics;
  std::unique_ptr<RateLimiter> limiter;
  mutable std::mutex served_mutex;
  std::shared_ptr<Served> served;
  std::unique_ptr<httplib::Server> server;
  httplib::Server& http;
  std::atomic<bool> bound{false};
  int port = -1;

  Impl(io::Model m, ServeOptions o)
      : options(std::move(o)), server(make_server(options)), http(*server) {
    CAMBER_INPUT_REQUIRE(options.threads > 0 && options.max_batch_rows > 0 &&
                             options.max_rows_per_request > 0 && options.max_body_bytes > 0 &&
                             options.read_timeout_s > 0,
                         "serve: threads, batch rows, rows per request, body size and read "
                         "timeout must be positive");
    CAMBER_INPUT_REQUIRE(options.rate_per_token >= 0.0 && options.rate_burst >= 0.0,
                         "serve: the rate limit and its burst must be >= 0");
    CAMBER_INPUT_REQUIRE(options.rate_per_token == 0.0 || !options.tokens.empty(),
                         "serve: a rate limit per token needs bearer tokens (--tokens)");
    if (options.rate_per_token > 0.0)
      limiter = std::make_unique<RateLimiter>(
          options.rate_per_token,
          options.rate_burst > 0.0 ? options.rate_burst : std::max(1.0, options.rate_per_token));
    served = make_served(std::move(m));
    routes();
  }

  std::shared_ptr<Served> current() const {
    std::lock_guard<std::mutex> lock(served_mutex);
    return served;
  }

  std::shared_ptr<Served> make_served(io::Model m) {
    auto out = std::make_shared<Served>(std::move(m));
    const Surrogate& s = out->model.surrogate;
    out->inputs = schema_of(s.inputs());
    out->outputs = schema_of(s.outputs());
    const io::ModelCard& c = out->model.card;
    json card = {{"network", s.network().describe()},
                 {"parameters", s.network().num_parameters()},
                 {"dtype", dtype_name(s.spec().dtype)},
                 {"inputs", columns_json(s.inputs(), s.input_stats())},
                 {"outputs", columns_json(s.outputs(), s.output_stats())},
                 {"model_sha256", out->model.sha256},
                 {"data_path", c.data_path},
                 {"data_sha256", c.data_sha256},
                 {"data_rows", c.data_rows},
                 {"epochs", c.epochs},
                 {"validation_rows", c.validation_rows},
                 {"validation_rmse", c.validation_rmse},
                 {"created", c.created},
                 {"camber_version", c.camber_version},
                 {"git_revision", c.git_revision}};
    out->model_json = card.dump(-1, ' ', false, json::error_handler_t::replace);
    const index_t n_in = s.spec().in;
    Served* raw = out.get();
    out->batcher = std::make_unique<Batcher>(
        [raw, n_in](const std::vector<double>& x, std::size_t n) {
          return raw->model.surrogate.predict(Tensor::from_host({static_cast<index_t>(n), n_in}, x))
              .to_vector();
        },
        options.max_batch_rows, options.max_wait, &metrics, [this] { return metrics.in_flight(); });
    // Warm-up: one prediction at the inputs' means (allocations, the
    // inference plan's first use) before the model answers anyone.
    (void)s.predict(Tensor::from_host({1, n_in}, s.input_stats().mean));
    return out;
  }

  static std::unique_ptr<httplib::Server> make_server(const ServeOptions& o) {
    CAMBER_INPUT_REQUIRE(o.tls_cert.empty() == o.tls_key.empty(),
                         "serve: TLS needs both a certificate and a private key");
    if (o.tls_cert.empty()) return std::make_unique<httplib::Server>();
    auto tls = std::make_unique<httplib::SSLServer>(o.tls_cert.c_str(), o.tls_key.c_str());
    CAMBER_INPUT_REQUIRE(tls->is_valid(), "serve: cannot use the TLS certificate '"
                                              << o.tls_cert << "' with the key '" << o.tls_key
                                              << "' (missing, not PEM, or not a pair)");
    return tls;
  }

  void reply_error(httplib::Response& res, int status, const std::string& message) {
    res.status = status;
    res.set_content(format_error(message), json_type);
  }

  void routes() {
    const int threads = options.threads;
    http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
    http.set_payload_max_length(options.max_body_bytes);
    http.set_read_timeout(options.read_timeout_s, 0);
    http.set_write_timeout(options.read_timeout_s, 0);
    http.set_keep_alive_timeout(options.keep_alive_timeout_s);
    // httplib closes a keep-alive connection after 5 requests by default; a
    // client that sends its next request as the close arrives gets no
    // answer (seen under load). Connections end on the idle timeout instead.
    http.set_keep_alive_max_count(100000);
    // Small answers: without TCP_NODELAY, Nagle's algorithm and delayed ACKs
    // hold each one back by tens of milliseconds.
    http.set_tcp_nodelay(true);

    // Bearer tokens before any route (GET /health stays open, for load
    // balancers).
    if (!options.tokens.empty())
      http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        if (req.method == "GET" && req.path == "/health") return httplib::Server::HandlerResponse::Unhandled;
        std::string who;
        switch (options.tokens.check(req.get_header_value("Authorization"), &who)) {
          case TokenStore::Verdict::ok: {
            const double wait = limiter ? limiter->take(who) : 0.0;
            if (wait <= 0.0) return httplib::Server::HandlerResponse::Unhandled;
            res.set_header("Retry-After", std::to_string(static_cast<long>(std::ceil(wait))));
            std::ostringstream why;
            why << "rate limit of " << options.rate_per_token << " requests/s for token '" << who
                << "' reached; retry in " << std::setprecision(3) << wait << " s";
            reply_error(res, 429, why.str());
            break;
          }
          case TokenStore::Verdict::revoked:
            reply_error(res, 403, "the bearer token was revoked");
            break;
          case TokenStore::Verdict::unknown:
            res.set_header("WWW-Authenticate", "Bearer realm=\"camber\", error=\"invalid_token\"");
            reply_error(res, 401, "the bearer token is not known");
            break;
          case TokenStore::Verdict::missing:
            res.set_header("WWW-Authenticate", "Bearer realm=\"camber\"");
            reply_error(res, 401, "a bearer token is required (Authorization: Bearer <token>)");
            break;
        }
        return httplib::Server::HandlerResponse::Handled;
      });

    http.Post("/predict", [this](const httplib::Request& req, httplib::Response& res) {
      const auto t0 = Clock::now();
      metrics.request_started();
      try {
        const std::shared_ptr<Served> s = current();  // kept to the end, across a reload
        const PredictRequest r = parse_predict_request(req.body, s->inputs, options.max_rows_per_request);
        const std::vector<double> y = s->batcher->predict(r.rows, r.n_rows);
        res.set_content(format_predict_response(y, r.n_rows, s->outputs, r.single), json_type);
      } catch (const RequestError& e) {
        reply_error(res, e.status(), e.what());
      } catch (const std::exception& e) {
        reply_error(res, 500, std::string("prediction failed: ") + e.what());
      }
      metrics.request_done(std::chrono::duration<double>(Clock::now() - t0).count());
    });
    http.Get("/health", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("{\"status\":\"ok\"}", json_type);
    });
    http.Get("/model", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(current()->model_json, json_type);
    });
    http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(metrics.prometheus_text(), "text/plain; version=0.0.4");
    });
    // Answers the library made itself (404, 413, 400 on a bad request line)
    // get a JSON body too.
    http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      std::string why = "error";
      if (res.status == 404) why = "no endpoint " + req.method + " " + req.path +
                                   " (POST /predict, GET /health, /model, /metrics)";
      else if (res.status == 413) why = "request body over the " +
                                        std::to_string(options.max_body_bytes) + "-byte limit";
      else if (res.status == 400) why = "bad request";
      res.set_content(format_error(why), json_type);
    });
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      metrics.count(path_label(req.path), res.status);
    });
  }
};

InferenceServer::InferenceServer(io::Model model, ServeOptions options)
    : impl_(std::make_unique<Impl>(std::move(model), std::move(options))) {}

InferenceServer::~InferenceServer() { stop(); }

int InferenceServer::bind() {
  if (impl_->bound) return impl_->port;
  const ServeOptions& o = impl_->options;
  if (o.port == 0) {
    impl_->port = impl_->http.bind_to_any_port(o.host);
  } else {
    impl_->port = impl_->http.bind_to_port(o.host, o.port) ? o.port : -1;
  }
  CAMBER_INPUT_REQUIRE(impl_->port > 0, "serve: cannot listen on " << o.host << ":" << o.port
                                                                    << " (in use, or not an "
                                                                       "address of this machine?)");
  raise_listen_backlog(impl_->port);
  impl_->bound = true;
  return impl_->port;
}

void InferenceServer::run() {
  bind();
  impl_->http.listen_after_bind();
}

void InferenceServer::stop() {
  if (impl_) impl_->http.stop();
}

const Metrics& InferenceServer::metrics() const { return impl_->metrics; }

std::string InferenceServer::model_json() const { return impl_->current()->model_json; }

void InferenceServer::replace_model(io::Model model) {
  std::shared_ptr<Served> next = impl_->make_served(std::move(model));
  std::shared_ptr<Served> old;
  {
    std::lock_guard<std::mutex> lock(impl_->served_mutex);
    old = std::move(impl_->served);
    impl_->served = std::move(next);
  }
  // `old` goes with the last request that holds it (its batcher evaluates
  // what is queued first).
}

std::string InferenceServer::model_sha256() const { return impl_->current()->model.sha256; }

}  // namespace camber::nn::serve
