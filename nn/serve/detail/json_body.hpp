// A request body parsed as a JSON object, or the 400 that says why not
// (private to nn_serve: request.cpp and inference_protocol.cpp).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include <camber/nn/serve/request.hpp>

namespace camber::nn::serve::detail {

/// The body as an object whose keys are all in `fields` (named in the
/// messages).
inline nlohmann::json json_object_body(std::string_view body, std::initializer_list<const char*> fields) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(body.begin(), body.end());
  } catch (const nlohmann::json::exception& e) {
    // The parser's message quotes the token it stopped at, which can be
    // the whole body: its first 256 bytes say what is wrong.
    throw RequestError(400, "malformed JSON: " + excerpt(e.what(), 256));
  }
  if (!doc.is_object()) throw RequestError(400, "the request must be a JSON object with 'inputs'");
  for (const auto& [key, value] : doc.items()) {
    bool known = false;
    std::string names;
    for (const char* f : fields) {
      known = known || key == f;
      names += (names.empty() ? "" : ", ") + std::string(f);
    }
    if (!known) throw RequestError(400, "unknown field '" + excerpt(key) + "' (" + names + ")");
  }
  return doc;
}

}  // namespace camber::nn::serve::detail
