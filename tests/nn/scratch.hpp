// A scratch folder for one test process, removed when the tests end
// (private to tests/nn).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace camber::test {

inline std::filesystem::path scratch(const std::string& prefix) {
  static const struct Dir {
    std::filesystem::path path;
    explicit Dir(const std::string& p)
        : path(std::filesystem::temp_directory_path() / (p + std::to_string(::getpid()))) {
      std::filesystem::create_directories(path);
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } dir(prefix);
  return dir.path;
}

}  // namespace camber::test
