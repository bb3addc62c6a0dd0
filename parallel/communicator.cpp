#include <camber/parallel/communicator.hpp>

#include <utility>

#include <camber/core/error.hpp>

namespace camber::par {

Communicator::Handle::~Handle() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // A destructor must not throw: a failed free only leaks a handle.
  if (!finalized && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

Communicator::Communicator(MPI_Comm parent) {
  CAMBER_REQUIRE(parent != MPI_COMM_NULL, "Communicator: parent communicator is MPI_COMM_NULL");
  auto handle = std::make_shared<Handle>();
  CAMBER_CHECK_MPI(MPI_Comm_dup(parent, &handle->comm));
  handle_ = std::move(handle);
  CAMBER_CHECK_MPI(MPI_Comm_rank(handle_->comm, &rank_));
  CAMBER_CHECK_MPI(MPI_Comm_size(handle_->comm, &size_));
}

}  // namespace camber::par
