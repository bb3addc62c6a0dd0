#include <camber/core/log.hpp>

#include <iostream>
#include <sstream>

namespace camber::logging {
namespace {
int g_rank = 0;
Level g_level = Level::info;
bool g_per_rank = false;

void emit(std::ostream& os, const char* tag, const std::string& line) {
  std::ostringstream text;
  if (g_per_rank) text << "[rank " << g_rank << "] ";
  text << tag << line << '\n';
  os << text.str() << std::flush;
}
}  // namespace

void set_rank(int rank) { g_rank = rank; }
void set_level(Level level) { g_level = level; }
Level level() { return g_level; }
void set_per_rank(bool per_rank) { g_per_rank = per_rank; }
bool per_rank() { return g_per_rank; }

bool enabled(Level lvl) {
  return static_cast<int>(g_level) >= static_cast<int>(lvl) &&
         (g_per_rank || g_rank == 0);
}

void info(const std::string& line) {
  if (enabled(Level::info)) emit(std::cout, "", line);
}
void debug(const std::string& line) {
  if (enabled(Level::debug)) emit(std::cout, "debug: ", line);
}
void warn(const std::string& line) {
  if (g_per_rank || g_rank == 0) emit(std::cerr, "warning: ", line);
}

}  // namespace camber::logging
