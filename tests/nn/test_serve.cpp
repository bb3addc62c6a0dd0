// The inference server: the request parsers (Camber's and the v2
// protocol's) on good and bad JSON (without a network), the batcher under concurrent callers, and the HTTP server end
// to end on 127.0.0.1: predictions equal Surrogate::predict, malformed
// requests get 4xx with a JSON message and leave the server serving
// (malformed JSON, wrong names, wrong shapes, non-finite numbers, a body
// over the limit, a client that stops sending), /metrics counts what
// happened, concurrent clients, and stop() with requests in flight; several
// models and versions under the v2 protocol, with a replacement and their
// metrics.
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
#include <tuple>
#include <utility>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <camber/core/error.hpp>
#include <camber/nn/serve/batcher.hpp>
#include <camber/nn/serve/inference_protocol.hpp>
#include <camber/nn/serve/request.hpp>
#include <camber/nn/serve/server.hpp>

#include "running_server.hpp"

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

const serve::ColumnSchema out_schema{{"CL", "CD", "CM"}, {"", "", ""}};

std::pair<int, std::string> infer_error(const std::string& body, std::size_t max_rows = 100) {
  try {
    serve::parse_infer_request(body, schema, out_schema, max_rows);
  } catch (const serve::RequestError& e) {
    return {e.status(), e.what()};
  }
  return {200, ""};
}

TEST(ServeInferProtocol, ColumnsOrOneMatrixInTheModelsOrder) {
  // Per-column tensors, in any order, flat or nested to [rows, 1].
  serve::InferRequest r = serve::parse_infer_request(
      R"({"id": "q7", "parameters": {"x": 1},
          "inputs": [{"name": "alpha_deg", "shape": [2, 1], "datatype": "INT32", "data": [[1], [-2]],
                      "parameters": {"unit": "deg"}},
                     {"name": "mach", "shape": [2], "datatype": "FP32", "data": [0.5, 0.625]}]})",
      schema, out_schema, 10);
  EXPECT_EQ(r.id, "q7");
  EXPECT_EQ(r.n_rows, 2u);
  EXPECT_EQ(r.rows, (std::vector<double>{0.5, 1.0, 0.625, -2.0}));
  EXPECT_FALSE(r.as_matrix);
  EXPECT_EQ(r.outputs, (std::vector<std::size_t>{0, 1, 2}));
  const std::vector<double> y{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(json::parse(serve::format_infer_response("naca", "3", r, y, out_schema)), json::parse(R"(
      {"model_name": "naca", "model_version": "3", "id": "q7", "outputs": [
        {"name": "CL", "shape": [2], "datatype": "FP64", "data": [1, 4]},
        {"name": "CD", "shape": [2], "datatype": "FP64", "data": [2, 5]},
        {"name": "CM", "shape": [2], "datatype": "FP64", "data": [3, 6]}]})"));
  // Outputs picked by name, in the order asked.
  r = serve::parse_infer_request(
      R"({"inputs": [{"name": "mach", "shape": [1], "datatype": "FP64", "data": [0.5]},
                     {"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": [1]}],
          "outputs": [{"name": "CM"}, {"name": "CL", "parameters": {}}]})",
      schema, out_schema, 10);
  EXPECT_EQ(r.outputs, (std::vector<std::size_t>{2, 0}));
  EXPECT_EQ(json::parse(serve::format_infer_response("m", "1", r, {7, 8, 9}, out_schema))["outputs"][0],
            json::parse(R"({"name": "CM", "shape": [1], "datatype": "FP64", "data": [9]})"));
  // One tensor "inputs" of shape [rows, 2] (the ONNX export's input):
  // answered with one "outputs" tensor of shape [rows, 3].
  r = serve::parse_infer_request(
      R"({"inputs": [{"name": "inputs", "shape": [2, 2], "datatype": "FP64", "data": [[0.5, 1], [0.6, 2]]}]})",
      schema, out_schema, 10);
  EXPECT_TRUE(r.as_matrix);
  EXPECT_EQ(r.rows, (std::vector<double>{0.5, 1, 0.6, 2}));
  EXPECT_EQ(json::parse(serve::format_infer_response("m", "1", r, y, out_schema)), json::parse(R"(
      {"model_name": "m", "model_version": "1",
       "outputs": [{"name": "outputs", "shape": [2, 3], "datatype": "FP64", "data": [1, 2, 3, 4, 5, 6]}]})"));
  EXPECT_EQ(json::parse(serve::format_model_metadata("naca", {"1", "2"}, schema, out_schema)), json::parse(R"(
      {"name": "naca", "versions": ["1", "2"], "platform": "camber",
       "inputs": [{"name": "mach", "datatype": "FP64", "shape": [-1], "parameters": {"unit": ""}},
                  {"name": "alpha_deg", "datatype": "FP64", "shape": [-1], "parameters": {"unit": "deg"}}],
       "outputs": [{"name": "CL", "datatype": "FP64", "shape": [-1], "parameters": {"unit": ""}},
                   {"name": "CD", "datatype": "FP64", "shape": [-1], "parameters": {"unit": ""}},
                   {"name": "CM", "datatype": "FP64", "shape": [-1], "parameters": {"unit": ""}}]})"));
}

TEST(ServeInferProtocol, BadRequestsAre4xxSayingWhatIsWrong) {
  const std::string mach1 = R"({"name": "mach", "shape": [1], "datatype": "FP64", "data": [0.5]})";
  const std::string alpha1 = R"({"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": [1]})";
  auto with = [&](const std::string& tensors, const std::string& rest = "") {
    return R"({"inputs": [)" + tensors + "]" + rest + "}";
  };
  const std::vector<std::tuple<std::string, int, std::string>> cases = {
      {"{", 400, "malformed JSON"},
      {"[]", 400, "JSON object"},
      {R"({"outputs": []})", 400, "no 'inputs'"},
      {R"({"inputs": []})", 400, "non-empty array"},
      {with(mach1 + "," + alpha1, R"(, "model": 1)"), 400, "unknown field 'model'"},
      {with(mach1 + "," + alpha1, R"(, "id": 3)"), 400, "'id' must be a string"},
      {with(mach1), 400, "input 'alpha_deg' is missing"},
      {with(mach1 + "," + alpha1 + "," + mach1), 400, "'mach' is given twice"},
      {with(mach1 + R"(, {"name": "beta", "shape": [1], "datatype": "FP64", "data": [1]})"), 400,
       "'beta' is not an input"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "BYTES", "data": ["a"]})"), 400,
       "'BYTES' is not a numeric datatype"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "INT32", "data": [1.5]})"), 400,
       "is not an integer"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "INT8", "data": [300]})"), 400,
       "out of the range of INT8"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "UINT8", "data": [-1]})"), 400,
       "out of the range of UINT8"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [2], "datatype": "FP64", "data": [1]})"), 400,
       "has 1 values; its shape [2] holds 2"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": [1, 2]})"), 400,
       "more values than its shape holds"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": [[1]]})"), 400,
       "nested deeper"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": 1})"), 400,
       ".data must be an array"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": ["1"]})"), 400,
       "holds a string, not a number"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [-1], "datatype": "FP64", "data": [1]})"), 400,
       "non-negative integers"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1, 1, 1], "datatype": "FP64", "data": [1]})"), 400,
       "1 or 2 dimensions"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1, 2], "datatype": "FP64", "data": [1, 2]})"), 400,
       "shape [rows] or [rows, 1]"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [2], "datatype": "FP64", "data": [1, 2]})"), 400,
       "'alpha_deg' has 2 rows, 'mach' 1"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": [1],
                          "parameters": {"unit": "rad"}})"), 400, "parameters.unit is 'rad', the model takes 'deg'"},
      {with(mach1 + R"(, {"name": "alpha_deg", "shape": [1], "datatype": "FP64", "data": [1e400]})"), 400,
       "malformed JSON"},
      {with(R"({"name": "mach", "shape": [0], "datatype": "FP64", "data": []},
               {"name": "alpha_deg", "shape": [0], "datatype": "FP64", "data": []})"), 400, "has no rows"},
      {with(R"({"name": "inputs", "shape": [1, 3], "datatype": "FP64", "data": [1, 2, 3]})"), 400,
       "must have shape [rows, 2]"},
      {with(mach1 + "," + alpha1, R"(, "outputs": [{"name": "CX"}])"), 400, "'CX' is not an output"},
      {with(mach1 + "," + alpha1, R"(, "outputs": [{"name": "CL"}, {"name": "CL"}])"), 400, "asked twice"},
      {with(mach1 + "," + alpha1, R"(, "outputs": [{"name": "CL"}, {"name": "outputs"}])"), 400,
       "'outputs' alone"},
      {with(mach1 + "," + alpha1, R"(, "outputs": [{"name": "CL", "shape": [1]}])"), 400,
       "unknown field 'shape'"},
      {with(R"({"name": "mach", "shape": [101], "datatype": "FP64", "data": []})"), 413, "over this server's 100 rows"},
      {with(R"({"name": "mach", "shape": [1000000000000], "datatype": "FP64", "data": []})"), 413, "100 rows"},
      {with(R"({"name": "inputs", "shape": [200, 150], "datatype": "FP64", "data": []})"), 413, "100 rows"},
  };
  for (const auto& [body, status, says] : cases) {
    const auto [got, message] = infer_error(body);
    EXPECT_EQ(got, status) << body << "\n" << message;
    EXPECT_NE(message.find(says), std::string::npos) << body << "\n" << message;
    EXPECT_NO_THROW(json::parse(serve::format_error(message)));
  }
  // 100 rows pass, in both forms.
  std::string data;
  for (int i = 0; i < 100; ++i) data += std::string(i ? "," : "") + "0.5";
  EXPECT_EQ(infer_error(with(R"({"name": "mach", "shape": [100], "datatype": "FP64", "data": [)" + data +
                             R"(]}, {"name": "alpha_deg", "shape": [100], "datatype": "FP64", "data": [)" +
                             data + "]}")).first, 200);
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

nn::io::Model test_model(std::uint64_t seed = 3) {
  nn::NetworkSpec spec;
  spec.in = 2;
  spec.out = 3;
  spec.hidden = {16, 16};
  nn::Rng rng(seed);
  auto net = nn::make_network(spec, rng);
  nn::Surrogate s(spec, net->parameter_values(), {{"mach", "alpha_deg"}, {"", "deg"}},
                  {{"CL", "CD", "CM"}, {"", "", ""}}, {{0.5, 1.0}, {0.1, 2.0}},
                  {{0.2, 0.05, -0.01}, {0.2, 0.01, 0.01}});
  nn::io::ModelCard card;
  card.data_path = "data.h5";
  card.validation_rmse = {1e-3, 2e-4, 3e-4};
  return nn::io::Model{std::move(s), card, 1, 0, std::string(64, 'f')};
}

struct RunningServer : camber::test::RunningServer {
  explicit RunningServer(serve::ServeOptions o) : camber::test::RunningServer(test_model(), std::move(o)) {}
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

TEST(ServeHttp, SeveralModelsAndVersionsUnderTheV2Protocol) {
  serve::ServeOptions o;
  o.port = 0;
  std::vector<serve::NamedModel> models;
  models.push_back({"naca", "1", test_model(3)});
  models.push_back({"naca", "2", test_model(4)});
  models.push_back({"wing", "7", test_model(5)});
  serve::InferenceServer server(std::move(models), o);
  const int port = server.bind();
  std::thread thread([&] { server.run(); });
  httplib::Client c("127.0.0.1", port);
  for (int i = 0; i < 200 && !c.Get("/v2/health/live"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));

  const std::vector<double> x{0.55, 2.0, 0.45, -1.0};
  auto want = [&](std::uint64_t seed) { return test_model(seed).surrogate.predict(Tensor::from_host({2, 2}, x)).to_vector(); };
  const json body = json::parse(R"({"id": "a1", "inputs": [
      {"name": "mach", "shape": [2], "datatype": "FP64", "data": [0.55, 0.45]},
      {"name": "alpha_deg", "shape": [2], "datatype": "FP64", "data": [2.0, -1.0]}]})");
  auto infer = [&](const std::string& path) {
    auto r = c.Post(path, body.dump(), "application/json");
    EXPECT_TRUE(r) << path;
    return r;
  };
  // A name alone is its first version; each answer names its version and
  // equals that model's prediction exactly.
  for (const auto& [path, version, seed] :
       std::vector<std::tuple<std::string, std::string, std::uint64_t>>{
           {"/v2/models/naca/infer", "1", 3}, {"/v2/models/naca/versions/1/infer", "1", 3},
           {"/v2/models/naca/versions/2/infer", "2", 4}, {"/v2/models/wing/infer", "7", 5}}) {
    auto r = infer(path);
    ASSERT_EQ(r->status, 200) << path << " " << r->body;
    const json a = json::parse(r->body);
    EXPECT_EQ(a["model_name"], path.find("wing") != std::string::npos ? "wing" : "naca");
    EXPECT_EQ(a["model_version"], version) << path;
    EXPECT_EQ(a["id"], "a1");
    const std::vector<double> w = want(seed);
    ASSERT_EQ(a["outputs"].size(), 3u);
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(a["outputs"][k]["name"], std::vector<std::string>({"CL", "CD", "CM"})[k]);
      EXPECT_EQ(a["outputs"][k]["data"][0].get<double>(), w[k]) << path;
      EXPECT_EQ(a["outputs"][k]["data"][1].get<double>(), w[3 + k]) << path;
    }
  }
  // /predict is the first model's.
  auto p = c.Post("/predict", R"({"inputs": {"mach": 0.55, "alpha_deg": 2.0}})", "application/json");
  ASSERT_TRUE(p);
  EXPECT_EQ(json::parse(p->body)["outputs"]["CL"].get<double>(), want(3)[0]);

  // Metadata, readiness, health.
  auto m = c.Get("/v2/models/naca");
  ASSERT_TRUE(m);
  EXPECT_EQ(json::parse(m->body)["versions"], json::parse(R"(["1", "2"])"));
  EXPECT_EQ(json::parse(m->body)["inputs"][1]["parameters"]["unit"], "deg");
  EXPECT_EQ(json::parse(c.Get("/v2/models/wing/versions/7/ready")->body), json::parse(R"({"name": "wing", "ready": true})"));
  EXPECT_EQ(json::parse(c.Get("/v2/models/naca/versions/2/card")->body)["validation_rmse"][1], 2e-4);
  EXPECT_EQ(c.Get("/v2/health/ready")->status, 200);
  EXPECT_EQ(json::parse(c.Get("/v2")->body)["name"], "camber");

  // Unknown models and versions, bad paths and bad bodies: 4xx with JSON.
  for (const std::string path : {"/v2/models/naca/versions/3/infer", "/v2/models/nope/infer"}) {
    auto r = infer(path);
    EXPECT_EQ(r->status, 404) << path;
    EXPECT_NE(json::parse(r->body)["error"].get<std::string>().find("served: naca@1, naca@2, wing@7"),
              std::string::npos) << r->body;
  }
  EXPECT_EQ(c.Get("/v2/models/naca/versions/3")->status, 404);
  EXPECT_EQ(c.Get("/v2/models/naca/versions/x/ready")->status, 404);
  auto bad_path = c.Post("/v2/models/" + std::string(100, 'a') + "/infer", body.dump(), "application/json");
  ASSERT_TRUE(bad_path);
  EXPECT_EQ(bad_path->status, 404);
  EXPECT_TRUE(json::parse(bad_path->body).contains("error"));
  auto bad = c.Post("/v2/models/naca/versions/2/infer", R"({"inputs": [{"name": "mach"}]})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(json::parse(bad->body)["error"].get<std::string>().find("no 'shape'"), std::string::npos);

  // A new version of wing takes over: 7 is gone, 8 answers.
  server.replace_model(2, "8", test_model(6));
  EXPECT_EQ(server.model_version(2), "8");
  EXPECT_EQ(infer("/v2/models/wing/versions/7/infer")->status, 404);
  auto r8 = infer("/v2/models/wing/infer");
  ASSERT_EQ(r8->status, 200);
  EXPECT_EQ(json::parse(r8->body)["model_version"], "8");
  EXPECT_EQ(json::parse(r8->body)["outputs"][0]["data"][0].get<double>(), want(6)[0]);

  // Counted per model and version.
  std::string text;
  const std::vector<std::string> expected = {
      R"(camber_model_requests_total{model="naca",version="1",code="200"} 3)",
      R"(camber_model_requests_total{model="naca",version="2",code="200"} 1)",
      R"(camber_model_requests_total{model="naca",version="2",code="400"} 1)",
      R"(camber_model_requests_total{model="wing",version="7",code="200"} 1)",
      R"(camber_model_requests_total{model="wing",version="8",code="200"} 1)",
      R"(camber_model_loaded{model="wing",version="7"} 0)",
      R"(camber_model_loaded{model="wing",version="8"} 1)",
      R"(camber_model_predicted_rows_total{model="naca",version="1"} 5)",
      R"(camber_model_request_duration_seconds_count{model="wing",version="8"} 1)",
      R"(camber_model_batch_rows_bucket{model="naca",version="2",le="2"} 1)",
      R"(camber_requests_total{path="/v2/models/{name}/infer",code="404"} 4)"};
  for (int attempt = 0; attempt < 100; ++attempt) {
    text = c.Get("/metrics")->body;
    bool all = true;
    for (const std::string& e : expected) all = all && text.find(e) != std::string::npos;
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (const std::string& e : expected) EXPECT_NE(text.find(e), std::string::npos) << e << "\n" << text;
  server.stop();
  thread.join();
}

TEST(ServeHttp, ModelNamesAndVersionsAreChecked) {
  auto make = [](std::vector<std::pair<std::string, std::string>> named) {
    std::vector<serve::NamedModel> models;
    for (auto& [n, v] : named) models.push_back({n, v, test_model()});
    serve::InferenceServer server(std::move(models), {});
  };
  EXPECT_NO_THROW(make({{"naca-0012_v1.5", "1"}, {"naca-0012_v1.5", "2"}}));
  for (const auto& named : std::vector<std::vector<std::pair<std::string, std::string>>>{
           {}, {{"", "1"}}, {{".hidden", "1"}}, {{"a/b", "1"}}, {{std::string(65, 'a'), "1"}},
           {{"naca", ""}}, {{"naca", "v1"}}, {{"naca", "1"}, {"naca", "1"}}})
    EXPECT_THROW(make(named), camber::Error);
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
