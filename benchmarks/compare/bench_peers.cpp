// The functions of benchmarks/autodiff/bench_graph.cpp differentiated with
// ADOL-C and Sacado, for the side-by-side figures of docs/performance.md.
// The peers are used here only, never by the library.
//
//   (b) chain of 100 element-wise ops (sin, y*y, y+0.5, exp, 0.3*y, x20),
//       summed. Taped reverse modes (ADOL-C, Sacado Rad) record 1e8 ops at
//       n = 1e6 (several GB of tape): they run at n = 1e5 and the run.sh
//       table scales their time by 10 (the cost is linear in n, every element
//       is independent). Sacado SFad<double,1> runs at n = 1e6: the Jacobian
//       of the chain is diagonal, so one forward sweep gives the gradient.
//   (c) extended Rosenbrock, n = 1e6, same inputs as bench_graph:
//       ADOL-C trace (keeping the Taylors) + fos_reverse(), trace +
//       hess_vec(); Sacado Rad (reverse);
//       Sacado SFad per pair (the function is a sum of terms in 2 variables,
//       so 2-direction forward mode per pair gives the exact gradient) and
//       SFad<SFad<double,1>,2> per pair for H v.
//   (a) MLP: not run. With scalar AD types, one loss evaluation is ~0.9e9
//       multiply-adds, each a taped operation (ADOL-C) or a Rad node.
//
// Timed cases re-record the tape every iteration (as the ad::Var graph is
// rebuilt every iteration), except *_adolc_reuse: gradient() on a stored
// tape; the primal of each case is plain double code
// (the same template instantiated with double). A re-recorded gradient
// tapes with trace_on(tag, 1), which keeps the values the reverse sweep
// needs, then runs fos_reverse() alone: gradient() would replay the tape
// forward once more (zos_forward) before its reverse sweep.
#include <adolc/adolc.h>
#include <benchmark/benchmark.h>

#include <Sacado.hpp>
#include <Sacado_trad.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr long chain_n = 1000000;
constexpr long chain_n_taped = 100000;
constexpr int chain_ops = 100;
constexpr long rosen_n = 1000000;

using Rad = Sacado::Rad::ADvar<double>;
using Fad1 = Sacado::Fad::SFad<double, 1>;
using Fad2 = Sacado::Fad::SFad<double, 2>;
using Fad2of1 = Sacado::Fad::SFad<Fad1, 2>;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "bench_peers: derivative check failed: %s\n", what.c_str());
  std::exit(1);
}

std::vector<double> random_vector(long n, double lo, double hi, unsigned seed) {
  // Same generator and seeds as bench_graph.cpp, so the same inputs.
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = u(gen);
  return v;
}

template <class T>
T chain_elem(T y) {
  using std::exp;
  using std::sin;
  for (int k = 0; k < chain_ops; ++k) {
    switch (k % 5) {
      case 0: y = sin(y); break;
      case 1: y = y * y; break;
      case 2: y = y + 0.5; break;
      case 3: y = exp(y); break;
      default: y = y * 0.3; break;
    }
  }
  return y;
}

template <class T>
T rosen_pair(const T& a, const T& b) {
  const T t = b - a * a;
  const T u = 1.0 - a;
  return 100.0 * (t * t) + u * u;
}

struct Inputs {
  std::vector<double> chain_x = random_vector(chain_n, -1.0, 1.0, 6);
  std::vector<double> rosen_x = random_vector(rosen_n, -1.5, 1.5, 7);
  std::vector<double> rosen_v = random_vector(rosen_n, -1.0, 1.0, 8);
};
const Inputs* g_in = nullptr;

// ADOL-C keeps the tape in memory when its buffers hold it (otherwise it
// writes tape files to the working directory): sizes in elements.
constexpr unsigned adolc_buffer = 1u << 27;

// ---- (b) chain ------------------------------------------------------------------
double chain_primal(long n) {
  double f = 0.0;
  for (long i = 0; i < n; ++i) f += chain_elem(g_in->chain_x[static_cast<size_t>(i)]);
  return f;
}

// Tape and reverse sweep, no forward replay (see the top of the file).
void chain_adolc_tape(long n, std::vector<double>& g) {
  trace_on(1, 1, adolc_buffer, adolc_buffer, adolc_buffer, adolc_buffer);
  adouble f = 0.0;
  for (long i = 0; i < n; ++i) {
    adouble x;
    x <<= g_in->chain_x[static_cast<size_t>(i)];
    f += chain_elem(x);
  }
  double fv;
  f >>= fv;
  trace_off();
  g.resize(static_cast<size_t>(n));
  double weight = 1.0;
  if (fos_reverse(1, 1, static_cast<int>(n), &weight, g.data()) < 0) fail("chain ADOL-C fos_reverse");
}

void chain_rad(long n, std::vector<double>& g) {
  std::vector<Rad> x(g_in->chain_x.begin(), g_in->chain_x.begin() + n);
  Rad f = 0.0;
  for (long i = 0; i < n; ++i) f += chain_elem(x[static_cast<size_t>(i)]);
  Rad::Gradcomp();
  g.resize(static_cast<size_t>(n));
  for (long i = 0; i < n; ++i) g[static_cast<size_t>(i)] = x[static_cast<size_t>(i)].adj();
}

void chain_fad(long n, std::vector<double>& g) {
  g.resize(static_cast<size_t>(n));
  for (long i = 0; i < n; ++i) {
    const Fad1 y = chain_elem(Fad1(1, 0, g_in->chain_x[static_cast<size_t>(i)]));
    g[static_cast<size_t>(i)] = y.fastAccessDx(0);
  }
}

// ---- (c) Rosenbrock ------------------------------------------------------------
double rosen_primal() {
  const std::vector<double>& x = g_in->rosen_x;
  double f = 0.0;
  for (size_t i = 0; i < x.size(); i += 2) f += rosen_pair(x[i], x[i + 1]);
  return f;
}

// keep = 1 keeps the Taylors for a following fos_reverse(); hess_vec() runs
// its own forward sweep and needs none (keep = 0).
void rosen_adolc_tape(int keep) {
  const std::vector<double>& x = g_in->rosen_x;
  trace_on(2, keep, adolc_buffer, adolc_buffer, adolc_buffer, adolc_buffer);
  std::vector<adouble> xa(x.size());
  for (size_t i = 0; i < x.size(); ++i) xa[i] <<= x[i];
  adouble f = 0.0;
  for (size_t i = 0; i < x.size(); i += 2) f += rosen_pair(xa[i], xa[i + 1]);
  double fv;
  f >>= fv;
  trace_off();
}

void rosen_adolc_grad(std::vector<double>& g) {
  rosen_adolc_tape(1);
  g.resize(g_in->rosen_x.size());
  double weight = 1.0;
  if (fos_reverse(2, 1, static_cast<int>(rosen_n), &weight, g.data()) < 0)
    fail("Rosenbrock ADOL-C fos_reverse");
}

void rosen_adolc_hvp(std::vector<double>& hv) {
  rosen_adolc_tape(0);
  hv.resize(g_in->rosen_x.size());
  std::vector<double> x = g_in->rosen_x, v = g_in->rosen_v;  // hess_vec takes non-const
  hess_vec(2, static_cast<int>(rosen_n), x.data(), v.data(), hv.data());
}

void rosen_rad(std::vector<double>& g) {
  const std::vector<double>& x = g_in->rosen_x;
  std::vector<Rad> xr(x.begin(), x.end());
  Rad f = 0.0;
  for (size_t i = 0; i < x.size(); i += 2) f += rosen_pair(xr[i], xr[i + 1]);
  Rad::Gradcomp();
  g.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) g[i] = xr[i].adj();
}

void rosen_fad(std::vector<double>& g) {
  const std::vector<double>& x = g_in->rosen_x;
  g.resize(x.size());
  for (size_t i = 0; i < x.size(); i += 2) {
    const Fad2 f = rosen_pair(Fad2(2, 0, x[i]), Fad2(2, 1, x[i + 1]));
    g[i] = f.fastAccessDx(0);
    g[i + 1] = f.fastAccessDx(1);
  }
}

void rosen_fad_hvp(std::vector<double>& hv) {
  const std::vector<double>& x = g_in->rosen_x;
  const std::vector<double>& v = g_in->rosen_v;
  hv.resize(x.size());
  for (size_t i = 0; i < x.size(); i += 2) {
    Fad1 a(1, 0, x[i]), b(1, 0, x[i + 1]);
    a.fastAccessDx(0) = v[i];
    b.fastAccessDx(0) = v[i + 1];
    const Fad2of1 f = rosen_pair(Fad2of1(2, 0, a), Fad2of1(2, 1, b));
    hv[i] = f.fastAccessDx(0).fastAccessDx(0);
    hv[i + 1] = f.fastAccessDx(1).fastAccessDx(0);
  }
}

// ---- checks against the closed forms (as bench_graph) -------------------------------
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < b.size(); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / std::max(den, 1e-300);
}

void check_all() {
  const long n = 1000;
  std::vector<double> ref(static_cast<size_t>(n)), g;
  for (long i = 0; i < n; ++i) {
    // closed form: product of the local derivatives along the chain
    double y = g_in->chain_x[static_cast<size_t>(i)], d = 1.0;
    for (int k = 0; k < chain_ops; ++k) {
      switch (k % 5) {
        case 0: d *= std::cos(y); y = std::sin(y); break;
        case 1: d *= 2.0 * y; y = y * y; break;
        case 2: y += 0.5; break;
        case 3: y = std::exp(y); d *= y; break;
        default: d *= 0.3; y *= 0.3; break;
      }
    }
    ref[static_cast<size_t>(i)] = d;
  }
  chain_adolc_tape(n, g);
  if (rel_diff(g, ref) > 1e-12) fail("chain ADOL-C");
  chain_rad(n, g);
  if (rel_diff(g, ref) > 1e-12) fail("chain Sacado Rad");
  chain_fad(n, g);
  if (rel_diff(g, ref) > 1e-12) fail("chain Sacado Fad");

  const std::vector<double>& x = g_in->rosen_x;
  const std::vector<double>& v = g_in->rosen_v;
  std::vector<double> gref(x.size()), hvref(x.size());
  for (size_t i = 0; i < x.size(); i += 2) {
    const double a = x[i], b = x[i + 1], t = b - a * a;
    gref[i] = -400.0 * a * t - 2.0 * (1.0 - a);
    gref[i + 1] = 200.0 * t;
    const double haa = 1200.0 * a * a - 400.0 * b + 2.0, hab = -400.0 * a;
    hvref[i] = haa * v[i] + hab * v[i + 1];
    hvref[i + 1] = hab * v[i] + 200.0 * v[i + 1];
  }
  rosen_adolc_grad(g);
  if (rel_diff(g, gref) > 1e-12) fail("Rosenbrock ADOL-C gradient");
  rosen_adolc_hvp(g);
  if (rel_diff(g, hvref) > 1e-12) fail("Rosenbrock ADOL-C hess_vec");
  rosen_rad(g);
  if (rel_diff(g, gref) > 1e-12) fail("Rosenbrock Sacado Rad");
  rosen_fad(g);
  if (rel_diff(g, gref) > 1e-12) fail("Rosenbrock Sacado Fad");
  rosen_fad_hvp(g);
  if (rel_diff(g, hvref) > 1e-12) fail("Rosenbrock Sacado Fad H v");
}

// ---- benchmarks -------------------------------------------------------------------
void counters(benchmark::State& state, double n) { state.counters["elements"] = n; }

void BM_chain_primal_double(benchmark::State& state) {
  const long n = state.range(0);
  for (auto _ : state) benchmark::DoNotOptimize(chain_primal(n));
  counters(state, static_cast<double>(n));
}
void BM_chain_grad_adolc(benchmark::State& state) {
  std::vector<double> g;
  for (auto _ : state) {
    chain_adolc_tape(chain_n_taped, g);
    benchmark::DoNotOptimize(g.data());
  }
  counters(state, chain_n_taped);
}
// gradient() on the tape of the previous iteration: ADOL-C's cost when the
// tape can be reused (same control flow), without recording.
void BM_chain_grad_adolc_reuse(benchmark::State& state) {
  std::vector<double> g;
  chain_adolc_tape(chain_n_taped, g);
  for (auto _ : state) {
    gradient(1, static_cast<int>(chain_n_taped), g_in->chain_x.data(), g.data());
    benchmark::DoNotOptimize(g.data());
  }
  counters(state, chain_n_taped);
}
void BM_chain_grad_sacado_rad(benchmark::State& state) {
  std::vector<double> g;
  for (auto _ : state) {
    chain_rad(chain_n_taped, g);
    benchmark::DoNotOptimize(g.data());
  }
  counters(state, chain_n_taped);
}
void BM_chain_grad_sacado_fad(benchmark::State& state) {
  std::vector<double> g;
  for (auto _ : state) {
    chain_fad(chain_n, g);
    benchmark::DoNotOptimize(g.data());
  }
  counters(state, chain_n);
}

void BM_rosenbrock_grad_adolc_reuse(benchmark::State& state) {
  std::vector<double> g;
  rosen_adolc_grad(g);
  for (auto _ : state) {
    gradient(2, static_cast<int>(rosen_n), g_in->rosen_x.data(), g.data());
    benchmark::DoNotOptimize(g.data());
  }
  counters(state, rosen_n);
}

void BM_rosenbrock_primal_double(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(rosen_primal());
  counters(state, rosen_n);
}
template <void (*F)(std::vector<double>&)>
void BM_rosen(benchmark::State& state) {
  std::vector<double> g;
  for (auto _ : state) {
    F(g);
    benchmark::DoNotOptimize(g.data());
  }
  counters(state, rosen_n);
}

}  // namespace

BENCHMARK(BM_chain_primal_double)->Arg(chain_n)->Arg(chain_n_taped)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_grad_adolc)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_grad_adolc_reuse)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_grad_sacado_rad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_grad_sacado_fad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rosenbrock_primal_double)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_rosen, rosen_adolc_grad)->Name("BM_rosenbrock_grad_adolc")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rosenbrock_grad_adolc_reuse)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_rosen, rosen_rad)->Name("BM_rosenbrock_grad_sacado_rad")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_rosen, rosen_fad)->Name("BM_rosenbrock_grad_sacado_fad")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_rosen, rosen_adolc_hvp)->Name("BM_rosenbrock_hvp_adolc")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_rosen, rosen_fad_hvp)->Name("BM_rosenbrock_hvp_sacado_fad")->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  const Inputs inputs;
  g_in = &inputs;
  check_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
