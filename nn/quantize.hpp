/// @file
/// Post-training int8 quantization of a surrogate.
///
/// Weights: per output channel, symmetric: scale_j = max_i |W_ij| / 127 and
/// q_ij = round(W_ij / scale_j) in [-127, 127]. Inputs of each dense layer:
/// per tensor, symmetric, scale = (largest |input| seen on the calibration
/// rows) / 127, rounded half to even and saturated to [-128, 127] when the
/// model runs (ONNX QuantizeLinear), so inputs beyond the calibrated range
/// clip. Biases stay float. The result computes in float32 with integer
/// dot products (surrogate.hpp, Int8Layer) and exports to ONNX as
/// QuantizeLinear/DequantizeLinear pairs (onnx_export.hpp).
///
/// @code
///   nn::Surrogate q = nn::quantize_int8(model.surrogate, calibration_rows);
///   nn::io::save_model("model_int8.h5", q, card);   // 1 byte per weight
/// @endcode
/// `camber quantize` does this from the command line and reports the size
/// and the validation error before and after.
#pragma once

#include <camber/nn/surrogate.hpp>

namespace camber::nn {

/// `calibration`: {rows, n_in} inputs in physical units (a sample of the
/// training data). Throws camber::Error (bad input) for an empty sample or
/// a surrogate that is quantized already.
Surrogate quantize_int8(const Surrogate& surrogate, const Tensor& calibration);
/// The same from the largest |input| of each dense layer
/// (Surrogate::dense_input_max, reduced over ranks by the caller).
Surrogate quantize_int8(const Surrogate& surrogate, const std::vector<double>& dense_input_max);

}  // namespace camber::nn
