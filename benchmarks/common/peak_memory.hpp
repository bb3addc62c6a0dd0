// Peak resident memory of a stretch of a benchmark (Linux): reset_peak()
// returns freed heap pages to the system (malloc_trim) and resets the
// kernel's high-water mark (writing 5 to /proc/self/clear_refs); after the
// stretch, VmHWM minus the VmRSS read after the reset is what it added.
#pragma once

#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace camber::bench {

// kB from /proc/self/status ("VmRSS:", "VmHWM:"), -1 when absent.
inline long status_kb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, n, key) == 0) return std::atol(line.c_str() + n + 1);
  return -1;
}

inline void reset_peak() {
  malloc_trim(0);
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

}  // namespace camber::bench
