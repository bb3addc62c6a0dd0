// A file's extension in lower case, which says what a command reads or
// writes (private to nn_io).
#pragma once

#include <cctype>
#include <filesystem>
#include <string>

namespace camber::nn::io::detail {

inline std::string lowercase_extension(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

}  // namespace camber::nn::io::detail
