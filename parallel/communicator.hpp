/// @file
/// camber::par::Communicator — a private duplicate of an MPI communicator.
///
/// Camber's parallel objects (CellDistribution, HaloExchange) talk over their
/// own duplicate of the user's communicator, so their messages can never
/// match a receive posted by the user or by another library on the same
/// ranks, whatever tags either side uses.
///
/// @code
///   camber::par::Communicator comm(MPI_COMM_WORLD);  // collective: MPI_Comm_dup
///   MPI_Send(buf, n, MPI_DOUBLE, dest, 0, comm.get());
///   // copies share the duplicate; the last copy frees it (MPI_Comm_free)
/// @endcode
///
/// Ownership: copies share one duplicate (reference counted). The duplicate
/// is freed when the last copy goes, unless MPI is already finalized (then
/// there is nothing left to free). Errors inherit the parent's handler; the
/// Camber Runtime sets MPI_ERRORS_RETURN, so every call checked with
/// CAMBER_CHECK_MPI becomes a camber::Error. Most users never build one:
/// CellDistribution makes its own and HaloExchange shares it.
#pragma once

#include <mpi.h>

#include <memory>

namespace camber::par {

class Communicator {
 public:
  /// A communicator over no ranks; get() returns MPI_COMM_NULL.
  Communicator() = default;
  /// Duplicates `parent`. Collective over `parent`.
  explicit Communicator(MPI_Comm parent);

  MPI_Comm get() const noexcept { return handle_ ? handle_->comm : MPI_COMM_NULL; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

 private:
  /// Frees the duplicate in its destructor.
  struct Handle {
    MPI_Comm comm = MPI_COMM_NULL;
    Handle() = default;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle();
  };
  std::shared_ptr<Handle> handle_;
  int rank_ = 0;
  int size_ = 0;
};

}  // namespace camber::par
