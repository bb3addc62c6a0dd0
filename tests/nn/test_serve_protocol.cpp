// The inference server at the protocol level: raw bytes written to a TCP
// connection to a server on 127.0.0.1, raw answers read back and split by
// their Content-Length. Checks what a client, or a proxy that reuses
// connections, gets for the faults of hostile and careless requests:
// a refused request's body is never answered as a request of its own
// (request smuggling), the body limit holds for chunked bodies too and no
// error message repeats a large input, exactly one well-formed
// Authorization header is taken, and a row the model refuses (an input
// outside the card's training range, an output that is not finite) is a
// 422 naming it, never a 200 with nulls.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include <camber/nn/init.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/serve/auth.hpp>
#include <camber/nn/serve/request.hpp>
#include <camber/nn/serve/server.hpp>

#include "raw_http.hpp"
#include "running_server.hpp"
#include "scratch.hpp"

namespace {

namespace nn = camber::nn;
namespace serve = camber::nn::serve;
using json = nlohmann::json;
using camber::test::Answer;
using camber::test::Connection;
using camber::test::seconds_since;
using camber::test::statuses;

using camber::test::RunningServer;

const std::string predict_body = R"({"inputs": {"mach": 0.5, "alpha_deg": 1.0}})";

std::string chunked(const std::string& body, std::size_t chunk) {
  std::string out;
  char size[32];
  for (std::size_t at = 0; at < body.size(); at += chunk) {
    const std::size_t n = std::min(chunk, body.size() - at);
    std::snprintf(size, sizeof(size), "%zx\r\n", n);
    out += size + body.substr(at, n) + "\r\n";
  }
  return out + "0\r\n\r\n";
}

// A server with tokens: alice's is good, bob's revoked.
struct WithTokens {
  std::string alice, bob;
  serve::ServeOptions options;
  WithTokens() {
    const std::string file = (camber::test::scratch("camber_serve_protocol_") / "tokens.txt").string();
    std::remove(file.c_str());
    alice = serve::TokenStore::add(file, "alice");
    bob = serve::TokenStore::add(file, "bob");
    serve::TokenStore::revoke(file, "bob");
    options.tokens = serve::TokenStore::load(file);
    options.max_body_bytes = 4096;
  }
};

// These tests send each request after the answer to the one before (as a
// proxy reusing a connection does), and a request's body after a pause
// (so that the server has read the headers alone, as a slow network
// delivers them); pipelining is test_nn_serve_connections'.
struct Exchange {
  std::vector<Answer> answers;
  bool closed = false;
};

// `head` (the request line and headers), then after 100 ms `body`, then
// after its answer `next`; then every answer that comes within 0.5 s.
Exchange exchange(int port, const std::string& head, const std::string& body, const std::string& next) {
  Connection c(port);
  Exchange e;
  if (!c.connected() || !c.send(head)) return e;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  c.send(body);
  e.answers = c.answers(1, 5.0, &e.closed);
  if (!e.closed && !next.empty()) {
    c.send(next);
    c.answers(e.answers.size() + 1, 5.0, &e.closed);
  }
  if (!e.closed) e.answers = c.answers(100, 0.5, &e.closed);
  return e;
}

std::string post_head(const std::string& path, std::size_t length, const std::string& extra_headers = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + extra_headers +
         "Content-Length: " + std::to_string(length) + "\r\n\r\n";
}

const std::string health = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";

TEST(ServeProtocol, ARefusedRequestsBodyIsNeverAnsweredAsARequest) {
  WithTokens t;
  RunningServer rs(t.options);
  // The body of each refused request is itself a request: with alice's
  // token, for /v2/models/model (the metadata). It must not be answered.
  const std::string smuggled =
      "GET /v2/models/model HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + t.alice + "\r\n\r\n";
  const std::string chunked_head =
      "POST /predict HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::vector<std::tuple<std::string, std::string, int>> refused = {
      {post_head("/predict", smuggled.size()), smuggled, 401},
      {post_head("/predict", smuggled.size(), "Authorization: Bearer " + t.bob + "\r\n"), smuggled, 403},
      {post_head("/v2/models/model/infer", smuggled.size(), "Authorization: Bearer cbr_00\r\n"), smuggled, 401},
      {post_head("/nowhere", smuggled.size()), smuggled, 401},
      {"PUT /predict HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(smuggled.size()) + "\r\n\r\n",
       smuggled, 401},
      {chunked_head, chunked(smuggled, 16), 401},
      // Over the 4096-byte limit: read and dropped all the same.
      {post_head("/predict", 5000 + smuggled.size()), std::string(5000, ' ') + smuggled, 401},
  };
  for (const auto& [head, body, status] : refused) {
    const Exchange e = exchange(rs.port, head, body, health);
    ASSERT_EQ(e.answers.size(), 2u) << statuses(e.answers) << "\n" << head;
    EXPECT_EQ(e.answers[0].status, status) << head;
    EXPECT_TRUE(json::parse(e.answers[0].body).contains("error")) << e.answers[0].body;
    EXPECT_EQ(e.answers[1].status, 200);
    EXPECT_EQ(json::parse(e.answers[1].body), json::parse(R"({"status": "ok"})"));
  }
  // A refused body too long to drain (8 MB declared) is not read: the
  // answer closes the connection, and nothing after it is answered.
  const Exchange e = exchange(rs.port, post_head("/predict", std::size_t{8} << 20), smuggled, health);
  ASSERT_EQ(e.answers.size(), 1u) << statuses(e.answers);
  EXPECT_EQ(e.answers[0].status, 401);
  EXPECT_TRUE(e.answers[0].closes()) << e.answers[0].headers;
  EXPECT_TRUE(e.closed);
}

TEST(ServeProtocol, TheBodyLimitHoldsForChunkedBodies) {
  serve::ServeOptions o;
  o.max_body_bytes = std::size_t{1} << 20;
  RunningServer rs(o);
  const std::string chunked_head = "POST /predict HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n";
  // Under the limit, chunked or not: answered, and the connection serves
  // the next request.
  for (const auto& [head, body] : std::vector<std::pair<std::string, std::string>>{
           {chunked_head, chunked(predict_body, 7)}, {post_head("/predict", predict_body.size()), predict_body}}) {
    const Exchange e = exchange(rs.port, head, body, health);
    ASSERT_EQ(e.answers.size(), 2u) << statuses(e.answers);
    EXPECT_EQ(e.answers[0].status, 200) << e.answers[0].body;
    EXPECT_TRUE(json::parse(e.answers[0].body)["outputs"].contains("CL"));
    EXPECT_EQ(e.answers[1].status, 200);
  }
  // 3 MB, a good request after 3 MB of spaces, chunked or not: 413, the
  // body read and dropped (so that a client still sending reads the
  // answer), and the connection serves the next request.
  const std::string padded = std::string(std::size_t{3} << 20, ' ') + predict_body;
  for (const auto& [head, body] : std::vector<std::pair<std::string, std::string>>{
           {chunked_head, chunked(padded, 65536)}, {post_head("/predict", padded.size()), padded}}) {
    const Exchange e = exchange(rs.port, head, body, health);
    ASSERT_EQ(e.answers.size(), 2u) << statuses(e.answers);
    EXPECT_EQ(e.answers[0].status, 413);
    EXPECT_NE(json::parse(e.answers[0].body)["error"].get<std::string>().find("1048576-byte limit"),
              std::string::npos) << e.answers[0].body;
    EXPECT_EQ(e.answers[1].status, 200);
  }
  // 20 MB in 64 KB chunks (past what is drained): 413, the connection
  // closed, the rest never read.
  for (const char* path : {"/predict", "/v2/models/model/infer", "/nowhere"}) {
    Connection c(rs.port);
    const std::string request = "POST " + std::string(path) +
                                " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
                                chunked(std::string(std::size_t{20} << 20, ' ') + predict_body, 65536);
    std::thread sender([&] { c.send(request); });  // fails once the server closes
    bool closed = false;
    const std::vector<Answer> answers = c.answers(1, 10.0, &closed);
    sender.join();
    ASSERT_EQ(answers.size(), 1u) << path << ": " << statuses(answers);
    EXPECT_EQ(answers[0].status, 413) << path;
    EXPECT_NE(json::parse(answers[0].body)["error"].get<std::string>().find("1048576-byte limit"),
              std::string::npos) << answers[0].body;
    EXPECT_TRUE(answers[0].closes()) << answers[0].headers;
    EXPECT_TRUE(closed || (c.answers(2, 2.0, &closed), closed)) << path;
  }
  // A chunk size that is no number: 400, and the connection closes (the
  // rest of the body is not read as a request).
  const Exchange e = exchange(rs.port, chunked_head, "zz\r\n" + health, health);
  ASSERT_EQ(e.answers.size(), 1u) << statuses(e.answers);
  EXPECT_EQ(e.answers[0].status, 400);
  EXPECT_TRUE(e.closed);
}

TEST(ServeProtocol, BodiesThatCannotBeDelimitedAreRefusedAndTheConnectionCloses) {
  RunningServer rs(serve::ServeOptions{});
  const std::string& body = predict_body;
  const std::string head = "POST /predict HTTP/1.1\r\nHost: x\r\n";
  const std::string length = "Content-Length: " + std::to_string(body.size()) + "\r\n";
  const std::vector<std::tuple<std::string, std::string, int>> cases = {
      {head + length + length + "\r\n", body, 400},                                   // two lengths
      {head + length + "Transfer-Encoding: chunked\r\n\r\n", chunked(body, 8), 400},  // both
      {head + "Transfer-Encoding: gzip, chunked\r\n\r\n", chunked(body, 8), 501},
      {head + "Content-Length: -1\r\n\r\n", body, 400},
      {"GET /health HTTP/1.1\r\nHost: x\r\n" + length + "\r\n", body, 400},  // a GET with a body
  };
  for (const auto& [request, rest, status] : cases) {
    const Exchange e = exchange(rs.port, request, rest, health);
    ASSERT_EQ(e.answers.size(), 1u) << statuses(e.answers) << "\n" << request;
    EXPECT_EQ(e.answers[0].status, status) << request;
    EXPECT_TRUE(json::parse(e.answers[0].body).contains("error"));
    EXPECT_TRUE(e.answers[0].closes()) << request;
    EXPECT_TRUE(e.closed) << request;
  }
}

TEST(ServeProtocol, NoErrorMessageRepeatsALargeInput) {
  // The message parts that quote a request are cut (unit-level), and so
  // every answer is short whatever it echoes (over HTTP, plain and
  // chunked).
  const std::string big(500000, 'a');
  EXPECT_EQ(serve::excerpt("short"), "short");
  EXPECT_EQ(serve::excerpt(big), std::string(serve::max_excerpt_bytes, 'a') + "... (500000 bytes)");
  EXPECT_LE(json::parse(serve::format_error(big))["error"].get<std::string>().size(),
            serve::max_error_bytes + 64);

  serve::ServeOptions o;
  o.max_body_bytes = std::size_t{1} << 20;
  RunningServer rs(o);
  const std::string tensor = R"({"name": "mach", "shape": [1], "datatype": "FP64", "data": [0.5]}, )"
                             R"({"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": [1]})";
  const std::vector<std::pair<std::string, std::string>> bodies = {
      {"/predict", R"({"inputs": {")" + big + R"(": 1}})"},
      {"/predict", R"({"inputs": {"mach": 0.5, "alpha_deg": 1}, "units": {"alpha_deg": ")" + big + R"("}})"},
      {"/predict", R"({")" + big + R"(": 1})"},
      {"/predict", "\"" + big},  // a string that never ends: the parser quotes what it read
      {"/predict", "1" + std::string(500000, '0') + "e"},
      {"/v2/models/model/infer", R"({"inputs": [{"name": ")" + big + R"(", "shape": [1], "datatype": "FP64", "data": [1]}]})"},
      {"/v2/models/model/infer", R"({"inputs": [)" + tensor + R"(], "outputs": [{"name": ")" + big + R"("}]})"},
      {"/v2/models/model/infer", R"({"inputs": [{"name": "mach", "shape": [1], "datatype": ")" + big + R"(", "data": [1]}]})"},
  };
  for (const auto& [path, body] : bodies)
    for (const bool chunks : {false, true}) {
      const Exchange e = chunks ? exchange(rs.port, "POST " + path + " HTTP/1.1\r\nHost: x\r\n"
                                                   "Transfer-Encoding: chunked\r\n\r\n", chunked(body, 4096), "")
                                : exchange(rs.port, post_head(path, body.size()), body, "");
      ASSERT_EQ(e.answers.size(), 1u) << statuses(e.answers);
      EXPECT_EQ(e.answers[0].status, 400) << body.substr(0, 80);
      EXPECT_LT(e.answers[0].body.size(), 1500u) << body.substr(0, 80) << ": " << e.answers[0].body.substr(0, 300);
      EXPECT_TRUE(json::parse(e.answers[0].body).contains("error"));
    }
  // A long path in a 404.
  const Exchange e = exchange(rs.port, "GET /" + std::string(8000, 'p') + " HTTP/1.1\r\nHost: x\r\n\r\n", "", "");
  ASSERT_EQ(e.answers.size(), 1u);
  EXPECT_EQ(e.answers[0].status, 404);
  EXPECT_LT(e.answers[0].body.size(), 1500u);
}

TEST(ServeProtocol, ExactlyOneWellFormedAuthorizationHeader) {
  WithTokens t;
  RunningServer rs(t.options);
  // The verdicts on one header's value.
  const std::string nul(1, '\0');
  EXPECT_EQ(t.options.tokens.check("Bearer " + t.alice), serve::TokenStore::Verdict::ok);
  EXPECT_EQ(t.options.tokens.check("Bearer " + t.alice + nul + "junk"), serve::TokenStore::Verdict::malformed);
  EXPECT_EQ(t.options.tokens.check("Bearer " + t.alice + " x"), serve::TokenStore::Verdict::malformed);
  EXPECT_EQ(t.options.tokens.check("Bearer "), serve::TokenStore::Verdict::malformed);
  EXPECT_EQ(t.options.tokens.check("Bearer cbr_00=="), serve::TokenStore::Verdict::unknown);
  EXPECT_EQ(t.options.tokens.check("Basic YWxpY2U="), serve::TokenStore::Verdict::missing);
  EXPECT_EQ(t.options.tokens.check(""), serve::TokenStore::Verdict::missing);

  const std::string good = "Authorization: Bearer " + t.alice + "\r\n";
  // Both paths of the check: a request without a body (checked before
  // routing) and one with (checked once its body is read).
  const auto ask = [&](const std::string& headers, bool with_body) {
    Connection c(rs.port);
    c.send(with_body ? post_head("/predict", predict_body.size(), headers) + predict_body
                     : "GET /model HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n");
    return c.answers(1, 5.0);
  };
  for (const bool with_body : {false, true}) {
    std::vector<Answer> a = ask(good, with_body);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].status, 200) << "the good token alone";
    for (const std::string& headers :
         {good + "Authorization: Bearer junk\r\n", "Authorization: Bearer junk\r\n" + good, good + good,
          good + "authorization: Bearer " + t.alice + "\r\n",
          "Authorization: Bearer " + t.alice + std::string(1, '\0') + "junk\r\n",
          "Authorization: Bearer " + t.alice + " junk\r\n", "Authorization: Bearer  " + t.alice + "\r\n"}) {
      a = ask(headers, with_body);
      ASSERT_EQ(a.size(), 1u) << statuses(a);
      EXPECT_EQ(a[0].status, 401) << headers << (with_body ? " (with a body)" : "");
      EXPECT_TRUE(json::parse(a[0].body).contains("error")) << a[0].body;
      EXPECT_NE(a[0].headers.find("www-authenticate: Bearer"), std::string::npos) << a[0].headers;
    }
  }
}

// A network that overflows with its inputs: small_surrogate's columns and
// statistics (mach: mean 0.5, std 0.1; alpha_deg: mean 1, std 2; CL: mean
// 0.2, std 0.2), relu, every weight and bias 1. So with x = (mach - 0.5) /
// 0.1 + (alpha_deg - 1) / 2, CL = 0.2 + 0.2 * (4 * relu(x + 1) + 1): 1.2 at
// the means, and +inf when mach is 1.7e308 (x overflows). `range`: the
// card's training range is mach [0.3, 0.7], alpha_deg [-2, 4], policy
// refuse; else the card records none (a file written before ranges were).
nn::io::Model overflowing_model(bool range) {
  const nn::Surrogate like = camber::test::small_surrogate(7);
  nn::NetworkSpec spec = like.spec();
  spec.activation = nn::Activation::relu;
  nn::Rng rng(7);
  std::vector<camber::Tensor> ones;
  for (const camber::Tensor& t : nn::make_network(spec, rng)->parameter_values())
    ones.push_back(camber::Tensor::from_host(t.shape(), std::vector<double>(static_cast<std::size_t>(t.size()), 1.0)));
  nn::io::Model m{nn::Surrogate(spec, ones, like.inputs(), like.outputs(), like.input_stats(), like.output_stats()),
                  {}, 1, 0, std::string(64, 'f')};
  if (range) {
    m.card.input_min = {0.3, -2.0};
    m.card.input_max = {0.7, 4.0};
    m.card.extrapolation = nn::io::Extrapolation::refuse;
  }
  return m;
}

double overflowing_cl(double mach, double alpha_deg) {
  const double x = (mach - 0.5) / 0.1 + (alpha_deg - 1.0) / 2.0;
  return 0.2 + 0.2 * (4.0 * std::max(0.0, x + 1.0) + 1.0);
}

// One request on a connection of its own, and its answer; the connection
// stays open and answers the next request (GET /health).
Answer ask(int port, const std::string& path, const std::string& body) {
  Connection c(port);
  EXPECT_TRUE(c.connected() && c.send(post_head(path, body.size()) + body));
  std::vector<Answer> a = c.answers(1, 5.0);
  if (a.empty()) return Answer{};
  EXPECT_FALSE(a[0].closes()) << path << ": " << a[0].headers;
  EXPECT_TRUE(c.send(health)) << path;
  a = c.answers(2, 5.0);
  EXPECT_EQ(statuses(a).substr(3), " 200") << path;  // the first answer's, then /health's
  return a[0];
}

std::string infer_body(const std::string& mach, const std::string& alpha_deg) {
  return R"({"inputs": [{"name": "mach", "shape": [1], "datatype": "FP64", "data": [)" + mach +
         R"(]}, {"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": [)" + alpha_deg + "]}]}";
}

TEST(ServeProtocol, AnInputOutsideTheTrainingRangeIsA422NamingItAndTheRange) {
  camber::test::RunningServer rs(overflowing_model(true), serve::ServeOptions{});
  struct Case {
    std::string path, body;
    std::vector<std::string> says;
  };
  const std::vector<Case> refused = {
      {"/predict", R"({"inputs": {"mach": 1.7e308, "alpha_deg": -1.7e308}})",
       {"row 0: input 'mach' = 1.7e+308 is outside the training range [0.3, 0.7]"}},
      {"/v2/models/model/infer", infer_body("1.7e308", "-1.7e308"),
       {"row 0: input 'mach' = 1.7e+308 is outside the training range [0.3, 0.7]"}},
      // The next double above 0.7, and one below -2.
      {"/predict", R"({"inputs": [{"mach": 0.5, "alpha_deg": 1}, {"mach": 0.7000000000000001, "alpha_deg": 1}]})",
       {"row 1: input 'mach' = 0.7000000000000001 is outside the training range [0.3, 0.7]"}},
      {"/v2/models/model/infer", infer_body("0.5", "-2.0000000000000004"),
       {"row 0: input 'alpha_deg' = -2.0000000000000004 is outside the training range [-2, 4]"}},
  };
  for (const Case& c : refused) {
    const Answer a = ask(rs.port, c.path, c.body);
    EXPECT_EQ(a.status, 422) << c.path << " " << c.body << ": " << a.body;
    ASSERT_FALSE(a.body.empty()) << c.body;
    const std::string error = json::parse(a.body).value("error", "");
    for (const std::string& piece : c.says) EXPECT_NE(error.find(piece), std::string::npos) << error;
  }
  // A number no double holds: 400 at parsing, quoting it.
  for (const auto& [path, body] : std::vector<std::pair<std::string, std::string>>{
           {"/predict", R"({"inputs": {"mach": 1e999, "alpha_deg": 1}})"},
           {"/v2/models/model/infer", infer_body("1e999", "1")}}) {
    const Answer a = ask(rs.port, path, body);
    EXPECT_EQ(a.status, 400) << path << ": " << a.body;
    ASSERT_FALSE(a.body.empty()) << path;
    EXPECT_NE(json::parse(a.body).value("error", "").find("number overflow parsing '1e999'"), std::string::npos)
        << a.body;
  }
  // Inside, the ends of the range included: 200, with the network's value.
  Answer a = ask(rs.port, "/predict", R"({"inputs": {"mach": 0.7, "alpha_deg": -2}})");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_NEAR(json::parse(a.body)["outputs"]["CL"].get<double>(), overflowing_cl(0.7, -2.0), 1e-12) << a.body;
  a = ask(rs.port, "/v2/models/model/infer", infer_body("0.3", "4"));
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_NEAR(json::parse(a.body)["outputs"][0]["data"][0].get<double>(), overflowing_cl(0.3, 4.0), 1e-12)
      << a.body;
  // The card says what is accepted.
  httplib::Client client("127.0.0.1", rs.port);
  const auto card = client.Get("/model");
  ASSERT_TRUE(card);
  const json j = json::parse(card->body);
  EXPECT_EQ(j["input_min"], json::parse("[0.3, -2.0]"));
  EXPECT_EQ(j["input_max"], json::parse("[0.7, 4.0]"));
  EXPECT_EQ(j["extrapolation"], "refuse");
}

TEST(ServeProtocol, AnOutputThatIsNotFiniteIsNeverA200) {
  // No range recorded: the extreme inputs pass, and the network's inf is
  // refused, not sent as null.
  camber::test::RunningServer rs(overflowing_model(false), serve::ServeOptions{});
  for (const auto& [path, body] : std::vector<std::pair<std::string, std::string>>{
           {"/predict", R"({"inputs": {"mach": 1.7e308, "alpha_deg": -1.7e308}})"},
           {"/v2/models/model/infer", infer_body("1.7e308", "-1.7e308")}}) {
    const Answer a = ask(rs.port, path, body);
    EXPECT_EQ(a.status, 422) << path << ": " << a.body;
    ASSERT_FALSE(a.body.empty()) << path;
    const std::string error = json::parse(a.body).value("error", "");
    EXPECT_NE(error.find("row 0: output 'CL' is inf, not a finite number"), std::string::npos) << error;
  }
  const Answer a = ask(rs.port, "/predict", R"({"inputs": {"mach": 0.5, "alpha_deg": 1}})");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_NEAR(json::parse(a.body)["outputs"]["CL"].get<double>(), overflowing_cl(0.5, 1.0), 1e-12);
}

}  // namespace
