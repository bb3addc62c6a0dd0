// Shape, indexing, reduction and linear-algebra ops.
#include <algorithm>

#include "detail/fusion.hpp"
#include "detail/kernels.hpp"
#include <camber/autodiff/fusion.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>

namespace camber::ad {

namespace {

bool need(const Var& v) { return v.requires_grad(); }

int normalize_axis(int axis, int rank, const char* what) {
  const int a = axis < 0 ? axis + rank : axis;
  CAMBER_REQUIRE(a >= 0 && a < rank,
                 what << ": axis " << axis << " out of range for rank " << rank);
  return a;
}

// Internal: the adjoint of slice (g placed into zeros of `shape`).
Var pad(const Var& g, const Shape& shape, int axis, index_t start) {
  const index_t len = g.shape()[static_cast<size_t>(axis)];
  return record_op(
      "pad", detail::pad(g.value(), shape, axis, start), {g},
      [axis, start, len](const Vars&, const Var&, const Var& go) -> Vars {
        return {slice(go, axis, start, start + len)};
      },
      [shape, axis, start](const Vars&, const Var&, const Vars& t) {
        return pad(t[0], shape, axis, start);
      },
      Reads::nothing());
}

Shape keep_shape(const Shape& s, int axis) {
  Shape k = s;
  k[static_cast<size_t>(axis)] = 1;
  return k;
}

// The axes of `to` that broadcasting `from` stretched (sorted).
std::vector<int> stretched_axes(const Shape& from, const Shape& to) {
  std::vector<int> axes;
  const size_t shift = to.size() - from.size();
  for (size_t d = 0; d < to.size(); ++d)
    if (d < shift || (from[d - shift] == 1 && to[d] != 1)) axes.push_back(static_cast<int>(d));
  return axes;
}

}  // namespace

namespace detail {
Var pad_var(const Var& g, const Shape& shape, int axis, index_t start) {
  return camber::ad::pad(g, shape, axis, start);
}
}  // namespace detail

Var broadcast_to(const Var& a, const Shape& shape) {
  if (a.shape() == shape) return a;
  CAMBER_REQUIRE(detail::broadcastable_to(a.shape(), shape),
                 "broadcast_to: shape " << shape_string(a.shape()) << " does not broadcast to "
                                        << shape_string(shape));
  // A strided view (computed at once when fusion is off).
  return detail::fused_broadcast(a, shape);
}

Var sum_to_shape(const Var& a, const Shape& shape) {
  if (a.shape() == shape) return a;
  const VjpRule vjp = [](const Vars& in, const Var&, const Var& g) -> Vars {
    return {broadcast_to(g, in[0].shape())};
  };
  const JvpRule jvp = [shape](const Vars&, const Var&, const Vars& t) {
    return sum_to_shape(t[0], shape);
  };
  return detail::fused_reduction("sum_to_shape", a, stretched_axes(shape, a.shape()), shape, vjp,
                                 jvp);
}

Var reshape(const Var& a, const Shape& shape) {
  Tensor v = a.value().reshape(shape);
  if (v.shape() == a.shape()) return a;
  const Shape out_shape = v.shape();
  return record_op(
      "reshape", std::move(v), {a},
      [](const Vars& in, const Var&, const Var& g) -> Vars { return {reshape(g, in[0].shape())}; },
      [out_shape](const Vars&, const Var&, const Vars& t) { return reshape(t[0], out_shape); },
      Reads::nothing());
}

Var transpose(const Var& a) {
  return record_op(
      "transpose", detail::transpose(a.value()), {a},
      [](const Vars&, const Var&, const Var& g) -> Vars { return {transpose(g)}; },
      [](const Vars&, const Var&, const Vars& t) { return transpose(t[0]); },
      Reads::nothing());
}

Var slice(const Var& a, int axis0, index_t start, index_t stop) {
  const int axis = normalize_axis(axis0, a.rank(), "slice");
  const index_t n = a.shape()[static_cast<size_t>(axis)];
  CAMBER_REQUIRE(0 <= start && start <= stop && stop <= n,
                 "slice: [" << start << ", " << stop << ") out of range for axis " << axis
                            << " of shape " << shape_string(a.shape()));
  // A strided view (computed at once when fusion is off).
  return detail::fused_slice(a, axis, start, stop);
}

Var concat(const Vars& parts, int axis0) {
  CAMBER_REQUIRE(!parts.empty(), "concat: no tensors");
  const int axis = normalize_axis(axis0, parts[0].rank(), "concat");
  std::vector<Tensor> values;
  for (const Var& p : parts) values.push_back(p.value());
  return record_op(
      "concat", detail::concat(values, axis), parts,
      [axis](const Vars& in, const Var&, const Var& g) -> Vars {
        Vars out;
        index_t start = 0;
        for (const Var& p : in) {
          const index_t len = p.shape()[static_cast<size_t>(axis)];
          out.push_back(need(p) ? slice(g, axis, start, start + len) : Var());
          start += len;
        }
        return out;
      },
      [axis](const Vars&, const Var&, const Vars& t) { return concat(t, axis); },
      Reads::nothing());
}

namespace {

// An int64 index tensor of rank 1 as a device view, its entries checked to
// lie in [0, n) by one reduction on the device.
detail::IndexView checked_index(const Tensor& index, index_t n, int axis, const char* op) {
  CAMBER_REQUIRE(index.dtype() == DType::int64,
                 op << ": indices must be an int64 tensor, got " << dtype_name(index.dtype())
                    << " (Tensor::from_host_int64, or Tensor::to(DType::int64))");
  CAMBER_REQUIRE(index.rank() == 1,
                 op << ": a 1-D index tensor, got shape " << shape_string(index.shape()));
  const auto v = index.typed_view<std::int64_t>();
  if (index.size() > 0) {
    index_t lo = 0, hi = 0;
    Kokkos::parallel_reduce(
        "camber::ad::check_index", Kokkos::RangePolicy<>(0, index.size()),
        KOKKOS_LAMBDA(index_t q, index_t& mn, index_t& mx) {
          if (v(q) < mn) mn = v(q);
          if (v(q) > mx) mx = v(q);
        },
        Kokkos::Min<index_t>(lo), Kokkos::Max<index_t>(hi));
    const index_t bad = lo < 0 ? lo : hi;
    CAMBER_REQUIRE(lo >= 0 && hi < n, op << ": index " << bad << " out of range [0, " << n
                                         << ") on axis " << axis);
  }
  return detail::IndexView(v.data(), static_cast<size_t>(index.size()));
}

Tensor index_tensor(const Index& index) {
  return Tensor::from_host_int64({static_cast<index_t>(index.size())},
                                 std::vector<std::int64_t>(index.begin(), index.end()));
}

}  // namespace

Var index_select(const Var& a, int axis0, const Tensor& index) {
  const int axis = normalize_axis(axis0, a.rank(), "index_select");
  const detail::IndexView idx =
      checked_index(index, a.shape()[static_cast<size_t>(axis)], axis, "index_select");
  // The rules keep the index tensor (device storage), not a host copy.
  return record_op(
      "index_select", detail::index_select(a.value(), axis, idx), {a},
      [axis, index](const Vars& in, const Var&, const Var& g) -> Vars {
        return {scatter_add(zeros_like(in[0]), axis, index, g)};
      },
      [axis, index](const Vars&, const Var&, const Vars& t) {
        return index_select(t[0], axis, index);
      },
      Reads::nothing());
}

Var index_select(const Var& a, int axis, const Index& index) {
  return index_select(a, axis, index_tensor(index));
}

Var gather(const Var& a, const Tensor& index) {
  CAMBER_REQUIRE(a.rank() >= 1, "gather: needs rank >= 1");
  Shape out_shape = index.shape();
  out_shape.insert(out_shape.end(), a.shape().begin() + 1, a.shape().end());
  return reshape(index_select(a, 0, index.reshape({index.size()})), out_shape);
}

Var gather(const Var& a, const Index& index, const Shape& index_shape) {
  CAMBER_REQUIRE(
      shape_size(index_shape) == static_cast<index_t>(index.size()),
      "gather: " << index.size() << " indices for index shape " << shape_string(index_shape));
  return gather(a, index_tensor(index).reshape(index_shape));
}

Var gather(const Var& a, const Index& index) {
  return gather(a, index, Shape{static_cast<index_t>(index.size())});
}

Var gather(const Var& a, std::initializer_list<index_t> index) { return gather(a, Index(index)); }

Var index_select(const Var& a, int axis, std::initializer_list<index_t> index) {
  return index_select(a, axis, Index(index));
}

Var scatter_add(const Var& base, int axis, std::initializer_list<index_t> index, const Var& src) {
  return scatter_add(base, axis, Index(index), src);
}

Var scatter_add(const Var& base, int axis0, const Tensor& index, const Var& src) {
  const int axis = normalize_axis(axis0, base.rank(), "scatter_add");
  const detail::IndexView idx =
      checked_index(index, base.shape()[static_cast<size_t>(axis)], axis, "scatter_add");
  return record_op(
      "scatter_add", detail::scatter_add(base.value(), axis, idx, src.value()), {base, src},
      [axis, index](const Vars& in, const Var&, const Var& g) -> Vars {
        return {need(in[0]) ? g : Var(), need(in[1]) ? index_select(g, axis, index) : Var()};
      },
      [axis, index](const Vars&, const Var&, const Vars& t) {
        return scatter_add(t[0], axis, index, t[1]);
      },
      Reads::nothing());
}

Var scatter_add(const Var& base, int axis, const Index& index, const Var& src) {
  return scatter_add(base, axis, index_tensor(index), src);
}

Var sum(const Var& a) {
  std::vector<int> all(static_cast<size_t>(a.rank()));
  for (int d = 0; d < a.rank(); ++d) all[static_cast<size_t>(d)] = d;
  return detail::fused_reduction(
      "sum", a, all, {},
      [](const Vars& in, const Var&, const Var& g) -> Vars {
        return {broadcast_to(g, in[0].shape())};
      },
      [](const Vars&, const Var&, const Vars& t) { return sum(t[0]); });
}

Var sum(const Var& a, int axis0, bool keepdims) {
  const int axis = normalize_axis(axis0, a.rank(), "sum");
  Shape out_shape = a.shape();
  if (keepdims) {
    out_shape[static_cast<size_t>(axis)] = 1;
  } else {
    out_shape.erase(out_shape.begin() + axis);
  }
  const VjpRule vjp = [axis](const Vars& in, const Var&, const Var& g) -> Vars {
    return {broadcast_to(reshape(g, keep_shape(in[0].shape(), axis)), in[0].shape())};
  };
  const JvpRule jvp = [axis, keepdims](const Vars&, const Var&, const Vars& t) {
    return sum(t[0], axis, keepdims);
  };
  return detail::fused_reduction("sum", a, {axis}, out_shape, vjp, jvp);
}

Var mean(const Var& a) { return mul_scalar(sum(a), 1.0 / static_cast<double>(a.size())); }

Var mean(const Var& a, int axis0, bool keepdims) {
  const int axis = normalize_axis(axis0, a.rank(), "mean");
  return mul_scalar(sum(a, axis, keepdims),
                    1.0 / static_cast<double>(a.shape()[static_cast<size_t>(axis)]));
}

Var max(const Var& a, int axis0, bool keepdims) {
  const int axis = normalize_axis(axis0, a.rank(), "max");
  CAMBER_REQUIRE(a.shape()[static_cast<size_t>(axis)] > 0,
                 "max over the empty axis " << axis << " of shape " << shape_string(a.shape()));
  const Tensor m = detail::max_keepdims(a.value(), axis);
  // Weights 1/(number of ties) on the maximal entries: the subgradient that
  // splits the cotangent evenly at a tie.
  const Tensor mask = detail::eq_mask(a.value(), detail::broadcast_to(m, a.shape()));
  const Tensor count = detail::sum_keepdims(mask, axis);
  const Tensor weights = camber::div(mask, count);
  const Tensor v = keepdims ? m : m.reshape(camber::sum(a.value(), axis).shape());
  return record_op(
      "max", v, {a},
      [axis, weights](const Vars& in, const Var&, const Var& g) -> Vars {
        return {mul(broadcast_to(reshape(g, keep_shape(in[0].shape(), axis)), in[0].shape()),
                    constant(weights))};
      },
      [axis, keepdims, weights](const Vars&, const Var&, const Vars& t) {
        return sum(mul(t[0], constant(weights)), axis, keepdims);
      },
      Reads::nothing());
}

Var max(const Var& a) {
  CAMBER_REQUIRE(a.size() > 0, "max of an empty tensor");
  return max(reshape(a, {a.size()}), 0, false);
}

namespace {

// Normalized, sorted from the last axis down, without repeats.
std::vector<int> axis_list(const std::vector<int>& axes, int rank, const char* what) {
  std::vector<int> out;
  for (int a : axes) out.push_back(normalize_axis(a, rank, what));
  std::sort(out.rbegin(), out.rend());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

template <class Reduce>
Var reduce_axes(const Var& a, const std::vector<int>& axes, bool keepdims, const char* what,
                Reduce reduce) {
  // Highest axis first, so the lower axis numbers stay valid.
  Var r = a;
  for (int axis : axis_list(axes, a.rank(), what)) r = reduce(r, axis, keepdims);
  return r;
}

}  // namespace

Var sum(const Var& a, const std::vector<int>& axes, bool keepdims) {
  return reduce_axes(a, axes, keepdims, "sum",
                     [](const Var& x, int axis, bool k) { return sum(x, axis, k); });
}

Var mean(const Var& a, const std::vector<int>& axes, bool keepdims) {
  return reduce_axes(a, axes, keepdims, "mean",
                     [](const Var& x, int axis, bool k) { return mean(x, axis, k); });
}

Var max(const Var& a, const std::vector<int>& axes, bool keepdims) {
  return reduce_axes(a, axes, keepdims, "max",
                     [](const Var& x, int axis, bool k) { return max(x, axis, k); });
}

Var dot(const Var& a, const Var& b) { return sum(mul(a, b)); }

Var norm(const Var& a) { return sqrt(dot(a, a)); }

Var matmul(const Var& a, const Var& b) {
  return record_op(
      "matmul", detail::matmul(a.value(), b.value()), {a, b},
      [](const Vars& in, const Var&, const Var& g) -> Vars {
        return {need(in[0]) ? matmul(g, transpose(in[1])) : Var(),
                need(in[1]) ? matmul(transpose(in[0]), g) : Var()};
      },
      [](const Vars& in, const Var&, const Vars& t) {
        return add(matmul(t[0], in[1]), matmul(in[0], t[1]));
      });
}

Var batched_matvec(const Var& a, const Var& x) {
  CAMBER_REQUIRE(a.rank() >= 2 && x.rank() >= 1 && a.shape().back() == x.shape().back(),
                 "batched_matvec: shapes " << shape_string(a.shape()) << " and "
                                           << shape_string(x.shape()) << " do not match");
  Shape xs = x.shape();
  xs.insert(xs.end() - 1, 1);  // (.., 1, n) broadcasts against (.., m, n)
  return sum(mul(a, reshape(x, xs)), -1, false);
}

Var outer(const Var& u, const Var& v) {
  CAMBER_REQUIRE(u.rank() == 1 && v.rank() == 1, "outer: needs two 1-D Vars");
  return mul(reshape(u, {u.size(), 1}), reshape(v, {1, v.size()}));
}

}  // namespace camber::ad
