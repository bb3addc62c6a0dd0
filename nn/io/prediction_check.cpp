#include <camber/nn/io/prediction_check.hpp>

#include <charconv>
#include <cmath>

namespace camber::nn::io {

namespace {

// The shortest text that reads back as `x` (a value just outside a range
// is shown apart from its bound).
std::string number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, result.ptr);
}

std::string interval(double lo, double hi) { return "[" + number(lo) + ", " + number(hi) + "]"; }

}  // namespace

PredictionCheck::PredictionCheck(const Model& model)
    : inputs_(model.surrogate.inputs().names),
      outputs_(model.surrogate.outputs().names),
      margin_(model.card.extrapolation_margin) {
  const ModelCard& c = model.card;
  if (c.input_min.empty() || c.extrapolation == Extrapolation::allow) return;
  min_ = c.input_min;
  max_ = c.input_max;
  for (std::size_t k = 0; k < min_.size(); ++k) {
    const double width = max_[k] - min_[k];
    lower_.push_back(min_[k] - margin_ * width);
    upper_.push_back(max_[k] + margin_ * width);
  }
}

std::optional<PredictionFault> PredictionCheck::inputs(const double* rows, std::size_t n_rows,
                                                       std::size_t first_row) const {
  const std::size_t n = inputs_.size();
  for (std::size_t i = 0; i < n_rows; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const double v = rows[i * n + k];
      const std::size_t row = first_row + i;
      const std::string at = "row " + std::to_string(row) + ": input '" + inputs_[k] + "' = " + number(v);
      if (!std::isfinite(v)) return PredictionFault{row, k, v, at + " is not a finite number"};
      if (lower_.empty() || (v >= lower_[k] && v <= upper_[k])) continue;
      std::string why = at + " is outside the training range " + interval(min_[k], max_[k]) + " of the model";
      if (margin_ > 0.0)
        why += ", widened by its extrapolation margin " + number(margin_) + " of the width to " +
               interval(lower_[k], upper_[k]);
      return PredictionFault{row, k, v, why + " (extrapolation: refuse)"};
    }
  return std::nullopt;
}

std::optional<PredictionFault> PredictionCheck::outputs(const double* y, std::size_t n_rows,
                                                        std::size_t first_row) const {
  const std::size_t n = outputs_.size();
  for (std::size_t i = 0; i < n_rows; ++i)
    for (std::size_t k = 0; k < n; ++k)
      if (!std::isfinite(y[i * n + k]))
        return PredictionFault{first_row + i, k, y[i * n + k],
                               "row " + std::to_string(first_row + i) + ": output '" + outputs_[k] + "' is " +
                                   number(y[i * n + k]) +
                                   ", not a finite number (the network overflowed at this row's inputs)"};
  return std::nullopt;
}

}  // namespace camber::nn::io
