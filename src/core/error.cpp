#include <camber/core/error.hpp>

#include <mpi.h>

namespace camber {

namespace {
std::string location(const char* file, int line) {
  if (file == nullptr) return {};
  return std::string(file) + ":" + std::to_string(line);
}
}  // namespace

Error::Error(ErrorKind kind, const std::string& message, const char* file,
             int line)
    : std::runtime_error(message),
      kind_(kind),
      message_(message),
      where_(location(file, line)) {}

void throw_bad_input(const std::string& message) {
  throw Error(ErrorKind::bad_input, message);
}

namespace detail {

void throw_error(ErrorKind kind, const std::string& message, const char* file,
                 int line) {
  throw Error(kind, message, file, line);
}

void throw_mpi_error(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    std::snprintf(text, sizeof text, "unknown MPI error %d", code);
  throw Error(ErrorKind::failure,
              std::string("MPI call failed: ") + call + ": " + text, file,
              line);
}

}  // namespace detail
}  // namespace camber
