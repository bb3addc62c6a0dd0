// The inference server: the request parser on good and bad JSON (without a
// network), the batcher under concurrent callers, and the HTTP server end
// to end on 127.0.0.1: predictions equal Surrogate::predict, malformed
// requests get 4xx with a JSON message and leave the server serving
// (malformed JSON, wrong names, wrong shapes, non-finite numbers, a body
// over the limit, a client that stops sending), /metrics counts what
// happened, concurrent clients, and stop() with requests in flight.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <camber/nn/serve/batcher.hpp>
#include <camber/nn/serve/request.hpp>
#include <camber/nn/serve/server.hpp>

namespace {

namespace nn = camber::nn;
namespace serve = camber::nn::serve;
using camber::DType;
using camber::index_t;
using camber::Tensor;
using json = nlohmann::json;

const serve::ColumnSchema schema{{"mach", "alpha_deg"}, {"", "deg"}};

int status_of(const std::string& body, size_t max_rows = 100) {
  try {
    serve::parse_predict_request(body, schema, max_rows);
  } catch (const serve::RequestError& e) {
    return e.status();
  }
  return 200;
}

std::string message_of(const std::string& body) {
  try {
    serve::parse_predict_request(body, schema, 100);
  } catch (const serve::RequestError& e) {
    return e.what();
  }
  return "";
}

TEST(ServeRequest, ParsesOneAndManyRowsInTheModelsColumnOrder) {
  const serve::PredictRequest one =
      serve::parse_predict_request(R"({"inputs": {"alpha_deg": 2.5, "mach": 0.5}})", schema, 10);
  EXPECT_TRUE(one.single);
  EXPECT_EQ(one.n_rows, 1u);
  EXPECT_EQ(one.rows, (std::vector<double>{0.5, 2.5}));
  const serve::PredictRequest many = serve::parse_predict_request(
      R"({"inputs": [{"mach": 0.4, "alpha_deg": -1}, {"mach": 0.6, "alpha_deg": 3e0}],
          "units": {"alpha_deg": "deg"}})",
      schema, 10);
  EXPECT_FALSE(many.single);
  EXPECT_EQ(many.rows, (std::vector<double>{0.4, -1.0, 0.6, 3.0}));
  const std::string out = serve::format_predict_response({1.0, 2.0, 3.0, 4.0}, 2,
                                                         {{"CL", "CD"}, {"", ""}}, false);
  EXPECT_EQ(json::parse(out), json::parse(R"({"outputs": [{"CL": 1.0, "CD": 2.0}, {"CL": 3.0, "CD": 4.0}]})"));
}

TEST(ServeRequest, BadRequestsAre4xxSayingWhatIsWrong) {
  EXPECT_EQ(status_of("{"), 400);
  EXPECT_NE(message_of("{").find("malformed JSON"), std::string::npos);
  EXPECT_EQ(status_of(R"({"inputs": {"mach": NaN, "alpha_deg": 1}})"), 400);
  EXPECT_EQ(status_of(R"({"inputs": {"mach": 1e400, "alpha_deg": 1}})"), 400);
  EXPECT_NE(message_of(R"({"inputs": {"mach": 1e400, "alpha_deg": 1}})").find("overflow"), std::string::npos);
  EXPECT_NE(message_of(R"({"inputs": {"mach": 0.5}})").find("input 'alpha_deg' is missing"), std::string::npos);
  EXPECT_NE(message_of(R"({"inputs": {"mach": 0.5, "alpha_deg": 1, "beta": 2}})").find("'beta' is not an input"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"inputs": {"mach": "0.5", "alpha_deg": 1}})").find("must be a number, got string"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"inputs": [[0.5, 1]]})").find("inputs[0] must be an object"), std::string::npos);
  EXPECT_NE(message_of(R"({"inputs": 3})").find("got number"), std::string::npos);
  EXPECT_NE(message_of(R"({"inputs": []})").find("empty array"), std::string::npos);
  EXPECT_NE(message_of(R"([1, 2])").find("JSON object"), std::string::npos);
  EXPECT_NE(message_of(R"({"input": {}})").find("unknown field 'input'"), std::string::npos);
  EXPECT_NE(message_of(R"({"inputs": {"mach": 0.5, "alpha_deg": 1}, "units": {"alpha_deg": "rad"}})")
                .find("units.alpha_deg is 'rad', the model takes 'deg'"),
            std::string::npos);
  std::string big = R"({"inputs": [)";
  for (int i = 0; i < 101; ++i) big += std::string(i ? "," : "") + R"({"mach": 0.5, "alpha_deg": 1})";
  EXPECT_EQ(status_of(big + "]}"), 413);
  // Bytes that are not UTF-8 are echoed safely in the error's JSON.
  const std::string bad_key = "{\"inputs\": {\"\xff\xfe\": 1}}";
  EXPECT_EQ(status_of(bad_key), 400);
  EXPECT_NO_THROW(json::parse(serve::format_error(message_of(bad_key))));
}

TEST(ServeBatcher, ConcurrentCallersGetTheirOwnRowsAndShareEvaluations) {
  std::atomic<int> calls{0};
  serve::Metrics metrics;
  {
    serve::Batcher b(
        [&](const std::vector<double>& x, std::size_t n) {
          ++calls;
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          std::vector<double> y(n);
          for (std::size_t i = 0; i < n; ++i) y[i] = 10.0 * x[2 * i] + x[2 * i + 1];
          return y;
        },
        64, std::chrono::microseconds(5000), &metrics);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 16; ++t)
      threads.emplace_back([&, t] {
        for (int k = 0; k < 10; ++k) {
          const double a = t, c = k;
          const std::vector<double> y = b.predict({a, c, a, c + 0.5}, 2);
          if (y != std::vector<double>{10 * a + c, 10 * a + c + 0.5}) ++wrong;
        }
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
  }
  EXPECT_LT(calls.load(), 160) << "no two requests were evaluated together";
  EXPECT_NE(metrics.prometheus_text().find("camber_predicted_rows_total 320"), std::string::npos);
}

nn::io::Model test_model() {
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 3;
  spec.hidden = {16, 16};
  nn::Rng rng(3);
  auto net = nn::make_network(spec, rng);
  nn::Surrogate s(spec, net->parameter_values(), {{"mach", "alpha_deg"}, {"", "deg"}},
                  {{"CL", "CD", "CM"}, {"", "", ""}}, {{0.5, 1.0}, {0.1, 2.0}},
                  {{0.2, 0.05, -0.01}, {0.2, 0.01, 0.01}});
  nn::io::ModelCard card;
  card.data_path = "data.h5";
  card.validation_rmse = {1e-3, 2e-4, 3e-4};
  return nn::io::Model{std::move(s), card, 1, 0, std::string(64, 'f')};
}

struct RunningServer {
  std::unique_ptr<serve::InferenceServer> server;
  std::thread thread;
  int port = 0;
  explicit RunningServer(serve::ServeOptions o) {
    o.port = 0;
    server = std::make_unique<serve::InferenceServer>(test_model(), o);
    port = server->bind();
    thread = std::thread([this] { server->run(); });
    httplib::Client c("127.0.0.1", port);
    for (int i = 0; i < 200 && !c.Get("/health"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~RunningServer() {
    server->stop();
    thread.join();
  }
};

TEST(ServeHttp, PredictionsHealthModelAndMetrics) {
  serve::ServeOptions o;
  o.max_body_bytes = 4096;
  o.read_timeout_s = 1;
  RunningServer rs(o);
  httplib::Client c("127.0.0.1", rs.port);
  const nn::io::Model reference = test_model();

  auto h = c.Get("/health");
  ASSERT_TRUE(h);
  EXPECT_EQ(h->status, 200);
  auto m = c.Get("/model");
  ASSERT_TRUE(m);
  const json card = json::parse(m->body);
  EXPECT_EQ(card["inputs"][1]["unit"], "deg");
  EXPECT_EQ(card["validation_rmse"][1], 2e-4);

  int ok = 0, bad = 0;
  auto post = [&](const std::string& body) {
    auto r = c.Post("/predict", body, "application/json");
    EXPECT_TRUE(r);
    if (r && r->status == 200) ++ok;
    if (r && r->status >= 400) ++bad;
    return r;
  };
  auto r = post(R"({"inputs": {"mach": 0.55, "alpha_deg": 2.0}})");
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<double> want = reference.surrogate.predict(Tensor::from_host({1, 2}, {0.55, 2.0})).to_vector();
  const json got = json::parse(r->body)["outputs"];
  EXPECT_EQ(got["CL"].get<double>(), want[0]);  // JSON round-trips doubles exactly
  EXPECT_EQ(got["CM"].get<double>(), want[2]);
  r = post(R"({"inputs": [{"mach": 0.4, "alpha_deg": -1}, {"mach": 0.6, "alpha_deg": 3}]})");
  ASSERT_EQ(r->status, 200);
  const std::vector<double> want2 =
      reference.surrogate.predict(Tensor::from_host({2, 2}, {0.4, -1.0, 0.6, 3.0})).to_vector();
  EXPECT_EQ(json::parse(r->body)["outputs"][1]["CD"].get<double>(), want2[4]);

  for (const char* body : {"{", R"({"inputs": {"mach": NaN, "alpha_deg": 1}})",
                           R"({"inputs": {"speed": 1, "alpha_deg": 1}})", R"({"inputs": [[1, 2]]})"}) {
    r = post(body);
    EXPECT_EQ(r->status, 400) << body;
    EXPECT_TRUE(json::parse(r->body).contains("error")) << r->body;
  }
  r = post(std::string(5000, ' ') + "{}");  // over the 4096-byte limit
  EXPECT_EQ(r->status, 413);
  EXPECT_NE(r->body.find("4096-byte limit"), std::string::npos) << r->body;
  auto nf = c.Get("/nowhere");
  ASSERT_TRUE(nf);
  EXPECT_EQ(nf->status, 404);
  EXPECT_NE(nf->body.find("no endpoint"), std::string::npos);

  // A client that sends half a request and stops: dropped after the read
  // timeout (1 s), while others are served meanwhile.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(rs.port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const std::string partial = "POST /predict HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n\r\n{\"inp";
  ASSERT_EQ(::send(fd, partial.data(), partial.size(), 0), static_cast<ssize_t>(partial.size()));
  r = post(R"({"inputs": {"mach": 0.5, "alpha_deg": 0}})");
  EXPECT_EQ(r->status, 200);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  const auto t0 = std::chrono::steady_clock::now();
  char buf[256];
  const ssize_t got_bytes = ::recv(fd, buf, sizeof(buf), 0);  // 0 (closed) or an error answer
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ::close(fd);
  EXPECT_GE(got_bytes, 0);
  EXPECT_LT(waited, 4.0) << "the slow client was not dropped";
  r = post(R"({"inputs": {"mach": 0.5, "alpha_deg": 0}})");
  EXPECT_EQ(r->status, 200) << "the server stopped serving after a slow client";

  // /metrics counts exactly what happened. A request is counted after its
  // answer has gone out (and the slow client's when its read times out),
  // so on a loaded machine the last counts may land a moment after the
  // client saw the answer: read /metrics until they are all there, for at
  // most 5 s.
  const std::vector<std::string> expected = {
      "camber_requests_total{path=\"/predict\",code=\"200\"} " + std::to_string(ok),
      "camber_requests_total{path=\"/predict\",code=\"400\"} 5",
      "camber_requests_total{path=\"/predict\",code=\"413\"} 1",
      "camber_requests_total{path=\"other\",code=\"404\"} 1"};
  std::string text;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto mt = c.Get("/metrics");
    ASSERT_TRUE(mt);
    text = mt->body;
    bool all = rs.server->metrics().errors() == static_cast<std::uint64_t>(bad) + 2;
    for (const std::string& e : expected) all = all && text.find(e) != std::string::npos;
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(text.find("# TYPE camber_request_duration_seconds histogram"), std::string::npos);
  EXPECT_NE(text.find("camber_requests_total{path=\"/predict\",code=\"200\"} " + std::to_string(ok)),
            std::string::npos) << text;
  // The four bad bodies, and the slow client's request (400 when its body
  // does not arrive in time).
  EXPECT_NE(text.find("camber_requests_total{path=\"/predict\",code=\"400\"} 5"), std::string::npos) << text;
  EXPECT_NE(text.find("camber_requests_total{path=\"/predict\",code=\"413\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("camber_requests_total{path=\"other\",code=\"404\"} 1"), std::string::npos) << text;
  EXPECT_EQ(rs.server->metrics().errors(), static_cast<std::uint64_t>(bad) + 2);  // + 404, slow client
}

TEST(ServeHttp, ConcurrentClientsAndStopWithRequestsInFlight) {
  serve::ServeOptions o;
  o.max_wait = std::chrono::microseconds(2000);
  auto rs = std::make_unique<RunningServer>(o);
  const int port = rs->port;
  const nn::io::Model reference = test_model();
  // Rows evaluated in a batch may differ from a lone row's in the last bits
  // (the GEMM blocks differently), hence a round-off tolerance.
  std::atomic<int> wrong{0}, answered{0}, failed{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 16; ++t)
    clients.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port);
      c.set_keep_alive(true);
      for (int k = 0; k < 25; ++k) {
        const double mach = 0.3 + 0.01 * t, alpha = -2.0 + 0.2 * k;
        json req{{"inputs", {{"mach", mach}, {"alpha_deg", alpha}}}};
        auto r = c.Post("/predict", req.dump(), "application/json");
        if (!r || r->status != 200) {
          ++failed;
          if (r) ADD_FAILURE() << r->status << " " << r->body;
          else ADD_FAILURE() << "no answer: " << httplib::to_string(r.error());
          continue;
        }
        const double cl = json::parse(r->body)["outputs"]["CL"].get<double>();
        const double want = reference.surrogate.predict(Tensor::from_host({1, 2}, {mach, alpha})).to_vector()[0];
        if (std::abs(cl - want) > 1e-13 * (1.0 + std::abs(want))) ++wrong;
        ++answered;
      }
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(answered.load(), 400);
  const std::string metrics = rs->server->metrics().prometheus_text();
  // Batching happened: fewer network evaluations than requests.
  const size_t at = metrics.find("camber_batch_rows_count ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(std::stol(metrics.substr(at + 24)), 400) << metrics;

  // Stop while clients keep sending: every answer that arrives is complete
  // and correct, and run() returns.
  std::atomic<bool> go{true};
  std::atomic<int> complete{0}, broken{0};
  std::vector<std::thread> late;
  for (int t = 0; t < 4; ++t)
    late.emplace_back([&] {
      httplib::Client c("127.0.0.1", port);
      while (go) {
        auto r = c.Post("/predict", R"({"inputs": {"mach": 0.5, "alpha_deg": 1}})", "application/json");
        if (!r) continue;  // refused after the stop
        if (r->status == 200 && json::parse(r->body)["outputs"].contains("CL"))
          ++complete;
        else
          ++broken;
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto t0 = std::chrono::steady_clock::now();
  rs.reset();  // stop() and join run()
  const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  go = false;
  for (auto& t : late) t.join();
  EXPECT_GT(complete.load(), 0);
  EXPECT_EQ(broken.load(), 0);
  EXPECT_LT(stop_s, 5.0);
}

}  // namespace
