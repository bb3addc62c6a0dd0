// Helpers shared by MPI test suites: the world communicator, scratch
// folders per rank count, and reading a written file back as text.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <camber/core/runtime.hpp>

namespace camber::test {

inline MPI_Comm world() { return MPI_COMM_WORLD; }
inline int rank() { return comm_rank(world()); }
inline int size() { return comm_size(world()); }

// An empty folder <root>/np<ranks>/<test>, so the 1-, 2- and 4-rank runs of
// one suite may run at once. Collective.
inline std::filesystem::path scratch_dir(const std::string& root, const std::string& test) {
  const std::filesystem::path dir =
      std::filesystem::path(root) / ("np" + std::to_string(size())) / test;
  if (rank() == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  MPI_Barrier(world());
  return dir;
}

// printf from rank 0 only (figures a test reports beside its assertions).
template <class... Args>
void say(const char* format, Args... args) {
  if (rank() != 0) return;
  std::printf(format, args...);
  std::fflush(stdout);
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace camber::test
