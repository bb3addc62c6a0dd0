/// @file
/// The JSON of the inference server's POST /predict, parsed and checked
/// against the model's input columns, and its response. Pure functions of
/// text (no network, no Kokkos), so they are unit-tested and fuzzed alone.
///
/// A request names every input of the model, in the model card's units:
/// @code
///   {"inputs": {"mach": 0.5, "alpha_deg": 2.0}}                   one row
///   {"inputs": [{"mach": 0.5, "alpha_deg": 2.0}, {...}, ...]}     many rows
///   {"inputs": ..., "units": {"alpha_deg": "deg"}}                units checked
/// @endcode
/// and the response names every output:
/// @code
///   {"outputs": {"CL": 0.25, "CD": 0.064, "CM": -0.011}}          one row
///   {"outputs": [{...}, ...]}                                      many rows
/// @endcode
/// Anything else is a RequestError with an HTTP status (400 for malformed
/// JSON, a wrong shape, an unknown or missing name, a value that is not a
/// finite number, a unit that differs; 413 for more rows than allowed) and
/// a message that says what is wrong.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace camber::nn::serve {

/// The model's columns as the request sees them.
struct ColumnSchema {
  std::vector<std::string> names;
  std::vector<std::string> units;  ///< one per name ("" for none)
};

class RequestError : public std::runtime_error {
 public:
  RequestError(int status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

struct PredictRequest {
  std::vector<double> rows;  ///< row-major {n_rows, inputs.names.size()}
  std::size_t n_rows = 0;
  bool single = false;  ///< one object, not an array: answer with one object
};

/// Throws RequestError; `max_rows` bounds the rows of one request.
PredictRequest parse_predict_request(std::string_view body, const ColumnSchema& inputs,
                                     std::size_t max_rows);

/// `outputs` row-major {n_rows, names.size()}.
std::string format_predict_response(const std::vector<double>& outputs, std::size_t n_rows,
                                    const ColumnSchema& schema, bool single);

/// {"error": message} (what every 4xx and 5xx answer carries). A message
/// over max_error_bytes is cut there (a request's bytes are never echoed
/// whole).
std::string format_error(const std::string& message);
inline constexpr std::size_t max_error_bytes = 1024;

/// `text` taken from a request, as an error message quotes it: its first
/// `max_bytes` bytes, and its length when it is longer ("aaaa... (70000
/// bytes)"), so that no message repeats a large input.
inline constexpr std::size_t max_excerpt_bytes = 64;
std::string excerpt(std::string_view text, std::size_t max_bytes = max_excerpt_bytes);

/// "a, b, c": names in an error message.
std::string name_list(const std::vector<std::string>& names);

}  // namespace camber::nn::serve
