#include <camber/autodiff/detail/kernels.hpp>

#include <Eigen/Core>

#include <camber/error.hpp>
#include <camber/kokkos_math.hpp>

namespace camber::ad::detail {

namespace {

template <class Op>
Tensor unary(const char* label, const Tensor& a, Op op) {
  Tensor out = Tensor::uninitialized(a.shape());
  auto va = a.view();
  auto vo = out.view();
  Kokkos::parallel_for(
      label, Kokkos::RangePolicy<>(0, a.size()), KOKKOS_LAMBDA(index_t i) { vo(i) = op(va(i)); });
  return out;
}

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

Tensor sum_to_shape(const Tensor& a, const Shape& shape) {
  CAMBER_REQUIRE(broadcastable_to(shape, a.shape()),
                 "sum_to_shape: shape " << shape_string(shape) << " does not broadcast to "
                                        << shape_string(a.shape()));
  if (a.shape() == shape) return a;
  Tensor t = a;
  // Leading axes that broadcasting added.
  while (t.rank() > static_cast<int>(shape.size())) t = camber::sum(t, 0);
  for (int d = 0; d < t.rank(); ++d)
    if (shape[static_cast<size_t>(d)] == 1 && t.shape()[static_cast<size_t>(d)] != 1)
      t = sum_keepdims(t, d);
  return t;
}

Tensor select(const Tensor& mask, const Tensor& a, const Tensor& b) {
  CAMBER_REQUIRE(mask.shape() == a.shape() && a.shape() == b.shape(),
                 "select: shapes " << shape_string(mask.shape()) << ", " << shape_string(a.shape())
                                   << ", " << shape_string(b.shape()) << " differ");
  Tensor out = Tensor::uninitialized(a.shape());
  auto vm = mask.view();
  auto va = a.view();
  auto vb = b.view();
  auto vo = out.view();
  Kokkos::parallel_for(
      "camber::ad::select", Kokkos::RangePolicy<>(0, a.size()),
      KOKKOS_LAMBDA(index_t i) { vo(i) = vm(i) != 0.0 ? va(i) : vb(i); });
  return out;
}

Tensor heaviside(const Tensor& a) {
  return unary(
      "camber::ad::heaviside", a, KOKKOS_LAMBDA(double x) { return x > 0.0 ? 1.0 : 0.0; });
}
Tensor sign(const Tensor& a) {
  return unary(
      "camber::ad::sign", a,
      KOKKOS_LAMBDA(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : 0.0); });
}
Tensor ge_mask(const Tensor& a, const Tensor& b) {
  return binary_same(
      "camber::ad::ge_mask", a, b,
      KOKKOS_LAMBDA(double x, double y) { return x >= y ? 1.0 : 0.0; });
}
Tensor eq_mask(const Tensor& a, const Tensor& b) {
  return binary_same(
      "camber::ad::eq_mask", a, b,
      KOKKOS_LAMBDA(double x, double y) { return x == y ? 1.0 : 0.0; });
}
Tensor sigmoid(const Tensor& a) {
  return unary(
      "camber::ad::sigmoid", a, KOKKOS_LAMBDA(double x) {
        // Never exponentiates a large positive number.
        if (x >= 0.0) return 1.0 / (1.0 + kmath::exp(-x));
        const double e = kmath::exp(x);
        return e / (1.0 + e);
      });
}
Tensor softplus(const Tensor& a) {
  return unary(
      "camber::ad::softplus", a, KOKKOS_LAMBDA(double x) {
        const double m = x > 0.0 ? x : 0.0;
        return m + kmath::log(1.0 + kmath::exp(-kmath::fabs(x)));
      });
}
Tensor relu(const Tensor& a) {
  return unary(
      "camber::ad::relu", a, KOKKOS_LAMBDA(double x) { return x > 0.0 ? x : 0.0; });
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

Tensor slice(const Tensor& a, int axis, index_t start, index_t stop) {
  const AxisSplit s = split(a.shape(), axis);
  CAMBER_REQUIRE(0 <= start && start <= stop && stop <= s.n,
                 "slice: [" << start << ", " << stop << ") out of range for axis " << axis
                            << " of shape " << shape_string(a.shape()));
  Shape out_shape = a.shape();
  const index_t len = stop - start;
  out_shape[static_cast<size_t>(axis)] = len;
  Tensor out = Tensor::uninitialized(out_shape);
  auto va = a.view();
  auto vo = out.view();
  const index_t n = s.n, inner = s.inner;
  Kokkos::parallel_for(
      "camber::ad::slice", Kokkos::RangePolicy<>(0, out.size()), KOKKOS_LAMBDA(index_t q) {
        const AxisPosition at = axis_position(q, len, inner);
        const index_t o = at.outer, j = at.j, i = at.inner;
        vo(q) = va((o * n + start + j) * inner + i);
      });
  return out;
}

Tensor pad(const Tensor& g, const Shape& shape, int axis, index_t start) {
  const AxisSplit s = split(shape, axis);
  const index_t len = g.dim(axis);
  CAMBER_REQUIRE(start >= 0 && start + len <= s.n, "pad: part does not fit");
  Tensor out(shape);
  auto vg = g.view();
  auto vo = out.view();
  const index_t n = s.n, inner = s.inner;
  Kokkos::parallel_for(
      "camber::ad::pad", Kokkos::RangePolicy<>(0, g.size()), KOKKOS_LAMBDA(index_t q) {
        const AxisPosition at = axis_position(q, len, inner);
        const index_t o = at.outer, j = at.j, i = at.inner;
        vo((o * n + start + j) * inner + i) = vg(q);
      });
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
  Tensor out = Tensor::uninitialized(out_shape);
  auto va = a.view();
  auto vo = out.view();
  const index_t n = s.n, inner = s.inner;
  Kokkos::parallel_for(
      "camber::ad::index_select", Kokkos::RangePolicy<>(0, out.size()), KOKKOS_LAMBDA(index_t q) {
        const AxisPosition at = axis_position(q, len, inner);
        const index_t o = at.outer, j = at.j, i = at.inner;
        vo(q) = va((o * n + index(j)) * inner + i);
      });
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
  Tensor out = base.clone();
  auto vs = src.view();
  auto vo = out.view();
  const index_t n = s.n, inner = s.inner;
  Kokkos::parallel_for(
      "camber::ad::scatter_add", Kokkos::RangePolicy<>(0, src.size()), KOKKOS_LAMBDA(index_t q) {
        const AxisPosition at = axis_position(q, len, inner);
        const index_t o = at.outer, j = at.j, i = at.inner;
        Kokkos::atomic_add(&vo((o * n + index(j)) * inner + i), vs(q));
      });
  return out;
}

}  // namespace camber::ad::detail
