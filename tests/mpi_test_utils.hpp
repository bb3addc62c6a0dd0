// Helpers shared by MPI test suites: the world communicator, scratch
// folders per rank count, reading a written file back as text, and the
// camber::Error a call throws.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::test {

inline MPI_Comm world() { return MPI_COMM_WORLD; }
inline int rank() { return comm_rank(world()); }
inline int size() { return comm_size(world()); }

// The same doubles on every rank, bit for bit. Collective.
inline bool same_on_every_rank(const std::vector<double>& v) {
  std::vector<double> root = v;
  int n = static_cast<int>(root.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, world());
  root.resize(static_cast<size_t>(n));
  MPI_Bcast(root.data(), n, MPI_DOUBLE, 0, world());
  int mine = (root.size() == v.size() &&
              std::memcmp(root.data(), v.data(), v.size() * sizeof(double)) == 0)
                 ? 1
                 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, world());
  return all == 1;
}

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

// The rows of a CSV file of numbers after its header line.
inline std::vector<std::vector<double>> read_csv_rows(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

// The camber::Error that call() throws, or nothing if it returns (another
// exception passes through).
template <class F>
std::optional<Error> error_from(F&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace camber::test
