// Writes the inference benchmark's networks (bench_nn's MLPs: 16 inputs,
// 4 hidden layers of 64 or 256, tanh, 1 output; float64 and float32; the
// same seed, so the same weights; and the float32 ones quantized to int8,
// calibrated on bench_nn's inputs, as QDQ graphs) as ONNX files, for ONNX
// Runtime to run in benchmarks/nn/run-inference.sh.
//
//   export_bench_models DIR
#include <cstdio>
#include <string>

#include <camber/nn/onnx/onnx_export.hpp>
#include <camber/nn/quantize.hpp>
#include <camber/core/runtime.hpp>

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: export_bench_models DIR\n");
    return 2;
  }
  namespace nn = camber::nn;
  for (camber::index_t width : {64, 256})
    for (camber::DType dt : {camber::DType::float64, camber::DType::float32}) {
      nn::NetworkSpec spec;
      spec.in = 16;
      spec.out = 1;
      spec.hidden.assign(4, width);
      spec.dtype = dt;
      nn::Rng rng(1);  // bench_nn's seed
      auto net = nn::make_network(spec, rng);
      nn::Columns in, out{{"y"}, {""}};
      nn::Normalization si, so{{0.0}, {1.0}};
      for (int j = 0; j < 16; ++j) {
        in.names.push_back("x" + std::to_string(j));
        in.units.emplace_back();
        si.mean.push_back(0.0);
        si.stddev.push_back(1.0);
      }
      const nn::Surrogate s(spec, net->parameter_values(), in, out, si, so);
      const std::string path = std::string(argv[1]) + "/mlp4x" + std::to_string(width) + "_" +
                               camber::dtype_name(dt) + ".onnx";
      nn::onnx::export_onnx(s, path);
      std::printf("%s\n", path.c_str());
      if (dt == camber::DType::float32) {
        // bench_nn's inputs: uniform in [-1, 1], seed 2, 1024 rows.
        nn::Rng xr(2);
        const camber::Tensor x = nn::uniform({1024, 16}, -1.0, 1.0, xr);
        const std::string qpath = std::string(argv[1]) + "/mlp4x" + std::to_string(width) + "_int8.onnx";
        nn::onnx::export_onnx(nn::quantize_int8(s, x), qpath);
        std::printf("%s\n", qpath.c_str());
      }
    }
  return 0;
}
