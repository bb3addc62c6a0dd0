// nn/serve/reloader.hpp: a followed model whose reference names another
// file is replaced (the version and the file's SHA-256 the server reports
// change; the same path again replaces nothing; a file that does not load
// leaves the one served), a tokens file that changed is read again (and
// one that did not is not), the thread does what check() does, and
// run_until_signal returns on SIGTERM with the previous handler restored.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <camber/nn/io/model_file.hpp>
#include <camber/nn/serve/auth.hpp>
#include <camber/nn/serve/reloader.hpp>

#include "small_model.hpp"

namespace {

namespace nn = camber::nn;
namespace serve = camber::nn::serve;
namespace fs = std::filesystem;

// A small network saved as `path`; its seed makes its weights (and so the
// file's SHA-256) differ.
nn::io::Model saved_model(const fs::path& path, std::uint64_t seed) {
  nn::io::save_model(path.string(), camber::test::small_surrogate(seed), {});
  return nn::io::load_model(path.string());
}

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("camber_reloader_" + std::to_string(::getpid()));
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
};

TEST(Reloader, AFollowedModelIsReplacedWhenItsReferenceMoves) {
  Scratch scratch;
  const fs::path a = scratch.dir / "a.h5", b = scratch.dir / "b.h5";
  nn::io::Model first = saved_model(a, 1);
  const std::string sha_a = first.sha256, sha_b = saved_model(b, 2).sha256;
  ASSERT_NE(sha_a, sha_b);
  serve::InferenceServer server({{"naca", "1", std::move(first)}}, {});
  auto target = std::make_shared<serve::Resolved>(serve::Resolved{a.string(), "1"});
  serve::Reloader reloader(server, {{0, "naca@prod", [target] { return *target; }}}, "",
                           std::chrono::milliseconds(0));
  EXPECT_EQ(reloader.check().models_replaced, 0);  // the path served
  *target = {b.string(), "2"};
  EXPECT_EQ(reloader.check().models_replaced, 1);
  EXPECT_EQ(server.model_version(0), "2");
  EXPECT_EQ(server.model_sha256(0), sha_b);
  EXPECT_EQ(reloader.check().models_replaced, 0);  // the same path again
  *target = {(scratch.dir / "missing.h5").string(), "3"};
  EXPECT_EQ(reloader.check().models_replaced, 0);  // reported, the model served stays
  EXPECT_EQ(server.model_version(0), "2");
  EXPECT_EQ(server.model_sha256(0), sha_b);
}

TEST(Reloader, AChangedTokensFileIsReadAgain) {
  Scratch scratch;
  const std::string tokens = (scratch.dir / "tokens.txt").string();
  serve::TokenStore::add(tokens, "alice");
  serve::ServeOptions o;
  o.tokens = serve::TokenStore::load(tokens);
  serve::InferenceServer server({{"naca", "1", saved_model(scratch.dir / "a.h5", 1)}}, o);
  serve::Reloader reloader(server, {}, tokens, std::chrono::milliseconds(20));
  EXPECT_FALSE(reloader.check().tokens_reloaded);
  serve::TokenStore::add(tokens, "bob");  // the file grows
  EXPECT_TRUE(reloader.check().tokens_reloaded);
  EXPECT_FALSE(reloader.check().tokens_reloaded);

  // The thread does the same: a revocation is picked up within periods.
  reloader.start();
  const auto before = std::filesystem::file_size(tokens);
  serve::TokenStore::revoke(tokens, "alice");
  ASSERT_NE(std::filesystem::file_size(tokens), before);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  reloader.stop();
  EXPECT_FALSE(reloader.check().tokens_reloaded);  // the thread read it already
}

TEST(Reloader, RunUntilSignalReturnsOnSigterm) {
  Scratch scratch;
  serve::ServeOptions o;
  o.port = 0;
  serve::InferenceServer server({{"naca", "1", saved_model(scratch.dir / "a.h5", 1)}}, o);
  server.bind();
  struct sigaction before {};
  sigaction(SIGTERM, nullptr, &before);
  std::thread sender([] {
    // Once the handler is in place (the default action would end the test).
    for (int i = 0; i < 1000; ++i) {
      struct sigaction now {};
      sigaction(SIGTERM, nullptr, &now);
      if (now.sa_handler != SIG_DFL) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::kill(::getpid(), SIGTERM);
  });
  serve::run_until_signal(server);
  sender.join();
  struct sigaction after {};
  sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace
