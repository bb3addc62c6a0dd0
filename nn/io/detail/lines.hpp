// Lists of names stored as one HDF5 string attribute, one name per line
// (private to nn_io).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace camber::nn::io::detail {

inline std::string join_lines(const std::vector<std::string>& parts) {
  std::string s;
  for (size_t k = 0; k < parts.size(); ++k) s += (k ? "\n" : "") + parts[k];
  return s;
}

/// The lines of `s`, padded with empty ones up to `at_least` (a list whose
/// last entries are empty strings is stored without them).
inline std::vector<std::string> split_lines(const std::string& s, size_t at_least = 0) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part)) out.push_back(part);
  while (out.size() < at_least) out.emplace_back();
  return out;
}

}  // namespace camber::nn::io::detail
