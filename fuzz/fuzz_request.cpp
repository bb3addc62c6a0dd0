// Any bytes as the body of POST /predict and of the v2 protocol's POST
// .../infer: parse_predict_request and parse_infer_request must return a
// request or throw RequestError (a 4xx), never crash, hang or leak, and
// what they return must be consistent (rows x inputs values, all finite;
// the outputs asked for, each once); a parsed request's response and every
// error message must be valid JSON.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <camber/nn/serve/inference_protocol.hpp>
#include <camber/nn/serve/request.hpp>

namespace serve = camber::nn::serve;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const serve::ColumnSchema inputs{{"mach", "alpha_deg", "h"}, {"", "deg", "m"}};
  static const serve::ColumnSchema outputs{{"CL", "CD"}, {"", ""}};
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  try {
    const serve::PredictRequest r = serve::parse_predict_request(body, inputs, 64);
    if (r.n_rows < 1 || r.n_rows > 64 || r.rows.size() != r.n_rows * inputs.names.size()) std::abort();
    for (double v : r.rows)
      if (!std::isfinite(v)) std::abort();
    std::vector<double> y(r.n_rows * outputs.names.size(), 0.5);
    (void)nlohmann::json::parse(serve::format_predict_response(y, r.n_rows, outputs, r.single));
  } catch (const serve::RequestError& e) {
    if (e.status() != 400 && e.status() != 413) std::abort();
    (void)nlohmann::json::parse(serve::format_error(e.what()));  // throws (crash) if invalid
  }
  try {
    const serve::InferRequest r = serve::parse_infer_request(body, inputs, outputs, 64);
    if (r.n_rows < 1 || r.n_rows > 64 || r.rows.size() != r.n_rows * inputs.names.size()) std::abort();
    for (double v : r.rows)
      if (!std::isfinite(v)) std::abort();
    if (r.as_matrix != r.outputs.empty()) std::abort();
    for (std::size_t i = 0; i < r.outputs.size(); ++i) {
      if (r.outputs[i] >= outputs.names.size()) std::abort();
      for (std::size_t j = 0; j < i; ++j)
        if (r.outputs[j] == r.outputs[i]) std::abort();
    }
    std::vector<double> y(r.n_rows * outputs.names.size(), 0.5);
    (void)nlohmann::json::parse(serve::format_infer_response("m", "1", r, y, outputs));
  } catch (const serve::RequestError& e) {
    if (e.status() != 400 && e.status() != 413) std::abort();
    (void)nlohmann::json::parse(serve::format_error(e.what()));
  }
  return 0;
}
