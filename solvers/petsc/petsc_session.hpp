/// @file
/// PetscSession — start and stop PETSc, after camber::Runtime started MPI.
///
/// PETSc must be initialized before any Mat/Vec/KSP is created and finalized
/// after the last one is destroyed, and before MPI is finalized. Because
/// camber::Runtime has already called MPI_Init_thread, PetscInitialize sees
/// MPI running and PetscFinalize leaves it running; Runtime finalizes MPI.
///
/// @code
///   int main(int argc, char** argv) {
///     camber::Runtime runtime(argc, argv);                 // MPI, Kokkos
///     camber::solvers::petsc::PetscSession petsc(argc, argv);     // PETSc
///     ... solve_heat(distributed_mesh, problem) ...
///   }                        // PETSc finalized, then Kokkos and MPI
/// @endcode
///
/// Sessions may nest or overlap: the first one started while PETSc is down
/// calls PetscInitialize and PETSc is finalized when the last live session
/// ends. If PETSc was started by someone else (a host application), no
/// session finalizes it. Each session also pushes PETSc's non-printing error
/// handler (PetscReturnErrorHandler) and pops it when it ends, so that
/// CAMBER_CHECK_PETSC (solvers/petsc/petsc_error.hpp) reports errors exactly once.
///
/// Options: command-line arguments (argc/argv) and an options string
/// ("-heat_ksp_monitor -heat_pc_type gamg") are added to PETSc's global
/// options database; so is the PETSC_OPTIONS environment variable, read by
/// PetscInitialize. Construct sessions on the main thread only.
#pragma once

#include <string>

namespace camber::solvers::petsc {

class PetscSession {
 public:
  /// PETSc options from PETSC_OPTIONS and, optionally, an options string.
  PetscSession();
  explicit PetscSession(const std::string& options);
  /// PETSc also reads the command line (options it does not know are left
  /// for others; argv is not modified). Only the session that starts PETSc
  /// can read it: a nested session ignores argc/argv (but not `options`).
  PetscSession(int& argc, char**& argv, const std::string& options = {});
  ~PetscSession();

  PetscSession(const PetscSession&) = delete;
  PetscSession& operator=(const PetscSession&) = delete;
  PetscSession(PetscSession&&) = delete;
  PetscSession& operator=(PetscSession&&) = delete;

  /// True for the session whose constructor called PetscInitialize.
  bool started_petsc() const noexcept { return started_petsc_; }

  /// True while PETSc is initialized and not yet finalized.
  static bool petsc_active();
  /// Number of PetscSession objects alive in this process.
  static int live_sessions() noexcept;

 private:
  void start(int* argc, char*** argv, const std::string& options);
  bool started_petsc_ = false;
};

/// Sets -PREFIXname to value in PETSc's options database unless the user
/// gave it (an option set by an earlier call of this function does not
/// count as the user's): a solver's default that -PREFIXname on the
/// command line or in PETSC_OPTIONS overrides. Needs a live session.
void set_option_default(const std::string& prefix, const char* name, const char* value);

}  // namespace camber::solvers::petsc
