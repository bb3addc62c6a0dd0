// A file every rank writes (MPI-IO) into temporary_path(), committed by
// commit_file_collective: every rank sees the whole file, no temporary is
// left, and a commit that fails on rank 0 throws on every rank. At 1, 2
// and 4 ranks.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace fs = std::filesystem;

namespace {

fs::path shared_dir(const char* test) {
  // The same folder on every rank: rank 0's pid, broadcast.
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return fs::temp_directory_path() / ("camber_atomic_mpi_" + std::to_string(pid) + "_" + test);
}

}  // namespace

TEST(AtomicFileMpi, EveryRanksPartCommittedOnce) {
  const int rank = camber::comm_rank(MPI_COMM_WORLD), size = camber::comm_size(MPI_COMM_WORLD);
  const fs::path dir = shared_dir("parts");
  if (rank == 0) fs::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  const fs::path path = dir / "parts.txt";
  const fs::path tmp = camber::temporary_path(path);
  MPI_File file = MPI_FILE_NULL;
  ASSERT_EQ(MPI_File_open(MPI_COMM_WORLD, tmp.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                          MPI_INFO_NULL, &file),
            MPI_SUCCESS);
  const std::string part = "rank " + std::to_string(rank) + "\n";  // 7 bytes below 10 ranks
  MPI_File_write_at_all(file, static_cast<MPI_Offset>(rank * part.size()), part.data(),
                        static_cast<int>(part.size()), MPI_CHAR, MPI_STATUS_IGNORE);
  MPI_File_close(&file);
  camber::commit_file_collective(tmp, path, MPI_COMM_WORLD);
  std::string expected;
  for (int r = 0; r < size; ++r) expected += "rank " + std::to_string(r) + "\n";
  std::ifstream in(path, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), expected);
  EXPECT_FALSE(fs::exists(tmp));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) fs::remove_all(dir);
}

TEST(AtomicFileMpi, AFailedCommitThrowsOnEveryRank) {
  const fs::path dir = shared_dir("missing");
  EXPECT_THROW(camber::commit_file_collective(dir / "never_written.tmp", dir / "never", MPI_COMM_WORLD),
               camber::Error);
}
