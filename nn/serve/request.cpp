#include <camber/nn/serve/request.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

#include "detail/json_body.hpp"

namespace camber::nn::serve {

namespace {

using json = nlohmann::json;

// One row from {"name": value, ...}: every input once, nothing else.
void parse_row(const json& object, const ColumnSchema& schema, std::size_t row, bool single,
               std::vector<double>& out) {
  const std::string where = single ? std::string("inputs") : "inputs[" + std::to_string(row) + "]";
  if (!object.is_object())
    throw RequestError(400, where + " must be an object of named inputs (" + name_list(schema.names) + ")");
  const std::size_t base = out.size();
  out.resize(base + schema.names.size(), 0.0);
  std::vector<bool> seen(schema.names.size(), false);
  for (const auto& [key, value] : object.items()) {
    std::size_t k = 0;
    while (k < schema.names.size() && schema.names[k] != key) ++k;
    if (k == schema.names.size())
      throw RequestError(400, where + ": '" + excerpt(key) + "' is not an input of the model (" +
                                  name_list(schema.names) + ")");
    if (!value.is_number())
      throw RequestError(400, where + "." + excerpt(key) + " must be a number, got " + value.type_name());
    const double v = value.get<double>();
    if (!std::isfinite(v)) throw RequestError(400, where + "." + excerpt(key) + " is not finite");
    out[base + k] = v;
    seen[k] = true;
  }
  for (std::size_t k = 0; k < schema.names.size(); ++k)
    if (!seen[k]) throw RequestError(400, where + ": input '" + schema.names[k] + "' is missing");
}

}  // namespace

PredictRequest parse_predict_request(std::string_view body, const ColumnSchema& schema,
                                     std::size_t max_rows) {
  const json doc = detail::json_object_body(body, {"inputs", "units"});
  const auto inputs = doc.find("inputs");
  if (inputs == doc.end()) throw RequestError(400, "no 'inputs' in the request");
  const auto units = doc.find("units");
  if (units != doc.end()) {
    if (!units->is_object()) throw RequestError(400, "'units' must be an object {input: unit}");
    for (const auto& [key, value] : units->items()) {
      std::size_t k = 0;
      while (k < schema.names.size() && schema.names[k] != key) ++k;
      if (k == schema.names.size())
        throw RequestError(400, "units: '" + excerpt(key) + "' is not an input of the model (" +
                                    name_list(schema.names) + ")");
      if (!value.is_string()) throw RequestError(400, "units." + excerpt(key) + " must be a string");
      if (value.get<std::string>() != schema.units[k])
        throw RequestError(400, "units." + excerpt(key) + " is '" + excerpt(value.get<std::string>()) +
                                    "', the model takes '" + schema.units[k] + "'");
    }
  }
  PredictRequest r;
  if (inputs->is_object()) {
    r.single = true;
    r.n_rows = 1;
    parse_row(*inputs, schema, 0, true, r.rows);
  } else if (inputs->is_array()) {
    if (inputs->empty()) throw RequestError(400, "'inputs' is an empty array");
    if (inputs->size() > max_rows)
      throw RequestError(413, "'inputs' has " + std::to_string(inputs->size()) +
                                  " rows; this server takes at most " + std::to_string(max_rows) +
                                  " per request");
    r.rows.reserve(inputs->size() * schema.names.size());
    for (std::size_t i = 0; i < inputs->size(); ++i) parse_row((*inputs)[i], schema, i, false, r.rows);
    r.n_rows = inputs->size();
  } else {
    throw RequestError(400, "'inputs' must be an object or an array of objects, got " +
                                std::string(inputs->type_name()));
  }
  return r;
}

std::string format_predict_response(const std::vector<double>& outputs, std::size_t n_rows,
                                    const ColumnSchema& schema, bool single) {
  const std::size_t n = schema.names.size();
  auto row = [&](std::size_t i) {
    json o = json::object();
    for (std::size_t k = 0; k < n; ++k) o[schema.names[k]] = outputs[i * n + k];
    return o;
  };
  json doc;
  if (single) {
    doc["outputs"] = row(0);
  } else {
    doc["outputs"] = json::array();
    for (std::size_t i = 0; i < n_rows; ++i) doc["outputs"].push_back(row(i));
  }
  return doc.dump();
}

std::string name_list(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string format_error(const std::string& message) {
  // Replace invalid UTF-8 (a request may echo bytes that are not text).
  const std::string cut = message.size() <= max_error_bytes
                              ? message
                              : message.substr(0, max_error_bytes) + "... (message cut at " +
                                    std::to_string(max_error_bytes) + " bytes)";
  return json{{"error", cut}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string excerpt(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  return std::string(text.substr(0, max_bytes)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace camber::nn::serve
