#include "detail/connections.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include <camber/core/error.hpp>

namespace camber::nn::serve::detail {

namespace {

using Clock = std::chrono::steady_clock;

thread_local bool close_requested = false;

int millis_until(Clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(ms, 0, 24LL * 3600 * 1000));
}

// Waits until `fd` has `events` (or `stop_fd`, when given, is readable),
// at most until `until`. True when `fd` is ready.
bool wait_for(int fd, short events, Clock::time_point until, int stop_fd = -1) {
  for (;;) {
    std::array<pollfd, 2> p{pollfd{fd, events, 0}, pollfd{stop_fd, POLLIN, 0}};
    const int n = ::poll(p.data(), stop_fd >= 0 ? 2 : 1, millis_until(until));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (stop_fd >= 0 && (p[1].revents & POLLIN)) return false;
    return (p[0].revents & (events | POLLHUP | POLLERR)) != 0;
  }
}

std::string address_text(const sockaddr_storage& a, int* port) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
    *port = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
    *port = ntohs(v6.sin6_port);
  }
  return text;
}

// A connection as cpp-httplib's request processing reads and writes it:
// buffered (what is read past one request stays for the next), plain or
// TLS, every wait bounded by the read timeout and by the request's
// deadline.
class Channel final : public httplib::Stream {
 public:
  Channel(int fd, SSL* ssl, std::string peer, int peer_port, int timeout_s)
      : fd_(fd), ssl_(ssl), peer_(std::move(peer)), peer_port_(peer_port), timeout_(timeout_s) {}

  void set_deadline(Clock::time_point t) { deadline_ = t; }
  bool buffered() const { return begin_ < end_ || (ssl_ && SSL_pending(ssl_) > 0); }

  bool is_readable() const override { return buffered() || wait_for(fd_, POLLIN, until()); }
  bool is_writable() const override { return wait_for(fd_, POLLOUT, until()); }

  ssize_t read(char* ptr, size_t size) override {
    if (begin_ == end_) {
      const ssize_t n = fill();
      if (n <= 0) return n;
    }
    const size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_.data() + begin_, n);
    begin_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    size_t done = 0;
    while (done < size) {
      const int chunk = static_cast<int>(std::min<size_t>(size - done, 1 << 30));
      if (ssl_) {
        const int n = SSL_write(ssl_, ptr + done, chunk);
        if (n > 0) {
          done += static_cast<size_t>(n);
          continue;
        }
        if (!wait_tls(SSL_get_error(ssl_, n))) return -1;
      } else {
        const ssize_t n = ::send(fd_, ptr + done, static_cast<size_t>(chunk), MSG_NOSIGNAL);
        if (n > 0) {
          done += static_cast<size_t>(n);
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(fd_, POLLOUT, until())) continue;
        return -1;
      }
    }
    return static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = peer_;
    port = peer_port_;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage a{};
    socklen_t len = sizeof(a);
    port = 0;
    ip.clear();
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) ip = address_text(a, &port);
  }
  socket_t socket() const override { return fd_; }

 private:
  // The earlier of the next read timeout and the request's deadline.
  Clock::time_point until() const { return std::min(deadline_, Clock::now() + std::chrono::seconds(timeout_)); }

  // After a TLS call that did not complete: waits for what it needs.
  bool wait_tls(int error) const {
    if (error == SSL_ERROR_WANT_READ) return wait_for(fd_, POLLIN, until());
    if (error == SSL_ERROR_WANT_WRITE) return wait_for(fd_, POLLOUT, until());
    return false;
  }

  ssize_t fill() {
    begin_ = end_ = 0;
    for (;;) {
      if (ssl_) {
        const int n = SSL_read(ssl_, buffer_.data(), static_cast<int>(buffer_.size()));
        if (n > 0) {
          end_ = static_cast<size_t>(n);
          return n;
        }
        const int error = SSL_get_error(ssl_, n);
        if (error == SSL_ERROR_ZERO_RETURN) return 0;
        if (!wait_tls(error)) return -1;
      } else {
        const ssize_t n = ::recv(fd_, buffer_.data(), buffer_.size(), 0);
        if (n >= 0) {
          end_ = static_cast<size_t>(n);
          return n;
        }
        if (errno == EINTR) continue;
        if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_for(fd_, POLLIN, until())) continue;
        return -1;
      }
    }
  }

  int fd_;
  SSL* ssl_;
  std::string peer_;
  int peer_port_;
  int timeout_;
  Clock::time_point deadline_ = Clock::time_point::max();
  std::array<char, 16384> buffer_{};
  size_t begin_ = 0, end_ = 0;
};

// A refusal written, as far as the socket takes it at once, to a plain
// connection that is closed next.
void refuse(int fd, const std::string& why) {
  const std::string body = "{\"error\":\"" + why + "\"}";
  const std::string answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                             "Connection: close\r\nRetry-After: 1\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\n\r\n" + body;
  (void)::send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// Closes after the answer has gone: no more writes, then what the client
// still sends is read and dropped for a moment (closing with unread bytes
// would reset the connection, and a client could lose the answer).
void close_gracefully(int fd, SSL* ssl) {
  if (ssl) (void)SSL_shutdown(ssl);
  ::shutdown(fd, SHUT_WR);
  const Clock::time_point until = Clock::now() + std::chrono::milliseconds(500);
  std::array<char, 4096> sink{};
  std::size_t dropped = 0;
  while (dropped < (std::size_t{1} << 20) && wait_for(fd, POLLIN, until)) {
    const ssize_t n = ::recv(fd, sink.data(), sink.size(), 0);
    if (n <= 0 && !(n < 0 && errno == EINTR)) break;
    if (n > 0) dropped += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

}  // namespace

struct Connections::Tls {
  SSL_CTX* ctx = nullptr;
  ~Tls() { SSL_CTX_free(ctx); }
};

Connections::Connections(const ConnectionLimits& limits, const std::string& tls_cert,
                         const std::string& tls_key)
    : limits_(limits) {
  CAMBER_INPUT_REQUIRE(limits.read_timeout_s > 0 && limits.request_timeout_s > 0 &&
                           limits.handshake_timeout_s > 0 && limits.keep_alive_timeout_s >= 0 &&
                           limits.max_connections > 0 && limits.max_connections_per_peer > 0,
                       "serve: timeouts and connection limits must be positive");
  CAMBER_INPUT_REQUIRE(tls_cert.empty() == tls_key.empty(),
                       "serve: TLS needs both a certificate and a private key");
  if (!tls_cert.empty()) {
    auto tls = std::make_unique<Tls>();
    tls->ctx = SSL_CTX_new(TLS_server_method());
    const bool loaded = tls->ctx && SSL_CTX_set_min_proto_version(tls->ctx, TLS1_2_VERSION) == 1 &&
                        SSL_CTX_use_certificate_chain_file(tls->ctx, tls_cert.c_str()) == 1 &&
                        SSL_CTX_use_PrivateKey_file(tls->ctx, tls_key.c_str(), SSL_FILETYPE_PEM) == 1 &&
                        SSL_CTX_check_private_key(tls->ctx) == 1;
    ERR_clear_error();
    CAMBER_INPUT_REQUIRE(loaded, "serve: cannot use the TLS certificate '"
                                     << tls_cert << "' with the key '" << tls_key
                                     << "' (missing, not PEM, or not a pair)");
    SSL_CTX_set_options(tls->ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(tls->ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    tls_ = tls.release();
  }
  CAMBER_REQUIRE(::pipe2(stop_pipe_, O_CLOEXEC | O_NONBLOCK) == 0, "serve: cannot make a pipe");
}

Connections::~Connections() {
  shut_down();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    closed_.wait(lock, [this] { return open_ == 0; });
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
  delete tls_;
}

int Connections::listen_on(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.empty() ? nullptr : host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0)
    return -1;
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 1024) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) return -1;
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  int bound_port = -1;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) != 0 ||
      address_text(bound, &bound_port).empty()) {
    ::close(fd);
    return -1;
  }
  listen_fd_ = fd;
  return bound_port;
}

bool Connections::admit(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mutex_);
  int& from_peer = per_peer_[peer];
  if (stopping_ || open_ >= static_cast<std::size_t>(limits_.max_connections) ||
      from_peer >= limits_.max_connections_per_peer) {
    if (from_peer == 0) per_peer_.erase(peer);
    return false;
  }
  ++from_peer;
  ++open_;
  return true;
}

void Connections::release_peer(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = per_peer_.find(peer);
  if (it != per_peer_.end() && --it->second == 0) per_peer_.erase(it);
}

void Connections::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  --open_;
  closed_.notify_all();
}

std::size_t Connections::open() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return open_;
}

void Connections::close_after_answer() { close_requested = true; }

void Connections::shut_down() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  const char byte = 1;
  (void)!::write(stop_pipe_[1], &byte, 1);
}

void Connections::serve() {
  while (listen_fd_ >= 0 && wait_for(listen_fd_, POLLIN, Clock::time_point::max(), stop_pipe_[0])) {
    sockaddr_storage from{};
    socklen_t len = sizeof(from);
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      // Out of descriptors: wait a moment for connections to close.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    int peer_port = 0;
    const std::string peer = address_text(from, &peer_port);
    if (!admit(peer)) {
      if (!tls_)
        refuse(fd, "too many connections (at most " + std::to_string(limits_.max_connections) +
                       ", and " + std::to_string(limits_.max_connections_per_peer) +
                       " from one address)");
      ::close(fd);
      continue;
    }
    const int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
    try {
      std::thread([this, fd, peer, peer_port] {
        serve_connection(fd, peer, peer_port);
        release();
      }).detach();
    } catch (const std::system_error&) {  // no thread to be had
      ::close(fd);
      release_peer(peer);
      release();
    }
  }
  // New connections are refused from now on (not left in the backlog).
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
  std::unique_lock<std::mutex> lock(mutex_);
  closed_.wait(lock, [this] { return open_ == 0; });
}

void Connections::serve_connection(int fd, const std::string& peer, int peer_port) {
  SSL* ssl = nullptr;
  if (tls_) {
    ssl = SSL_new(tls_->ctx);
    const Clock::time_point until = Clock::now() + std::chrono::seconds(limits_.handshake_timeout_s);
    bool done = ssl && SSL_set_fd(ssl, fd) == 1;
    while (done) {
      const int r = SSL_accept(ssl);
      if (r == 1) break;
      const int error = SSL_get_error(ssl, r);
      done = (error == SSL_ERROR_WANT_READ && wait_for(fd, POLLIN, until, stop_pipe_[0])) ||
             (error == SSL_ERROR_WANT_WRITE && wait_for(fd, POLLOUT, until, stop_pipe_[0]));
    }
    ERR_clear_error();
    if (!done) {
      release_peer(peer);
      SSL_free(ssl);
      ::close(fd);
      return;
    }
  }
  Channel channel(fd, ssl, peer, peer_port, limits_.read_timeout_s);
  for (;;) {
    if (!channel.buffered() &&
        !wait_for(fd, POLLIN, Clock::now() + std::chrono::seconds(limits_.keep_alive_timeout_s), stop_pipe_[0]))
      break;
    bool stopping = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping = stopping_;
    }
    channel.set_deadline(Clock::now() + std::chrono::seconds(limits_.request_timeout_s));
    close_requested = false;
    bool closed = false;
    const bool answered = process_request(channel, stopping, closed, [ssl](httplib::Request& req) { req.ssl = ssl; });
    if (!answered || closed || close_requested || stopping) break;
  }
  // Done with this peer: a connection that lingers while it closes does
  // not count against its address (it still counts against the total).
  release_peer(peer);
  close_gracefully(fd, ssl);
  ERR_clear_error();
  SSL_free(ssl);
}

}  // namespace camber::nn::serve::detail
