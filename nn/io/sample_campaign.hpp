/// @file
/// camber::nn::io::SampleCampaign — a design of experiments solved by
/// groups of ranks at once, continued where an interrupted run stopped,
/// optionally refined by active learning, and written as a data set for
/// training: what `camber sample` does, for any solver.
///
/// The design is a Latin hypercube (nn::latin_hypercube) of `count` points
/// over the inputs' ranges. The ranks are split into groups of
/// `ranks_per_sample` (SampleGroups); each group solves one point at a time
/// with the caller's SampleSolver (collective over the group), and every
/// finished sample is recorded in a CSV file rewritten atomically after
/// each round of groups. A campaign on the same record continues with the
/// points it does not hold yet; a record of another design (its first
/// line, `identity`, differs) is refused. Active learning then adds
/// `active_rounds` rounds of `active_batch` points each, placed where an
/// ensemble of networks (`ensemble`) fitted to the converged samples so
/// far disagrees most among `active_candidates` Latin-hypercube candidates
/// (nn::most_disagreeing), kept `active_spacing` of the ranges apart; a
/// continued run recomputes finished rounds from the same rows and checks
/// that they land where the record says. Samples that did not converge
/// are recorded and left out of the data set.
///
/// @code
///   nn::io::SampleCampaignSettings s;
///   s.ranges = {{0.3, 0.6}, {-2.0, 4.0}};
///   s.inputs = {{"mach", "alpha_deg"}, {"", "deg"}};
///   s.outputs = {{"CL", "CD", "CM"}, {"", "", ""}};
///   s.record_path = "out/flows_samples.csv";
///   nn::io::SampleGroups groups(comm, s.ranks_per_sample);  // 1: each rank alone
///   // ... build the solver's mesh on groups.comm() ...
///   nn::io::SampleCampaign campaign(s, groups);
///   campaign.run([&](const std::vector<double>& x, int) { return solve_at(x); });
///   campaign.write_dataset("out/flows_samples.h5");
/// @endcode
///
/// Collective over the world communicator of the groups. Every rank holds
/// the whole record (small: one row per sample).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <camber/nn/ensemble.hpp>
#include <camber/nn/io/dataset.hpp>

namespace camber::nn::io {

/// The ensemble active learning fits: four networks of 32 x 32 (tanh),
/// 300 Adam epochs of batches of 16, gradients weighted 1 when sampled.
EnsembleOptions active_learning_ensemble();

struct SampleCampaignSettings {
  std::vector<std::array<double, 2>> ranges;  ///< [low, high] of each input
  Columns inputs, outputs;
  bool gradients = false;  ///< each sample carries d outputs / d inputs
  int count = 32;          ///< Latin-hypercube points
  std::uint64_t seed = 1;  ///< of the design; round r of active learning uses seed + r
  int active_rounds = 0;
  int active_batch = 4;
  int active_candidates = 2000;
  double active_spacing = 0.2;  ///< fraction of each range between the picks of a round
  EnsembleOptions ensemble = active_learning_ensemble();
  /// The record of finished samples (CSV); its folder is created.
  std::string record_path;
  /// What the samples depend on besides the design (the discretization, a
  /// mesh size): a line the record starts with. A record with another line
  /// is refused (bad_input), so two designs never mix.
  std::string identity;
  /// The ranks of each group to make for the campaign
  /// (SampleGroups(world, ranks_per_sample)); the campaign itself runs on
  /// the groups it is given.
  int ranks_per_sample = 1;
};

/// Told the member of SampleCampaignSettings and what is wrong; must throw.
using SampleCampaignReject = std::function<void(const std::string& member, const std::string& what)>;
/// Checks what SampleGroups and SampleCampaign need of the design's
/// settings on `n_ranks` ranks (not the solver's ranges, columns or
/// record): ranks_per_sample >= 1 dividing n_ranks; count >= 1; with
/// active learning, count >= 2 (the first fit) and active_batch <=
/// active_candidates. `prefix` goes before the members named in the
/// messages (a deck: the section and a dot). The first fault goes to
/// `reject`; the constructors make the same checks (bad_input).
void validate_sample_campaign(const SampleCampaignSettings& s, int n_ranks,
                              const SampleCampaignReject& reject, const std::string& prefix = "");

/// One solved sample: outputs (and, with gradients, the n_out x n_in
/// derivatives, row by output), whether it converged, its iterations.
struct Sample {
  std::vector<double> outputs;
  std::vector<double> gradients;
  bool converged = false;
  int iterations = 0;
};

/// Solves the sample at inputs `x` (index `index` of the design),
/// collectively over the group's communicator. An Error it throws marks
/// the sample as not converged (every rank of the group must throw alike).
using SampleSolver = std::function<Sample(const std::vector<double>& x, int index)>;

/// The ranks of `world` split into groups of `ranks_per_sample`
/// consecutive ranks. bad_input, on every rank, when the rank count is not
/// a multiple. Collective.
class SampleGroups {
 public:
  SampleGroups(MPI_Comm world, int ranks_per_sample);
  ~SampleGroups();
  SampleGroups(const SampleGroups&) = delete;
  SampleGroups& operator=(const SampleGroups&) = delete;

  MPI_Comm world() const { return world_; }
  MPI_Comm comm() const { return group_; }  ///< this rank's group
  int count() const { return count_; }
  int index() const { return index_; }     ///< this rank's group
  bool leader() const { return leader_; }  ///< rank 0 of its group
  int ranks_per_sample() const { return ranks_per_sample_; }

 private:
  MPI_Comm world_ = MPI_COMM_NULL, group_ = MPI_COMM_NULL;
  int count_ = 1, index_ = 0, ranks_per_sample_ = 1;
  bool leader_ = true;
};

class SampleCampaign {
 public:
  /// Places the design and reads the record (bad_input for another
  /// design's record or a malformed row, naming the file and line).
  /// Collective.
  SampleCampaign(SampleCampaignSettings settings, const SampleGroups& groups);

  /// Points of the first design already in the record, and still to solve.
  int done_before() const { return done_before_; }
  int pending() const { return settings_.count - done_before_; }
  /// Every point the campaign solves: count + active_rounds * active_batch.
  int total() const { return settings_.count + settings_.active_rounds * settings_.active_batch; }

  /// Solves the pending points, then the active-learning rounds. Collective.
  void run(const SampleSolver& solver);

  /// Writes the converged samples as a data set (rank 0 holds the rows),
  /// with `note` as its deck attribute; returns the samples left out (not
  /// converged). Collective.
  int write_dataset(const std::string& path, const std::string& note = "") const;

  /// The design's inputs, by index (active rounds' points appended).
  const std::vector<std::vector<double>>& design() const { return design_; }
  /// The record's rows by index: outputs, gradients, converged, iterations.
  const std::map<int, Sample>& samples() const { return done_; }

 private:
  void solve(const std::vector<int>& queue, const SampleSolver& solver);
  std::vector<std::vector<double>> active_batch(int first, int round) const;
  void write_record() const;
  std::string header() const;
  std::string columns() const;

  SampleCampaignSettings settings_;
  const SampleGroups& groups_;
  std::vector<std::vector<double>> design_;
  std::map<int, Sample> done_;
  std::map<int, std::vector<double>> recorded_inputs_;  ///< as read back
  int done_before_ = 0;
};

}  // namespace camber::nn::io
