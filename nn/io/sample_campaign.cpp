#include "sample_campaign.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/core/runtime.hpp>
#include <camber/core/timer.hpp>
#include <camber/nn/sampling.hpp>

namespace camber::nn::io {

namespace fs = std::filesystem;

EnsembleOptions active_learning_ensemble() {
  EnsembleOptions o;
  o.members = 4;
  o.hidden = {32, 32};
  o.epochs = 300;
  o.batch_size = 16;
  o.gradient_weight = 1.0;
  return o;
}

namespace {

void throw_campaign_fault(const std::string& member, const std::string& what) {
  throw_bad_input("sample campaign: " + member + ": " + what);
}

}  // namespace

void validate_sample_campaign(const SampleCampaignSettings& s, int n_ranks,
                              const SampleCampaignReject& reject, const std::string& prefix) {
  if (s.ranks_per_sample < 1 || n_ranks % s.ranks_per_sample != 0)
    reject("ranks_per_sample", CAMBER_MSG(n_ranks << " ranks are not a multiple of " << s.ranks_per_sample));
  if (s.count < 1) reject("count", CAMBER_MSG(s.count << " < 1"));
  if (s.active_rounds == 0) return;
  if (s.count < 2)
    reject("active_rounds", CAMBER_MSG("active learning fits networks to the first samples; "
                                       << prefix << "count = " << s.count << " gives fewer than 2"));
  if (s.active_batch > s.active_candidates)
    reject("active_batch", CAMBER_MSG(s.active_batch << " samples per round exceed " << prefix
                                                     << "active_candidates = " << s.active_candidates));
}

SampleGroups::SampleGroups(MPI_Comm world, int ranks_per_sample)
    : world_(world), ranks_per_sample_(ranks_per_sample) {
  const int rank = comm_rank(world), size = comm_size(world);
  SampleCampaignSettings groups;
  groups.ranks_per_sample = ranks_per_sample;
  collective_guard(world, [&] { validate_sample_campaign(groups, size, throw_campaign_fault); });
  count_ = size / ranks_per_sample;
  index_ = rank / ranks_per_sample;
  CAMBER_CHECK_MPI(MPI_Comm_split(world, index_, rank, &group_));
  leader_ = comm_rank(group_) == 0;
}

SampleGroups::~SampleGroups() {
  if (group_ != MPI_COMM_NULL) MPI_Comm_free(&group_);
}

namespace {

// A sample as a flat record: index, outputs, gradients, converged,
// iterations (what travels between ranks).
std::vector<double> flatten(int index, const Sample& s, size_t width) {
  std::vector<double> r{static_cast<double>(index)};
  r.insert(r.end(), s.outputs.begin(), s.outputs.end());
  r.insert(r.end(), s.gradients.begin(), s.gradients.end());
  r.push_back(s.converged ? 1.0 : 0.0);
  r.push_back(s.iterations);
  r.resize(width, 0.0);
  return r;
}

Sample unflatten(const double* r, size_t n_out, size_t n_grad) {
  Sample s;
  s.outputs.assign(r + 1, r + 1 + n_out);
  s.gradients.assign(r + 1 + n_out, r + 1 + n_out + n_grad);
  s.converged = r[1 + n_out + n_grad] != 0.0;
  s.iterations = static_cast<int>(r[2 + n_out + n_grad]);
  return s;
}

}  // namespace

SampleCampaign::SampleCampaign(SampleCampaignSettings settings, const SampleGroups& groups)
    : settings_(std::move(settings)), groups_(groups) {
  const SampleCampaignSettings& s = settings_;
  const MPI_Comm comm = groups_.world();
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(s.ranges.size() == s.inputs.names.size() && !s.ranges.empty(),
                         s.ranges.size() << " ranges for " << s.inputs.names.size() << " inputs");
    CAMBER_INPUT_REQUIRE(!s.outputs.names.empty(), "a sample campaign needs outputs");
    // The groups given, whatever s.ranks_per_sample says.
    SampleCampaignSettings design = s;
    design.ranks_per_sample = groups_.ranks_per_sample();
    validate_sample_campaign(design, comm_size(comm), throw_campaign_fault);
    CAMBER_INPUT_REQUIRE(!s.record_path.empty(), "a sample campaign needs a record file");
  });
  design_ = latin_hypercube(s.count, s.seed, s.ranges);
  const size_t n_in = s.ranges.size(), n_out = s.outputs.names.size();
  const size_t n_grad = s.gradients ? n_in * n_out : 0, width = 3 + n_out + n_grad;
  // Rank 0 reads the record; every rank gets its rows.
  std::vector<double> flat;
  collective_guard(comm, [&] {
    if (comm_rank(comm) != 0) return;
    const fs::path folder = fs::path(s.record_path).parent_path();
    if (!folder.empty()) fs::create_directories(folder);
    std::ifstream in(s.record_path);
    if (!in) return;
    std::string line;
    std::getline(in, line);
    CAMBER_INPUT_REQUIRE(line == header(), s.record_path << " holds another design (\"" << line
                                                         << "\"); remove it or change the case name");
    std::getline(in, line);
    CAMBER_INPUT_REQUIRE(line == columns(), s.record_path << ":2: the columns are not this design's");
    const size_t fields = 1 + n_in + width - 1;
    for (int number = 3; std::getline(in, line); ++number) {
      std::vector<double> v;
      std::stringstream row(line);
      std::string item;
      while (std::getline(row, item, ',')) {
        char* end = nullptr;
        v.push_back(std::strtod(item.c_str(), &end));
        CAMBER_INPUT_REQUIRE(end != item.c_str() && *end == '\0',
                             s.record_path << ":" << number << ": '" << item << "' is not a number");
      }
      CAMBER_INPUT_REQUIRE(v.size() == fields, s.record_path << ":" << number << ": " << v.size()
                                                             << " values, expected " << fields);
      const double index = v[0];
      CAMBER_INPUT_REQUIRE(index >= 0 && index < total() && index == std::floor(index),
                           s.record_path << ":" << number << ": index " << index
                                         << " is not one of this design's 0.." << total() - 1);
      flat.push_back(index);
      flat.insert(flat.end(), v.begin() + 1, v.begin() + 1 + static_cast<std::ptrdiff_t>(n_in));
      flat.insert(flat.end(), v.begin() + 1 + static_cast<std::ptrdiff_t>(n_in), v.end());
    }
  });
  int count = static_cast<int>(flat.size());
  CAMBER_CHECK_MPI(MPI_Bcast(&count, 1, MPI_INT, 0, comm));
  flat.resize(static_cast<size_t>(count));
  CAMBER_CHECK_MPI(MPI_Bcast(flat.data(), count, MPI_DOUBLE, 0, comm));
  // Each row as read: index, inputs, then the record after its index.
  const size_t row = 1 + n_in + width - 1;
  for (size_t k = 0; k < flat.size(); k += row) {
    const int index = static_cast<int>(flat[k]);
    recorded_inputs_[index].assign(flat.begin() + static_cast<std::ptrdiff_t>(k + 1),
                                   flat.begin() + static_cast<std::ptrdiff_t>(k + 1 + n_in));
    std::vector<double> r{flat[k]};
    r.insert(r.end(), flat.begin() + static_cast<std::ptrdiff_t>(k + 1 + n_in),
             flat.begin() + static_cast<std::ptrdiff_t>(k + row));
    done_[index] = unflatten(r.data(), n_out, n_grad);
  }
  for (int i = 0; i < s.count; ++i) done_before_ += done_.count(i) > 0 ? 1 : 0;
}

std::string SampleCampaign::header() const {
  const SampleCampaignSettings& s = settings_;
  if (s.active_rounds == 0) return s.identity;
  return CAMBER_MSG(s.identity << ", then " << s.active_rounds << " active rounds of "
                               << s.active_batch << " from " << s.active_candidates
                               << " candidates");
}

std::string SampleCampaign::columns() const {
  const SampleCampaignSettings& s = settings_;
  std::string c = "index";
  for (const std::string& n : s.inputs.names) c += "," + n;
  for (const std::string& n : s.outputs.names) c += "," + n;
  if (s.gradients)
    for (const std::string& o : s.outputs.names)
      for (const std::string& i : s.inputs.names) c += ",d" + o + "/d" + i;
  return c + ",converged,iterations";
}

void SampleCampaign::write_record() const {
  std::ostringstream s;
  s << header() << "\n" << columns() << "\n";
  s.precision(17);
  for (const auto& [i, sample] : done_) {
    s << i;
    // An active round's samples read back before the round is placed
    // again: their inputs as read.
    for (double v : static_cast<size_t>(i) < design_.size() ? design_[static_cast<size_t>(i)]
                                                             : recorded_inputs_.at(i))
      s << ',' << v;
    for (double v : sample.outputs) s << ',' << v;
    for (double v : sample.gradients) s << ',' << v;
    s << ',' << (sample.converged ? 1 : 0) << ',' << sample.iterations << '\n';
  }
  write_file_atomically(settings_.record_path, s.str());
}

void SampleCampaign::solve(const std::vector<int>& queue, const SampleSolver& solver) {
  const SampleCampaignSettings& s = settings_;
  const MPI_Comm comm = groups_.world();
  const size_t n_in = s.ranges.size(), n_out = s.outputs.names.size();
  const size_t n_grad = s.gradients ? n_in * n_out : 0, width = 3 + n_out + n_grad;
  const int size = comm_size(comm), groups = groups_.count();
  for (size_t round = 0; round * static_cast<size_t>(groups) < queue.size(); ++round) {
    std::vector<double> mine(width, 0.0);
    mine[0] = -1;
    const size_t slot = round * static_cast<size_t>(groups) + static_cast<size_t>(groups_.index());
    if (slot < queue.size()) {
      const int i = queue[slot];
      Sample sample;
      try {
        sample = solver(design_[static_cast<size_t>(i)], i);
      } catch (const Error& e) {
        // A sample that did not converge or failed (every rank of the
        // group alike): recorded, left out of the data set.
        if (groups_.leader()) logging::warn(CAMBER_MSG("sample #" << i << ": " << e.what()));
        sample = Sample{};
        sample.outputs.assign(n_out, 0.0);
        sample.gradients.assign(n_grad, 0.0);
      }
      CAMBER_REQUIRE(sample.outputs.size() == n_out && sample.gradients.size() == n_grad,
                     "the sample solver returned " << sample.outputs.size() << " outputs and "
                                                   << sample.gradients.size()
                                                   << " derivatives, expected " << n_out << " and "
                                                   << n_grad);
      mine = flatten(i, sample, width);
    }
    // Every rank learns every group leader's result.
    if (!groups_.leader()) {
      std::fill(mine.begin(), mine.end(), 0.0);
      mine[0] = -1;
    }
    std::vector<double> all(width * static_cast<size_t>(size));
    CAMBER_CHECK_MPI(MPI_Allgather(mine.data(), static_cast<int>(width), MPI_DOUBLE, all.data(),
                                   static_cast<int>(width), MPI_DOUBLE, comm));
    for (int k = 0; k < size; ++k) {
      const double* r = all.data() + width * static_cast<size_t>(k);
      if (r[0] < 0) continue;
      const int i = static_cast<int>(r[0]);
      done_[i] = unflatten(r, n_out, n_grad);
      const std::vector<double>& x = design_[static_cast<size_t>(i)];
      std::ostringstream line;
      line << "sample " << done_.size() << "/" << total() << ": #" << i << std::setprecision(5);
      for (size_t c = 0; c < std::min<size_t>(n_in, 2); ++c)
        line << (c ? ", " : " ") << s.inputs.names[c] << " " << x[c];
      if (n_in > 2) line << " (+" << n_in - 2 << " inputs)";
      line << " ->";
      for (size_t o = 0; o < n_out; ++o)
        line << (o ? ", " : " ") << s.outputs.names[o] << " " << done_[i].outputs[o];
      line << (done_[i].converged ? "" : " (not converged)") << ", " << done_[i].iterations
           << " steps";
      logging::info(line.str());
    }
    if (comm_rank(comm) == 0) write_record();
  }
}

std::vector<std::vector<double>> SampleCampaign::active_batch(int first, int round) const {
  const SampleCampaignSettings& s = settings_;
  const index_t n_in = static_cast<index_t>(s.ranges.size());
  const index_t n_out = static_cast<index_t>(s.outputs.names.size());
  std::vector<double> x, y, g;
  for (const auto& [i, r] : done_) {
    if (i >= first || !r.converged) continue;
    const std::vector<double>& xi = design_[static_cast<size_t>(i)];
    x.insert(x.end(), xi.begin(), xi.end());
    y.insert(y.end(), r.outputs.begin(), r.outputs.end());
    if (s.gradients) g.insert(g.end(), r.gradients.begin(), r.gradients.end());
  }
  const index_t rows = static_cast<index_t>(y.size()) / n_out;
  CAMBER_INPUT_REQUIRE(rows >= 2, "active learning needs two converged samples to fit; it has " << rows);
  // Inputs scaled by their ranges, outputs by their spread.
  Normalization in_stats, out_stats;
  for (const auto& range : s.ranges) {
    in_stats.mean.push_back(0.5 * (range[0] + range[1]));
    in_stats.stddev.push_back(0.5 * (range[1] - range[0]));
  }
  for (index_t o = 0; o < n_out; ++o) {
    double mean = 0.0, var = 0.0;
    for (index_t r = 0; r < rows; ++r) mean += y[static_cast<size_t>(r * n_out + o)];
    mean /= static_cast<double>(rows);
    for (index_t r = 0; r < rows; ++r) {
      const double d = y[static_cast<size_t>(r * n_out + o)] - mean;
      var += d * d;
    }
    out_stats.mean.push_back(mean);
    out_stats.stddev.push_back(std::max(std::sqrt(var / static_cast<double>(rows)), 1e-12));
  }
  EnsembleOptions o = s.ensemble;
  if (!s.gradients) o.gradient_weight = 0.0;
  o.seed = s.seed + static_cast<std::uint64_t>(round);
  Ensemble ensemble(s.inputs, s.outputs, in_stats, out_stats, o, groups_.world());
  ensemble.fit(Tensor::from_host({rows, n_in}, x), Tensor::from_host({rows, n_out}, y),
               s.gradients ? Tensor::from_host({rows, n_out, n_in}, g) : Tensor());
  const int m = s.active_candidates;
  const std::vector<std::vector<double>> pool = latin_hypercube(m, o.seed, s.ranges);
  std::vector<double> flat;
  for (const auto& p : pool) flat.insert(flat.end(), p.begin(), p.end());
  std::vector<double> width;
  for (const auto& range : s.ranges) width.push_back(range[1] - range[0]);
  const std::vector<index_t> picks =
      most_disagreeing(ensemble, Tensor::from_host({m, n_in}, flat), s.active_batch, width,
                       out_stats.stddev, s.active_spacing);
  std::vector<std::vector<double>> out;
  for (index_t p : picks) out.push_back(pool[static_cast<size_t>(p)]);
  return out;
}

void SampleCampaign::run(const SampleSolver& solver) {
  const SampleCampaignSettings& s = settings_;
  const MPI_Comm comm = groups_.world();
  std::vector<int> pending;
  for (int i = 0; i < s.count; ++i)
    if (done_.count(i) == 0) pending.push_back(i);
  solve(pending, solver);
  // Active learning: each round fits an ensemble to the samples so far and
  // solves the batch where it disagrees most. A continued run recomputes
  // the rounds it finished from the same rows (read back exactly), so it
  // places them where the first run did; their inputs are checked.
  for (int r = 1; r <= s.active_rounds; ++r) {
    const int first = s.count + (r - 1) * s.active_batch;
    bool all_done = true;
    std::vector<int> next;
    {
      ScopedTimer t("active learning");
      const std::vector<std::vector<double>> picks = active_batch(first, r);
      for (int k = 0; k < s.active_batch; ++k) {
        design_.push_back(picks[static_cast<size_t>(k)]);
        all_done = all_done && done_.count(first + k) > 0;
        if (done_.count(first + k) == 0) next.push_back(first + k);
      }
    }
    collective_guard(comm, [&] {
      for (int k = 0; k < s.active_batch; ++k) {
        const auto it = recorded_inputs_.find(first + k);
        if (it == recorded_inputs_.end()) continue;
        double worst = 0.0;
        for (size_t c = 0; c < it->second.size(); ++c)
          worst = std::max(worst, std::abs(it->second[c] - design_[static_cast<size_t>(first + k)][c]) /
                                      (s.ranges[c][1] - s.ranges[c][0]));
        CAMBER_INPUT_REQUIRE(worst <= 1e-12, s.record_path
                                                 << ": sample #" << first + k << " of active round "
                                                 << r << " lies elsewhere than this run places it (by "
                                                 << worst << " of a range); remove the file to sample again");
      }
    });
    logging::info(CAMBER_MSG("active round " << r << "/" << s.active_rounds << ": "
                                             << s.active_batch
                                             << " samples where the ensemble disagrees most"
                                             << (all_done ? " (done before)" : "")));
    solve(next, solver);
  }
}

int SampleCampaign::write_dataset(const std::string& path, const std::string& note) const {
  const SampleCampaignSettings& s = settings_;
  const MPI_Comm comm = groups_.world();
  const index_t n_in = static_cast<index_t>(s.ranges.size());
  const index_t n_out = static_cast<index_t>(s.outputs.names.size());
  std::vector<double> x, y, g;
  int failed = 0;
  if (comm_rank(comm) == 0)
    for (const auto& [i, r] : done_) {
      if (!r.converged) {
        ++failed;
        continue;
      }
      const std::vector<double>& xi = design_[static_cast<size_t>(i)];
      x.insert(x.end(), xi.begin(), xi.end());
      y.insert(y.end(), r.outputs.begin(), r.outputs.end());
      if (s.gradients) g.insert(g.end(), r.gradients.begin(), r.gradients.end());
    }
  const index_t rows = static_cast<index_t>(y.size()) / n_out;
  CAMBER_CHECK_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, comm));
  nn::io::write_dataset(path, Tensor::from_host({rows, n_in}, x), Tensor::from_host({rows, n_out}, y),
                        s.inputs, s.outputs, comm, note,
                        s.gradients ? Tensor::from_host({rows, n_out, n_in}, g) : Tensor());
  return failed;
}

}  // namespace camber::nn::io
