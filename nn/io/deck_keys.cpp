#include "deck_keys.hpp"

#include <string>
#include <vector>

namespace camber::nn::io {

using deck::IntRange;
using deck::Keys;
using deck::Length;
using deck::Range;

namespace {

const Keys<TrainOptions>& split_keys() {
  static const Keys<TrainOptions> keys = Keys<TrainOptions>().real(
      "validation_fraction", &TrainOptions::validation_fraction, Range(0.0, 1.0).and_less_than(1.0),
      "The last rows of the set, held out to measure the error (0: none).");
  return keys;
}

const char* loss_name(LossKind k) {
  return k == LossKind::l1 ? "l1" : k == LossKind::huber ? "huber" : "mse";
}

const Keys<TrainOptions>& train_option_keys() {
  static const Keys<TrainOptions> keys =
      Keys<TrainOptions>()
          .integer("epochs", &TrainOptions::epochs, IntRange(1, 1 << 24), "Passes over the training rows.")
          .integer("batch_size", &TrainOptions::batch_size, IntRange::positive(),
                   "Rows per step, over all ranks together (the result does not depend on the "
                   "number of ranks).")
          .real("gradient_weight", &TrainOptions::gradient_weight, Range::non_negative(),
                "> 0: gradient-enhanced (Sobolev) training: the loss adds this weight times the "
                "mean squared misfit of the network's input Jacobian against the data set's "
                "gradients (normalised like the data; camber sample writes them), "
                "differentiated in the weights to second order. The validation loss stays the "
                "values'. Data parallel only.")
          .real("clip_norm", &TrainOptions::clip_norm, Range::non_negative(),
                "Clip the gradient's global norm to this (0: off).")
          .integer("patience", &TrainOptions::patience, IntRange::non_negative(),
                   "Stop after this many epochs without a better validation loss (0: never); the "
                   "best epoch's weights are kept.")
          .custom(
              "loss",
              [](deck::Section& s, const TrainOptions& d) {
                s.choice("loss", loss_name(d.loss), {"mse", "l1", "huber"},
                         "Loss on the normalised outputs.");
              },
              [](const deck::Deck& deck, const std::string& path, TrainOptions& o) {
                o.loss = loss_from_name(deck.string(path));
              })
          .integer("seed", &TrainOptions::seed, IntRange::non_negative(), "Seed of the shuffling.");
  return keys;
}

// The card's policy for inputs outside the data's range.
const Keys<ModelCard>& range_keys() {
  static const Keys<ModelCard> keys =
      Keys<ModelCard>()
          .choice("extrapolation", &ModelCard::extrapolation, extrapolation_names,
                  "What the model file tells its users (camber serve, camber infer) to do with an "
                  "input outside the data set's range (each input's min and max over its rows, "
                  "recorded in the model card): refuse (a 422 answer naming the input, its value "
                  "and the range; exit 2 from camber infer) or allow (the network extrapolates). "
                  "Inputs and outputs that are not finite are refused under either.")
          .real("extrapolation_margin", &ModelCard::extrapolation_margin, Range::non_negative(),
                "extrapolation: refuse: accept this fraction of each input's range width beyond "
                "either end of the range (0: the data's min and max exactly).");
  return keys;
}

}  // namespace

const Keys<SurrogateTraining>& data_split_keys() {
  static const Keys<SurrogateTraining> keys = Keys<SurrogateTraining>()
                                                  .nested(&SurrogateTraining::train, split_keys())
                                                  .nested(&SurrogateTraining::card, range_keys());
  return keys;
}

const Keys<SurrogateTraining>& network_keys() {
  static const Keys<SurrogateTraining> keys =
      Keys<SurrogateTraining>()
          .choice("kind", &SurrogateTraining::kind, {"mlp", "residual_mlp"},
                  "mlp: Linear layers with the activation between them. residual_mlp: a Linear "
                  "layer to the first width, residual blocks of two layers of that width (one "
                  "per further entry of hidden), a Linear layer to the outputs.")
          .integers("hidden", &SurrogateTraining::hidden, Length::at_least(1), IntRange(1, 1 << 16),
                    "Widths of the hidden layers.")
          .custom(
              "activation",
              [](deck::Section& s, const SurrogateTraining& d) {
                s.choice("activation", activation_name(d.activation),
                         {"tanh", "relu", "gelu", "silu", "softplus", "sin"},
                         "Activation between layers.");
              },
              [](const deck::Deck& deck, const std::string& path, SurrogateTraining& t) {
                t.activation = activation_from_name(deck.string(path));
              })
          .choice("init", &SurrogateTraining::init,
                  {"xavier_uniform", "xavier_normal", "he_uniform", "he_normal"},
                  "Weight initialisation (biases start at zero).")
          .integer("seed", &SurrogateTraining::network_seed, IntRange::non_negative(),
                   "Seed of the initial weights (the same weights on any number of ranks).")
          .custom(
              "dtype",
              [](deck::Section& s, const SurrogateTraining& d) {
                s.choice("dtype", dtype_name(d.dtype), {"float64", "float32"},
                         "Precision of weights and data.");
              },
              [](const deck::Deck& deck, const std::string& path, SurrogateTraining& t) {
                t.dtype = deck.string(path) == "float32" ? DType::float32 : DType::float64;
              });
  return keys;
}

const Keys<SurrogateTraining>& training_keys() {
  static const Keys<SurrogateTraining> keys =
      Keys<SurrogateTraining>()
          .nested(&SurrogateTraining::train, train_option_keys())
          .choice("optimizer", &SurrogateTraining::optimizer, {"adam", "adamw", "sgd"}, "Update rule.")
          .real("learning_rate", &SurrogateTraining::learning_rate, Range::positive(),
                "Peak learning rate.")
          .real("weight_decay", &SurrogateTraining::weight_decay, Range::non_negative(),
                "L2 penalty (adam, sgd) or decoupled decay (adamw).")
          .real("momentum", &SurrogateTraining::momentum, Range(0.0, 1.0).and_less_than(1.0),
                "SGD momentum.")
          .choice("schedule", &SurrogateTraining::schedule, {"constant", "cosine", "step"},
                  "Learning rate over the steps: constant; cosine decay to min_learning_rate at "
                  "the last step; step: times gamma every step_epochs epochs.")
          .real("min_learning_rate", &SurrogateTraining::min_learning_rate, Range::non_negative(),
                "End of the cosine decay.")
          .integer("step_epochs", &SurrogateTraining::step_epochs, IntRange::positive(),
                   "Step schedule: epochs per decay.")
          .real("gamma", &SurrogateTraining::gamma, Range::greater_than(0.0).and_at_most(1.0),
                "Step schedule: the factor.")
          .integer("warmup_steps", &SurrogateTraining::warmup_steps, IntRange::non_negative(),
                   "Linear warm-up from 0 over this many steps.")
          .choice("parallel", &SurrogateTraining::parallel, {"data", "model", "auto"},
                  "How the ranks share the work. data: each rank takes rows of every batch. "
                  "model: the layers are split over model_ranks ranks (Megatron-style column- "
                  "and row-parallel layers; an mlp in float64, without clip_norm, no --restart), "
                  "the rest of the ranks split the rows. auto: the planner chooses both from a "
                  "cost model calibrated on the machine, under memory_limit_MiB per rank. The "
                  "result is the same, to round-off, under every choice.")
          .integer("model_ranks", &SurrogateTraining::model_ranks, IntRange::non_negative(),
                   "parallel: model: ranks per model group, a divisor of the rank count (0: all).")
          .real("memory_limit_MiB", &SurrogateTraining::memory_limit_mib, Range::positive(),
                "parallel: auto: memory per rank the plan must fit (parameters, gradients, "
                "activations).");
  return keys;
}

void validate_training_keys(const deck::Deck& d, const std::string& data_section,
                            const std::string& network_section,
                            const std::string& training_section) {
  const auto data = [&](const char* key) { return data_section + "." + key; };
  const auto network = [&](const char* key) { return network_section + "." + key; };
  const auto training = [&](const char* key) { return training_section + "." + key; };
  if (d.integer(training("patience")) > 0 && d.real(data("validation_fraction")) == 0.0)
    d.reject(training("patience"), "early stopping needs validation rows: set " +
                                       data("validation_fraction") + " > 0");
  if (d.string(training("schedule")) == "cosine" &&
      d.real(training("min_learning_rate")) > d.real(training("learning_rate")))
    d.reject(training("min_learning_rate"), "must not exceed " + training("learning_rate"));
  const std::string parallel = d.string(training("parallel"));
  if (parallel != "data" && parallel != "auto") {
    if (d.string(network("kind")) != "mlp")
      d.reject(network("kind"), "parallel: model splits an mlp's layers; use kind: mlp or parallel: data");
    if (d.string(network("dtype")) != "float64")
      d.reject(network("dtype"), "parallel: model needs float64");
    if (d.real(training("clip_norm")) > 0.0)
      d.reject(training("clip_norm"), "clipping needs the norm of the whole gradient, which parallel: model "
                                      "splits over ranks; set 0 or use parallel: data");
  }
}

void validate_training_run(const deck::Deck& d, const std::string& data_section,
                           const std::string& training_section, const std::string& data_file,
                           const SurrogateTraining& s, int n_ranks, bool restart) {
  const std::string train = "train.";
  const auto reject = [&](const std::string& member, const std::string& why) {
    if (member == "data_file") d.reject(data_section + ".file", why);
    if (member == "train.validation_fraction") d.reject(data_section + ".validation_fraction", why);
    const bool trainer = member.rfind(train, 0) == 0;  // a TrainOptions member: a training key
    d.reject(training_section + "." + (trainer ? member.substr(train.size()) : member), why);
  };
  validate_surrogate_training(data_file, s, n_ranks, restart, reject);
}

const Keys<SampleCampaignSettings>& sample_campaign_keys() {
  static const Keys<SampleCampaignSettings> keys =
      Keys<SampleCampaignSettings>()
          .integer("count", &SampleCampaignSettings::count, IntRange(1, 1 << 20), "Flows in the design.")
          .integer("seed", &SampleCampaignSettings::seed, IntRange::non_negative(), "Seed of the design.")
          .integer("active_rounds", &SampleCampaignSettings::active_rounds, IntRange(0, 1000),
                   "Active learning: after the Latin hypercube, this many rounds of active_batch "
                   "flows each, placed where an ensemble of four networks (32 x 32, tanh) fitted "
                   "to the flows so far (with their gradients when sampled) disagrees most among "
                   "active_candidates Latin-hypercube candidates (a new seed each round), kept "
                   "apart from each other. 0: none.")
          .integer("active_batch", &SampleCampaignSettings::active_batch, IntRange(1, 4096),
                   "Flows per active-learning round.")
          .integer("active_candidates", &SampleCampaignSettings::active_candidates,
                   IntRange(1, 1 << 20), "Candidates scored per active-learning round.");
  return keys;
}

const Keys<SampleCampaignSettings>& sample_group_keys() {
  static const Keys<SampleCampaignSettings> keys = Keys<SampleCampaignSettings>().integer(
      "ranks_per_sample", &SampleCampaignSettings::ranks_per_sample, IntRange::positive(),
      "Ranks that solve one flow together; the rank count must be a multiple, and the groups "
      "solve different flows at once.");
  return keys;
}

}  // namespace camber::nn::io
