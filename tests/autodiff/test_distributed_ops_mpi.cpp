// Gradients across MPI ranks: the halo exchange and the global sum as graph
// ops, checked at 1, 2 and 4 ranks by a dot-product test, by collective
// central differences of a nonlinear loss, and by a Hessian-vector product
// against differences of gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include <camber/core/error.hpp>

#include <camber/autodiff/distributed_ops.hpp>
#include <camber/autodiff/graph.hpp>
#include <camber/parallel/cell_distribution.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/parallel/partition.hpp>
#include <camber/core/runtime.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/parallel/graphs.hpp"

namespace ad = camber::ad;
using camber::Tensor;
using camber::index_t;
using camber::test::central_difference;

namespace {

struct Partitioned {
  camber::test::CsrGraph graph = camber::test::grid_graph(12, 9);
  camber::par::CellDistribution dist;
  camber::par::HaloExchange halo;
  Partitioned() {
    const auto part = camber::par::partition_over_ranks(MPI_COMM_WORLD, graph.xadj, graph.adjncy);
    dist = camber::par::CellDistribution(MPI_COMM_WORLD, graph.xadj, graph.adjncy, part);
    halo = camber::par::HaloExchange(dist);
  }
};

// Values that depend on the rank, so ghost rows of the input differ from
// their owners' values and the test sees whether they leak into results.
Tensor random_local(index_t n, unsigned seed) {
  std::mt19937 rng(seed + 7919u * static_cast<unsigned>(camber::comm_rank(MPI_COMM_WORLD)));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(rng);
  return Tensor::from_host({n}, v);
}

double sum_over_ranks(double x) { return camber::par::allreduce_sum(x, MPI_COMM_WORLD); }

// Weights as a function of the global cell id, the same on every rank.
Tensor weights(const camber::par::CellDistribution& dist) {
  std::vector<double> w(static_cast<size_t>(dist.n_local()));
  for (index_t i = 0; i < dist.n_local(); ++i)
    w[static_cast<size_t>(i)] = 0.5 + 0.01 * static_cast<double>(dist.global_id(i) % 37);
  return Tensor::from_host({dist.n_local()}, w);
}

// L(x) = sum over ranks of sum_i w_i sin(y_i) + 0.5 y_i^2 over this rank's
// local cells (owned and ghosts), y = halo(x). Ghost terms make the owners'
// gradients receive contributions from other ranks.
ad::Var loss(const ad::Var& x, Partitioned& s, const Tensor& w) {
  ad::Var y = ad::halo_exchange(x, s.halo);
  ad::Var wv = ad::constant(w);
  ad::Var local = ad::sum(ad::mul(wv, ad::sin(y))) + ad::mul_scalar(ad::sum(ad::square(y)), 0.5);
  return ad::allreduce_sum(local, MPI_COMM_WORLD);
}

}  // namespace

TEST(DistributedOps, HaloExchangeDotProductTest) {
  Partitioned s;
  const index_t n = s.dist.n_local();
  const Tensor u = random_local(n, 1);
  const Tensor v = random_local(n, 2);
  // J u by forward mode, J^T v by reverse mode.
  const ad::VarFunction f = [&](const ad::Var& x) { return ad::halo_exchange(x, s.halo); };
  const ad::JvpResult ju = ad::jvp(f, ad::variable(random_local(n, 3)), ad::constant(u));
  ad::Var x = ad::variable(random_local(n, 3));
  const Tensor jtv = ad::vjp({f(x)}, {x}, {ad::constant(v)})[0].value();
  const double lhs = sum_over_ranks(camber::dot(ju.tangents[0].value(), v));
  const double rhs = sum_over_ranks(camber::dot(u, jtv));
  EXPECT_NEAR(lhs, rhs, 1e-13 * (std::fabs(lhs) + 1.0));
  // Ghost rows of x do not influence y: their cotangent is exactly zero.
  const auto h = jtv.to_vector();
  for (index_t i = s.dist.n_owned(); i < n; ++i) EXPECT_EQ(h[static_cast<size_t>(i)], 0.0);
}

TEST(DistributedOps, AllreduceSumDotProductTest) {
  const Tensor u = random_local(5, 4);
  const Tensor w = Tensor::from_host({5}, {0.3, -1.0, 2.0, 0.7, 1.1});  // replicated
  const ad::VarFunction f = [](const ad::Var& x) { return ad::allreduce_sum(x, MPI_COMM_WORLD); };
  const ad::JvpResult ju = ad::jvp(f, ad::variable(u), ad::constant(u));
  ad::Var x = ad::variable(u);
  const Tensor jtw = ad::vjp({f(x)}, {x}, {ad::constant(w)})[0].value();
  // The replicated output's inner product counts once; the input's sums ranks.
  const double lhs = camber::dot(ju.tangents[0].value(), w);
  const double rhs = sum_over_ranks(camber::dot(u, jtw));
  EXPECT_NEAR(lhs, rhs, 1e-13 * (std::fabs(lhs) + 1.0));
  // The value: sum over ranks of u.
  const Tensor y = f(ad::constant(u)).value();
  Tensor expect = u.clone();
  camber::par::allreduce_sum_in_place(expect, MPI_COMM_WORLD);
  EXPECT_EQ(camber::max_abs_diff(y, expect), 0.0);
}

TEST(DistributedOps, GradientMatchesCollectiveCentralDifferences) {
  Partitioned s;
  const index_t n = s.dist.n_local();
  const Tensor w = weights(s.dist);
  const Tensor x0 = random_local(n, 5);
  ad::Var x = ad::variable(x0);
  const Tensor g = ad::grad(loss(x, s, w), {x})[0].value();
  const auto gh = g.to_vector();

  // Every rank perturbs the owned row of global cell c (if it owns it) and
  // all ranks evaluate L together. Error of the central difference:
  // h^2/6 |L'''| ~ 1e-11 here; rounding eps |L| / h ~ 1e-10.
  const double h = 1e-5;
  const index_t n_global = s.graph.n();
  for (index_t c = 0; c < n_global; c += 7) {
    const index_t local = s.dist.local_id(c);
    const bool mine = local >= 0 && local < s.dist.n_owned();
    auto eval = [&](double step) {
      Tensor xp = x0.clone();
      if (mine) {
        auto v = xp.to_vector();
        v[static_cast<size_t>(local)] += step;
        xp.assign(v);
      }
      ad::NoGradGuard no_grad;
      return loss(ad::constant(xp), s, w).item();
    };
    const double fd = central_difference(eval, 0.0, h);
    const double ad_value = sum_over_ranks(mine ? gh[static_cast<size_t>(local)] : 0.0);
    EXPECT_NEAR(ad_value, fd, 1e-8 * (1.0 + std::fabs(fd))) << "global cell " << c;
  }
}

TEST(DistributedOps, HessianVectorProductMatchesDifferencesOfGradients) {
  Partitioned s;
  const index_t n = s.dist.n_local();
  const Tensor w = weights(s.dist);
  const Tensor x0 = random_local(n, 6);
  const Tensor v = random_local(n, 8);
  const ad::VarFunction f = [&](const ad::Var& x) { return loss(x, s, w); };
  const Tensor hv = ad::hvp(f, x0, v);
  auto grad_at = [&](double step) {
    Tensor xs = x0.clone();
    xs.axpy(step, v);
    ad::Var x = ad::variable(xs);
    return ad::grad(f(x), {x})[0].value();
  };
  // Central difference of gradients along v; truncation h^2 |L''''| ~ 1e-8.
  const double h = 1e-4;
  const Tensor fd = central_difference(grad_at, 0.0, h);
  const auto a = hv.to_vector();
  const auto b = fd.to_vector();
  double worst = 0.0;
  for (index_t i = 0; i < s.dist.n_owned(); ++i)
    worst = std::max(worst, std::fabs(a[static_cast<size_t>(i)] - b[static_cast<size_t>(i)]));
  worst = camber::par::allreduce_max(worst, MPI_COMM_WORLD);
  EXPECT_LT(worst, 1e-7);
}

TEST(DistributedOps, AHaloForwardOnASavedTensorIsCaughtOnEveryRank) {
  // The graph saved t (sin reads its input); filling t's ghost rows in place
  // afterwards would make the gradient use the new values. Every rank's
  // backward pass refuses, so no rank goes on alone (it is a local check:
  // nothing collective follows).
  Partitioned s;
  Tensor t = random_local(s.dist.n_local(), 5);
  ad::Var x = ad::variable(t);
  ad::Var y = ad::sum(ad::sin(x));
  s.halo.forward(t);
  std::string msg;
  try {
    ad::grad(y, {x});
  } catch (const camber::Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("op 'sin' needs the value of its input 0"), std::string::npos) << msg;
  const double caught = sum_over_ranks(msg.empty() ? 0.0 : 1.0);
  EXPECT_EQ(caught, static_cast<double>(camber::comm_size(MPI_COMM_WORLD)));
}
