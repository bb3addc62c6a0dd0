// camber::opt under MPI (1, 2 and 4 ranks): the evaluation callback is
// collective, every rank ends with the same design, failures on one rank
// are failures everywhere, an exception on one rank ends minimize() on all
// ranks (no hang), and a replayed restart works with the history on rank 0
// only. Tolerances as in test_optimization.cpp (HS71's published optimum
// to 1e-6 with SLSQP).
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <stdexcept>

#include <camber/core/error.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/parallel/collectives.hpp>

#include "tests/mpi_test_utils.hpp"
#include "tests/optimization/problems.hpp"

namespace camber_test_optimization_mpi {

namespace opt = camber::opt;
using camber::test::hs71_f_star;
using camber::test::hs71_x_star;
using camber::test::max_abs_difference;
using camber::test::rank;
using camber::test::same_on_every_rank;
using camber::test::size;
using camber::test::world;

opt::Options tight() {
  opt::Options o;
  o.ftol_rel = 1e-12;
  o.xtol_rel = 1e-12;
  o.max_evaluations = 200;
  return o;
}

// HS71 evaluated collectively: each rank owns a share of the objective
// (its value and gradient times 1/size), summed with MPI_Allreduce, as a
// distributed flow solve sums surface forces. Ranks other than 0 also add
// a rank-dependent offset to their copy of the objective: rank 0's values
// drive NLopt, so the design must not depend on the other ranks' values.
opt::Problem collective_hs71() {
  opt::Problem p = camber::test::hs71_problem();
  p.evaluate = [](const std::vector<double>& x) {
    opt::Evaluation e = camber::test::hs71_evaluation(x);
    const double share = 1.0 / size();
    e.objective = camber::par::allreduce_sum(share * e.objective, world());
    for (double& g : e.objective_gradient) g = camber::par::allreduce_sum(share * g, world());
    e.objective += 1e-3 * rank();
    return e;
  };
  return p;
}

bool same_int_on_every_rank(int v) {
  int low = 0, high = 0;
  MPI_Allreduce(&v, &low, 1, MPI_INT, MPI_MIN, world());
  MPI_Allreduce(&v, &high, 1, MPI_INT, MPI_MAX, world());
  return low == high;
}

TEST(OptimizerMpi, EveryRankGetsTheSameDesign) {
  opt::Optimizer optimizer(collective_hs71(), tight(), world());
  int records = 0;
  optimizer.on_evaluation([&](const opt::Record&) { ++records; });
  const opt::Result r = optimizer.minimize();
  EXPECT_NEAR(r.objective, hs71_f_star, 1e-6);
  EXPECT_LT(max_abs_difference(r.x, hs71_x_star), 1e-6);
  EXPECT_TRUE(same_on_every_rank(r.x));
  EXPECT_TRUE(same_on_every_rank({r.objective, r.max_violation}));
  EXPECT_TRUE(same_int_on_every_rank(r.n_evaluations));
  EXPECT_TRUE(same_int_on_every_rank(static_cast<int>(r.status)));
  EXPECT_EQ(records, r.n_evaluations);
  ASSERT_EQ(static_cast<int>(optimizer.history().size()), r.n_evaluations);
  for (const auto& e : optimizer.history()) {
    EXPECT_TRUE(same_on_every_rank(e.x));
    EXPECT_TRUE(same_on_every_rank(e.values.objective_gradient));
  }
}

// An exception on the last rank at the third evaluation, after the
// callback's own communication (see "MPI" in optimizer.hpp for one thrown
// while the other ranks wait in it): every rank leaves
// minimize() with camber::Error carrying that message, and the
// communicator is clean afterwards (the next optimization runs normally).
TEST(OptimizerMpi, ThrowOnOneRankStopsAllRanks) {
  opt::Problem p = collective_hs71();
  int calls = 0;
  const auto evaluate = p.evaluate;
  p.evaluate = [&](const std::vector<double>& x) {
    // After the collective part, as a rank's own post-processing would.
    opt::Evaluation e = evaluate(x);
    if (++calls == 3 && rank() == size() - 1) throw std::runtime_error("cannot write the surface file");
    return e;
  };
  opt::Optimizer optimizer(p, tight(), world());
  std::string what = "no error";
  try {
    optimizer.minimize();
  } catch (const camber::Error& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("cannot write the surface file"), std::string::npos) << what;
  EXPECT_EQ(optimizer.history().size(), 2u);

  opt::Optimizer again(collective_hs71(), tight(), world());
  const opt::Result r = again.minimize();
  EXPECT_NEAR(r.objective, hs71_f_star, 1e-6);
  EXPECT_TRUE(same_on_every_rank(r.x));
}

TEST(OptimizerMpi, ThrowInTheReportHookOnOneRankStopsAllRanks) {
  opt::Optimizer optimizer(collective_hs71(), tight(), world());
  optimizer.on_evaluation([](const opt::Record& r) {
    if (r.evaluation == 4 && rank() == size() - 1) throw std::runtime_error("cannot write CSV");
  });
  std::string what = "no error";
  try {
    optimizer.minimize();
  } catch (const camber::Error& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("cannot write CSV"), std::string::npos) << what;
}

// The "flow solve" fails on the last rank only (x1 > 1.5): a failure on
// every rank, and the same recovery everywhere.
TEST(OptimizerMpi, FailureOnOneRankIsAFailureEverywhere) {
  opt::Problem p;
  p.x0 = {-3.0, -3.0};
  p.lower = {-10.0, -10.0};
  p.upper = {10.0, 10.0};
  p.evaluate = [](const std::vector<double>& x) {
    const bool diverged = camber::par::allreduce_max(x[0] > 1.5 ? 1.0 : 0.0, world()) > 0;
    if (diverged && rank() == size() - 1) throw opt::EvaluationFailed("residual stalled");
    opt::Evaluation e;
    e.objective = (x[0] - 1) * (x[0] - 1) + (x[1] - 1) * (x[1] - 1);
    e.objective_gradient = {2 * (x[0] - 1), 2 * (x[1] - 1)};
    return e;
  };
  opt::Optimizer optimizer(p, tight(), world());
  const opt::Result r = optimizer.minimize();
  EXPECT_LT(max_abs_difference(r.x, {1.0, 1.0}), 1e-8);
  EXPECT_GE(r.n_failures, 1);
  EXPECT_TRUE(same_on_every_rank(r.x));
  EXPECT_TRUE(same_int_on_every_rank(r.n_failures));
  bool named = false;
  for (const auto& e : optimizer.history())
    if (e.failed) named = named || e.failure.find("residual stalled") != std::string::npos;
  EXPECT_TRUE(named);
}

// Crash after 3 evaluations, then a restart with the saved history given to
// rank 0 only (as read from a file by rank 0): the same design, bit for
// bit, on every rank.
TEST(OptimizerMpi, ReplayedRestartMatchesTheUninterruptedRun) {
  opt::Optimizer whole(collective_hs71(), tight(), world());
  const opt::Result reference = whole.minimize();

  opt::Problem crashing = collective_hs71();
  int calls = 0;
  const auto evaluate = crashing.evaluate;
  crashing.evaluate = [&](const std::vector<double>& x) {
    if (++calls == 4) throw std::runtime_error("job killed");
    return evaluate(x);
  };
  opt::Optimizer first(crashing, tight(), world());
  EXPECT_THROW(first.minimize(), camber::Error);
  std::stringstream file;
  if (rank() == 0) opt::write_history(file, first.history());

  opt::Optimizer second(collective_hs71(), tight(), world());
  if (rank() == 0) second.replay(opt::read_history(file, "saved"));
  const opt::Result r = second.minimize();
  EXPECT_TRUE(same_on_every_rank(r.x));
  EXPECT_EQ(std::memcmp(r.x.data(), reference.x.data(), r.x.size() * sizeof(double)), 0);
  EXPECT_EQ(r.n_evaluations, reference.n_evaluations);
  EXPECT_EQ(r.n_live_evaluations, reference.n_evaluations - 3);
}

}  // namespace camber_test_optimization_mpi
