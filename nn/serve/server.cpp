#include <camber/nn/serve/server.hpp>

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include <camber/core/error.hpp>
#include <camber/core/version.hpp>
#include <camber/nn/io/prediction_check.hpp>
#include <camber/nn/serve/batcher.hpp>
#include <camber/nn/serve/inference_protocol.hpp>
#include <camber/nn/serve/request.hpp>

#include "detail/connections.hpp"

namespace camber::nn::serve {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

ColumnSchema schema_of(const Columns& c) { return {c.names, c.units}; }

// A row the model refuses (an input outside its training range or not
// finite, an output not finite) is the request's fault, not the server's:
// 422, never a 200 with nulls in it.
void refuse(const std::optional<io::PredictionFault>& fault) {
  if (fault) throw RequestError(422, fault->message);
}

json columns_json(const Columns& c, const Normalization& n) {
  json a = json::array();
  for (size_t k = 0; k < c.names.size(); ++k)
    a.push_back({{"name", c.names[k]}, {"unit", c.units[k]}, {"mean", n.mean[k]}, {"std", n.stddev[k]}});
  return a;
}

const char* json_type = "application/json";

// The metrics label of a path: the known endpoints (model names and
// versions left out: they have their own series), or "other".
std::string path_label(const std::string& path) {
  for (const char* p : {"/predict", "/health", "/model", "/metrics", "/v2", "/v2/health/live",
                        "/v2/health/ready"})
    if (path == p) return p;
  const std::string models = "/v2/models/";
  if (path.compare(0, models.size(), models) != 0) return "other";
  for (const char* end : {"/infer", "/ready", "/card"}) {
    const std::string e(end);
    if (path.size() > models.size() + e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0)
      return "/v2/models/{name}" + e;
  }
  return "/v2/models/{name}";
}

bool valid_name(const std::string& n) {
  if (n.empty() || n.size() > 64 || n[0] == '.') return false;
  for (char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  return true;
}

bool valid_version(const std::string& v) {
  if (v.empty() || v.size() > 18) return false;
  for (char c : v)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// The routes' name and optional version, as the names above allow.
const std::string model_route = R"(/v2/models/([A-Za-z0-9_.\-]{1,64})(?:/versions/([0-9]{1,18}))?)";

// Whether a request says it carries a body (its length, or a transfer
// encoding). One without either has none.
bool has_body(const httplib::Request& req) {
  return req.has_header("Transfer-Encoding") ||
         (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0");
}

// The methods whose bodies cpp-httplib reads (and this server reads under
// its limit); it leaves the body of any other in the connection.
bool reads_body(const httplib::Request& req) {
  return req.method == "POST" || req.method == "PUT" || req.method == "PATCH" || req.method == "DELETE";
}

// Why a request's body cannot be delimited unambiguously (a front proxy
// could read it otherwise than this server, and take what this server
// answers for one request as the answer to the next: request
// smuggling), as {status, message}; {0, ""} when it can.
std::pair<int, std::string> framing_fault(const httplib::Request& req) {
  const std::size_t lengths = req.get_header_value_count("Content-Length");
  const std::size_t encodings = req.get_header_value_count("Transfer-Encoding");
  if (lengths > 1) return {400, "more than one Content-Length header"};
  if (encodings > 1) return {501, "more than one Transfer-Encoding header (chunked alone is supported)"};
  if (lengths == 1 && encodings == 1) return {400, "both Content-Length and Transfer-Encoding"};
  if (lengths == 1) {
    const std::string n = req.headers.find("Content-Length")->second;
    if (n.empty() || n.size() > 18 ||
        !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return {400, "Content-Length '" + excerpt(n) + "' is not a byte count"};
  }
  if (encodings == 1) {
    std::string te = req.headers.find("Transfer-Encoding")->second;
    std::transform(te.begin(), te.end(), te.begin(), [](unsigned char c) { return std::tolower(c); });
    if (te != "chunked")
      return {501, "Transfer-Encoding '" + excerpt(te) + "' is not supported (chunked alone is)"};
  }
  if (has_body(req) && !reads_body(req)) return {400, "a " + req.method + " request carries no body"};
  return {0, ""};
}

// The connection closes once this answer is written (and says so).
void close_after(httplib::Response& res) {
  res.headers.erase("Keep-Alive");
  res.headers.erase("Connection");
  res.set_header("Connection", "close");
  detail::Connections::close_after_answer();
}

// A header the server sets on an answer while it is made, and removes
// before it goes out: "unread" once a request's headers were seen, "read"
// once its body was read whole.
const char* body_state = "X-Camber-Request-Body";

void set_body_state(httplib::Response& res, const char* state) {
  res.headers.erase(body_state);
  res.set_header(body_state, state);
}

}  // namespace

// One model as served: its name and version, columns, card, and batcher.
// Replaced whole on a reload; a request holds the one it started with.
struct Served {
  explicit Served(io::Model m) : model(std::move(m)), check(model) {}
  io::Model model;
  io::PredictionCheck check;  ///< what the model accepts and answers
  ModelLabel label;  ///< name and version
  ColumnSchema inputs, outputs;
  std::string model_json;
  std::atomic<long> in_flight{0};  ///< requests holding it
  std::unique_ptr<Batcher> batcher;
};

// Counts a request holding a model while it lives.
struct Holding {
  explicit Holding(Served& s) : served(s) { ++served.in_flight; }
  ~Holding() { --served.in_flight; }
  Holding(const Holding&) = delete;
  Holding& operator=(const Holding&) = delete;
  Served& served;
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
  // The tokens checked now (replace_tokens() swaps them).
  mutable std::mutex tokens_mutex;
  std::shared_ptr<const TokenStore> tokens;
  mutable std::mutex served_mutex;
  std::vector<std::shared_ptr<Served>> served;  ///< in the order given
  std::unique_ptr<detail::Connections> server;
  httplib::Server& http;
  std::atomic<bool> bound{false};
  int port = -1;

  Impl(std::vector<NamedModel> models, ServeOptions o)
      : options(std::move(o)), server(make_server(options)), http(*server) {
    CAMBER_INPUT_REQUIRE(options.max_batch_rows > 0 && options.max_rows_per_request > 0 &&
                             options.max_body_bytes > 0,
                         "serve: batch rows, rows per request and body size must be positive");
    CAMBER_INPUT_REQUIRE(options.rate_per_token >= 0.0 && options.rate_burst >= 0.0,
                         "serve: the rate limit and its burst must be >= 0");
    CAMBER_INPUT_REQUIRE(options.rate_per_token == 0.0 || !options.tokens.empty(),
                         "serve: a rate limit per token needs bearer tokens (--tokens)");
    if (options.rate_per_token > 0.0)
      limiter = std::make_unique<RateLimiter>(
          options.rate_per_token,
          options.rate_burst > 0.0 ? options.rate_burst : std::max(1.0, options.rate_per_token));
    CAMBER_INPUT_REQUIRE(!models.empty(), "serve: no model to serve");
    for (size_t k = 0; k < models.size(); ++k) {
      const NamedModel& m = models[k];
      CAMBER_INPUT_REQUIRE(valid_name(m.name), "serve: '" << m.name
                                                          << "' is no model name (letters, digits, "
                                                             "'_', '-', '.'; 1 to 64, not starting "
                                                             "with '.')");
      CAMBER_INPUT_REQUIRE(valid_version(m.version), "serve: model '" << m.name << "' has version '"
                                                                      << m.version
                                                                      << "' (1 to 18 digits)");
      for (size_t j = 0; j < k; ++j)
        CAMBER_INPUT_REQUIRE(models[j].name != m.name || models[j].version != m.version,
                             "serve: model " << m.name << " version " << m.version
                                             << " is given twice");
    }
    tokens = std::make_shared<const TokenStore>(options.tokens);
    for (NamedModel& m : models) {
      served.push_back(make_served(std::move(m.model), {m.name, m.version}));
      metrics.model_loaded(served.back()->label, true);
    }
    routes();
  }

  // The first model (Camber's own endpoints).
  std::shared_ptr<Served> current() const {
    std::lock_guard<std::mutex> lock(served_mutex);
    return served.front();
  }

  // The model `name` serves as `version` (or first, when empty); null when
  // none.
  std::shared_ptr<Served> find(const std::string& name, const std::string& version) const {
    std::lock_guard<std::mutex> lock(served_mutex);
    for (const auto& s : served)
      if (s->label.model == name && (version.empty() || s->label.version == version)) return s;
    return nullptr;
  }

  std::vector<std::string> versions(const std::string& name) const {
    std::lock_guard<std::mutex> lock(served_mutex);
    std::vector<std::string> out;
    for (const auto& s : served)
      if (s->label.model == name && std::find(out.begin(), out.end(), s->label.version) == out.end())
        out.push_back(s->label.version);
    return out;
  }

  std::string served_list() const {
    std::lock_guard<std::mutex> lock(served_mutex);
    std::string out;
    for (const auto& s : served) out += (out.empty() ? "" : ", ") + s->label.model + "@" + s->label.version;
    return out;
  }

  // The model a /v2/models/... request names, or a 404 saying what is
  // served.
  std::shared_ptr<Served> find_or_404(const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1], version = req.matches.size() > 2 ? req.matches[2].str() : "";
    std::shared_ptr<Served> s = find(name, version);
    if (!s)
      reply_error(res, 404, "no model " + name + (version.empty() ? "" : " version " + version) +
                                " is served (served: " + served_list() + ")");
    return s;
  }

  std::shared_ptr<Served> make_served(io::Model m, ModelLabel label) {
    auto out = std::make_shared<Served>(std::move(m));
    out->label = std::move(label);
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
                 {"input_min", c.input_min},
                 {"input_max", c.input_max},
                 {"extrapolation", std::string(enum_name(io::extrapolation_names, c.extrapolation))},
                 {"extrapolation_margin", c.extrapolation_margin},
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
        options.max_batch_rows, options.max_wait, &metrics,
        [raw] { return raw->in_flight.load(); }, out->label);
    // Warm-up: one prediction at the inputs' means (allocations, the
    // inference plan's first use) before the model answers anyone.
    (void)s.predict(Tensor::from_host({1, n_in}, s.input_stats().mean));
    return out;
  }

  static std::unique_ptr<detail::Connections> make_server(const ServeOptions& o) {
    detail::ConnectionLimits limits;
    limits.read_timeout_s = o.read_timeout_s;
    limits.request_timeout_s = o.request_timeout_s;
    limits.handshake_timeout_s = o.handshake_timeout_s;
    limits.keep_alive_timeout_s = o.keep_alive_timeout_s;
    limits.max_connections = o.max_connections;
    limits.max_connections_per_peer = o.max_connections_per_peer;
    return std::make_unique<detail::Connections>(limits, o.tls_cert, o.tls_key);
  }

  void reply_error(httplib::Response& res, int status, const std::string& message) {
    res.status = status;
    res.set_content(format_error(message), json_type);
  }

  // Answers a prediction of `s` with what `answer` returns, or the error
  // it throws; counted for the server and for the model.
  template <class Answer>
  void predict(Served& s, httplib::Response& res, Answer answer) {
    const auto t0 = Clock::now();
    metrics.request_started();
    int status = 200;
    {
      const Holding holding(s);
      try {
        res.set_content(answer(), json_type);
      } catch (const RequestError& e) {
        status = e.status();
        reply_error(res, status, e.what());
      } catch (const std::exception& e) {
        status = 500;
        reply_error(res, status, std::string("prediction failed: ") + e.what());
      }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    metrics.model_request(s.label, status, seconds);
    metrics.request_done(seconds);
  }

  std::string body_limit_message() const {
    return "request body over the " + std::to_string(options.max_body_bytes) + "-byte limit";
  }

  // Whether the request may go on by its bearer token (always without
  // tokens, and for the health checks); else `res` holds the 401, 403 or
  // 429. One Authorization header, well formed, or 401.
  bool admit(const httplib::Request& req, httplib::Response& res) {
    if (options.tokens.empty()) return true;
    if (req.method == "GET" &&
        (req.path == "/health" || req.path == "/v2/health/live" || req.path == "/v2/health/ready"))
      return true;
    std::string who;
    std::shared_ptr<const TokenStore> store;
    {
      std::lock_guard<std::mutex> lock(tokens_mutex);
      store = tokens;
    }
    const std::size_t headers = req.get_header_value_count("Authorization");
    if (headers > 1) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"camber\", error=\"invalid_request\"");
      reply_error(res, 401, std::to_string(headers) + " Authorization headers; send one");
      return false;
    }
    // The whole value: get_header_value() would stop at a NUL byte.
    const auto it = req.headers.find("Authorization");
    switch (store->check(it == req.headers.end() ? std::string() : it->second, &who)) {
      case TokenStore::Verdict::ok: {
        const double wait = limiter ? limiter->take(who) : 0.0;
        if (wait <= 0.0) return true;
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
      case TokenStore::Verdict::malformed:
        res.set_header("WWW-Authenticate", "Bearer realm=\"camber\", error=\"invalid_request\"");
        reply_error(res, 401, "the Authorization header is not 'Bearer <token>' (a token is letters, "
                              "digits and -._~+/)");
        break;
      case TokenStore::Verdict::missing:
        res.set_header("WWW-Authenticate", "Bearer realm=\"camber\"");
        reply_error(res, 401, "a bearer token is required (Authorization: Bearer <token>)");
        break;
    }
    return false;
  }

  // How much of a body past the limit is read and dropped before the
  // connection is closed instead.
  std::size_t drain_bytes() const { return std::max<std::size_t>(4 * options.max_body_bytes, 4u << 20); }

  // Reads a request's body, in any transfer encoding, into `body`: at
  // most max_body_bytes (a longer one is 413), then checks the bearer
  // token (so that a refused request's body has left the connection).
  // False when `res` holds the answer.
  bool read_body(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader,
                 std::string& body) {
    if (req.is_multipart_form_data()) {  // the reader would want a part handler
      if (admit(req, res)) reply_error(res, 415, "a multipart body is not taken (send JSON)");
      return false;
    }
    // A request without Content-Length or Transfer-Encoding has no body
    // (RFC 9112, 6.3); cpp-httplib would read one until the client closes.
    if (!has_body(req)) {
      set_body_state(res, "read");
      return admit(req, res);
    }
    // Past the limit the rest is read and dropped, up to drain_bytes(), so
    // that a client still sending it reads the 413 (one whose send fails
    // on a closed connection never reads the answer); past that the
    // connection closes.
    bool over = false;
    std::size_t dropped = 0;
    const bool whole = reader([&](const char* data, std::size_t n) {
      if (!over && n <= options.max_body_bytes - body.size()) {
        body.append(data, n);
        return true;
      }
      if (!over) std::string().swap(body);
      over = true;
      dropped += n;
      return dropped <= drain_bytes();
    });
    if (whole) set_body_state(res, "read");
    if (!admit(req, res)) return false;
    if (over) {
      reply_error(res, 413, body_limit_message());
      return false;
    }
    if (!whole) {
      reply_error(res, 400, "the request body did not arrive whole (cut short, or a malformed chunk)");
      return false;
    }
    return true;
  }

  void routes() {
    // Bodies are read by read_body(), which enforces the limit; a
    // Content-Length over max_body_bytes + drain_bytes() is refused before
    // routing. (cpp-httplib would read and drop a longer one whole.)
    http.set_payload_max_length(std::numeric_limits<std::size_t>::max());
    // What the Keep-Alive header of an answer announces (the connections
    // are detail::Connections': no count limit, closed when idle).
    http.set_keep_alive_timeout(options.keep_alive_timeout_s);
    http.set_keep_alive_max_count(100000);

    // Before any route: requests whose body cannot be delimited are
    // refused, a Content-Length too long to drain is refused before the
    // body is read, and a request without a body shows its bearer token
    // (one with a body shows it once the body is read: read_body()).
    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      set_body_state(res, "unread");
      const auto [status, fault] = framing_fault(req);
      if (status != 0) {
        reply_error(res, status, fault);
        return httplib::Server::HandlerResponse::Handled;
      }
      const bool body = has_body(req);
      const bool over = req.has_header("Content-Length") &&
                        req.get_header_value<std::uint64_t>("Content-Length") >
                            options.max_body_bytes + drain_bytes();
      if ((!body || over) && !admit(req, res)) return httplib::Server::HandlerResponse::Handled;
      if (over) {
        reply_error(res, 413, body_limit_message());
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    // After every answer is made: the connection closes when the request's
    // body (or the rest of a request that did not parse) is still in it;
    // otherwise its bytes would be read as the next request.
    http.set_post_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      const std::string state = res.get_header_value(body_state);
      res.headers.erase(body_state);
      if (state == "read" || (state == "unread" && !has_body(req))) return;
      close_after(res);
    });

    http.Post("/predict", [this](const httplib::Request& req, httplib::Response& res,
                                 const httplib::ContentReader& reader) {
      std::string body;
      if (!read_body(req, res, reader, body)) return;
      const std::shared_ptr<Served> s = current();  // kept to the end, across a reload
      predict(*s, res, [&] {
        const PredictRequest r = parse_predict_request(body, s->inputs, options.max_rows_per_request);
        refuse(s->check.inputs(r.rows.data(), r.n_rows));
        const std::vector<double> y = s->batcher->predict(r.rows, r.n_rows);
        refuse(s->check.outputs(y.data(), r.n_rows));
        return format_predict_response(y, r.n_rows, s->outputs, r.single);
      });
    });
    http.Post(model_route + "/infer", [this](const httplib::Request& req, httplib::Response& res,
                                             const httplib::ContentReader& reader) {
      std::string body;
      if (!read_body(req, res, reader, body)) return;
      const std::shared_ptr<Served> s = find_or_404(req, res);
      if (!s) return;
      predict(*s, res, [&] {
        const InferRequest r = parse_infer_request(body, s->inputs, s->outputs,
                                                   options.max_rows_per_request);
        refuse(s->check.inputs(r.rows.data(), r.n_rows));
        const std::vector<double> y = s->batcher->predict(r.rows, r.n_rows);
        refuse(s->check.outputs(y.data(), r.n_rows));
        return format_infer_response(s->label.model, s->label.version, r, y, s->outputs);
      });
    });
    http.Get(model_route, [this](const httplib::Request& req, httplib::Response& res) {
      const std::shared_ptr<Served> s = find_or_404(req, res);
      if (s)
        res.set_content(format_model_metadata(s->label.model, versions(s->label.model), s->inputs,
                                              s->outputs),
                        json_type);
    });
    http.Get(model_route + "/ready", [this](const httplib::Request& req, httplib::Response& res) {
      const std::shared_ptr<Served> s = find_or_404(req, res);
      if (s) res.set_content(json{{"name", s->label.model}, {"ready", true}}.dump(), json_type);
    });
    http.Get(model_route + "/card", [this](const httplib::Request& req, httplib::Response& res) {
      const std::shared_ptr<Served> s = find_or_404(req, res);
      if (s) res.set_content(s->model_json, json_type);
    });
    http.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(json{{"name", "camber"}, {"version", CAMBER_VERSION_STRING}, {"extensions", json::array()}}.dump(),
                      json_type);
    });
    http.Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("{\"live\":true}", json_type);
    });
    // Every model is loaded and warmed up before the port opens.
    http.Get("/v2/health/ready", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("{\"ready\":true}", json_type);
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
    // Any other request with a body: read under the limit (cpp-httplib
    // would read it whole, with no limit for a chunked one), then 404.
    // "[\s\S]*": a decoded path may hold a newline, which '.' skips.
    const auto not_found = [this](const httplib::Request& req, httplib::Response& res,
                                  const httplib::ContentReader& reader) {
      std::string body;
      if (read_body(req, res, reader, body)) res.status = 404;
    };
    const std::string any_path = R"([\s\S]*)";
    http.Post(any_path, not_found);
    http.Put(any_path, not_found);
    http.Patch(any_path, not_found);
    http.Delete(any_path, not_found);
    // Answers the library made itself (404, 413, 400 on a bad request line)
    // get a JSON body too.
    http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      std::string why = "error";
      if (res.status == 404) why = "no endpoint " + req.method + " " + excerpt(req.path) +
                                   " (POST /v2/models/{name}[/versions/{v}]/infer, GET "
                                   "/v2/models/{name}[/versions/{v}][/ready|/card], /v2/health/live, "
                                   "/v2/health/ready; POST /predict, GET /health, /model, /metrics)";
      else if (res.status == 413) why = body_limit_message();
      else if (res.status == 400) why = "bad request";
      res.set_content(format_error(why), json_type);
    });
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      metrics.count(path_label(req.path), res.status);
    });
  }
};

InferenceServer::InferenceServer(std::vector<NamedModel> models, ServeOptions options)
    : impl_(std::make_unique<Impl>(std::move(models), std::move(options))) {}

namespace {
std::vector<NamedModel> one_model(io::Model model) {
  std::vector<NamedModel> v;
  v.push_back({"model", "1", std::move(model)});
  return v;
}
}  // namespace

InferenceServer::InferenceServer(io::Model model, ServeOptions options)
    : InferenceServer(one_model(std::move(model)), std::move(options)) {}

InferenceServer::~InferenceServer() { stop(); }

int InferenceServer::bind() {
  if (impl_->bound) return impl_->port;
  const ServeOptions& o = impl_->options;
  impl_->port = impl_->server->listen_on(o.host, o.port);
  CAMBER_INPUT_REQUIRE(impl_->port > 0, "serve: cannot listen on " << o.host << ":" << o.port
                                                                    << " (in use, or not an "
                                                                       "address of this machine?)");
  impl_->bound = true;
  return impl_->port;
}

void InferenceServer::run() {
  bind();
  impl_->server->serve();
}

void InferenceServer::stop() {
  if (impl_) impl_->server->shut_down();
}

const Metrics& InferenceServer::metrics() const { return impl_->metrics; }

std::string InferenceServer::model_json() const { return impl_->current()->model_json; }

void InferenceServer::replace_model(std::size_t index, const std::string& version, io::Model model) {
  CAMBER_INPUT_REQUIRE(valid_version(version), "serve: version '" << version << "' (1 to 18 digits)");
  std::string name;
  {
    std::lock_guard<std::mutex> lock(impl_->served_mutex);
    CAMBER_INPUT_REQUIRE(index < impl_->served.size(), "serve: no model " << index << " to replace ("
                                                                          << impl_->served.size()
                                                                          << " served)");
    name = impl_->served[index]->label.model;
  }
  std::shared_ptr<Served> next = impl_->make_served(std::move(model), {name, version});
  std::shared_ptr<Served> old;
  {
    std::lock_guard<std::mutex> lock(impl_->served_mutex);
    old = std::move(impl_->served[index]);
    impl_->served[index] = next;
  }
  if (!(old->label.model == next->label.model && old->label.version == next->label.version))
    impl_->metrics.model_loaded(old->label, false);
  impl_->metrics.model_loaded(next->label, true);
  // `old` goes with the last request that holds it (its batcher evaluates
  // what is queued first).
}

void InferenceServer::replace_tokens(TokenStore tokens) {
  CAMBER_INPUT_REQUIRE(!impl_->options.tokens.empty(),
                       "serve: tokens can be replaced only on a server started with tokens");
  auto next = std::make_shared<const TokenStore>(std::move(tokens));
  std::lock_guard<std::mutex> lock(impl_->tokens_mutex);
  impl_->tokens = std::move(next);
}

std::string InferenceServer::model_sha256(std::size_t index) const {
  std::lock_guard<std::mutex> lock(impl_->served_mutex);
  return index < impl_->served.size() ? impl_->served[index]->model.sha256 : "";
}

std::string InferenceServer::model_version(std::size_t index) const {
  std::lock_guard<std::mutex> lock(impl_->served_mutex);
  return index < impl_->served.size() ? impl_->served[index]->label.version : "";
}

}  // namespace camber::nn::serve
