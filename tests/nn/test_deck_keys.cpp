// nn/io/deck_keys.hpp: the training and sampling settings' deck tables
// declare the structs' own defaults and read a deck into the structs (the
// nested TrainOptions and ModelCard members, the extrapolation policy,
// activation, dtype and loss by name);
// validate_training_keys passes a consistent deck and refuses each
// inconsistent one as bad input at the key and its line, in sections of
// any name.
// ranks_per_sample refuses a count below 1 at its key.
// validate_training_run tells each fault at its key: the data file at
// data.file, the training members in the training section.
#include <gtest/gtest.h>

#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/tensor.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/nn/io/deck_keys.hpp>

#include "tests/common/bad_input.hpp"

namespace {

namespace deck = camber::deck;
namespace nn = camber::nn;

deck::Schema schema() {
  deck::Schema s;
  nn::io::data_split_keys().declare(s.section("data", "Data."));
  nn::io::network_keys().declare(s.section("network", "Network."));
  nn::io::training_keys().declare(s.section("training", "Training."));
  auto& sample = s.section("sample", "Sample.");
  nn::io::sample_campaign_keys().declare(sample);
  nn::io::sample_group_keys().declare(sample);
  return s;
}

TEST(NnDeckKeys, DefaultsAreTheStructsOwn) {
  const deck::Schema s = schema();
  const nn::io::SurrogateTraining t;
  const nn::io::SampleCampaignSettings c;
  EXPECT_EQ(s.find_section("data")->find_key("validation_fraction")->default_text(),
            deck::value_text(t.train.validation_fraction));
  EXPECT_EQ(s.find_section("data")->find_key("extrapolation")->default_text(), "refuse");
  EXPECT_EQ(s.find_section("data")->find_key("extrapolation_margin")->default_text(),
            deck::value_text(t.card.extrapolation_margin));
  EXPECT_EQ(t.card.extrapolation, nn::io::Extrapolation::refuse);
  EXPECT_EQ(s.find_section("network")->find_key("activation")->default_text(), "tanh");
  EXPECT_EQ(s.find_section("network")->find_key("dtype")->default_text(), "float64");
  EXPECT_EQ(s.find_section("network")->find_key("hidden")->default_text(), "[64, 64]");
  EXPECT_EQ(s.find_section("training")->find_key("epochs")->default_text(),
            deck::value_text(std::int64_t{t.train.epochs}));
  EXPECT_EQ(s.find_section("training")->find_key("learning_rate")->default_text(),
            deck::value_text(t.learning_rate));
  EXPECT_EQ(s.find_section("training")->find_key("loss")->default_text(), "mse");
  EXPECT_EQ(s.find_section("sample")->find_key("count")->default_text(),
            deck::value_text(std::int64_t{c.count}));
  EXPECT_EQ(s.find_section("sample")->find_key("active_candidates")->default_text(),
            deck::value_text(std::int64_t{c.active_candidates}));
  EXPECT_EQ(s.find_section("sample")->find_key("ranks_per_sample")->default_text(),
            deck::value_text(std::int64_t{c.ranks_per_sample}));
}

TEST(NnDeckKeys, ADeckReachesTheMembers) {
  const deck::Deck d = deck::parse_deck(
      "data:\n  validation_fraction: 0.1\n  extrapolation: allow\n  extrapolation_margin: 0.05\nnetwork:\n  hidden: [8]\n  activation: gelu\n  dtype: float32\n"
      "  seed: 9\ntraining:\n  epochs: 7\n  loss: huber\n  optimizer: sgd\n  parallel: auto\n"
      "  seed: 3\nsample:\n  count: 5\n  active_rounds: 2\n  ranks_per_sample: 2\n",
      "t.yaml", schema());
  nn::io::SurrogateTraining t;
  nn::io::data_split_keys().read(d, "data", t);
  nn::io::network_keys().read(d, "network", t);
  nn::io::training_keys().read(d, "training", t);
  EXPECT_EQ(t.train.validation_fraction, 0.1);
  EXPECT_EQ(t.card.extrapolation, nn::io::Extrapolation::allow);
  EXPECT_EQ(t.card.extrapolation_margin, 0.05);
  EXPECT_EQ(t.hidden, (std::vector<camber::index_t>{8}));
  EXPECT_EQ(t.activation, nn::Activation::gelu);
  EXPECT_EQ(t.dtype, camber::DType::float32);
  EXPECT_EQ(t.network_seed, 9u);
  EXPECT_EQ(t.train.epochs, 7);
  EXPECT_EQ(t.train.loss, nn::LossKind::huber);
  EXPECT_EQ(t.train.seed, 3u);
  EXPECT_EQ(t.optimizer, "sgd");
  EXPECT_EQ(t.parallel, "auto");
  EXPECT_EQ(t.learning_rate, nn::io::SurrogateTraining{}.learning_rate);
  const nn::io::SampleCampaignSettings c = nn::io::sample_campaign_keys().read(d, "sample");
  EXPECT_EQ(c.count, 5);
  EXPECT_EQ(c.active_rounds, 2);
  EXPECT_EQ(c.active_batch, nn::io::SampleCampaignSettings{}.active_batch);
  EXPECT_EQ(c.ranks_per_sample, nn::io::SampleCampaignSettings{}.ranks_per_sample);  // not this table's
  EXPECT_EQ(nn::io::sample_group_keys().read(d, "sample").ranks_per_sample, 2);
  const std::string bad = camber::test::bad_input_message(
      [] { deck::parse_deck("sample:\n  ranks_per_sample: 0\n", "t.yaml", schema()); });
  EXPECT_NE(bad.find("t.yaml:2:21: 'sample.ranks_per_sample'"), std::string::npos) << bad;
}

// The key and the line of the error validate_training_keys raises for
// `yaml` (sections data, network, training), or "" when it passes.
std::string refusal(const std::string& yaml) {
  const deck::Deck d = deck::parse_deck(yaml, "t.yaml", schema());
  try {
    nn::io::validate_training_keys(d, "data", "network", "training");
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
    return e.message();
  }
  return "";
}

TEST(NnDeckKeys, CrossKeyChecksNameTheKey) {
  EXPECT_EQ(refusal("{}\n"), "");
  EXPECT_EQ(refusal("data:\n  validation_fraction: 0.2\ntraining:\n  patience: 3\n"), "");
  EXPECT_EQ(refusal("training:\n  parallel: model\n"), "");

  std::string m = refusal("data:\n  validation_fraction: 0.0\ntraining:\n  patience: 3\n");
  EXPECT_NE(m.find("t.yaml:4:"), std::string::npos) << m;
  EXPECT_NE(m.find("training.patience"), std::string::npos) << m;
  EXPECT_NE(m.find("early stopping needs validation rows: set data.validation_fraction > 0"),
            std::string::npos) << m;

  m = refusal("training:\n  learning_rate: 0.001\n  schedule: cosine\n  min_learning_rate: 0.01\n");
  EXPECT_NE(m.find("t.yaml:4:"), std::string::npos) << m;
  EXPECT_NE(m.find("training.min_learning_rate"), std::string::npos) << m;
  EXPECT_NE(m.find("must not exceed training.learning_rate"), std::string::npos) << m;
  // Under another schedule the cosine's end is not used.
  EXPECT_EQ(refusal("training:\n  learning_rate: 0.001\n  schedule: constant\n  min_learning_rate: 0.01\n"), "");

  m = refusal("network:\n  kind: residual_mlp\ntraining:\n  parallel: model\n");
  EXPECT_NE(m.find("t.yaml:2:"), std::string::npos) << m;
  EXPECT_NE(m.find("network.kind"), std::string::npos) << m;
  m = refusal("network:\n  dtype: float32\ntraining:\n  parallel: model\n");
  EXPECT_NE(m.find("network.dtype"), std::string::npos) << m;
  EXPECT_NE(m.find("parallel: model needs float64"), std::string::npos) << m;
  m = refusal("training:\n  parallel: model\n  clip_norm: 1.0\n");
  EXPECT_NE(m.find("t.yaml:3:"), std::string::npos) << m;
  EXPECT_NE(m.find("training.clip_norm"), std::string::npos) << m;
  // Data parallel training takes every kind, dtype and clipping.
  EXPECT_EQ(refusal("network:\n  kind: residual_mlp\n  dtype: float32\ntraining:\n  clip_norm: 1.0\n"), "");
}

TEST(NnDeckKeys, CrossKeyChecksFollowTheSectionsNames) {
  deck::Schema s;
  nn::io::data_split_keys().declare(s.section("split", "Data."));
  nn::io::network_keys().declare(s.section("net", "Network."));
  nn::io::training_keys().declare(s.section("fit", "Training."));
  const deck::Deck d = deck::parse_deck("split:\n  validation_fraction: 0.0\nfit:\n  patience: 2\n", "s.yaml", s);
  try {
    nn::io::validate_training_keys(d, "split", "net", "fit");
    ADD_FAILURE() << "patience without validation rows accepted";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
    EXPECT_NE(e.message().find("fit.patience"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("set split.validation_fraction > 0"), std::string::npos) << e.message();
  }
}

TEST(NnDeckKeys, TheChecksBeforeTrainingNameTheirKeys) {
  deck::Schema s = schema();
  s.section("data").string("file", "", "Data set.");
  const std::string file =
      (std::filesystem::temp_directory_path() / ("camber_nn_deck_keys_" + std::to_string(::getpid()) + ".h5")).string();
  const std::vector<double> x{0.0, 1.0, 2.0, 3.0}, y{1.0, 2.0};  // 2 rows, no gradients
  nn::io::write_dataset(file, camber::Tensor::from_host({2, 2}, x), camber::Tensor::from_host({2, 1}, y),
                        {{"a", "b"}, {"", ""}}, {{"y"}, {""}}, MPI_COMM_WORLD);
  const auto refused = [&](const std::string& yaml, const std::string& data_file, int n_ranks) {
    const deck::Deck d = deck::parse_deck(yaml, "t.yaml", s);
    nn::io::SurrogateTraining t;
    nn::io::data_split_keys().read(d, "data", t);
    nn::io::training_keys().read(d, "training", t);
    return camber::test::bad_input_message(
        [&] { nn::io::validate_training_run(d, "data", "training", data_file, t, n_ranks, false); });
  };
  EXPECT_EQ(refused("data:\n  file: x.h5\n", file, 2), "");
  std::string m = refused("data:\n  file: no_such.h5\n", "no_such.h5", 2);
  EXPECT_NE(m.find("t.yaml:2:9: 'data.file' = 'no_such.h5': cannot find 'no_such.h5'"), std::string::npos) << m;
  m = refused("training:\n  parallel: model\n  model_ranks: 3\n", file, 2);
  EXPECT_NE(m.find("t.yaml:3:16: 'training.model_ranks' = 3: 3 does not divide the 2 ranks"), std::string::npos) << m;
  m = refused("training:\n  gradient_weight: 1.0\n", file, 2);
  EXPECT_NE(m.find("t.yaml:2:20: 'training.gradient_weight'"), std::string::npos) << m;
  EXPECT_NE(m.find("the data set '" + file + "' holds no gradients"), std::string::npos) << m;
  std::filesystem::remove(file);
}

}  // namespace
