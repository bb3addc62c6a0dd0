#include <camber/nn/trainer.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/nn/data_parallel.hpp>
#include <camber/nn/loss.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

namespace camber::nn {

Tensor row_range(const Tensor& t, index_t begin, index_t end) {
  std::vector<std::int64_t> idx;
  for (index_t i = begin; i < end; ++i) idx.push_back(i);
  return ad::index_select(ad::constant(t), 0,
                          Tensor::from_host_int64({static_cast<index_t>(idx.size())}, idx))
      .value();
}

namespace {

// Sum over the elements of the per-element loss.
ad::Var summed_loss(LossKind kind, double delta, const ad::Var& pred, const ad::Var& target) {
  switch (kind) {
    case LossKind::mse: return sum_squared_error(pred, target);
    case LossKind::l1: return ad::sum(ad::abs(pred - target));
    case LossKind::huber: {
      const ad::Var a = ad::abs(pred - target);
      const ad::Var m = a - ad::relu(a - delta);
      return ad::sum(0.5 * m * m + delta * (a - m));
    }
  }
  return sum_squared_error(pred, target);
}

}  // namespace

Shard shard_of(const Tensor& x, const Tensor& y, MPI_Comm comm) {
  CAMBER_REQUIRE(x.rank() == 2 && y.rank() == 2 && x.dim(0) == y.dim(0),
                 "shard_of: x and y must be {rows, features} with the same rows, got "
                     << shape_string(x.shape()) << " and " << shape_string(y.shape()));
  const RowRange r = local_rows(x.dim(0), comm);
  return {row_range(x, r.begin, r.end), row_range(y, r.begin, r.end), r.begin, x.dim(0), Tensor()};
}

LossKind loss_from_name(const std::string& name) {
  if (name == "mse") return LossKind::mse;
  if (name == "l1") return LossKind::l1;
  if (name == "huber") return LossKind::huber;
  CAMBER_INPUT_REQUIRE(false, "unknown loss '" << name << "' (mse, l1, huber)");
  return LossKind::mse;
}

Trainer::Trainer(Module& model, Optimizer& optimizer, TrainOptions options, MPI_Comm comm)
    : model_(model), opt_(optimizer), o_(std::move(options)), comm_(comm), rng_(o_.seed) {
  CAMBER_INPUT_REQUIRE(o_.epochs >= 0, "training: epochs must be >= 0, got " << o_.epochs);
  CAMBER_INPUT_REQUIRE(o_.batch_size > 0, "training: batch_size must be > 0, got " << o_.batch_size);
  CAMBER_INPUT_REQUIRE(o_.validation_fraction >= 0.0 && o_.validation_fraction < 1.0,
                       "training: validation_fraction must be in [0, 1), got "
                           << o_.validation_fraction);
  CAMBER_INPUT_REQUIRE(o_.patience >= 0 && o_.min_delta >= 0.0 && o_.clip_norm >= 0.0 &&
                           o_.gradient_weight >= 0.0,
                       "training: patience, min_delta, clip_norm and gradient_weight must be >= 0");
  const ad::Vars p = model_.parameters(), q = opt_.params();
  bool same = p.size() == q.size();
  for (size_t k = 0; same && k < p.size(); ++k) same = p[k].id() == q[k].id();
  CAMBER_REQUIRE(same, "Trainer: the optimizer does not hold the model's parameters");
}

void Trainer::resume(std::vector<EpochRecord> history, const std::string& rng_state) {
  history_ = std::move(history);
  rng_.set_state(rng_state);
  best_weights_.clear();
}

double Trainer::evaluate(const Tensor& x, const Tensor& y, index_t global_count,
                         index_t n_out) const {
  double local = 0.0;
  if (x.dim(0) > 0) {
    ad::NoGradGuard no_grad;
    local = summed_loss(o_.loss, o_.huber_delta, model_.forward(ad::constant(x)), ad::constant(y))
                .item();
  }
  return par::allreduce_sum(local, comm_) / static_cast<double>(global_count * n_out);
}

TrainResult Trainer::fit(const Shard& data) {
  using clock = std::chrono::steady_clock;
  const auto t_start = clock::now();
  const index_t n = data.global_rows, rows = data.x.dim(0);
  CAMBER_REQUIRE(data.x.rank() == 2 && data.y.rank() == 2 && data.y.dim(0) == rows &&
                     data.offset >= 0 && data.offset + rows <= n,
                 "Trainer::fit: the shard's x " << shape_string(data.x.shape()) << ", y "
                                                << shape_string(data.y.shape()) << " at offset "
                                                << data.offset << " of " << n << " rows");
  const index_t n_out = data.y.dim(1), n_in = data.x.dim(1);
  const bool sobolev = o_.gradient_weight > 0.0;
  CAMBER_INPUT_REQUIRE(!sobolev || data.dy.shape() == (Shape{rows, n_out, n_in}),
                       "training: gradient_weight " << o_.gradient_weight
                                                    << " needs the data's gradients {rows, "
                                                    << n_out << ", " << n_in << "}, got "
                                                    << (data.dy.rank() == 0 ? std::string("none")
                                                                            : shape_string(data.dy.shape())));
  const index_t n_val = static_cast<index_t>(std::floor(o_.validation_fraction * static_cast<double>(n)));
  const index_t n_train = n - n_val;
  CAMBER_INPUT_REQUIRE(n_train > 0, "training: no training rows (" << n << " rows, validation_fraction "
                                                                   << o_.validation_fraction << ")");
  // This rank's validation rows: global [n_train, n) within its shard.
  const index_t v0 = std::max(n_train, data.offset) - data.offset;
  const index_t v1 = std::max(n_train, data.offset + rows) - data.offset;
  const Tensor xv = row_range(data.x, std::min(v0, rows), std::min(v1, rows));
  const Tensor yv = row_range(data.y, std::min(v0, rows), std::min(v1, rows));

  const ad::Vars params = model_.parameters();
  TrainResult result;
  double best = std::numeric_limits<double>::infinity();
  int best_epoch = 0, since_best = 0;
  for (const EpochRecord& r : history_) {  // resumed: rebuild the early-stopping state
    if (n_val > 0 && r.val_loss < best - o_.min_delta) {
      best = r.val_loss;
      best_epoch = r.epoch;
      since_best = 0;
    } else {
      ++since_best;
    }
  }
  std::vector<index_t> perm(static_cast<size_t>(n_train));
  for (int epoch = this->epoch() + 1; epoch <= o_.epochs; ++epoch) {
    const auto t0 = clock::now();
    for (index_t i = 0; i < n_train; ++i) perm[static_cast<size_t>(i)] = i;
    for (index_t i = n_train - 1; i > 0; --i)  // Fisher-Yates
      std::swap(perm[static_cast<size_t>(i)],
                perm[static_cast<size_t>(rng_.below(static_cast<std::uint64_t>(i + 1)))]);
    double epoch_sum = 0.0;
    for (index_t b0 = 0; b0 < n_train; b0 += o_.batch_size) {
      const index_t b1 = std::min(n_train, b0 + o_.batch_size);
      std::vector<std::int64_t> mine;
      for (index_t k = b0; k < b1; ++k) {
        const index_t g = perm[static_cast<size_t>(k)];
        if (g >= data.offset && g < data.offset + rows) mine.push_back(g - data.offset);
      }
      const double scale = 1.0 / static_cast<double>((b1 - b0) * n_out);
      std::vector<Tensor> grads;
      double local = 0.0;
      if (!mine.empty()) {
        const Tensor idx = Tensor::from_host_int64({static_cast<index_t>(mine.size())}, mine);
        // With the Jacobian term the inputs are a leaf whose gradient the
        // loss takes (and then differentiates in the weights).
        const ad::Var xs = ad::index_select(ad::constant(data.x), 0, idx);
        const ad::Var xb = sobolev ? ad::variable(xs.value()) : xs;
        const ad::Var yb = ad::index_select(ad::constant(data.y), 0, idx);
        const ad::Var pred = model_.forward(xb);
        ad::Var loss = summed_loss(o_.loss, o_.huber_delta, pred, yb) * scale;
        if (sobolev)
          loss = loss + sum_squared_jacobian_error(pred, xb, ad::index_select(ad::constant(data.dy), 0, idx).value()) *
                            (o_.gradient_weight * scale / static_cast<double>(n_in));
        grads = values(ad::grad(loss, params));
        local = loss.item();
      } else {
        for (const ad::Var& p : params) grads.push_back(Tensor::zeros(p.shape(), p.dtype()));
      }
      allreduce_sum(grads, comm_);
      const double batch_loss = par::allreduce_sum(local, comm_);
      CAMBER_REQUIRE(std::isfinite(batch_loss), "training: the loss is " << batch_loss << " at epoch "
                                                                         << epoch << ", rows " << b0
                                                                         << " to " << b1 - 1);
      epoch_sum += batch_loss * static_cast<double>(b1 - b0);
      if (o_.clip_norm > 0.0) clip_grad_norm(grads, o_.clip_norm);
      if (o_.schedule) opt_.set_lr(o_.schedule(opt_.steps()));
      opt_.step(grads);
    }
    EpochRecord rec;
    rec.epoch = epoch;
    rec.train_loss = epoch_sum / static_cast<double>(n_train);
    if (n_val > 0) rec.val_loss = evaluate(xv, yv, n_val, n_out);
    rec.lr = opt_.lr();
    rec.seconds = std::chrono::duration<double>(clock::now() - t0).count();
    // The slowest rank's time: the epoch ends for all of them with it.
    rec.seconds = par::allreduce_max(rec.seconds, comm_);
    rec.samples_per_s = static_cast<double>(n_train) / std::max(rec.seconds, 1e-12);
    history_.push_back(rec);
    if (o_.progress) {
      char line[256];
      std::snprintf(line, sizeof line, "epoch %d/%d  loss %.6e%s  lr %.3e  %.0f samples/s", epoch,
                    o_.epochs, rec.train_loss,
                    n_val > 0 ? CAMBER_MSG("  val " << std::scientific << rec.val_loss).c_str() : "",
                    rec.lr, rec.samples_per_s);
      logging::info(line);
    }
    if (!o_.csv.empty() && comm_rank(comm_) == 0) {
      std::ofstream csv(o_.csv);
      CAMBER_INPUT_REQUIRE(csv.good(), "training: cannot write the loss curve to '" << o_.csv << "'");
      csv << "epoch,train_loss,val_loss,lr,samples_per_s,seconds\n";
      csv.precision(17);
      for (const EpochRecord& r : history_)
        csv << r.epoch << ',' << r.train_loss << ',' << r.val_loss << ',' << r.lr << ','
            << r.samples_per_s << ',' << r.seconds << '\n';
    }
    if (hook_) hook_(rec);
    if (n_val > 0) {
      if (rec.val_loss < best - o_.min_delta) {
        best = rec.val_loss;
        best_epoch = epoch;
        since_best = 0;
        if (o_.restore_best && o_.patience > 0) {
          best_weights_.clear();
          for (const Tensor& p : model_.parameter_values()) best_weights_.push_back(p.clone());
        }
      } else if (o_.patience > 0 && ++since_best >= o_.patience) {
        result.stopped_early = true;
        break;
      }
    }
  }
  if (result.stopped_early && o_.restore_best && !best_weights_.empty())
    model_.load_parameter_values(best_weights_);
  result.history = history_;
  result.best_epoch = best_epoch;
  const double total = std::chrono::duration<double>(clock::now() - t_start).count();
  std::ostringstream s;
  s << "trained " << epoch() << " epochs"
    << (result.stopped_early ? " (stopped early: no improvement in " + std::to_string(o_.patience) + " epochs)" : "");
  if (!history_.empty()) {
    s << ", final loss " << std::scientific << history_.back().train_loss;
    if (n_val > 0) s << ", best validation loss " << best << " at epoch " << best_epoch;
  }
  s << std::defaultfloat << ", " << total << " s";
  result.summary = s.str();
  if (o_.progress) logging::info(result.summary);
  return result;
}

}  // namespace camber::nn
