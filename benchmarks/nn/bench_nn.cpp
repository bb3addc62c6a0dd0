// Training throughput of camber::nn against the same training step written
// by hand with Eigen GEMMs, in the same process (issue benchmarks; the
// figures are in docs/performance.md, "Training throughput").
//
// The step: an MLP with 16 inputs, 4 hidden layers of `width` (tanh), 1
// output, a batch of 256 rows, mean squared error, the gradient of every
// weight and bias, and one Adam update. Widths 64 and 256, float64 and
// float32. The Eigen version does the forward pass, the backward pass by
// hand (dW = H^T dZ, db = column sums, dH = dZ W^T, dZ = dH (1 - H^2)) and
// the same Adam update, on row-major matrices; it computes nothing the
// Camber step does not. Items processed = rows, so Google Benchmark
// reports samples per second.
//
// Inference: the forward pass alone of the same nets, one row (latency) and
// 1024 rows (throughput): through the AD engine (no graph: under
// NoGradGuard), through nn::Surrogate::predict (the inference plan that
// camber infer and the server use; identity normalisation, input and output
// copies included), and the same forward in Eigen. Items processed = rows.
//
// `bench_nn --check` runs only the set-up check: the two gradients agree
// (relative 1e-12 in float64) on a small batch. CTest runs it.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <Eigen/Dense>

#include <camber/nn/layers.hpp>
#include <camber/nn/loss.hpp>
#include <camber/nn/optim.hpp>
#include <camber/nn/quantize.hpp>
#include <camber/nn/surrogate.hpp>
#include <camber/core/runtime.hpp>

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::DType;
using camber::index_t;
using camber::Tensor;

namespace {

constexpr index_t n_in = 16, n_layers = 4, batch = 256;

Tensor data(index_t rows, index_t cols, unsigned seed) {
  nn::Rng rng(seed);
  return nn::uniform({rows, cols}, -1.0, 1.0, rng);
}

struct CamberCase {
  std::shared_ptr<nn::Sequential> net;
  std::unique_ptr<nn::Adam> opt;
  ad::Var x, y;
  CamberCase(index_t width, DType dt, index_t rows) {
    nn::Rng rng(1);
    nn::MlpOptions o;
    o.in = n_in;
    o.out = 1;
    o.hidden.assign(n_layers, width);
    o.dtype = dt;
    net = nn::mlp(o, rng);
    opt = std::make_unique<nn::Adam>(net->parameters(), nn::AdamOptions{1e-4});
    x = ad::constant(data(rows, n_in, 2).to(dt));
    y = ad::constant(data(rows, 1, 3).to(dt));
  }
  std::vector<Tensor> gradient() {
    return nn::values(ad::grad(nn::mse(net->forward(x), y), net->parameters()));
  }
  void step() { opt->step(gradient()); }
};

template <class T>
struct EigenCase {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Row = Eigen::Matrix<T, 1, Eigen::Dynamic>;
  Mat x, y;
  std::vector<Mat> w, mw, vw, gw, h;
  std::vector<Row> b, mb, vb, gb;
  long t = 0;
  static Mat matrix(const Tensor& s) {
    const std::vector<double> v = s.to(DType::float64).to_vector();
    const index_t cols = s.rank() == 2 ? s.dim(1) : s.dim(0), rows = s.rank() == 2 ? s.dim(0) : 1;
    Mat m(rows, cols);
    for (index_t i = 0; i < rows * cols; ++i) m.data()[i] = static_cast<T>(v[static_cast<size_t>(i)]);
    return m;
  }
  // The same initial weights and data as the Camber case.
  explicit EigenCase(const CamberCase& c) {
    x = matrix(c.x.value());
    y = matrix(c.y.value());
    const auto p = c.net->parameter_values();
    for (size_t l = 0; l < p.size(); l += 2) {
      w.push_back(matrix(p[l]));
      b.push_back(matrix(p[l + 1]));
      mw.push_back(Mat::Zero(w.back().rows(), w.back().cols()));
      vw.push_back(mw.back());
      mb.push_back(Row::Zero(b.back().cols()));
      vb.push_back(mb.back());
    }
    gw.resize(w.size());
    gb.resize(b.size());
    h.resize(w.size() + 1);
  }
  void gradient() {
    const size_t L = w.size();
    h[0] = x;
    for (size_t l = 0; l < L; ++l) {
      Mat z = h[l] * w[l];
      z.rowwise() += b[l];
      h[l + 1] = l + 1 < L ? Mat(z.array().tanh().matrix()) : z;
    }
    Mat dz = (h[L] - y) * (T(2) / T(h[L].size()));
    for (size_t l = L; l-- > 0;) {
      gw[l].noalias() = h[l].transpose() * dz;
      gb[l] = dz.colwise().sum();
      if (l > 0) {
        Mat dh = dz * w[l].transpose();
        dz = (dh.array() * (T(1) - h[l].array().square())).matrix();
      }
    }
  }
  template <class M>
  static void adam(M& p, M& m, M& v, const M& g, long step) {
    const T b1 = T(0.9), b2 = T(0.999), lr = T(1e-4), eps = T(1e-8);
    const T c1 = T(1) - std::pow(b1, T(step)), c2 = T(1) - std::pow(b2, T(step));
    m = b1 * m + (T(1) - b1) * g;
    v = (b2 * v.array() + (T(1) - b2) * g.array().square()).matrix();
    p = (p.array() - lr * (m.array() / c1) / ((v.array() / c2).sqrt() + eps)).matrix();
  }
  void step() {
    gradient();
    ++t;
    for (size_t l = 0; l < w.size(); ++l) {
      adam(w[l], mw[l], vw[l], gw[l], t);
      adam(b[l], mb[l], vb[l], gb[l], t);
    }
  }
};

// Forward only, the way a served model runs.
struct CamberInference {
  CamberCase c;
  CamberInference(index_t width, DType dt, index_t rows) : c(width, dt, rows) {}
  Tensor predict() {
    ad::NoGradGuard no_graph;
    return c.net->forward(c.x).value();
  }
};

template <class T>
typename EigenCase<T>::Mat eigen_predict(EigenCase<T>& e) {
  typename EigenCase<T>::Mat h = e.x;
  for (size_t l = 0; l < e.w.size(); ++l) {
    typename EigenCase<T>::Mat z = h * e.w[l];
    z.rowwise() += e.b[l];
    h = l + 1 < e.w.size() ? typename EigenCase<T>::Mat(z.array().tanh().matrix()) : z;
  }
  return h;
}

nn::Surrogate surrogate_of(const CamberCase& c, index_t width, DType dt) {
  nn::NetworkSpec spec;
  spec.in = n_in;
  spec.out = 1;
  spec.hidden.assign(n_layers, width);
  spec.dtype = dt;
  nn::Columns in, out{{"y"}, {""}};
  nn::Normalization si, so{{0.0}, {1.0}};
  for (index_t j = 0; j < n_in; ++j) {
    in.names.push_back("x" + std::to_string(j));
    in.units.emplace_back();
    si.mean.push_back(0.0);
    si.stddev.push_back(1.0);
  }
  return nn::Surrogate(spec, c.net->parameter_values(), in, out, si, so);
}

bool check() {
  CamberCase c(32, DType::float64, 8);
  EigenCase<double> e(c);
  const std::vector<Tensor> g = c.gradient();
  e.gradient();
  double num = 0.0, den = 0.0;
  for (size_t l = 0; l < e.gw.size(); ++l) {
    const std::vector<double> a = g[2 * l].to_vector(), bb = g[2 * l + 1].to_vector();
    for (size_t i = 0; i < a.size(); ++i) {
      num = std::max(num, std::abs(a[i] - e.gw[l].data()[i]));
      den = std::max(den, std::abs(a[i]));
    }
    for (size_t i = 0; i < bb.size(); ++i) num = std::max(num, std::abs(bb[i] - e.gb[l].data()[i]));
  }
  std::printf("bench_nn: Camber and Eigen gradients differ by %.2e relative\n", num / den);
  CamberInference ci(32, DType::float64, 8);
  EigenCase<double> ei(ci.c);
  const std::vector<double> yc = ci.predict().to_vector();
  const EigenCase<double>::Mat ye = eigen_predict(ei);
  double dy = 0.0, ny = 0.0;
  for (size_t i = 0; i < yc.size(); ++i) {
    dy = std::max(dy, std::abs(yc[i] - ye.data()[i]));
    ny = std::max(ny, std::abs(ye.data()[i]));
  }
  std::printf("bench_nn: Camber and Eigen predictions differ by %.2e relative\n", dy / ny);
  const std::vector<double> ys = surrogate_of(ci.c, 32, DType::float64).predict(ci.c.x.value()).to_vector();
  double ds = 0.0;
  for (size_t i = 0; i < ys.size(); ++i) ds = std::max(ds, std::abs(ys[i] - ye.data()[i]));
  std::printf("bench_nn: Surrogate::predict and Eigen differ by %.2e relative\n", ds / ny);
  dy = std::max(dy, ds);
  return num <= 1e-12 * den && dy <= 1e-12 * ny;
}

template <class T>
void BM_camber(benchmark::State& state) {
  CamberCase c(state.range(0), std::is_same<T, float>::value ? DType::float32 : DType::float64, batch);
  for (auto _ : state) c.step();
  state.SetItemsProcessed(state.iterations() * batch);
}

template <class T>
void BM_eigen(benchmark::State& state) {
  CamberCase c(state.range(0), std::is_same<T, float>::value ? DType::float32 : DType::float64, batch);
  EigenCase<T> e(c);
  for (auto _ : state) e.step();
  state.SetItemsProcessed(state.iterations() * batch);
}

template <class T>
void BM_camber_infer(benchmark::State& state) {
  CamberInference c(state.range(0), std::is_same<T, float>::value ? DType::float32 : DType::float64,
                    state.range(1));
  for (auto _ : state) benchmark::DoNotOptimize(c.predict());
  state.SetItemsProcessed(state.iterations() * state.range(1));
}

template <class T>
void BM_surrogate_infer(benchmark::State& state) {
  const DType dt = std::is_same<T, float>::value ? DType::float32 : DType::float64;
  CamberCase c(state.range(0), dt, state.range(1));
  const nn::Surrogate s = surrogate_of(c, state.range(0), dt);
  const Tensor x = c.x.value().to(DType::float64);
  for (auto _ : state) benchmark::DoNotOptimize(s.predict(x));
  state.SetItemsProcessed(state.iterations() * state.range(1));
}

// int8: the float32 network quantized (calibrated on the benchmark's inputs).
void BM_surrogate_infer_int8(benchmark::State& state) {
  CamberCase c(state.range(0), DType::float32, state.range(1));
  const Tensor x = c.x.value().to(DType::float64);
  const nn::Surrogate s = nn::quantize_int8(surrogate_of(c, state.range(0), DType::float32), x);
  for (auto _ : state) benchmark::DoNotOptimize(s.predict(x));
  state.SetItemsProcessed(state.iterations() * state.range(1));
}

template <class T>
void BM_eigen_infer(benchmark::State& state) {
  CamberCase c(state.range(0), std::is_same<T, float>::value ? DType::float32 : DType::float64,
               state.range(1));
  EigenCase<T> e(c);
  for (auto _ : state) benchmark::DoNotOptimize(eigen_predict(e));
  state.SetItemsProcessed(state.iterations() * state.range(1));
}

}  // namespace

#define CAMBER_INFER_ARGS ->Args({64, 1})->Args({256, 1})->Args({64, 1024})->Args({256, 1024})
BENCHMARK_TEMPLATE(BM_camber_infer, double) CAMBER_INFER_ARGS->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_surrogate_infer, double) CAMBER_INFER_ARGS->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_surrogate_infer, float) CAMBER_INFER_ARGS->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_surrogate_infer_int8) CAMBER_INFER_ARGS->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_eigen_infer, double) CAMBER_INFER_ARGS->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_camber_infer, float) CAMBER_INFER_ARGS->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_eigen_infer, float) CAMBER_INFER_ARGS->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_camber, double)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_eigen, double)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_camber, float)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_eigen, float)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond)->UseRealTime();

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  if (!check()) {
    std::fprintf(stderr, "bench_nn: the gradients disagree\n");
    return 1;
  }
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--check") == 0) {
      std::printf("set-up checks passed\n");
      return 0;
    }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
