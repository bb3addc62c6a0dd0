#include "gnuplot.hpp"

#include <cstdlib>

#include <camber/core/atomic_file.hpp>
#include <camber/core/log.hpp>

namespace camber::io {

namespace {

// A path inside single quotes for the shell: every ' becomes '\''.
std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

bool gnuplot_available() {
  return std::system("command -v gnuplot > /dev/null 2>&1") == 0;
}

bool run_gnuplot(const std::string& script_path, const std::string& script_text) {
  if (!gnuplot_available()) {
    logging::warn("gnuplot not found: no PNG plots (install gnuplot-nox)");
    return false;
  }
  write_file_atomically(script_path, script_text);
  const std::string command =
      "gnuplot " + shell_quoted(script_path) + " 2> " + shell_quoted(script_path + ".log");
  if (std::system(command.c_str()) != 0) {
    logging::warn("gnuplot failed on " + script_path + " (see " + script_path +
                  ".log): no PNG plots");
    return false;
  }
  return true;
}

}  // namespace camber::io
