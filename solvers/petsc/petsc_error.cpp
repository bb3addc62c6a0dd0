#include <camber/solvers/petsc/petsc_error.hpp>

#include <string>

namespace camber::solvers::petsc::detail {

void throw_petsc_error(int code, const char* call, const char* file, int line) {
  const char* generic = nullptr;
  char* specific = nullptr;
  std::string message = std::string("PETSc call failed: ") + call + ": ";
  // PetscErrorMessage only looks up static tables; it cannot fail in a way
  // we could report better than with the bare code.
  if (PetscErrorMessage(code, &generic, &specific) == 0 && generic != nullptr) {
    message += generic;
  } else {
    message += "PETSc error code " + std::to_string(code);
  }
  if (specific != nullptr && specific[0] != '\0') {
    std::string text(specific);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
      text.pop_back();
    if (!text.empty()) message += ": " + text;
  }
  throw Error(ErrorKind::failure, message, file, line);
}

}  // namespace camber::solvers::petsc::detail
