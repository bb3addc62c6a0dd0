// Data-parallel scaling of a camber::nn training step: the same global batch
// split over the ranks of MPI_COMM_WORLD (strong scaling), one gradient
// allreduce per step. Run it at 1 and 2 ranks (benchmarks/run.sh does) and
// compare the step times: efficiency = t(1) / (p t(p)).
//
//   mpirun -n 2 nn_scaling [--reps R] [--steps S] [--raw] [--check]
//
// The step is bench_nn's (MLP 16 -> 4 x width (tanh) -> 1, mean squared
// error, Adam), for widths 64 and 256, float64 and float32, global batches
// 256 and 2048. Every case runs once per repetition, cases interleaved, so
// a load change on the shared machine hits all of them; one repetition is
// S steps after one warm-up step, its time the slowest rank's. Prints per
// case the median time per step, the range over repetitions and samples/s;
// `--raw` prints every repetition instead ("raw CASE RANKS MS").
// `--check` instead trains two steps and checks the parameters agree across
// ranks bitwise (every rank must take the same update).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <camber/nn/data_parallel.hpp>
#include <camber/nn/layers.hpp>
#include <camber/nn/loss.hpp>
#include <camber/nn/optim.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::DType;
using camber::index_t;
using camber::Tensor;

namespace {

constexpr index_t n_in = 16, n_layers = 4;

// This rank's rows of a seeded {rows, cols} uniform matrix (every rank draws
// the whole matrix, so the global batch is the same at any rank count).
Tensor rows_of(index_t rows, index_t cols, unsigned seed, nn::RowRange r, DType dt) {
  nn::Rng rng(seed);
  const std::vector<double> all = nn::uniform({rows, cols}, -1.0, 1.0, rng).to_vector();
  std::vector<double> mine(all.begin() + r.begin * cols, all.begin() + r.end * cols);
  return Tensor::from_host({r.size(), cols}, mine).to(dt);
}

struct Case {
  index_t width, batch;
  DType dtype;
  std::shared_ptr<nn::Sequential> net;
  std::unique_ptr<nn::Adam> opt;
  ad::Var x, y;
  std::vector<double> seconds;

  Case(index_t w, index_t b, DType dt) : width(w), batch(b), dtype(dt) {
    nn::Rng rng(1);
    nn::MlpOptions o;
    o.in = n_in;
    o.out = 1;
    o.hidden.assign(n_layers, width);
    o.dtype = dtype;
    net = nn::mlp(o, rng);
    opt = std::make_unique<nn::Adam>(net->parameters(), nn::AdamOptions{1e-4});
    const nn::RowRange r = nn::local_rows(batch, MPI_COMM_WORLD);
    x = ad::constant(rows_of(batch, n_in, 2, r, dtype));
    y = ad::constant(rows_of(batch, 1, 3, r, dtype));
  }
  void step() {
    // Sum over this rank's rows / global rows: the summed gradient is the
    // global batch's mean-squared-error gradient.
    const ad::Var loss = nn::sum_squared_error(net->forward(x), y) / static_cast<double>(batch);
    std::vector<Tensor> g = nn::values(ad::grad(loss, net->parameters()));
    nn::allreduce_sum(g, MPI_COMM_WORLD);
    opt->step(g);
  }
  std::string name() const {
    return "mlp4x" + std::to_string(width) + "/" + (dtype == DType::float32 ? "f32" : "f64") +
           "/batch" + std::to_string(batch);
  }
};

int option(int argc, char** argv, const char* key, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], key) == 0) return std::atoi(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  const int ranks = static_cast<int>(camber::comm_size(MPI_COMM_WORLD));
  const int rank = static_cast<int>(camber::comm_rank(MPI_COMM_WORLD));
  bool check = false, raw = false;
  for (int i = 1; i < argc; ++i) {
    check = check || std::strcmp(argv[i], "--check") == 0;
    raw = raw || std::strcmp(argv[i], "--raw") == 0;
  }

  if (check) {
    Case c(32, 64, DType::float64);
    c.step();
    c.step();
    double worst = 0.0;
    for (const Tensor& p : c.net->parameter_values()) {
      std::vector<double> v = p.to_vector(), v0 = v;
      MPI_Bcast(v0.data(), static_cast<int>(v0.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
      for (size_t i = 0; i < v.size(); ++i) worst = std::max(worst, std::abs(v[i] - v0[i]));
    }
    worst = camber::par::allreduce_max(worst, MPI_COMM_WORLD);
    if (rank == 0) std::printf("nn_scaling: parameters differ across %d ranks by %.1e\n", ranks, worst);
    if (worst != 0.0) return 1;
    if (rank == 0) std::printf("set-up checks passed\n");
    return 0;
  }

  const int reps = option(argc, argv, "--reps", 7), steps = option(argc, argv, "--steps", 20);
  std::vector<std::unique_ptr<Case>> cases;
  for (const DType dt : {DType::float64, DType::float32})
    for (const index_t w : {64, 256})
      for (const index_t b : {256, 2048}) cases.push_back(std::make_unique<Case>(w, b, dt));
  for (auto& c : cases) c->step();  // warm-up: allocator caches, first-touch
  for (int r = 0; r < reps; ++r)
    for (auto& c : cases) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int s = 0; s < steps; ++s) c->step();
      double t = (MPI_Wtime() - t0) / steps;
      t = camber::par::allreduce_max(t, MPI_COMM_WORLD);
      c->seconds.push_back(t);
    }
  if (rank == 0 && raw) {
    for (auto& c : cases)
      for (const double t : c->seconds) std::printf("raw %s %d %.6f\n", c->name().c_str(), ranks, 1e3 * t);
  } else if (rank == 0) {
    std::printf("# nn_scaling: %d ranks, %d repetitions of %d steps; ms per step\n", ranks, reps,
                steps);
    std::printf("%-24s %6s %10s %10s %10s %12s\n", "case", "ranks", "median", "min", "max",
                "samples/s");
    for (auto& c : cases) {
      std::vector<double> s = c->seconds;
      std::sort(s.begin(), s.end());
      const double med = s[s.size() / 2];
      std::printf("%-24s %6d %10.3f %10.3f %10.3f %12.0f\n", c->name().c_str(), ranks, 1e3 * med,
                  1e3 * s.front(), 1e3 * s.back(), static_cast<double>(c->batch) / med);
    }
  }
  return 0;
}
