// nn::Ensemble at 1 and 2 ranks, on an analytic function of three inputs
// with two outputs and its exact Jacobian,
//   y0 = sin(2 x0) + 0.5 x1^2 - 0.3 x2,   y1 = x0 x1 + cos(x2),
// sampled at 48 points of [-1, 1]^3 with their gradients (24 for the
// cheaper checks):
//  - the mean fits 200 held-out points of the same cube to 10% of each
//    output's standard deviation (gradient-enhanced training; the
//    literature's several-fold gain over values alone is tested for the
//    trainer in test_trainer_mpi);
//  - the spread (the members' sample deviation) is at least 5 times larger
//    outside the data ([1.5, 2.5]^3) than at the training points: it
//    flags where the data do not pin the function down;
//  - the Jacobian of the mean matches central differences of predict()
//    to 1e-6 of its largest entry;
//  - fit() again with 8 new rows fine-tunes: the error at them falls at
//    least threefold;
//  - members trained on 2 ranks are those of 1 rank, bit for bit.
#include <gtest/gtest.h>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/nn/ensemble.hpp>

#include "tests/common/central_difference.hpp"
#include "../mpi_test_utils.hpp"

namespace {

namespace nn = camber::nn;
using camber::index_t;
using camber::Tensor;
using camber::test::world;

struct Data {
  Tensor x, y, dy;
};

Data sample(index_t n, double lo, double hi, std::uint64_t seed) {
  nn::Rng rng(seed);
  std::vector<double> x, y, dy;
  for (index_t i = 0; i < n; ++i) {
    const double a = rng.uniform(lo, hi), b = rng.uniform(lo, hi), c = rng.uniform(lo, hi);
    x.insert(x.end(), {a, b, c});
    y.insert(y.end(), {std::sin(2 * a) + 0.5 * b * b - 0.3 * c, a * b + std::cos(c)});
    dy.insert(dy.end(), {2 * std::cos(2 * a), b, -0.3, b, a, -std::sin(c)});
  }
  return {Tensor::from_host({n, 3}, x), Tensor::from_host({n, 2}, y),
          Tensor::from_host({n, 2, 3}, dy)};
}

nn::Ensemble make(MPI_Comm comm, int epochs = 400) {
  nn::Columns in{{"x0", "x1", "x2"}, {"", "", ""}}, out{{"y0", "y1"}, {"", ""}};
  nn::EnsembleOptions o;
  o.members = 4;
  o.hidden = {16, 16};
  o.epochs = epochs;
  o.learning_rate = 1e-2;
  o.batch_size = 8;
  o.gradient_weight = 1.0;
  o.seed = 3;
  return nn::Ensemble(in, out, {{0, 0, 0}, {0.6, 0.6, 0.6}}, {{0.5, 0.5}, {0.8, 0.5}}, o, comm);
}

double rmse(const Tensor& p, const Tensor& t, index_t column) {
  const std::vector<double> a = p.to_vector(), b = t.to_vector();
  const index_t cols = p.dim(1), rows = p.dim(0);
  double s = 0.0;
  for (index_t r = 0; r < rows; ++r) {
    const double d = a[static_cast<size_t>(r * cols + column)] - b[static_cast<size_t>(r * cols + column)];
    s += d * d;
  }
  return std::sqrt(s / static_cast<double>(rows));
}

double stddev_of(const Tensor& t, index_t column) {
  const std::vector<double> a = t.to_vector();
  const index_t cols = t.dim(1), rows = t.dim(0);
  double m = 0.0, s = 0.0;
  for (index_t r = 0; r < rows; ++r) m += a[static_cast<size_t>(r * cols + column)];
  m /= static_cast<double>(rows);
  for (index_t r = 0; r < rows; ++r) {
    const double d = a[static_cast<size_t>(r * cols + column)] - m;
    s += d * d;
  }
  return std::sqrt(s / static_cast<double>(rows));
}

double mean_of(const Tensor& t) {
  const std::vector<double> a = t.to_vector();
  double m = 0.0;
  for (double v : a) m += v;
  return m / static_cast<double>(a.size());
}

TEST(Ensemble, MeanFitsHeldOutPointsAndSpreadGrowsAwayFromTheData) {
  const Data train = sample(48, -1, 1, 11), held = sample(200, -1, 1, 12),
             far = sample(50, 1.5, 2.5, 13);
  nn::Ensemble e = make(world(), 300);
  e.fit(train.x, train.y, train.dy);
  const Tensor p = e.predict(held.x);
  for (index_t k = 0; k < 2; ++k)
    EXPECT_LT(rmse(p, held.y, k), 0.1 * stddev_of(held.y, k)) << "output " << k;
  const double spread_at_data = mean_of(e.stddev(train.x));
  const double spread_far = mean_of(e.stddev(far.x));
  EXPECT_GT(spread_far, 5.0 * spread_at_data) << spread_at_data << " " << spread_far;
  EXPECT_EQ(e.fits(), 1);
  for (double l : e.last_losses()) EXPECT_TRUE(std::isfinite(l));
}

TEST(Ensemble, JacobianOfTheMeanMatchesCentralDifferences) {
  const Data train = sample(24, -1, 1, 11), at = sample(5, -1, 1, 21);
  nn::Ensemble e = make(world(), 50);
  e.fit(train.x, train.y, train.dy);
  const std::vector<double> j = e.jacobian(at.x).to_vector();
  std::vector<double> x = at.x.to_vector();
  double largest = 0.0, error = 0.0;
  const double h = 1e-5;
  // Column r * 3 + k: the predictions' derivatives in input k of row r.
  const std::vector<std::vector<double>> columns = camber::test::central_partials(
      [&](const std::vector<double>& y) { return e.predict(Tensor::from_host({5, 3}, y)).to_vector(); }, x, h);
  for (index_t r = 0; r < 5; ++r)
    for (index_t k = 0; k < 3; ++k) {
      for (index_t o = 0; o < 2; ++o) {
        const double fd = columns[static_cast<size_t>(r * 3 + k)][static_cast<size_t>(r * 2 + o)];
        const double an = j[static_cast<size_t>((r * 2 + o) * 3 + k)];
        largest = std::max(largest, std::abs(an));
        error = std::max(error, std::abs(fd - an));
      }
    }
  EXPECT_LT(error, 1e-6 * largest) << error << " of " << largest;
}

TEST(Ensemble, FittingAgainFineTunesOnNewRows) {
  const Data train = sample(16, -1, 1, 11), more = sample(8, -1, 1, 31);
  nn::Ensemble e = make(world(), 200);
  e.fit(train.x, train.y, train.dy);
  const double before = rmse(e.predict(more.x), more.y, 0) + rmse(e.predict(more.x), more.y, 1);
  std::vector<double> x = train.x.to_vector(), y = train.y.to_vector(), dy = train.dy.to_vector();
  for (const auto& [dst, src] : {std::pair{&x, &more.x}, std::pair{&y, &more.y}, std::pair{&dy, &more.dy}}) {
    const std::vector<double> v = src->to_vector();
    dst->insert(dst->end(), v.begin(), v.end());
  }
  e.fit(Tensor::from_host({24, 3}, x), Tensor::from_host({24, 2}, y), Tensor::from_host({24, 2, 3}, dy));
  const double after = rmse(e.predict(more.x), more.y, 0) + rmse(e.predict(more.x), more.y, 1);
  EXPECT_LT(after, before / 3.0) << before << " -> " << after;
  EXPECT_EQ(e.fits(), 2);
}

TEST(Ensemble, MembersDoNotDependOnTheRankCount) {
  const Data train = sample(24, -1, 1, 11), at = sample(20, -1, 1, 41);
  nn::Ensemble shared = make(world(), 60);
  shared.fit(train.x, train.y, train.dy);
  nn::Ensemble alone = make(MPI_COMM_SELF, 60);
  alone.fit(train.x, train.y, train.dy);
  for (int k = 0; k < shared.size(); ++k) {
    const std::vector<double> a = shared.member(k).predict(at.x).to_vector();
    const std::vector<double> b = alone.member(k).predict(at.x).to_vector();
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << "member " << k;
  }
}

TEST(Ensemble, ActiveLearningPicksWhereTheDataAreNot) {
  // Data only where x0 < 0: the disagreement is largest on the other side,
  // and the spacing keeps the picks apart.
  Data train = sample(48, -1, 1, 11);
  std::vector<double> x = train.x.to_vector(), y = train.y.to_vector(), dy = train.dy.to_vector();
  std::vector<double> xh, yh, dyh;
  index_t kept = 0;
  for (index_t r = 0; r < 48; ++r) {
    if (x[static_cast<size_t>(3 * r)] >= 0.0) continue;
    ++kept;
    xh.insert(xh.end(), x.begin() + 3 * r, x.begin() + 3 * r + 3);
    yh.insert(yh.end(), y.begin() + 2 * r, y.begin() + 2 * r + 2);
    dyh.insert(dyh.end(), dy.begin() + 6 * r, dy.begin() + 6 * r + 6);
  }
  nn::Ensemble e = make(world(), 100);
  e.fit(Tensor::from_host({kept, 3}, xh), Tensor::from_host({kept, 2}, yh),
        Tensor::from_host({kept, 2, 3}, dyh));
  const Data pool = sample(400, -1, 1, 51);
  const std::vector<index_t> picks =
      nn::most_disagreeing(e, pool.x, 6, {1.0, 1.0, 1.0}, {0.8, 0.5}, 0.5);
  ASSERT_EQ(picks.size(), 6u);
  const std::vector<double> px = pool.x.to_vector();
  for (index_t p : picks) EXPECT_GT(px[static_cast<size_t>(3 * p)], 0.0) << "pick " << p;
  const auto closest = [&](const std::vector<index_t>& chosen) {
    double m = 1e300;
    for (size_t a = 0; a < chosen.size(); ++a)
      for (size_t b = 0; b < a; ++b) {
        double d2 = 0.0;
        for (int k = 0; k < 3; ++k) {
          const double d = px[static_cast<size_t>(3 * chosen[a] + k)] - px[static_cast<size_t>(3 * chosen[b] + k)];
          d2 += d * d;
        }
        m = std::min(m, std::sqrt(d2));
      }
    return m;
  };
  // Without spacing: the six largest scores, in order.
  const std::vector<index_t> top = nn::most_disagreeing(e, pool.x, 6, {1.0, 1.0, 1.0}, {0.8, 0.5}, 1e-9);
  const std::vector<double> sd = e.stddev(pool.x).to_vector();
  std::vector<double> score;
  for (index_t r = 0; r < 400; ++r)
    score.push_back(sd[static_cast<size_t>(2 * r)] / 0.8 + sd[static_cast<size_t>(2 * r + 1)] / 0.5);
  for (size_t k = 1; k < top.size(); ++k)
    EXPECT_GE(score[static_cast<size_t>(top[k - 1])], score[static_cast<size_t>(top[k])]);
  for (index_t r = 0; r < 400; ++r) {
    if (std::find(top.begin(), top.end(), r) == top.end()) {
      EXPECT_LE(score[static_cast<size_t>(r)], score[static_cast<size_t>(top.back())]);
    }
  }
  std::printf("closest pair: %g with spacing 0.5, %g without\n", closest(picks), closest(top));
  EXPECT_GT(closest(picks), closest(top));
}

TEST(Ensemble, BadOptionsAndStatisticsAreBadInput) {
  nn::Columns in{{"x0"}, {""}}, out{{"y0"}, {""}};
  nn::EnsembleOptions o;
  o.members = 0;
  EXPECT_THROW(nn::Ensemble(in, out, {{0}, {1}}, {{0}, {1}}, o, world()), camber::Error);
  o.members = 2;
  try {
    nn::Ensemble(in, out, {{0}, {0.0}}, {{0}, {1}}, o, world());
    FAIL() << "accepted a zero deviation";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(std::string(e.what()).find("deviation"), std::string::npos) << e.what();
  }
}

}  // namespace
