/// @file
/// The JSON of the KServe / Triton "v2" inference protocol (the Open
/// Inference Protocol's REST binding), as the server speaks it for
/// POST /v2/models/{name}[/versions/{v}]/infer and the model metadata.
/// Pure functions of text, like request.hpp: unit-tested and fuzzed alone.
///
/// A request gives the model's inputs as tensors, either one per input
/// column (shape [n] or [n, 1]), or all of them as one tensor named
/// "inputs" of shape [n, columns] in the model's column order (the input of
/// the ONNX export):
/// @code
///   {"id": "42",
///    "inputs": [{"name": "mach", "shape": [2], "datatype": "FP64", "data": [0.5, 0.6]},
///               {"name": "alpha_deg", "shape": [2], "datatype": "FP64", "data": [1, 2],
///                "parameters": {"unit": "deg"}}],
///    "outputs": [{"name": "CD"}]}
///   {"inputs": [{"name": "inputs", "shape": [2, 2], "datatype": "FP32",
///                "data": [[0.5, 1], [0.6, 2]]}]}
/// @endcode
/// "data" is row-major, flat or nested to the shape. Numeric datatypes only
/// (FP64, FP32, FP16, BF16, INT8..INT64, UINT8..UINT64; integer types need
/// integer values). "outputs" (optional) picks output columns by name, or
/// "outputs" for one [n, columns] tensor; without it the answer has one
/// tensor per output column, or the one "outputs" tensor when the request
/// sent the one "inputs" tensor:
/// @code
///   {"model_name": "naca", "model_version": "2", "id": "42",
///    "outputs": [{"name": "CD", "shape": [2], "datatype": "FP64", "data": [0.011, 0.012]}]}
/// @endcode
/// A "parameters" object is accepted at the top and on each tensor;
/// "unit" on an input tensor must equal the model's unit. Anything else is
/// a RequestError (400, or 413 for more rows than allowed) saying what is
/// wrong.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <camber/nn/serve/request.hpp>

namespace camber::nn::serve {

struct InferRequest {
  std::string id;            ///< echoed in the answer ("" when none)
  std::vector<double> rows;  ///< row-major {n_rows, inputs.names.size()}
  std::size_t n_rows = 0;
  /// The output columns to answer with, in order; `as_matrix`: one
  /// [n_rows, outputs.size()] tensor named "outputs" instead.
  std::vector<std::size_t> outputs;
  bool as_matrix = false;
};

/// Throws RequestError; `max_rows` bounds the rows of one request.
InferRequest parse_infer_request(std::string_view body, const ColumnSchema& inputs,
                                 const ColumnSchema& outputs, std::size_t max_rows);

/// `y` row-major {r.n_rows, outputs.names.size()} (every output column).
std::string format_infer_response(const std::string& model, const std::string& version,
                                  const InferRequest& r, const std::vector<double>& y,
                                  const ColumnSchema& outputs);

/// GET /v2/models/{name}[/versions/{v}]: the versions served and the
/// tensors (one FP64 tensor of shape [-1] per column, its unit in
/// "parameters").
std::string format_model_metadata(const std::string& name, const std::vector<std::string>& versions,
                                  const ColumnSchema& inputs, const ColumnSchema& outputs);

}  // namespace camber::nn::serve
