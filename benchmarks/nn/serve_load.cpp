// A load generator for `camber serve`: N concurrent clients (one thread and
// one keep-alive connection each) send single-row POST /predict requests
// with inputs drawn inside the model's ranges, until R requests in all or S
// seconds. Prints throughput, latency percentiles and the failed count
// (any answer that is not 200 with every output, or no answer).
//
//   serve_load --port P [--host 127.0.0.1] --clients 8 [--requests 2000] [--seconds 10]
//
// The inputs come from GET /model (names, means and standard deviations).
// Bounded in count and time, so it can run in CI.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

const char* option(int argc, char** argv, const char* key, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], key) == 0) return argv[i + 1];
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string host = option(argc, argv, "--host", "127.0.0.1");
  const int port = std::atoi(option(argc, argv, "--port", "8080"));
  const int clients = std::atoi(option(argc, argv, "--clients", "8"));
  const long requests = std::atol(option(argc, argv, "--requests", "2000"));
  const double seconds = std::atof(option(argc, argv, "--seconds", "10"));
  if (clients < 1 || requests < 1 || seconds <= 0) {
    std::fprintf(stderr, "serve_load: --clients, --requests and --seconds must be positive\n");
    return 2;
  }
  httplib::Client probe(host, port);
  auto m = probe.Get("/model");
  if (!m || m->status != 200) {
    std::fprintf(stderr, "serve_load: no model at http://%s:%d/model\n", host.c_str(), port);
    return 1;
  }
  const json card = json::parse(m->body);
  const json inputs = card["inputs"], outputs = card["outputs"];

  std::atomic<long> next{0}, failed{0};
  std::vector<std::vector<double>> latencies(static_cast<size_t>(clients));
  const Clock::time_point t0 = Clock::now();
  const Clock::time_point deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      httplib::Client cli(host, port);
      cli.set_keep_alive(true);
      cli.set_tcp_nodelay(true);
      std::mt19937_64 rng(static_cast<unsigned long>(c) + 1);
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      while (next++ < requests && Clock::now() < deadline) {
        json row = json::object();
        for (const json& in : inputs)
          row[in["name"].get<std::string>()] = in["mean"].get<double>() + u(rng) * in["std"].get<double>();
        const std::string body = json{{"inputs", row}}.dump();
        const auto s = Clock::now();
        auto r = cli.Post("/predict", body, "application/json");
        latencies[static_cast<size_t>(c)].push_back(std::chrono::duration<double>(Clock::now() - s).count());
        bool ok = r && r->status == 200;
        if (ok) {
          const json out = json::parse(r->body, nullptr, false);
          for (const json& o : outputs) ok = ok && out.contains("outputs") && out["outputs"].contains(o["name"]);
        }
        if (!ok) ++failed;
      }
    });
  for (auto& t : threads) t.join();
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  const auto pct = [&](double p) {
    return all.empty() ? 0.0 : all[std::min(all.size() - 1, static_cast<size_t>(p * static_cast<double>(all.size())))];
  };
  std::printf("serve_load: %d clients, %zu requests in %.2f s: %.0f requests/s, latency p50 %.3f ms, "
              "p99 %.3f ms, max %.3f ms, failed %ld\n",
              clients, all.size(), wall, static_cast<double>(all.size()) / wall, 1e3 * pct(0.50),
              1e3 * pct(0.99), all.empty() ? 0.0 : 1e3 * all.back(), failed.load());
  return failed.load() == 0 ? 0 : 1;
}
