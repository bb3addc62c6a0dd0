// An InferenceServer serving one model on 127.0.0.1 at a free port from a
// thread of its own (HTTPS with options' TLS files), answering /health when
// the constructor returns, and
// stopped when it goes (private to tests/nn).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <httplib.h>

#include <camber/nn/io/model_file.hpp>
#include <camber/nn/serve/server.hpp>

#include "small_model.hpp"

namespace camber::test {

struct RunningServer {
  std::unique_ptr<nn::serve::InferenceServer> server;
  std::thread thread;
  int port = 0;
  RunningServer(nn::io::Model model, nn::serve::ServeOptions o) {
    o.port = 0;
    server = std::make_unique<nn::serve::InferenceServer>(std::move(model), o);
    port = server->bind();
    thread = std::thread([this] { server->run(); });
    const bool tls = !o.tls_cert.empty();
    for (int i = 0; i < 200; ++i) {
      httplib::Client c(std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port));
      c.enable_server_certificate_verification(false);
      if (c.Get("/health")) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ~RunningServer() {
    server->stop();
    thread.join();
  }
  /// small_surrogate(7) as a model file would hold it.
  explicit RunningServer(nn::serve::ServeOptions o)
      : RunningServer(nn::io::Model{small_surrogate(7), {}, 1, 0, std::string(64, 'f')}, std::move(o)) {}
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;
};

}  // namespace camber::test
