/// @file
/// camber::Runtime — start and stop MPI and Kokkos in the right order.
///
/// Every Camber program (the `camber` CLI, a test main, a user's solver) owns
/// exactly one Runtime for its whole life:
///
/// @code
///   int main(int argc, char** argv) {
///     camber::Runtime runtime(argc, argv);      // MPI_Init_thread, Kokkos
///     return camber::run_guarded(runtime.comm(), [&] {
///       ... work that may throw camber::Error ...
///       return 0;
///     });
///   }                                            // Kokkos, then MPI finalized
/// @endcode
///
/// Memory: Runtime reads the engine allocator's settings at start
/// (CAMBER_ALLOCATOR, CAMBER_ALLOCATOR_CACHE_MB: allocator.hpp; a bad value
/// ends every rank with exit code 2) and empties its cache of Tensor blocks
/// before it finalizes Kokkos. It leaves malloc's settings alone unless
/// asked: CAMBER_MALLOC_CACHE=1 keeps freed blocks up to 32 MiB in malloc's
/// heap for the whole process (mallopt M_MMAP_THRESHOLD 32 MiB,
/// M_TRIM_THRESHOLD 512 MiB), for arrays allocated outside Tensor such as
/// PETSc vectors.
///
/// Arguments: MPI_Init_thread may take its own out of argc/argv; Kokkos gets
/// only the arguments that start with --kokkos- (--kokkos-threads=4,
/// --kokkos-help), and those are then removed too, so that the program's
/// own --help and options reach its parser alone.
///
/// If MPI or Kokkos was already initialized by the caller (a host application
/// embedding Camber), Runtime leaves them alone and does not finalize them.
/// PETSc is started by the solvers module (solvers/petsc/petsc_session.hpp) and VTK's
/// MPI controller by the I/O module: core knows neither.
///
/// Errors under MPI. run_guarded() catches a camber::Error (or any
/// std::exception) thrown on any subset of ranks:
///   * errors raised collectively (every rank reaches agree_on_error() or
///     collective_guard(), e.g. deck validation) are printed once, by the
///     lowest failing rank, and every rank returns the same exit code;
///   * an error on some ranks only is printed with its rank and the job is
///     ended with MPI_Abort, so ranks blocked in communication do not hang.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

namespace camber {

class Runtime {
 public:
  Runtime(int& argc, char**& argv);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  MPI_Comm comm() const noexcept { return MPI_COMM_WORLD; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

  /// Describes the Kokkos execution space, MPI library and rank count.
  std::string describe() const;

 private:
  bool owns_mpi_ = false;
  bool owns_kokkos_ = false;
  int rank_ = 0;
  int size_ = 1;
};

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

/// The largest peak resident memory (Linux's ru_maxrss) over the ranks of
/// `comm`, in MiB: what a run's summary reports. Collective.
double peak_resident_mib(MPI_Comm comm);

/// Runs `body` on every rank of `comm`; if it throws on any rank, all ranks
/// learn it (one MPI_Allreduce) and each rank throws a camber::Error with the
/// message of the lowest failing rank. Use it around phases that every rank
/// enters together (reading and validating a deck, partitioning a mesh), so
/// bad input ends the job cleanly with exit code 2 on every rank.
void collective_guard(MPI_Comm comm, const std::function<void()>& body);

/// Runs `body` and turns exceptions into exit codes: see the file comment.
int run_guarded(MPI_Comm comm, const std::function<int()>& body);

}  // namespace camber
