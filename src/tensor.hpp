// camber::Tensor — an n-dimensional array of doubles on a Kokkos::View.
//
// The storage of every numerical field in Camber: mesh coordinates, solution
// vectors, network weights. A Tensor is a shape (row-major, up to 8 axes)
// over a contiguous 1-D Kokkos::View in the default memory space, so its
// kernels run on whatever backend Kokkos was built for (Serial, OpenMP,
// CUDA).
//
// Ownership: copies of a Tensor share storage (as Kokkos::View does);
// clone() makes a deep copy. reshape() shares storage too.
//
//   camber::Tensor a = camber::Tensor::full({3, 4}, 1.0);
//   camber::Tensor b = camber::Tensor::from_host({4}, {1, 2, 3, 4});
//   camber::Tensor c = camber::add(a, b);        // broadcasts to {3, 4}
//   double total = c.sum();                      // 3 * (2+3+4+5) = 42
//   auto host = c.host();                        // host mirror, synced copy
//   camber::Tensor row_sums = camber::sum(c, 1);  // shape {3}
//
// Broadcasting follows NumPy: shapes are aligned at the last axis and an
// axis of size 1 stretches. This class holds values only; the
// differentiable tensor of autodiff/ builds on it.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace camber {

using index_t = std::int64_t;
using Shape = std::vector<index_t>;

inline constexpr int max_tensor_rank = 8;

class Tensor {
 public:
  using View = Kokkos::View<double*>;
  using HostView = View::HostMirror;

  Tensor() = default;
  // Zero-initialized tensor of the given shape.
  explicit Tensor(Shape shape, const std::string& label = "camber::Tensor");

  static Tensor zeros(const Shape& shape) { return Tensor(shape); }
  // Storage without the zero fill, for kernels that overwrite every element
  // (a fresh View's zero fill is a full memory pass of its own).
  static Tensor uninitialized(const Shape& shape, const std::string& label = "camber::Tensor");
  static Tensor full(const Shape& shape, double value);
  static Tensor scalar(double value) { return full({}, value); }
  // Values in row-major order; values.size() must equal the shape's size.
  static Tensor from_host(const Shape& shape, const std::vector<double>& values);
  // 0, 1, ..., n-1 as a 1-D tensor.
  static Tensor arange(index_t n);

  int rank() const noexcept { return static_cast<int>(shape_.size()); }
  const Shape& shape() const noexcept { return shape_; }
  index_t dim(int axis) const;
  index_t size() const noexcept { return static_cast<index_t>(data_.extent(0)); }
  bool empty() const noexcept { return size() == 0; }

  // The storage, for kernels: element (i0, ..., ik) is at the row-major
  // flat index sum(i_a * stride_a).
  const View& view() const noexcept { return data_; }
  Shape strides() const;

  // A host copy of the values (a mirror view, deep-copied now).
  HostView host() const;
  std::vector<double> to_vector() const;
  // Copies values from the host; size must match.
  void assign(const std::vector<double>& values);
  // The single value of a tensor of size 1.
  double item() const;

  Tensor clone() const;
  // Same storage, new shape of equal size; one axis may be -1 (inferred).
  Tensor reshape(Shape shape) const;

  void fill(double value);
  Tensor& operator+=(const Tensor& other);  // same shape
  Tensor& operator-=(const Tensor& other);  // same shape
  Tensor& operator*=(double alpha);
  // this += alpha * x (same shape).
  void axpy(double alpha, const Tensor& x);

  // Reductions over all elements.
  double sum() const;
  double min() const;  // of a non-empty tensor
  double max() const;  // of a non-empty tensor
  double norm2() const;
  double max_abs() const;

 private:
  Shape shape_;
  View data_;
};

index_t shape_size(const Shape& shape);
std::string shape_string(const Shape& shape);
// The NumPy broadcast of two shapes; throws camber::Error if incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b);

// Element-wise with broadcasting.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);

// Element-wise unary.
Tensor neg(const Tensor& a);
Tensor exp(const Tensor& a);
Tensor log(const Tensor& a);
Tensor sqrt(const Tensor& a);
Tensor abs(const Tensor& a);
Tensor sin(const Tensor& a);
Tensor cos(const Tensor& a);
Tensor tanh(const Tensor& a);
Tensor scale(const Tensor& a, double alpha);
Tensor add_scalar(const Tensor& a, double alpha);

// Reductions over one axis (the axis is removed from the shape).
Tensor sum(const Tensor& a, int axis);
Tensor max(const Tensor& a, int axis);

double dot(const Tensor& a, const Tensor& b);  // same size

// Largest |a - b| over all elements (same shape).
double max_abs_diff(const Tensor& a, const Tensor& b);

}  // namespace camber
