#include <camber/nn/data_parallel.hpp>

#include <algorithm>
#include <cstdint>

#include <Kokkos_Core.hpp>

#include <camber/error.hpp>
#include <camber/runtime.hpp>

namespace camber::nn {

namespace {

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}
template <>
MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}

using HostDouble = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

// The gradients of one dtype, in buckets of at most `cap` elements (a
// gradient larger than a bucket is a bucket of its own).
template <class T>
void reduce_dtype(std::vector<Tensor*>& grads, MPI_Comm comm, std::size_t bucket_bytes) {
  const std::size_t cap = std::max<std::size_t>(bucket_bytes / sizeof(T), 1);
  std::vector<T> buffer;
  std::size_t first = 0;
  while (first < grads.size()) {
    std::size_t last = first, count = 0;
    while (last < grads.size() &&
           (last == first || count + static_cast<std::size_t>(grads[last]->size()) <= cap)) {
      count += static_cast<std::size_t>(grads[last]->size());
      ++last;
    }
    buffer.resize(count);
    std::size_t at = 0;
    for (std::size_t k = first; k < last; ++k) {
      const std::size_t n = static_cast<std::size_t>(grads[k]->size());
      Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(buffer.data() + at, n);
      Kokkos::deep_copy(h, grads[k]->typed_view<T>());
      at += n;
    }
    CAMBER_REQUIRE(count <= static_cast<std::size_t>(INT32_MAX),
                   "allreduce_sum: a bucket of " << count << " elements exceeds MPI's int count");
    CAMBER_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, buffer.data(), static_cast<int>(count),
                                   mpi_type<T>(), MPI_SUM, comm));
    at = 0;
    for (std::size_t k = first; k < last; ++k) {
      const std::size_t n = static_cast<std::size_t>(grads[k]->size());
      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(buffer.data() + at, n);
      Kokkos::deep_copy(grads[k]->typed_view<T>(), h);
      grads[k]->mark_modified();
      at += n;
    }
    first = last;
  }
}

}  // namespace

void allreduce_sum(std::vector<Tensor>& grads, MPI_Comm comm, std::size_t bucket_bytes) {
  // Every rank must pass the same list: compare a signature (count, then
  // per gradient its size and dtype) with rank 0's.
  std::vector<std::int64_t> sig{static_cast<std::int64_t>(grads.size())};
  for (const Tensor& g : grads) {
    CAMBER_REQUIRE(g.dtype() != DType::int64, "allreduce_sum: an int64 gradient");
    sig.push_back(g.size() * 4 + static_cast<std::int64_t>(g.dtype()));
  }
  std::int64_t n_sig = static_cast<std::int64_t>(sig.size()), n_max = 0, n_min = 0;
  CAMBER_CHECK_MPI(MPI_Allreduce(&n_sig, &n_max, 1, MPI_INT64_T, MPI_MAX, comm));
  CAMBER_CHECK_MPI(MPI_Allreduce(&n_sig, &n_min, 1, MPI_INT64_T, MPI_MIN, comm));
  CAMBER_REQUIRE(n_max == n_min, "allreduce_sum: ranks pass different numbers of gradients");
  std::vector<std::int64_t> root = sig;
  CAMBER_CHECK_MPI(MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_INT64_T, 0, comm));
  int mismatch = root == sig ? 0 : 1, any = 0;
  CAMBER_CHECK_MPI(MPI_Allreduce(&mismatch, &any, 1, MPI_INT, MPI_MAX, comm));
  CAMBER_REQUIRE(any == 0, "allreduce_sum: gradient sizes or dtypes differ between ranks");

  std::vector<Tensor*> f64, f32;
  for (Tensor& g : grads) (g.dtype() == DType::float32 ? f32 : f64).push_back(&g);
  reduce_dtype<double>(f64, comm, bucket_bytes);
  reduce_dtype<float>(f32, comm, bucket_bytes);
}

RowRange local_rows(index_t rows, MPI_Comm comm) {
  CAMBER_REQUIRE(rows >= 0, "local_rows: rows must be >= 0");
  const index_t size = comm_size(comm), rank = comm_rank(comm);
  const index_t base = rows / size, extra = rows % size;
  RowRange r;
  r.begin = rank * base + std::min(rank, extra);
  r.end = r.begin + base + (rank < extra ? 1 : 0);
  return r;
}

}  // namespace camber::nn
