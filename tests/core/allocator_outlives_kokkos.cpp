// The engine allocator when the host application owns Kokkos (no
// camber::Runtime): the finalize hook registered at the first allocation
// empties the cache inside Kokkos::finalize, and a Tensor that outlives
// Kokkos releases its block without touching the finalized memory space
// (the block is leaked on purpose). Exit code 0 when all checks hold.
#include <Kokkos_Core.hpp>

#include <cstdio>

#include <camber/core/allocator.hpp>
#include <camber/core/tensor.hpp>

namespace {
int failures = 0;

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "allocator_outlives_kokkos: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main(int argc, char** argv) {
  auto& engine = camber::memory::engine_allocator();
  // Caching on, with the default limit, whatever CAMBER_ALLOCATOR and
  // CAMBER_ALLOCATOR_CACHE_MB say.
  engine.set_enabled(true);
  engine.set_cache_limit(camber::memory::CachingAllocator::Options().cache_limit);
  camber::Tensor survivor;
  Kokkos::initialize(argc, argv);
  {
    camber::Tensor cached({1000});  // 8000 bytes: an 8192-byte block
    survivor = camber::Tensor({500});  // 4000 bytes: 2^11, step 512: 4096
  }
  auto s = engine.stats();
  check(s.bytes_cached == 8192, "the released block is cached");
  check(s.bytes_in_use == 4096, "the survivor's block is in use");
  Kokkos::finalize();
  s = engine.stats();
  check(s.bytes_cached == 0 && s.blocks_cached == 0, "Kokkos::finalize emptied the cache");
  check(s.frees == 1, "the cached block went back to Kokkos");
  survivor = camber::Tensor();  // after finalize: leaked, not freed
  s = engine.stats();
  check(s.leaked == 1 && s.frees == 1, "a block released after finalize is leaked");
  check(s.bytes_in_use == 0, "nothing in use at the end");
  if (failures == 0) std::printf("allocator_outlives_kokkos: passed\n");
  return failures == 0 ? 0 : 1;
}
