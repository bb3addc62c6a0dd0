// Any bytes as what a client sends on one connection to the inference
// server: a real InferenceServer (nn/serve/server.cpp and
// connections.cpp, compiled here with the sanitizers) on 127.0.0.1, one
// TCP connection per input, the bytes written at once (so several
// requests arrive pipelined, chunked bodies and keep-alive sequences as a
// proxy would send them), then the client's half closed. The server must
// answer with well-formed HTTP/1.1 answers only, every error with a JSON
// body {"error": ...} of at most 1,024 bytes, and close the connection
// within its timeouts; never crash, leak or hang.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <camber/nn/init.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/serve/server.hpp>
#include <camber/nn/surrogate.hpp>

namespace {

namespace nn = camber::nn;
namespace serve = camber::nn::serve;
using Clock = std::chrono::steady_clock;

int port = 0;

// The answers' bytes: each a status line, headers and a body of its
// Content-Length; false on anything else.
bool well_formed(const std::string& bytes) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    if (bytes.compare(at, 9, "HTTP/1.1 ") != 0) return false;
    const std::size_t end = bytes.find("\r\n\r\n", at);
    if (end == std::string::npos) return false;
    const int status = std::atoi(bytes.c_str() + at + 9);
    if (status < 100 || status > 599) return false;
    const std::string head = bytes.substr(at, end - at);
    const std::size_t cl = head.find("\r\nContent-Length: ");
    const std::size_t length = cl == std::string::npos ? 0 : std::strtoul(head.c_str() + cl + 18, nullptr, 10);
    // An answer to HEAD carries the length of a body it does not send.
    const bool head_answer = end + 4 + length > bytes.size() || bytes.compare(end + 4, 9, "HTTP/1.1 ") == 0;
    const std::string body = head_answer ? "" : bytes.substr(end + 4, length);
    if (status >= 400 && !body.empty()) {
      if (body.size() > 1024 + 16) return false;
      const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
      if (doc.is_discarded() || !doc.is_object() || !doc.contains("error")) return false;
    }
    at = end + 4 + body.size();
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  static Kokkos::ScopeGuard kokkos;
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 1;
  spec.hidden = {4};
  nn::Rng rng(7);
  auto net = nn::make_network(spec, rng);
  nn::Surrogate s(spec, net->parameter_values(), {{"mach", "alpha_deg"}, {"", "deg"}}, {{"CL"}, {""}},
                  {{0.5, 1.0}, {0.1, 2.0}}, {{0.2}, {0.2}});
  serve::ServeOptions o;
  o.port = 0;
  o.max_body_bytes = 4096;
  o.read_timeout_s = 1;
  o.request_timeout_s = 2;
  // Never destroyed: it serves until the process exits (reachable, so no
  // leak to report).
  static serve::InferenceServer* server =
      new serve::InferenceServer(nn::io::Model{std::move(s), {}, 1, 0, std::string(64, 'f')}, o);
  port = server->bind();
  std::thread([] { server->run(); }).detach();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // libFuzzer's SIGALRM (its -timeout check) can interrupt any call here.
  int connected = -1;
  do connected = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  while (connected != 0 && (errno == EINTR || errno == EALREADY));
  if (fd < 0 || (connected != 0 && errno != EISCONN)) {
    std::fprintf(stderr, "fuzz_connection: cannot connect: %s\n", std::strerror(errno));
    std::abort();
  }
  std::size_t sent = 0;
  while (sent < size) {
    const ssize_t n = ::send(fd, data + sent, size - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the server closed (after a fault): fine
    sent += static_cast<std::size_t>(n);
  }
  ::shutdown(fd, SHUT_WR);
  // The server closes within its timeouts (a request cut short by the
  // client's close fails at once; 2 s for the whole request at most).
  std::string got;
  char buf[65536];
  const Clock::time_point until = Clock::now() + std::chrono::seconds(4);
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int wait = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count());
    const int ready = wait > 0 ? ::poll(&p, 1, wait) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {  // a hang
      std::fprintf(stderr, "fuzz_connection: no close within 4 s; %zu of %zu bytes sent, received:\n%s\n", sent,
                   size, got.c_str());
      std::abort();
    }
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
    if (got.size() > (std::size_t{64} << 20)) std::abort();  // answers without end
  }
  ::close(fd);
  if (!well_formed(got)) {
    std::fprintf(stderr, "fuzz_connection: malformed answers:\n%s\n", got.c_str());
    std::abort();
  }
  return 0;
}
