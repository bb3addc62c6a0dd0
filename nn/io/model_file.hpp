/// @file
/// The native model file of camber::nn: one HDF5 file holding a trained
/// surrogate and its model card, sealed with a checksum.
///
/// What it holds (format "camber-nn-model", version 1):
/// @code
///   userblock (512 bytes, before HDF5's superblock):
///       CAMBER-MODEL 1 / bytes <file size> / sha256 <digest of the rest>
///   /network     attributes kind, activation, dtype, in, out; dataset hidden
///   /parameters/<name>   in the network's dtype (float32 or float64); an
///                int8 model's weights as int8, with /quantization (kind
///                int8, weight_scale: every layer's per output channel in
///                turn, input_scale: one per layer)
///   /inputs, /outputs    attributes names, units; datasets mean, std
///   /card        attributes data_path, data_sha256, data_rows, epochs,
///                training_deck, created, camber_version, git_revision,
///                validation_rows, extrapolation, extrapolation_margin;
///                datasets validation_rmse (per output), input_min and
///                input_max (per input: the training data's range)
/// @endcode
/// input_min, input_max, extrapolation and extrapolation_margin are
/// optional: a file written before Camber recorded the training range
/// lacks them and loads with an empty range (no range check, see
/// prediction_check.hpp).
/// The userblock is ordinary HDF5 (h5dump and h5py read past it). Loading
/// checks it before HDF5 parses anything: a file that is not a model, is
/// cut short, has bytes appended or changed after it was written is
/// rejected with a message naming the file and what is wrong (bad input,
/// exit code 2 in apps), as is a wrong format version, a missing entry or a
/// parameter whose shape does not fit the network. The card and arrays are
/// checked too, each fault naming the file and the field: input and output
/// names empty, repeated, with control characters or blanks at an end; a
/// mean, weight or scale that is not finite; a standard deviation that is
/// not > 0; a negative count (data_rows, epochs, validation_rows); a
/// validation RMSE that is not finite and >= 0; a training range that is
/// not one finite [min, max] per input, an unknown extrapolation policy or
/// a margin that is not finite and >= 0. save_model() refuses the same
/// names and card.
///
/// @code
///   nn::io::ModelCard card;
///   card.data_path = "samples.h5";
///   card.data_sha256 = nn::io::sha256_file("samples.h5");
///   nn::io::save_model("out/model.h5", surrogate, card);   // on one rank
///   nn::io::Model m = nn::io::load_model("out/model.h5");      // on any rank
///   std::cout << nn::io::describe_model(m);                // camber model-info
/// @endcode
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <camber/core/enum_names.hpp>
#include <camber/nn/surrogate.hpp>

namespace camber::nn::io {

/// What a model's users (the server, `camber infer`) do with an input
/// outside the training range: refuse it (a 422, exit 2), or predict
/// anyway (the network extrapolates; non-finite inputs and outputs are
/// refused all the same).
enum class Extrapolation { refuse, allow };
inline constexpr std::array<EnumName<Extrapolation>, 2> extrapolation_names{
    {{Extrapolation::refuse, "refuse"}, {Extrapolation::allow, "allow"}}};

/// What a registry needs to know about a trained model.
struct ModelCard {
  std::string data_path;      ///< the training data set, as given
  std::string data_sha256;    ///< hex digest of that file
  std::int64_t data_rows = 0;
  std::int64_t epochs = 0;
  std::string training_deck;  ///< the deck's text ("" if trained from code)
  std::int64_t validation_rows = 0;
  /// Root-mean-square validation error per output, in the output's units
  /// (empty without a validation split).
  std::vector<double> validation_rmse;
  std::string created;         ///< ISO 8601 UTC; save_model() fills it when empty
  std::string camber_version;  ///< save_model() fills it when empty
  std::string git_revision;    ///< of the program that trained it ("" if unknown)
  /// Per input, the smallest and largest value of the training data set's
  /// rows (training and validation rows: the data the card names);
  /// train_surrogate() fills them. Empty when not recorded (a model saved
  /// from code without them, or a file written before Camber recorded
  /// them): then inputs are checked for finiteness only.
  std::vector<double> input_min, input_max;
  /// What is done with an input outside [input_min, input_max] widened by
  /// extrapolation_margin times the range's width at each end.
  Extrapolation extrapolation = Extrapolation::refuse;
  double extrapolation_margin = 0.0;
};

struct Model {
  Surrogate surrogate;
  ModelCard card;
  std::int64_t format_version = 0;
  std::uintmax_t file_bytes = 0;
  std::string sha256;  ///< the digest in the file's header
};

/// Writes `path` atomically ("<path>.tmp", then renamed). Not collective:
/// call it on one rank.
void save_model(const std::string& path, const Surrogate& surrogate, ModelCard card);
/// Reads and checks a model file (not collective; every rank may load).
Model load_model(const std::string& path);
/// The card and the network as text (what `camber model-info` prints),
/// every text from the file through printable_text().
std::string describe_model(const Model& model, const std::string& path);

/// `text` safe to print to a terminal: printable ASCII, tabs and well-formed
/// UTF-8 pass; every other byte (control characters such as ESC, DEL, C1
/// controls, malformed UTF-8) is shown as `\xNN`. For anything a model
/// file or a registry entry says, which its author, not the reader, chose.
std::string printable_text(const std::string& text);

/// Hex SHA-256 of a file's bytes (OpenSSL); a missing file is bad input.
std::string sha256_file(const std::string& path);

}  // namespace camber::nn::io
