// `camber models`: the model registry (nn/registry) from the command line.
//
//   camber models register MODEL.h5 --name NAME [--stage dev|staging|prod]
//   camber models list [NAME]
//   camber models show NAME[@VERSION|@STAGE]
//   camber models promote NAME@VERSION STAGE
//   camber models diff NAME@A NAME@B
//   camber models remove NAME@VERSION
//
// The registry is --registry DIR, else CAMBER_REGISTRY, else
// ~/.camber/registry. Every command that takes a model file (model-info,
// infer, export, quantize, serve, a surrogate deck's model) also takes
// NAME@VERSION or NAME@STAGE (nn::registry::resolve_model_path).
#pragma once

#include <string>

#include <camber/core/runtime.hpp>

namespace camber::app {

struct ModelsOptions {
  std::string registry;         ///< "" : the default
  std::string action;           ///< register, list, show, promote, diff, remove
  std::string first, second;    ///< the action's arguments
  std::string name;             ///< register --name
  std::string stage = "dev";    ///< register --stage
};
int command_models(const ModelsOptions& options, const Runtime& runtime);

}  // namespace camber::app
