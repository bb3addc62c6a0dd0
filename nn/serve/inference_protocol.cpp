#include <camber/nn/serve/inference_protocol.hpp>

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "detail/json_body.hpp"

namespace camber::nn::serve {

namespace {

using json = nlohmann::json;

// The protocol's numeric datatypes, with the values each can hold.
struct Datatype {
  const char* name;
  double lo, hi;
  bool integral;
};

constexpr Datatype datatypes[] = {
    {"FP64", -std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), false},
    {"FP32", -3.4028234663852886e38, 3.4028234663852886e38, false},
    {"FP16", -65504.0, 65504.0, false},
    {"BF16", -3.3895313892515355e38, 3.3895313892515355e38, false},
    {"INT8", -128.0, 127.0, true},
    {"INT16", -32768.0, 32767.0, true},
    {"INT32", -2147483648.0, 2147483647.0, true},
    {"INT64", -9223372036854775808.0, 9223372036854775807.0, true},
    {"UINT8", 0.0, 255.0, true},
    {"UINT16", 0.0, 65535.0, true},
    {"UINT32", 0.0, 4294967295.0, true},
    {"UINT64", 0.0, 18446744073709551615.0, true},
};

const Datatype& datatype_of(const json& v, const std::string& where) {
  if (!v.is_string()) throw RequestError(400, where + ".datatype must be a string");
  const std::string name = v.get<std::string>();
  for (const Datatype& d : datatypes)
    if (name == d.name) return d;
  std::string known;
  for (const Datatype& d : datatypes) known += (known.empty() ? "" : ", ") + std::string(d.name);
  throw RequestError(400, where + ".datatype '" + excerpt(name) + "' is not a numeric datatype (" + known + ")");
}

// One input tensor as sent: its name, shape and values (row-major).
struct Tensor {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<double> values;
};

// "data", flat or nested to the shape's rank, into `out` (at most `limit`
// values; the recursion is bounded by the rank).
void flatten(const json& node, std::size_t depth, std::size_t rank, const Datatype& type,
             std::size_t limit, const std::string& where, std::vector<double>& out) {
  if (node.is_array()) {
    if (depth == rank)
      throw RequestError(400, where + ".data is nested deeper than its shape's " +
                                  std::to_string(rank) + " dimensions");
    for (const json& e : node) flatten(e, depth + 1, rank, type, limit, where, out);
    return;
  }
  if (depth == 0) throw RequestError(400, where + ".data must be an array");
  if (!node.is_number())
    throw RequestError(400, where + ".data holds a " + std::string(node.type_name()) +
                                ", not a number");
  const double v = node.get<double>();
  const std::string at = where + ".data[" + std::to_string(out.size()) + "]";
  if (!std::isfinite(v)) throw RequestError(400, at + " is not finite");
  if (type.integral && v != std::floor(v))
    throw RequestError(400, at + " = " + excerpt(node.dump()) + " is not an integer, as " + type.name + " needs");
  if (v < type.lo || v > type.hi)
    throw RequestError(400, at + " = " + excerpt(node.dump()) + " is out of the range of " + type.name);
  if (out.size() == limit)
    throw RequestError(400, where + ".data has more values than its shape holds (" +
                                std::to_string(limit) + ")");
  out.push_back(v);
}

Tensor parse_tensor(const json& t, std::size_t index, const ColumnSchema& inputs,
                    std::size_t max_rows) {
  const std::string where = "inputs[" + std::to_string(index) + "]";
  if (!t.is_object()) throw RequestError(400, where + " must be a tensor object (name, shape, datatype, data)");
  for (const auto& [key, value] : t.items())
    if (key != "name" && key != "shape" && key != "datatype" && key != "data" && key != "parameters")
      throw RequestError(400, where + ": unknown field '" + excerpt(key) + "' (name, shape, datatype, data, parameters)");
  for (const char* key : {"name", "shape", "datatype", "data"})
    if (!t.contains(key)) throw RequestError(400, where + ": no '" + key + "'");
  Tensor out;
  if (!t["name"].is_string()) throw RequestError(400, where + ".name must be a string");
  out.name = t["name"].get<std::string>();
  const std::string named = where + " ('" + excerpt(out.name) + "')";
  const Datatype& type = datatype_of(t["datatype"], named);
  const json& shape = t["shape"];
  if (!shape.is_array() || shape.empty() || shape.size() > 2)
    throw RequestError(400, named + ".shape must be an array of 1 or 2 dimensions");
  std::size_t count = 1;
  for (const json& d : shape) {
    if (!d.is_number_integer() || d.get<std::int64_t>() < 0)
      throw RequestError(400, named + ".shape must hold non-negative integers, got " + excerpt(shape.dump()));
    const std::uint64_t n = d.get<std::uint64_t>();
    // A row count over the limit is 413 (checked again per kind below);
    // this guards the product against overflow first.
    if (n > max_rows * std::max<std::size_t>(1, inputs.names.size()))
      throw RequestError(413, named + ".shape " + shape.dump() + " is over this server's " +
                                  std::to_string(max_rows) + " rows per request");
    out.shape.push_back(static_cast<std::size_t>(n));
    count *= static_cast<std::size_t>(n);
  }
  // The first dimension is the rows in either form.
  if (out.shape[0] > max_rows)
    throw RequestError(413, named + ".shape " + shape.dump() + " is over this server's " +
                                std::to_string(max_rows) + " rows per request");
  if (count > max_rows * std::max<std::size_t>(1, inputs.names.size()))
    throw RequestError(413, named + ".shape " + shape.dump() + " holds " + std::to_string(count) +
                                " values, over this server's " + std::to_string(max_rows) +
                                " rows per request");
  if (t.contains("parameters")) {
    const json& p = t["parameters"];
    if (!p.is_object()) throw RequestError(400, named + ".parameters must be an object");
    const auto unit = p.find("unit");
    if (unit != p.end()) {
      if (!unit->is_string()) throw RequestError(400, named + ".parameters.unit must be a string");
      for (std::size_t k = 0; k < inputs.names.size(); ++k)
        if (inputs.names[k] == out.name && inputs.units[k] != unit->get<std::string>())
          throw RequestError(400, named + ".parameters.unit is '" + excerpt(unit->get<std::string>()) +
                                      "', the model takes '" + inputs.units[k] + "'");
    }
  }
  out.values.reserve(count);
  flatten(t["data"], 0, shape.size(), type, count, named, out.values);
  if (out.values.size() != count)
    throw RequestError(400, named + ".data has " + std::to_string(out.values.size()) +
                                " values; its shape " + shape.dump() + " holds " + std::to_string(count));
  return out;
}

std::size_t column_of(const std::vector<std::string>& names, const std::string& name) {
  std::size_t k = 0;
  while (k < names.size() && names[k] != name) ++k;
  return k;
}

void check_rows(std::size_t n, const std::string& named, std::size_t max_rows) {
  if (n == 0) throw RequestError(400, named + " has no rows");
  if (n > max_rows)
    throw RequestError(413, named + " has " + std::to_string(n) + " rows; this server takes at most " +
                                std::to_string(max_rows) + " per request");
}

json tensor_json(const std::string& name, std::vector<std::size_t> shape, std::vector<double> data) {
  return {{"name", name}, {"shape", std::move(shape)}, {"datatype", "FP64"}, {"data", std::move(data)}};
}

}  // namespace

InferRequest parse_infer_request(std::string_view body, const ColumnSchema& inputs,
                                 const ColumnSchema& outputs, std::size_t max_rows) {
  const json doc = detail::json_object_body(body, {"id", "parameters", "inputs", "outputs"});
  InferRequest r;
  if (doc.contains("id")) {
    if (!doc["id"].is_string()) throw RequestError(400, "'id' must be a string");
    r.id = doc["id"].get<std::string>();
  }
  if (doc.contains("parameters") && !doc["parameters"].is_object())
    throw RequestError(400, "'parameters' must be an object");
  const auto in = doc.find("inputs");
  if (in == doc.end()) throw RequestError(400, "no 'inputs' in the request");
  if (!in->is_array() || in->empty())
    throw RequestError(400, "'inputs' must be a non-empty array of tensors");

  const std::size_t n_in = inputs.names.size();
  std::vector<Tensor> tensors;
  for (std::size_t i = 0; i < in->size(); ++i) {
    tensors.push_back(parse_tensor((*in)[i], i, inputs, max_rows));
    for (std::size_t j = 0; j + 1 < tensors.size(); ++j)
      if (tensors[j].name == tensors.back().name)
        throw RequestError(400, "inputs: tensor '" + excerpt(tensors.back().name) + "' is given twice");
  }
  const bool matrix = column_of(inputs.names, "inputs") == n_in &&
                      tensors.size() == 1 && tensors[0].name == "inputs";
  if (matrix) {
    const Tensor& t = tensors[0];
    if (t.shape.size() != 2 || t.shape[1] != n_in)
      throw RequestError(400, "inputs[0] ('inputs') must have shape [rows, " + std::to_string(n_in) +
                                  "] (" + name_list(inputs.names) + ")");
    check_rows(t.shape[0], "inputs[0] ('inputs')", max_rows);
    r.n_rows = t.shape[0];
    r.rows = t.values;
  } else {
    std::vector<const Tensor*> column(n_in, nullptr);
    for (const Tensor& t : tensors) {
      const std::size_t k = column_of(inputs.names, t.name);
      if (k == n_in)
        throw RequestError(400, "inputs: '" + excerpt(t.name) + "' is not an input of the model (" +
                                    name_list(inputs.names) + ", or one tensor 'inputs' of shape [rows, " +
                                    std::to_string(n_in) + "])");
      if (t.shape.size() == 2 && t.shape[1] != 1)
        throw RequestError(400, "inputs: '" + excerpt(t.name) + "' must have shape [rows] or [rows, 1]");
      column[k] = &t;
    }
    for (std::size_t k = 0; k < n_in; ++k)
      if (column[k] == nullptr) throw RequestError(400, "inputs: input '" + inputs.names[k] + "' is missing");
    r.n_rows = column[0]->shape[0];
    check_rows(r.n_rows, "inputs: '" + inputs.names[0] + "'", max_rows);
    for (std::size_t k = 1; k < n_in; ++k)
      if (column[k]->shape[0] != r.n_rows)
        throw RequestError(400, "inputs: '" + inputs.names[k] + "' has " +
                                    std::to_string(column[k]->shape[0]) + " rows, '" +
                                    inputs.names[0] + "' " + std::to_string(r.n_rows));
    r.rows.resize(r.n_rows * n_in);
    for (std::size_t i = 0; i < r.n_rows; ++i)
      for (std::size_t k = 0; k < n_in; ++k) r.rows[i * n_in + k] = column[k]->values[i];
  }

  const auto out = doc.find("outputs");
  if (out != doc.end()) {
    if (!out->is_array()) throw RequestError(400, "'outputs' must be an array of {\"name\": ...}");
    for (std::size_t i = 0; i < out->size(); ++i) {
      const json& o = (*out)[i];
      const std::string where = "outputs[" + std::to_string(i) + "]";
      if (!o.is_object() || !o.contains("name") || !o["name"].is_string())
        throw RequestError(400, where + " must be an object with a string 'name'");
      for (const auto& [key, value] : o.items())
        if (key != "name" && key != "parameters")
          throw RequestError(400, where + ": unknown field '" + excerpt(key) + "' (name, parameters)");
      const std::string name = o["name"].get<std::string>();
      const std::size_t k = column_of(outputs.names, name);
      if (k == outputs.names.size() && name == "outputs" && out->size() == 1) {
        r.as_matrix = true;
        continue;
      }
      if (k == outputs.names.size())
        throw RequestError(400, where + ": '" + excerpt(name) + "' is not an output of the model (" +
                                    name_list(outputs.names) + ", or 'outputs' alone)");
      for (std::size_t j : r.outputs)
        if (j == k) throw RequestError(400, where + ": output '" + name + "' is asked twice");
      r.outputs.push_back(k);
    }
  }
  if (r.outputs.empty() && !r.as_matrix) {
    if (matrix)
      r.as_matrix = true;
    else
      for (std::size_t k = 0; k < outputs.names.size(); ++k) r.outputs.push_back(k);
  }
  return r;
}

std::string format_infer_response(const std::string& model, const std::string& version,
                                  const InferRequest& r, const std::vector<double>& y,
                                  const ColumnSchema& outputs) {
  const std::size_t n_out = outputs.names.size();
  json doc = {{"model_name", model}, {"model_version", version}};
  if (!r.id.empty()) doc["id"] = r.id;
  doc["outputs"] = json::array();
  if (r.as_matrix) {
    doc["outputs"].push_back(tensor_json("outputs", {r.n_rows, n_out}, y));
  } else {
    for (std::size_t k : r.outputs) {
      std::vector<double> column(r.n_rows);
      for (std::size_t i = 0; i < r.n_rows; ++i) column[i] = y[i * n_out + k];
      doc["outputs"].push_back(tensor_json(outputs.names[k], {r.n_rows}, std::move(column)));
    }
  }
  // The id is the client's text: invalid UTF-8 in it is replaced.
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string format_model_metadata(const std::string& name, const std::vector<std::string>& versions,
                                  const ColumnSchema& inputs, const ColumnSchema& outputs) {
  auto tensors = [](const ColumnSchema& c) {
    json a = json::array();
    for (std::size_t k = 0; k < c.names.size(); ++k)
      a.push_back({{"name", c.names[k]},
                   {"datatype", "FP64"},
                   {"shape", {-1}},
                   {"parameters", {{"unit", c.units[k]}}}});
    return a;
  };
  const json doc = {{"name", name},
                    {"versions", versions},
                    {"platform", "camber"},
                    {"inputs", tensors(inputs)},
                    {"outputs", tensors(outputs)}};
  return doc.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace camber::nn::serve
