/// @file
/// camber::nn::serve::load_served_models — the models `camber serve` is
/// given, each as `[NAME=]FILE` or `[NAME=]REFERENCE`, loaded for an
/// InferenceServer and, for the references, followed by a Reloader.
///
/// FILE is a model file; REFERENCE a registry reference (`naca@prod`,
/// `naca@3`, `naca`: nn/registry/registry.hpp), resolved now to the file
/// served first and followed afterwards: when it names another version,
/// that version takes over (hot reload). A spec that is itself an existing
/// file is a file even when it holds '='. Without NAME, a model is served
/// under its registry name, or a file under its stem (`out/naca.h5`:
/// `naca`); a file's version is 1, a reference's the registry's.
///
/// @code
///   serve::ServedModels m = serve::load_served_models({"out/wing.h5", "naca=naca@prod"});
///   serve::InferenceServer server(std::move(m.models), options);
///   serve::Reloader reloader(server, std::move(m.followed), "", std::chrono::seconds(2));
///   // m.description: "wing version 1 (out/wing.h5, ...); naca version 3 (naca=naca@prod, ...)"
/// @endcode
///
/// bad_input (naming the spec) for a file that is missing and a reference
/// that does not resolve; load_model's faults for a file that does not load.
#pragma once

#include <string>
#include <vector>

#include <camber/nn/serve/reloader.hpp>
#include <camber/nn/serve/server.hpp>

namespace camber::nn::serve {

/// The models, in the order of their specs, and what follows them.
struct ServedModels {
  std::vector<NamedModel> models;
  /// One per registry reference, naming its model's index in `models`.
  std::vector<FollowedModel> followed;
  /// "NAME version V (SPEC, network)" per model, joined by "; ": what the
  /// server's log line shows.
  std::string description;
};

/// Loads every spec (`registry_root`: the registry references are looked
/// up in; "" is Registry::default_root()). Not collective.
ServedModels load_served_models(const std::vector<std::string>& specs,
                                const std::string& registry_root = "");

}  // namespace camber::nn::serve
