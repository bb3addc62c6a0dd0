#include <camber/shard/planner.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::shard {

namespace {

const Placement R = Placement::replicate();

bool column_parallel(size_t layer) { return layer % 2 == 0; }

index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }

std::string mib(std::int64_t bytes) {
  std::ostringstream s;
  s.precision(3);
  s << static_cast<double>(bytes) / (1024.0 * 1024.0) << " MiB";
  return s.str();
}

void check_net(const MlpShape& net) {
  CAMBER_INPUT_REQUIRE(net.widths.size() >= 2 && net.batch > 0, "planner: a network needs two widths and a batch");
  for (index_t w : net.widths) CAMBER_INPUT_REQUIRE(w > 0, "planner: widths must be positive");
}

// Time of an all-reduce of `bytes` over p ranks.
double allreduce_seconds(double bytes, int p, const Calibration& c) {
  if (p <= 1) return 0.0;
  return c.latency_seconds + 2.0 * (p - 1) / p * bytes / c.bytes_per_second;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A counter-based draw in [-1, 1): the same value for (seed, tensor,
// index) on every rank, whatever block it holds.
double draw(unsigned seed, std::uint64_t tensor, std::uint64_t index) {
  std::uint64_t z = (static_cast<std::uint64_t>(seed) << 40) ^ (tensor << 32) ^ index;
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) / static_cast<double>(1ULL << 52) - 1.0;
}

}  // namespace

std::string MlpPlan::name() const {
  std::ostringstream s;
  s << "data " << data << " x model " << model;
  return s.str();
}

Calibration calibrate(MPI_Comm comm) {
  Calibration c;
  const index_t n = 256;
  std::vector<double> a(static_cast<size_t>(n * n));
  for (size_t i = 0; i < a.size(); ++i) a[i] = draw(7, 0, i);
  const ad::Var A = ad::constant(Tensor::from_host({n, n}, a));
  std::vector<double> t;
  for (int rep = 0; rep < 5; ++rep) {
    const double t0 = MPI_Wtime();
    const ad::Var P = ad::matmul(A, A);
    (void)P.value().to_vector();
    t.push_back(MPI_Wtime() - t0);
  }
  double rate = 2.0 * static_cast<double>(n * n * n) / median(t);
  // The slowest rank sets the pace; every rank gets the same numbers.
  rate = -rate;
  MPI_Allreduce(MPI_IN_PLACE, &rate, 1, MPI_DOUBLE, MPI_MAX, comm);
  c.flops_per_second = -rate;
  const int p = comm_size(comm);
  if (p > 1) {
    std::vector<double> small(1, 1.0), big(131072, 1.0), ts, tb;
    for (int rep = 0; rep < 21; ++rep) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      MPI_Allreduce(MPI_IN_PLACE, small.data(), 1, MPI_DOUBLE, MPI_SUM, comm);
      ts.push_back(MPI_Wtime() - t0);
    }
    for (int rep = 0; rep < 7; ++rep) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      MPI_Allreduce(MPI_IN_PLACE, big.data(), static_cast<int>(big.size()), MPI_DOUBLE, MPI_SUM, comm);
      tb.push_back(MPI_Wtime() - t0);
    }
    double lat = median(ts), t_big = median(tb);
    MPI_Allreduce(MPI_IN_PLACE, &lat, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &t_big, 1, MPI_DOUBLE, MPI_MAX, comm);
    c.latency_seconds = lat;
    c.bytes_per_second = 2.0 * (p - 1) / p * static_cast<double>(big.size() * 8) / std::max(t_big - lat, 1e-9);
  }
  return c;
}

std::vector<PlanEstimate> estimate_plans(const MlpShape& net, int ranks, const Calibration& c,
                                         std::int64_t memory_limit_bytes) {
  check_net(net);
  CAMBER_INPUT_REQUIRE(ranks >= 1, "planner: ranks must be >= 1");
  std::vector<PlanEstimate> out;
  const size_t L = net.widths.size() - 1;
  for (int d = 1; d <= ranks; ++d) {
    if (ranks % d != 0) continue;
    const int m = ranks / d;
    PlanEstimate e;
    e.plan = {d, m};
    const index_t rows = ceil_div(net.batch, d);
    double flops = 0.0, comm_bytes = 0.0;
    std::int64_t params = 0, activations = rows * net.widths[0];
    for (size_t i = 0; i < L; ++i) {
      const index_t in = net.widths[i], outw = net.widths[i + 1];
      const bool col = column_parallel(i);
      const index_t w_rows = col ? in : ceil_div(in, m), w_cols = col ? ceil_div(outw, m) : outw;
      const index_t b_len = col ? ceil_div(outw, m) : outw;
      flops += 6.0 * static_cast<double>(rows) * static_cast<double>(w_rows) * static_cast<double>(w_cols);
      params += w_rows * w_cols + b_len;
      const std::int64_t w_bytes = w_rows * w_cols * 8;
      if (w_bytes > e.largest_bytes) {
        e.largest_bytes = w_bytes;
        std::ostringstream s;
        s << "W" << i + 1 << " [" << in << " x " << outw << "]";
        e.largest_tensor = s.str();
      }
      // Pre- and post-activation kept for the backward pass.
      activations += 2 * rows * (col ? ceil_div(outw, m) : outw);
      const double per_model = 2.0 * (m - 1) / m * 8.0;
      if (m > 1 && !col) {  // the partial sum reduced after a row-parallel layer
        e.comm_seconds += allreduce_seconds(8.0 * static_cast<double>(rows * outw), m, c);
        comm_bytes += per_model * static_cast<double>(rows * outw);
      }
      if (m > 1 && col && i > 0) {  // the input's gradient summed before a column-parallel layer
        e.comm_seconds += allreduce_seconds(8.0 * static_cast<double>(rows * in), m, c);
        comm_bytes += per_model * static_cast<double>(rows * in);
      }
      if (d > 1) {  // the parameters' gradients over "data"
        const double n = static_cast<double>(w_rows * w_cols + b_len);
        e.comm_seconds += allreduce_seconds(8.0 * n, d, c);
        comm_bytes += 2.0 * (d - 1) / d * 8.0 * n;
      }
    }
    e.compute_seconds = flops / c.flops_per_second;
    e.comm_bytes = static_cast<std::int64_t>(comm_bytes);
    e.memory_bytes = (2 * params + activations) * 8;
    e.fits = e.memory_bytes <= memory_limit_bytes;
    out.push_back(e);
  }
  return out;
}

PlanEstimate choose_plan(const MlpShape& net, int ranks, const Calibration& c, std::int64_t memory_limit_bytes) {
  const std::vector<PlanEstimate> all = estimate_plans(net, ranks, c, memory_limit_bytes);
  const PlanEstimate* best = nullptr;
  const PlanEstimate* frugal = &all.front();
  for (const PlanEstimate& e : all) {
    if (e.memory_bytes < frugal->memory_bytes) frugal = &e;
    if (e.fits && (best == nullptr || e.step_seconds() < best->step_seconds())) best = &e;
  }
  CAMBER_INPUT_REQUIRE(best != nullptr,
                       "planner: no plan on " << ranks << (ranks == 1 ? " rank" : " ranks")
                                              << " fits the memory limit of " << mib(memory_limit_bytes)
                                              << " per rank: the most frugal, " << frugal->plan.name() << ", needs "
                                              << mib(frugal->memory_bytes) << "; its largest tensor, "
                                              << frugal->largest_tensor << ", takes " << mib(frugal->largest_bytes)
                                              << " per rank. Use more ranks or a larger limit");
  return *best;
}

Placements dense_weight_placements(size_t layer, int ndim, int axis) {
  Placements p(static_cast<size_t>(ndim), R);
  p[static_cast<size_t>(axis)] = Placement::shard(column_parallel(layer) ? 1 : 0);
  return p;
}

Placements dense_bias_placements(size_t layer, int ndim, int axis) {
  Placements p(static_cast<size_t>(ndim), R);
  if (column_parallel(layer)) p[static_cast<size_t>(axis)] = Placement::shard(0);
  return p;
}

ShardedVar dense_forward(ShardedVar h, const std::vector<ShardedVar>& params,
                         const std::function<ShardedVar(const ShardedVar&)>& activation) {
  CAMBER_REQUIRE(!params.empty() && params.size() % 2 == 0,
                 "dense_forward: weights and biases come in pairs, got " << params.size());
  const size_t layers = params.size() / 2;
  for (size_t i = 0; i < layers; ++i) {
    h = add(matmul(h, params[2 * i]), params[2 * i + 1]);
    if (i + 1 < layers) h = activation(h);
  }
  return h;
}

ShardedMlp::ShardedMlp(MlpShape net, MlpPlan plan, MeshPtr mesh, unsigned seed)
    : net_(std::move(net)), plan_(plan), mesh_(std::move(mesh)) {
  check_net(net_);
  CAMBER_REQUIRE(mesh_ && mesh_->ndim() == 2 && mesh_->size(0) == plan_.data && mesh_->size(1) == plan_.model,
                 "ShardedMlp: the mesh must be " << plan_.name());
  const size_t L = net_.widths.size() - 1;
  for (size_t i = 0; i < L; ++i) {
    const index_t in = net_.widths[i], out = net_.widths[i + 1];
    shapes_.push_back({in, out});
    placements_.push_back(dense_weight_placements(i, 2, 1));
    shapes_.push_back({out});
    placements_.push_back(dense_bias_placements(i, 2, 1));
  }
  // Each rank draws only its blocks' entries (by global index).
  for (size_t k = 0; k < shapes_.size(); ++k) {
    const LocalBlock b = local_block(shapes_[k], *mesh_, placements_[k]);
    const bool weight = k % 2 == 0;
    const double scale = weight ? std::sqrt(3.0 / static_cast<double>(shapes_[k][0])) : 0.1;
    index_t n = 1;
    for (index_t e : b.shape) n *= e;
    std::vector<double> v(static_cast<size_t>(n));
    const index_t cols = weight ? shapes_[k][1] : 1;
    for (index_t j = 0; j < n; ++j) {
      index_t global = 0;
      if (weight) {
        const index_t r = j / b.shape[1], cidx = j % b.shape[1];
        global = (r + b.offset[0]) * cols + (cidx + b.offset[1]);
      } else {
        global = j + b.offset[0];
      }
      v[static_cast<size_t>(j)] = scale * draw(seed, k, static_cast<std::uint64_t>(global));
    }
    params_.push_back(ad::variable(Tensor::from_host(b.shape, v)));
  }
}

double ShardedMlp::step(const Tensor& X, const Tensor& Y, double learning_rate) {
  const Placements rows = {Placement::shard(0), R};
  const ShardedVar x = distribute(ad::constant(X), mesh_, rows);
  const ShardedVar y = distribute(ad::constant(Y), mesh_, rows);
  std::vector<ShardedVar> params;
  for (size_t k = 0; k < params_.size(); ++k)
    params.push_back(from_local(params_[k], shapes_[k], mesh_, placements_[k]));
  const ShardedVar h = dense_forward(x, params, [](const ShardedVar& v) { return tanh(v); });
  const ad::Var loss =
      full(mul_scalar(sum(square(sub(h, y))), 0.5 / static_cast<double>(X.shape()[0])));
  const ad::Vars g = ad::grad(loss, params_);
  for (size_t k = 0; k < params_.size(); ++k) {
    Tensor next = params_[k].value().clone();
    next.axpy(-learning_rate, g[k].value());
    params_[k] = ad::variable(next);
  }
  return loss.item();
}

std::int64_t ShardedMlp::parameter_bytes() const {
  std::int64_t b = 0;
  for (const ad::Var& p : params_) b += p.value().size() * 8;
  return b;
}

}  // namespace camber::shard
