// Data-parallel training at 1, 2 and 4 ranks: gradients summed over the
// ranks, each rank evaluating its rows of every global mini-batch, follow
// the loss curve and the weights of the same training run on one rank (run
// here on every rank alone, in the same process) to 1e-10 relative.
#include <gtest/gtest.h>

#include <mpi.h>

#include <cmath>
#include <limits>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/layers.hpp>
#include <camber/nn/loss.hpp>
#include <camber/nn/optim.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

#include "../mpi_test_utils.hpp"

namespace {

namespace ad = camber::ad;
namespace nn = camber::nn;
using camber::index_t;
using camber::Tensor;
using camber::test::rank;
using camber::test::size;
using camber::test::world;

TEST(DataParallel, LocalRowsSplitEveryRowOnce) {
  for (index_t rows : {0, 1, 7, 64, 65}) {
    const nn::RowRange r = nn::local_rows(rows, world());
    index_t total = r.size(), first = r.begin;
    total = static_cast<index_t>(camber::par::allreduce_sum(static_cast<double>(total), world()));
    EXPECT_EQ(total, rows);
    // Contiguous in rank order: rank k starts where rank k-1 ended.
    std::vector<long long> begins(static_cast<size_t>(size())), ends(begins.size());
    long long b = first, e = r.end;
    MPI_Allgather(&b, 1, MPI_LONG_LONG, begins.data(), 1, MPI_LONG_LONG, world());
    MPI_Allgather(&e, 1, MPI_LONG_LONG, ends.data(), 1, MPI_LONG_LONG, world());
    EXPECT_EQ(begins[0], 0);
    for (size_t k = 1; k < begins.size(); ++k) EXPECT_EQ(begins[k], ends[k - 1]);
  }
}

TEST(DataParallel, AllreduceSumsFloat64AndFloat32InSmallBuckets) {
  const double r = rank() + 1.0;
  std::vector<Tensor> g{Tensor::from_host({3}, {r, 2 * r, 3 * r}),
                        Tensor::from_host({2}, {r, -r}).to(camber::DType::float32),
                        Tensor::from_host({5}, std::vector<double>(5, r))};
  nn::allreduce_sum(g, world(), 16);  // 16 bytes: several buckets
  const double s = size() * (size() + 1) / 2.0;
  EXPECT_EQ(g[0].to_vector(), (std::vector<double>{s, 2 * s, 3 * s}));
  EXPECT_EQ(g[1].to(camber::DType::float64).to_vector(), (std::vector<double>{s, -s}));
  EXPECT_EQ(g[2].to_vector(), std::vector<double>(5, s));
  // A rank with a different gradient list: every rank gets the error.
  std::vector<Tensor> bad{Tensor({rank() == 0 ? 3 : 4})};
  if (size() > 1) {
    EXPECT_THROW(nn::allreduce_sum(bad, world()), camber::Error);
  }
}

// A regression data set every rank generates identically from a seed.
struct Data {
  Tensor x, y;
};
Data make_data(index_t n) {
  nn::Rng rng(99);
  std::vector<double> xs(static_cast<size_t>(2 * n)), ys(static_cast<size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const double a = rng.uniform(-1, 1), b = rng.uniform(-1, 1);
    xs[static_cast<size_t>(2 * i)] = a;
    xs[static_cast<size_t>(2 * i + 1)] = b;
    ys[static_cast<size_t>(i)] = std::sin(2 * a) * std::cos(b) + 0.1 * rng.normal();
  }
  return {Tensor::from_host({n, 2}, xs), Tensor::from_host({n, 1}, ys)};
}

Tensor rows(const Tensor& t, index_t begin, index_t end) {
  const index_t w = t.dim(1);
  std::vector<double> v = t.to_vector();
  return Tensor::from_host({end - begin, w},
                           std::vector<double>(v.begin() + begin * w, v.begin() + end * w));
}

// Trains for `steps` mini-batches of `batch` rows (taken in order, wrapping)
// over `comm`; returns the global loss per step and the final weights.
struct TrainingRun {
  std::vector<double> losses;
  std::vector<double> weights;
};
TrainingRun train(const Data& d, MPI_Comm comm, int steps, index_t batch, bool poison = false) {
  nn::Rng rng(5);
  const auto net = nn::mlp({2, {8, 8}, 1, nn::Activation::tanh}, rng);
  nn::Adam opt(net->parameters(), {5e-3});
  TrainingRun out;
  const index_t n = d.x.dim(0);
  for (int s = 0; s < steps; ++s) {
    const index_t b0 = (s * batch) % n;
    const nn::RowRange r = nn::local_rows(batch, comm);
    Tensor xb = rows(d.x, b0 + r.begin, b0 + r.end), yb = rows(d.y, b0 + r.begin, b0 + r.end);
    if (poison && s == 3 && camber::comm_rank(comm) == camber::comm_size(comm) - 1 && r.size() > 0)
      xb.assign(std::vector<double>(static_cast<size_t>(xb.size()),
                                    std::numeric_limits<double>::quiet_NaN()));
    // Each rank: the sum over its rows / the global batch size.
    const ad::Var loss = nn::sum_squared_error(net->forward(ad::constant(xb)), ad::constant(yb)) /
                         static_cast<double>(batch);
    std::vector<Tensor> g = nn::values(ad::grad(loss, net->parameters()));
    nn::allreduce_sum(g, comm);
    const double global = camber::par::allreduce_sum(loss.item(), comm);
    CAMBER_REQUIRE(std::isfinite(global), "training: the loss at step " << s << " is " << global);
    out.losses.push_back(global);
    opt.step(g);
  }
  for (const Tensor& p : net->parameter_values())
    for (double v : p.to_vector()) out.weights.push_back(v);
  return out;
}

TEST(DataParallel, LossCurveAndWeightsMatchOneRank) {
  const Data d = make_data(96);
  const TrainingRun par = train(d, world(), 40, 32);
  const TrainingRun one = train(d, MPI_COMM_SELF, 40, 32);
  ASSERT_EQ(par.losses.size(), one.losses.size());
  double worst = 0.0;
  for (size_t s = 0; s < one.losses.size(); ++s)
    worst = std::max(worst, std::abs(par.losses[s] - one.losses[s]) / one.losses[s]);
  EXPECT_LE(worst, 1e-10);
  double wmax = 0.0, wscale = 0.0;
  for (size_t k = 0; k < one.weights.size(); ++k) {
    wmax = std::max(wmax, std::abs(par.weights[k] - one.weights[k]));
    wscale = std::max(wscale, std::abs(one.weights[k]));
  }
  EXPECT_LE(wmax, 1e-10 * wscale);
  // The loss went down: training happened.
  EXPECT_LT(one.losses.back(), 0.5 * one.losses.front());
  camber::test::say("[ data-parallel ] %d ranks: loss %.6e -> %.6e, worst relative loss "
                    "difference to one rank %.2e, weights %.2e\n",
                    size(), one.losses.front(), one.losses.back(), worst, wmax / wscale);
}

TEST(DataParallel, ANaNOnOneRankStopsEveryRankWithOneMessage) {
  const Data d = make_data(96);
  try {
    train(d, world(), 6, 32, true);
    FAIL() << "expected an error";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("loss at step 3"), std::string::npos) << e.what();
  }
}

}  // namespace
