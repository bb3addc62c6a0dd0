// Cost of derivatives with the ad::Var tensor graph, relative to the primal.
//
// Three functions (the benchmark set), each timed as
//   primal   the same ad:: ops under NoGradGuard (no graph recorded),
//   grad     forward pass with graph recording + reverse pass (ad::grad),
//   hvp      forward-over-reverse Hessian-vector product (ad::hvp / ad::jvp
//            of ad::grad), on (a) and (c) only,
// plus reference primals outside the graph: plain camber::Tensor ops ((b))
// and a hand-written loop ((c)). docs/performance.md reports grad/primal and
// hvp/primal, taken from one run (benchmarks/run.sh).
//
//   (a) MLP loss: 16 inputs, 4 hidden layers of 256 (tanh), 1 output, batch
//       4096, mean squared error; gradient with respect to all weights.
//   (b) a chain of 100 element-wise ops on 1e6 elements, summed: the cycle
//       sin, y*y, y+0.5, exp, 0.3*y repeated 20 times.
//   (c) extended Rosenbrock, n = 1e6:
//       f = sum_i 100 (x_{2i+1} - x_{2i}^2)^2 + (1 - x_{2i})^2.
//
// Each derivative is checked once at set-up against a closed form ((b), (c))
// or central differences ((a)); a wrong derivative aborts the program.
//
// `bench_graph --check` runs only the set-up checks, on the MLP with a batch
// of 64 (the chain and Rosenbrock checks are small already): CTest runs it,
// so the benchmark's derivatives cannot rot unnoticed.
//
// `bench_graph --memory` prints the memory report instead of timing: the
// bytes of Kokkos allocations (every Tensor) held by the graph after the
// forward pass, and the peak during ad::grad, per element per op (ops as
// written, counted without fusion; see memory_case).
//
// The program starts camber::Runtime as applications do (MPI, Kokkos, the
// engine allocator's settings).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include <Eigen/Dense>

#include <camber/core/allocator.hpp>
#include <camber/autodiff/graph.hpp>
#include <camber/core/runtime.hpp>

namespace ad = camber::ad;
using camber::index_t;
using camber::Tensor;

namespace {

// ---- problem sizes (from the issue) ----------------------------------------
// CAMBER_BENCH_SCALE (a positive integer, default 1) multiplies the batch and
// the vector lengths: the sizes fit in a GPU's cache, so GPU runs
// also time them 32 times larger.
index_t bench_scale() {
  const char* s = std::getenv("CAMBER_BENCH_SCALE");
  if (s == nullptr || *s == '\0') return 1;
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  if (*end != '\0' || v < 1 || v > 4096) {
    std::fprintf(stderr, "bench_graph: CAMBER_BENCH_SCALE=%s is not an integer in [1, 4096]\n", s);
    std::exit(2);
  }
  return static_cast<index_t>(v);
}
const index_t size_scale = bench_scale();
const index_t mlp_batch = 4096 * size_scale;
constexpr index_t mlp_in = 16;
constexpr index_t mlp_hidden = 256;
constexpr int mlp_layers = 4;  // hidden layers
const index_t chain_n = 1000000 * size_scale;
constexpr int chain_ops = 100;
const index_t rosen_n = 1000000 * size_scale;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "bench_graph: derivative check failed: %s\n", what.c_str());
  std::exit(1);
}

Tensor random_tensor(const camber::Shape& shape, double lo, double hi, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(camber::shape_size(shape)));
  for (double& x : v) x = u(gen);
  return Tensor::from_host(shape, v);
}

double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / std::max(den, 1e-300);
}

// ---- (b) chain of element-wise ops -------------------------------------------
ad::Var chain(const ad::Var& x) {
  ad::Var y = x;
  for (int k = 0; k < chain_ops; ++k) {
    switch (k % 5) {
      case 0: y = ad::sin(y); break;
      case 1: y = y * y; break;
      case 2: y = y + 0.5; break;
      case 3: y = ad::exp(y); break;
      default: y = y * 0.3; break;
    }
  }
  return ad::sum(y);
}

double chain_tensor(const Tensor& x) {
  Tensor y = x;
  for (int k = 0; k < chain_ops; ++k) {
    switch (k % 5) {
      case 0: y = camber::sin(y); break;
      case 1: y = camber::mul(y, y); break;
      case 2: y = camber::add_scalar(y, 0.5); break;
      case 3: y = camber::exp(y); break;
      default: y = camber::scale(y, 0.3); break;
    }
  }
  return y.sum();
}

// Value and derivative of one element through the chain (the closed form).
double chain_scalar(double y, double* dy) {
  double d = 1.0;
  for (int k = 0; k < chain_ops; ++k) {
    switch (k % 5) {
      case 0: d *= std::cos(y); y = std::sin(y); break;
      case 1: d *= 2.0 * y; y = y * y; break;
      case 2: y = y + 0.5; break;
      case 3: y = std::exp(y); d *= y; break;
      default: d *= 0.3; y = 0.3 * y; break;
    }
  }
  if (dy) *dy = d;
  return y;
}

// ---- (c) extended Rosenbrock -------------------------------------------------
ad::Var rosenbrock(const ad::Var& x) {
  const index_t m = x.size() / 2;
  const ad::Var p = ad::reshape(x, {m, 2});
  const ad::Var a = ad::slice(p, 1, 0, 1);
  const ad::Var b = ad::slice(p, 1, 1, 2);
  const ad::Var t = b - a * a;
  const ad::Var u = 1.0 - a;
  return ad::sum(100.0 * (t * t) + u * u);
}

double rosenbrock_loop(const double* x, index_t n) {
  double f = 0.0;
  for (index_t i = 0; i < n; i += 2) {
    const double t = x[i + 1] - x[i] * x[i], u = 1.0 - x[i];
    f += 100.0 * t * t + u * u;
  }
  return f;
}

// ---- (a) MLP -------------------------------------------------------------------
struct Mlp {
  Tensor x, target;            // constants
  std::vector<Tensor> params;  // W0, b0, W1, b1, ..., W4, b4
};

Mlp make_mlp(index_t batch = mlp_batch) {
  Mlp m;
  m.x = random_tensor({batch, mlp_in}, -1.0, 1.0, 1);
  m.target = random_tensor({batch, 1}, -1.0, 1.0, 2);
  index_t in = mlp_in;
  for (int l = 0; l <= mlp_layers; ++l) {
    const index_t out = l < mlp_layers ? mlp_hidden : 1;
    const double s = 1.0 / std::sqrt(static_cast<double>(in));  // keeps tanh off saturation
    m.params.push_back(random_tensor({in, out}, -s, s, 10 + 2 * l));
    m.params.push_back(random_tensor({out}, -0.1, 0.1, 11 + 2 * l));
    in = out;
  }
  return m;
}

ad::Var mlp_loss(const Mlp& m, const ad::Vars& p) {
  ad::Var h = ad::constant(m.x);
  for (int l = 0; l <= mlp_layers; ++l) {
    h = ad::matmul(h, p[2 * l]) + p[2 * l + 1];
    if (l < mlp_layers) h = ad::tanh(h);
  }
  const ad::Var r = h - ad::constant(m.target);
  return ad::mean(r * r);
}

// The same network and data in float32 (values rounded once).
Mlp to_float32(const Mlp& m) {
  Mlp f;
  f.x = m.x.to(camber::DType::float32);
  f.target = m.target.to(camber::DType::float32);
  for (const Tensor& p : m.params) f.params.push_back(p.to(camber::DType::float32));
  return f;
}

// The forward pass written directly with Eigen (GEMM, bias, tanh, loss) on
// host copies of the same data: the reference throughput for (a).
template <class T>
struct EigenMlp {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Row = Eigen::Matrix<T, 1, Eigen::Dynamic>;
  Mat x, target;
  std::vector<Mat> w;
  std::vector<Row> b;
  static Mat matrix(const Tensor& t, index_t rows, index_t cols) {
    const std::vector<double> v = t.to(camber::DType::float64).to_vector();
    Mat m(rows, cols);
    for (index_t i = 0; i < rows * cols; ++i) m.data()[i] = static_cast<T>(v[static_cast<size_t>(i)]);
    return m;
  }
  explicit EigenMlp(const Mlp& m) {
    x = matrix(m.x, m.x.dim(0), m.x.dim(1));
    target = matrix(m.target, m.target.dim(0), 1);
    for (size_t l = 0; l < m.params.size(); l += 2) {
      w.push_back(matrix(m.params[l], m.params[l].dim(0), m.params[l].dim(1)));
      b.push_back(matrix(m.params[l + 1], 1, m.params[l + 1].dim(0)));
    }
  }
  double loss() const {
    Mat h = x;
    for (size_t l = 0; l < w.size(); ++l) {
      Mat z = h * w[l];
      z.rowwise() += b[l];
      h = l + 1 < w.size() ? Mat(z.array().tanh().matrix()) : z;
    }
    return static_cast<double>((h - target).squaredNorm()) / static_cast<double>(h.rows());
  }
};

ad::Vars as_vars(const std::vector<Tensor>& t, bool requires_grad) {
  ad::Vars v;
  for (const Tensor& x : t) v.push_back(ad::variable(x, requires_grad));
  return v;
}

double mlp_value(const Mlp& m, const std::vector<Tensor>& p) {
  ad::NoGradGuard no_grad;
  return mlp_loss(m, as_vars(p, false)).item();
}

// Loss value and gradient, what a training step reads (the loss of an
// ad::Var is computed only when read, so a gradient alone would skip it).
double mlp_value_and_grad(const Mlp& m, const std::vector<Tensor>& p) {
  const ad::Vars v = as_vars(p, true);
  const ad::Var loss = mlp_loss(m, v);
  const ad::Vars g = ad::grad(loss, v);
  benchmark::DoNotOptimize(g);
  return loss.item();
}

ad::Vars mlp_grad(const Mlp& m, const std::vector<Tensor>& p) {
  const ad::Vars v = as_vars(p, true);
  return ad::grad(mlp_loss(m, v), v);
}

ad::Vars mlp_hvp(const Mlp& m, const std::vector<Tensor>& p, const std::vector<Tensor>& dir) {
  const auto f = [&m](const ad::Vars& xs) { return ad::grad(mlp_loss(m, xs), xs); };
  return ad::jvp(f, as_vars(p, true), as_vars(dir, false)).tangents;
}

// p + h * d
std::vector<Tensor> shifted(const std::vector<Tensor>& p, const std::vector<Tensor>& d, double h) {
  std::vector<Tensor> r;
  for (size_t k = 0; k < p.size(); ++k) {
    Tensor t = p[k].clone();
    t.axpy(h, d[k]);
    r.push_back(t);
  }
  return r;
}

std::vector<double> flatten(const ad::Vars& v) {
  std::vector<double> out;
  for (const ad::Var& x : v) {
    const std::vector<double> h = x.value().to_vector();
    out.insert(out.end(), h.begin(), h.end());
  }
  return out;
}

std::vector<Tensor> random_direction(const std::vector<Tensor>& p, unsigned seed) {
  std::vector<Tensor> d;
  for (const Tensor& t : p) d.push_back(random_tensor(t.shape(), -1.0, 1.0, seed++));
  return d;
}

// ---- set-up checks ---------------------------------------------------------------
void check_chain() {
  const index_t n = 1000;
  const Tensor x0 = random_tensor({n}, -1.0, 1.0, 3);
  const ad::Var x = ad::variable(x0);
  const ad::Var y = chain(x);
  const std::vector<double> g = ad::grad(y, {x})[0].value().to_vector();
  const std::vector<double> xs = x0.to_vector();
  std::vector<double> g_ref(xs.size());
  double f_ref = 0.0;
  for (size_t i = 0; i < xs.size(); ++i) f_ref += chain_scalar(xs[i], &g_ref[i]);
  if (std::abs(y.item() - f_ref) > 1e-12 * std::abs(f_ref)) fail("chain value");
  if (std::abs(chain_tensor(x0) - f_ref) > 1e-12 * std::abs(f_ref)) fail("chain Tensor value");
  if (rel_diff(g, g_ref) > 1e-12) fail("chain gradient vs closed form");
}

void check_rosenbrock() {
  const index_t n = 1000;
  const Tensor x0 = random_tensor({n}, -1.5, 1.5, 4);
  const Tensor v0 = random_tensor({n}, -1.0, 1.0, 5);
  const ad::Var x = ad::variable(x0);
  const ad::Var y = rosenbrock(x);
  const std::vector<double> g = ad::grad(y, {x})[0].value().to_vector();
  const std::vector<double> hv = ad::hvp(rosenbrock, x0, v0).to_vector();
  const std::vector<double> xs = x0.to_vector(), vs = v0.to_vector();
  std::vector<double> g_ref(xs.size()), hv_ref(xs.size());
  for (size_t i = 0; i < xs.size(); i += 2) {
    const double a = xs[i], b = xs[i + 1], t = b - a * a;
    g_ref[i] = -400.0 * a * t - 2.0 * (1.0 - a);
    g_ref[i + 1] = 200.0 * t;
    const double haa = 1200.0 * a * a - 400.0 * b + 2.0, hab = -400.0 * a, hbb = 200.0;
    hv_ref[i] = haa * vs[i] + hab * vs[i + 1];
    hv_ref[i + 1] = hab * vs[i] + hbb * vs[i + 1];
  }
  const double f_ref = rosenbrock_loop(xs.data(), n);
  if (std::abs(y.item() - f_ref) > 1e-12 * std::abs(f_ref)) fail("Rosenbrock value");
  if (rel_diff(g, g_ref) > 1e-12) fail("Rosenbrock gradient vs closed form");
  if (rel_diff(hv, hv_ref) > 1e-12) fail("Rosenbrock Hessian-vector product vs closed form");
}

void check_mlp(const Mlp& m) {
  const std::vector<Tensor> d = random_direction(m.params, 100);
  const std::vector<Tensor> w = random_direction(m.params, 200);
  const double h = 1e-5;
  // g . d against the central difference of the loss along d (error O(h^2)).
  const std::vector<double> g = flatten(mlp_grad(m, m.params));
  const std::vector<double> dv = flatten(as_vars(d, false));
  double gd = 0.0;
  for (size_t i = 0; i < g.size(); ++i) gd += g[i] * dv[i];
  const double fd = (mlp_value(m, shifted(m.params, d, h)) - mlp_value(m, shifted(m.params, d, -h))) /
                    (2.0 * h);
  if (std::abs(gd - fd) > 1e-6 * std::abs(fd))
    fail("MLP gradient vs central difference: " + std::to_string((gd - fd) / fd));
  // w . H d against the central difference of g . w along d.
  const std::vector<double> hd = flatten(mlp_hvp(m, m.params, d));
  const std::vector<double> wv = flatten(as_vars(w, false));
  const std::vector<double> gp = flatten(mlp_grad(m, shifted(m.params, d, h)));
  const std::vector<double> gm = flatten(mlp_grad(m, shifted(m.params, d, -h)));
  double whd = 0.0, whd_fd = 0.0;
  for (size_t i = 0; i < hd.size(); ++i) {
    whd += wv[i] * hd[i];
    whd_fd += wv[i] * (gp[i] - gm[i]) / (2.0 * h);
  }
  if (std::abs(whd - whd_fd) > 1e-5 * std::abs(whd_fd))
    fail("MLP Hessian-vector product vs central difference: " + std::to_string((whd - whd_fd) / whd_fd));
}

// float32 against float64 on the same data: the loss and the gradient to
// float32 precision (relative 1e-4: 4096 x 256 sums and tanh chains of
// rounding 6e-8 each).
void check_mlp_float32(const Mlp& m) {
  const Mlp f = to_float32(m);
  const double a = mlp_value(f, f.params), b = mlp_value(m, m.params);
  if (std::abs(a - b) > 1e-4 * std::abs(b)) fail("MLP float32 loss vs float64");
  const ad::Vars g32 = mlp_grad(f, f.params), g64 = mlp_grad(m, m.params);
  double num = 0.0, den = 0.0;
  for (size_t k = 0; k < g32.size(); ++k) {
    const std::vector<double> u = g32[k].value().to(camber::DType::float64).to_vector();
    const std::vector<double> v = g64[k].value().to_vector();
    for (size_t i = 0; i < u.size(); ++i) {
      num = std::max(num, std::abs(u[i] - v[i]));
      den = std::max(den, std::abs(v[i]));
    }
  }
  if (num > 1e-4 * den) fail("MLP float32 gradient vs float64: " + std::to_string(num / den));
  // The Eigen reference computes the same loss.
  if (std::abs(EigenMlp<double>(m).loss() - b) > 1e-12 * std::abs(b)) fail("Eigen MLP loss");
}

// ---- benchmarks ---------------------------------------------------------------------
// Inputs shared by the benchmarks; they live in main() between Kokkos
// initialize and finalize (a static Tensor would outlive Kokkos).
struct Inputs {
  Mlp mlp = make_mlp();
  Mlp mlp32 = to_float32(mlp);
  EigenMlp<double> eigen64{mlp};
  EigenMlp<float> eigen32{mlp};
  std::vector<Tensor> mlp_dir = random_direction(mlp.params, 300);
  Tensor chain_x = random_tensor({chain_n}, -1.0, 1.0, 6);
  Tensor rosen_x = random_tensor({rosen_n}, -1.5, 1.5, 7);
  Tensor rosen_v = random_tensor({rosen_n}, -1.0, 1.0, 8);
};
const Inputs* g_inputs = nullptr;

const Mlp& mlp() { return g_inputs->mlp; }
const Tensor& chain_x() { return g_inputs->chain_x; }
const Tensor& rosen_x() { return g_inputs->rosen_x; }
const Tensor& rosen_v() { return g_inputs->rosen_v; }

void set_counters(benchmark::State& state, double elements, double ops) {
  state.counters["elements"] = elements;
  state.counters["ops"] = ops;
}

void BM_mlp_primal(benchmark::State& state) {
  const Mlp& m = mlp();
  for (auto _ : state) benchmark::DoNotOptimize(mlp_value(m, m.params));
  set_counters(state, mlp_batch, 0);
}
void BM_mlp_grad(benchmark::State& state) {
  const Mlp& m = mlp();
  for (auto _ : state) benchmark::DoNotOptimize(mlp_value_and_grad(m, m.params));
  set_counters(state, mlp_batch, 0);
}
void BM_mlp_primal_f32(benchmark::State& state) {
  const Mlp& m = g_inputs->mlp32;
  for (auto _ : state) benchmark::DoNotOptimize(mlp_value(m, m.params));
  set_counters(state, mlp_batch, 0);
}
void BM_mlp_grad_f32(benchmark::State& state) {
  const Mlp& m = g_inputs->mlp32;
  for (auto _ : state) benchmark::DoNotOptimize(mlp_value_and_grad(m, m.params));
  set_counters(state, mlp_batch, 0);
}
void BM_mlp_eigen_forward(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(g_inputs->eigen64.loss());
  set_counters(state, mlp_batch, 0);
}
void BM_mlp_eigen_forward_f32(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(g_inputs->eigen32.loss());
  set_counters(state, mlp_batch, 0);
}
void BM_mlp_hvp(benchmark::State& state) {
  const Mlp& m = mlp();
  const std::vector<Tensor>& d = g_inputs->mlp_dir;
  for (auto _ : state) benchmark::DoNotOptimize(mlp_hvp(m, m.params, d));
  set_counters(state, mlp_batch, 0);
}

void BM_chain_primal(benchmark::State& state) {
  const ad::Var x = ad::variable(chain_x());
  for (auto _ : state) {
    ad::NoGradGuard no_grad;
    benchmark::DoNotOptimize(chain(x).item());
  }
  set_counters(state, chain_n, chain_ops);
}
void BM_chain_primal_tensor(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(chain_tensor(chain_x()));
  set_counters(state, chain_n, chain_ops);
}
void BM_chain_grad(benchmark::State& state) {
  for (auto _ : state) {
    // Value and gradient (the peers' gradients compute the value too).
    const ad::Var x = ad::variable(chain_x());
    const ad::Var y = chain(x);
    benchmark::DoNotOptimize(ad::grad(y, {x}));
    benchmark::DoNotOptimize(y.item());
  }
  set_counters(state, chain_n, chain_ops);
}

void BM_rosenbrock_primal(benchmark::State& state) {
  const ad::Var x = ad::variable(rosen_x());
  for (auto _ : state) {
    ad::NoGradGuard no_grad;
    benchmark::DoNotOptimize(rosenbrock(x).item());
  }
  set_counters(state, rosen_n, 0);
}
void BM_rosenbrock_primal_loop(benchmark::State& state) {
  const std::vector<double> x = rosen_x().to_vector();
  for (auto _ : state) benchmark::DoNotOptimize(rosenbrock_loop(x.data(), rosen_n));
  set_counters(state, rosen_n, 0);
}
void BM_rosenbrock_grad(benchmark::State& state) {
  for (auto _ : state) {
    // Value and gradient (the peers' gradients compute the value too).
    const ad::Var x = ad::variable(rosen_x());
    const ad::Var y = rosenbrock(x);
    benchmark::DoNotOptimize(ad::grad(y, {x}));
    benchmark::DoNotOptimize(y.item());
  }
  set_counters(state, rosen_n, 0);
}
void BM_rosenbrock_hvp(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ad::hvp(rosenbrock, rosen_x(), rosen_v()));
  set_counters(state, rosen_n, 0);
}

// ---- memory report -------------------------------------------------------------------
// Live and peak bytes of Kokkos allocations, from the Kokkos Tools
// allocate/deallocate callbacks. The engine allocator's cache is off while
// the report runs, so every Tensor is one Kokkos allocation of its exact
// size and a freed one is freed: the figures count the bytes the graph
// keeps, not free blocks held for reuse nor the rounding to block sizes
// (under 25%, allocator.hpp).
struct AllocTracker {
  static inline long long live = 0;
  static inline long long peak = 0;
  static void on_alloc(Kokkos::Profiling::SpaceHandle, const char*, const void*, uint64_t size) {
    live += static_cast<long long>(size);
    peak = std::max(peak, live);
  }
  static void on_free(Kokkos::Profiling::SpaceHandle, const char*, const void*, uint64_t size) {
    live -= static_cast<long long>(size);
  }
  static void reset_peak() { peak = live; }
};

// Recorded ops behind y (nodes reachable through node inputs).
int count_nodes(const ad::Var& y) {
  std::unordered_set<const void*> seen;
  std::vector<ad::Var> work{y};
  int nodes = 0;
  while (!work.empty()) {
    const ad::Var v = work.back();
    work.pop_back();
    if (!v.has_node() || !seen.insert(v.id()).second) continue;
    ++nodes;
    for (const ad::Var& in : ad::detail::VarAccess::impl(v)->node->inputs) work.push_back(in);
  }
  return nodes;
}

// Bytes per element per op: held (or peak) bytes / (elements x ops), with
// ops the number of nodes the same program records without fusion (the ops
// the user wrote: 100 for the chain). With fusion the graph records fewer
// nodes (one per fused expression), which the report prints as well.
template <class Build>
void memory_case(const char* name, double elements, const Build& build) {
  int ops = 0;
  {
    ad::FusionGuard unfused(false);
    ad::Var y;
    ad::Vars inputs;
    build(y, inputs);
    ops = count_nodes(y);
  }
  const long long base = AllocTracker::live;
  ad::Var y;
  ad::Vars inputs;
  build(y, inputs);
  const long long held = AllocTracker::live - base;  // graph after the forward pass
  const int nodes = count_nodes(y);
  AllocTracker::reset_peak();
  {
    const ad::Vars g = ad::grad(y, inputs);
    benchmark::DoNotOptimize(g);
  }
  const long long peak = AllocTracker::peak - base;
  const double per = elements * std::max(ops, 1);
  std::printf("%-12s elements %9.0f ops %4d recorded_nodes %4d graph_MB %9.1f "
              "peak_in_grad_MB %9.1f graph_B_per_elem_op %6.2f peak_B_per_elem_op %6.2f\n",
              name, elements, ops, nodes, held / 1e6, peak / 1e6, held / per, peak / per);
}

void memory_report() {
  camber::memory::CachingAllocator& engine = camber::memory::engine_allocator();
  const bool caching = engine.enabled();
  engine.set_enabled(false);  // empties the cache, before the callbacks count
  Kokkos::Tools::Experimental::set_allocate_data_callback(&AllocTracker::on_alloc);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(&AllocTracker::on_free);
  {
    // The callbacks must see allocations at all (Kokkos calls them only
    // when a tool is registered).
    const long long before = AllocTracker::live;
    Tensor probe({1000});
    if (AllocTracker::live - before != 8000) {
      std::fprintf(stderr, "bench_graph --memory: Kokkos allocation callbacks not called\n");
      std::exit(1);
    }
  }
  const Mlp& m = mlp();
  memory_case("mlp", mlp_batch, [&](ad::Var& y, ad::Vars& in) {
    in = as_vars(m.params, true);
    y = mlp_loss(m, in);
  });
  memory_case("chain", chain_n, [&](ad::Var& y, ad::Vars& in) {
    in = {ad::variable(chain_x())};
    y = chain(in[0]);
  });
  memory_case("rosenbrock", rosen_n, [&](ad::Var& y, ad::Vars& in) {
    in = {ad::variable(rosen_x())};
    y = rosenbrock(in[0]);
  });
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(nullptr);
  engine.set_enabled(caching);
}

}  // namespace

BENCHMARK(BM_mlp_primal)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_grad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_hvp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_primal_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_grad_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_eigen_forward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mlp_eigen_forward_f32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_primal)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_primal_tensor)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_chain_grad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rosenbrock_primal)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rosenbrock_primal_loop)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rosenbrock_grad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_rosenbrock_hvp)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  bool memory = false, check_only = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--memory") == 0)
      memory = true;
    else if (std::strcmp(argv[i], "--check") == 0)
      check_only = true;
    else
      args.push_back(argv[i]);
  }
  int n_args = static_cast<int>(args.size());
  int rc = 0;
  try {
    if (check_only) {
      check_chain();
      check_rosenbrock();
      check_mlp(make_mlp(64));
      check_mlp_float32(make_mlp(64));
      std::printf("bench_graph: set-up checks passed\n");
      return 0;
    }
    const Inputs inputs;
    g_inputs = &inputs;
    check_chain();
    check_rosenbrock();
    check_mlp(mlp());
    check_mlp_float32(mlp());
    if (memory) {
      memory_report();
    } else {
      benchmark::Initialize(&n_args, args.data());
      if (benchmark::ReportUnrecognizedArguments(n_args, args.data())) return 2;
      benchmark::RunSpecifiedBenchmarks();
      benchmark::Shutdown();
    }
    g_inputs = nullptr;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_graph: %s\n", e.what());
    rc = 1;
  }
  return rc;
}
