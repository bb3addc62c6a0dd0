// Internal to Camber::ode: what every SUNDIALS wrapper's C callbacks share.
// A callback never lets an exception through SUNDIALS' C code: it keeps the
// first one and returns -1 (unrecoverable), and the wrapper rethrows it
// once the solver has returned. SUNDIALS' own error messages are kept too,
// for the error the wrapper raises.
#pragma once

#include <cstdlib>
#include <exception>
#include <string>

namespace camber::solvers::ode::detail {

// SUNDIALS' ...GetReturnFlagName allocate the name they return: this
// takes it and frees it.
inline std::string take_name(char* name) {
  std::string s = name != nullptr ? name : "unknown flag";
  std::free(name);
  return s;
}

struct CallbackGuard {
  std::exception_ptr error;  // thrown by a callback
  std::string message;       // SUNDIALS' last error message ("function: text")

  template <class Body>
  int guard(Body&& body) {
    try {
      body();
      return 0;
    } catch (...) {
      error = std::current_exception();
      return -1;
    }
  }
  // For SUNDIALS' error handler.
  void record(const char* function, const char* text) { message = std::string(function) + ": " + text; }
  void clear() {
    error = nullptr;
    message.clear();
  }
  void rethrow() const {
    if (error) std::rethrow_exception(error);
  }
  // ": message", or nothing.
  std::string detail() const { return message.empty() ? std::string() : ": " + message; }
};

}  // namespace camber::solvers::ode::detail
