// The inference server's connections under slow and greedy clients, over
// real sockets: a TLS handshake and a request are each bounded as a whole
// by time (a client that sends one byte every half second, well within
// the read timeout, is still dropped), connections are capped per client
// address, and meanwhile another client's health checks are answered at
// once. Pipelined requests are all answered, in order, and an answer that
// leaves a body unread closes its connection.
#include <gtest/gtest.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <poll.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <camber/nn/io/model_file.hpp>
#include <camber/nn/serve/server.hpp>

#include "raw_http.hpp"
#include "running_server.hpp"
#include "scratch.hpp"

namespace {

namespace nn = camber::nn;
namespace serve = camber::nn::serve;
using json = nlohmann::json;
using camber::test::Answer;
using camber::test::Clock;
using camber::test::Connection;
using camber::test::seconds_since;
using camber::test::statuses;

using camber::test::RunningServer;

const std::string health = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";

// A self-signed certificate for 127.0.0.1 (P-256) and its key, written as
// PEM to `dir`; {certificate, key}.
std::pair<std::string, std::string> self_signed(const std::string& dir) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* x = X509_new();
  X509_set_version(x, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), 0);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"), -1,
                             -1, 0);
  X509_set_issuer_name(x, name);
  X509_sign(x, key, EVP_sha256());
  const std::string cert = dir + "/server.pem", key_file = dir + "/server.key";
  FILE* f = std::fopen(cert.c_str(), "w");
  PEM_write_X509(f, x);
  std::fclose(f);
  f = std::fopen(key_file.c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
  X509_free(x);
  EVP_PKEY_free(key);
  return {cert, key_file};
}

// Connections from `from` that each send one more byte of `bytes` every
// `every`, from a thread of their own, until they go.
struct Trickle {
  std::vector<std::unique_ptr<Connection>> connections;
  std::atomic<bool> going{true};
  std::thread thread;
  Trickle(int port, const char* from, int n, std::string bytes, std::chrono::milliseconds every) {
    for (int i = 0; i < n; ++i) connections.push_back(std::make_unique<Connection>(port, from));
    thread = std::thread([this, bytes, every] {
      for (std::size_t k = 0; going && k < bytes.size(); ++k) {
        for (auto& c : connections)
          if (c->connected()) c->send(bytes.substr(k, 1));
        std::this_thread::sleep_for(every);
      }
    });
  }
  ~Trickle() {
    going = false;
    thread.join();
  }
  // How many the server has closed within `seconds` from now (all that
  // it did close, counted at once).
  int closed_within(double seconds) {
    const Clock::time_point t0 = Clock::now();
    for (;;) {
      std::vector<pollfd> p;
      for (const auto& c : connections) p.push_back({c->fd(), POLLIN, 0});
      ::poll(p.data(), p.size(), 0);
      int n = 0;
      for (std::size_t i = 0; i < connections.size(); ++i) {
        if (!connections[i]->connected() || closed[i]) {
          ++n;
          continue;
        }
        if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char sink[4096];
        const ssize_t got = ::recv(p[i].fd, sink, sizeof(sink), MSG_DONTWAIT);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          closed[i] = true;
          ++n;
        }
      }
      if (n == static_cast<int>(connections.size()) || seconds_since(t0) >= seconds) return n;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  std::vector<bool> closed = std::vector<bool>(1000, false);
};

TEST(ServeConnections, ASlowTlsHandshakeIsDroppedAndStarvesNoOne) {
  const auto [cert, key] = self_signed(camber::test::scratch("camber_serve_tls_").string());
  serve::ServeOptions o;
  o.tls_cert = cert;
  o.tls_key = key;
  o.handshake_timeout_s = 2;
  o.max_connections_per_peer = 16;
  RunningServer rs(o);

  // 70 connections from 127.0.0.2, each sending the start of a ClientHello
  // (a handshake record of 512 bytes) one byte every 0.4 s: every byte
  // well within the 5 s read timeout.
  const std::string hello_start = std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11) +
                                  std::string(40, 'x');
  const Clock::time_point t0 = Clock::now();
  Trickle slow(rs.port, "127.0.0.2", 70, hello_start, std::chrono::milliseconds(400));

  // 54 of them are closed at once (16 from one address at most).
  EXPECT_EQ(slow.closed_within(1.0), 54);
  // Meanwhile 127.0.0.1's health checks over TLS are answered at once.
  httplib::SSLClient client("127.0.0.1", rs.port);
  client.enable_server_certificate_verification(false);
  for (int i = 0; i < 3; ++i) {
    const Clock::time_point ask = Clock::now();
    const auto res = client.Get("/v2/health/ready");
    ASSERT_TRUE(res) << "health check " << i << " unanswered";
    EXPECT_EQ(res->status, 200);
    EXPECT_LT(seconds_since(ask), 2.0) << "health check " << i;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  // The other 16 are closed when their handshakes have taken 2 s, though
  // their bytes keep coming (2.5 s of slack for a loaded machine; the
  // trickle lasts 20 s): all 70.
  EXPECT_EQ(slow.closed_within(4.5 - seconds_since(t0)), 70);
  EXPECT_LT(seconds_since(t0), 4.5);
  EXPECT_GT(seconds_since(t0), 1.9);
}

TEST(ServeConnections, ASlowRequestIsDroppedAtTheRequestTimeout) {
  serve::ServeOptions o;
  o.request_timeout_s = 2;
  RunningServer rs(o);
  const Clock::time_point t0 = Clock::now();
  // The headers of a request, one byte every 0.3 s (the read timeout is 5 s).
  Trickle slow(rs.port, "127.0.0.2", 3, "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(100, 'y'),
               std::chrono::milliseconds(300));
  Connection other(rs.port);
  ASSERT_TRUE(other.send(health));
  const std::vector<Answer> a = other.answers(1, 2.0);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].status, 200);
  EXPECT_EQ(slow.closed_within(4.5), 3);  // the trickle lasts 30 s
  EXPECT_LT(seconds_since(t0), 4.5);
  EXPECT_GT(seconds_since(t0), 1.9);
}

TEST(ServeConnections, ConnectionsArePerPeerCappedWithA503) {
  serve::ServeOptions o;
  o.max_connections_per_peer = 3;
  RunningServer rs(o);
  std::vector<std::unique_ptr<Connection>> held;
  for (int i = 0; i < 3; ++i) held.push_back(std::make_unique<Connection>(rs.port, "127.0.0.2"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // accepted
  Connection fourth(rs.port, "127.0.0.2");
  bool closed = false;
  const std::vector<Answer> refused = fourth.answers(1, 2.0, &closed);
  ASSERT_EQ(refused.size(), 1u) << statuses(refused);
  EXPECT_EQ(refused[0].status, 503);
  EXPECT_NE(json::parse(refused[0].body).at("error").get<std::string>().find("3 from one address"),
            std::string::npos)
      << refused[0].body;
  // Another address is served, and so are the three held.
  Connection other(rs.port, "127.0.0.3");
  ASSERT_TRUE(other.send(health));
  EXPECT_EQ(statuses(other.answers(1, 2.0)), "200");
  ASSERT_TRUE(held[0]->send(health));
  EXPECT_EQ(statuses(held[0]->answers(1, 2.0)), "200");
}

TEST(ServeConnections, PipelinedRequestsAreAnsweredInOrder) {
  RunningServer rs(serve::ServeOptions{});
  const std::string body = R"({"inputs": {"mach": 0.5, "alpha_deg": 1.0}})";
  const std::string predict = "POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                              "Content-Length: " +
                              std::to_string(body.size()) + "\r\n\r\n" + body;
  Connection c(rs.port);
  // Five requests in one write: all arrive in the server's first read.
  ASSERT_TRUE(c.send(health + predict + "GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n" + predict + health));
  const std::vector<Answer> a = c.answers(5, 5.0);
  ASSERT_EQ(statuses(a), "200 200 404 200 200");
  EXPECT_EQ(json::parse(a[0].body).at("status"), "ok");
  EXPECT_TRUE(json::parse(a[1].body).contains("outputs")) << a[1].body;
  EXPECT_EQ(a[1].body, a[3].body);
}

TEST(ServeConnections, AHeadRequestWithABodyClosesItsConnection) {
  RunningServer rs(serve::ServeOptions{});
  Connection c(rs.port);
  // Its body (a request) would be answered as the next request if the
  // connection stayed open.
  ASSERT_TRUE(c.send("HEAD /health HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(health.size()) +
                     "\r\n\r\n" + health));
  bool closed = false;
  c.answers(2, 2.0, &closed);
  EXPECT_TRUE(closed);
  // One answer (to HEAD: headers only), 400, saying the connection closes.
  const std::string& got = c.received();
  EXPECT_EQ(got.compare(0, 12, "HTTP/1.1 400"), 0) << got;
  EXPECT_EQ(got.find("HTTP/1.1", 1), std::string::npos) << got;
  EXPECT_NE(got.find("Connection: close"), std::string::npos) << got;
}

}  // namespace
