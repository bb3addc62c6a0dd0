// Every plan of the planner against the planner's choice, in one run
// (docs/performance.md, "Sharded tensors"): a dense tanh network (default
// four layers of 1024, batch 256, float64), per plan the median step time
// of ShardedMlp, the rise of peak resident memory, and the bytes sent per
// step measured by the collectives against the cost model's prediction.
//
//   mpirun -n R shard_plans [--widths 1024,1024,1024,1024,1024] [--batch 256] [--steps 5]
//                           [--limit-mib 1e9] [--check]
//
// --check runs a tiny network for two steps and checks that every plan's
// loss equals the first plan's (CTest runs it at 2 ranks).

#include "../common/peak_memory.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/runtime.hpp>
#include <camber/shard/planner.hpp>

namespace shard = camber::shard;
using camber::index_t;
using camber::Tensor;

namespace {

Tensor pattern(const camber::Shape& shape, int seed) {
  index_t n = 1;
  for (index_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.9 * static_cast<double>(i + 1) + seed);
  return Tensor::from_host(shape, v);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  shard::MlpShape net{{1024, 1024, 1024, 1024, 1024}, 256};
  int steps = 5;
  double limit_mib = 1e9;
  bool check = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") check = true;
    if (i + 1 >= argc) continue;
    if (a == "--batch") net.batch = std::atol(argv[i + 1]);
    if (a == "--steps") steps = std::atoi(argv[i + 1]);
    if (a == "--limit-mib") limit_mib = std::atof(argv[i + 1]);
    if (a == "--widths") {
      net.widths.clear();
      std::stringstream s(argv[i + 1]);
      std::string w;
      while (std::getline(s, w, ',')) net.widths.push_back(std::atol(w.c_str()));
    }
  }
  if (check) {
    net = {{6, 10, 8, 3}, 9};
    steps = 2;
  }
  const MPI_Comm comm = runtime.comm();
  const int ranks = runtime.size();
  const shard::Calibration c = shard::calibrate(comm);
  const auto limit = static_cast<std::int64_t>(limit_mib * 1024 * 1024);
  const std::vector<shard::PlanEstimate> plans = shard::estimate_plans(net, ranks, c, limit);
  const shard::PlanEstimate chosen = shard::choose_plan(net, ranks, c, limit);
  if (runtime.rank() == 0) {
    std::printf("shard_plans: %d ranks, %s; calibration %.3g flop/s, %.3g B/s, latency %.3g s\n", ranks,
                runtime.describe().c_str(), c.flops_per_second, c.bytes_per_second, c.latency_seconds);
    std::printf("%-22s %12s %12s %21s %10s %10s %14s %14s %8s\n", "plan", "predicted_s", "measured_s", "min-max_s",
                "model_MiB", "peak_MiB", "model_bytes", "sent_bytes", "loss");
  }
  const Tensor X = pattern({net.batch, net.widths.front()}, 1), Y = pattern({net.batch, net.widths.back()}, 2);
  double best_time = 1e300, chosen_time = 0.0, first_loss = NAN;
  std::string best_name;
  bool ok = true;
  for (const shard::PlanEstimate& e : plans) {
    camber::bench::reset_peak();
    const long before = camber::bench::status_kb("VmRSS:");
    std::vector<double> times;
    double loss = 0.0;
    std::int64_t sent = 0;
    {
      shard::ShardedMlp mlp(net, e.plan, shard::DeviceMesh::create(comm, e.plan.axes()), 3);
      for (int s = 0; s <= steps; ++s) {  // the first step warms up
        MPI_Barrier(comm);
        const std::int64_t b0 = shard::bytes_sent();
        const double t0 = MPI_Wtime();
        const double l = mlp.step(X, Y, 0.01);
        double dt = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, comm);
        if (s == 0) loss = l;
        if (s > 0) times.push_back(dt);
        sent = shard::bytes_sent() - b0;
      }
    }
    double peak = static_cast<double>(camber::bench::status_kb("VmHWM:") - before) / 1024.0;
    MPI_Allreduce(MPI_IN_PLACE, &peak, 1, MPI_DOUBLE, MPI_MAX, comm);
    long long sent_max = sent;
    MPI_Allreduce(MPI_IN_PLACE, &sent_max, 1, MPI_LONG_LONG, MPI_MAX, comm);
    const double t = median(times);
    if (t < best_time) {
      best_time = t;
      best_name = e.plan.name();
    }
    if (e.plan.data == chosen.plan.data) chosen_time = t;
    if (std::isnan(first_loss)) first_loss = loss;
    ok = ok && std::abs(loss - first_loss) <= 1e-10 * std::abs(first_loss);
    if (runtime.rank() == 0)
      std::printf("%-22s %12.4g %12.4g %10.4g-%-10.4g %10.2f %10.2f %14lld %14lld %8.5f%s\n", e.plan.name().c_str(),
                  e.step_seconds(), t, *std::min_element(times.begin(), times.end()),
                  *std::max_element(times.begin(), times.end()), static_cast<double>(e.memory_bytes) / 1048576.0, peak,
                  static_cast<long long>(e.comm_bytes), sent_max, loss, e.fits ? "" : "  (over the limit)");
  }
  if (runtime.rank() == 0) {
    std::printf("planner's choice: %s, measured %.4g s; best measured: %s, %.4g s; ratio %.3f\n",
                chosen.plan.name().c_str(), chosen_time, best_name.c_str(), best_time, chosen_time / best_time);
    if (check) std::printf("%s\n", ok ? "shard_plans checks passed" : "shard_plans checks FAILED: plans disagree");
  }
  return ok ? 0 : 1;
}
