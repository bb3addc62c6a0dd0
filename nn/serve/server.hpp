/// @file
/// camber::nn::serve::InferenceServer: trained models behind HTTP/JSON
/// (cpp-httplib and nlohmann/json, Debian's libcpp-httplib-dev and
/// nlohmann-json3-dev). What `camber serve` runs.
///
/// Several models, each under a name and a version, in the KServe / Triton
/// v2 inference protocol (inference_protocol.hpp for the JSON):
///
///   POST /v2/models/{name}[/versions/{v}]/infer    predictions
///   GET  /v2/models/{name}[/versions/{v}]          metadata: versions, tensors
///   GET  /v2/models/{name}[/versions/{v}]/ready    {"name", "ready": true}
///   GET  /v2/models/{name}[/versions/{v}]/card     the model card (Camber's)
///   GET  /v2/health/live, /v2/health/ready, /v2    server health and metadata
///
/// Without a version, a name means the first model given under that name.
/// The first model also answers Camber's own endpoints:
///
///   POST /predict   {"inputs": {...} | [{...}, ...], "units": {...}}  (request.hpp)
///   GET  /health    {"status": "ok"}
///   GET  /model     the model card as JSON
///   GET  /metrics   Prometheus text, per model and version too (metrics.hpp)
///
/// With ServeOptions::tls_cert and tls_key the server speaks HTTPS (TLS
/// 1.2 or later, OpenSSL); with ServeOptions::tokens every
/// endpoint but /health needs a bearer token in exactly one Authorization
/// header (401 without a good one, with two, or with a malformed one; 403
/// with a revoked one; all JSON).
///
/// A row the model refuses is 422 with the row, the column and the
/// reason in the error (io::PredictionCheck, the same check `camber infer`
/// makes): an input outside the model card's training range under
/// extrapolation: refuse (naming the input, its value and the range), and
/// an output that is not finite (never a 200 with nulls).
///
/// Requests to one model arriving together are batched into one network
/// call (batcher.hpp, one per model:
/// up to max_batch_rows rows, waiting at most max_wait). Every 4xx and 5xx
/// answer carries {"error": "..."} (quoting at most 64 bytes of any one
/// input); a malformed request never stops the server. Bodies over
/// max_body_bytes get 413, in any transfer encoding (the rest of the body
/// read and dropped, up to 4 times the limit; a longer one closes the
/// connection, and a longer Content-Length is refused unread); a client
/// that stops sending is dropped after read_timeout, one that sends
/// slowly after request_timeout (the whole request and its answer), a TLS
/// handshake after handshake_timeout; each connection has a thread of its
/// own, up to max_connections and max_connections_per_peer from one
/// address, so slow clients do not hold up others (detail/connections.hpp).
/// Pipelined requests are answered in order. A connection is closed
/// after any answer that leaves a body, or the rest of a request, unread in
/// it (so that no body is ever read as a request), and a request with a
/// body shows its bearer token once the body is read. stop() (from another
/// thread, e.g. on SIGTERM) stops accepting, lets the requests in flight
/// finish, and makes run() return.
///
/// @code
///   serve::InferenceServer server({{"naca", "1", nn::io::load_model("naca.h5")},
///                                  {"wing", "3", nn::io::load_model("wing.h5")}}, {});
///   const int port = server.bind();      // options.port, or any free one if 0
///   std::thread t([&] { server.run(); });
///   ...
///   server.stop();
///   t.join();
/// @endcode
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <camber/nn/io/model_file.hpp>
#include <camber/nn/serve/auth.hpp>
#include <camber/nn/serve/metrics.hpp>

namespace camber::nn::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  ///< 0: any free port (bind() returns it)
  /// Connections open at once (each is served by a thread of its own), and
  /// from one address; past either a connection is closed at once (plain
  /// HTTP: after a 503 with a JSON body).
  int max_connections = 1024;
  int max_connections_per_peer = 64;
  std::size_t max_batch_rows = 256;
  std::chrono::microseconds max_wait{1000};
  std::size_t max_rows_per_request = 10000;
  std::size_t max_body_bytes = std::size_t{1} << 20;
  /// Each wait for the next bytes of a request, or to write an answer.
  int read_timeout_s = 5;
  /// A whole request, from its first byte to its answer's last: a client
  /// that sends slowly enough to pass read_timeout_s is dropped here.
  int request_timeout_s = 30;
  /// A whole TLS handshake.
  int handshake_timeout_s = 10;
  /// Idle between requests on a keep-alive connection.
  int keep_alive_timeout_s = 2;
  /// TLS: the server's certificate chain and private key (PEM). Both or
  /// neither; with them the server speaks HTTPS only.
  std::string tls_cert, tls_key;
  /// Bearer tokens (auth.hpp). Not empty: every endpoint but GET /health
  /// needs `Authorization: Bearer <token>`; none or an unknown one is 401,
  /// a revoked one 403, each with a JSON body.
  TokenStore tokens;
  /// > 0 (needs tokens): each token may make this many requests per second
  /// on average, in bursts of up to rate_burst (default: the rate, at
  /// least 1); beyond it the answer is 429 with Retry-After and a JSON
  /// error. GET /health is not counted.
  double rate_per_token = 0.0;
  double rate_burst = 0.0;
};

/// A model as the server names it.
struct NamedModel {
  /// Letters, digits, '_', '-', '.'; 1 to 64 characters, not starting
  /// with '.' (a registry name).
  std::string name;
  std::string version;  ///< 1 to 18 digits (a registry version)
  io::Model model;
};

class InferenceServer {
 public:
  /// bad_input for an invalid name or version, or a name and version
  /// given twice.
  InferenceServer(std::vector<NamedModel> models, ServeOptions options);
  /// One model, named "model", version "1".
  InferenceServer(io::Model model, ServeOptions options);
  ~InferenceServer();
  InferenceServer(const InferenceServer&) = delete;
  InferenceServer& operator=(const InferenceServer&) = delete;

  /// Binds the listening socket; the port bound. Throws camber::Error if
  /// the address cannot be bound.
  int bind();
  /// Serves until stop(); binds first if bind() was not called.
  void run();
  /// Thread-safe; requests in flight finish first.
  void stop();

  const Metrics& metrics() const;
  /// The JSON of GET /model (the first model's card).
  std::string model_json() const;
  /// Serves `model` as `version` in place of the `index`-th model given
  /// (hot reload): it is warmed up (one prediction) before it takes over,
  /// requests that already hold the old version finish on it, and no
  /// request fails. Thread-safe.
  void replace_model(std::size_t index, const std::string& version, io::Model model);
  /// Checks `tokens` from now on (a token added or revoked in the file
  /// takes effect without a restart); bad_input on a server started
  /// without tokens. Thread-safe.
  void replace_tokens(TokenStore tokens);
  /// The SHA-256 of the `index`-th model's file (its header's).
  std::string model_sha256(std::size_t index = 0) const;
  /// The version the `index`-th model serves now.
  std::string model_version(std::size_t index = 0) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace camber::nn::serve
