// HaloExchange: forward fills ghosts with their owners' values, and
// reverse_add is its exact transpose (dot-product test).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include <camber/parallel/cell_distribution.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/parallel/halo_exchange.hpp>
#include <camber/parallel/partition.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include "tests/parallel/graphs.hpp"
#include "tests/parallel/halo_grids.hpp"

namespace par = camber::par;
using camber::index_t;
using camber::Tensor;
using camber::test::f;
using camber::test::grid;
using camber::test::Layout;

namespace {

// Random values in [-1, 1), different on every rank.
Tensor random_tensor(const camber::Shape& shape, unsigned seed) {
  std::mt19937_64 rng(seed + 7919u * static_cast<unsigned>(camber::comm_rank(MPI_COMM_WORLD)));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(camber::shape_size(shape)));
  for (auto& x : v) x = u(rng);
  return Tensor::from_host(shape, v);
}

}  // namespace

TEST(HaloExchange, ForwardFillsEveryGhostFromItsOwner) {
  const auto& dist = grid().dist;
  par::HaloExchange halo(dist);
  const index_t nc = 3;
  std::vector<double> values(static_cast<size_t>(dist.n_local() * nc), -1.0);
  for (index_t l = 0; l < dist.n_owned(); ++l)
    for (index_t k = 0; k < nc; ++k) values[l * nc + k] = f(dist.global_id(l), k);
  Tensor u = Tensor::from_host({dist.n_local(), nc}, values);
  halo.forward(u);
  const auto h = u.to_vector();
  for (index_t l = 0; l < dist.n_local(); ++l)
    for (index_t k = 0; k < nc; ++k) ASSERT_EQ(h[l * nc + k], f(dist.global_id(l), k)) << "local " << l;

  // A 1-D field through the same object (buffers sized for 3 components).
  Tensor s({dist.n_local()});
  std::vector<double> sv(static_cast<size_t>(dist.n_local()), -1.0);
  for (index_t l = 0; l < dist.n_owned(); ++l) sv[l] = f(dist.global_id(l), 0);
  s.assign(sv);
  halo.forward(s);
  const auto hs = s.to_vector();
  for (index_t l = 0; l < dist.n_local(); ++l) ASSERT_EQ(hs[l], f(dist.global_id(l), 0));

  // A field with two component axes, {n_local, 2, 2}.
  Tensor m = Tensor::full({dist.n_local(), 2, 2}, -1.0);
  {
    std::vector<double> mv(static_cast<size_t>(dist.n_local() * 4), -1.0);
    for (index_t l = 0; l < dist.n_owned(); ++l)
      for (index_t k = 0; k < 4; ++k) mv[l * 4 + k] = f(dist.global_id(l), k);
    m.assign(mv);
  }
  halo.forward(m);
  const auto hm = m.to_vector();
  for (index_t l = 0; l < dist.n_local(); ++l)
    for (index_t k = 0; k < 4; ++k) ASSERT_EQ(hm[l * 4 + k], f(dist.global_id(l), k));

  // Wrong row count is refused.
  Tensor wrong({dist.n_local() + 1, nc});
  EXPECT_THROW(halo.forward(wrong), camber::Error);
}

TEST(HaloExchange, ReverseAddSendsGhostsHomeAndZeroesThem) {
  // Ones everywhere: afterwards an owned cell holds 1 + (number of ranks on
  // which it is a ghost), and every ghost holds 0.
  for (Layout layout : {Layout::metis, Layout::scattered}) {
  const auto& g = grid(layout);
  const auto& dist = g.dist;
  par::HaloExchange halo(dist);
  Tensor u = Tensor::full({dist.n_local(), 2}, 1.0);
  halo.reverse_add(u);
  const auto h = u.to_vector();
  for (index_t l = 0; l < dist.n_local(); ++l) {
    double expect = 0.0;
    if (dist.is_owned(l)) {
      const std::int64_t c = dist.global_id(l);
      std::set<int> ranks;
      for (auto k = g.graph.xadj[c]; k < g.graph.xadj[c + 1]; ++k)
        if (g.part[g.graph.adjncy[k]] != dist.rank()) ranks.insert(g.part[g.graph.adjncy[k]]);
      expect = 1.0 + static_cast<double>(ranks.size());
    }
    ASSERT_EQ(h[2 * l], expect) << "local " << l;
    ASSERT_EQ(h[2 * l + 1], expect) << "local " << l;
  }
  }
}

// <F u, v> == <u, R v> summed over ranks, u and v random over all local
// rows (F ignores u's ghost rows, R uses v's ghost rows): the adjoint test.
// Both sides add the same products in different orders, so they agree to
// round-off of the sum of |products|; the values themselves are O(1) here
// (random signs), and the check is made against both.
TEST(HaloExchange, ReverseAddIsTheTransposeOfForward) {
  for (Layout layout : {Layout::metis, Layout::scattered}) {
    const auto& dist = grid(layout).dist;
    par::HaloExchange halo(dist);
    for (index_t nc : {1, 4}) {
      const camber::Shape shape =
          nc == 1 ? camber::Shape{dist.n_local()} : camber::Shape{dist.n_local(), nc};
      Tensor u = random_tensor(shape, 11u + static_cast<unsigned>(nc));
      Tensor v = random_tensor(shape, 23u + static_cast<unsigned>(nc));
      Tensor fu = u.clone();
      halo.forward(fu);
      Tensor rv = v.clone();
      halo.reverse_add(rv);
      // Sums over all local rows (owned and ghost) on every rank.
      const double lhs = par::allreduce_sum(camber::dot(fu, v), MPI_COMM_WORLD);
      const double rhs = par::allreduce_sum(camber::dot(u, rv), MPI_COMM_WORLD);
      const double scale =
          par::allreduce_sum(camber::dot(camber::abs(fu), camber::abs(v)), MPI_COMM_WORLD);
      const double rel = std::abs(lhs - rhs) / std::max(std::abs(lhs), std::abs(rhs));
      if (dist.rank() == 0)
        std::printf("[ adjoint ] %d ranks, %s, %lld comp: <Fu,v> = %.15e, <u,Rv> = %.15e, "
                    "rel err %.2e, err / sum|terms| %.2e\n",
                    dist.size(), layout == Layout::metis ? "metis" : "scattered",
                    static_cast<long long>(nc), lhs, rhs, rel, std::abs(lhs - rhs) / scale);
      EXPECT_LE(std::abs(lhs - rhs), 1e-12 * scale);
      EXPECT_LE(rel, 1e-12);
    }
  }
}

TEST(HaloExchange, ForwardAfterScatterIsIdentityAndRoundTripIsExact) {
  const auto& dist = grid().dist;
  par::HaloExchange halo(dist);
  std::vector<double> whole(static_cast<size_t>(dist.n_global_cells() * 2));
  for (std::int64_t c = 0; c < dist.n_global_cells(); ++c)
    for (index_t k = 0; k < 2; ++k) whole[c * 2 + k] = f(c, k);
  const Tensor global = Tensor::from_host({dist.n_global_cells(), 2}, whole);
  Tensor local = par::scatter_global(global, dist);
  const Tensor expect = local.clone();
  halo.forward(local);  // ghosts were already right: nothing changes
  EXPECT_EQ(camber::max_abs_diff(local, expect), 0.0);
  // forward then reverse_add: owned rows gain (number of copies) x value.
  const Tensor back = par::gather_owned(local, dist);
  EXPECT_EQ(camber::max_abs_diff(back, global), 0.0);
}

// The use the exchange exists for: a residual kernel on owned cells reads
// neighbours (ghosts included) after forward(); its VJP scatters into
// neighbours (ghosts included) and reverse_add() sends the ghost parts home.
// For the graph Laplacian (L u)_i = sum_nb (u_i - u_nb) and
// J(u) = 1/2 |L u|^2, the gradient is L^T L u = L (L u); both J and the
// gradient must match the serial computation on the whole grid.
TEST(HaloExchange, DistributedLaplacianAndItsGradientMatchSerial) {
  for (Layout layout : {Layout::metis, Layout::scattered}) {
    const auto& g = grid(layout);
    const auto& dist = g.dist;
    const auto& xadj = g.graph.xadj;
    const auto& adjncy = g.graph.adjncy;
    const std::int64_t n = g.graph.n();
    auto u_of = [](std::int64_t c) { return std::sin(0.37 * static_cast<double>(c)) + 0.01 * static_cast<double>(c % 17); };

    // Serial reference.
    std::vector<double> lu(static_cast<size_t>(n)), grad(static_cast<size_t>(n));
    for (std::int64_t c = 0; c < n; ++c) {
      double r = 0.0;
      for (auto k = xadj[c]; k < xadj[c + 1]; ++k) r += u_of(c) - u_of(adjncy[k]);
      lu[c] = r;
    }
    double j_serial = 0.0, grad_max = 0.0;
    for (std::int64_t c = 0; c < n; ++c) {
      j_serial += 0.5 * lu[c] * lu[c];
      double s = 0.0;
      for (auto k = xadj[c]; k < xadj[c + 1]; ++k) s += lu[c] - lu[adjncy[k]];
      grad[c] = s;
      grad_max = std::max(grad_max, std::abs(s));
    }

    // Distributed: forward, residual on owned rows, J, then the reverse sweep.
    par::HaloExchange halo(dist);
    std::vector<double> uv(static_cast<size_t>(dist.n_local()), 0.0);
    for (index_t l = 0; l < dist.n_owned(); ++l) uv[l] = u_of(dist.global_id(l));
    Tensor u = Tensor::from_host({dist.n_local()}, uv);
    halo.forward(u);
    const auto uh = u.to_vector();
    const auto& lx = dist.owned_xadj();
    const auto& la = dist.owned_adjncy();
    Tensor r({dist.n_local()});  // residual on owned rows, ghosts unused
    std::vector<double> rv(static_cast<size_t>(dist.n_local()), 0.0);
    for (index_t l = 0; l < dist.n_owned(); ++l)
      for (index_t k = lx[l]; k < lx[l + 1]; ++k) rv[l] += uh[l] - uh[la[k]];
    r.assign(rv);
    const double j = 0.5 * par::dot_owned(r, r, dist);
    EXPECT_NEAR(j, j_serial, 1e-12 * j_serial);

    // dJ/dr = r on owned rows; VJP of the residual kernel scatters into u's
    // rows, ghost rows included; reverse_add completes it.
    std::vector<double> ubar(static_cast<size_t>(dist.n_local()), 0.0);
    for (index_t l = 0; l < dist.n_owned(); ++l)
      for (index_t k = lx[l]; k < lx[l + 1]; ++k) {
        ubar[l] += rv[l];
        ubar[la[k]] -= rv[l];
      }
    Tensor gbar = Tensor::from_host({dist.n_local()}, ubar);
    halo.reverse_add(gbar);
    const auto gh = gbar.to_vector();
    for (index_t l = 0; l < dist.n_owned(); ++l)
      ASSERT_NEAR(gh[l], grad[dist.global_id(l)], 1e-12 * grad_max) << "cell " << dist.global_id(l);
    for (index_t l = dist.n_owned(); l < dist.n_local(); ++l) ASSERT_EQ(gh[l], 0.0);
  }
}
