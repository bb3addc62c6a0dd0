// An InferenceServer serving one model on 127.0.0.1 at a free port from a
// thread of its own, answering /health when the constructor returns, and
// stopped when it goes (private to tests/nn).
#pragma once

#include <chrono>
#include <memory>
#include <thread>

#include <httplib.h>

#include <camber/nn/io/model_file.hpp>
#include <camber/nn/serve/server.hpp>

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
    httplib::Client c("127.0.0.1", port);
    for (int i = 0; i < 200 && !c.Get("/health"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~RunningServer() {
    server->stop();
    thread.join();
  }
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;
};

}  // namespace camber::test
