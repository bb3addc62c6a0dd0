#include "dnnl_dense.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#endif

#include <camber/core/error.hpp>

namespace camber::nn::detail {

namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// Row counts with a primitive: steps of 16 up to 64, then about 1.5x apart,
// so that padding wastes at most a third of a block beyond 64 rows.
constexpr std::array<index_t, 12> kRowGrid = {16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};

dnnl::engine& cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// The calling thread's stream and a scratchpad that grows to the largest a
// primitive asked for (user scratchpads: no buffer shared between threads).
struct ThreadResources {
  dnnl::stream stream{cpu_engine()};
  std::vector<std::uint8_t> scratch;
  void* scratchpad(size_t bytes) {
    constexpr size_t align = 64;
    if (scratch.size() < bytes + align) scratch.resize(bytes + align);
    const auto p = reinterpret_cast<std::uintptr_t>(scratch.data());
    return scratch.data() + ((align - p % align) % align);
  }
};

ThreadResources& thread_resources() {
  thread_local ThreadResources r;
  return r;
}

dnnl::algorithm eltwise_of(Activation a) {
  switch (a) {
    case Activation::tanh: return dnnl::algorithm::eltwise_tanh;
    case Activation::relu: return dnnl::algorithm::eltwise_relu;
    case Activation::gelu: return dnnl::algorithm::eltwise_gelu_tanh;
    case Activation::silu: return dnnl::algorithm::eltwise_swish;
    case Activation::softplus: return dnnl::algorithm::eltwise_soft_relu;
    case Activation::identity:
    case Activation::sin: break;
  }
  return dnnl::algorithm::undef;
}

// Appends act (nothing for identity) to po.
void append_activation(dnnl::post_ops& po, Activation act) {
  if (act == Activation::identity) return;
  const float alpha = act == Activation::silu ? 1.0f : 0.0f;  // swish: x sigmoid(alpha x)
  po.append_eltwise(1.0f, eltwise_of(act), alpha, 0.0f);
}

}  // namespace

struct DnnlDense::Impl {
  index_t in = 0, out = 0;
  bool int8 = false;
  Activation act = Activation::identity;
  std::vector<float> column_scale;
  float next_scale = 0.0f;     // int8 layers: > 0 for an int8 output
  dnnl::memory weights_plain;  // {in, out} row-major, owned
  dnnl::memory bias;           // {1, out}
  std::vector<std::uint8_t> weights_storage;
  std::vector<float> bias_storage;

  struct Entry {
    dnnl::matmul matmul;
    dnnl::memory::desc src, dst, scratch;
    dnnl::memory weights;  // in the layout the primitive chose
  };
  mutable std::mutex mutex;
  mutable std::array<std::shared_ptr<const Entry>, kRowGrid.size()> entries;

  std::shared_ptr<const Entry> entry(index_t rows) const {
    const auto it = std::find(kRowGrid.begin(), kRowGrid.end(), rows);
    CAMBER_ASSERT(it != kRowGrid.end());
    const size_t slot = static_cast<size_t>(it - kRowGrid.begin());
    std::lock_guard<std::mutex> lock(mutex);
    if (!entries[slot]) entries[slot] = make_entry(rows);
    return entries[slot];
  }

  std::shared_ptr<const Entry> make_entry(index_t rows) const {
    const dt src_type = int8 ? dt::s8 : dt::f32;
    auto e = std::make_shared<Entry>();
    e->src = dnnl::memory::desc({rows, in}, src_type, tag::ab);
    e->dst = dnnl::memory::desc({rows, out}, next_scale > 0.0f ? dt::s8 : dt::f32, tag::ab);
    const dnnl::memory::desc w_any({in, out}, src_type, tag::any);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops po;
    if (int8) {
      // oneDNN 2.x: output_scale[j] * (float(s32 sum) + bias[j]), then the
      // post-ops in order (the constructor divided the bias by the scale).
      // The bias as a binary post-op instead would cost as much as the
      // product itself (1024 x 64 x 64: 10 us more, against 11 us).
      attr.set_output_scales(1 << 1, column_scale);
      append_activation(po, act);
      // To int8: the conversion rounds half to even (the default rounding
      // mode) and saturates.
      if (next_scale > 0.0f) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, 1.0f / next_scale, 0.0f);
    } else {
      append_activation(po, act);
    }
    attr.set_post_ops(po);
    const dnnl::matmul::desc d(e->src, w_any, bias.get_desc(), e->dst);
    const dnnl::matmul::primitive_desc pd(d, attr, cpu_engine());
    e->matmul = dnnl::matmul(pd);
    e->scratch = pd.scratchpad_desc();
    // Weights reordered once per layout (the row counts usually share one).
    for (const auto& other : entries)
      if (other && other->weights.get_desc() == pd.weights_desc()) e->weights = other->weights;
    if (!e->weights) {
      e->weights = dnnl::memory(pd.weights_desc(), cpu_engine());
      dnnl::stream& s = thread_resources().stream;
      dnnl::memory plain = weights_plain;  // a handle to the same memory
      dnnl::reorder(plain, e->weights).execute(s, plain, e->weights);
      s.wait();
    }
    return e;
  }
};

DnnlDense::DnnlDense(const float* weight, const float* bias, index_t in, index_t out,
                     Activation act)
    : impl_(std::make_shared<Impl>()) {
  CAMBER_ASSERT(fuses(act));
  Impl& m = *impl_;
  m.in = in;
  m.out = out;
  m.act = act;
  m.weights_storage.resize(static_cast<size_t>(in * out) * sizeof(float));
  std::memcpy(m.weights_storage.data(), weight, m.weights_storage.size());
  m.bias_storage.assign(bias, bias + out);
  m.weights_plain = dnnl::memory({{in, out}, dt::f32, tag::ab}, cpu_engine(), m.weights_storage.data());
  m.bias = dnnl::memory({{1, out}, dt::f32, tag::ab}, cpu_engine(), m.bias_storage.data());
}

DnnlDense::DnnlDense(const std::int8_t* values, const float* column_scale, const float* bias,
                     index_t in, index_t out, Activation act, float next_scale)
    : impl_(std::make_shared<Impl>()) {
  CAMBER_ASSERT(fuses(act) && next_scale >= 0.0f);
  Impl& m = *impl_;
  m.in = in;
  m.out = out;
  m.int8 = true;
  m.act = act;
  m.next_scale = next_scale;
  m.column_scale.assign(column_scale, column_scale + out);
  m.weights_storage.resize(static_cast<size_t>(in * out));
  std::memcpy(m.weights_storage.data(), values, m.weights_storage.size());
  for (index_t j = 0; j < out; ++j) m.bias_storage.push_back(bias[j] / column_scale[j]);
  m.weights_plain = dnnl::memory({{in, out}, dt::s8, tag::ab}, cpu_engine(), m.weights_storage.data());
  m.bias = dnnl::memory({{1, out}, dt::f32, tag::ab}, cpu_engine(), m.bias_storage.data());
}

bool DnnlDense::fuses(Activation a) {
  return a == Activation::identity || eltwise_of(a) != dnnl::algorithm::undef;
}

index_t DnnlDense::padded_rows(index_t rows) {
  const auto it = std::lower_bound(kRowGrid.begin(), kRowGrid.end(), rows);
  CAMBER_ASSERT(it != kRowGrid.end());
  return *it;
}

index_t DnnlDense::max_block_rows() { return kRowGrid.back(); }

void DnnlDense::run(const void* src, void* dst, index_t rows) const {
  const std::shared_ptr<const Impl::Entry> e = impl_->entry(rows);
  ThreadResources& r = thread_resources();
  const dnnl::engine& eng = cpu_engine();
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, dnnl::memory(e->src, eng, const_cast<void*>(src))},
      {DNNL_ARG_WEIGHTS, e->weights},
      {DNNL_ARG_DST, dnnl::memory(e->dst, eng, dst)},
      {DNNL_ARG_SCRATCHPAD, dnnl::memory(e->scratch, eng, r.scratchpad(e->scratch.get_size()))},
      {DNNL_ARG_BIAS, impl_->bias}};
  e->matmul.execute(r.stream, args);
  r.stream.wait();
}

SingleThreadScope::SingleThreadScope() : saved_(1) {
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
  saved_ = omp_get_max_threads();
  omp_set_num_threads(1);
#endif
}

SingleThreadScope::~SingleThreadScope() {
#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
  omp_set_num_threads(saved_);
#endif
}

}  // namespace camber::nn::detail
