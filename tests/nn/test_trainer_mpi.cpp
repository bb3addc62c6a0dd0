// The trainer at 1, 2 and 4 ranks: the same history and weights as one
// rank training on the whole set (to 1e-10), early stopping with the best
// weights restored, the CSV loss curve, resuming from a saved state to the
// same weights bit for bit, bad options, and gradient-enhanced (Sobolev)
// training: on 12 samples of an analytic function with its exact Jacobian
// it fits held-out points at least twice as well as training on the values
// alone (same network, start and steps), and any rank count follows one
// rank.
#include <gtest/gtest.h>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/autodiff/graph.hpp>
#include <camber/nn/layers.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/trainer.hpp>

#include "../mpi_test_utils.hpp"

namespace {

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::index_t;
using camber::Tensor;
using camber::test::world;

struct Data {
  Tensor x, y;
};
Data make_data(index_t n) {
  nn::Rng rng(7);
  std::vector<double> xs(static_cast<size_t>(2 * n)), ys(static_cast<size_t>(2 * n));
  for (index_t i = 0; i < n; ++i) {
    const double a = rng.uniform(-1, 1), b = rng.uniform(-1, 1);
    xs[static_cast<size_t>(2 * i)] = a;
    xs[static_cast<size_t>(2 * i + 1)] = b;
    ys[static_cast<size_t>(2 * i)] = std::sin(2 * a) + 0.05 * rng.normal();
    ys[static_cast<size_t>(2 * i + 1)] = a * b + 0.05 * rng.normal();
  }
  return {Tensor::from_host({n, 2}, xs), Tensor::from_host({n, 2}, ys)};
}

struct Model {
  std::shared_ptr<nn::Sequential> net;
  std::unique_ptr<nn::Adam> opt;
  explicit Model(std::uint64_t seed) {
    nn::Rng rng(seed);
    net = nn::mlp({2, {12, 12}, 2, nn::Activation::tanh}, rng);
    opt = std::make_unique<nn::Adam>(net->parameters(), nn::AdamOptions{1e-2});
  }
  std::vector<double> weights() const {
    std::vector<double> w;
    for (const Tensor& p : net->parameter_values())
      for (double v : p.to_vector()) w.push_back(v);
    return w;
  }
};

nn::TrainOptions options() {
  nn::TrainOptions o;
  o.epochs = 8;
  o.batch_size = 16;
  o.seed = 3;
  o.validation_fraction = 0.25;
  o.clip_norm = 5.0;
  o.schedule = nn::cosine_lr(1e-2, 8 * 5, 1e-3);
  o.progress = false;
  return o;
}

double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    num = std::max(num, std::abs(a[i] - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return num / den;
}

TEST(Trainer, AnyRankCountFollowsOneRank) {
  const Data d = make_data(83);  // 62 training rows in batches of 16: a short last batch
  Model par(1), one(1);
  nn::Trainer tp(*par.net, *par.opt, options(), world());
  nn::Trainer t1(*one.net, *one.opt, options(), MPI_COMM_SELF);
  const nn::TrainResult rp = tp.fit(nn::shard_of(d.x, d.y, world()));
  const nn::TrainResult r1 = t1.fit(nn::shard_of(d.x, d.y, MPI_COMM_SELF));
  ASSERT_EQ(rp.history.size(), 8u);
  ASSERT_EQ(r1.history.size(), 8u);
  for (size_t e = 0; e < 8; ++e) {
    EXPECT_NEAR(rp.history[e].train_loss, r1.history[e].train_loss, 1e-10 * r1.history[e].train_loss);
    EXPECT_NEAR(rp.history[e].val_loss, r1.history[e].val_loss, 1e-10 * r1.history[e].val_loss);
    EXPECT_EQ(rp.history[e].lr, r1.history[e].lr);
  }
  EXPECT_LE(rel_diff(par.weights(), one.weights()), 1e-10);
  EXPECT_LT(r1.history.back().train_loss, 0.5 * r1.history.front().train_loss);
  EXPECT_NE(r1.summary.find("trained 8 epochs"), std::string::npos) << r1.summary;
}

TEST(Trainer, EarlyStoppingRestoresTheBestWeights) {
  const Data d = make_data(64);
  Model s(2);
  nn::TrainOptions o = options();
  o.epochs = 50;
  o.patience = 2;
  o.min_delta = 1e9;  // only the first epoch counts as an improvement
  nn::Trainer t(*s.net, *s.opt, o, world());
  std::vector<double> after_first;
  t.on_epoch([&](const nn::EpochRecord& r) {
    if (r.epoch == 1) after_first = s.weights();
  });
  const nn::TrainResult r = t.fit(nn::shard_of(d.x, d.y, world()));
  EXPECT_TRUE(r.stopped_early);
  EXPECT_EQ(r.history.size(), 3u);
  EXPECT_EQ(r.best_epoch, 1);
  EXPECT_EQ(s.weights(), after_first);
}

TEST(Trainer, WritesTheLossCurve) {
  const Data d = make_data(40);
  Model s(4);
  nn::TrainOptions o = options();
  o.epochs = 3;
  const auto dir = camber::test::scratch_dir("nn_trainer", "csv");
  o.csv = (dir / "loss.csv").string();
  nn::Trainer t(*s.net, *s.opt, o, world());
  const nn::TrainResult r = t.fit(nn::shard_of(d.x, d.y, world()));
  MPI_Barrier(world());
  std::ifstream in(o.csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "epoch,train_loss,val_loss,lr,samples_per_s,seconds");
  for (int e = 1; e <= 3; ++e) {
    ASSERT_TRUE(std::getline(in, line));
    std::istringstream row(line);
    int epoch = 0;
    char comma = 0;
    double train = 0;
    row >> epoch >> comma >> train;
    EXPECT_EQ(epoch, e);
    EXPECT_EQ(train, r.history[static_cast<size_t>(e - 1)].train_loss);  // 17 digits: exact
  }
}

TEST(Trainer, ResumingFromASavedStateGivesTheSameWeightsBitForBit) {
  const Data d = make_data(70);
  const nn::Shard shard = nn::shard_of(d.x, d.y, world());
  Model straight(5);
  nn::Trainer ts(*straight.net, *straight.opt, options(), world());
  ts.fit(shard);

  // Three epochs, state kept (what a checkpoint holds), then a fresh model
  // and optimizer restored from it run to the end.
  Model first(5);
  nn::TrainOptions o3 = options();
  o3.epochs = 3;
  nn::Trainer t3(*first.net, *first.opt, o3, world());
  t3.fit(shard);
  std::vector<Tensor> weights;
  for (const Tensor& p : first.net->parameter_values()) weights.push_back(p.clone());
  const auto opt_state = first.opt->state();

  Model resumed(99);  // other initial weights: all of them come from the state
  resumed.net->load_parameter_values(weights);
  resumed.opt->load_state(opt_state);
  nn::Trainer tr(*resumed.net, *resumed.opt, options(), world());
  tr.resume(t3.history(), t3.rng_state());
  const nn::TrainResult r = tr.fit(shard);
  EXPECT_EQ(r.history.size(), 8u);
  EXPECT_EQ(resumed.weights(), straight.weights());
}

// f(a, b) = (sin(2a) cos(b), a^2 - b) on [-1, 1]^2, with its Jacobian.
struct Sampled {
  Tensor x, y, dy;
};
Sampled analytic(index_t n, std::uint64_t seed) {
  nn::Rng rng(seed);
  std::vector<double> xs, ys, gs;
  for (index_t i = 0; i < n; ++i) {
    const double a = rng.uniform(-1, 1), b = rng.uniform(-1, 1);
    xs.insert(xs.end(), {a, b});
    ys.insert(ys.end(), {std::sin(2 * a) * std::cos(b), a * a - b});
    gs.insert(gs.end(), {2 * std::cos(2 * a) * std::cos(b), -std::sin(2 * a) * std::sin(b), 2 * a, -1.0});
  }
  return {Tensor::from_host({n, 2}, xs), Tensor::from_host({n, 2}, ys), Tensor::from_host({n, 2, 2}, gs)};
}

nn::Shard shard_with_gradients(const Sampled& s, MPI_Comm comm) {
  nn::Shard sh = nn::shard_of(s.x, s.y, comm);
  const nn::RowRange r = nn::local_rows(s.x.dim(0), comm);
  const std::vector<double> all = s.dy.to_vector();
  sh.dy = Tensor::from_host({r.size(), 2, 2}, std::vector<double>(all.begin() + 4 * r.begin, all.begin() + 4 * r.end));
  return sh;
}

TEST(Trainer, GradientEnhancedTrainingFitsFewSamplesBetterAndFollowsOneRank) {
  const Sampled train = analytic(12, 11), held_out = analytic(400, 12);
  auto fit = [&](double gradient_weight, MPI_Comm comm) {
    Model m(5);
    nn::TrainOptions o;
    o.epochs = 300;
    o.batch_size = 12;
    o.seed = 1;
    o.schedule = nn::cosine_lr(1e-2, 300, 1e-4);
    o.progress = false;
    o.gradient_weight = gradient_weight;
    nn::Trainer t(*m.net, *m.opt, o, comm);
    t.fit(shard_with_gradients(train, comm));
    ad::NoGradGuard no_grad;
    const std::vector<double> p = m.net->forward(ad::constant(held_out.x)).value().to_vector();
    const std::vector<double> y = held_out.y.to_vector();
    double sq = 0.0;
    for (size_t i = 0; i < p.size(); ++i) sq += (p[i] - y[i]) * (p[i] - y[i]);
    return std::make_pair(std::sqrt(sq / static_cast<double>(p.size())), m.weights());
  };
  const auto [rmse_values, w_values] = fit(0.0, world());
  const auto [rmse_sobolev, w_sobolev] = fit(1.0, world());
  const auto [rmse_one, w_one] = fit(1.0, MPI_COMM_SELF);
  if (camber::test::rank() == 0)
    std::printf("[sobolev] 12 samples, 400 held-out points: RMSE %.3e on values alone, %.3e with "
                "gradients (%.1fx)\n", rmse_values, rmse_sobolev, rmse_values / rmse_sobolev);
  EXPECT_LT(rmse_sobolev, 0.5 * rmse_values);
  EXPECT_LE(rel_diff(w_sobolev, w_one), 1e-9);
  // Without the data's gradients the option is refused.
  Model m(5);
  nn::TrainOptions o;
  o.progress = false;
  o.gradient_weight = 1.0;
  nn::Trainer t(*m.net, *m.opt, o, world());
  EXPECT_THROW(t.fit(nn::shard_of(train.x, train.y, world())), camber::Error);
}

TEST(Trainer, BadOptionsAreErrors) {
  Model s(1);
  nn::TrainOptions o = options();
  o.batch_size = 0;
  EXPECT_THROW(nn::Trainer(*s.net, *s.opt, o, world()), camber::Error);
  o = options();
  o.validation_fraction = 1.0;
  EXPECT_THROW(nn::Trainer(*s.net, *s.opt, o, world()), camber::Error);
  Model other(2);
  EXPECT_THROW(nn::Trainer(*s.net, *other.opt, options(), world()), camber::Error);
  EXPECT_THROW(nn::loss_from_name("cross_entropy"), camber::Error);
}

}  // namespace
