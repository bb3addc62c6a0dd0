/// @file
/// Global reductions and whole-field transfers over MPI.
///
/// Sums, dot products and norms of cell fields count each cell once, on its
/// owner: ghost rows (see parallel/cell_distribution.hpp) are ignored, so a
/// result does not depend on whether the halo is up to date, and is the same
/// for any rank count up to round-off (summation order differs).
///
/// @code
///   double mass = camber::par::sum_owned(rho, dist);        // all ranks get it
///   double r2 = camber::par::dot_owned(res, res, dist);
///   double dt = camber::par::allreduce_min(local_dt, comm);
///   camber::Tensor whole = camber::par::gather_owned(u, dist);  // {n_global, ...}
///   camber::Tensor mine = camber::par::scatter_global(whole, dist);
/// @endcode
///
/// Every function here is collective over the given communicator (or the
/// distribution's) and called by all ranks in the same order. Values only:
/// as differentiable ops, the VJP of a sum over ranks is a broadcast of the
/// cotangent, which the tensor graph will add (autodiff/), not this file.
#pragma once

#include <mpi.h>

#include <vector>

#include <camber/parallel/cell_distribution.hpp>
#include <camber/core/tensor.hpp>

namespace camber::par {

/// The same value on every rank of `comm`.
double allreduce_sum(double value, MPI_Comm comm);
double allreduce_max(double value, MPI_Comm comm);
double allreduce_min(double value, MPI_Comm comm);
/// Every rank's values, concatenated in rank order, on rank 0 (empty on the
/// others): a report's rows gathered for writing.
std::vector<double> gather_on_root(const std::vector<double>& mine, MPI_Comm comm);
/// Every rank's values, concatenated in rank order, on every rank
/// (MPI_Allgatherv): small sets a distributed algorithm needs whole, such
/// as a 2-D wall's faces. A total beyond MPI's int range is an error on
/// every rank.
std::vector<std::int64_t> all_gather(const std::vector<std::int64_t>& mine, MPI_Comm comm);
std::vector<double> all_gather(const std::vector<double>& mine, MPI_Comm comm);
/// Element-wise sum over ranks, in place (same shape on every rank),
/// e.g.\ gradients of data-parallel training.
void allreduce_sum_in_place(Tensor& values, MPI_Comm comm);

/// Personalized all-to-all (MPI_Alltoallv): send[r] goes to rank r
/// (send.size() == comm size). Returns what every rank sent to this one,
/// concatenated in rank order; with `from`, (*from)[r] .. (*from)[r + 1] - 1
/// is the range rank r sent. The message passing of distributed set-up
/// (mesh migration, parallel reads), not of solver loops. A count beyond
/// MPI's int range is an error on every rank.
std::vector<std::int64_t> exchange(const std::vector<std::vector<std::int64_t>>& send,
                                   MPI_Comm comm, std::vector<std::int64_t>* from = nullptr);
std::vector<double> exchange(const std::vector<std::vector<double>>& send, MPI_Comm comm,
                             std::vector<std::int64_t>* from = nullptr);

/// Reductions over the owned rows of a cell field of shape {n_local, ...}.
double sum_owned(const Tensor& field, const CellDistribution& dist);
double dot_owned(const Tensor& a, const Tensor& b, const CellDistribution& dist);
double norm2_owned(const Tensor& field, const CellDistribution& dist);
double max_abs_owned(const Tensor& field, const CellDistribution& dist);
/// Sum over owned cells per component: shape = field's shape without axis 0.
Tensor sum_owned_per_component(const Tensor& field, const CellDistribution& dist);

/// The whole field, shape {n_global_cells, ...}, on every rank, from the
/// owned rows of each rank (MPI_Allgatherv; O(global) memory per rank: for
/// output, checks and tests, not inner loops).
Tensor gather_owned(const Tensor& field, const CellDistribution& dist);
/// The local field (owned and ghost rows) cut from a whole field of shape
/// {n_global_cells, ...} held on this rank. No communication.
Tensor scatter_global(const Tensor& global, const CellDistribution& dist);

}  // namespace camber::par
