/// @file
/// camber::memory::CachingAllocator — the engine's size-bucketed cache of
/// device memory, from which every camber::Tensor takes its storage.
///
/// A tensor-graph step allocates one output array per op and frees most of
/// them again in the backward pass; the next step asks for the same sizes.
/// Taking each array from Kokkos costs a device synchronization per free on
/// CUDA (cudaFree), and on the host page faults plus the kernel's page
/// clearing for every large block (glibc maps and unmaps them). The engine
/// allocator keeps freed blocks in one free list per size bucket and hands
/// them out again: buffers freed early in a backward pass serve the
/// gradients allocated later in it, and the next step reuses the memory of
/// the previous one. It does not touch malloc's settings.
///
/// @code
///   auto& pool = camber::memory::engine_allocator();
///   std::shared_ptr<void> a = pool.allocate(1000);  // a block of 1024 bytes
///   void* p = a.get();
///   a.reset();                                      // back to the cache
///   auto b = pool.allocate(1000);                   // b.get() == p: a hit
///   pool.empty_cache();                             // free blocks to Kokkos
/// @endcode
///
/// Most code never calls it: Tensor(shape) and Tensor::uninitialized() take
/// their storage from engine_allocator(); stats() and empty_cache() are for
/// memory reports and for handing memory back to other libraries (PETSc,
/// a host application) between phases.
///
/// Buckets. A request of r bytes gets a block of block_size(r) bytes:
///   r <= 256: 256 bytes (the smallest block);
///   r > 256:  with 2^k <= r - 1 < 2^(k+1), the next multiple of 2^k / 4,
///             i.e. one of 2^k * {1.25, 1.5, 1.75, 2}.
/// A cached block serves only requests of its own bucket. The bytes lost to
/// rounding are under 2^k / 4 < r / 4 (a block holds less than 1.25 r), where
/// power-of-two buckets could lose almost r; four sub-buckets per octave
/// still keep the sizes few, so a freed block is likely to fit the next
/// request. Every size is cached, also the smallest: on CUDA every cudaFree
/// synchronizes the device whatever the size, and scalar tensors (losses,
/// step lengths) are frequent in a graph.
///
/// Cap. Cached (free) bytes are limited, by default to 1 GiB
/// (CAMBER_ALLOCATOR_CACHE_MB, or set_cache_limit()); a released block that
/// would take the cache above the limit goes back to Kokkos. Memory in use
/// is not limited. If Kokkos cannot allocate, the cache is emptied and the
/// allocation tried once more.
///
/// Reuse without fences: Camber runs all kernels in order on the default
/// execution space instance, so a kernel that writes a reused block runs
/// after every kernel that read it under its previous owner. Code that runs
/// kernels on other instances (other CUDA streams) fences them before it
/// drops the Tensors they use.
///
/// Lifetime. Cached blocks go back to Kokkos before Kokkos::finalize:
/// camber::Runtime empties the engine's cache before it finalizes Kokkos,
/// and the engine allocator registers a Kokkos finalize hook (at its first
/// allocation in each Kokkos session) that empties the cache, for host
/// applications and tests that own Kokkos themselves. A block released after
/// Kokkos::finalize (a Tensor that outlives Kokkos) is not freed but leaked
/// on purpose, since its memory space is gone; stats().leaked counts them.
///
/// Debugging: CAMBER_ALLOCATOR=0 (or set_enabled(false)) turns caching off:
/// every allocation then goes to Kokkos with its exact size and the caller's
/// label, and every release frees, so memory checkers and Kokkos Tools see
/// each Tensor. All member functions are thread-safe (one mutex).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace camber::memory {

/// A snapshot of an allocator's counters (bytes are block sizes, i.e. after
/// rounding up to the bucket, except bytes_requested).
struct AllocatorStats {
  std::size_t bytes_in_use = 0;       ///< blocks handed out and not released
  std::size_t bytes_requested = 0;    ///< the sizes asked for, of those blocks
  std::size_t peak_bytes_in_use = 0;  ///< since construction or reset_peak()
  std::size_t bytes_cached = 0;       ///< free blocks kept for reuse
  std::size_t blocks_cached = 0;
  std::uint64_t hits = 0;    ///< allocations served from the cache
  std::uint64_t misses = 0;  ///< allocations served by Kokkos
  std::uint64_t frees = 0;   ///< blocks given back to Kokkos
  std::uint64_t leaked = 0;  ///< blocks released after Kokkos::finalize
};

class CachingAllocator {
 public:
  struct Options {
    /// Most bytes kept in free blocks.
    std::size_t cache_limit = std::size_t{1} << 30;
    /// false: no caching (every allocation and release goes to Kokkos).
    bool enabled = true;
    /// Register a Kokkos finalize hook that empties the cache; the allocator
    /// must then outlive Kokkos::finalize (engine_allocator() does this).
    bool empty_at_finalize = false;
  };

  /// The smallest block, and the granularity of the smallest buckets.
  static constexpr std::size_t min_block = 256;
  /// The block size a request of `bytes` gets (see the file comment); 0 for 0.
  static std::size_t block_size(std::size_t bytes) noexcept;

  CachingAllocator() : CachingAllocator(Options()) {}
  explicit CachingAllocator(Options options);
  /// Empties the cache. Every block must have been released before (a
  /// block's deleter refers to its allocator), and Kokkos must still be
  /// initialized unless empty_at_finalize was set.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  /// At least `bytes` bytes in the default Kokkos memory space (device
  /// memory on a GPU backend), uninitialized; the block returns to this
  /// allocator when the last copy of the pointer goes. Null for 0 bytes.
  /// `label` names the Kokkos allocation when caching is off; cached blocks
  /// serve many owners and are labelled "camber::memory::CachingAllocator".
  /// Throws camber::Error before Kokkos::initialize or after finalize, and
  /// Kokkos' exception if the memory space is exhausted even after the
  /// cache was emptied.
  std::shared_ptr<void> allocate(std::size_t bytes, const std::string& label = "camber::memory");

  /// Gives every cached block back to Kokkos.
  void empty_cache();
  AllocatorStats stats() const;
  /// peak_bytes_in_use := bytes_in_use, to measure the peak of one phase.
  void reset_peak();

  /// Frees cached blocks (largest first) until at most `bytes` are cached.
  void set_cache_limit(std::size_t bytes);
  std::size_t cache_limit() const;
  /// Turning caching off empties the cache; blocks in use at that moment are
  /// freed when released.
  void set_enabled(bool enabled);
  bool enabled() const;

 private:
  // What a block's deleter needs to know to return it.
  struct Block {
    void* ptr = nullptr;
    std::size_t bytes = 0;      // block size
    std::size_t requested = 0;  // what the caller asked for
    bool cacheable = false;     // allocated with caching on (size is a bucket)
    std::uint64_t session = 0;  // Kokkos session it was allocated in
  };

  void release(const Block& block) noexcept;
  void* backing_allocate(std::size_t bytes, const std::string& label);  // mutex held
  void backing_free(void* ptr) noexcept;                                 // mutex held
  void trim_to(std::size_t limit);                                       // mutex held
  void on_kokkos_finalize();

  mutable std::mutex mutex_;
  Options options_;
  // Free blocks by block size; the most recently freed block is reused first.
  std::map<std::size_t, std::vector<void*>> free_;
  AllocatorStats stats_;
  // Advanced at each Kokkos::finalize: blocks of an earlier session are not
  // freed (their memory space is gone).
  std::uint64_t session_ = 0;
  bool hook_registered_ = false;
};

/// The allocator behind every Tensor: never destroyed (Tensors in static
/// storage release their blocks during static destruction), cache limit
/// from CAMBER_ALLOCATOR_CACHE_MB (MiB, default 1024), caching off with
/// CAMBER_ALLOCATOR=0; read once, at the first call.
CachingAllocator& engine_allocator();

}  // namespace camber::memory
