#include <camber/core/atomic_file.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include <camber/core/error.hpp>

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

void create_parent_directories(const fs::path& file) {
  const fs::path parent = file.parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  CAMBER_REQUIRE(!ec, "cannot create directory '" << parent.string() << "' for '"
                                                  << file.string() << "': " << ec.message());
}

void commit_file(const fs::path& written, const fs::path& path) {
  sync_path(written, false);
  std::error_code ec;
  fs::rename(written, path, ec);
  CAMBER_REQUIRE(!ec, "cannot rename '" << written.string() << "' to '" << path.string()
                                        << "': " << ec.message());
  const fs::path parent = path.parent_path();
  sync_path(parent.empty() ? fs::path(".") : parent, true);
}

void write_file_atomically(const fs::path& path, const std::function<void(std::ostream&)>& write) {
  create_parent_directories(path);
  const fs::path tmp = temporary_path(path);
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      CAMBER_REQUIRE(out, "cannot open '" << tmp.string() << "' for writing");
      write(out);
      out.flush();
      CAMBER_REQUIRE(out, "writing '" << tmp.string() << "' failed (disk full or quota exceeded?)");
    }
    commit_file(tmp, path);
  } catch (...) {
    // The target is untouched; the partial file goes too.
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
}

void write_file_atomically(const fs::path& path, const std::string& text) {
  write_file_atomically(path, [&](std::ostream& out) { out << text; });
}

}  // namespace camber
