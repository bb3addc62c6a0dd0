/// @file
/// camber::nn::io::train_surrogate — a network fitted to a data set file,
/// data or model parallel over the ranks, checkpointed every epoch,
/// validated on held-out rows and saved as a model file with its card:
/// what `camber train` does, as one call from a settings struct.
///
/// The inputs and outputs are normalised by the set's statistics. The
/// last validation_fraction of the rows are held out: their RMSE per
/// output (and, when the set holds gradients, the relative error of the
/// network's input Jacobian) is logged and stored in the model card, with
/// each input's range over the set's rows (what a server and `camber
/// infer` accept, under the card's extrapolation policy). The
/// ranks split the rows (parallel "data"), or an mlp's layers over
/// model_ranks ranks and the rows over the rest ("model",
/// nn::TensorParallelMlp), or "auto": the planner (shard/planner.hpp)
/// chooses under memory_limit_mib per rank. Outputs in `dir`:
/// `<name>_loss.csv` and its plot `_loss.png`, the checkpoint
/// `<name>_checkpoint.h5` (data parallel; `restart` continues from it) and
/// the model `<name>_model.h5`.
///
/// @code
///   nn::io::SurrogateTraining t;   // mlp 64 x 64 tanh, Adam 1e-3 cosine, 200 epochs
///   t.name = "flows"; t.dir = "out";
///   t.train.epochs = 500;
///   const nn::io::SurrogateTrainingResult r = nn::io::train_surrogate("flows.h5", t, comm);
///   // r.model_path, r.validation_rmse
/// @endcode
///
/// Collective. bad_input (on every rank) for settings that do not fit the
/// data or the ranks: gradient_weight > 0 on a set without gradients or
/// with model parallelism, no training rows left, model_ranks not dividing
/// the rank count, a restart without a checkpoint or with model
/// parallelism.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <camber/nn/io/model_file.hpp>
#include <camber/nn/layers.hpp>
#include <camber/nn/trainer.hpp>

namespace camber::nn::io {

/// Mini-batch training of a surrogate: 200 epochs of 32 rows, the last 20%
/// of the rows held out.
TrainOptions surrogate_train_options();

struct SurrogateTraining {
  // The network (NetworkSpec; inputs and outputs from the data set).
  std::string kind = "mlp";  ///< "mlp" or "residual_mlp"
  std::vector<index_t> hidden{64, 64};
  Activation activation = Activation::tanh;
  std::string init = "xavier_uniform";  ///< nn::init_from_name
  std::uint64_t network_seed = 1;       ///< the initial weights
  DType dtype = DType::float64;
  // The update.
  std::string optimizer = "adam";  ///< "adam", "adamw" or "sgd"
  double learning_rate = 1e-3;     ///< the peak
  double weight_decay = 0.0;
  double momentum = 0.9;              ///< sgd
  std::string schedule = "cosine";    ///< "constant", "cosine" or "step"
  double min_learning_rate = 0.0;     ///< cosine: the end
  int step_epochs = 50;               ///< step: epochs per decay
  double gamma = 0.5;                 ///< step: the factor
  std::int64_t warmup_steps = 0;      ///< linear warm-up
  TrainOptions train = surrogate_train_options();
  // The ranks.
  std::string parallel = "data";  ///< "data", "model" or "auto"
  int model_ranks = 0;            ///< model: ranks per model group (0: all)
  double memory_limit_mib = 4096.0;
  // The outputs and the model card (training_deck, git_revision,
  // extrapolation and its margin; the data fields and the training range,
  // input_min and input_max over every row of the data set, are filled
  // here).
  std::string name = "surrogate";
  std::string dir = ".";
  ModelCard card;
};

struct SurrogateTrainingResult {
  std::string model_path, loss_csv, checkpoint;
  index_t rows = 0, training_rows = 0, validation_rows = 0;
  int epochs = 0;                        ///< trained, in all
  std::vector<double> validation_rmse;   ///< per output (empty without validation rows)
  std::vector<double> jacobian_error;    ///< per output, with gradients in the set
  int data_ranks = 1, model_ranks = 1;   ///< the layout trained on
};

SurrogateTrainingResult train_surrogate(const std::string& data_file, const SurrogateTraining& settings,
                                        MPI_Comm comm, bool restart = false);

/// Told the member of SurrogateTraining ("parallel", "model_ranks",
/// "train.gradient_weight", "train.validation_fraction"), or "data_file",
/// and what is wrong; must throw.
using SurrogateTrainingReject = std::function<void(const std::string& member, const std::string& what)>;
/// What train_surrogate(data_file, s, comm, restart) refuses before it
/// trains, on `n_ranks` ranks, from the data set's header alone
/// (dataset_info, on this rank); the first fault goes to `reject`, in this
/// order: parallel not data, model or auto; with parallel: model,
/// model_ranks not dividing n_ranks, a network it cannot split or a
/// restart; a data file that does not exist; gradient_weight > 0 on a set
/// without gradients or with parallel: model; validation_fraction leaving
/// no training rows. train_surrogate makes the same checks (bad_input).
void validate_surrogate_training(const std::string& data_file, const SurrogateTraining& s, int n_ranks,
                                 bool restart, const SurrogateTrainingReject& reject);

}  // namespace camber::nn::io
