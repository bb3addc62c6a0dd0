// Time integration costs (docs/performance.md, "Time integration"):
//
// 1. Robertson (cvsRoberts_dns's problem, tolerances, roots and 12 outputs)
//    through camber::solvers::ode::Cvodes against SUNDIALS' own example program,
//    compiled from Debian's installed source and called in-process (its
//    printing goes to /dev/null; it also writes its statistics CSV once per
//    output, in a scratch folder), and against the same program built with
//    its output calls doing nothing (quiet_io.c), the equal-work
//    comparison. All take the same 542 steps (checked).
// 2. The adjoint gradient of cvsRoberts_ASAi_dns's G (forward with
//    checkpoints, then the backward sweep) against the forward run alone,
//    at three checkpoint intervals.
//
// `bench_cvodes --check` runs the set-up checks only (CTest runs it).
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <camber/solvers/ode/cvodes.hpp>

extern "C" int cvs_roberts_dns_main();
extern "C" int cvs_roberts_dns_quiet_main();

namespace solvers = camber::solvers;

namespace {

const auto robertson = [](double, const auto* y, const auto* p, auto* ydot) {
  ydot[0] = -p[0] * y[0] + p[1] * y[1] * y[2];
  ydot[2] = p[2] * y[1] * y[1];
  ydot[1] = -ydot[0] - ydot[2];
};

solvers::ode::OdeSystem roberts_system() {
  solvers::ode::OdeSystem s = solvers::ode::make_ode_system(3, {0.04, 1.0e4, 3.0e7}, robertson);
  s.n_roots = 2;
  s.roots = [](double, const double* y, double* g) {
    g[0] = y[0] - 0.0001;
    g[1] = y[2] - 0.01;
  };
  return s;
}

// The example's loop: 12 outputs at 0.4 x 10^k, stopping at roots too.
long camber_roberts() {
  solvers::ode::CvodesOptions o;
  o.rtol = 1e-4;
  o.atol = {1e-8, 1e-14, 1e-6};
  solvers::ode::Cvodes cv(roberts_system(), o);
  cv.reset(0.0, {1.0, 0.0, 0.0});
  std::vector<double> y;
  std::vector<int> roots;
  double tout = 0.4;
  for (int k = 0; k < 12;) {
    cv.advance(tout, y, &roots);
    benchmark::DoNotOptimize(y.data());
    if (roots.empty()) {
      ++k;
      tout *= 10.0;
    }
  }
  return cv.stats().steps;
}

// Runs SUNDIALS' example with its output to /dev/null, in a scratch folder.
int sundials_example() {
  std::fflush(stdout);
  const int saved = dup(1), null = open("/dev/null", O_WRONLY);
  dup2(null, 1);
  const int rc = cvs_roberts_dns_main();
  std::fflush(stdout);
  dup2(saved, 1);
  close(null);
  close(saved);
  return rc;
}

void BM_robertson_camber(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(camber_roberts());
}

void BM_robertson_sundials_example(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(sundials_example());
}

// The same example with its output calls doing nothing: the same work as
// Camber's run (and its final check_ans, a few operations).
void BM_robertson_sundials_example_quiet(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(cvs_roberts_dns_quiet_main());
}

solvers::ode::CvodesOptions asa_options() {
  solvers::ode::CvodesOptions o;
  o.rtol = 1e-6;
  o.atol = {1e-8, 1e-14, 1e-6};
  o.max_steps = 2500;
  return o;
}

void BM_roberts_forward(benchmark::State& state) {
  const solvers::ode::OdeSystem sys = solvers::ode::make_ode_system(3, {0.04, 1.0e4, 3.0e7}, robertson);
  for (auto _ : state) {
    solvers::ode::Cvodes cv(sys, asa_options());
    cv.reset(0.0, {1.0, 0.0, 0.0});
    std::vector<double> y;
    cv.advance(4e7, y);
    benchmark::DoNotOptimize(y.data());
  }
}

void BM_roberts_adjoint(benchmark::State& state) {
  const solvers::ode::OdeSystem sys = solvers::ode::make_ode_system(3, {0.04, 1.0e4, 3.0e7}, robertson);
  const solvers::ode::OdeIntegrand g =
      solvers::ode::make_integrand([](double, const auto* y, const auto*) { return y[2]; });
  solvers::ode::AdjointOptions a;
  a.checkpoint_steps = state.range(0);
  for (auto _ : state)
    benchmark::DoNotOptimize(solvers::ode::integral_gradients(sys, g, asa_options(), 0.0, {1.0, 0.0, 0.0}, {4e7}, a));
}

}  // namespace

BENCHMARK(BM_robertson_camber)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_robertson_sundials_example)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_robertson_sundials_example_quiet)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_roberts_forward)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_roberts_adjoint)->Arg(50)->Arg(150)->Arg(500)->Unit(benchmark::kMicrosecond)->UseRealTime();

int main(int argc, char** argv) {
  // The example writes cvsRoberts_dns_stats.csv into the working folder.
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("camber_bench_cvodes_" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);
  std::filesystem::current_path(scratch);
  const long steps = camber_roberts();
  const int rc = sundials_example() + cvs_roberts_dns_quiet_main();
  std::printf("bench_cvodes: Camber's Robertson took %ld steps (SUNDIALS' example: 542), example exit code %d\n",
              steps, rc);
  bool ok = steps == 542 && rc == 0;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--check") == 0) {
      std::filesystem::current_path("/");
      std::filesystem::remove_all(scratch);
      if (ok) std::printf("set-up checks passed\n");
      return ok ? 0 : 1;
    }
  if (!ok) return 1;
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::filesystem::current_path("/");
  std::filesystem::remove_all(scratch);
  return 0;
}
