/// @file
/// Named, unit-carrying columns and their normalisation: what a data set
/// (nn/io/dataset.hpp) stores beside its rows and what a trained surrogate
/// (surrogate.hpp) carries, so a network trained on normalised data is
/// used in physical units.
///
/// @code
///   nn::Normalization n{{0.5, 2.0}, {0.1, 1.0}};   // mean, std per column
///   Tensor z = n.apply(x);                         // (x - mean) / std
///   Tensor x2 = n.invert(z);                       // back: z std + mean
/// @endcode
#pragma once

#include <string>
#include <vector>

#include <camber/autodiff/variable.hpp>
#include <camber/core/tensor.hpp>

namespace camber::nn {

struct Columns {
  std::vector<std::string> names;
  std::vector<std::string> units;  ///< one per name ("" for none)
};

struct Normalization {
  std::vector<double> mean, stddev;  ///< per column
  /// (t - mean) / std per column of a {rows, columns} tensor, and back.
  Tensor apply(const Tensor& t) const;
  Tensor invert(const Tensor& t) const;
  /// The same as differentiable ops (the gradient flows through to t).
  ad::Var apply(const ad::Var& t) const;
  ad::Var invert(const ad::Var& t) const;
};

/// Input gradients d y / d x {rows, n_out, n_in} in the normalised units
/// of `in` and `out`: d y_n / d x_n = (d y / d x) std_x / std_y.
Tensor normalize_gradients(const Tensor& dy, const Normalization& in, const Normalization& out);

}  // namespace camber::nn
