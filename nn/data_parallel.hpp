/// @file
/// Data-parallel training over MPI: every rank holds the same parameters,
/// evaluates its share of each global mini-batch, and the gradients are
/// summed over the ranks before the (identical) optimizer step.
///
/// @code
///   const nn::RowRange r = nn::local_rows(batch_rows, comm);   // this rank's rows
///   ad::Var loss = nn::sum_squared_error(net->forward(x_rows), y_rows) / batch_rows;
///   std::vector<Tensor> g = nn::values(ad::grad(loss, net->parameters()));
///   nn::allreduce_sum(g, comm);                                // the global batch's gradient
///   const double global_loss = par::allreduce_sum(loss.item(), comm);
///   opt.step(g);
/// @endcode
///
/// nn::allreduce_sum is not par::allreduce_sum_in_place tensor by tensor:
/// it packs many gradients (float32 and float64) into 16 MiB buckets, one
/// MPI call each (NCCL on GPU builds), after checking that the ranks agree
/// on their number, shapes and dtypes.
///
/// Dividing the per-rank sum by the global batch size (not the local one)
/// makes the summed gradient the gradient of the global batch's mean, so a
/// run on any number of ranks follows the single-rank loss curve to
/// round-off (tests/nn: 1, 2 and 4 ranks agree to 1e-10).
///
/// Gradients are packed into buffers of at most `bucket_bytes` each and
/// summed with one collective per bucket. With MPI the buffers are on the
/// host (no CUDA-aware MPI assumed). A CUDA build configured with
/// -DCAMBER_ENABLE_NCCL=ON packs them on the device and calls ncclAllReduce
/// on Kokkos' stream instead (one NCCL communicator per MPI communicator,
/// made on first use); CAMBER_ALLREDUCE=mpi forces the host path. The
/// reduction runs after the backward pass, not overlapped with it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include <camber/core/tensor.hpp>

namespace camber::nn {

/// Sums every gradient over `comm` in place (collective; same number,
/// shapes and dtypes on every rank, which is checked).
void allreduce_sum(std::vector<Tensor>& grads, MPI_Comm comm,
                   std::size_t bucket_bytes = std::size_t{16} << 20);

struct RowRange {
  index_t begin = 0;
  index_t end = 0;
  index_t size() const { return end - begin; }
};
/// This rank's contiguous share of `rows` rows: balanced, the first
/// rows % size ranks one row more.
RowRange local_rows(index_t rows, MPI_Comm comm);

}  // namespace camber::nn
