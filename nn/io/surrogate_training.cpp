#include "surrogate_training.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <memory>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/core/runtime.hpp>
#include <camber/core/timer.hpp>
#include <camber/io/gnuplot.hpp>
#include <camber/nn/init.hpp>
#include <camber/nn/io/checkpoint.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/evaluation.hpp>
#include <camber/nn/optim.hpp>
#include <camber/nn/schedule.hpp>
#include <camber/nn/surrogate.hpp>
#include <camber/nn/tensor_parallel.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/shard/planner.hpp>

namespace camber::nn::io {

namespace fs = std::filesystem;

TrainOptions surrogate_train_options() {
  TrainOptions o;
  o.epochs = 200;
  o.batch_size = 32;
  o.validation_fraction = 0.2;
  return o;
}

namespace {

NetworkSpec network_spec(const SurrogateTraining& s, index_t in, index_t out) {
  NetworkSpec spec;
  spec.kind = s.kind;
  spec.in = in;
  spec.out = out;
  spec.activation = s.activation;
  spec.dtype = s.dtype;
  spec.hidden = s.hidden;
  if (spec.kind == "residual_mlp" && !s.hidden.empty()) spec.hidden.assign(s.hidden.size(), s.hidden[0]);
  return spec;
}

std::unique_ptr<Optimizer> make_optimizer(const SurrogateTraining& s, const ad::Vars& params) {
  if (s.optimizer == "sgd")
    return std::make_unique<Sgd>(params, SgdOptions{s.learning_rate, s.momentum, s.weight_decay});
  AdamOptions o;
  o.lr = s.learning_rate;
  o.weight_decay = s.weight_decay;
  if (s.optimizer == "adamw") return std::make_unique<AdamW>(params, o);
  CAMBER_INPUT_REQUIRE(s.optimizer == "adam",
                       "unknown optimizer '" << s.optimizer << "'; valid: adam, adamw, sgd");
  return std::make_unique<Adam>(params, o);
}

Schedule make_schedule(const SurrogateTraining& s, long steps_per_epoch) {
  const long total = steps_per_epoch * s.train.epochs;
  Schedule schedule;
  if (s.schedule == "cosine") {
    schedule = cosine_lr(s.learning_rate, total, s.min_learning_rate);
  } else if (s.schedule == "step") {
    schedule = step_lr(s.learning_rate, steps_per_epoch * s.step_epochs, s.gamma);
  } else {
    CAMBER_INPUT_REQUIRE(s.schedule == "constant",
                         "unknown schedule '" << s.schedule << "'; valid: constant, cosine, step");
    schedule = constant_lr(s.learning_rate);
  }
  return s.warmup_steps > 0 ? warmup(schedule, s.warmup_steps) : schedule;
}

// How the ranks share the training: a {data: d, model: m} grid. "model"
// splits an mlp's layers over m ranks (TensorParallelMlp); "auto" asks the
// planner. Collective.
struct Layout {
  int data = 1, model = 1;
  shard::MeshPtr grid, model_axis;
  MPI_Comm data_comm = MPI_COMM_NULL;
};

bool splittable(const SurrogateTraining& s) {
  return s.kind == "mlp" && s.dtype == DType::float64 && s.train.clip_norm == 0.0;
}

Layout layout_of(const SurrogateTraining& s, MPI_Comm world, index_t n_in, index_t n_out) {
  const int n = comm_size(world);
  Layout l;
  l.data = n;
  if (s.parallel == "model") {
    const int m = s.model_ranks == 0 ? n : s.model_ranks;
    l.model = m;
    l.data = n / m;
  } else if (s.parallel == "auto") {
    if (!splittable(s)) {
      logging::info("parallel: auto: only an mlp in float64 without clip_norm can be split; data parallel");
    } else {
      shard::MlpShape net;
      net.widths.push_back(n_in);
      for (index_t w : s.hidden) net.widths.push_back(w);
      net.widths.push_back(n_out);
      net.batch = s.train.batch_size;  // the global batch; the planner splits it
      const shard::Calibration c = shard::calibrate(world);
      const auto limit = static_cast<std::int64_t>(s.memory_limit_mib * 1048576.0);
      shard::PlanEstimate best;
      collective_guard(world, [&] {
        for (const shard::PlanEstimate& e : shard::estimate_plans(net, n, c, limit))
          logging::info(CAMBER_MSG("parallel: plan " << e.plan.name() << ": predicted " << std::scientific
                                                     << std::setprecision(3) << e.step_seconds() << " s per step, "
                                                     << std::fixed << std::setprecision(2)
                                                     << static_cast<double>(e.memory_bytes) / 1048576.0 << " MiB per rank"
                                                     << (e.fits ? "" : " (over the limit)")));
        best = shard::choose_plan(net, n, c, limit);
      });
      l.data = best.plan.data;
      l.model = best.plan.model;
    }
  }
  l.grid = shard::DeviceMesh::create(world, {{"data", l.data}, {"model", l.model}});
  l.data_comm = l.grid->axis_comm(0);
  l.model_axis = shard::DeviceMesh::create(l.grid->axis_comm(1), {{"model", l.model}});
  logging::info(CAMBER_MSG("parallel: data " << l.data << " x model " << l.model
                                             << (s.parallel == "auto" ? " (chosen by the planner)" : "")));
  return l;
}

std::string columns_text(const Columns& c) {
  std::ostringstream out;
  for (size_t k = 0; k < c.names.size(); ++k)
    out << (k ? ", " : "") << c.names[k] << (c.units[k].empty() ? "" : " [" + c.units[k] + "]");
  return out.str();
}

// Per input, the smallest and largest value of the data set's rows (each
// rank holds a block of them). Collective.
void input_range(const DataSet& d, MPI_Comm comm, ModelCard* card) {
  const index_t rows = d.shard.x.dim(0), n_in = d.shard.x.dim(1);
  const std::vector<double> x = d.shard.x.to_vector();
  card->input_min.clear();
  card->input_max.clear();
  for (index_t k = 0; k < n_in; ++k) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (index_t i = 0; i < rows; ++i) {
      lo = std::min(lo, x[static_cast<size_t>(i * n_in + k)]);
      hi = std::max(hi, x[static_cast<size_t>(i * n_in + k)]);
    }
    card->input_min.push_back(par::allreduce_min(lo, comm));
    card->input_max.push_back(par::allreduce_max(hi, comm));
  }
}

}  // namespace

void validate_surrogate_training(const std::string& file, const SurrogateTraining& s, int n_ranks,
                                 bool restart, const SurrogateTrainingReject& reject) {
  const bool model = s.parallel == "model";
  if (!model && s.parallel != "data" && s.parallel != "auto")
    reject("parallel", "'" + s.parallel + "' is not data, model or auto");
  const int m = s.model_ranks;
  if (model && (m < 0 || (m > 0 && (m > n_ranks || n_ranks % m != 0))))
    reject("model_ranks", CAMBER_MSG(m << " does not divide the " << n_ranks << " ranks"));
  if (model && !splittable(s)) reject("parallel", "parallel: model splits an mlp in float64 without clip_norm");
  if (model && restart)
    reject("parallel", "a restart is not available with model-parallel training (its checkpoints are not "
                       "written); use parallel: data");
  if (!fs::exists(file)) reject("data_file", "cannot find '" + file + "' (relative to the working directory)");
  const DataSetInfo info = dataset_info(file);
  if (s.train.gradient_weight > 0.0 && !info.gradients)
    reject("train.gradient_weight", "the data set '" + file + "' holds no gradients (camber sample writes "
                                    "them with sample.gradients or sample.shape)");
  if (s.train.gradient_weight > 0.0 && model)
    reject("train.gradient_weight", "gradient-enhanced training is data parallel only (parallel: data)");
  if (info.rows - static_cast<index_t>(std::floor(s.train.validation_fraction * info.rows)) < 1)
    reject("train.validation_fraction", CAMBER_MSG("leaves no training rows of the " << info.rows));
}

SurrogateTrainingResult train_surrogate(const std::string& file, const SurrogateTraining& s,
                                        MPI_Comm comm, bool restart) {
  const int ranks = comm_size(comm);
  collective_guard(comm, [&] {
    validate_surrogate_training(file, s, ranks, restart,
                                [](const std::string& member, const std::string& what) {
                                  throw_bad_input("surrogate training: " + member + ": " + what);
                                });
  });
  DataSet data;
  {
    ScopedTimer t("data");
    data = read_dataset(file, comm);
  }
  const index_t n_in = data.shard.x.dim(1), n_out = data.shard.y.dim(1);
  ModelCard card = s.card;  // the training range now: `data` holds every row once over `comm`
  input_range(data, comm, &card);
  const Layout layout = layout_of(s, comm, n_in, n_out);
  collective_guard(comm, [&] {
    // What parallel: model is refused above, when auto chose it.
    CAMBER_INPUT_REQUIRE(layout.model == 1 || (!restart && s.train.gradient_weight == 0.0),
                         "parallel: auto chose model-parallel training, which neither restarts nor "
                         "trains on gradients; use parallel: data");
  });
  if (layout.model > 1) {
    ScopedTimer t("data");
    data = read_dataset(file, layout.data_comm);  // the rows of this rank's data group
  }
  const MPI_Comm data_comm = layout.data_comm;
  Shard shard = data.normalized();
  shard.x = shard.x.to(s.dtype);
  shard.y = shard.y.to(s.dtype);
  if (s.train.gradient_weight > 0.0) shard.dy = shard.dy.to(s.dtype);
  Rng rng(s.network_seed);
  const NetworkSpec spec = network_spec(s, n_in, n_out);
  const std::shared_ptr<Module> net = make_network(spec, rng, init_from_name(s.init));
  std::shared_ptr<TensorParallelMlp> split;
  if (layout.model > 1) split = std::make_shared<TensorParallelMlp>(spec, *net, layout.model_axis);
  Module& trained = split ? static_cast<Module&>(*split) : *net;
  const std::unique_ptr<Optimizer> opt = make_optimizer(s, trained.parameters());

  SurrogateTrainingResult result;
  result.rows = data.shard.global_rows;
  result.validation_rows = static_cast<index_t>(std::floor(s.train.validation_fraction * result.rows));
  result.training_rows = result.rows - result.validation_rows;
  result.data_ranks = layout.data;
  result.model_ranks = layout.model;
  TrainOptions o = s.train;
  o.schedule = make_schedule(s, (result.training_rows + o.batch_size - 1) / o.batch_size);
  if (comm_rank(comm) == 0) fs::create_directories(s.dir);
  CAMBER_CHECK_MPI(MPI_Barrier(comm));
  result.loss_csv = s.dir + "/" + s.name + "_loss.csv";
  o.csv = layout.grid->coordinate(1) == 0 ? result.loss_csv : "";  // one writer: the first model group's
  result.checkpoint = s.dir + "/" + s.name + "_checkpoint.h5";

  logging::info(CAMBER_MSG("surrogate: " << file << ", " << result.rows << " rows ("
                                         << result.training_rows << " training, "
                                         << result.validation_rows << " validation), "
                                         << columns_text(data.inputs) << " -> "
                                         << columns_text(data.outputs)));
  logging::info(CAMBER_MSG("network: " << net->describe() << ", " << net->num_parameters()
                                       << " parameters, " << dtype_name(s.dtype) << ", " << s.optimizer
                                       << " on " << ranks << (ranks == 1 ? " rank" : " ranks")));

  Trainer trainer(trained, *opt, o, data_comm);
  if (restart) {
    collective_guard(comm, [&] {
      CAMBER_INPUT_REQUIRE(fs::exists(result.checkpoint), "restart: no checkpoint at " << result.checkpoint);
    });
    load_checkpoint(result.checkpoint, *net, *opt, trainer, comm);
    logging::info(CAMBER_MSG("restart from " << result.checkpoint << " after epoch " << trainer.epoch()));
  }
  if (!split)
    trainer.on_epoch([&](const EpochRecord&) {
      ScopedTimer t("checkpoint");
      save_checkpoint(result.checkpoint, *net, *opt, trainer, comm);
    });
  {
    ScopedTimer t("train");
    trainer.fit(shard);
  }
  if (split) {
    net->load_parameter_values(split->whole_parameters());  // the whole weights, on every rank
  } else {
    // The final weights (the best epoch's with early stopping) as the checkpoint.
    save_checkpoint(result.checkpoint, *net, *opt, trainer, comm);
  }
  result.epochs = trainer.epoch();

  // Validation errors per output, in the data's units (the rows after the
  // training rows; every model group holds them all) and, with gradients
  // in the set, of the network's input Jacobian.
  const Surrogate surrogate(spec, net->parameter_values(), data.inputs, data.outputs,
                            data.input_stats, data.output_stats);
  if (result.validation_rows > 0) {
    result.validation_rmse = output_rmse(surrogate, data, result.training_rows, result.rows, data_comm);
    for (index_t j = 0; j < n_out; ++j) {
      const size_t k = static_cast<size_t>(j);
      const std::string& unit = data.outputs.units[k];
      logging::info(CAMBER_MSG("validation " << data.outputs.names[k] << ": RMSE " << std::scientific
                                             << std::setprecision(3) << result.validation_rmse[k]
                                             << (unit.empty() ? "" : " " + unit) << " ("
                                             << result.validation_rmse[k] / data.output_stats.stddev[k]
                                             << " of the output's standard deviation)"));
    }
    if (data.gradients.rank() == 3) {
      result.jacobian_error =
          jacobian_relative_error(surrogate, data, result.training_rows, result.rows, data_comm);
      for (index_t j = 0; j < n_out; ++j)
        logging::info(CAMBER_MSG("validation d" << data.outputs.names[static_cast<size_t>(j)]
                                                << "/d(inputs): relative error " << std::scientific
                                                << std::setprecision(3)
                                                << result.jacobian_error[static_cast<size_t>(j)]
                                                << " (the network's input Jacobian against the data "
                                                   "set's gradients, Frobenius norm over "
                                                << result.validation_rows << " rows)"));
    }
  }
  // The trained network with its model card.
  result.model_path = s.dir + "/" + s.name + "_model.h5";
  card.data_path = file;
  card.data_rows = result.rows;
  card.epochs = trainer.epoch();
  card.validation_rows = result.validation_rows;
  card.validation_rmse = result.validation_rmse;
  collective_guard(comm, [&] {
    if (comm_rank(comm) != 0) return;
    card.data_sha256 = sha256_file(file);
    save_model(result.model_path, surrogate, card);
  });
  // The loss curve as a PNG (gnuplot), beside the CSV.
  bool png = false;
  collective_guard(comm, [&] {
    if (comm_rank(comm) != 0) return;
    std::ostringstream gp;
    gp << "set terminal pngcairo size 900,600 noenhanced\n"
       << "set datafile separator ','\nset key autotitle columnhead\nset grid\n"
       << "set output '" << s.dir << "/" << s.name << "_loss.png'\n"
       << "set title 'Training: " << s.name << "'\n"
       << "set xlabel 'epoch'\nset ylabel 'loss (normalised outputs)'\nset logscale y\n"
       << "set format y '%.0e'\n"
       << "plot '" << result.loss_csv << "' using 1:2 with lines lw 2 title 'training'"
       << (result.validation_rows > 0 ? ", '' using 1:3 with lines lw 2 title 'validation'" : "") << "\n";
    png = camber::io::run_gnuplot(s.dir + "/" + s.name + "_loss.gp", gp.str());
  });
  logging::info("wrote " + result.loss_csv +
                (png ? ", " + s.dir + "/" + s.name + "_loss.png" : std::string()) +
                (split ? std::string() : ", " + result.checkpoint) + " and " + result.model_path);
  return result;
}

}  // namespace camber::nn::io
