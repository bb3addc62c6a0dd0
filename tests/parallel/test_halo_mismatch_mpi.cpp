// HaloExchange when the two sides of an exchange disagree (component
// count, operation, row count): needs at least two ranks, so it runs at 2
// and 4.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <camber/core/error.hpp>
#include <camber/parallel/halo_exchange.hpp>
#include <camber/core/runtime.hpp>
#include <camber/core/tensor.hpp>
#include "tests/parallel/halo_grids.hpp"

namespace par = camber::par;
using camber::index_t;
using camber::Tensor;
using camber::test::f;
using camber::test::grid;
using camber::test::Layout;

// The two sides of an exchange disagree: rank 1 calls differently from the
// others (strips over 4 ranks leave rank 3 out of it). Rank 1 and its
// neighbours must raise a camber::Error naming both
// ranks and the message size each side sends and expects, leaving their
// field unchanged; the other ranks finish normally (their ghosts filled);
// nobody hangs, and a correct exchange afterwards works (no message was
// left behind).
namespace {

enum class Odd { components, operation, rows };

std::string values_text(index_t cells, index_t nc) {
  return std::to_string(cells * nc) + " values (" + std::to_string(cells) + " cells x " +
         std::to_string(nc) + " components)";
}

// Owned rows f(global, k), ghost rows -1.
Tensor owned_field(const par::CellDistribution& dist, index_t rows, index_t nc) {
  std::vector<double> v(static_cast<size_t>(rows * nc), -1.0);
  for (index_t l = 0; l < dist.n_owned(); ++l)
    for (index_t k = 0; k < nc; ++k) v[static_cast<size_t>(l * nc + k)] = f(dist.global_id(l), k);
  return Tensor::from_host({rows, nc}, v);
}

void check_disagreement(Layout layout, Odd odd_way) {
  const auto& dist = grid(layout).dist;
  par::HaloExchange halo(dist);
  const int me = dist.rank(), odd = 1;
  bool involved = me == odd;
  for (const auto& nr : dist.neighbours()) involved = involved || nr.rank == odd;
  const index_t nc = me == odd && odd_way == Odd::components ? 3 : 4;
  const index_t rows = me == odd && odd_way == Odd::rows ? dist.n_local() + 1 : dist.n_local();
  Tensor u = owned_field(dist, rows, nc);
  const Tensor before = u.clone();
  std::string message;
  try {
    if (me == odd && odd_way == Odd::operation)
      halo.reverse_add(u);
    else
      halo.forward(u);
  } catch (const camber::Error& e) {
    message = e.what();
  }
  // In strips over 4 ranks, rank 3 only neighbours rank 2, which raises.
  if (layout == Layout::strips && dist.size() == 4 && me == 3) {
    EXPECT_FALSE(involved);
  }
  if (!involved) {
    // Rank 1's neighbours still exchanged with this rank: ghosts are filled.
    EXPECT_EQ(message, "");
    const auto h = u.to_vector();
    for (index_t l = 0; l < dist.n_local(); ++l)
      for (index_t k = 0; k < nc; ++k)
        ASSERT_EQ(h[static_cast<size_t>(l * nc + k)], f(dist.global_id(l), k)) << "local " << l;
  } else {
    ASSERT_NE(message, "") << "rank " << me << " must raise";
    if (me == odd && layout == Layout::metis)
      std::printf("[ mismatch ] %d ranks, on rank 1: %s\n", dist.size(), message.c_str());
    EXPECT_EQ(camber::max_abs_diff(u, before), 0.0) << "the field must be unchanged";
    if (me == odd && odd_way == Odd::rows) {
      EXPECT_NE(message.find("must have n_local = " + std::to_string(dist.n_local())), std::string::npos)
          << message;
    }
    for (const auto& nr : dist.neighbours()) {
      if (me != odd && nr.rank != odd) continue;
      const std::string r = "rank " + std::to_string(nr.rank), self = "rank " + std::to_string(me);
      const auto n_send = static_cast<index_t>(nr.send_cells.size());
      const index_t their_nc = nr.rank == odd && odd_way == Odd::components ? 3 : 4;
      switch (odd_way) {
        case Odd::components:
          // Forward on both sides: each sends its send list, fills its ghosts.
          EXPECT_NE(message.find(r + " sends " + values_text(nr.n_ghosts, their_nc) + " where " +
                                 self + " expects " + values_text(nr.n_ghosts, nc)),
                    std::string::npos)
              << message;
          EXPECT_NE(message.find(self + " sends " + values_text(n_send, nc) + " where " + r +
                                 " expects " + values_text(n_send, their_nc)),
                    std::string::npos)
              << message;
          break;
        case Odd::operation: {
          const bool i_reverse = me == odd;
          EXPECT_NE(message.find(r + " called " + (i_reverse ? "forward" : "reverse_add") + ", " +
                                 self + " called " + (i_reverse ? "reverse_add" : "forward")),
                    std::string::npos)
              << message;
          // Both send their ghost rows (reverse_add) or both their send
          // lists (forward), and each expects what it sends.
          const index_t out = i_reverse ? nr.n_ghosts : n_send;
          const index_t in = i_reverse ? n_send : nr.n_ghosts;
          EXPECT_NE(message.find(r + " sends " + values_text(out, 4) + " where " + self +
                                 " expects " + values_text(in, 4)),
                    std::string::npos)
              << message;
          break;
        }
        case Odd::rows:
          if (me != odd) {
            EXPECT_NE(message.find("rank 1 refused its field"), std::string::npos) << message;
          }
          break;
      }
    }
  }
  // A correct exchange on every rank afterwards.
  Tensor w = owned_field(dist, dist.n_local(), 2);
  halo.forward(w);
  const auto h = w.to_vector();
  for (index_t l = 0; l < dist.n_local(); ++l)
    for (index_t k = 0; k < 2; ++k)
      ASSERT_EQ(h[static_cast<size_t>(l * 2 + k)], f(dist.global_id(l), k)) << "local " << l;
}

}  // namespace

TEST(HaloExchange, DifferentComponentCountsAreAnErrorOnBothSides) {
  for (Layout layout : {Layout::metis, Layout::scattered, Layout::strips})
    check_disagreement(layout, Odd::components);
}

TEST(HaloExchange, ForwardAgainstReverseAddIsAnErrorOnBothSides) {
  for (Layout layout : {Layout::metis, Layout::scattered, Layout::strips})
    check_disagreement(layout, Odd::operation);
}

TEST(HaloExchange, AFieldWithWrongRowsOnOneRankIsAnErrorOnItsNeighbours) {
  for (Layout layout : {Layout::metis, Layout::scattered, Layout::strips})
    check_disagreement(layout, Odd::rows);
}
