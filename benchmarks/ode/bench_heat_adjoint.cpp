// The adjoint of a distributed time-dependent PDE (docs/performance.md,
// "Time integration"): the conductivity inverse problem's objective and
// gradient (examples/heat/inverse.yaml's set-up on an n x n mesh: one
// CVODES forward run storing checkpoints, one backward run) against the
// forward run alone, at three checkpoint intervals, with the peak resident
// memory each adds.
//
// Peak memory: before each run freed heap memory is returned to the
// system (malloc_trim) and the kernel's high-water mark of the
// process's resident set is reset (writing 5 to /proc/self/clear_refs), and
// the counter peak_MiB is VmHWM after the run minus VmRSS before it: the
// memory the run itself held at its peak (checkpoints, the stored steps
// between two checkpoints, the solver's work vectors).
//
//   bench_heat_adjoint [--cells N] [google benchmark flags]
#include <benchmark/benchmark.h>

#include "../common/peak_memory.hpp"


#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <camber/mesh/generators.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/heat/conductivity_inverse.hpp>

namespace solvers = camber::solvers;
namespace mesh = camber::mesh;

namespace {

int cells = 64;

solvers::heat::ConductivityInverseProblem problem() {
  solvers::heat::ConductivityInverseProblem p;
  for (const char* name : {"left", "right", "bottom", "top"})
    p.model.boundary[name] = solvers::heat::HeatBoundary::temperature(0.0);
  p.model.source = [](double x, double y) {
    return 20.0 * std::exp(-((x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5)) / 0.09);
  };
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 6; ++i) p.sensors.push_back({(i + 0.5) / 6.0, (j + 0.5) / 6.0});
  p.times = {0.02, 0.05, 0.1, 0.2};
  p.true_log_conductivity = [](double x, double y) {
    return std::log(1.0 + std::exp(-((x - 0.6) * (x - 0.6) + (y - 0.4) * (y - 0.4)) / 0.0225));
  };
  p.noise_std = 1e-3;
  return p;
}

struct Case {
  mesh::DistributedMesh dm{mesh::rectangle(cells, cells, 1.0, 1.0), MPI_COMM_WORLD};
  solvers::heat::ConductivityInverseProblem p = problem();
  solvers::heat::TransientHeat heat{dm, p.model};
  std::vector<double> m = heat.at_centroids([](double, double) { return 0.0; });
};

// Made on first use, destroyed before the runtime ends (its Views need Kokkos).
std::unique_ptr<Case> the_case;
Case& shared_case() {
  if (!the_case) the_case = std::make_unique<Case>();
  return *the_case;
}

void BM_heat_forward(benchmark::State& state) {
  Case& c = shared_case();
  c.heat.set_log_conductivity(c.m);
  long peak = 0, steps = 0;
  for (auto _ : state) {
    camber::bench::reset_peak();
    const long before = camber::bench::status_kb("VmRSS:");
    solvers::ode::DistributedCvodes cv(c.heat.system(), c.p.ode);
    cv.reset(0.0, std::vector<double>(c.m.size(), 0.0));
    std::vector<double> T;
    for (double t : c.p.times) cv.advance(t, T);
    benchmark::DoNotOptimize(T.data());
    peak = std::max(peak, camber::bench::status_kb("VmHWM:") - before);
    steps = cv.stats().ode.steps;
    state.counters["gmres"] = static_cast<double>(cv.stats().linear_iters);
    state.counters["rhs"] = static_cast<double>(cv.stats().ode.rhs_evals);
  }
  state.counters["peak_MiB"] = static_cast<double>(peak) / 1024.0;
  state.counters["steps"] = static_cast<double>(steps);
}

void BM_heat_gradient(benchmark::State& state) {
  Case& c = shared_case();
  c.p.adjoint.checkpoint_steps = state.range(0);
  solvers::heat::ConductivityObjective objective(c.heat, c.p, std::vector<double>(c.p.sensors.size() * c.p.times.size(), 0.1));
  long peak = 0;
  solvers::heat::ConductivityObjective::Value v;
  for (auto _ : state) {
    camber::bench::reset_peak();
    const long before = camber::bench::status_kb("VmRSS:");
    v = objective.evaluate(c.m);
    benchmark::DoNotOptimize(v.gradient.data());
    peak = std::max(peak, camber::bench::status_kb("VmHWM:") - before);
  }
  state.counters["peak_MiB"] = static_cast<double>(peak) / 1024.0;
  state.counters["checkpoints"] = v.checkpoints;
  state.counters["steps"] = static_cast<double>(v.forward.ode.steps);
  state.counters["backward_steps"] = static_cast<double>(v.backward.ode.steps);
  state.counters["gmres"] = static_cast<double>(v.forward.linear_iters);
  state.counters["backward_gmres"] = static_cast<double>(v.backward.linear_iters);
  state.counters["backward_rhs"] = static_cast<double>(v.backward.ode.rhs_evals);
}

}  // namespace

BENCHMARK(BM_heat_forward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_heat_gradient)->Arg(20)->Arg(100)->Arg(500)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--cells") == 0) cells = std::atoi(argv[i + 1]);
  std::printf("bench_heat_adjoint: %d x %d cells, %s\n", cells, cells, runtime.describe().c_str());
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  the_case.reset();
  return 0;
}
