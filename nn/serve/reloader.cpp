#include <camber/nn/serve/reloader.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <utility>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/serve/auth.hpp>

namespace camber::nn::serve {

namespace fs = std::filesystem;

Reloader::Reloader(InferenceServer& server, std::vector<FollowedModel> models, std::string tokens_path,
                   std::chrono::milliseconds period)
    : server_(&server), models_(std::move(models)), tokens_path_(std::move(tokens_path)), period_(period) {
  for (const FollowedModel& m : models_) paths_.push_back(m.resolve().path);
  if (!tokens_path_.empty()) tokens_stamp_ = tokens_stamp();
}

Reloader::~Reloader() { stop(); }

std::string Reloader::tokens_stamp() const {
  std::error_code e;
  const auto size = fs::file_size(tokens_path_, e);
  const auto time = fs::last_write_time(tokens_path_, e);
  return std::to_string(size) + ":" + std::to_string(time.time_since_epoch().count());
}

Reloader::Pass Reloader::check() {
  Pass pass;
  if (!tokens_path_.empty() && tokens_stamp() != tokens_stamp_) {
    tokens_stamp_ = tokens_stamp();  // a file that fails to load is reported once
    try {
      TokenStore t = TokenStore::load(tokens_path_);
      std::size_t revoked = 0;
      for (const auto& [hash, token] : t.tokens()) revoked += token.revoked ? 1 : 0;
      const std::size_t total = t.tokens().size();
      server_->replace_tokens(std::move(t));
      pass.tokens_reloaded = true;
      logging::info(CAMBER_MSG("serve: tokens reloaded from " << tokens_path_ << " (" << total - revoked
                                                              << " active, " << revoked << " revoked)"));
    } catch (const std::exception& e) {
      logging::warn(std::string("serve: tokens not reloaded (the ones before stay): ") + e.what());
    }
  }
  // A registry file is named by its content: another path is another
  // model, the same path the same one (nothing is read then).
  for (std::size_t k = 0; k < models_.size() && !stopping_; ++k) {
    const FollowedModel& m = models_[k];
    try {
      const Resolved r = m.resolve();
      if (r.path == paths_[k]) continue;
      paths_[k] = r.path;  // a file that fails to load is reported once
      server_->replace_model(m.index, r.version, io::load_model(r.path));
      ++pass.models_replaced;
      logging::info("serve: " + m.label + " is now version " + r.version + " (" + r.path + ")");
    } catch (const std::exception& e) {
      logging::warn("serve: " + m.label + " not reloaded: " + e.what());
    }
  }
  return pass;
}

void Reloader::start() {
  if (thread_.joinable() || period_.count() <= 0 || (models_.empty() && tokens_path_.empty())) return;
  stopping_ = false;
  thread_ = std::thread([this] {
    const auto step = std::chrono::milliseconds(50);
    while (!stopping_) {
      for (auto waited = std::chrono::milliseconds(0); waited < period_ && !stopping_; waited += step)
        std::this_thread::sleep_for(std::min(step, period_ - waited));
      if (!stopping_) check();
    }
  });
}

void Reloader::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

namespace {

// SIGTERM and SIGINT write a byte to a pipe (all a signal handler may
// safely do); a watcher thread reads it and stops the server.
int stop_pipe_write = -1;

extern "C" void on_stop_signal(int) {
  const char c = 1;
  if (stop_pipe_write >= 0) (void)!::write(stop_pipe_write, &c, 1);
}

}  // namespace

void run_until_signal(InferenceServer& server) {
  int fds[2] = {-1, -1};
  CAMBER_REQUIRE(::pipe(fds) == 0, "serve: pipe() failed");
  stop_pipe_write = fds[1];
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_term {}, old_int {};
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGINT, &sa, &old_int);
  std::thread watcher([&] {
    char c = 0;
    while (::read(fds[0], &c, 1) < 0 && errno == EINTR) {
    }
    server.stop();
  });
  server.run();
  on_stop_signal(0);  // wakes the watcher if run() ended on its own
  watcher.join();
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGINT, &old_int, nullptr);
  stop_pipe_write = -1;
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace camber::nn::serve
