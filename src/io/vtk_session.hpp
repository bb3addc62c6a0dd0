/// @file
/// camber::io::VtkSession — VTK's MPI controller for the whole program.
///
/// Camber's own VTK output (write_vtu, write_pvtu, PvdSeries) does not need
/// it: write_pvtu takes the communicator as an argument. Create a VtkSession
/// when the program runs VTK's parallel algorithms itself (filters and
/// writers that use vtkMultiProcessController::GetGlobalController()).
///
/// @code
///   int main(int argc, char** argv) {
///     camber::Runtime runtime(argc, argv);     // MPI, then Kokkos
///     // PetscSession (solvers/) here, if used
///     camber::io::VtkSession vtk(argc, argv);  // VTK's controller, last
///     ...
///   }                                         // destroyed in reverse order
/// @endcode
///
/// Order: after camber::Runtime (MPI must be initialized; VTK is told that MPI
/// is managed outside it and will neither initialize nor finalize it) and
/// after PETSc; destroy it before them, which scope order does. The session
/// installs a vtkMPIController over MPI_COMM_WORLD as VTK's global controller
/// and removes it at the end. If a global controller already exists (a host
/// application set one up), the session leaves it alone.
#pragma once

#include <memory>

namespace camber::io {

class VtkSession {
 public:
  VtkSession(int& argc, char**& argv);
  VtkSession();
  ~VtkSession();
  VtkSession(const VtkSession&) = delete;
  VtkSession& operator=(const VtkSession&) = delete;

  /// True if this session installed the global controller (and will remove it).
  bool owns_controller() const noexcept;
  /// Rank and size as VTK's global controller sees them.
  int rank() const;
  int size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace camber::io
