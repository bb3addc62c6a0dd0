// Atomic file replacement (camber/core/atomic_file.hpp): the new content or
// the old one, never a torn file, and nothing left behind.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Whether any file under `dir` is a temporary one (".tmp"): none may be
// left behind.
bool has_temporaries(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".tmp") return true;
  return false;
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
  EXPECT_FALSE(has_temporaries(dir_));
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
  EXPECT_FALSE(has_temporaries(dir_));
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

TEST_F(AtomicFile, UniqueTemporaryNamesDifferAndSitBesideTheTarget) {
  const fs::path p = dir_ / "tokens.txt";
  const fs::path a = camber::unique_temporary_path(p), b = camber::unique_temporary_path(p);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.parent_path(), p.parent_path());
  EXPECT_EQ(a.extension(), ".tmp");
  EXPECT_EQ(a.filename().string().rfind("tokens.txt.", 0), 0u) << a;
}

// Writers of one target at once: each writes its own temporary and renames
// it whole, so the file always holds one writer's whole text (with one
// shared temporary name the writers truncate and rename each other's
// half-written files).
TEST_F(AtomicFile, ConcurrentWritersEachReplaceTheFileWhole) {
  const fs::path p = dir_ / "shared.txt";
  constexpr int n_writers = 4, n_writes = 40;
  const auto text_of = [](int w) { return std::string(200000 + 1000 * w, static_cast<char>('a' + w)); };
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int w = 0; w < n_writers; ++w)
    writers.emplace_back([&, w] {
      for (int k = 0; k < n_writes; ++k) {
        try {
          camber::write_file_atomically(p, text_of(w));
        } catch (...) {
          ++failures;
        }
      }
    });
  for (std::thread& t : writers) t.join();
  EXPECT_EQ(failures.load(), 0);
  const std::string final_text = read(p);
  bool whole = false;
  for (int w = 0; w < n_writers; ++w) whole = whole || final_text == text_of(w);
  EXPECT_TRUE(whole) << "a torn file of " << final_text.size() << " bytes";
  EXPECT_FALSE(has_temporaries(dir_));
}

// Read, change, replace under a FileLock: 4 threads adding 1 to a counter
// 25 times each end at 100 (without the lock, increments are lost).
TEST_F(AtomicFile, FileLockSerializesReadChangeReplace) {
  const fs::path p = dir_ / "counter.txt";
  camber::write_file_atomically(p, std::string("0"));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int k = 0; k < 25; ++k) {
        const camber::FileLock lock(p);
        const int value = std::stoi(read(p));
        camber::write_file_atomically(p, std::to_string(value + 1));
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(read(p), "100");
}

TEST_F(AtomicFile, CopiesWithTheModeAndLeavesTheTargetOnFailure) {
  const fs::path from = dir_ / "model.h5", to = dir_ / "blobs" / "abc.h5";
  std::ofstream(from) << "weights";
  camber::copy_file_atomically(from, to,
                               fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  EXPECT_EQ(read(to), "weights");
  EXPECT_EQ(fs::status(to).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  EXPECT_THROW(camber::copy_file_atomically(dir_ / "missing.h5", to), camber::Error);
  EXPECT_EQ(read(to), "weights");
  EXPECT_FALSE(has_temporaries(dir_));
}

TEST_F(AtomicFile, WritesWithTheModeOverAReadOnlyFile) {
  const fs::path p = dir_ / "blobs" / "abc.h5.sig";
  const fs::perms read_only = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
  camber::write_file_atomically(p, std::string("first"), read_only);
  EXPECT_EQ(read(p), "first");
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all, read_only);
  // Replacing needs only the folder's write permission (a rename).
  camber::write_file_atomically(p, std::string("second"), read_only);
  EXPECT_EQ(read(p), "second");
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all, read_only);
  EXPECT_FALSE(has_temporaries(dir_));
}
