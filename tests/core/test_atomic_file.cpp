// Atomic file replacement (camber/core/atomic_file.hpp): the new content or
// the old one, never a torn file, and nothing left behind.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A fresh folder per test, removed afterwards.
class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("camber_atomic_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace

TEST_F(AtomicFile, WritesTheTextAndCreatesParents) {
  const fs::path p = dir_ / "a" / "b" / "out.csv";
  camber::write_file_atomically(p, std::string("x,y\n1,2\n"));
  EXPECT_EQ(read(p), "x,y\n1,2\n");
  EXPECT_FALSE(fs::exists(camber::temporary_path(p)));
  EXPECT_EQ(camber::temporary_path(p).filename(), "out.csv.tmp");
}

TEST_F(AtomicFile, ReplacesAnExistingFile) {
  const fs::path p = dir_ / "history.csv";
  camber::write_file_atomically(p, std::string("old, and longer than the new content\n"));
  camber::write_file_atomically(p, [](std::ostream& out) { out << "new\n"; });
  EXPECT_EQ(read(p), "new\n");
}

TEST_F(AtomicFile, AFailingWriterLeavesTheOldFileAndNoTemporary) {
  const fs::path p = dir_ / "model.dat";
  camber::write_file_atomically(p, std::string("good\n"));
  EXPECT_THROW(camber::write_file_atomically(p,
                                             [](std::ostream& out) {
                                               out << "half a fi";
                                               throw std::runtime_error("killed mid-write");
                                             }),
               std::runtime_error);
  EXPECT_EQ(read(p), "good\n");
  EXPECT_FALSE(fs::exists(camber::temporary_path(p)));
}

TEST_F(AtomicFile, CommitsAFileWrittenElsewhere) {
  const fs::path p = dir_ / "field.h5";
  const fs::path tmp = camber::temporary_path(p);
  std::ofstream(tmp) << "bytes a library wrote";
  camber::commit_file(tmp, p);
  EXPECT_EQ(read(p), "bytes a library wrote");
  EXPECT_FALSE(fs::exists(tmp));
}

TEST_F(AtomicFile, AnUnwritablePathIsAnErrorNamingIt) {
  const fs::path blocker = dir_ / "not_a_folder";
  std::ofstream(blocker) << "a file where a folder should be";
  try {
    camber::write_file_atomically(blocker / "out.csv", std::string("x\n"));
    FAIL() << "no throw";
  } catch (const camber::Error& e) {
    EXPECT_NE(e.message().find("not_a_folder"), std::string::npos) << e.message();
  }
  EXPECT_THROW(camber::commit_file(dir_ / "missing.tmp", dir_ / "missing"), camber::Error);
}
