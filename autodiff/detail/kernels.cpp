#include "kernels.hpp"

#include <Eigen/Core>

#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>

#if defined(CAMBER_USE_CUBLAS)
#include <cublas_v2.h>

#include <climits>
#endif

namespace camber::ad::detail {

namespace {

template <class Op>
Tensor binary_same(const char* label, const Tensor& a, const Tensor& b, Op op) {
  CAMBER_REQUIRE(a.shape() == b.shape(), label << ": shapes " << shape_string(a.shape()) << " and "
                                               << shape_string(b.shape()) << " differ");
  Tensor out = Tensor::uninitialized(a.shape());
  auto va = a.view();
  auto vb = b.view();
  auto vo = out.view();
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<>(0, a.size()),
      KOKKOS_LAMBDA(index_t i) { vo(i) = op(va(i), vb(i)); });
  return out;
}

struct AxisSplit {
  index_t outer = 1, n = 0, inner = 1;
};

AxisSplit split(const Shape& shape, int axis) {
  CAMBER_REQUIRE(axis >= 0 && axis < static_cast<int>(shape.size()),
                 "axis " << axis << " out of range for shape " << shape_string(shape));
  AxisSplit s;
  for (int d = 0; d < axis; ++d) s.outer *= shape[static_cast<size_t>(d)];
  s.n = shape[static_cast<size_t>(axis)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) s.inner *= shape[d];
  return s;
}

// Element q of a block of shape {outer, len, inner} (row-major) as its
// three coordinates: the layout slice, pad, index_select and scatter_add
// walk along one axis.
struct AxisPosition {
  index_t outer, j, inner;
};

KOKKOS_INLINE_FUNCTION AxisPosition axis_position(index_t q, index_t len, index_t inner) {
  const index_t o = q / (len * inner);
  const index_t rem = q - o * len * inner;
  const index_t j = rem / inner;
  return {o, j, rem - j * inner};
}

}  // namespace

bool broadcastable_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const size_t shift = to.size() - from.size();
  for (size_t k = 0; k < from.size(); ++k)
    if (from[k] != 1 && from[k] != to[k + shift]) return false;
  return true;
}

Tensor broadcast_to(const Tensor& a, const Shape& shape) {
  CAMBER_REQUIRE(broadcastable_to(a.shape(), shape), "cannot broadcast shape "
                                                         << shape_string(a.shape()) << " to "
                                                         << shape_string(shape));
  if (a.shape() == shape) return a;
  return camber::add(Tensor(shape), a);
}

Tensor eq_mask(const Tensor& a, const Tensor& b) {
  return binary_same(
      "camber::ad::eq_mask", a, b,
      KOKKOS_LAMBDA(double x, double y) { return x == y ? 1.0 : 0.0; });
}
Tensor sum_keepdims(const Tensor& a, int axis) {
  Shape keep = a.shape();
  keep[static_cast<size_t>(axis)] = 1;
  return camber::sum(a, axis).reshape(keep);
}

Tensor max_keepdims(const Tensor& a, int axis) {
  Shape keep = a.shape();
  keep[static_cast<size_t>(axis)] = 1;
  return camber::max(a, axis).reshape(keep);
}

// Eigen on host copies. Measured against KokkosBlas::gemm (Debian's Trilinos
// KokkosKernels 13.2, Serial, -O2, square n x n, one core): Eigen was 2.2x
// (n = 16), 2.1x (64), 3.2x (256) and 2.9x (512) faster, so Eigen it is on
// host backends. On a GPU backend this copies through the host; switch to
// KokkosBlas::gemm there (a benchmarks/autodiff/ entry is still to be
// written to keep this measured).
namespace {
template <class T>
void gemm_batches(const Tensor& a, const Tensor& b, const Tensor& out, index_t batch, index_t m,
                  index_t k, index_t n) {
  auto va = a.typed_view<T>();
  auto vb = b.typed_view<T>();
  auto vo = out.typed_view<T>();
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), va);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), vb);
  auto ho = Kokkos::create_mirror_view(Kokkos::HostSpace(), vo);
  using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  for (index_t p = 0; p < batch; ++p) {
    Eigen::Map<const RowMat> ma(ha.data() + p * m * k, m, k);
    Eigen::Map<const RowMat> mb(hb.data() + p * k * n, k, n);
    Eigen::Map<RowMat> mo(ho.data() + p * m * n, m, n);
    if (m * n > 0) mo.noalias() = ma * mb;
  }
  Kokkos::deep_copy(vo, ho);
}
}  // namespace

#if defined(CAMBER_USE_CUBLAS)
namespace {
// One handle for the process (never destroyed: the CUDA context may be gone
// at exit), on the stream of Kokkos' default CUDA instance, so the GEMM is
// ordered with every other kernel.
cublasHandle_t cublas_handle() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    CAMBER_REQUIRE(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "matmul: cublasCreate failed");
    return h;
  }();
  cublasSetStream(handle, Kokkos::Cuda().cuda_stream());
  return handle;
}

// Row-major C (m x n) = A (m x k) B (k x n) per batch is column-major
// C^T = B^T A^T: cuBLAS with the operands swapped, no transposes.
void device_gemm(const Tensor& a, const Tensor& b, const Tensor& out, index_t batch, index_t m,
                 index_t k, index_t n) {
  CAMBER_REQUIRE(m < INT_MAX && n < INT_MAX && k < INT_MAX && batch < INT_MAX,
                 "matmul: a dimension exceeds cuBLAS' int range");
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  cublasStatus_t status;
  if (a.dtype() == DType::float32) {
    const float one = 1.0f, zero = 0.0f;
    status = cublasSgemmStridedBatched(
        cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one,
        static_cast<const float*>(b.raw_data()), in, k * n,
        static_cast<const float*>(a.raw_data()), ik, m * k, &zero,
        static_cast<float*>(out.raw_data()), in, m * n, static_cast<int>(batch));
  } else {
    const double one = 1.0, zero = 0.0;
    status = cublasDgemmStridedBatched(
        cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one,
        static_cast<const double*>(b.raw_data()), in, k * n,
        static_cast<const double*>(a.raw_data()), ik, m * k, &zero,
        static_cast<double*>(out.raw_data()), in, m * n, static_cast<int>(batch));
  }
  CAMBER_REQUIRE(status == CUBLAS_STATUS_SUCCESS, "matmul: cuBLAS GEMM failed (status "
                                                      << static_cast<int>(status) << ")");
}
}  // namespace
#endif

Tensor matmul(const Tensor& a, const Tensor& b) {
  CAMBER_REQUIRE(a.rank() >= 2 && a.rank() == b.rank(),
                 "matmul: needs two tensors of equal rank >= 2, got "
                     << shape_string(a.shape()) << " and " << shape_string(b.shape()));
  CAMBER_REQUIRE(a.dtype() == b.dtype() && a.dtype() != DType::int64,
                 "matmul: takes two float64 or two float32 tensors, got "
                     << dtype_name(a.dtype()) << " and " << dtype_name(b.dtype())
                     << "; convert explicitly with Tensor::to()");
  const int r = a.rank();
  const index_t m = a.shape()[static_cast<size_t>(r - 2)];
  const index_t k = a.shape()[static_cast<size_t>(r - 1)];
  const index_t n = b.shape()[static_cast<size_t>(r - 1)];
  CAMBER_REQUIRE(b.shape()[static_cast<size_t>(r - 2)] == k &&
                     Shape(a.shape().begin(), a.shape().end() - 2) ==
                         Shape(b.shape().begin(), b.shape().end() - 2),
                 "matmul: shapes " << shape_string(a.shape()) << " and " << shape_string(b.shape())
                                   << " do not match");
  Shape out_shape(a.shape().begin(), a.shape().end() - 2);
  const index_t batch = shape_size(out_shape);
  out_shape.push_back(m);
  out_shape.push_back(n);
  // Zeros: a product with k = 0 is zero, and GEMM writes every other entry.
  Tensor out = Tensor::zeros(out_shape, a.dtype());
#if defined(CAMBER_USE_CUBLAS)
  // Device memory: multiply there (no copies to the host).
  if (batch * m * n > 0 && k > 0) device_gemm(a, b, out, batch, m, k, n);
  return out;
#endif
  if (a.dtype() == DType::float32) {
    gemm_batches<float>(a, b, out, batch, m, k, n);
  } else {
    gemm_batches<double>(a, b, out, batch, m, k, n);
  }
  return out;
}

namespace {
template <class T>
void transpose_into(const Tensor& a, const Tensor& out, index_t m, index_t n) {
  auto va = a.typed_view<T>();
  auto vo = out.typed_view<T>();
  Kokkos::parallel_for(
      "camber::ad::transpose", Kokkos::RangePolicy<>(0, a.size()), KOKKOS_LAMBDA(index_t o) {
        // o indexes out = (p, j, i) with shape (.., n, m)
        const index_t p = o / (m * n);
        const index_t rem = o - p * m * n;
        const index_t j = rem / m;
        const index_t i = rem - j * m;
        vo(o) = va(p * m * n + i * n + j);
      });
}
}  // namespace

Tensor transpose(const Tensor& a) {
  CAMBER_REQUIRE(a.rank() >= 2, "transpose: needs rank >= 2, got " << shape_string(a.shape()));
  const int r = a.rank();
  Shape out_shape = a.shape();
  std::swap(out_shape[static_cast<size_t>(r - 2)], out_shape[static_cast<size_t>(r - 1)]);
  const index_t m = a.shape()[static_cast<size_t>(r - 2)];
  const index_t n = a.shape()[static_cast<size_t>(r - 1)];
  Tensor out = Tensor::uninitialized(out_shape, a.dtype());
  switch (a.dtype()) {
    case DType::float64: transpose_into<double>(a, out, m, n); break;
    case DType::float32: transpose_into<float>(a, out, m, n); break;
    case DType::int64: transpose_into<std::int64_t>(a, out, m, n); break;
  }
  return out;
}

namespace {
template <class T>
void pad_into(const Tensor& g, const Tensor& out, index_t n, index_t inner, index_t start,
              index_t len) {
  auto vg = g.typed_view<T>();
  auto vo = out.typed_view<T>();
  Kokkos::parallel_for(
      "camber::ad::pad", Kokkos::RangePolicy<>(0, g.size()), KOKKOS_LAMBDA(index_t q) {
        const AxisPosition at = axis_position(q, len, inner);
        const index_t o = at.outer, j = at.j, i = at.inner;
        vo((o * n + start + j) * inner + i) = vg(q);
      });
}

template <class T>
void index_select_into(const Tensor& a, const Tensor& out, const IndexView& index, index_t n,
                       index_t inner, index_t len) {
  auto va = a.typed_view<T>();
  auto vo = out.typed_view<T>();
  Kokkos::parallel_for(
      "camber::ad::index_select", Kokkos::RangePolicy<>(0, out.size()), KOKKOS_LAMBDA(index_t q) {
        const AxisPosition at = axis_position(q, len, inner);
        const index_t o = at.outer, j = at.j, i = at.inner;
        vo(q) = va((o * n + index(j)) * inner + i);
      });
}

template <class T>
void scatter_add_into(const Tensor& src, const Tensor& out, const IndexView& index, index_t n,
                      index_t inner, index_t len) {
  auto vs = src.typed_view<T>();
  auto vo = out.typed_view<T>();
  Kokkos::parallel_for(
      "camber::ad::scatter_add", Kokkos::RangePolicy<>(0, src.size()), KOKKOS_LAMBDA(index_t q) {
        const AxisPosition at = axis_position(q, len, inner);
        const index_t o = at.outer, j = at.j, i = at.inner;
        Kokkos::atomic_add(&vo((o * n + index(j)) * inner + i), vs(q));
      });
}

// float64 or float32, named in the error otherwise.
bool is_float32(const Tensor& t, const char* op) {
  CAMBER_REQUIRE(t.dtype() != DType::int64,
                 op << ": takes a float64 or float32 tensor, got int64 (shape "
                    << shape_string(t.shape()) << ")");
  return t.dtype() == DType::float32;
}
}  // namespace

Tensor pad(const Tensor& g, const Shape& shape, int axis, index_t start) {
  const AxisSplit s = split(shape, axis);
  const index_t len = g.dim(axis);
  CAMBER_REQUIRE(start >= 0 && start + len <= s.n, "pad: part does not fit");
  Tensor out = Tensor::zeros(shape, g.dtype());
  if (is_float32(g, "pad")) {
    pad_into<float>(g, out, s.n, s.inner, start, len);
  } else {
    pad_into<double>(g, out, s.n, s.inner, start, len);
  }
  return out;
}

Tensor concat(const std::vector<Tensor>& parts, int axis) {
  CAMBER_REQUIRE(!parts.empty(), "concat: no tensors");
  Shape out_shape = parts[0].shape();
  CAMBER_REQUIRE(axis >= 0 && axis < static_cast<int>(out_shape.size()),
                 "concat: axis " << axis << " out of range for shape " << shape_string(out_shape));
  index_t total = 0;
  for (const Tensor& p : parts) {
    Shape other = p.shape();
    CAMBER_REQUIRE(other.size() == out_shape.size(), "concat: ranks differ");
    other[static_cast<size_t>(axis)] = out_shape[static_cast<size_t>(axis)];
    CAMBER_REQUIRE(other == out_shape, "concat: shapes " << shape_string(parts[0].shape())
                                                         << " and " << shape_string(p.shape())
                                                         << " differ off axis " << axis);
    total += p.dim(axis);
  }
  out_shape[static_cast<size_t>(axis)] = total;
  Tensor out(out_shape);
  index_t start = 0;
  for (const Tensor& p : parts) {
    const Tensor placed = pad(p, out_shape, axis, start);
    out += placed;
    start += p.dim(axis);
  }
  return out;
}

Tensor index_select(const Tensor& a, int axis, const IndexView& index) {
  const AxisSplit s = split(a.shape(), axis);
  Shape out_shape = a.shape();
  const index_t len = static_cast<index_t>(index.extent(0));
  out_shape[static_cast<size_t>(axis)] = len;
  Tensor out = Tensor::uninitialized(out_shape, a.dtype());
  if (is_float32(a, "index_select")) {
    index_select_into<float>(a, out, index, s.n, s.inner, len);
  } else {
    index_select_into<double>(a, out, index, s.n, s.inner, len);
  }
  return out;
}

Tensor scatter_add(const Tensor& base, int axis, const IndexView& index, const Tensor& src) {
  const AxisSplit s = split(base.shape(), axis);
  const index_t len = static_cast<index_t>(index.extent(0));
  Shape expect = base.shape();
  expect[static_cast<size_t>(axis)] = len;
  CAMBER_REQUIRE(src.shape() == expect, "scatter_add: source shape " << shape_string(src.shape())
                                                                     << ", expected "
                                                                     << shape_string(expect));
  CAMBER_REQUIRE(src.dtype() == base.dtype(), "scatter_add: a " << dtype_name(src.dtype())
                                                                << " source into a "
                                                                << dtype_name(base.dtype())
                                                                << " tensor");
  Tensor out = base.clone();
  if (is_float32(base, "scatter_add")) {
    scatter_add_into<float>(src, out, index, s.n, s.inner, len);
  } else {
    scatter_add_into<double>(src, out, index, s.n, s.inner, len);
  }
  return out;
}

}  // namespace camber::ad::detail
