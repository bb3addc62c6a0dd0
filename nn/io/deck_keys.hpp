/// @file
/// camber::nn::io deck keys — the tables of deck keys of a surrogate's
/// training (SurrogateTraining) and of a sample campaign
/// (SampleCampaignSettings), from which `camber train`'s data, network and
/// training sections and `camber sample`'s design keys are declared and
/// read.
///
/// The defaults are the structs' own (deck/keys.hpp), so a deck that
/// leaves a key out and a C++ program that leaves the member alone train
/// the same network:
///
/// @code
///   deck::Schema schema;
///   nn::io::network_keys().declare(schema.section("network", "The network."));
///   nn::io::training_keys().declare(schema.section("training", "The training."));
///   const deck::Deck d = deck::load_deck("train.yaml", schema);
///   nn::io::SurrogateTraining t;
///   nn::io::network_keys().read(d, "network", t);
///   nn::io::training_keys().read(d, "training", t);
/// @endcode
///
/// The checks that span the three sections come after loading, as errors
/// naming the key and its line (validate_training_keys): early stopping
/// needs validation rows, the cosine schedule's end at most its start,
/// and `parallel: model` only an mlp in float64 without clip_norm.
#pragma once

#include <string>

#include <camber/deck/keys.hpp>
#include <camber/nn/io/sample_campaign.hpp>
#include <camber/nn/io/surrogate_training.hpp>

namespace camber::nn::io {

/// validation_fraction, extrapolation and extrapolation_margin (the data
/// section's: how the data is split, and what the model card says about
/// inputs outside the data's range).
const deck::Keys<SurrogateTraining>& data_split_keys();
/// kind, hidden, activation, init, seed, dtype.
const deck::Keys<SurrogateTraining>& network_keys();
/// epochs, batch_size, optimizer, gradient_weight, learning rate and
/// schedule, clip_norm, patience, loss, seed (shuffling), parallel,
/// model_ranks, memory_limit_MiB.
const deck::Keys<SurrogateTraining>& training_keys();
/// The checks that span keys of the sections `data_section`,
/// `network_section` and `training_section` (declared by data_split_keys,
/// network_keys and training_keys), as bad_input naming the key and its
/// line (Deck::reject): patience > 0 with validation_fraction 0;
/// min_learning_rate above learning_rate under the cosine schedule;
/// parallel: model with a network kind other than mlp, a dtype other than
/// float64, or clip_norm > 0.
void validate_training_keys(const deck::Deck& deck, const std::string& data_section,
                            const std::string& network_section,
                            const std::string& training_section);
/// validate_surrogate_training() at the deck's keys: a member at its key
/// in `training_section` (validation_fraction in `data_section`), the data
/// file at `data_section`.file (a key the caller declares).
void validate_training_run(const deck::Deck& deck, const std::string& data_section,
                           const std::string& training_section, const std::string& data_file,
                           const SurrogateTraining& s, int n_ranks, bool restart);
/// count, seed, active_rounds, active_batch, active_candidates.
const deck::Keys<SampleCampaignSettings>& sample_campaign_keys();
/// ranks_per_sample (the solver's keys go between these two tables in
/// `camber sample`'s section).
const deck::Keys<SampleCampaignSettings>& sample_group_keys();

}  // namespace camber::nn::io
