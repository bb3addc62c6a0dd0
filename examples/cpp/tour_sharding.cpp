// C++ API tour 5: sharded tensors (component: shard). Run it at 1, 2 or 4
// ranks: mpirun -n 4 build-tour/tour_sharding.
//
// Shows: a device mesh; a two-layer network written once on ShardedVars
// and run data parallel, tensor parallel (column- then row-parallel) and
// both, its loss and weight gradient equal to the single-rank program's;
// the planner choosing a layout for a network under a per-rank memory
// limit. Every comparison is checked; the program exits 1 if one is off.
#include <cmath>
#include <cstdio>
#include <vector>

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/shard/planner.hpp>
#include <camber/shard/sharded_var.hpp>

namespace ad = camber::ad;
namespace shard = camber::shard;
using camber::Tensor;
using shard::Placement;

Tensor pattern(const camber::Shape& shape, int seed) {
  camber::index_t n = 1;
  for (camber::index_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * std::sin(1.3 * static_cast<double>(i) + seed);
  return Tensor::from_host(shape, v);
}

// The program, written once: 0.5 * sum((tanh(x W1) W2)^2).
ad::Var loss_of(const shard::ShardedVar& x, const shard::ShardedVar& W1, const shard::ShardedVar& W2) {
  const shard::ShardedVar h = shard::tanh(shard::matmul(x, W1));
  return shard::full(shard::mul_scalar(shard::sum(shard::square(shard::matmul(h, W2))), 0.5));
}

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  const int n = runtime.size();
  const Tensor X = pattern({12, 6}, 1), W1 = pattern({6, 8}, 2), W2 = pattern({8, 3}, 3);

  // One rank's answer, on a 1-rank mesh of this rank alone.
  auto self = shard::DeviceMesh::create(MPI_COMM_SELF, {{"x", 1}});
  const ad::Var w1_ref = ad::variable(W1);
  const ad::Var ref = loss_of(shard::distribute(ad::constant(X), self, {Placement::replicate()}),
                              shard::distribute(w1_ref, self, {Placement::replicate()}),
                              shard::distribute(ad::constant(W2), self, {Placement::replicate()}));
  const Tensor g_ref = ad::grad(ref, {w1_ref})[0].value();

  struct Layout {
    const char* name;
    std::vector<std::pair<std::string, int>> axes;
    shard::Placements x, w1, w2;
  };
  const Placement R = Placement::replicate(), S0 = Placement::shard(0), S1 = Placement::shard(1);
  const int d = n >= 2 ? 2 : 1;
  const std::vector<Layout> layouts = {
      {"data parallel", {{"data", n}}, {S0}, {R}, {R}},
      {"tensor parallel", {{"model", n}}, {R}, {S1}, {S0}},
      {"both", {{"data", d}, {"model", n / d}}, {S0, R}, {R, S1}, {R, S0}},
  };
  bool ok = true;
  for (const Layout& l : layouts) {
    auto mesh = shard::DeviceMesh::create(runtime.comm(), l.axes);
    const ad::Var w1 = ad::variable(W1);
    const ad::Var loss = loss_of(shard::distribute(ad::constant(X), mesh, l.x), shard::distribute(w1, mesh, l.w1),
                                 shard::distribute(ad::constant(W2), mesh, l.w2));
    const Tensor g = ad::grad(loss, {w1})[0].value();
    const double dl = std::abs(loss.item() - ref.item()), dg = camber::max_abs_diff(g, g_ref);
    ok = ok && dl <= 1e-12 * std::abs(ref.item()) && dg <= 1e-12 * g_ref.max_abs();
    if (runtime.rank() == 0)
      std::printf("%-16s on %-20s loss %.12f (one rank: %.12f), gradient difference %.1e\n", l.name,
                  mesh->describe().c_str(), loss.item(), ref.item(), dg);
  }

  // The planner: a network of 2 x 64 x 256 weights under a 1 MiB limit.
  const shard::MlpShape net{{64, 256, 256, 8}, 32};
  const shard::Calibration c = shard::calibrate(runtime.comm());
  try {
    const shard::PlanEstimate best = shard::choose_plan(net, n, c, 1 << 20);
    if (runtime.rank() == 0)
      std::printf("planner: %s, predicted %.2e s per step, %.2f MiB per rank\n", best.plan.name().c_str(),
                  best.step_seconds(), static_cast<double>(best.memory_bytes) / 1048576.0);
  } catch (const camber::Error& e) {
    if (runtime.rank() == 0) std::printf("%s\n", e.what());
    ok = ok && n == 1;  // only one rank lacks the memory
  }
  if (runtime.rank() == 0) std::printf("%s\n", ok ? "tour_sharding: all checks passed" : "tour_sharding: a check FAILED");
  return ok ? 0 : 1;
}
