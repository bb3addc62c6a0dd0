/// @file
/// ONNX export of a trained surrogate: the same function predict()
/// computes, as an ONNX graph any ONNX runtime can run.
///
/// The graph (opset 13, IR version 8, ONNX 1.12's schema; an int8 surrogate
/// (quantize.hpp) exports each dense layer as QuantizeLinear/DequantizeLinear
/// of its input per tensor, DequantizeLinear of its int8 weights per output
/// channel, MatMul, Add):
/// @code
///   input  "inputs"  {N, n_in}   float64 or float32 (the network's dtype)
///   x_n = inputs * (1 / std_in) + (-mean_in / std_in)      normalisation
///   h   = act(x_n W_0 + b_0) ... (residual blocks: h + W2 act(W1 act(h)))
///   output "outputs" {N, n_out}  = y_n * std_out + mean_out
/// @endcode
/// Normalisation is inside the graph, so the exported model takes and
/// returns physical units. Activations map to ONNX operators: tanh Tanh,
/// relu Relu, sin Sin, silu x Sigmoid(x) (float64: x / (1 + Exp(-x))), gelu
/// its tanh form written out,
/// softplus Relu(x) + Log(1 + Exp(-Abs(x))) (stable, and available in
/// float64 where a runtime lacks a float64 Softplus kernel). The model's
/// metadata_props carry the column names and units ("camber.inputs",
/// "camber.input_units", "camber.outputs", "camber.output_units"), the
/// model card's data SHA-256 when given, and the producer's version.
///
/// @code
///   nn::io::Model m = nn::io::load_model("out/airfoil_model.h5");
///   nn::onnx::export_onnx(m.surrogate, "out/airfoil.onnx");
/// @endcode
/// tests/nn checks the file with onnx.checker and runs it in ONNX Runtime
/// against predict() (float64 to 1e-12 relative, float32 to 1e-5).
#pragma once

#include <string>

#include <camber/nn/surrogate.hpp>

namespace camber::nn::onnx {

struct OnnxOptions {
  std::string graph_name = "camber_surrogate";
  /// Extra metadata_props entries (key, value), e.g. the model card's.
  std::vector<std::pair<std::string, std::string>> metadata;
};

/// Writes `path` (atomically: "<path>.tmp", then renamed). Not collective.
void export_onnx(const Surrogate& surrogate, const std::string& path,
                 const OnnxOptions& options = {});

}  // namespace camber::nn::onnx
