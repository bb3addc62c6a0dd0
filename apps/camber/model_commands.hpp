// The model subcommands of `camber`: what happens to a trained surrogate
// (<output.dir>/<case>_model.h5, written by `camber train`).
//
//   camber model-info MODEL              the model card and the network
//   camber export MODEL -o FILE.onnx     ONNX (normalisation inside the graph)
//   camber quantize MODEL DATA.h5 -o OUT int8 post-training quantization,
//                                        calibrated on DATA, with the error
//                                        on DATA before and after
//   camber infer MODEL INPUT -o OUTPUT   batch prediction; INPUT and OUTPUT
//                                        are .csv (a header of input names,
//                                        optionally "name [unit]") or .h5
//                                        data sets; rows split over ranks
#pragma once

#include <string>
#include <vector>

#include <camber/core/runtime.hpp>
#include <camber/core/config.hpp>
#include <camber/core/tensor.hpp>
#if CAMBER_WITH_SERVE
#include <camber/nn/serve/server.hpp>
#endif

namespace camber::app {

int command_model_info(const std::string& model, const Runtime& runtime);
// Built with ONNX (CAMBER_WITH_ONNX).
int command_export(const std::string& model, const std::string& output, const Runtime& runtime);

struct QuantizeOptions {
  std::string model, data, output;
  long calibration_rows = 0;  ///< rows of DATA for calibration (0: all)
};
int command_quantize(const QuantizeOptions& options, const Runtime& runtime);

struct InferOptions {
  std::string model, input, output;
  index_t batch = 4096;  ///< rows per prediction call (progress granularity)
};
int command_infer(const InferOptions& options, const Runtime& runtime);

#if CAMBER_WITH_SERVE
// `camber serve`: the server's own settings (their defaults are the
// library's), the models, the tokens file and the reload period.
struct ServeCommandOptions {
  std::vector<std::string> models;  ///< [NAME=]FILE or [NAME=]REFERENCE
  nn::serve::ServeOptions server;
  long max_wait_us = nn::serve::ServeOptions{}.max_wait.count();
  std::string tokens;
  long reload_ms = 2000;
};
// Built with the server (CAMBER_WITH_SERVE).
int command_serve(const ServeCommandOptions& options, const Runtime& runtime);
// `camber token add|revoke NAME --tokens FILE` (with the server).
int command_token(const std::string& action, const std::string& name, const std::string& file,
                  const Runtime& runtime);
#endif

}  // namespace camber::app
