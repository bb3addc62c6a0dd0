#include <camber/core/tensor.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include <camber/core/allocator.hpp>
#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>

namespace camber {

namespace {

// Index arithmetic for broadcasting, passed by value into kernels.
struct BroadcastMap {
  int rank = 0;
  index_t out_strides[max_tensor_rank] = {};
  index_t a_strides[max_tensor_rank] = {};  // 0 on broadcast axes
  index_t b_strides[max_tensor_rank] = {};

  KOKKOS_INLINE_FUNCTION void offsets(index_t flat, index_t& ia, index_t& ib) const {
    ia = 0;
    ib = 0;
    for (int d = 0; d < rank; ++d) {
      const index_t i = flat / out_strides[d];
      flat -= i * out_strides[d];
      ia += i * a_strides[d];
      ib += i * b_strides[d];
    }
  }
};

Shape row_major_strides(const Shape& shape) {
  Shape s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d)
    s[static_cast<size_t>(d)] = s[static_cast<size_t>(d) + 1] * shape[static_cast<size_t>(d) + 1];
  return s;
}

// Strides of `in` seen through the broadcast output shape `out`.
void broadcast_strides(const Shape& in, const Shape& out, index_t* strides) {
  const Shape s = row_major_strides(in);
  const size_t shift = out.size() - in.size();
  for (size_t d = 0; d < out.size(); ++d) {
    if (d < shift) {
      strides[d] = 0;
    } else {
      const size_t k = d - shift;
      strides[d] = in[k] == 1 ? 0 : s[k];
    }
  }
}

template <class Op>
Tensor binary(const char* name, const Tensor& a, const Tensor& b, Op op) {
  CAMBER_REQUIRE(a.dtype() == DType::float64 && b.dtype() == DType::float64,
                 name << ": takes float64 tensors, got " << dtype_name(a.dtype()) << " and "
                      << dtype_name(b.dtype()) << "; convert explicitly with Tensor::to()");
  const Shape out_shape = broadcast_shapes(a.shape(), b.shape(), name);
  Tensor out = Tensor::uninitialized(out_shape);
  const index_t n = out.size();
  auto va = a.view();
  auto vb = b.view();
  auto vo = out.view();
  if (a.shape() == b.shape()) {
    Kokkos::parallel_for(
        "camber::Tensor::binary", Kokkos::RangePolicy<>(0, n),
        KOKKOS_LAMBDA(index_t i) { vo(i) = op(va(i), vb(i)); });
    return out;
  }
  CAMBER_REQUIRE(out_shape.size() <= static_cast<size_t>(max_tensor_rank),
                 "tensor rank " << out_shape.size() << " exceeds " << max_tensor_rank);
  BroadcastMap map;
  map.rank = static_cast<int>(out_shape.size());
  const Shape os = row_major_strides(out_shape);
  for (size_t d = 0; d < os.size(); ++d) map.out_strides[d] = os[d];
  broadcast_strides(a.shape(), out_shape, map.a_strides);
  broadcast_strides(b.shape(), out_shape, map.b_strides);
  Kokkos::parallel_for(
      "camber::Tensor::broadcast", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(index_t i) {
        index_t ia = 0, ib = 0;
        map.offsets(i, ia, ib);
        vo(i) = op(va(ia), vb(ib));
      });
  return out;
}

template <class Op>
Tensor unary(const Tensor& a, Op op) {
  Tensor out = Tensor::uninitialized(a.shape());
  auto va = a.view();
  auto vo = out.view();
  Kokkos::parallel_for(
      "camber::Tensor::unary", Kokkos::RangePolicy<>(0, a.size()),
      KOKKOS_LAMBDA(index_t i) { vo(i) = op(va(i)); });
  return out;
}

void require_same_shape(const Tensor& a, const Tensor& b, const char* what) {
  CAMBER_REQUIRE(a.shape() == b.shape(), what << ": shapes " << shape_string(a.shape())
                                               << " and " << shape_string(b.shape())
                                               << " differ");
}

// Reduction over one axis: out[outer, inner] = reduce_k a[outer, k, inner].
template <class Init, class Combine>
Tensor reduce_axis(const Tensor& a, int axis, Init init, Combine combine, const char* name) {
  CAMBER_REQUIRE(axis >= 0 && axis < a.rank(),
                 name << ": axis " << axis << " out of range for shape "
                      << shape_string(a.shape()));
  Shape out_shape = a.shape();
  const index_t n_axis = out_shape[static_cast<size_t>(axis)];
  out_shape.erase(out_shape.begin() + axis);
  index_t inner = 1;
  for (int d = axis + 1; d < a.rank(); ++d) inner *= a.shape()[static_cast<size_t>(d)];
  Tensor out = Tensor::uninitialized(out_shape);
  auto va = a.view();
  auto vo = out.view();
  Kokkos::parallel_for(
      "camber::Tensor::reduce_axis", Kokkos::RangePolicy<>(0, out.size()),
      KOKKOS_LAMBDA(index_t o) {
        const index_t outer = o / inner;
        const index_t in = o - outer * inner;
        double acc = init();
        for (index_t k = 0; k < n_axis; ++k) acc = combine(acc, va((outer * n_axis + k) * inner + in));
        vo(o) = acc;
      });
  return out;
}

}  // namespace

index_t shape_size(const Shape& shape) {
  index_t n = 1;
  for (index_t d : shape) {
    CAMBER_REQUIRE(d >= 0, "negative extent in shape " << shape_string(shape));
    n *= d;
  }
  return n;
}

std::string shape_string(const Shape& shape) {
  std::ostringstream os;
  os << '{';
  for (size_t d = 0; d < shape.size(); ++d) os << (d ? ", " : "") << shape[d];
  os << '}';
  return os.str();
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const size_t r = std::max(a.size(), b.size());
  Shape out(r, 1);
  for (size_t k = 0; k < r; ++k) {
    const index_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const index_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    CAMBER_REQUIRE(da == db || da == 1 || db == 1,
                   (op ? op : "broadcast_shapes")
                       << ": shapes " << shape_string(a) << " and " << shape_string(b)
                       << " cannot be broadcast together (axis " << (r - 1 - k) << " of the "
                       << "result: " << da << " vs " << db << ")");
    out[r - 1 - k] = da == 1 ? db : da;
  }
  return out;
}

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::float64: return "float64";
    case DType::float32: return "float32";
    case DType::int64: return "int64";
  }
  return "?";
}

std::size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::float64: return sizeof(double);
    case DType::float32: return sizeof(float);
    case DType::int64: return sizeof(std::int64_t);
  }
  return 0;
}

void detail::require_dtype(const Tensor& t, DType dtype, const char* op) {
  CAMBER_REQUIRE(t.dtype() == dtype, op << ": needs a " << dtype_name(dtype) << " tensor, got "
                                        << dtype_name(t.dtype()) << " (shape "
                                        << shape_string(t.shape())
                                        << "); convert explicitly with Tensor::to()");
}

namespace {
using Bytes = Kokkos::View<unsigned char*, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
Bytes bytes_of(const Tensor& t) {
  return Bytes(static_cast<unsigned char*>(t.raw_data()),
               static_cast<size_t>(t.size()) * dtype_size(t.dtype()));
}
}  // namespace

Tensor::Tensor(Shape shape, const std::string& label) : Tensor(uninitialized(shape, label)) {
  // A block from the cache holds its previous owner's values.
  Kokkos::deep_copy(data_, 0.0);
}

Tensor Tensor::zeros(const Shape& shape, DType dtype) {
  Tensor t = uninitialized(shape, dtype);
  // All-zero bytes are 0.0 and 0 in every dtype.
  Kokkos::deep_copy(bytes_of(t), static_cast<unsigned char>(0));
  return t;
}

Tensor Tensor::uninitialized(const Shape& shape, const std::string& label) {
  return uninitialized(shape, DType::float64, label);
}

Tensor Tensor::uninitialized(const Shape& shape, DType dtype, const std::string& label) {
  CAMBER_REQUIRE(shape.size() <= static_cast<size_t>(max_tensor_rank),
                 "tensor rank " << shape.size() << " exceeds " << max_tensor_rank);
  const index_t n = shape_size(shape);
  Tensor t;
  t.shape_ = shape;
  t.size_ = n;
  t.dtype_ = dtype;
  if (n > 0) {
    std::shared_ptr<void> block = memory::engine_allocator().allocate(
        static_cast<size_t>(n) * dtype_size(dtype), label);
    // Unmanaged: the block, held as owner_, keeps the memory.
    t.raw_ = block.get();
    if (dtype == DType::float64) t.data_ = View(static_cast<double*>(t.raw_), static_cast<size_t>(n));
    t.owner_ = std::move(block);
  }
  t.version_ = std::make_shared<std::uint64_t>(0);
  return t;
}

const Tensor::View& Tensor::view() const {
  if (dtype_ != DType::float64) detail::require_dtype(*this, DType::float64, "Tensor::view");
  return data_;
}

double* Tensor::data() const {
  if (dtype_ != DType::float64) detail::require_dtype(*this, DType::float64, "Tensor::data");
  return data_.data();
}

Tensor Tensor::wrap(double* data, Shape shape, std::shared_ptr<const void> owner) {
  CAMBER_REQUIRE(shape.size() <= static_cast<size_t>(max_tensor_rank),
                 "Tensor::wrap: rank " << shape.size() << " exceeds " << max_tensor_rank);
  const index_t n = shape_size(shape);
  CAMBER_REQUIRE(data != nullptr || n == 0, "Tensor::wrap: null data for shape "
                                                << shape_string(shape));
  Tensor t;
  t.shape_ = std::move(shape);
  t.size_ = n;
  t.raw_ = data;
  // A View made from a pointer is unmanaged: the owner keeps the memory.
  t.data_ = View(data, static_cast<size_t>(n));
  t.owner_ = std::move(owner);
  t.version_ = std::make_shared<std::uint64_t>(0);
  return t;
}

void detail::require_row_major(const Shape& shape, const Shape& strides, const char* what) {
  index_t expected = 1;
  for (size_t a = shape.size(); a-- > 0;) {
    CAMBER_REQUIRE(shape[a] <= 1 || strides[a] == expected,
                   what << ": the View of shape " << shape_string(shape)
                        << " is not row-major contiguous (axis " << a << " has stride "
                        << strides[a] << ", row-major needs " << expected
                        << "); use a LayoutRight View or deep_copy into a Tensor");
    expected *= shape[a];
  }
}

Tensor Tensor::full(const Shape& shape, double value) {
  Tensor t = uninitialized(shape);
  t.fill(value);
  return t;
}

Tensor Tensor::from_host(const Shape& shape, const std::vector<double>& values) {
  Tensor t = uninitialized(shape);
  t.assign(values);
  return t;
}

namespace {
template <class T>
Tensor from_host_typed(const Shape& shape, const std::vector<T>& values, const char* what) {
  Tensor t = Tensor::uninitialized(shape, dtype_of<T>());
  CAMBER_REQUIRE(static_cast<index_t>(values.size()) == t.size(),
                 what << ": " << values.size() << " values for shape " << shape_string(shape));
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> u(
      values.data(), values.size());
  Kokkos::deep_copy(t.typed_view<T>(), u);
  return t;
}

template <class T>
std::vector<T> to_vector_typed(const Tensor& t) {
  std::vector<T> out(static_cast<size_t>(t.size()));
  Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> u(out.data(),
                                                                                  out.size());
  Kokkos::deep_copy(u, t.typed_view<T>());
  return out;
}

template <class To, class From>
void convert(const Tensor& from, const Tensor& to) {
  auto src = from.typed_view<From>();
  auto dst = to.typed_view<To>();
  Kokkos::parallel_for(
      "camber::Tensor::to", Kokkos::RangePolicy<>(0, from.size()),
      KOKKOS_LAMBDA(index_t i) { dst(i) = static_cast<To>(src(i)); });
}

template <class To>
void convert_to(const Tensor& from, const Tensor& to) {
  switch (from.dtype()) {
    case DType::float64: convert<To, double>(from, to); break;
    case DType::float32: convert<To, float>(from, to); break;
    case DType::int64: convert<To, std::int64_t>(from, to); break;
  }
}
}  // namespace

Tensor Tensor::from_host_float32(const Shape& shape, const std::vector<float>& values) {
  return from_host_typed(shape, values, "Tensor::from_host_float32");
}

Tensor Tensor::from_host_int64(const Shape& shape, const std::vector<std::int64_t>& values) {
  return from_host_typed(shape, values, "Tensor::from_host_int64");
}

std::vector<float> Tensor::to_vector_float32() const { return to_vector_typed<float>(*this); }

std::vector<std::int64_t> Tensor::to_vector_int64() const {
  return to_vector_typed<std::int64_t>(*this);
}

Tensor Tensor::to(DType dtype) const {
  if (dtype == dtype_) return *this;
  Tensor t = uninitialized(shape_, dtype);
  switch (dtype) {
    case DType::float64: convert_to<double>(*this, t); break;
    case DType::float32: convert_to<float>(*this, t); break;
    case DType::int64: convert_to<std::int64_t>(*this, t); break;
  }
  return t;
}

Tensor Tensor::arange(index_t n) {
  Tensor t = uninitialized({n});
  auto v = t.view();
  Kokkos::parallel_for(
      "camber::Tensor::arange", Kokkos::RangePolicy<>(0, n),
      KOKKOS_LAMBDA(index_t i) { v(i) = static_cast<double>(i); });
  return t;
}

index_t Tensor::dim(int axis) const {
  CAMBER_REQUIRE(axis >= 0 && axis < rank(),
                 "axis " << axis << " out of range for shape " << shape_string(shape_));
  return shape_[static_cast<size_t>(axis)];
}

Shape Tensor::strides() const { return row_major_strides(shape_); }

Tensor::HostView Tensor::host() const {
  detail::require_dtype(*this, DType::float64, "Tensor::host");
  auto h = Kokkos::create_mirror_view(data_);
  Kokkos::deep_copy(h, data_);
  return h;
}

std::vector<double> Tensor::to_vector() const {
  detail::require_dtype(*this, DType::float64, "Tensor::to_vector");
  std::vector<double> out(static_cast<size_t>(size()));
  Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> u(
      out.data(), out.size());
  Kokkos::deep_copy(u, data_);
  return out;
}

void Tensor::assign(const std::vector<double>& values) {
  detail::require_dtype(*this, DType::float64, "Tensor::assign");
  CAMBER_REQUIRE(static_cast<index_t>(values.size()) == size(),
                 "assign: " << values.size() << " values for a tensor of shape "
                            << shape_string(shape_));
  Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> u(
      values.data(), values.size());
  Kokkos::deep_copy(data_, u);
  mark_modified();
}

double Tensor::item() const {
  CAMBER_REQUIRE(size() == 1, "item() needs a tensor of size 1, not shape "
                                  << shape_string(shape_));
  return to(DType::float64).to_vector()[0];
}

Tensor Tensor::clone() const {
  Tensor t = uninitialized(shape_, dtype_);
  if (size_ > 0) Kokkos::deep_copy(bytes_of(t), bytes_of(*this));
  return t;
}

Tensor Tensor::reshape(Shape shape) const {
  int inferred = -1;
  index_t known = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      CAMBER_REQUIRE(inferred < 0, "reshape: at most one axis may be -1");
      inferred = static_cast<int>(d);
    } else {
      known *= shape[d];
    }
  }
  if (inferred >= 0) {
    CAMBER_REQUIRE(known > 0 && size() % known == 0,
                   "reshape: cannot infer an axis of " << shape_string(shape) << " from size "
                                                       << size());
    shape[static_cast<size_t>(inferred)] = size() / known;
  }
  CAMBER_REQUIRE(shape_size(shape) == size(), "reshape: shape " << shape_string(shape)
                                                                << " has a different size than "
                                                                << shape_string(shape_));
  Tensor t = *this;  // shares storage and its owner
  t.shape_ = std::move(shape);
  return t;
}

void Tensor::fill(double value) {
  detail::require_dtype(*this, DType::float64, "Tensor::fill");
  Kokkos::deep_copy(data_, value);
  mark_modified();
}

Tensor& Tensor::operator+=(const Tensor& other) {
  axpy(1.0, other);
  return *this;
}

Tensor& Tensor::operator-=(const Tensor& other) {
  axpy(-1.0, other);
  return *this;
}

Tensor& Tensor::operator*=(double alpha) {
  auto v = view();
  Kokkos::parallel_for(
      "camber::Tensor::scale", Kokkos::RangePolicy<>(0, size()),
      KOKKOS_LAMBDA(index_t i) { v(i) *= alpha; });
  mark_modified();
  return *this;
}

void Tensor::axpy(double alpha, const Tensor& x) {
  require_same_shape(*this, x, "axpy");
  auto y = view();
  auto vx = x.view();
  Kokkos::parallel_for(
      "camber::Tensor::axpy", Kokkos::RangePolicy<>(0, size()),
      KOKKOS_LAMBDA(index_t i) { y(i) += alpha * vx(i); });
  mark_modified();
}

double Tensor::sum() const {
  double s = 0.0;
  auto v = view();
  Kokkos::parallel_reduce(
      "camber::Tensor::sum", Kokkos::RangePolicy<>(0, size()),
      KOKKOS_LAMBDA(index_t i, double& acc) { acc += v(i); }, s);
  return s;
}

double Tensor::min() const {
  CAMBER_REQUIRE(size() > 0, "min() of an empty tensor");
  double m = 0.0;
  auto v = view();
  Kokkos::parallel_reduce(
      "camber::Tensor::min", Kokkos::RangePolicy<>(0, size()),
      KOKKOS_LAMBDA(index_t i, double& acc) {
        if (v(i) < acc) acc = v(i);
      },
      Kokkos::Min<double>(m));
  return m;
}

double Tensor::max() const {
  CAMBER_REQUIRE(size() > 0, "max() of an empty tensor");
  double m = 0.0;
  auto v = view();
  Kokkos::parallel_reduce(
      "camber::Tensor::max", Kokkos::RangePolicy<>(0, size()),
      KOKKOS_LAMBDA(index_t i, double& acc) {
        if (v(i) > acc) acc = v(i);
      },
      Kokkos::Max<double>(m));
  return m;
}

double Tensor::norm2() const { return std::sqrt(dot(*this, *this)); }

double Tensor::max_abs() const {
  double m = 0.0;
  auto v = view();
  Kokkos::parallel_reduce(
      "camber::Tensor::max_abs", Kokkos::RangePolicy<>(0, size()),
      KOKKOS_LAMBDA(index_t i, double& acc) {
        const double a = kmath::fabs(v(i));
        if (a > acc) acc = a;
      },
      Kokkos::Max<double>(m));
  return size() > 0 ? m : 0.0;
}

Tensor add(const Tensor& a, const Tensor& b) {
  return binary("camber::add", a, b, KOKKOS_LAMBDA(double x, double y) { return x + y; });
}
Tensor sub(const Tensor& a, const Tensor& b) {
  return binary("camber::sub", a, b, KOKKOS_LAMBDA(double x, double y) { return x - y; });
}
Tensor mul(const Tensor& a, const Tensor& b) {
  return binary("camber::mul", a, b, KOKKOS_LAMBDA(double x, double y) { return x * y; });
}
Tensor div(const Tensor& a, const Tensor& b) {
  return binary("camber::div", a, b, KOKKOS_LAMBDA(double x, double y) { return x / y; });
}
Tensor pow(const Tensor& a, const Tensor& b) {
  return binary("camber::pow", a, b, KOKKOS_LAMBDA(double x, double y) { return kmath::pow(x, y); });
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return binary("camber::maximum", a, b, KOKKOS_LAMBDA(double x, double y) { return x >= y ? x : y; });
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return binary("camber::minimum", a, b, KOKKOS_LAMBDA(double x, double y) { return x <= y ? x : y; });
}

Tensor neg(const Tensor& a) {
  return unary(a, KOKKOS_LAMBDA(double x) { return -x; });
}
Tensor exp(const Tensor& a) {
  return unary(a, KOKKOS_LAMBDA(double x) { return kmath::exp(x); });
}
Tensor log(const Tensor& a) {
  return unary(a, KOKKOS_LAMBDA(double x) { return kmath::log(x); });
}
Tensor sqrt(const Tensor& a) {
  return unary(a, KOKKOS_LAMBDA(double x) { return kmath::sqrt(x); });
}
Tensor abs(const Tensor& a) {
  return unary(a, KOKKOS_LAMBDA(double x) { return kmath::fabs(x); });
}
Tensor sin(const Tensor& a) {
  return unary(a, KOKKOS_LAMBDA(double x) { return kmath::sin(x); });
}
Tensor cos(const Tensor& a) {
  return unary(a, KOKKOS_LAMBDA(double x) { return kmath::cos(x); });
}
Tensor tanh(const Tensor& a) {
  return unary(a, KOKKOS_LAMBDA(double x) { return kmath::tanh(x); });
}
Tensor scale(const Tensor& a, double alpha) {
  return unary(a, KOKKOS_LAMBDA(double x) { return alpha * x; });
}
Tensor add_scalar(const Tensor& a, double alpha) {
  return unary(a, KOKKOS_LAMBDA(double x) { return x + alpha; });
}

Tensor sum(const Tensor& a, int axis) {
  return reduce_axis(
      a, axis, KOKKOS_LAMBDA() { return 0.0; },
      KOKKOS_LAMBDA(double acc, double x) { return acc + x; }, "sum");
}

Tensor max(const Tensor& a, int axis) {
  CAMBER_REQUIRE(axis < 0 || axis >= a.rank() || a.shape()[static_cast<size_t>(axis)] > 0,
                 "max over an empty axis");
  return reduce_axis(
      a, axis, KOKKOS_LAMBDA() { return Kokkos::reduction_identity<double>::max(); },
      KOKKOS_LAMBDA(double acc, double x) { return x > acc ? x : acc; }, "max");
}

double dot(const Tensor& a, const Tensor& b) {
  CAMBER_REQUIRE(a.size() == b.size(), "dot: sizes " << a.size() << " and " << b.size()
                                                     << " differ");
  double s = 0.0;
  auto va = a.view();
  auto vb = b.view();
  Kokkos::parallel_reduce(
      "camber::dot", Kokkos::RangePolicy<>(0, a.size()),
      KOKKOS_LAMBDA(index_t i, double& acc) { acc += va(i) * vb(i); }, s);
  return s;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  require_same_shape(a, b, "max_abs_diff");
  return sub(a, b).max_abs();
}

}  // namespace camber
