// Any bytes as a model file: load_model must load it or throw camber::Error
// of kind bad_input naming the file, never crash, hang or leak. A model
// that loads must predict finite-shaped output for one row.
//
// With CAMBER_FUZZ_SEAL the bytes are taken as the HDF5 part and given a
// correct header (size and SHA-256), so they get past the checksum to the
// HDF5 reader and the entry checks behind it.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <camber/core/error.hpp>
#include <camber/nn/io/model_file.hpp>
#include <Kokkos_Core.hpp>

#include "sha256_hex.hpp"

namespace {

using camber_fuzz::sha256_hex;
std::string path;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Kokkos for Tensors; no MPI (loading a model needs none, and Open MPI's
  // one-time allocations would read as leaks).
  static Kokkos::ScopeGuard kokkos;
  const char* dir = std::getenv("TMPDIR");
  path = std::string(dir != nullptr ? dir : "/tmp") + "/camber_fuzz_model_" +
         std::to_string(::getpid()) + ".h5";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
#if defined(CAMBER_FUZZ_SEAL)
  {
    std::ostringstream head;
    head << "CAMBER-MODEL 1\nbytes " << (512 + bytes.size()) << "\nsha256 " << sha256_hex(bytes) << "\n";
    std::string block = head.str();
    block.resize(512, '\0');
    bytes = block + bytes;
  }
#else
  (void)sha256_hex;
#endif
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  try {
    const camber::nn::io::Model m = camber::nn::io::load_model(path);
    const auto n_in = m.surrogate.spec().in;
    const camber::Tensor y =
        m.surrogate.predict(camber::Tensor::from_host({1, n_in}, std::vector<double>(static_cast<size_t>(n_in), 0.0)));
    if (y.dim(1) != m.surrogate.spec().out) std::abort();
  } catch (const camber::Error& e) {
    if (e.kind() != camber::ErrorKind::bad_input && e.kind() != camber::ErrorKind::failure) std::abort();
  }
  return 0;
}
