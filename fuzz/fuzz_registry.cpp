// Any bytes as a registry's index file (index.sqlite) and as a model
// reference: opening the registry, listing it and resolving references must
// work or throw bad_input, never crash, hang or leak (a damaged or forged
// index is data SQLite and our reading of its rows must survive).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <camber/core/error.hpp>
#include <camber/nn/registry/registry.hpp>

namespace reg = camber::nn::registry;
namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // In memory-backed storage when there is one: every input is a new file
  // that SQLite opens, journals and syncs.
  static const fs::path dir = [] {
    std::error_code ec;
    const fs::path base = fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
    const fs::path d = base / ("camber_fuzz_registry_" + std::to_string(::getpid()));
    fs::create_directories(d / "blobs", ec);
    return d;
  }();
  std::error_code ec;
  for (const char* f : {"index.sqlite-wal", "index.sqlite-shm", "index.sqlite-journal"})
    fs::remove(dir / f, ec);
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  // The first line is a reference; the rest the index file.
  const std::size_t nl = bytes.find('\n');
  const std::string ref = bytes.substr(0, nl == std::string::npos ? bytes.size() : nl);
  {
    std::ofstream out(dir / "index.sqlite", std::ios::binary);
    if (nl != std::string::npos) out << bytes.substr(nl + 1);
  }
  try {
    reg::Registry r(dir.string());
    for (const reg::Entry& e : r.list()) (void)r.resolve(reg::parse_reference(e.name));
    (void)r.resolve(reg::parse_reference(ref));
  } catch (const camber::Error& e) {
    if (e.kind() != camber::ErrorKind::bad_input) std::abort();
  }
  return 0;
}
