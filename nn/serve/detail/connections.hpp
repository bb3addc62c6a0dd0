// The server's connections: its own listening socket, accept loop, TLS
// handshake and request loop in front of cpp-httplib's request processing
// (private to nn_serve: server.cpp).
//
// cpp-httplib 0.11 (Debian 12's) serves each connection from a fixed pool
// of worker threads and bounds only each wait for the next byte: a client
// that sends one byte of a TLS ClientHello, or of a request, every few
// seconds holds a worker for as long as it likes, and a few dozen such
// clients leave none for anyone else (health checks included). It also
// drops pipelined requests (it looks for the next request on the socket,
// not in what it has read already) and keeps a connection open whatever
// an answer says. So the connections are this class's: each has a thread
// of its own (up to a cap, and a cap per peer address), its TLS handshake
// and each request (line, headers, body and answer) are bounded as a
// whole by time, what was read past one request is the next one's, and an
// answer can close its connection. cpp-httplib still parses each request,
// routes it and writes its answer (Server::process_request, reached as a
// derived class over a Stream of this class's).
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace camber::nn::serve::detail {

struct ConnectionLimits {
  int read_timeout_s = 5;        ///< each wait for bytes of a request, or to write an answer
  int request_timeout_s = 30;    ///< a whole request: its line, headers, body and answer
  int handshake_timeout_s = 10;  ///< a whole TLS handshake
  int keep_alive_timeout_s = 2;  ///< idle between requests
  int max_connections = 1024;    ///< open at once; each holds a thread
  int max_connections_per_peer = 64;  ///< open at once from one address
};

class Connections : public httplib::Server {
 public:
  /// Plain HTTP with `tls_cert` empty, else HTTPS with the certificate
  /// chain and private key (PEM); bad_input naming both if they do not
  /// load or do not match.
  Connections(const ConnectionLimits& limits, const std::string& tls_cert, const std::string& tls_key);
  ~Connections() override;
  Connections(const Connections&) = delete;
  Connections& operator=(const Connections&) = delete;

  /// Listens on `host`:`port` (0: any free port); the port, or -1.
  int listen_on(const std::string& host, int port);
  /// Accepts and serves connections until shut_down(); returns when every
  /// connection has closed (requests in flight finish; idle ones close).
  void serve();
  /// Thread-safe; idempotent.
  void shut_down();

  /// From a handler: the connection closes once this answer is written.
  static void close_after_answer();
  /// Open connections now.
  std::size_t open() const;

 private:
  struct Tls;
  void serve_connection(int fd, const std::string& peer, int peer_port);
  bool admit(const std::string& peer);
  void release_peer(const std::string& peer);
  void release();

  ConnectionLimits limits_;
  Tls* tls_ = nullptr;
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  mutable std::mutex mutex_;
  std::condition_variable closed_;
  std::size_t open_ = 0;
  std::map<std::string, int> per_peer_;
  bool stopping_ = false;
};

}  // namespace camber::nn::serve::detail
