// Value kernels for the differentiable ops of autodiff/ops.hpp that
// camber::Tensor does not provide. Values only, no graph. Internal.
//
// Layout convention "along an axis": a row-major tensor is viewed as
// (outer, n_axis, inner), outer the product of the extents before the axis
// and inner of those after it.
#pragma once

#include <vector>

#include <camber/core/tensor.hpp>

namespace camber::ad::detail {

using IndexView = Kokkos::View<index_t*>;

// NumPy broadcast of a to `shape` (materialized copy).
Tensor broadcast_to(const Tensor& a, const Shape& shape);
bool broadcastable_to(const Shape& from, const Shape& to);

// 1 where a == b (same shapes).
Tensor eq_mask(const Tensor& a, const Tensor& b);

// Sum over `axis`, keeping it with extent 1.
Tensor sum_keepdims(const Tensor& a, int axis);
Tensor max_keepdims(const Tensor& a, int axis);

// (..., m, k) x (..., k, n) with equal batch shapes, or 2-D x 2-D.
Tensor matmul(const Tensor& a, const Tensor& b);
// Swaps the last two axes (rank >= 2).
Tensor transpose(const Tensor& a);

// Zero tensor of `shape` with g placed at [start, start + g.dim(axis)) on axis.
Tensor pad(const Tensor& g, const Shape& shape, int axis, index_t start);
Tensor concat(const std::vector<Tensor>& parts, int axis);

// out[o, j, i] = a[o, index[j], i]
Tensor index_select(const Tensor& a, int axis, const IndexView& index);
// out = base; out[o, index[j], i] += src[o, j, i] (atomic: repeated indices add).
Tensor scatter_add(const Tensor& base, int axis, const IndexView& index, const Tensor& src);

}  // namespace camber::ad::detail
