/// @file
/// CAMBER_CHECK_PETSC — turn a PETSc error code into a camber::Error.
///
/// Every PETSc call whose failure matters goes through this macro, as every
/// MPI call goes through CAMBER_CHECK_MPI (src/core/error.hpp):
///
/// @code
///   CAMBER_CHECK_PETSC(KSPSetType(ksp, "cg"));
///   CAMBER_CHECK_PETSC(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
/// @endcode
///
/// A nonzero PetscErrorCode throws camber::Error (ErrorKind::failure) whose
/// message holds the call text, PETSc's description of the code and PETSc's
/// own message for the error ("Unable to find requested KSP type ..."). A
/// camber::solvers::petsc::PetscSession installs PETSc's non-printing error handler
/// (PetscReturnErrorHandler), so PETSc returns the code silently and the
/// message reaches the user once, through camber::Error.
///
/// Limitation: PETSc keeps one global "last error" message. A nonzero code
/// that did not come from PetscError() (rare: a user callback returning an
/// arbitrary number) is reported with whatever message PETSc last stored.
#pragma once

#include <petscsys.h>

#include <camber/core/error.hpp>

namespace camber::solvers::petsc::detail {
[[noreturn]] void throw_petsc_error(int code, const char* call, const char* file,
                                    int line);
}  // namespace camber::solvers::petsc::detail

#define CAMBER_CHECK_PETSC(call)                                               \
  do {                                                                         \
    const int camber_petsc_rc_ = static_cast<int>(call);                       \
    if (camber_petsc_rc_ != 0)                                                 \
      ::camber::solvers::petsc::detail::throw_petsc_error(camber_petsc_rc_, #call,    \
                                                   __FILE__, __LINE__);        \
  } while (false)
