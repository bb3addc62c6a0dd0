// Raw HTTP/1.1 over a TCP connection to a server on 127.0.0.1: bytes
// written as they are, answers read back and split by their
// Content-Length (private to tests/nn: the protocol-level tests of the
// inference server).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace camber::test {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// One answer as read off the wire.
struct Answer {
  int status = 0;
  std::string headers;  ///< the header lines, lower-cased names
  std::string body;
  bool closes() const { return headers.find("connection: close") != std::string::npos; }
};

// One TCP connection to 127.0.0.1:port, from `from` (another loopback
// address is another peer to the server).
class Connection {
 public:
  explicit Connection(int port, const char* from = "127.0.0.1") : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    inet_pton(AF_INET, from, &source.sin_addr);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&source), sizeof(source)) == 0 &&
                 ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Connection() {
    if (fd_ >= 0) ::close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool connected() const { return connected_; }
  int fd() const { return fd_; }
  // Every byte the server has sent so far (as answers() read them).
  const std::string& received() const { return received_; }

  // All of `bytes`, or false when the server closed first.
  bool send(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  // The answers the server has sent on this connection so far (all of
  // them, from the first), once there are `n`, or the server closed the
  // connection (`closed`), or `timeout_s` passed.
  std::vector<Answer> answers(std::size_t n, double timeout_s, bool* closed = nullptr);

 private:
  int fd_;
  bool connected_ = false;
  std::string received_;
};

// The complete answers in `bytes`, in order, each delimited by its
// Content-Length (this server sends one with every answer). Bytes that
// are no answer end the list with status -1.
inline std::vector<Answer> split_answers(const std::string& bytes) {
  std::vector<Answer> out;
  std::size_t at = 0;
  while (at < bytes.size()) {
    Answer a;
    const std::size_t end = bytes.find("\r\n\r\n", at);
    if (bytes.compare(at, 9, "HTTP/1.1 ") != 0 && bytes.size() - at >= 9) {
      a.status = -1;
      a.body = bytes.substr(at);
      out.push_back(a);
      return out;
    }
    if (end == std::string::npos) return out;  // more to come
    a.status = std::stoi(bytes.substr(at + 9, 3));
    for (std::size_t i = bytes.find("\r\n", at) + 2; i < end + 2;) {
      const std::size_t eol = bytes.find("\r\n", i);
      std::string line = bytes.substr(i, eol - i);
      const std::size_t colon = line.find(':');
      for (std::size_t k = 0; k < colon && colon != std::string::npos; ++k)
        line[k] = static_cast<char>(std::tolower(static_cast<unsigned char>(line[k])));
      a.headers += line + "\n";
      i = eol + 2;
    }
    const std::size_t cl = a.headers.find("content-length: ");
    const std::size_t length = cl == std::string::npos ? 0 : std::stoul(a.headers.substr(cl + 16));
    if (bytes.size() < end + 4 + length) return out;  // more to come
    a.body = bytes.substr(end + 4, length);
    at = end + 4 + length;
    out.push_back(a);
  }
  return out;
}

inline std::vector<Answer> Connection::answers(std::size_t n, double timeout_s, bool* closed) {
  const Clock::time_point t0 = Clock::now();
  timeval tv{0, 20000};
  setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  if (closed) *closed = false;
  char buf[65536];
  for (;;) {
    std::vector<Answer> out = split_answers(received_);
    if (out.size() >= n || seconds_since(t0) > timeout_s) return out;
    const ssize_t got = ::recv(fd_, buf, sizeof(buf), 0);
    if (got > 0) {
      received_.append(buf, static_cast<std::size_t>(got));
    } else if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      if (closed) *closed = true;
      return split_answers(received_);
    }
  }
}

inline std::string statuses(const std::vector<Answer>& answers) {
  std::string s;
  for (const Answer& a : answers) s += (s.empty() ? "" : " ") + std::to_string(a.status);
  return s;
}

}  // namespace camber::test
