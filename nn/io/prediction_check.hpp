/// @file
/// camber::nn::io::PredictionCheck — what a model accepts as inputs and
/// gives as outputs, checked in one place for every user of a model: the
/// server's routes (a 422) and `camber infer` (exit 2).
///
/// An input is refused when it is not finite, or, when the model card
/// records the training range and its policy is Extrapolation::refuse,
/// when it lies outside
/// @code
///   [input_min - margin * (input_max - input_min), input_max + margin * (input_max - input_min)]
/// @endcode
/// (closed; margin is the card's extrapolation_margin). An output is
/// refused when it is not finite (whatever the policy: an overflow in the
/// network is never an answer). A model without a recorded range
/// (ModelCard::input_min empty) has its inputs checked for finiteness only.
///
/// @code
///   const nn::io::Model m = nn::io::load_model("model.h5");
///   const nn::io::PredictionCheck check(m);
///   if (auto fault = check.inputs(x.data(), n_rows)) throw_bad_input(fault->message);
///   const std::vector<double> y = m.surrogate.predict(...).to_vector();
///   if (auto fault = check.outputs(y.data(), n_rows)) throw_bad_input(fault->message);
/// @endcode
/// Each fault names the row (counted from 0, or from `first_row`), the
/// column, its value and, for an input outside it, the training range.
/// The check reads the values only; it keeps copies of the names and
/// bounds, so it outlives the Model it was made from.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <camber/nn/io/model_file.hpp>

namespace camber::nn::io {

/// Why a row is refused.
struct PredictionFault {
  std::size_t row = 0;     ///< first_row + the index in the rows given
  std::size_t column = 0;  ///< the input's or output's index
  double value = 0.0;
  /// "row 0: input 'mach' = 1.7e+308 is outside the training range
  /// [0.3, 0.7] of the model (extrapolation: refuse)", or "... is not
  /// finite".
  std::string message;
};

class PredictionCheck {
 public:
  explicit PredictionCheck(const Model& model);

  /// The first refused value of `rows` (row-major {n_rows, inputs}), or
  /// none; the rows are numbered from `first_row` (a rank's block of a
  /// larger table).
  std::optional<PredictionFault> inputs(const double* rows, std::size_t n_rows,
                                        std::size_t first_row = 0) const;
  /// The first output of `y` (row-major {n_rows, outputs}) that is not
  /// finite, or none; numbered as inputs() numbers them.
  std::optional<PredictionFault> outputs(const double* y, std::size_t n_rows,
                                         std::size_t first_row = 0) const;

  /// Whether inputs are checked against a range (recorded, policy refuse).
  bool bounded() const { return !lower_.empty(); }

 private:
  std::vector<std::string> inputs_, outputs_;
  std::vector<double> min_, max_;      ///< the training range (empty: none)
  std::vector<double> lower_, upper_;  ///< what is accepted (empty: any finite value)
  double margin_ = 0.0;
};

}  // namespace camber::nn::io
