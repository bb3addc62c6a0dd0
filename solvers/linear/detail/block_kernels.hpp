// Small dense blocks for solvers/linear's kernels: the run-time block size
// dispatched to a compile-time one, and the inverse of a column-major block.
#pragma once

#include <string>
#include <type_traits>

#include <Kokkos_Core.hpp>

#include <camber/core/error.hpp>

namespace camber::solvers::linear::detail {

// Gauss-Jordan inverse of the column-major BS x BS block a into inv, with
// partial pivoting; false for a singular block.
template <int BS>
KOKKOS_INLINE_FUNCTION bool invert(const double* a, double* inv) {
  double m[BS][2 * BS];
  for (int r = 0; r < BS; ++r)
    for (int c = 0; c < BS; ++c) {
      m[r][c] = a[c * BS + r];
      m[r][BS + c] = r == c ? 1.0 : 0.0;
    }
  for (int k = 0; k < BS; ++k) {
    int p = k;
    double big = m[k][k] < 0 ? -m[k][k] : m[k][k];
    for (int r = k + 1; r < BS; ++r) {
      const double v = m[r][k] < 0 ? -m[r][k] : m[r][k];
      if (v > big) {
        big = v;
        p = r;
      }
    }
    if (!(big > 0.0) || !(big < 1e308)) return false;  // zero, NaN or infinite pivot
    if (p != k)
      for (int c = 0; c < 2 * BS; ++c) {
        const double t = m[k][c];
        m[k][c] = m[p][c];
        m[p][c] = t;
      }
    const double d = 1.0 / m[k][k];
    for (int c = 0; c < 2 * BS; ++c) m[k][c] *= d;
    for (int r = 0; r < BS; ++r) {
      if (r == k) continue;
      const double f = m[r][k];
      if (f != 0.0)
        for (int c = 0; c < 2 * BS; ++c) m[r][c] -= f * m[k][c];
    }
  }
  for (int r = 0; r < BS; ++r)
    for (int c = 0; c < BS; ++c) inv[c * BS + r] = m[r][BS + c];
  return true;
}

// c = a b for column-major BS x BS blocks (c aliases neither).
template <int BS>
KOKKOS_INLINE_FUNCTION void block_product(const double* a, const double* b, double* c) {
  for (int j = 0; j < BS; ++j)
    for (int i = 0; i < BS; ++i) {
      double s = 0.0;
      for (int k = 0; k < BS; ++k) s += a[k * BS + i] * b[j * BS + k];
      c[j * BS + i] = s;
    }
}

// c -= a b for column-major BS x BS blocks (c aliases neither).
template <int BS>
KOKKOS_INLINE_FUNCTION void block_subtract_product(const double* a, const double* b, double* c) {
  for (int j = 0; j < BS; ++j)
    for (int i = 0; i < BS; ++i) {
      double s = 0.0;
      for (int k = 0; k < BS; ++k) s += a[k * BS + i] * b[j * BS + k];
      c[j * BS + i] -= s;
    }
}

template <typename F>
inline void by_block_size(int bs, F&& f) {
  switch (bs) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 3: f(std::integral_constant<int, 3>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 5: f(std::integral_constant<int, 5>{}); break;
    default:
      CAMBER_REQUIRE(false, "linear::BlockSparseMatrix: block size " + std::to_string(bs) +
                                " (1 to 5 are supported)");
  }
}

}  // namespace camber::solvers::linear::detail
