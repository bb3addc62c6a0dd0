#include <camber/nn/ensemble.hpp>

#include <cmath>
#include <utility>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/nn/optim.hpp>
#include <camber/nn/schedule.hpp>
#include <camber/nn/trainer.hpp>
#include <camber/parallel/collectives.hpp>

namespace camber::nn {

struct Ensemble::Member {
  std::shared_ptr<Module> net;
  std::unique_ptr<Adam> adam;
  Rng shuffle{0};
  std::unique_ptr<Surrogate> surrogate;  // the current weights, for inference
};

namespace {

// Member k's seeds: far apart in the generator's input, the same on every
// rank.
std::uint64_t member_seed(std::uint64_t seed, int k, std::uint64_t stream) {
  return seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(k) * 0xBF58476D1CE4E5B9ULL +
         stream;
}

void check_stats(const Normalization& n, size_t columns, const char* what) {
  CAMBER_INPUT_REQUIRE(n.mean.size() == columns && n.stddev.size() == columns,
                       "Ensemble: the " << what << " normalisation has " << n.mean.size()
                                        << " means and " << n.stddev.size()
                                        << " deviations; expected " << columns);
  for (size_t k = 0; k < columns; ++k)
    CAMBER_INPUT_REQUIRE(std::isfinite(n.mean[k]) && std::isfinite(n.stddev[k]) && n.stddev[k] > 0.0,
                         "Ensemble: " << what << " column " << k << " has mean " << n.mean[k]
                                      << " and deviation " << n.stddev[k]
                                      << " (need finite values and a deviation > 0)");
}

}  // namespace

Ensemble::Ensemble(Columns inputs, Columns outputs, Normalization input_stats,
                   Normalization output_stats, EnsembleOptions options, MPI_Comm comm)
    : inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      input_stats_(std::move(input_stats)),
      output_stats_(std::move(output_stats)),
      o_(std::move(options)),
      comm_(comm) {
  CAMBER_INPUT_REQUIRE(o_.members >= 1, "Ensemble: members must be >= 1, not " << o_.members);
  CAMBER_INPUT_REQUIRE(o_.epochs >= 1, "Ensemble: epochs must be >= 1, not " << o_.epochs);
  CAMBER_INPUT_REQUIRE(o_.batch_size >= 0, "Ensemble: batch_size must be >= 0");
  CAMBER_INPUT_REQUIRE(o_.learning_rate > 0.0 && o_.min_learning_rate >= 0.0 &&
                           o_.min_learning_rate <= o_.learning_rate,
                       "Ensemble: need 0 <= min_learning_rate <= learning_rate, learning_rate > 0");
  CAMBER_INPUT_REQUIRE(o_.gradient_weight >= 0.0, "Ensemble: gradient_weight must be >= 0");
  CAMBER_INPUT_REQUIRE(!inputs_.names.empty() && !outputs_.names.empty(),
                       "Ensemble: needs at least one input and one output column");
  check_stats(input_stats_, inputs_.names.size(), "input");
  check_stats(output_stats_, outputs_.names.size(), "output");
  check_spec(spec());
  for (int k = 0; k < o_.members; ++k) {
    auto m = std::make_unique<Member>();
    Rng init(member_seed(o_.seed, k, 1));
    m->net = make_network(spec(), init);
    AdamOptions a;
    a.lr = o_.learning_rate;
    m->adam = std::make_unique<Adam>(m->net->parameters(), a);
    m->shuffle = Rng(member_seed(o_.seed, k, 2));
    m->surrogate = std::make_unique<Surrogate>(spec(), m->net->parameter_values(), inputs_,
                                               outputs_, input_stats_, output_stats_);
    members_.push_back(std::move(m));
  }
  losses_.assign(members_.size(), std::nan(""));
}

Ensemble::~Ensemble() = default;
Ensemble::Ensemble(Ensemble&&) noexcept = default;
Ensemble& Ensemble::operator=(Ensemble&&) noexcept = default;

NetworkSpec Ensemble::spec() const {
  NetworkSpec s;
  s.kind = o_.kind;
  s.in = static_cast<index_t>(inputs_.names.size());
  s.out = static_cast<index_t>(outputs_.names.size());
  s.hidden = o_.hidden;
  s.activation = o_.activation;
  s.dtype = DType::float64;
  return s;
}

void Ensemble::fit(const Tensor& x, const Tensor& y, const Tensor& dy) {
  const index_t n_in = static_cast<index_t>(inputs_.names.size());
  const index_t n_out = static_cast<index_t>(outputs_.names.size());
  CAMBER_REQUIRE(x.rank() == 2 && y.rank() == 2 && x.dim(0) == y.dim(0) && x.dim(1) == n_in &&
                     y.dim(1) == n_out && x.dim(0) >= 1,
                 "Ensemble::fit: x " << shape_string(x.shape()) << " and y " << shape_string(y.shape())
                                     << " must be {rows, " << n_in << "} and {rows, " << n_out << "}");
  const bool gradients = dy.rank() > 0;
  CAMBER_REQUIRE(!gradients || dy.shape() == (Shape{x.dim(0), n_out, n_in}),
                 "Ensemble::fit: dy " << shape_string(dy.shape()) << " must be {rows, " << n_out
                                      << ", " << n_in << "}");
  const index_t rows = x.dim(0);
  // The normalised shard, every row.
  Shard shard;
  shard.x = input_stats_.apply(x.to(DType::float64));
  shard.y = output_stats_.apply(y.to(DType::float64));
  shard.offset = 0;
  shard.global_rows = rows;
  if (gradients) shard.dy = normalize_gradients(dy, input_stats_, output_stats_);
  const int rank = comm_rank(comm_), size = comm_size(comm_);
  const index_t batch = o_.batch_size > 0 ? std::min(o_.batch_size, rows) : rows;
  const long steps_per_fit =
      static_cast<long>(o_.epochs) * static_cast<long>((rows + batch - 1) / batch);
  std::vector<double> losses(members_.size(), 0.0);
  std::string error;
  collective_guard(comm_, [&] {
    for (size_t k = 0; k < members_.size(); ++k) {
      if (static_cast<int>(k) % size != rank) continue;
      Member& m = *members_[k];
      TrainOptions t;
      t.epochs = o_.epochs;
      t.batch_size = batch;
      t.seed = m.shuffle.next_u64();
      t.gradient_weight = gradients ? o_.gradient_weight : 0.0;
      t.progress = false;
      t.restore_best = false;
      const long start = m.adam->steps();
      const Schedule cosine = cosine_lr(o_.learning_rate, steps_per_fit, o_.min_learning_rate);
      t.schedule = [cosine, start](long s) { return cosine(s - start); };
      Trainer trainer(*m.net, *m.adam, t, MPI_COMM_SELF);
      const TrainResult r = trainer.fit(shard);
      losses[k] = r.history.back().train_loss;
    }
  });
  // Every member's weights from its rank.
  for (size_t k = 0; k < members_.size(); ++k) {
    Member& m = *members_[k];
    const int owner = static_cast<int>(k) % size;
    std::vector<Tensor> values = m.net->parameter_values();
    std::vector<double> flat;
    for (const Tensor& v : values) {
      const std::vector<double> h = v.to_vector();
      flat.insert(flat.end(), h.begin(), h.end());
    }
    CAMBER_CHECK_MPI(MPI_Bcast(flat.data(), static_cast<int>(flat.size()), MPI_DOUBLE, owner, comm_));
    size_t at = 0;
    for (Tensor& v : values) {
      std::vector<double> h(flat.begin() + static_cast<std::ptrdiff_t>(at),
                            flat.begin() + static_cast<std::ptrdiff_t>(at + static_cast<size_t>(v.size())));
      at += static_cast<size_t>(v.size());
      v = Tensor::from_host(v.shape(), h);
    }
    if (owner != rank) m.net->load_parameter_values(values);
    m.surrogate = std::make_unique<Surrogate>(spec(), values, inputs_, outputs_, input_stats_,
                                              output_stats_);
  }
  CAMBER_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, losses.data(), static_cast<int>(losses.size()),
                                 MPI_DOUBLE, MPI_SUM, comm_));
  losses_ = losses;
  ++fits_;
}

const Surrogate& Ensemble::member(int k) const {
  CAMBER_REQUIRE(k >= 0 && k < size(), "Ensemble::member(" << k << ") of " << size());
  return *members_[static_cast<size_t>(k)]->surrogate;
}

Tensor Ensemble::predict(const Tensor& x) const {
  std::vector<double> sum;
  for (const auto& m : members_) {
    const std::vector<double> p = m->surrogate->predict(x, Surrogate::Gemm::eigen).to_vector();
    if (sum.empty()) sum.assign(p.size(), 0.0);
    for (size_t i = 0; i < p.size(); ++i) sum[i] += p[i];
  }
  for (double& v : sum) v /= static_cast<double>(members_.size());
  return Tensor::from_host({x.dim(0), static_cast<index_t>(outputs_.names.size())}, sum);
}

Tensor Ensemble::jacobian(const Tensor& x) const {
  std::vector<double> sum;
  Shape shape;
  for (const auto& m : members_) {
    const Tensor j = m->surrogate->jacobian(x);
    shape = j.shape();
    const std::vector<double> p = j.to_vector();
    if (sum.empty()) sum.assign(p.size(), 0.0);
    for (size_t i = 0; i < p.size(); ++i) sum[i] += p[i];
  }
  for (double& v : sum) v /= static_cast<double>(members_.size());
  return Tensor::from_host(shape, sum);
}

Tensor Ensemble::stddev(const Tensor& x) const {
  const index_t n_out = static_cast<index_t>(outputs_.names.size());
  std::vector<std::vector<double>> all;
  for (const auto& m : members_)
    all.push_back(m->surrogate->predict(x, Surrogate::Gemm::eigen).to_vector());
  std::vector<double> out(all.front().size(), 0.0);
  if (all.size() > 1)
    for (size_t i = 0; i < out.size(); ++i) {
      double mean = 0.0;
      for (const auto& p : all) mean += p[i];
      mean /= static_cast<double>(all.size());
      double s = 0.0;
      for (const auto& p : all) s += (p[i] - mean) * (p[i] - mean);
      out[i] = std::sqrt(s / static_cast<double>(all.size() - 1));
    }
  return Tensor::from_host({x.dim(0), n_out}, out);
}

std::vector<index_t> most_disagreeing(const Ensemble& ensemble, const Tensor& candidates, int count,
                                      const std::vector<double>& input_scale,
                                      const std::vector<double>& output_scale, double spacing) {
  const index_t rows = candidates.dim(0), n_in = candidates.dim(1);
  CAMBER_REQUIRE(candidates.rank() == 2 && static_cast<size_t>(n_in) == input_scale.size(),
                 "most_disagreeing: candidates " << shape_string(candidates.shape()) << " and "
                                                 << input_scale.size() << " input scales");
  CAMBER_REQUIRE(count >= 0 && count <= rows && spacing > 0.0,
                 "most_disagreeing: " << count << " of " << rows << " candidates, spacing " << spacing);
  const std::vector<double> sd = ensemble.stddev(candidates).to_vector();
  const std::vector<double> x = candidates.to(DType::float64).to_vector();
  const size_t n_out = output_scale.size();
  CAMBER_REQUIRE(sd.size() == static_cast<size_t>(rows) * n_out,
                 "most_disagreeing: " << n_out << " output scales for " << ensemble.size()
                                      << " members' outputs");
  std::vector<double> score(static_cast<size_t>(rows), 0.0), factor(static_cast<size_t>(rows), 1.0);
  for (size_t r = 0; r < static_cast<size_t>(rows); ++r)
    for (size_t o = 0; o < n_out; ++o) score[r] += sd[r * n_out + o] / output_scale[o];
  std::vector<index_t> chosen;
  std::vector<bool> taken(static_cast<size_t>(rows), false);
  for (int c = 0; c < count; ++c) {
    size_t best = 0;
    double best_value = -1.0;
    for (size_t r = 0; r < static_cast<size_t>(rows); ++r)
      if (!taken[r] && score[r] * factor[r] > best_value) best_value = score[r] * factor[r], best = r;
    taken[best] = true;
    chosen.push_back(static_cast<index_t>(best));
    for (size_t r = 0; r < static_cast<size_t>(rows); ++r) {
      double d2 = 0.0;
      for (size_t k = 0; k < static_cast<size_t>(n_in); ++k) {
        const double d = (x[r * static_cast<size_t>(n_in) + k] - x[best * static_cast<size_t>(n_in) + k]) /
                         input_scale[k];
        d2 += d * d;
      }
      factor[r] = std::min(factor[r], 1.0 - std::exp(-d2 / (spacing * spacing)));
    }
  }
  return chosen;
}

}  // namespace camber::nn
