#include "text_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <camber/core/error.hpp>

namespace camber::mesh::detail {

TextReader::TextReader(const std::string& path, char comment) : path_(path), comment_(comment) {
  std::ifstream in(path, std::ios::binary);
  CAMBER_INPUT_REQUIRE(in.good(), "cannot open mesh file '" << path
                                                            << "'; check the path and permissions");
  std::ostringstream ss;
  ss << in.rdbuf();
  file_ = ss.str();
  text_ = file_;
  count_lines();
}

TextReader::TextReader(std::string_view text, const std::string& path, long first_line,
                       char comment)
    : path_(path), text_(text), comment_(comment), line_no_(first_line - 1) {
  count_lines();
}

void TextReader::count_lines() {
  total_lines_ = line_no_ + static_cast<long>(std::count(text_.begin(), text_.end(), '\n'));
  if (!text_.empty() && text_.back() != '\n') ++total_lines_;
}

bool TextReader::next_line() {
  while (pos_ < text_.size()) {
    const std::size_t end = std::min(text_.find('\n', pos_), text_.size());
    std::string_view l(text_.data() + pos_, end - pos_);
    pos_ = end + 1;
    ++line_no_;
    if (comment_ != 0) {
      const std::size_t c = l.find(comment_);
      if (c != std::string_view::npos) l = l.substr(0, c);
    }
    tokens_.clear();
    std::size_t i = 0;
    while (i < l.size()) {
      while (i < l.size() && std::isspace(static_cast<unsigned char>(l[i]))) ++i;
      std::size_t j = i;
      while (j < l.size() && !std::isspace(static_cast<unsigned char>(l[j]))) ++j;
      if (j > i) tokens_.push_back(l.substr(i, j - i));
      i = j;
    }
    if (tokens_.empty()) continue;
    const std::size_t first = static_cast<std::size_t>(tokens_.front().data() - l.data());
    const std::size_t last =
        static_cast<std::size_t>(tokens_.back().data() + tokens_.back().size() - l.data());
    line_ = l.substr(first, last - first);
    return true;
  }
  line_ = std::string_view();
  tokens_.clear();
  line_no_ = std::max(line_no_, total_lines_);
  return false;
}

void TextReader::require_line(const std::string& what) {
  if (!next_line()) fail("expected " + what + ", found end of file");
}

std::string TextReader::where() const {
  return path_ + ":" + std::to_string(line_no_) + ": ";
}

void TextReader::fail(const std::string& message) const {
  throw_bad_input(where() + message);
}

std::string quote(std::string_view token) {
  std::string s(token.substr(0, 40));
  if (token.size() > 40) s += "...";
  return "'" + s + "'";
}

void TextReader::require_fields(std::size_t lo, std::size_t hi, const std::string& what) const {
  if (tokens_.size() < lo || tokens_.size() > hi) {
    std::ostringstream m;
    m << "expected " << what << " (";
    if (lo == hi)
      m << lo;
    else
      m << lo << " to " << hi;
    m << " fields), found " << tokens_.size() << " field" << (tokens_.size() == 1 ? "" : "s");
    fail(m.str());
  }
}

long long TextReader::integer(std::size_t i, const std::string& what) const {
  if (i >= tokens_.size()) fail("expected " + what + ", found end of line");
  const std::string tok(tokens_[i]);
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(tok.c_str(), &end, 10);
  if (end != tok.c_str() + tok.size() || tok.empty() || errno == ERANGE)
    fail("expected " + what + " (an integer), found " + quote(tokens_[i]));
  return v;
}

double TextReader::real(std::size_t i, const std::string& what) const {
  if (i >= tokens_.size()) fail("expected " + what + ", found end of line");
  const std::string tok(tokens_[i]);
  char* end = nullptr;
  const double v = std::strtod(tok.c_str(), &end);
  if (end != tok.c_str() + tok.size() || tok.empty() || !std::isfinite(v))
    fail("expected " + what + " (a finite number), found " + quote(tokens_[i]));
  return v;
}

}  // namespace camber::mesh::detail
