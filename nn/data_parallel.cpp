#include <camber/nn/data_parallel.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include <Kokkos_Core.hpp>

#if defined(CAMBER_HAVE_NCCL)
#include <cuda_runtime.h>
#include <nccl.h>
#endif

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

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

#if defined(CAMBER_HAVE_NCCL)

#define CAMBER_CHECK_NCCL(call)                                                        \
  do {                                                                                 \
    const ncclResult_t camber_nccl_rc = (call);                                        \
    CAMBER_REQUIRE(camber_nccl_rc == ncclSuccess,                                      \
                   #call << " failed: " << ncclGetErrorString(camber_nccl_rc));        \
  } while (0)

template <class T>
ncclDataType_t nccl_type();
template <>
ncclDataType_t nccl_type<double>() {
  return ncclFloat64;
}
template <>
ncclDataType_t nccl_type<float>() {
  return ncclFloat32;
}

// One NCCL communicator per MPI communicator (made collectively on first
// use: rank 0's unique id is broadcast over MPI), destroyed before Kokkos
// finalizes.
class NcclComms {
 public:
  static NcclComms& instance() {
    static NcclComms* comms = new NcclComms();  // outlives static destruction
    return *comms;
  }
  ncclComm_t get(MPI_Comm comm) {
    std::lock_guard<std::mutex> lock(mutex_);
    int cmp = MPI_UNEQUAL;
    for (auto& [mpi, nccl] : comms_) {
      CAMBER_CHECK_MPI(MPI_Comm_compare(mpi, comm, &cmp));
      if (cmp == MPI_IDENT || cmp == MPI_CONGRUENT) return nccl;
    }
    ncclUniqueId id;
    if (comm_rank(comm) == 0) CAMBER_CHECK_NCCL(ncclGetUniqueId(&id));
    CAMBER_CHECK_MPI(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm));
    ncclComm_t nccl = nullptr;
    CAMBER_CHECK_NCCL(ncclCommInitRank(&nccl, comm_size(comm), id, comm_rank(comm)));
    MPI_Comm dup = MPI_COMM_NULL;
    CAMBER_CHECK_MPI(MPI_Comm_dup(comm, &dup));
    if (comms_.empty()) Kokkos::push_finalize_hook([this] { release(); });
    comms_.emplace_back(dup, nccl);
    return nccl;
  }

 private:
  void release() {
    std::lock_guard<std::mutex> lock(mutex_);
    int finalized = 0;
    MPI_Finalized(&finalized);
    for (auto& [mpi, nccl] : comms_) {
      ncclCommDestroy(nccl);
      if (!finalized) MPI_Comm_free(&mpi);
    }
    comms_.clear();
  }
  std::mutex mutex_;
  std::vector<std::pair<MPI_Comm, ncclComm_t>> comms_;
};

// NCCL unless CAMBER_ALLREDUCE=mpi.
bool use_nccl() {
  const char* choice = std::getenv("CAMBER_ALLREDUCE");
  if (choice == nullptr || std::strcmp(choice, "nccl") == 0) return true;
  CAMBER_REQUIRE(std::strcmp(choice, "mpi") == 0,
                 "CAMBER_ALLREDUCE must be 'nccl' or 'mpi', not '" << choice << "'");
  return false;
}

// The gradients of one dtype, packed into device buckets and summed by
// ncclAllReduce on Kokkos' stream.
template <class T>
void reduce_dtype_nccl(std::vector<Tensor*>& grads, MPI_Comm comm, std::size_t bucket_bytes) {
  if (grads.empty()) return;
  using Space = Kokkos::DefaultExecutionSpace;
  const Space space;
  ncclComm_t nccl = NcclComms::instance().get(comm);
  const std::size_t cap = std::max<std::size_t>(bucket_bytes / sizeof(T), 1);
  Kokkos::View<T*, Space::memory_space> buffer;
  std::size_t first = 0;
  while (first < grads.size()) {
    std::size_t last = first, count = 0;
    while (last < grads.size() &&
           (last == first || count + static_cast<std::size_t>(grads[last]->size()) <= cap)) {
      count += static_cast<std::size_t>(grads[last]->size());
      ++last;
    }
    if (buffer.extent(0) < count)
      buffer = Kokkos::View<T*, Space::memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "camber::nn::allreduce"), count);
    std::size_t at = 0;
    for (std::size_t k = first; k < last; ++k) {
      const std::size_t n = static_cast<std::size_t>(grads[k]->size());
      Kokkos::deep_copy(space, Kokkos::subview(buffer, std::make_pair(at, at + n)),
                        grads[k]->typed_view<T>());
      at += n;
    }
    CAMBER_CHECK_NCCL(ncclAllReduce(buffer.data(), buffer.data(), count, nccl_type<T>(), ncclSum,
                                    nccl, space.cuda_stream()));
    at = 0;
    for (std::size_t k = first; k < last; ++k) {
      const std::size_t n = static_cast<std::size_t>(grads[k]->size());
      Kokkos::deep_copy(space, grads[k]->typed_view<T>(),
                        Kokkos::subview(buffer, std::make_pair(at, at + n)));
      grads[k]->mark_modified();
      at += n;
    }
    first = last;
  }
  space.fence();
}

#endif  // CAMBER_HAVE_NCCL

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
#if defined(CAMBER_HAVE_NCCL)
  if (use_nccl()) {
    reduce_dtype_nccl<double>(f64, comm, bucket_bytes);
    reduce_dtype_nccl<float>(f32, comm, bucket_bytes);
    return;
  }
#endif
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
