/// @file
/// camber::nn::serve::Reloader — keeps a running InferenceServer's models
/// and bearer tokens current, and run_until_signal, which serves until
/// SIGTERM or SIGINT. What `camber serve` runs around the server.
///
/// A model given as a moving reference (a registry stage, `NAME@prod`) is
/// resolved again every period; when it names another file, that file
/// takes over (InferenceServer::replace_model: warmed up first, no request
/// fails). A tokens file whose size or time changed is read again, so a
/// revocation takes effect without a restart. A file that fails to load is
/// reported once (logging::warn) and what is served stays; the reference
/// or the file is looked at again next period.
///
/// @code
///   serve::InferenceServer server(std::move(models), options);
///   serve::Reloader reloader(server, {{0, "naca@prod", [] {
///                              const auto r = nn::registry::resolve_model("naca@prod");
///                              return serve::Resolved{r.path, std::to_string(r.version)};
///                            }}},
///                            "tokens.txt", std::chrono::milliseconds(2000));
///   reloader.start();                    // a thread that checks every period
///   serve::run_until_signal(server);     // SIGTERM: requests in flight finish
/// @endcode
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <camber/nn/serve/server.hpp>

namespace camber::nn::serve {

/// A model file and the version it is served as.
struct Resolved {
  std::string path;
  std::string version;
};

/// The `index`-th model of the server, which follows what `resolve` names.
struct FollowedModel {
  std::size_t index = 0;
  std::string label;  ///< how the log names it (what the user gave)
  std::function<Resolved()> resolve;
};

class Reloader {
 public:
  /// `tokens_path` empty: no tokens to follow (the server's tokens file
  /// otherwise). The paths resolved now are taken as the ones served.
  Reloader(InferenceServer& server, std::vector<FollowedModel> models, std::string tokens_path,
           std::chrono::milliseconds period);
  ~Reloader();
  Reloader(const Reloader&) = delete;
  Reloader& operator=(const Reloader&) = delete;

  /// What one pass did.
  struct Pass {
    int models_replaced = 0;
    bool tokens_reloaded = false;
  };
  /// One pass now (what the thread does every period).
  Pass check();
  /// Starts the thread (nothing to follow, or a period <= 0: no thread).
  void start();
  /// Stops and joins the thread; also done by the destructor.
  void stop();

 private:
  std::string tokens_stamp() const;

  InferenceServer* server_;
  std::vector<FollowedModel> models_;
  std::vector<std::string> paths_;  ///< the file each followed model serves
  std::string tokens_path_, tokens_stamp_;
  std::chrono::milliseconds period_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

/// Runs `server` until SIGTERM or SIGINT, which stop it (requests in flight
/// finish), or until it stops otherwise; the signals' previous handlers
/// are restored on return. One at a time per process.
void run_until_signal(InferenceServer& server);

}  // namespace camber::nn::serve
