#include <camber/core/allocator.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <new>

#include <camber/core/error.hpp>

namespace camber::memory {

namespace {

using MemorySpace = Kokkos::DefaultExecutionSpace::memory_space;

constexpr const char* pool_label = "camber::memory::CachingAllocator";

// Larger requests would overflow the bucket arithmetic (and no memory space
// holds them).
constexpr std::size_t max_request = std::size_t{1} << 62;

CachingAllocator::Options engine_options() {
  CachingAllocator::Options options;
  options.empty_at_finalize = true;
  if (const char* s = std::getenv("CAMBER_ALLOCATOR")) {
    const std::string value(s);
    CAMBER_INPUT_REQUIRE(value == "0" || value == "1",
                         "CAMBER_ALLOCATOR='" << value
                                              << "': use 1 (cache Tensor storage, the default) "
                                                 "or 0 (every allocation straight from Kokkos)");
    options.enabled = value == "1";
  }
  if (const char* s = std::getenv("CAMBER_ALLOCATOR_CACHE_MB")) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long mib = std::strtoull(s, &end, 10);
    CAMBER_INPUT_REQUIRE(*s >= '0' && *s <= '9' && *end == '\0' && errno == 0 &&
                             mib <= (max_request >> 20),
                         "CAMBER_ALLOCATOR_CACHE_MB='"
                             << s << "': expected a whole number of MiB, the most memory "
                                     "kept in free blocks (default 1024; 0 keeps none)");
    options.cache_limit = static_cast<std::size_t>(mib) << 20;
  }
  return options;
}

}  // namespace

std::size_t CachingAllocator::block_size(std::size_t bytes) noexcept {
  if (bytes == 0) return 0;
  if (bytes <= min_block) return min_block;
  // p = 2^k <= bytes - 1 < 2^(k+1); blocks are multiples of p / 4.
  std::size_t p = min_block;
  while (p <= (bytes - 1) / 2) p *= 2;
  const std::size_t step = p / 4;
  return (bytes + step - 1) / step * step;
}

CachingAllocator::CachingAllocator(Options options) : options_(options) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  trim_to(0);
}

std::shared_ptr<void> CachingAllocator::allocate(std::size_t bytes, const std::string& label) {
  if (bytes == 0) return nullptr;
  CAMBER_REQUIRE(Kokkos::is_initialized(),
                 "camber::memory: " << bytes << " bytes requested while Kokkos is not "
                                    << "initialized; construct camber::Runtime (or call "
                                    << "Kokkos::initialize) before making Tensors, and drop "
                                    << "them before Kokkos::finalize");
  CAMBER_REQUIRE(bytes <= max_request, "camber::memory: request of " << bytes << " bytes");
  Block block;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    block.requested = bytes;
    block.session = session_;
    block.cacheable = options_.enabled;
    block.bytes = block.cacheable ? block_size(bytes) : bytes;
    auto cached = block.cacheable ? free_.find(block.bytes) : free_.end();
    if (cached != free_.end()) {
      block.ptr = cached->second.back();
      cached->second.pop_back();
      if (cached->second.empty()) free_.erase(cached);
      stats_.bytes_cached -= block.bytes;
      --stats_.blocks_cached;
      ++stats_.hits;
    } else {
      block.ptr = backing_allocate(block.bytes, block.cacheable ? pool_label : label);
      ++stats_.misses;
      if (options_.empty_at_finalize && !hook_registered_) {
        Kokkos::push_finalize_hook([this] { on_kokkos_finalize(); });
        hook_registered_ = true;
      }
    }
    stats_.bytes_in_use += block.bytes;
    stats_.bytes_requested += block.requested;
    stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  }
  // Should the control block's allocation throw, shared_ptr calls the
  // deleter, which returns the block.
  return std::shared_ptr<void>(block.ptr, [this, block](void*) { release(block); });
}

void CachingAllocator::release(const Block& block) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.bytes_in_use -= block.bytes;
  stats_.bytes_requested -= block.requested;
  if (!Kokkos::is_initialized() || block.session != session_) {
    // Kokkos was finalized since the block was allocated: its memory space
    // is gone, and freeing into it (or into a new session) is undefined.
    ++stats_.leaked;
    return;
  }
  if (block.cacheable && options_.enabled &&
      stats_.bytes_cached + block.bytes <= options_.cache_limit) {
    try {
      free_[block.bytes].push_back(block.ptr);
      stats_.bytes_cached += block.bytes;
      ++stats_.blocks_cached;
      return;
    } catch (const std::bad_alloc&) {
      // No room for the free-list entry: free the block instead.
    }
  }
  backing_free(block.ptr);
}

void* CachingAllocator::backing_allocate(std::size_t bytes, const std::string& label) {
  try {
    return Kokkos::kokkos_malloc<MemorySpace>(label, bytes);
  } catch (const std::bad_alloc&) {
    if (free_.empty()) throw;
  }
  // Out of memory with free blocks at hand: give them back and try again.
  trim_to(0);
  return Kokkos::kokkos_malloc<MemorySpace>(label, bytes);
}

void CachingAllocator::backing_free(void* ptr) noexcept {
  Kokkos::kokkos_free<MemorySpace>(ptr);
  ++stats_.frees;
}

void CachingAllocator::trim_to(std::size_t limit) {
  const bool kokkos_up = Kokkos::is_initialized();
  while (stats_.bytes_cached > limit && !free_.empty()) {
    auto largest = std::prev(free_.end());
    void* ptr = largest->second.back();
    stats_.bytes_cached -= largest->first;
    --stats_.blocks_cached;
    largest->second.pop_back();
    if (largest->second.empty()) free_.erase(largest);
    if (kokkos_up)
      backing_free(ptr);
    else
      ++stats_.leaked;  // see release()
  }
}

void CachingAllocator::on_kokkos_finalize() {
  std::lock_guard<std::mutex> lock(mutex_);
  trim_to(0);
  ++session_;
  hook_registered_ = false;
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  trim_to(0);
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

void CachingAllocator::set_cache_limit(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  options_.cache_limit = bytes;
  trim_to(bytes);
}

std::size_t CachingAllocator::cache_limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return options_.cache_limit;
}

void CachingAllocator::set_enabled(bool enabled) {
  std::lock_guard<std::mutex> lock(mutex_);
  options_.enabled = enabled;
  if (!enabled) trim_to(0);
}

bool CachingAllocator::enabled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return options_.enabled;
}

CachingAllocator& engine_allocator() {
  // Deliberately never destroyed: a Tensor in static storage releases its
  // block during static destruction, possibly after this function's statics
  // would have been destroyed.
  static CachingAllocator* const engine = new CachingAllocator(engine_options());
  return *engine;
}

}  // namespace camber::memory
