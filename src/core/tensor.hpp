/// @file
/// camber::Tensor — an n-dimensional array on a Kokkos::View: float64 (the
/// default), float32 or int64 (DType).
///
/// The storage of every numerical field in Camber: mesh coordinates, solution
/// vectors, network weights. A Tensor is a shape (row-major, up to 8 axes)
/// over a contiguous 1-D Kokkos::View in the default memory space, so its
/// kernels run on whatever backend Kokkos was built for (Serial, OpenMP,
/// CUDA).
///
/// Ownership: copies of a Tensor share storage (as Kokkos::View does);
/// clone() makes a deep copy. reshape() shares storage too. The storage of
/// Tensor(shape) and Tensor::uninitialized() comes from the engine's caching
/// allocator (allocator.hpp) and goes back to it when the last Tensor on it
/// goes; view() is then an unmanaged View over it, as for wrap(), so a View
/// or pointer taken from a Tensor is valid only while a Tensor on the same
/// storage lives: keep the Tensor, not the View.
///
/// @code
///   camber::Tensor a = camber::Tensor::full({3, 4}, 1.0);
///   camber::Tensor b = camber::Tensor::from_host({4}, {1, 2, 3, 4});
///   camber::Tensor c = camber::add(a, b);        // broadcasts to {3, 4}
///   double total = c.sum();                      // 3 * (2+3+4+5) = 42
///   auto host = c.host();                        // host mirror, synced copy
///   camber::Tensor row_sums = camber::sum(c, 1);  // shape {3}
/// @endcode
///
/// Broadcasting follows NumPy: shapes are aligned at the last axis and an
/// axis of size 1 stretches. This class holds values only; the
/// differentiable tensor of autodiff/ builds on it.
///
/// Zero-copy: Tensor::from_view() puts a Tensor over the storage of an
/// existing Kokkos::View (a geometry field, a solver's array) and
/// Tensor::wrap() over external memory (a PETSc Vec's array), so that
/// halo exchanges, reductions and graph ops work on them in place:
///
/// @code
///   camber::mesh::Geometry g = camber::mesh::compute_geometry(dm.local());
///   camber::Tensor vol = camber::Tensor::from_view(g.cell_volume);  // shares
///   dm.halo().forward(vol);             // fills g.cell_volume's ghost rows
/// @endcode
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace camber {

using index_t = std::int64_t;
using Shape = std::vector<index_t>;

inline constexpr int max_tensor_rank = 8;

/// Element types. float64 is the default and what every numerical op takes
/// unless its documentation says otherwise; int64 holds indices, labels and
/// masks; float32 halves memory and traffic where its precision suffices.
/// Ops do not mix dtypes silently: a mismatch is a camber::Error naming the
/// op and the dtypes, and Tensor::to() converts explicitly.
enum class DType : std::uint8_t { float64, float32, int64 };
const char* dtype_name(DType dtype);
std::size_t dtype_size(DType dtype);
template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<double>() {
  return DType::float64;
}
template <>
constexpr DType dtype_of<float>() {
  return DType::float32;
}
template <>
constexpr DType dtype_of<std::int64_t>() {
  return DType::int64;
}

class Tensor {
 public:
  using View = Kokkos::View<double*>;
  using HostView = View::HostMirror;

  Tensor() = default;
  /// Zero-initialized tensor of the given shape. The label names the Kokkos
  /// allocation only when the engine allocator's caching is off
  /// (CAMBER_ALLOCATOR=0); cached blocks are shared by many Tensors.
  explicit Tensor(Shape shape, const std::string& label = "camber::Tensor");

  static Tensor zeros(const Shape& shape) { return Tensor(shape); }
  /// Zeros of another dtype.
  static Tensor zeros(const Shape& shape, DType dtype);
  /// Storage without the zero fill, for kernels that overwrite every element
  /// (a zero fill is a full memory pass of its own). The values are
  /// arbitrary: a reused block holds what its previous owner left.
  static Tensor uninitialized(const Shape& shape, const std::string& label = "camber::Tensor");
  static Tensor uninitialized(const Shape& shape, DType dtype,
                              const std::string& label = "camber::Tensor");
  static Tensor full(const Shape& shape, double value);
  static Tensor scalar(double value) { return full({}, value); }
  /// Values in row-major order; values.size() must equal the shape's size.
  static Tensor from_host(const Shape& shape, const std::vector<double>& values);
  /// Values of the other dtypes, row-major.
  static Tensor from_host_float32(const Shape& shape, const std::vector<float>& values);
  static Tensor from_host_int64(const Shape& shape, const std::vector<std::int64_t>& values);
  /// 0, 1, ..., n-1 as a 1-D tensor.
  static Tensor arange(index_t n);

  /// A Tensor over the storage of `view`, without a copy: same shape as the
  /// View's extents, writes through either are seen by both. The View must
  /// hold doubles in the default memory space and be row-major contiguous
  /// (rank 0 or 1, LayoutRight, or any layout whose strides happen to be
  /// row-major); otherwise a camber::Error says so. The Tensor (and its
  /// copies) keep the View's allocation alive.
  template <class ViewType>
  static Tensor from_view(const ViewType& view);
  /// A Tensor over external memory: `data` must point to shape_size(shape)
  /// doubles in the default memory space, row-major. `owner` is kept alive
  /// as long as a Tensor shares the storage; with a null owner the caller
  /// guarantees `data` outlives every such Tensor.
  static Tensor wrap(double* data, Shape shape, std::shared_ptr<const void> owner = nullptr);

  int rank() const noexcept { return static_cast<int>(shape_.size()); }
  const Shape& shape() const noexcept { return shape_; }
  index_t dim(int axis) const;
  index_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size() == 0; }
  DType dtype() const noexcept { return dtype_; }

  /// The storage of a float64 tensor, for kernels: element (i0, ..., ik) is
  /// at the row-major flat index sum(i_a * stride_a). A camber::Error for
  /// another dtype (use typed_view()).
  const View& view() const;
  /// First element of a float64 tensor's storage (device memory on a GPU
  /// backend).
  double* data() const;
  /// The storage as T (double, float or std::int64_t), which must be the
  /// tensor's dtype.
  template <class T>
  Kokkos::View<T*, Kokkos::MemoryTraits<Kokkos::Unmanaged>> typed_view() const;
  /// First byte of the storage, whatever the dtype.
  void* raw_data() const noexcept { return raw_; }
  Shape strides() const;

  /// A host copy of the values (a mirror view, deep-copied now).
  HostView host() const;
  std::vector<double> to_vector() const;
  std::vector<float> to_vector_float32() const;        ///< float32 tensors
  std::vector<std::int64_t> to_vector_int64() const;  ///< int64 tensors
  /// A copy converted to `dtype` (float to int64 truncates toward zero);
  /// the same storage when the dtype is already `dtype`.
  Tensor to(DType dtype) const;
  /// Copies values from the host; size must match.
  void assign(const std::vector<double>& values);
  /// The single value of a tensor of size 1.
  double item() const;

  Tensor clone() const;  ///< any dtype
  /// Same storage, new shape of equal size; one axis may be -1 (inferred).
  /// Any dtype.
  Tensor reshape(Shape shape) const;

  /// In-place changes. Each one (and assign()) advances the storage's
  /// version, which the autodiff graph checks before it reads a value it
  /// saved (see version()).
  void fill(double value);
  Tensor& operator+=(const Tensor& other);  ///< same shape
  Tensor& operator-=(const Tensor& other);  ///< same shape
  Tensor& operator*=(double alpha);
  /// this += alpha * x (same shape).
  void axpy(double alpha, const Tensor& x);

  /// A counter shared by every Tensor on this storage (copies, reshapes),
  /// advanced by each in-place change: fill, assign, +=, -=, *=, axpy and a
  /// halo exchange's forward(). Code that writes through data() or view()
  /// into a Tensor that already has readers calls mark_modified() itself.
  /// Tensors made by from_view() or wrap() over the same memory twice have
  /// separate counters. 0 for an empty Tensor.
  std::uint64_t version() const noexcept { return version_ ? *version_ : 0; }
  void mark_modified() noexcept {
    if (version_) ++*version_;
  }

  /// How many Tensors share this storage (copies and reshapes, including
  /// those an autodiff graph holds); 0 for Tensor(). Views and pointers taken
  /// from them are not counted: they do not keep the storage alive.
  long use_count() const noexcept { return version_ ? version_.use_count() : 0; }

  /// Reductions over all elements.
  double sum() const;
  double min() const;  ///< of a non-empty tensor
  double max() const;  ///< of a non-empty tensor
  double norm2() const;
  double max_abs() const;

 private:
  Shape shape_;
  index_t size_ = 0;
  DType dtype_ = DType::float64;
  void* raw_ = nullptr;  // first byte of the storage, any dtype
  View data_;            // the storage as doubles: float64 tensors only
  /// Keeps the storage alive (data_ is an unmanaged View): a block of the
  /// engine allocator, or the owner given to from_view()/wrap(). Null for
  /// empty Tensors and wrap() without an owner.
  std::shared_ptr<const void> owner_;
  /// Shared by all Tensors on this storage; null only for Tensor().
  std::shared_ptr<std::uint64_t> version_;
};

index_t shape_size(const Shape& shape);
std::string shape_string(const Shape& shape);
/// The NumPy broadcast of two shapes; throws camber::Error if incompatible,
/// naming `op` (the operation that asked) and both shapes.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op = nullptr);

/// Element-wise with broadcasting.
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);

/// Element-wise unary.
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

/// Reductions over one axis (the axis is removed from the shape).
Tensor sum(const Tensor& a, int axis);
Tensor max(const Tensor& a, int axis);

double dot(const Tensor& a, const Tensor& b);  ///< same size

/// Largest |a - b| over all elements (same shape).
double max_abs_diff(const Tensor& a, const Tensor& b);

namespace detail {
// Throws unless t's dtype is `dtype`, naming `op`.
void require_dtype(const Tensor& t, DType dtype, const char* op);
// Throws unless `strides` (in elements) are the row-major strides of
// `shape` (axes of extent 1 may have any stride).
void require_row_major(const Shape& shape, const Shape& strides, const char* what);
}  // namespace detail

template <class T>
Kokkos::View<T*, Kokkos::MemoryTraits<Kokkos::Unmanaged>> Tensor::typed_view() const {
  detail::require_dtype(*this, dtype_of<T>(), "Tensor::typed_view");
  return Kokkos::View<T*, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(static_cast<T*>(raw_),
                                                                   static_cast<size_t>(size_));
}

template <class ViewType>
Tensor Tensor::from_view(const ViewType& view) {
  static_assert(Kokkos::is_view<ViewType>::value, "Tensor::from_view takes a Kokkos::View");
  static_assert(std::is_same<typename ViewType::non_const_value_type, double>::value,
                "Tensor::from_view: the View must hold doubles");
  static_assert(std::is_same<typename ViewType::memory_space, View::memory_space>::value,
                "Tensor::from_view: the View must be in the default memory space "
                "(deep_copy a host mirror first)");
  constexpr int rank = static_cast<int>(ViewType::rank);
  static_assert(rank <= max_tensor_rank, "Tensor::from_view: rank exceeds max_tensor_rank");
  Shape shape(static_cast<size_t>(rank)), strides(static_cast<size_t>(rank));
  size_t s[max_tensor_rank + 1] = {};
  view.stride(s);
  for (int a = 0; a < rank; ++a) {
    shape[static_cast<size_t>(a)] = static_cast<index_t>(view.extent(static_cast<unsigned>(a)));
    strides[static_cast<size_t>(a)] = static_cast<index_t>(s[a]);
  }
  detail::require_row_major(shape, strides, "Tensor::from_view");
  // The copy of the View held by the owner keeps its reference count up.
  auto owner = std::make_shared<const ViewType>(view);
  return wrap(const_cast<double*>(view.data()), std::move(shape), std::move(owner));
}

}  // namespace camber
