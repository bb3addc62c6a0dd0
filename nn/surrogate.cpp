#include <camber/nn/surrogate.hpp>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <Eigen/Dense>

#include <camber/core/error.hpp>

#if CAMBER_WITH_DNNL
#include "detail/dnnl_dense.hpp"
#endif

namespace camber::nn {

void check_spec(const NetworkSpec& s) {
  CAMBER_INPUT_REQUIRE(s.kind == "mlp" || s.kind == "residual_mlp",
                       "network kind '" << s.kind << "' (mlp, residual_mlp)");
  CAMBER_INPUT_REQUIRE(s.in > 0 && s.out > 0, "network: in and out must be positive, got "
                                                  << s.in << " and " << s.out);
  for (index_t w : s.hidden)
    CAMBER_INPUT_REQUIRE(w > 0, "network: hidden widths must be positive, got " << w);
  CAMBER_INPUT_REQUIRE(s.dtype == DType::float64 || s.dtype == DType::float32,
                       "network: dtype must be float64 or float32, got " << dtype_name(s.dtype));
  if (s.kind == "residual_mlp") {
    CAMBER_INPUT_REQUIRE(!s.hidden.empty(), "network: a residual_mlp needs hidden widths");
    for (index_t w : s.hidden)
      CAMBER_INPUT_REQUIRE(w == s.hidden[0], "network: a residual_mlp's widths must all be equal "
                                             "(its blocks add), got "
                                                 << w << " and " << s.hidden[0]);
  }
}

std::shared_ptr<Module> make_network(const NetworkSpec& spec, Rng& rng, Init init) {
  check_spec(spec);
  if (spec.kind == "residual_mlp")
    return std::make_shared<ResidualMlp>(spec.in, spec.hidden[0],
                                         static_cast<int>(spec.hidden.size() - 1), spec.out,
                                         spec.activation, rng, init, spec.dtype);
  MlpOptions o;
  o.in = spec.in;
  o.out = spec.out;
  o.hidden = spec.hidden;
  o.activation = spec.activation;
  o.init = init;
  o.dtype = spec.dtype;
  return mlp(o, rng);
}

namespace {

// One step of the inference plan.
struct Op {
  enum Kind { dense, activation, save, add_saved } kind;
  size_t layer = 0;  // dense: index into the plan's layers
  Activation a = Activation::identity;
};

// The op sequence of spec's network; layer k uses parameters 2k, 2k + 1
// (weight {in, out}, bias {out}), as make_network() registers them.
std::vector<Op> op_sequence(const NetworkSpec& spec) {
  std::vector<Op> ops;
  size_t layer = 0;
  auto dense = [&] { ops.push_back({Op::dense, layer++, Activation::identity}); };
  auto act = [&] { ops.push_back({Op::activation, 0, spec.activation}); };
  if (spec.kind == "residual_mlp") {
    dense();
    for (size_t b = 1; b < spec.hidden.size(); ++b) {
      ops.push_back({Op::save, 0, Activation::identity});
      act();
      dense();
      act();
      dense();
      ops.push_back({Op::add_saved, 0, Activation::identity});
    }
    act();
    dense();
  } else {
    for (size_t k = 0; k < spec.hidden.size(); ++k) {
      dense();
      act();
    }
    dense();
  }
  return ops;
}

// f'(z) of an activation, element-wise, as the engine defines f (layers.cpp:
// gelu is the tanh approximation).
template <class T>
T act_derivative(Activation a, T z) {
  switch (a) {
    case Activation::identity: return T(1);
    case Activation::tanh: {
      const T t = std::tanh(z);
      return T(1) - t * t;
    }
    case Activation::relu: return z > T(0) ? T(1) : T(0);
    case Activation::gelu: {
      const T c = T(std::sqrt(2.0 / M_PI));
      const T t = std::tanh(c * (z + T(0.044715) * z * z * z));
      return T(0.5) * (T(1) + t) +
             T(0.5) * z * (T(1) - t * t) * c * (T(1) + T(3 * 0.044715) * z * z);
    }
    case Activation::silu: {
      const T s = T(1) / (T(1) + std::exp(-z));
      return s * (T(1) + z * (T(1) - s));
    }
    case Activation::softplus: return T(1) / (T(1) + std::exp(-z));
    case Activation::sin: return std::cos(z);
  }
  return T(1);
}

// The same on an array, in place, vectorized where Eigen vectorizes the
// function (tanh, exp, sin for float; exp for double).
template <class Arr>
void apply_activation(Activation a, Arr& y) {
  using T = typename Arr::Scalar;
  const Arr& x = y;  // coefficient-wise: in place is safe
  switch (a) {
    case Activation::identity: y = x; return;
    case Activation::tanh: y = x.tanh(); return;
    case Activation::relu: y = x.max(T(0)); return;
    case Activation::gelu: {
      const T c = T(std::sqrt(2.0 / M_PI));
      y = T(0.5) * x * (T(1) + (c * (x + T(0.044715) * x * x * x)).tanh());
      return;
    }
    case Activation::silu: y = x / (T(1) + (-x).exp()); return;
    case Activation::softplus: y = x.max(T(0)) + (-x.abs()).exp().log1p(); return;
    case Activation::sin: y = x.sin(); return;
  }
}

// f on the n values at data (an Eigen allocation, so aligned), in place.
// Every value goes through Eigen's vectorized formula: the whole packets in
// place, the last partial one padded with zeros. Eigen would compute that
// last part with its scalar formula, which can differ in the last bit
// (no FMA), so a value would depend on its position in the matrix, and the
// padded oneDNN blocks would not give the Eigen path's int8 integers.
template <class T>
void activate(Activation a, T* data, index_t n) {
  using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;
  constexpr index_t pad = 16;  // a multiple of every packet size
  const index_t body = n / pad * pad;
  Eigen::Map<Arr, Eigen::AlignedMax> whole(data, body);
  apply_activation(a, whole);
  if (body == n) return;
  Eigen::Array<T, pad, 1> tail = Eigen::Array<T, pad, 1>::Zero();
  std::copy(data + body, data + n, tail.data());
  apply_activation(a, tail);
  std::copy(tail.data(), tail.data() + (n - body), data + body);
}

template <class Mat>
Mat activation_derivative(Activation a, const Mat& z) {
  using T = typename Mat::Scalar;
  return z.unaryExpr([a](T v) { return act_derivative(a, v); });
}

// QuantizeLinear: v / s rounded half to even (rint in the default rounding
// mode; unlike nearbyint, compilers vectorize it), saturated to int8, as a
// float.
template <class T>
T quantize_linear(T v, T s) {
  return std::min(T(127), std::max(T(-128), std::rint(v / s)));
}

// From this many rows on, float32 and int8 predict() multiply with oneDNN;
// below, Eigen, whose single-row call is cheaper than oneDNN's per-call
// cost (docs/performance.md, "Inference against ONNX Runtime").
constexpr index_t kDnnlMinRows = 16;

}  // namespace

// Dense layers as row-major Eigen matrices in the network's dtype.
template <class T>
struct TypedPlan {
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Row = Eigen::Matrix<T, 1, Eigen::Dynamic>;
  std::vector<Mat> weight;
  std::vector<Row> bias;
  std::vector<Op> ops;
  // int8 layers (empty for a float network): the integer weights as T, and
  // per layer the input scale and input_scale * weight scale per column.
  std::vector<Mat> weight_int;
  std::vector<T> input_scale;
  std::vector<Row> output_scale;
  // With `observe`, the largest |input| of each dense layer (calibration).
  mutable std::vector<double>* observe = nullptr;
  Row in_scale, in_shift;    // x_n = x * in_scale + in_shift
  Row out_scale, out_shift;  // y = y_n * out_scale + out_shift
#if CAMBER_WITH_DNNL
  // float32 plans: the dense layers for oneDNN (empty: Eigen only), and per
  // layer whether the activation that follows runs inside its product and
  // (int8) whether the product writes the next layer's int8 input.
  std::vector<detail::DnnlDense> dnnl;
  std::vector<char> dnnl_fused, dnnl_int8_out;
#endif

  // Whether run() multiplies with oneDNN: predict() on a float32 or int8
  // plan with at least kDnnlMinRows rows.
  bool uses_dnnl(index_t rows) const {
#if CAMBER_WITH_DNNL
    return !dnnl.empty() && observe == nullptr && rows >= kDnnlMinRows;
#else
    (void)rows;
    return false;
#endif
  }

  // The forward pass; with tangents (one {rows, width} matrix per input),
  // forward mode alongside (Eigen). Without, and with allow_dnnl, oneDNN
  // where uses_dnnl() says so: blocks of at most max_block_rows() rows,
  // each padded with zero rows up to padded_rows().
  Mat run(const Mat& x, std::vector<Mat>* tangents, bool allow_dnnl = true) const {
#if CAMBER_WITH_DNNL
    if (allow_dnnl && tangents == nullptr && uses_dnnl(x.rows())) {
      detail::SingleThreadScope one_thread;
      const index_t block = detail::DnnlDense::max_block_rows();
      Mat y(x.rows(), out_scale.size());
      for (index_t r0 = 0; r0 < x.rows(); r0 += block) {
        const index_t n = std::min(block, x.rows() - r0);
        y.middleRows(r0, n) = forward_dnnl(x.middleRows(r0, n));
      }
      return y;
    }
#else
    (void)allow_dnnl;
#endif
    return forward(x, tangents);
  }

  Mat forward(const Mat& x, std::vector<Mat>* tangents) const {
    Mat h = (x.array().rowwise() * in_scale.array()).rowwise() + in_shift.array();
    std::vector<Mat> saved_h;
    std::vector<std::vector<Mat>> saved_d;
    if (tangents != nullptr) {
      const index_t n_in = x.cols();
      tangents->assign(static_cast<size_t>(n_in), Mat::Zero(x.rows(), n_in));
      for (index_t k = 0; k < n_in; ++k) (*tangents)[static_cast<size_t>(k)].col(k).setConstant(in_scale(k));
    }
    for (const Op& op : ops) {
      switch (op.kind) {
        case Op::dense: {
          Mat z(h.rows(), weight[op.layer].cols());
          if (observe != nullptr)
            (*observe)[op.layer] = std::max((*observe)[op.layer], static_cast<double>(h.cwiseAbs().maxCoeff()));
          if (!weight_int.empty() && tangents == nullptr) {
            const Mat q = h.unaryExpr([s = input_scale[op.layer]](T v) { return quantize_linear(v, s); });
            z.noalias() = q * weight_int[op.layer];
            z.array().rowwise() *= output_scale[op.layer].array();
          } else {
            z.noalias() = h * weight[op.layer];
          }
          z.rowwise() += bias[op.layer];
          h.swap(z);
          if (tangents != nullptr)
            for (Mat& d : *tangents) d = d * weight[op.layer];
          break;
        }
        case Op::activation: {
          if (tangents != nullptr) {
            const Mat dz = activation_derivative(op.a, h);
            for (Mat& d : *tangents) d.array() *= dz.array();
          }
          activate(op.a, h.data(), h.size());
          break;
        }
        case Op::save:
          saved_h.push_back(h);
          if (tangents != nullptr) saved_d.push_back(*tangents);
          break;
        case Op::add_saved:
          h += saved_h.back();
          saved_h.pop_back();
          if (tangents != nullptr) {
            for (size_t k = 0; k < tangents->size(); ++k) (*tangents)[k] += saved_d.back()[k];
            saved_d.pop_back();
          }
          break;
      }
    }
    return (h.array().rowwise() * out_scale.array()).rowwise() + out_shift.array();
  }

#if CAMBER_WITH_DNNL
  // The calling thread's buffers for forward_dnnl(), kept between calls
  // (fresh large matrices would cost page faults on every call): two that
  // alternate as a layer's input and output, the saved residual inputs,
  // and two that alternate as int8 layers' quantized inputs and outputs.
  // Eigen vectors, so aligned.
  struct Workspace {
    using Buffer = Eigen::Matrix<T, Eigen::Dynamic, 1>;
    using Int8Buffer = Eigen::Matrix<std::int8_t, Eigen::Dynamic, 1>;
    std::vector<Buffer> buffers = std::vector<Buffer>(2);
    Int8Buffer q[2];
    T* get(size_t b, index_t size) {
      if (buffers.size() <= b) buffers.resize(b + 1);
      if (buffers[b].size() < size) buffers[b].resize(size);
      return buffers[b].data();
    }
    std::int8_t* get_int8(size_t b, index_t size) {
      if (q[b].size() < size) q[b].resize(size);
      return q[b].data();
    }
  };
  using Block = Eigen::Map<Mat, Eigen::AlignedMax>;

  // The plan on rows x (at most max_block_rows()) through oneDNN, padded
  // with zero rows up to padded_rows(). float32: the bias and, where oneDNN
  // has it, the activation fused into the product. int8: the product gives
  // float(sum) * (input scale * weight scale) per column, as the Eigen path,
  // then the bias; where the next op is a dense layer, or an activation
  // oneDNN has and then a dense layer, the activation and the next layer's
  // quantization run in the product too, which writes int8 (dnnl_dense.hpp
  // says how these can differ from the Eigen path's integers).
  Mat forward_dnnl(const Eigen::Ref<const Mat>& x) const {
    if constexpr (std::is_same<T, float>::value) {
      thread_local Workspace w;
      const index_t n = x.rows(), rows = detail::DnnlDense::padded_rows(n);
      size_t cur = 0, depth = 0;  // the buffer of h; saved residual inputs
      size_t qcur = 0;            // the int8 buffer of h, where quantized
      bool quantized = false;     // whether h is in w.q[qcur], quantized
      index_t width = x.cols();
      Block h(w.get(cur, rows * width), rows, width);
      h.topRows(n) = (x.array().rowwise() * in_scale.array()).rowwise() + in_shift.array();
      h.bottomRows(rows - n).setZero();
      for (size_t i = 0; i < ops.size(); ++i) {
        const Op& op = ops[i];
        Block hb(w.get(cur, rows * width), rows, width);
        if (op.kind == Op::dense) {
          const size_t k = op.layer, next = cur == 0 ? 1 : 0;
          const index_t out = weight[k].cols();
          Block z(w.get(next, rows * out), rows, out);
          if (weight_int.empty()) {
            dnnl[k].run(hb.data(), z.data(), rows);
            cur = next;
          } else {
            if (!quantized) {
              // Local pointers: int8 stores may alias anything, w included.
              std::int8_t* q = w.get_int8(qcur, hb.size());
              const T* v = hb.data();
              const T s = input_scale[k];
              const index_t size = hb.size();
              for (index_t j = 0; j < size; ++j) q[j] = static_cast<std::int8_t>(quantize_linear(v[j], s));
            }
            const std::int8_t* q = w.q[qcur].data();
            quantized = dnnl_int8_out[k] != 0;
            if (quantized) {
              qcur = 1 - qcur;
              dnnl[k].run(q, w.get_int8(qcur, rows * out), rows);
            } else {
              dnnl[k].run(q, z.data(), rows);
              cur = next;
            }
          }
          if (dnnl_fused[k] != 0) ++i;  // the activation ran in the product
          width = out;
        } else if (op.kind == Op::activation) {
          activate(op.a, hb.data(), hb.size());
        } else if (op.kind == Op::save) {
          Block(w.get(2 + depth++, hb.size()), rows, width) = hb;
        } else {
          hb += Block(w.get(2 + --depth, hb.size()), rows, width);
        }
      }
      CAMBER_ASSERT(!quantized);
      const Block y(w.get(cur, rows * width), rows, width);
      return (y.topRows(n).array().rowwise() * out_scale.array()).rowwise() + out_shift.array();
    } else {
      CAMBER_ASSERT(false);
      return x;
    }
  }
#endif
};

struct Surrogate::Plan {
  std::unique_ptr<TypedPlan<double>> f64;
  std::unique_ptr<TypedPlan<float>> f32;
};

namespace {

template <class T>
std::unique_ptr<TypedPlan<T>> build_plan(const NetworkSpec& spec, const std::vector<Tensor>& params,
                                         const Normalization& in, const Normalization& out,
                                         const std::vector<Int8Layer>& int8) {
  auto p = std::make_unique<TypedPlan<T>>();
  p->ops = op_sequence(spec);
  for (size_t k = 0; k < int8.size(); ++k) {
    const index_t rows = params[2 * k].dim(0), cols = params[2 * k].dim(1);
    typename TypedPlan<T>::Mat m(rows, cols);
    for (index_t i = 0; i < rows * cols; ++i) m.data()[i] = static_cast<T>(int8[k].values[static_cast<size_t>(i)]);
    typename TypedPlan<T>::Row r(cols);
    for (index_t j = 0; j < cols; ++j)
      r(j) = static_cast<T>(int8[k].input_scale * int8[k].scales[static_cast<size_t>(j)]);
    p->weight_int.push_back(std::move(m));
    p->output_scale.push_back(std::move(r));
    p->input_scale.push_back(static_cast<T>(int8[k].input_scale));
  }
  for (size_t k = 0; k + 1 < params.size(); k += 2) {
    const std::vector<double> w = params[k].to(DType::float64).to_vector();
    const std::vector<double> b = params[k + 1].to(DType::float64).to_vector();
    typename TypedPlan<T>::Mat m(params[k].dim(0), params[k].dim(1));
    for (size_t i = 0; i < w.size(); ++i) m.data()[i] = static_cast<T>(w[i]);
    typename TypedPlan<T>::Row r(static_cast<index_t>(b.size()));
    for (size_t i = 0; i < b.size(); ++i) r(static_cast<index_t>(i)) = static_cast<T>(b[i]);
    p->weight.push_back(std::move(m));
    p->bias.push_back(std::move(r));
  }
  auto row = [](const std::vector<double>& v) {
    typename TypedPlan<T>::Row r(static_cast<index_t>(v.size()));
    for (size_t i = 0; i < v.size(); ++i) r(static_cast<index_t>(i)) = static_cast<T>(v[i]);
    return r;
  };
  std::vector<double> scale, shift;
  for (size_t j = 0; j < in.mean.size(); ++j) {
    scale.push_back(1.0 / in.stddev[j]);
    shift.push_back(-in.mean[j] / in.stddev[j]);
  }
  p->in_scale = row(scale);
  p->in_shift = row(shift);
  p->out_scale = row(out.stddev);
  p->out_shift = row(out.mean);
  return p;
}

void check_columns(const Columns& c, const Normalization& n, index_t count, const char* what) {
  CAMBER_INPUT_REQUIRE(static_cast<index_t>(c.names.size()) == count && c.units.size() == c.names.size(),
                       "surrogate: " << count << " " << what << " need as many names and units, got "
                                     << c.names.size() << " and " << c.units.size());
  CAMBER_INPUT_REQUIRE(static_cast<index_t>(n.mean.size()) == count &&
                           static_cast<index_t>(n.stddev.size()) == count,
                       "surrogate: " << count << " " << what << " need as many means and standard "
                                     << "deviations, got " << n.mean.size() << " and "
                                     << n.stddev.size());
  for (size_t j = 0; j < n.stddev.size(); ++j)
    CAMBER_INPUT_REQUIRE(std::isfinite(n.mean[j]) && std::isfinite(n.stddev[j]) && n.stddev[j] > 0.0,
                         "surrogate: " << what << " column " << j << " ('" << c.names[j]
                                       << "') has mean " << n.mean[j] << " and standard deviation "
                                       << n.stddev[j] << " (finite, std > 0 required)");
}

template <class T>
typename TypedPlan<T>::Mat to_matrix(const Tensor& x, index_t n_in) {
  CAMBER_INPUT_REQUIRE(x.rank() == 2 && x.dim(1) == n_in,
                       "surrogate: inputs of shape {rows, " << n_in << "} expected, got "
                                                            << shape_string(x.shape()));
  CAMBER_INPUT_REQUIRE(x.dtype() != DType::int64, "surrogate: int64 inputs");
  const std::vector<double> v = x.to(DType::float64).to_vector();
  typename TypedPlan<T>::Mat m(x.dim(0), n_in);
  for (size_t i = 0; i < v.size(); ++i) m.data()[i] = static_cast<T>(v[i]);
  return m;
}

// The float32 plan's dense layers for oneDNN (nothing without it).
void add_dnnl_layers(TypedPlan<float>& p) {
#if CAMBER_WITH_DNNL
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (p.ops[i].kind != Op::dense) continue;
    const size_t k = p.ops[i].layer;
    const index_t in = p.weight[k].rows(), out = p.weight[k].cols();
    auto is = [&p](size_t j, Op::Kind kind) { return j < p.ops.size() && p.ops[j].kind == kind; };
    const bool fuse = is(i + 1, Op::activation) && detail::DnnlDense::fuses(p.ops[i + 1].a);
    const Activation act = fuse ? p.ops[i + 1].a : Activation::identity;
    if (p.weight_int.empty()) {
      p.dnnl.emplace_back(p.weight[k].data(), p.bias[k].data(), in, out, act);
      p.dnnl_fused.push_back(fuse ? 1 : 0);
      p.dnnl_int8_out.push_back(0);
      continue;
    }
    // int8: the activation runs in the product only with the next layer's
    // quantization, where that layer follows at once.
    const size_t next = fuse ? i + 2 : i + 1;
    const bool int8_out = (fuse || !is(i + 1, Op::activation)) && is(next, Op::dense);
    std::vector<std::int8_t> values(static_cast<size_t>(in * out));
    for (size_t j = 0; j < values.size(); ++j) values[j] = static_cast<std::int8_t>(p.weight_int[k].data()[j]);
    p.dnnl.emplace_back(values.data(), p.output_scale[k].data(), p.bias[k].data(), in, out,
                        int8_out ? act : Activation::identity,
                        int8_out ? p.input_scale[p.ops[next].layer] : 0.0f);
    p.dnnl_fused.push_back(int8_out && fuse ? 1 : 0);
    p.dnnl_int8_out.push_back(int8_out ? 1 : 0);
  }
#else
  (void)p;
#endif
}

template <class T>
Tensor predict_with(const TypedPlan<T>& plan, const Tensor& x, index_t n_in, bool allow_dnnl) {
  const typename TypedPlan<T>::Mat y = plan.run(to_matrix<T>(x, n_in), nullptr, allow_dnnl);
  std::vector<double> v(static_cast<size_t>(y.size()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(y.data()[i]);
  return Tensor::from_host({y.rows(), y.cols()}, v);
}

template <class T>
Tensor jacobian_with(const TypedPlan<T>& plan, const Tensor& x, index_t n_in) {
  std::vector<typename TypedPlan<T>::Mat> d;
  const typename TypedPlan<T>::Mat y = plan.run(to_matrix<T>(x, n_in), &d);
  const index_t rows = y.rows(), n_out = y.cols();
  std::vector<double> j(static_cast<size_t>(rows * n_out * n_in));
  for (index_t r = 0; r < rows; ++r)
    for (index_t o = 0; o < n_out; ++o)
      for (index_t k = 0; k < n_in; ++k)
        j[static_cast<size_t>((r * n_out + o) * n_in + k)] =
            static_cast<double>(d[static_cast<size_t>(k)](r, o) * plan.out_scale(o));
  return Tensor::from_host({rows, n_out, n_in}, j);
}

}  // namespace

Surrogate::Surrogate(NetworkSpec spec, const std::vector<Tensor>& parameters, Columns inputs,
                     Columns outputs, Normalization input_stats, Normalization output_stats)
    : Surrogate(std::move(spec), parameters, std::move(inputs), std::move(outputs),
                std::move(input_stats), std::move(output_stats), {}) {}

Surrogate::Surrogate(NetworkSpec spec, const std::vector<Tensor>& parameters, Columns inputs,
                     Columns outputs, Normalization input_stats, Normalization output_stats,
                     std::vector<Int8Layer> int8)
    : spec_(std::move(spec)),
      inputs_(std::move(inputs)),
      outputs_(std::move(outputs)),
      input_stats_(std::move(input_stats)),
      output_stats_(std::move(output_stats)),
      int8_(std::move(int8)) {
  check_spec(spec_);
  check_columns(inputs_, input_stats_, spec_.in, "inputs");
  check_columns(outputs_, output_stats_, spec_.out, "outputs");
  Rng rng(0);
  net_ = make_network(spec_, rng);
  const auto named = net_->named_parameters();
  CAMBER_INPUT_REQUIRE(parameters.size() == named.size(),
                       "surrogate: " << parameters.size() << " parameters for a network with "
                                     << named.size());
  for (size_t k = 0; k < named.size(); ++k) {
    const Tensor& want = named[k].second.value();
    CAMBER_INPUT_REQUIRE(parameters[k].shape() == want.shape(),
                         "surrogate: parameter '" << named[k].first << "' has shape "
                                                  << shape_string(parameters[k].shape())
                                                  << ", the network's is "
                                                  << shape_string(want.shape()));
    for (double v : parameters[k].to(DType::float64).to_vector())
      CAMBER_INPUT_REQUIRE(std::isfinite(v), "surrogate: parameter '" << named[k].first
                                                                      << "' holds " << v);
  }
  std::vector<Tensor> values;
  for (const Tensor& p : parameters) values.push_back(p.to(spec_.dtype));
  if (!int8_.empty()) {
    CAMBER_INPUT_REQUIRE(spec_.dtype == DType::float32,
                         "surrogate: an int8 network computes in float32, not " << dtype_name(spec_.dtype));
    CAMBER_INPUT_REQUIRE(2 * int8_.size() == named.size(), "surrogate: " << int8_.size()
                                                                         << " int8 layers for "
                                                                         << named.size() / 2
                                                                         << " dense layers");
    for (size_t k = 0; k < int8_.size(); ++k) {
      const Tensor& w = named[2 * k].second.value();
      const Int8Layer& q = int8_[k];
      CAMBER_INPUT_REQUIRE(static_cast<index_t>(q.values.size()) == w.size() &&
                               static_cast<index_t>(q.scales.size()) == w.dim(1),
                           "surrogate: int8 layer " << k << " ('" << named[2 * k].first << "') has "
                                                    << q.values.size() << " weights and "
                                                    << q.scales.size() << " scales for shape "
                                                    << shape_string(w.shape()));
      bool ok = std::isfinite(q.input_scale) && q.input_scale > 0.0;
      for (double sc : q.scales) ok = ok && std::isfinite(sc) && sc > 0.0;
      CAMBER_INPUT_REQUIRE(ok, "surrogate: int8 layer " << k << " ('" << named[2 * k].first
                                                        << "') has a scale that is not finite "
                                                           "and positive");
      // The network (forward(), jacobian()) holds the dequantized weights.
      std::vector<double> dq(q.values.size());
      const index_t cols = w.dim(1);
      for (size_t i = 0; i < dq.size(); ++i)
        dq[i] = static_cast<double>(q.values[i]) * q.scales[i % static_cast<size_t>(cols)];
      values[2 * k] = Tensor::from_host(w.shape(), dq).to(spec_.dtype);
    }
  }
  net_->load_parameter_values(values);
  auto plan = std::make_shared<Plan>();
  if (spec_.dtype == DType::float32) {
    plan->f32 = build_plan<float>(spec_, values, input_stats_, output_stats_, int8_);
    add_dnnl_layers(*plan->f32);
  } else
    plan->f64 = build_plan<double>(spec_, values, input_stats_, output_stats_, int8_);
  plan_ = std::move(plan);
}

Tensor Surrogate::predict(const Tensor& x, Gemm gemm) const {
  const bool allow_dnnl = gemm == Gemm::automatic;
  return plan_->f32 ? predict_with(*plan_->f32, x, spec_.in, allow_dnnl)
                    : predict_with(*plan_->f64, x, spec_.in, allow_dnnl);
}

std::string Surrogate::gemm_backend(index_t rows) const {
  return plan_->f32 && plan_->f32->uses_dnnl(rows) ? "oneDNN" : "Eigen";
}

Tensor Surrogate::jacobian(const Tensor& x) const {
  return plan_->f32 ? jacobian_with(*plan_->f32, x, spec_.in)
                    : jacobian_with(*plan_->f64, x, spec_.in);
}

std::vector<double> Surrogate::dense_input_max(const Tensor& x) const {
  std::vector<double> seen(net_->named_parameters().size() / 2, 0.0);
  if (plan_->f32) {
    TypedPlan<float> p = *plan_->f32;
    p.weight_int.clear();  // the float network
    p.observe = &seen;
    p.run(to_matrix<float>(x, spec_.in), nullptr);
  } else {
    TypedPlan<double> p = *plan_->f64;
    p.weight_int.clear();
    p.observe = &seen;
    p.run(to_matrix<double>(x, spec_.in), nullptr);
  }
  return seen;
}

ad::Var Surrogate::forward(const ad::Var& x) const {
  return output_stats_.invert(net_->forward(input_stats_.apply(x)));
}

std::vector<double> JacobianMisfit::relative() const {
  std::vector<double> r;
  for (size_t o = 0; o < squared_error.size(); ++o)
    r.push_back(std::sqrt(squared_error[o] / squared_reference[o]));
  return r;
}

JacobianMisfit jacobian_misfit(const Surrogate& s, const Tensor& x, const Tensor& dy) {
  const index_t n_in = s.spec().in, n_out = s.spec().out;
  CAMBER_REQUIRE(x.rank() == 2 && x.dim(1) == n_in && dy.rank() == 3 && dy.dim(0) == x.dim(0) &&
                     dy.dim(1) == n_out && dy.dim(2) == n_in,
                 "jacobian_misfit: x " << shape_string(x.shape()) << " and dy "
                                       << shape_string(dy.shape()) << " do not fit a "
                                       << n_in << " -> " << n_out << " surrogate");
  JacobianMisfit m;
  m.squared_error.assign(static_cast<size_t>(n_out), 0.0);
  m.squared_reference.assign(static_cast<size_t>(n_out), 0.0);
  if (x.dim(0) == 0) return m;
  const std::vector<double> j = s.jacobian(x).to_vector(), ref = dy.to(DType::float64).to_vector();
  for (size_t i = 0; i < j.size(); ++i) {
    const size_t o = (i / static_cast<size_t>(n_in)) % static_cast<size_t>(n_out);
    m.squared_error[o] += (j[i] - ref[i]) * (j[i] - ref[i]);
    m.squared_reference[o] += ref[i] * ref[i];
  }
  return m;
}

}  // namespace camber::nn
