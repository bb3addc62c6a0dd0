// Line-oriented reading of mesh and coordinate files with line numbers.
//
// The whole file is read into memory (its size bounds every allocation), its
// lines are counted once, and the parsers walk it line by line. A reader
// may also walk text already in memory, a part of a file starting at a
// given line (the parallel readers' byte ranges). Every error
// is a camber::Error(bad_input) with the message "file:line: expected ...,
// found ...". lines_left() lets a parser check a count from a header against
// what can possibly follow before it reserves memory for it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace camber::mesh::detail {

class TextReader {
 public:
  // Reads `path`; `comment` (0 for none) starts a comment running to the end
  // of the line. Throws bad_input if the file cannot be opened.
  explicit TextReader(const std::string& path, char comment = 0);
  // Walks `text`, the lines of `path` from line `first_line` on (`path`
  // and the line numbers are for messages only). The text is not copied:
  // it must outlive the reader.
  TextReader(std::string_view text, const std::string& path, long first_line, char comment = 0);

  // line() and tokens() view the text, which may be the reader's own.
  TextReader(const TextReader&) = delete;
  TextReader& operator=(const TextReader&) = delete;

  // Advances to the next line that is not blank (after removing comments).
  // Returns false at the end of the file.
  bool next_line();
  // Like next_line(), but an end of file is an error "expected <what>".
  void require_line(const std::string& what);

  const std::string& path() const noexcept { return path_; }
  long line_number() const noexcept { return line_no_; }
  // The current line without the comment and surrounding blanks.
  std::string_view line() const noexcept { return line_; }
  // The whitespace-separated fields of the current line.
  const std::vector<std::string_view>& tokens() const noexcept { return tokens_; }
  // Upper bound on how many more non-blank lines can follow.
  long lines_left() const noexcept { return total_lines_ - line_no_; }

  // Throws bad_input "path:line: message".
  [[noreturn]] void fail(const std::string& message) const;
  // "path:line: "
  std::string where() const;

  // Field i of the current line as an integer / finite double; a missing
  // field or a bad number is an error naming `what`.
  long long integer(std::size_t i, const std::string& what) const;
  double real(std::size_t i, const std::string& what) const;
  // The current line must have between lo and hi fields.
  void require_fields(std::size_t lo, std::size_t hi, const std::string& what) const;

 private:
  void count_lines();

  std::string path_;
  std::string file_;       // the file's text, when the reader read it
  std::string_view text_;  // file_ or the caller's text
  char comment_;
  std::size_t pos_ = 0;
  long line_no_ = 0;
  long total_lines_ = 0;
  std::string_view line_;
  std::vector<std::string_view> tokens_;
};

// What a token looks like in a message: quoted and cut to 40 characters.
std::string quote(std::string_view token);

}  // namespace camber::mesh::detail
