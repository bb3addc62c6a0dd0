#include <camber/nn/onnx/onnx_export.hpp>

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/version.hpp>

namespace camber::nn::onnx {

namespace {

// ONNX 1.12 writes IR version 8; opset 13 has every operator used here
// (and per-channel DequantizeLinear, for quantized exports).
constexpr std::int64_t ir_version = 8;
constexpr std::int64_t opset = 13;

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (size_t k = 0; k < v.size(); ++k) s += (k ? "," : "") + v[k];
  return s;
}

// Builds the graph node by node; every value gets a fresh name.
class GraphBuilder {
 public:
  GraphBuilder(::onnx::GraphProto* g, DType dtype) : g_(g), dtype_(dtype) {}

  int elem() const {
    return dtype_ == DType::float32 ? ::onnx::TensorProto::FLOAT : ::onnx::TensorProto::DOUBLE;
  }
  // A constant initializer of the graph's dtype.
  std::string constant(const std::string& hint, const std::vector<std::int64_t>& dims,
                       const std::vector<double>& values) {
    ::onnx::TensorProto* t = g_->add_initializer();
    const std::string name = fresh(hint);
    t->set_name(name);
    for (std::int64_t d : dims) t->add_dims(d);
    t->set_data_type(elem());
    for (double v : values) {
      if (dtype_ == DType::float32)
        t->add_float_data(static_cast<float>(v));
      else
        t->add_double_data(v);
    }
    return name;
  }
  // An int8 initializer (ONNX stores int8 widened in int32_data).
  std::string int8_constant(const std::string& hint, const std::vector<std::int64_t>& dims,
                            const std::vector<std::int8_t>& values) {
    ::onnx::TensorProto* t = g_->add_initializer();
    const std::string name = fresh(hint);
    t->set_name(name);
    for (std::int64_t d : dims) t->add_dims(d);
    t->set_data_type(::onnx::TensorProto::INT8);
    for (std::int8_t v : values) t->add_int32_data(v);
    return name;
  }
  ::onnx::NodeProto* last_node() { return g_->mutable_node(g_->node_size() - 1); }
  std::string scalar(double v) {
    auto it = scalars_.find(v);
    if (it != scalars_.end()) return it->second;
    const std::string name = constant("c", {}, {v});
    scalars_.emplace(v, name);
    return name;
  }
  std::string op(const std::string& type, const std::vector<std::string>& inputs,
                 const std::string& output = "") {
    ::onnx::NodeProto* n = g_->add_node();
    n->set_op_type(type);
    n->set_name(type + "_" + std::to_string(g_->node_size()));
    for (const std::string& i : inputs) n->add_input(i);
    const std::string out = output.empty() ? fresh(type) : output;
    n->add_output(out);
    return out;
  }
  std::string activation(Activation a, const std::string& z) {
    switch (a) {
      case Activation::identity: return z;
      case Activation::tanh: return op("Tanh", {z});
      case Activation::relu: return op("Relu", {z});
      case Activation::sin: return op("Sin", {z});
      case Activation::silu:
        // float64 as z / (1 + exp(-z)): ONNX Runtime 1.20 rewrites the
        // pattern z * Sigmoid(z) into its QuickGelu kernel, which exists for
        // float32 only, and then fails to load a float64 model.
        if (dtype_ == DType::float64)
          return op("Div", {z, op("Add", {op("Exp", {op("Neg", {z})}), scalar(1.0)})});
        return op("Mul", {z, op("Sigmoid", {z})});
      case Activation::gelu: {
        // 0.5 z (1 + tanh(sqrt(2/pi) (z + 0.044715 z^3)))
        const std::string z3 = op("Mul", {op("Mul", {z, z}), z});
        const std::string inner = op("Add", {z, op("Mul", {z3, scalar(0.044715)})});
        const std::string t = op("Tanh", {op("Mul", {inner, scalar(std::sqrt(2.0 / M_PI))})});
        return op("Mul", {op("Mul", {z, scalar(0.5)}), op("Add", {t, scalar(1.0)})});
      }
      case Activation::softplus: {
        // max(z, 0) + log(1 + exp(-|z|))
        const std::string e = op("Exp", {op("Neg", {op("Abs", {z})})});
        return op("Add", {op("Relu", {z}), op("Log", {op("Add", {e, scalar(1.0)})})});
      }
    }
    return z;
  }

 private:
  std::string fresh(const std::string& hint) { return hint + "_" + std::to_string(counter_++); }
  ::onnx::GraphProto* g_;
  DType dtype_;
  int counter_ = 0;
  std::map<double, std::string> scalars_;
};

void set_io(::onnx::ValueInfoProto* v, const std::string& name, int elem, std::int64_t cols,
            const std::string& doc) {
  v->set_name(name);
  v->set_doc_string(doc);
  ::onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  t->mutable_shape()->add_dim()->set_dim_param("N");
  t->mutable_shape()->add_dim()->set_dim_value(cols);
}

void add_meta(::onnx::ModelProto& m, const std::string& key, const std::string& value) {
  ::onnx::StringStringEntryProto* e = m.add_metadata_props();
  e->set_key(key);
  e->set_value(value);
}

std::string columns_doc(const Columns& c) {
  std::string s;
  for (size_t k = 0; k < c.names.size(); ++k)
    s += (k ? ", " : "") + c.names[k] + (c.units[k].empty() ? "" : " [" + c.units[k] + "]");
  return s;
}

}  // namespace

void export_onnx(const Surrogate& s, const std::string& path, const OnnxOptions& o) {
  const NetworkSpec& spec = s.spec();
  ::onnx::ModelProto model;
  model.set_ir_version(ir_version);
  model.set_producer_name("camber");
  model.set_producer_version(CAMBER_VERSION_STRING);
  model.set_model_version(1);
  model.set_doc_string("Camber surrogate: " + s.network().describe());
  ::onnx::OperatorSetIdProto* os = model.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  add_meta(model, "camber.inputs", joined(s.inputs().names));
  add_meta(model, "camber.input_units", joined(s.inputs().units));
  add_meta(model, "camber.outputs", joined(s.outputs().names));
  add_meta(model, "camber.output_units", joined(s.outputs().units));
  for (const auto& [k, v] : o.metadata) add_meta(model, k, v);

  ::onnx::GraphProto* g = model.mutable_graph();
  g->set_name(o.graph_name);
  GraphBuilder b(g, spec.dtype);
  set_io(g->add_input(), "inputs", b.elem(), spec.in, columns_doc(s.inputs()));
  set_io(g->add_output(), "outputs", b.elem(), spec.out, columns_doc(s.outputs()));

  // Normalisation as the inference plan applies it: x * (1/std) + (-mean/std).
  std::vector<double> scale, shift;
  for (size_t j = 0; j < s.input_stats().mean.size(); ++j) {
    scale.push_back(1.0 / s.input_stats().stddev[j]);
    shift.push_back(-s.input_stats().mean[j] / s.input_stats().stddev[j]);
  }
  std::string h = b.op("Add", {b.op("Mul", {"inputs", b.constant("in_scale", {spec.in}, scale)}),
                               b.constant("in_shift", {spec.in}, shift)});

  const auto named = s.network().named_parameters();
  size_t layer = 0;
  const auto dense = [&](const std::string& x) {
    const Tensor& w = named[2 * layer].second.value();
    const Tensor& bias = named[2 * layer + 1].second.value();
    const std::string& base = named[2 * layer].first;
    if (s.quantized()) {
      // QDQ: the input quantized per tensor and dequantized, the int8
      // weights dequantized per output channel (axis 1), then a float MatMul
      // (a runtime may fuse the pattern into an integer GEMM).
      const Int8Layer& q = s.int8_layers()[layer];
      const std::string xs = b.constant("x_scale", {}, {q.input_scale});
      const std::string xz = b.int8_constant("x_zero", {}, {0});
      const std::string xq = b.op("QuantizeLinear", {x, xs, xz});
      const std::string xdq = b.op("DequantizeLinear", {xq, xs, xz});
      const std::string wq = b.int8_constant(base, {w.dim(0), w.dim(1)}, q.values);
      const std::string ws = b.constant(base + "_scale", {w.dim(1)}, q.scales);
      const std::string wz = b.int8_constant(base + "_zero", {w.dim(1)},
                                             std::vector<std::int8_t>(static_cast<size_t>(w.dim(1)), 0));
      const std::string wdq = b.op("DequantizeLinear", {wq, ws, wz});
      ::onnx::AttributeProto* axis = b.last_node()->add_attribute();
      axis->set_name("axis");
      axis->set_type(::onnx::AttributeProto::INT);
      axis->set_i(1);
      const std::string bn = b.constant(named[2 * layer + 1].first, {bias.dim(0)},
                                        bias.to(DType::float64).to_vector());
      ++layer;
      return b.op("Add", {b.op("MatMul", {xdq, wdq}), bn});
    }
    const std::string wn = b.constant(base, {w.dim(0), w.dim(1)}, w.to(DType::float64).to_vector());
    const std::string bn = b.constant(named[2 * layer + 1].first, {bias.dim(0)},
                                      bias.to(DType::float64).to_vector());
    ++layer;
    return b.op("Add", {b.op("MatMul", {x, wn}), bn});
  };
  if (spec.kind == "residual_mlp") {
    h = dense(h);
    for (size_t k = 1; k < spec.hidden.size(); ++k) {
      const std::string inner = dense(b.activation(spec.activation, h));
      h = b.op("Add", {h, dense(b.activation(spec.activation, inner))});
    }
    h = dense(b.activation(spec.activation, h));
  } else {
    for (size_t k = 0; k < spec.hidden.size(); ++k) h = b.activation(spec.activation, dense(h));
    h = dense(h);
  }
  CAMBER_REQUIRE(2 * layer == named.size(), "export_onnx: " << layer << " dense layers for "
                                                            << named.size() << " parameters");
  b.op("Add", {b.op("Mul", {h, b.constant("out_scale", {spec.out}, s.output_stats().stddev)}),
               b.constant("out_shift", {spec.out}, s.output_stats().mean)},
       "outputs");

  write_file_atomically(path, [&](std::ostream& out) {
    CAMBER_REQUIRE(model.SerializeToOstream(&out), "export_onnx: serialising the model failed");
  });
}

}  // namespace camber::nn::onnx
