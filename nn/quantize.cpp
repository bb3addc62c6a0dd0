#include <camber/nn/quantize.hpp>

#include <algorithm>
#include <cmath>

#include <camber/core/error.hpp>

namespace camber::nn {

Surrogate quantize_int8(const Surrogate& s, const Tensor& calibration) {
  CAMBER_INPUT_REQUIRE(!s.quantized(), "quantize: the model is int8 already");
  CAMBER_INPUT_REQUIRE(calibration.rank() == 2 && calibration.dim(0) > 0 &&
                           calibration.dim(1) == s.spec().in,
                       "quantize: calibration rows of shape {rows > 0, " << s.spec().in
                                                                         << "} needed, got "
                                                                         << shape_string(calibration.shape()));
  return quantize_int8(s, s.dense_input_max(calibration));
}

Surrogate quantize_int8(const Surrogate& s, const std::vector<double>& input_max) {
  CAMBER_INPUT_REQUIRE(!s.quantized(), "quantize: the model is int8 already");
  const auto named = s.network().named_parameters();
  CAMBER_REQUIRE(2 * input_max.size() == named.size(),
                 "quantize: " << input_max.size() << " input ranges for " << named.size() / 2
                              << " dense layers");
  std::vector<Tensor> params;
  std::vector<Int8Layer> layers;
  for (size_t k = 0; 2 * k < named.size(); ++k) {
    const Tensor& w = named[2 * k].second.value();
    const index_t rows = w.dim(0), cols = w.dim(1);
    const std::vector<double> v = w.to(DType::float64).to_vector();
    Int8Layer q;
    q.scales.assign(static_cast<size_t>(cols), 0.0);
    for (index_t i = 0; i < rows; ++i)
      for (index_t j = 0; j < cols; ++j)
        q.scales[static_cast<size_t>(j)] =
            std::max(q.scales[static_cast<size_t>(j)], std::abs(v[static_cast<size_t>(i * cols + j)]));
    for (double& sc : q.scales) sc = sc > 0.0 ? sc / 127.0 : 1.0;
    q.values.resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      const double r = std::nearbyint(v[i] / q.scales[i % static_cast<size_t>(cols)]);
      q.values[i] = static_cast<std::int8_t>(std::clamp(r, -127.0, 127.0));
    }
    q.input_scale = input_max[k] > 0.0 ? input_max[k] / 127.0 : 1.0;
    layers.push_back(std::move(q));
    params.push_back(w.to(DType::float32));  // replaced by the int8 weights
    params.push_back(named[2 * k + 1].second.value().to(DType::float32));
  }
  NetworkSpec spec = s.spec();
  spec.dtype = DType::float32;
  return Surrogate(spec, params, s.inputs(), s.outputs(), s.input_stats(), s.output_stats(),
                   std::move(layers));
}

}  // namespace camber::nn
