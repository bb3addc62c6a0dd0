#include <camber/core/atomic_file.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <system_error>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber {

namespace fs = std::filesystem;

namespace {

// fsync of an open descriptor of `path` (a file, or a directory opened
// read-only); a file system that cannot sync a directory (EINVAL, or EBADF
// on some network file systems) is not an error.
void sync_path(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  CAMBER_REQUIRE(fd >= 0, "cannot open '" << path.string() << "' to flush it to disk: "
                                          << std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  CAMBER_REQUIRE(rc == 0 || (directory && (err == EINVAL || err == EBADF)),
                 "cannot flush '" << path.string() << "' to disk: " << std::strerror(err));
}

}  // namespace

fs::path temporary_path(const fs::path& path) {
  fs::path tmp = path;
  tmp += ".tmp";
  return tmp;
}

fs::path unique_temporary_path(const fs::path& path) {
  // The pid tells processes apart, the counter a process's own writers,
  // and the random part processes of one pid on other hosts of a shared
  // file system.
  static std::atomic<unsigned> counter{0};
  static const unsigned salt = std::random_device{}();
  fs::path tmp = path;
  tmp += "." + std::to_string(::getpid()) + "-" + std::to_string(salt) + "-" +
         std::to_string(counter.fetch_add(1)) + ".tmp";
  return tmp;
}

void create_parent_directories(const fs::path& file) {
  const fs::path parent = file.parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  CAMBER_REQUIRE(!ec, "cannot create directory '" << parent.string() << "' for '"
                                                  << file.string() << "': " << ec.message());
}

void commit_file(const fs::path& written, const fs::path& path, std::optional<fs::perms> mode) {
  sync_path(written, false);
  std::error_code ec;
  if (mode) {
    fs::permissions(written, *mode, fs::perm_options::replace, ec);
    CAMBER_REQUIRE(!ec, "cannot set the permissions of '" << written.string()
                                                          << "': " << ec.message());
  }
  fs::rename(written, path, ec);
  CAMBER_REQUIRE(!ec, "cannot rename '" << written.string() << "' to '" << path.string()
                                        << "': " << ec.message());
  const fs::path parent = path.parent_path();
  sync_path(parent.empty() ? fs::path(".") : parent, true);
}

void commit_file_collective(const fs::path& written, const fs::path& path, MPI_Comm comm) {
  int rank = 0;
  CAMBER_CHECK_MPI(MPI_Comm_rank(comm, &rank));
  // A collective close need not wait for the other ranks' writes: rank 0
  // renames only once every rank has finished its part.
  CAMBER_CHECK_MPI(MPI_Barrier(comm));
  collective_guard(comm, [&] {
    if (rank == 0) commit_file(written, path);
  });
}

void write_file_atomically(const fs::path& path, const std::function<void(std::ostream&)>& write,
                           std::optional<fs::perms> mode) {
  create_parent_directories(path);
  const fs::path tmp = unique_temporary_path(path);
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      CAMBER_REQUIRE(out, "cannot open '" << tmp.string() << "' for writing");
      write(out);
      out.flush();
      CAMBER_REQUIRE(out, "writing '" << tmp.string() << "' failed (disk full or quota exceeded?)");
    }
    commit_file(tmp, path, mode);
  } catch (...) {
    // The target is untouched; the partial file goes too.
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
}

void write_file_atomically(const fs::path& path, const std::string& text,
                           std::optional<fs::perms> mode) {
  write_file_atomically(path, [&](std::ostream& out) { out << text; }, mode);
}

void copy_file_atomically(const fs::path& from, const fs::path& to, std::optional<fs::perms> mode) {
  create_parent_directories(to);
  const fs::path tmp = unique_temporary_path(to);
  try {
    std::error_code ec;
    fs::copy_file(from, tmp, fs::copy_options::overwrite_existing, ec);
    CAMBER_REQUIRE(!ec, "cannot copy '" << from.string() << "' to '" << tmp.string()
                                        << "': " << ec.message());
    commit_file(tmp, to, mode);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
}

FileLock::FileLock(const fs::path& path) {
  fs::path lock = path;
  lock += ".lock";
  create_parent_directories(lock);
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  CAMBER_REQUIRE(fd_ >= 0, "cannot open the lock file '" << lock.string()
                                                          << "': " << std::strerror(errno));
  int rc;
  do {
    rc = ::flock(fd_, LOCK_EX);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int err = errno;
    ::close(fd_);
    CAMBER_REQUIRE(false, "cannot lock '" << lock.string() << "': " << std::strerror(err));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace camber
