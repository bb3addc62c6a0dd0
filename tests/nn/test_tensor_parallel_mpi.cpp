// A tensor-parallel MLP trained by the unchanged nn::Trainer with Adam, a
// learning-rate schedule and validation, at 1, 2 and 4 ranks: model
// parallel over all ranks, and data x model parallel (2 x 2 at 4 ranks),
// give one rank's loss curve and final weights (to 1e-10).
#include <gtest/gtest.h>

#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include <camber/nn/surrogate.hpp>
#include <camber/nn/tensor_parallel.hpp>
#include <camber/nn/trainer.hpp>

#include "../mpi_test_utils.hpp"

namespace {

namespace nn = camber::nn;
namespace shard = camber::shard;
using camber::index_t;
using camber::Tensor;

struct Data {
  Tensor x, y;
};
Data make_data(index_t n) {
  nn::Rng rng(5);
  std::vector<double> xs(static_cast<size_t>(3 * n)), ys(static_cast<size_t>(2 * n));
  for (index_t i = 0; i < n; ++i) {
    double a = 0.0, b = 0.0, c = 0.0;
    xs[static_cast<size_t>(3 * i)] = a = rng.uniform(-1, 1);
    xs[static_cast<size_t>(3 * i + 1)] = b = rng.uniform(-1, 1);
    xs[static_cast<size_t>(3 * i + 2)] = c = rng.uniform(-1, 1);
    ys[static_cast<size_t>(2 * i)] = std::sin(2 * a) * c;
    ys[static_cast<size_t>(2 * i + 1)] = a * b - c;
  }
  return {Tensor::from_host({n, 3}, xs), Tensor::from_host({n, 2}, ys)};
}

nn::NetworkSpec spec() {
  nn::NetworkSpec s;
  s.in = 3;
  s.out = 2;
  s.hidden = {10, 14, 6};  // four layers: column, row, column, row; uneven splits at 4 ranks
  s.activation = nn::Activation::tanh;
  return s;
}

nn::TrainOptions options() {
  nn::TrainOptions o;
  o.epochs = 6;
  o.batch_size = 16;
  o.seed = 9;
  o.validation_fraction = 0.2;
  o.schedule = nn::cosine_lr(1e-2, 6 * 4, 1e-3);
  o.progress = false;
  return o;
}

struct Outcome {
  nn::TrainResult result;
  std::vector<double> weights;
};

Outcome one_rank(const Data& d) {
  nn::Rng rng(21);
  auto net = nn::make_network(spec(), rng);
  nn::Adam adam(net->parameters(), nn::AdamOptions{1e-2});
  nn::Trainer t(*net, adam, options(), MPI_COMM_SELF);
  Outcome r;
  r.result = t.fit(nn::shard_of(d.x, d.y, MPI_COMM_SELF));
  for (const Tensor& p : net->parameter_values())
    for (double v : p.to_vector()) r.weights.push_back(v);
  return r;
}

Outcome split(const Data& d, int data, int model) {
  const auto grid = shard::DeviceMesh::create(camber::test::world(), {{"data", data}, {"model", model}});
  const auto model_axis = shard::DeviceMesh::create(grid->axis_comm(1), {{"model", model}});
  nn::Rng rng(21);
  auto whole = nn::make_network(spec(), rng);
  nn::TensorParallelMlp net(spec(), *whole, model_axis);
  nn::Adam adam(net.parameters(), nn::AdamOptions{1e-2});
  nn::Trainer t(net, adam, options(), grid->axis_comm(0));
  Outcome r;
  r.result = t.fit(nn::shard_of(d.x, d.y, grid->axis_comm(0)));
  for (const Tensor& p : net.whole_parameters())
    for (double v : p.to_vector()) r.weights.push_back(v);
  return r;
}

TEST(TensorParallelMlp, TrainsToTheOneRankCurveUnderTheUnchangedTrainer) {
  const Data d = make_data(90);
  const Outcome ref = one_rank(d);
  const int n = camber::test::size();
  for (const auto& [data, model] : std::vector<std::pair<int, int>>{{1, n}, {n >= 2 ? 2 : 1, n >= 2 ? n / 2 : 1}}) {
    const Outcome r = split(d, data, model);
    ASSERT_EQ(r.result.history.size(), ref.result.history.size());
    double worst = 0.0;
    for (size_t e = 0; e < ref.result.history.size(); ++e) {
      worst = std::max(worst, std::abs(r.result.history[e].train_loss - ref.result.history[e].train_loss) /
                                  ref.result.history[e].train_loss);
      worst = std::max(worst, std::abs(r.result.history[e].val_loss - ref.result.history[e].val_loss) /
                                  ref.result.history[e].val_loss);
    }
    double wd = 0.0, ws = 0.0;
    ASSERT_EQ(r.weights.size(), ref.weights.size());
    for (size_t i = 0; i < r.weights.size(); ++i) {
      wd = std::max(wd, std::abs(r.weights[i] - ref.weights[i]));
      ws = std::max(ws, std::abs(ref.weights[i]));
    }
    camber::test::say("data %d x model %d: loss %.6f -> %.6f, worst relative difference %.1e, weights %.1e\n", data,
                      model, r.result.history.front().train_loss, r.result.history.back().train_loss, worst, wd / ws);
    EXPECT_LE(worst, 1e-10) << "data " << data << " x model " << model;
    EXPECT_LE(wd, 1e-10 * ws) << "data " << data << " x model " << model;
    EXPECT_LT(r.result.history.back().train_loss, 0.7 * r.result.history.front().train_loss);
  }
}

}  // namespace
