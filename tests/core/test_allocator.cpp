// CachingAllocator: bucket sizes, reuse, counters, the cap, the switch that
// turns caching off, concurrent use, and the Tensors built on the engine
// allocator. Expected byte counts come from the bucket rule of
// allocator.hpp (r > 256 with 2^k <= r - 1 < 2^(k+1): the next multiple of
// 2^k / 4), worked out by hand in the comments.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include <camber/core/allocator.hpp>
#include <camber/core/tensor.hpp>

using camber::Tensor;
using camber::memory::CachingAllocator;

namespace {

CachingAllocator::Options limit(std::size_t cache_limit) {
  CachingAllocator::Options o;
  o.cache_limit = cache_limit;
  return o;
}

// Turns the engine's caching on, with the default cache limit, for one test
// and restores the settings (the suite may run with CAMBER_ALLOCATOR=0 or a
// small CAMBER_ALLOCATOR_CACHE_MB).
class EngineCaching {
 public:
  EngineCaching()
      : was_enabled_(camber::memory::engine_allocator().enabled()),
        was_limit_(camber::memory::engine_allocator().cache_limit()) {
    camber::memory::engine_allocator().set_enabled(true);
    camber::memory::engine_allocator().set_cache_limit(CachingAllocator::Options().cache_limit);
  }
  ~EngineCaching() {
    camber::memory::engine_allocator().set_enabled(was_enabled_);
    camber::memory::engine_allocator().set_cache_limit(was_limit_);
  }
  EngineCaching(const EngineCaching&) = delete;
  EngineCaching& operator=(const EngineCaching&) = delete;

 private:
  bool was_enabled_;
  std::size_t was_limit_;
};

}  // namespace

TEST(CachingAllocator, BlockSizes) {
  EXPECT_EQ(CachingAllocator::block_size(0), 0u);
  EXPECT_EQ(CachingAllocator::block_size(1), 256u);
  EXPECT_EQ(CachingAllocator::block_size(256), 256u);
  EXPECT_EQ(CachingAllocator::block_size(257), 320u);   // 2^8, step 64: 5 * 64
  EXPECT_EQ(CachingAllocator::block_size(320), 320u);
  EXPECT_EQ(CachingAllocator::block_size(321), 384u);
  EXPECT_EQ(CachingAllocator::block_size(512), 512u);   // 511 < 2^9: still k = 8
  EXPECT_EQ(CachingAllocator::block_size(513), 640u);   // 2^9, step 128: 5 * 128
  EXPECT_EQ(CachingAllocator::block_size(1000), 1024u);  // 2^9, step 128: 8 * 128
  EXPECT_EQ(CachingAllocator::block_size(1025), 1280u);  // 2^10, step 256: 5 * 256
  EXPECT_EQ(CachingAllocator::block_size(8000), 8192u);  // 2^12, step 1024: 8 * 1024
  // 1e6 doubles: 2^22 <= 8e6 - 1 < 2^23, step 2^20, ceil(7.63) = 8 steps.
  EXPECT_EQ(CachingAllocator::block_size(8000000), 8388608u);
  // 1.5 * 2^20 + 1 bytes: k = 20, step 2^18, 7 steps (1.75 * 2^20).
  EXPECT_EQ(CachingAllocator::block_size(1572865), 1835008u);
}

TEST(CachingAllocator, BlockSizeBounds) {
  // Every block holds the request, wastes under a quarter of it (above the
  // smallest block), is a multiple of 64 bytes, and is its own bucket.
  for (std::size_t r = 1; r < (std::size_t{1} << 22); r = r + 1 + r / 61) {
    const std::size_t b = CachingAllocator::block_size(r);
    ASSERT_GE(b, r) << r;
    if (r > CachingAllocator::min_block) {
      ASSERT_LT(4 * (b - r), r) << r;
    }
    ASSERT_EQ(b % 64, 0u) << r;
    ASSERT_EQ(CachingAllocator::block_size(b), b) << r;
  }
}

TEST(CachingAllocator, ReuseSameBucket) {
  CachingAllocator pool;
  std::shared_ptr<void> a = pool.allocate(1000);
  void* const p = a.get();
  ASSERT_NE(p, nullptr);
  auto s = pool.stats();
  EXPECT_EQ(s.bytes_in_use, 1024u);
  EXPECT_EQ(s.bytes_requested, 1000u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 0u);

  a.reset();
  s = pool.stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.bytes_cached, 1024u);
  EXPECT_EQ(s.blocks_cached, 1u);

  std::shared_ptr<void> b = pool.allocate(1000);
  EXPECT_EQ(b.get(), p);
  b.reset();
  std::shared_ptr<void> c = pool.allocate(900);  // 2^9, step 128: 8 * 128 = 1024 too
  EXPECT_EQ(c.get(), p);
  s = pool.stats();
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.bytes_cached, 0u);
  EXPECT_EQ(s.bytes_in_use, 1024u);
  EXPECT_EQ(s.bytes_requested, 900u);
  EXPECT_EQ(pool.allocate(0), nullptr);
}

TEST(CachingAllocator, OtherBucketMisses) {
  CachingAllocator pool;
  void* first = nullptr;
  {
    auto a = pool.allocate(1000);  // 1024
    first = a.get();
  }
  auto b = pool.allocate(1100);  // 2^10, step 256: 5 * 256 = 1280
  EXPECT_NE(b.get(), first);
  const auto s = pool.stats();
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.bytes_cached, 1024u);
  EXPECT_EQ(s.bytes_in_use, 1280u);
}

TEST(CachingAllocator, InUseAndPeak) {
  CachingAllocator pool;
  auto a = pool.allocate(300);    // 2^8, step 64: ceil(4.69) = 5 steps, 320
  auto b = pool.allocate(5000);   // 2^12, step 1024: 5 * 1024 = 5120
  auto c = pool.allocate(70000);  // 2^16, step 16384: 5 * 16384 = 81920
  auto s = pool.stats();
  EXPECT_EQ(s.bytes_in_use, 320u + 5120u + 81920u);
  EXPECT_EQ(s.bytes_requested, 300u + 5000u + 70000u);
  EXPECT_EQ(s.peak_bytes_in_use, 87360u);

  b.reset();
  s = pool.stats();
  EXPECT_EQ(s.bytes_in_use, 82240u);
  EXPECT_EQ(s.peak_bytes_in_use, 87360u);
  pool.reset_peak();
  EXPECT_EQ(pool.stats().peak_bytes_in_use, 82240u);
  auto d = pool.allocate(100);  // 256
  EXPECT_EQ(pool.stats().peak_bytes_in_use, 82496u);
  auto e = pool.allocate(5000);  // the cached 5120 block
  s = pool.stats();
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.peak_bytes_in_use, 87616u);
}

TEST(CachingAllocator, EmptyCache) {
  CachingAllocator pool;
  {
    auto a = pool.allocate(1000);
    auto b = pool.allocate(1000);
    auto c = pool.allocate(20000);  // 2^14, step 4096: 5 * 4096 = 20480
  }
  auto s = pool.stats();
  EXPECT_EQ(s.bytes_cached, 1024u + 1024u + 20480u);
  EXPECT_EQ(s.blocks_cached, 3u);
  EXPECT_EQ(s.frees, 0u);
  pool.empty_cache();
  s = pool.stats();
  EXPECT_EQ(s.bytes_cached, 0u);
  EXPECT_EQ(s.blocks_cached, 0u);
  EXPECT_EQ(s.frees, 3u);
  auto d = pool.allocate(1000);
  EXPECT_EQ(pool.stats().misses, 4u);
}

TEST(CachingAllocator, CacheLimit) {
  CachingAllocator pool(limit(4096));
  std::vector<std::shared_ptr<void>> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(pool.allocate(1000));  // 4 x 1024
  blocks.push_back(pool.allocate(2000));                                // 2048
  blocks.push_back(pool.allocate(10000));  // 2^13, step 2048: 5 * 2048 = 10240 > limit
  for (auto& b : blocks) {
    b.reset();
    ASSERT_LE(pool.stats().bytes_cached, 4096u);
  }
  auto s = pool.stats();
  EXPECT_EQ(s.bytes_cached, 4096u);  // the four 1024-byte blocks
  EXPECT_EQ(s.blocks_cached, 4u);
  EXPECT_EQ(s.frees, 2u);  // the 2048 and 10240 blocks did not fit

  pool.set_cache_limit(2048);  // frees two 1024-byte blocks
  s = pool.stats();
  EXPECT_EQ(pool.cache_limit(), 2048u);
  EXPECT_EQ(s.bytes_cached, 2048u);
  EXPECT_EQ(s.frees, 4u);

  CachingAllocator none(limit(0));
  none.allocate(1000).reset();
  EXPECT_EQ(none.stats().bytes_cached, 0u);
  EXPECT_EQ(none.stats().frees, 1u);
}

TEST(CachingAllocator, TrimFreesLargestFirst) {
  CachingAllocator pool;
  {
    auto a = pool.allocate(1000);   // 1024
    auto b = pool.allocate(20000);  // 20480
    auto c = pool.allocate(1000);   // 1024
  }
  pool.set_cache_limit(4096);
  const auto s = pool.stats();
  EXPECT_EQ(s.bytes_cached, 2048u);
  EXPECT_EQ(s.frees, 1u);
}

TEST(CachingAllocator, DisabledNeverCaches) {
  CachingAllocator::Options off;
  off.enabled = false;
  CachingAllocator pool(off);
  EXPECT_FALSE(pool.enabled());
  for (int i = 0; i < 3; ++i) {
    auto a = pool.allocate(1000);
    EXPECT_EQ(pool.stats().bytes_in_use, 1000u);  // exact size, no bucket
  }
  auto s = pool.stats();
  EXPECT_EQ(s.hits, 0u);
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.frees, 3u);
  EXPECT_EQ(s.bytes_cached, 0u);

  // Blocks in use when caching is switched, in either direction, are freed.
  CachingAllocator pool2;
  auto kept_on = pool2.allocate(1000);
  pool2.allocate(1000).reset();
  EXPECT_EQ(pool2.stats().bytes_cached, 1024u);
  pool2.set_enabled(false);
  EXPECT_EQ(pool2.stats().bytes_cached, 0u);
  auto kept_off = pool2.allocate(1000);
  kept_on.reset();
  pool2.set_enabled(true);
  kept_off.reset();
  s = pool2.stats();
  EXPECT_EQ(s.bytes_cached, 0u);
  EXPECT_EQ(s.frees, 3u);
  EXPECT_EQ(s.bytes_in_use, 0u);
}

TEST(CachingAllocator, ConcurrentThreads) {
  // Allocator calls only (no kernels) from several host threads. On a host
  // memory space each thread also writes the ends of its blocks, so a block
  // handed out twice or too small shows up under the sanitizers.
  constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 Kokkos::DefaultExecutionSpace::memory_space>::accessible;
  CachingAllocator pool(limit(std::size_t{1} << 20));
  constexpr int n_threads = 4;
  constexpr int n_rounds = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < n_threads; ++t) {
    threads.emplace_back([&pool, t] {
      std::vector<std::shared_ptr<void>> held;
      for (int i = 0; i < n_rounds; ++i) {
        const std::size_t bytes = 100 + static_cast<std::size_t>((i * 7 + t) % 13) * 900;
        held.push_back(pool.allocate(bytes));
        if (host_memory) {
          auto* c = static_cast<unsigned char*>(held.back().get());
          c[0] = static_cast<unsigned char>(t);
          c[bytes - 1] = static_cast<unsigned char>(i);
        }
        if (held.size() > 5) held.erase(held.begin() + (i % 5));
      }
    });
  }
  for (auto& th : threads) th.join();
  const auto s = pool.stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.bytes_requested, 0u);
  EXPECT_EQ(s.hits + s.misses, static_cast<std::uint64_t>(n_threads) * n_rounds);
  EXPECT_EQ(s.misses, s.frees + s.blocks_cached);  // every block freed or cached
  EXPECT_LE(s.bytes_cached, std::size_t{1} << 20);
  EXPECT_GT(s.hits, 0u);
}

TEST(EngineAllocator, TensorStorageReturnsToTheCache) {
  EngineCaching caching;
  auto& engine = camber::memory::engine_allocator();
  const auto before = engine.stats();
  void* p = nullptr;
  {
    Tensor t({1000});  // 8000 bytes: an 8192-byte block
    p = t.data();
    EXPECT_EQ(engine.stats().bytes_in_use - before.bytes_in_use, 8192u);
    Tensor copy = t;
    Tensor flat = t.reshape({10, 100});
    EXPECT_EQ(t.use_count(), 3);
    EXPECT_EQ(engine.stats().bytes_in_use - before.bytes_in_use, 8192u);  // shared
  }
  EXPECT_EQ(engine.stats().bytes_in_use, before.bytes_in_use);
  const auto released = engine.stats();
  Tensor again = Tensor::uninitialized({1000});
  EXPECT_EQ(again.data(), p);
  EXPECT_EQ(engine.stats().hits, released.hits + 1);
  EXPECT_EQ(engine.stats().misses, released.misses);
  EXPECT_EQ(Tensor().use_count(), 0);
  EXPECT_EQ(Tensor({0}).size(), 0);
}

TEST(EngineAllocator, ZeroFillOverReusedBlock) {
  EngineCaching caching;
  void* p = nullptr;
  {
    Tensor dirty = Tensor::full({999}, std::numeric_limits<double>::quiet_NaN());
    p = dirty.data();
  }
  Tensor z({3, 333});  // the same bucket (7992 bytes -> 8192)
  EXPECT_EQ(z.data(), p);
  for (double v : z.to_vector()) ASSERT_EQ(v, 0.0);
  EXPECT_EQ(z.sum(), 0.0);
}

TEST(EngineAllocator, TensorSemanticsOnPooledStorage) {
  EngineCaching caching;
  Tensor a = Tensor::from_host({2, 2}, {1.0, 2.0, 3.0, 4.0});
  Tensor shared = a;
  Tensor deep = a.clone();
  EXPECT_NE(deep.data(), a.data());
  const auto v0 = a.version();
  shared.fill(5.0);
  EXPECT_EQ(a.sum(), 20.0);                   // copies share storage
  EXPECT_EQ(deep.sum(), 10.0);                // clone does not
  EXPECT_GT(a.version(), v0);                 // one counter for both
  EXPECT_EQ(deep.version(), 0u);
  Tensor r = a.reshape({4});
  r *= 2.0;
  EXPECT_EQ(a.sum(), 40.0);
  EXPECT_EQ(a.version(), r.version());
}

TEST(EngineAllocator, CachingOff) {
  auto& engine = camber::memory::engine_allocator();
  const bool was = engine.enabled();
  engine.set_enabled(false);
  EXPECT_EQ(engine.stats().bytes_cached, 0u);
  const auto before = engine.stats();
  {
    Tensor t({1000});
    EXPECT_EQ(engine.stats().bytes_in_use - before.bytes_in_use, 8000u);  // exact
    EXPECT_EQ(t.sum(), 0.0);
  }
  const auto after = engine.stats();
  EXPECT_EQ(after.bytes_cached, 0u);
  EXPECT_EQ(after.frees, before.frees + 1);
  EXPECT_EQ(after.hits, before.hits);
  engine.set_enabled(was);
}
