// The planner and ShardedMlp at 1, 2 and 4 ranks: every plan trains to one
// rank's loss curve, the cost model's communication volume matches what
// the ops send, and a network too large for one rank's memory limit gets a
// sharded plan (and trains), while the error when nothing fits names the
// largest tensor and the limit.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/shard/planner.hpp>

#include "tests/mpi_test_utils.hpp"

namespace camber {
namespace {

Tensor pattern(const Shape& shape, int seed) {
  index_t n = 1;
  for (index_t d : shape) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.9 * static_cast<double>(i + 1) + seed);
  return Tensor::from_host(shape, v);
}

std::vector<double> curve(const shard::MlpShape& net, const shard::MlpPlan& plan, MPI_Comm comm, int steps,
                          std::int64_t* bytes_per_step = nullptr, double learning_rate = 0.2) {
  shard::ShardedMlp mlp(net, plan, shard::DeviceMesh::create(comm, plan.axes()), 11);
  const Tensor X = pattern({net.batch, net.widths.front()}, 1), Y = pattern({net.batch, net.widths.back()}, 2);
  std::vector<double> losses;
  for (int s = 0; s < steps; ++s) {
    const std::int64_t before = shard::bytes_sent();
    losses.push_back(mlp.step(X, Y, learning_rate));
    if (bytes_per_step != nullptr) *bytes_per_step = shard::bytes_sent() - before;
  }
  return losses;
}

double worst_relative(const std::vector<double>& a, const std::vector<double>& b) {
  double w = 0.0;
  for (size_t i = 0; i < a.size(); ++i) w = std::max(w, std::abs(a[i] - b[i]) / std::abs(b[i]));
  return w;
}

TEST(Planner, EveryPlanTrainsToTheOneRankCurveAndSendsWhatTheModelPredicts) {
  const shard::MlpShape net{{12, 32, 24, 16, 5}, 20};  // four layers, uneven splits at 4 ranks
  const std::vector<double> one = curve(net, {1, 1}, MPI_COMM_SELF, 12);
  const shard::Calibration c;  // nominal rates: only the byte counts are compared here
  for (const shard::PlanEstimate& e : shard::estimate_plans(net, test::size(), c, 1LL << 40)) {
    std::int64_t sent = 0;
    const std::vector<double> losses = curve(net, e.plan, test::world(), 12, &sent);
    const double worst = worst_relative(losses, one);
    test::say("%s: loss %.5f -> %.5f, worst relative difference %.1e; sent %lld bytes per step, model %lld\n",
              e.plan.name().c_str(), losses.front(), losses.back(), worst, static_cast<long long>(sent),
              static_cast<long long>(e.comm_bytes));
    EXPECT_LE(worst, 1e-10) << e.plan.name();
    EXPECT_LT(losses.back(), 0.7 * losses.front()) << e.plan.name();
    // The model counts the all-reduces of activations and gradients; the
    // program also reduces the scalar loss (16 bytes per axis at most).
    EXPECT_NEAR(static_cast<double>(sent), static_cast<double>(e.comm_bytes), 0.01 * static_cast<double>(e.comm_bytes) + 64.0)
        << e.plan.name();
  }
}

TEST(Planner, ShardsAModelTooLargeForOneRankAndSaysWhenNothingFits) {
  const shard::MlpShape net{{64, 256, 256, 8}, 32};
  const shard::Calibration c = shard::calibrate(test::world());
  const std::int64_t limit = 1 << 20;  // 1 MiB per rank
  const std::vector<shard::PlanEstimate> all = shard::estimate_plans(net, test::size(), c, limit);
  for (const auto& e : all)
    test::say("%s: memory %.3f MiB (%s), predicted step %.3e s (compute %.3e, comm %.3e)\n", e.plan.name().c_str(),
              static_cast<double>(e.memory_bytes) / 1048576.0, e.fits ? "fits" : "too large", e.step_seconds(),
              e.compute_seconds, e.comm_seconds);
  if (test::size() == 1) {
    try {
      shard::choose_plan(net, 1, c, limit);
      ADD_FAILURE() << "a plan fitted 1 MiB on one rank";
    } catch (const Error& err) {
      const std::string what = err.what();
      EXPECT_NE(what.find("W2 [256 x 256]"), std::string::npos) << what;
      EXPECT_NE(what.find("1 MiB"), std::string::npos) << what;
    }
    return;
  }
  const shard::PlanEstimate best = shard::choose_plan(net, test::size(), c, limit);
  EXPECT_TRUE(best.fits);
  EXPECT_GE(best.plan.model, 2) << "replicated parameters cannot fit";
  // It trains under that plan, to one rank's curve (run without the limit).
  const std::vector<double> one = curve(net, {1, 1}, MPI_COMM_SELF, 8, nullptr, 0.02);
  const std::vector<double> sharded = curve(net, best.plan, test::world(), 8, nullptr, 0.02);
  test::say("chosen %s: loss %.5f -> %.5f\n", best.plan.name().c_str(), sharded.front(), sharded.back());
  EXPECT_LE(worst_relative(sharded, one), 1e-10);
  EXPECT_LT(sharded.back(), sharded.front());
  shard::ShardedMlp mlp(net, best.plan, shard::DeviceMesh::create(test::world(), best.plan.axes()), 11);
  EXPECT_LE(2 * mlp.parameter_bytes(), limit);
}

}  // namespace
}  // namespace camber
