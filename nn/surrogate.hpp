/// @file
/// camber::nn::Surrogate: a trained network in physical units, for
/// inference and for optimization through it.
///
/// A surrogate is the network's architecture (NetworkSpec), its trained
/// parameters, the names and units of its inputs and outputs, and the
/// normalisation it was trained with:
///
///   y = invert_out( net( (x - mean_in) / std_in ) )
///
/// Two ways to evaluate it, which agree to round-off (tests/nn):
///   - predict() and jacobian(): an inference plan compiled once from the
///     parameters (dense layers as GEMMs, activations, residual adds),
///     with no autodiff graph, on the host. They are const and keep no
///     state between calls, so any number of threads may call them at once
///     (the HTTP server does). jacobian() is forward mode through the plan:
///     d y_j / d x_k for every row, in the same pass.
///
/// Who multiplies (gemm_backend()): Eigen for float64, for jacobian(), and
/// below 16 rows; from 16 rows on, a float32 or int8 predict() uses oneDNN
/// when Camber is built with it (CAMBER_ENABLE_DNNL), whose kernels are
/// compiled at run time for the machine (AVX-512; int8 as s8 x s8 -> s32
/// with VNNI), with the bias and the activation (not sin) fused into the
/// product; int8 layers also quantize for the next layer there and pass it
/// int8 values. float32 results differ from Eigen's by float32 rounding
/// (another summation order); int8 results are the Eigen path's except
/// where a value lands within float32 rounding of a quantization boundary
/// and comes out one step away (oneDNN's activation formula): one row in
/// 1300 in tests/nn/test_surrogate.cpp, which allows 5%. The first call at a new row count compiles
/// that layer's kernels (milliseconds); rows are padded to one of 12 row
/// counts and run 1024 at a time, so a plan compiles at most 12 sets.
/// Each predict() computes on its calling thread alone (oneDNN's OpenMP
/// team is held to one thread for the call): callers that want several
/// cores call from several threads, as the server's batchers do, and no
/// OpenMP team competes with them for the cores.
///   - forward(): the network as a differentiable op of the AD engine
///     (gradients, Hessian-vector products with respect to inputs), on the
///     tensors' backend. Like the engine, single-threaded.
///
/// @code
///   nn::Surrogate s = nn::io::load_model("out/airfoil_model.h5");  // nn/io/model_file.hpp
///   Tensor y = s.predict(x);              // {rows, n_in} -> {rows, n_out}
///   Tensor j = s.jacobian(x);             // {rows, n_out, n_in}
///   ad::Var cd = s.forward(ad::variable(x));   // differentiable
/// @endcode
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <camber/nn/layers.hpp>
#include <camber/nn/normalization.hpp>

namespace camber::nn {

/// What make_network() builds, and what a model file records.
struct NetworkSpec {
  std::string kind = "mlp";  ///< "mlp" or "residual_mlp"
  index_t in = 1;
  index_t out = 1;
  /// mlp: the hidden widths. residual_mlp: hidden[0] is the width and
  /// hidden.size() - 1 the number of residual blocks (all of that width).
  std::vector<index_t> hidden;
  Activation activation = Activation::tanh;
  DType dtype = DType::float64;
};

/// Throws camber::Error (bad input) naming the field that is wrong: an
/// unknown kind, a non-positive size, an int64 dtype, a residual MLP whose
/// widths differ.
void check_spec(const NetworkSpec& spec);

/// The network of `spec`, its parameters initialised from `rng`.
std::shared_ptr<Module> make_network(const NetworkSpec& spec, Rng& rng,
                                     Init init = Init::xavier_uniform);

/// One dense layer quantized to int8 (post-training, symmetric, zero
/// point 0): weight[i][j] = values[i * out + j] * scales[j] (per output
/// channel), and the layer's input x is evaluated as
/// clamp(round_half_even(x / input_scale), -128, 127) * input_scale
/// (per tensor), the ONNX QuantizeLinear/DequantizeLinear semantics.
struct Int8Layer {
  std::vector<std::int8_t> values;  ///< {in, out} row-major
  std::vector<double> scales;       ///< one per output column
  double input_scale = 1.0;
};

class Surrogate {
 public:
  /// `parameters` in the order of make_network(spec)'s named_parameters();
  /// their shapes are checked (bad input on a mismatch, naming the
  /// parameter). Columns and statistics: one per input and output.
  Surrogate(NetworkSpec spec, const std::vector<Tensor>& parameters, Columns inputs,
            Columns outputs, Normalization input_stats, Normalization output_stats);
  /// An int8 surrogate (quantize.hpp makes one): one Int8Layer per dense
  /// layer, whose weights replace those in `parameters` (the biases stay
  /// float); spec.dtype must be float32. predict() then runs the integer
  /// path: exact integer dot products (held in float32, exact below 2^24,
  /// i.e. for layers of up to 1040 inputs), scaled per output channel.
  /// jacobian() and forward() use the dequantized weights and no input
  /// rounding (rounding has zero derivative almost everywhere).
  Surrogate(NetworkSpec spec, const std::vector<Tensor>& parameters, Columns inputs,
            Columns outputs, Normalization input_stats, Normalization output_stats,
            std::vector<Int8Layer> int8);

  /// Whose matrix products predict() uses (see the file comment).
  enum class Gemm {
    automatic,  ///< oneDNN for float32 and int8 from 16 rows on, where built
    eigen       ///< Eigen always (the reference the oneDNN path is tested against)
  };
  /// {rows, n_in} in physical units (any floating dtype) -> {rows, n_out}
  /// float64. Computed in the network's dtype. Thread-safe.
  Tensor predict(const Tensor& x, Gemm gemm = Gemm::automatic) const;
  /// "oneDNN" or "Eigen": who multiplies in predict() of `rows` rows.
  std::string gemm_backend(index_t rows) const;
  /// {rows, n_in} -> {rows, n_out, n_in}: d output / d input per row.
  /// Thread-safe.
  Tensor jacobian(const Tensor& x) const;
  /// The same function as an AD-engine op ({rows, n_in} -> {rows, n_out},
  /// physical units, the network's dtype).
  ad::Var forward(const ad::Var& x) const;

  const NetworkSpec& spec() const { return spec_; }
  const Columns& inputs() const { return inputs_; }
  const Columns& outputs() const { return outputs_; }
  const Normalization& input_stats() const { return input_stats_; }
  const Normalization& output_stats() const { return output_stats_; }
  /// The network (for its named parameters, describe(), num_parameters()).
  const Module& network() const { return *net_; }
  bool quantized() const { return !int8_.empty(); }
  const std::vector<Int8Layer>& int8_layers() const { return int8_; }
  /// For calibration: the largest |input| of each dense layer over the rows
  /// of x (physical units in), from the float plan.
  std::vector<double> dense_input_max(const Tensor& x) const;

 private:
  struct Plan;
  NetworkSpec spec_;
  Columns inputs_, outputs_;
  Normalization input_stats_, output_stats_;
  std::shared_ptr<Module> net_;
  std::vector<Int8Layer> int8_;
  std::shared_ptr<const Plan> plan_;
};

/// How well a surrogate's input Jacobian matches reference gradients (a
/// solver's adjoint gradients) at rows x {rows, n_in}, with dy {rows,
/// n_out, n_in}: per output o, the sums over the rows and inputs of
/// (J - dy)^2 and of dy^2 (sums, so that ranks holding different rows add
/// them before taking relative()).
struct JacobianMisfit {
  std::vector<double> squared_error, squared_reference;
  /// sqrt(squared_error / squared_reference) per output: the relative
  /// Frobenius error over the rows.
  std::vector<double> relative() const;
};
JacobianMisfit jacobian_misfit(const Surrogate& s, const Tensor& x, const Tensor& dy);

}  // namespace camber::nn
