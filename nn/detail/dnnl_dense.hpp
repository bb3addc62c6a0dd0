// One dense layer of the inference plan (surrogate.cpp) multiplied by
// oneDNN: float32 weights with the bias and, where oneDNN has it, the
// activation fused into the product; or int8 weights with a per-column
// scale (s8 x s8 -> s32, converted to float32 and scaled), the bias, the
// activation and, for an int8 output, the next layer's QuantizeLinear
// fused as post-ops, so that a chain of int8 layers passes int8 values
// from one product to the next. Compiled only with CAMBER_WITH_DNNL.
//
// An int8 layer's output is the Eigen path's up to rounding: oneDNN adds
// the bias before the scale ((float(sum) + bias / c) * c rather than
// float(sum) * c + bias), evaluates the activation with its own formula (a
// few ulps from Eigen's) and quantizes as rint(v * (1 / s)) rather than
// rint(v / s), so a value within a few ulps of a rounding boundary can land
// one step away.
//
// Row counts: oneDNN's fastest kernels (brgemm) are compiled for one row
// count, so a layer keeps one primitive per row count in padded_rows()'s
// grid (at most 12), made on first use; the caller runs at most
// max_block_rows() rows at a time, padded up to the grid.
//
// Threads: run() may be called from any number of threads at once (the
// primitives are immutable; each thread has its own stream and scratchpad)
// and computes on the calling thread alone: it sets that thread's OpenMP
// thread count to 1 while oneDNN creates and runs primitives, and restores
// it after.
#pragma once

#include <cstdint>
#include <memory>

#include <camber/nn/layers.hpp>

namespace camber::nn::detail {

class DnnlDense {
 public:
  /// float32: y = act(x * weight + bias); weight {in, out} row-major, bias
  /// {out}; `act` must satisfy fuses(act).
  DnnlDense(const float* weight, const float* bias, index_t in, index_t out, Activation act);
  /// int8: z[r][j] = act((sum_i q[r][i] * values[i][j]) * column_scale[j] +
  /// bias[j]); values {in, out} row-major; `act` must satisfy fuses(act).
  /// With next_scale = 0, y = z in float32; with next_scale > 0, y is int8:
  /// QuantizeLinear(z, next_scale), z * (1 / next_scale) rounded half to
  /// even and saturated to [-128, 127].
  DnnlDense(const std::int8_t* values, const float* column_scale, const float* bias, index_t in,
            index_t out, Activation act, float next_scale);

  /// Whether oneDNN evaluates `a` as the engine does (layers.cpp): identity,
  /// tanh, relu, gelu (tanh form), silu, softplus; not sin.
  static bool fuses(Activation a);
  /// `rows` rounded up to the grid of row counts with a primitive.
  static index_t padded_rows(index_t rows);
  static index_t max_block_rows();

  /// dst {rows, out} from src {rows, in} (float32 or int8 as constructed),
  /// both row-major and contiguous; rows must be padded_rows(rows).
  void run(const void* src, void* dst, index_t rows) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// Sets the calling thread's OpenMP thread count to one for its lifetime
/// (oneDNN's OpenMP runtime reads it when it makes and runs a primitive).
class SingleThreadScope {
 public:
  SingleThreadScope();
  ~SingleThreadScope();
  SingleThreadScope(const SingleThreadScope&) = delete;
  SingleThreadScope& operator=(const SingleThreadScope&) = delete;

 private:
  int saved_;
};

}  // namespace camber::nn::detail
