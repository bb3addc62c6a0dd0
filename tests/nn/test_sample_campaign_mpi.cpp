// nn/io/sample_campaign.hpp at 1, 2 and 4 ranks, with an analytic solver:
// outputs (x0 + 2 x1, x0 x1) and their gradients ((1, 2), (x1, x0)); the
// sample of index 3 does not converge.
//  - every point of the Latin hypercube is solved once, by one group (the
//    solver's calls summed over the groups), with one or two ranks per
//    sample; the data set holds the converged ones, each row the function
//    of its inputs exactly, gradients too, and the one that did not
//    converge is left out;
//  - a campaign on a record cut short solves only what is missing and
//    writes the same data set;
//  - a record of another design or with a malformed row is bad input
//    naming the file (and the line);
//  - an active-learning round adds its batch inside the ranges, and a
//    continued run places it where the record says (no solve);
//  - the design's settings are checked before anything is made: the first
//    fault told its member, in the caller's words; the groups refuse a
//    rank count that is not a multiple on every rank.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/sample_campaign.hpp>
#include <camber/nn/sampling.hpp>

#include "../mpi_test_utils.hpp"

namespace {

namespace nn = camber::nn;
namespace fs = std::filesystem;
using camber::index_t;
using camber::test::world;

nn::io::SampleCampaignSettings settings(const fs::path& dir) {
  nn::io::SampleCampaignSettings s;
  s.ranges = {{0.0, 1.0}, {-2.0, 2.0}};
  s.inputs = {{"a", "b"}, {"", "m"}};
  s.outputs = {{"sum", "product"}, {"", ""}};
  s.gradients = true;
  s.count = 9;
  s.seed = 5;
  s.record_path = (dir / "record.csv").string();
  s.identity = "# analytic";
  return s;
}

// The solver, counting its calls on this rank's group leader.
struct Analytic {
  int calls = 0;
  nn::io::Sample operator()(const std::vector<double>& x, int index) {
    ++calls;
    nn::io::Sample s;
    s.outputs = {x[0] + 2.0 * x[1], x[0] * x[1]};
    s.gradients = {1.0, 2.0, x[1], x[0]};
    s.converged = index != 3;
    s.iterations = 1;
    return s;
  }
};

int calls_over_groups(const Analytic& solver, const nn::io::SampleGroups& groups) {
  int mine = groups.leader() ? solver.calls : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, world());
  return all;
}

void expect_analytic_rows(const std::string& path, index_t rows) {
  const nn::io::DataSet d = nn::io::read_dataset(path, MPI_COMM_SELF);
  ASSERT_EQ(d.shard.global_rows, rows);
  const std::vector<double> x = d.shard.x.to_vector(), y = d.shard.y.to_vector(),
                            g = d.gradients.to_vector();
  for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
    const double a = x[2 * r], b = x[2 * r + 1];
    EXPECT_EQ(y[2 * r], a + 2.0 * b);
    EXPECT_EQ(y[2 * r + 1], a * b);
    EXPECT_EQ(g[4 * r + 2], b);
    EXPECT_EQ(g[4 * r + 3], a);
  }
}

TEST(SampleCampaign, EveryPointOnceByOneGroupAndTheUnconvergedLeftOut) {
  for (int rps : {1, 2}) {
    if (camber::test::size() % rps != 0) continue;
    const fs::path dir = camber::test::scratch_dir("nn_campaign", "once_" + std::to_string(rps));
    const nn::io::SampleGroups groups(world(), rps);
    nn::io::SampleCampaign campaign(settings(dir), groups);
    EXPECT_EQ(campaign.done_before(), 0);
    EXPECT_EQ(campaign.pending(), 9);
    Analytic solver;
    campaign.run(std::ref(solver));
    EXPECT_EQ(calls_over_groups(solver, groups), 9);
    const std::vector<std::vector<double>> lhs = nn::latin_hypercube(9, 5, settings(dir).ranges);
    EXPECT_EQ(campaign.design(), lhs);
    const int failed = campaign.write_dataset((dir / "set.h5").string(), "note");
    EXPECT_EQ(failed, 1);
    expect_analytic_rows((dir / "set.h5").string(), 8);
  }
}

TEST(SampleCampaign, ARecordCutShortIsContinued) {
  const fs::path dir = camber::test::scratch_dir("nn_campaign", "resume");
  const nn::io::SampleGroups groups(world(), 1);
  {
    nn::io::SampleCampaign first(settings(dir), groups);
    Analytic solver;
    first.run(std::ref(solver));
    first.write_dataset((dir / "whole.h5").string());
  }
  // Keep the header, the columns and four rows.
  if (camber::test::rank() == 0) {
    std::ifstream in(dir / "record.csv");
    std::string line, text;
    for (int k = 0; k < 6 && std::getline(in, line); ++k) text += line + "\n";
    in.close();
    camber::write_file_atomically(dir / "record.csv", text);
  }
  MPI_Barrier(world());
  nn::io::SampleCampaign again(settings(dir), groups);
  EXPECT_EQ(again.done_before(), 4);
  Analytic solver;
  again.run(std::ref(solver));
  EXPECT_EQ(calls_over_groups(solver, groups), 5);
  again.write_dataset((dir / "continued.h5").string());
  if (camber::test::rank() == 0) {
    const nn::io::DataSet a = nn::io::read_dataset((dir / "whole.h5").string(), MPI_COMM_SELF);
    const nn::io::DataSet b = nn::io::read_dataset((dir / "continued.h5").string(), MPI_COMM_SELF);
    EXPECT_EQ(a.shard.x.to_vector(), b.shard.x.to_vector());
    EXPECT_EQ(a.shard.y.to_vector(), b.shard.y.to_vector());
  }
}

void expect_bad_record(const fs::path& dir, const std::string& text, const std::string& piece) {
  if (camber::test::rank() == 0) camber::write_file_atomically(dir / "record.csv", text);
  MPI_Barrier(world());
  const nn::io::SampleGroups groups(world(), 1);
  try {
    nn::io::SampleCampaign campaign(settings(dir), groups);
    FAIL() << "accepted: " << text;
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(e.message().find(piece), std::string::npos) << e.message();
  }
}

TEST(SampleCampaign, AnotherDesignsOrAMalformedRecordIsBadInput) {
  const fs::path dir = camber::test::scratch_dir("nn_campaign", "bad");
  const std::string columns =
      "index,a,b,sum,product,dsum/da,dsum/db,dproduct/da,dproduct/db,converged,iterations\n";
  expect_bad_record(dir, "# another\n" + columns, "record.csv holds another design");
  expect_bad_record(dir, "# analytic\n" + columns + "0,0.5,1,2.5,0.5,1,2,1,0.5,1,x\n",
                    "record.csv:3: 'x' is not a number");
  expect_bad_record(dir, "# analytic\n" + columns + "0,0.5,1\n", "record.csv:3: 3 values");
  expect_bad_record(dir, "# analytic\n" + columns + "12,0.5,1,2.5,0.5,1,2,1,0.5,1,1\n",
                    "record.csv:3: index 12");
}

TEST(SampleCampaign, TheSettingsCheckTellsTheFirstFaultsMember) {
  const auto fault = [](const nn::io::SampleCampaignSettings& s, int n_ranks, const std::string& prefix) {
    std::string told;
    try {
      nn::io::validate_sample_campaign(
          s, n_ranks,
          [&](const std::string& member, const std::string& what) {
            told = member + ": " + what;
            camber::throw_bad_input(told);
          },
          prefix);
    } catch (const camber::Error& e) {
      EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    }
    return told;
  };
  nn::io::SampleCampaignSettings s;
  s.ranks_per_sample = 2;
  EXPECT_EQ(fault(s, 4, ""), "");
  EXPECT_EQ(fault(s, 3, ""), "ranks_per_sample: 3 ranks are not a multiple of 2");
  s.ranks_per_sample = 0;
  EXPECT_EQ(fault(s, 4, ""), "ranks_per_sample: 4 ranks are not a multiple of 0");
  s.ranks_per_sample = 1;
  s.active_rounds = 1;
  s.count = 1;
  EXPECT_EQ(fault(s, 3, "sample."),
            "active_rounds: active learning fits networks to the first samples; sample.count = 1 gives "
            "fewer than 2");
  s.count = 2;
  s.active_batch = 9;
  s.active_candidates = 8;
  EXPECT_EQ(fault(s, 3, ""), "active_batch: 9 samples per round exceed active_candidates = 8");
  s.active_rounds = 0;  // no active learning: its settings are not looked at
  EXPECT_EQ(fault(s, 3, ""), "");
  s.count = 0;
  EXPECT_EQ(fault(s, 3, ""), "count: 0 < 1");

  // SampleGroups makes the ranks' check on every rank (3 never divides 1, 2 or 4 ranks).
  try {
    nn::io::SampleGroups groups(world(), 3);
    FAIL() << "groups of 3 accepted on " << camber::test::size() << " ranks";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(e.message().find("ranks are not a multiple of 3"), std::string::npos) << e.message();
  }
}

TEST(SampleCampaign, AnActiveRoundAddsItsBatchAndIsPlacedAgainAlike) {
  const fs::path dir = camber::test::scratch_dir("nn_campaign", "active");
  nn::io::SampleCampaignSettings s = settings(dir);
  s.active_rounds = 1;
  s.active_batch = 2;
  s.active_candidates = 64;
  s.ensemble.members = 2;
  s.ensemble.hidden = {8};
  s.ensemble.epochs = 20;
  const nn::io::SampleGroups groups(world(), 1);
  std::vector<std::vector<double>> placed;
  {
    nn::io::SampleCampaign campaign(s, groups);
    Analytic solver;
    campaign.run(std::ref(solver));
    EXPECT_EQ(calls_over_groups(solver, groups), 11);
    placed = campaign.design();
    ASSERT_EQ(placed.size(), 11u);
    for (size_t k = 9; k < 11; ++k) {
      EXPECT_GE(placed[k][0], 0.0);
      EXPECT_LE(placed[k][0], 1.0);
      EXPECT_GE(placed[k][1], -2.0);
      EXPECT_LE(placed[k][1], 2.0);
    }
  }
  nn::io::SampleCampaign again(s, groups);
  EXPECT_EQ(again.done_before(), 9);
  Analytic solver;
  again.run(std::ref(solver));
  EXPECT_EQ(calls_over_groups(solver, groups), 0);
  EXPECT_EQ(again.design(), placed);
}

}  // namespace
