/// @file
/// Camber errors: one exception type, always-on checks, and a wrapper for MPI
/// return codes.
///
/// Camber reports every problem as a camber::Error that carries the source
/// location and a message telling the user what to change. Errors come in two
/// kinds, which decide the exit code of the `camber` executable:
///
/// @code
///   ErrorKind::bad_input  -> exit code 2 (deck, mesh file, command line)
///   ErrorKind::failure    -> exit code 1 (numerical failure, I/O, library)
/// @endcode
///
/// Usage:
///
/// @code
///   CAMBER_REQUIRE(n_cells > 0, "mesh has no cells; check mesh.cells_x");
///   CAMBER_INPUT_REQUIRE(mach < 1.0, deck_location + ": mach must be < 1");
///   CAMBER_CHECK_MPI(MPI_Allreduce(...));
///   CAMBER_ASSERT(i < n);                     // debug builds only
///   CAMBER_KERNEL_ASSERT(volume > 0.0);       // inside Kokkos kernels
/// @endcode
///
/// Kernels never throw: inside device code use CAMBER_KERNEL_ASSERT, which
/// calls Kokkos::abort. How errors leave main() under MPI (printed once, every
/// rank exits) is in <camber/core/runtime.hpp>.
#pragma once

#include <stdexcept>
#include <string>
#include <sstream>

#include <Kokkos_Core.hpp>

namespace camber {

enum class ErrorKind { bad_input, failure };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, const char* file = nullptr,
        int line = 0);

  ErrorKind kind() const noexcept { return kind_; }
  /// Exit code that main() returns for this error: 2 for bad input, 1 otherwise.
  int exit_code() const noexcept { return kind_ == ErrorKind::bad_input ? 2 : 1; }
  /// The message without the source location (for users).
  const std::string& message() const noexcept { return message_; }
  /// Source location "file:line" of the check that threw (for developers).
  const std::string& where() const noexcept { return where_; }

 private:
  ErrorKind kind_;
  std::string message_;
  std::string where_;
};

/// Convenience for bad-input errors raised outside a macro.
[[noreturn]] void throw_bad_input(const std::string& message);

namespace detail {
[[noreturn]] void throw_error(ErrorKind kind, const std::string& message,
                              const char* file, int line);
[[noreturn]] void throw_mpi_error(int code, const char* call, const char* file,
                                  int line);
}  // namespace detail

}  // namespace camber

/// Streams the arguments into a string: CAMBER_MSG("n = " << n).
#define CAMBER_MSG(stream_expr)  \
  ([&]() -> std::string {        \
    std::ostringstream camber_os_; \
    camber_os_ << stream_expr;     \
    return camber_os_.str();       \
  }())

#define CAMBER_REQUIRE(cond, msg)                                              \
  do {                                                                         \
    if (!(cond))                                                               \
      ::camber::detail::throw_error(::camber::ErrorKind::failure,              \
                                    CAMBER_MSG(msg), __FILE__, __LINE__);      \
  } while (false)

#define CAMBER_INPUT_REQUIRE(cond, msg)                                        \
  do {                                                                         \
    if (!(cond))                                                               \
      ::camber::detail::throw_error(::camber::ErrorKind::bad_input,            \
                                    CAMBER_MSG(msg), __FILE__, __LINE__);      \
  } while (false)

#ifdef NDEBUG
#define CAMBER_ASSERT(cond) ((void)0)
#else
#define CAMBER_ASSERT(cond)                                                    \
  do {                                                                         \
    if (!(cond))                                                               \
      ::camber::detail::throw_error(::camber::ErrorKind::failure,              \
                                    "internal invariant violated: " #cond,     \
                                    __FILE__, __LINE__);                       \
  } while (false)
#endif

#define CAMBER_KERNEL_ASSERT(cond)                                             \
  do {                                                                         \
    if (!(cond)) ::Kokkos::abort("camber kernel assertion failed: " #cond);    \
  } while (false)

/// Every MPI call whose failure matters goes through this macro. MPI's
/// default handler aborts; Runtime installs MPI_ERRORS_RETURN on the world
/// communicator so the message reaches the user through camber::Error.
#define CAMBER_CHECK_MPI(call)                                                 \
  do {                                                                         \
    const int camber_mpi_rc_ = (call);                                         \
    if (camber_mpi_rc_ != 0 /* MPI_SUCCESS */)                                 \
      ::camber::detail::throw_mpi_error(camber_mpi_rc_, #call, __FILE__,       \
                                        __LINE__);                             \
  } while (false)
