/// @file
/// Communication along one axis of a device mesh as ops of the tensor
/// graph, each with its VJP and JVP expressed by the others, so gradients,
/// Jacobian-vector products and higher derivatives of a sharded program
/// go through them unchanged.
///
/// all_reduce is ad::allreduce_sum's sharding form: the same sum
/// (par::allreduce_sum_in_place) over one mesh axis's communicator, with
/// the placement change Partial -> Replicate that the propagation rules
/// need.
///
/// The convention for cotangents (as in autodiff/distributed_ops.hpp): a
/// replicated or partial tensor's cotangent is the whole gradient, the same
/// on every rank of the axis; a sharded tensor's cotangent is this rank's
/// part of the whole gradient. With it the pairs are:
///
/// @code
///   op                         forward                       VJP                 JVP
///   all_gather(x, d)           Shard(d) -> Replicate         local_chunk(g, d)   all_gather(t, d)
///   local_chunk(x, d)          Replicate -> Shard(d)         all_gather(g, d)    local_chunk(t, d)
///   all_reduce(x)              Partial -> Replicate          g (*)               all_reduce(t)
///   reduce_scatter(x, d)       Partial -> Shard(d)           all_gather(g, d)(*) reduce_scatter(t, d)
///   partial_from_replicate(x)  Replicate -> Partial          g                   partial_from_replicate(t)
///   all_to_all(x, d, e)        Shard(d) -> Shard(e)          all_to_all(g, e, d) all_to_all(t, d, e)
///   grad_all_reduce(x)         identity (Replicate)          all_reduce(g)       t
/// @endcode
///
/// (*) A partial input's cotangent is used by rank-dependent local VJPs,
/// so a second backward pass sends partial contributions into it: these
/// VJPs are the identity and all_gather forward, and sum over the axis
/// backward (grad_all_reduce; an all_gather whose VJP is reduce_scatter).
/// With them Hessian-vector products of sharded programs are exact too.
///
/// grad_all_reduce marks a replicated input that a rank-dependent local
/// computation uses (a weight applied to this rank's rows): its local
/// cotangent is one rank's share, and the backward pass sums the shares
/// (Megatron's "f" operator; all_reduce is its "g").
///
/// Every op is collective over the axis's communicator. Values move through
/// host buffers (MPI on the host); float64 only.
#pragma once

#include <camber/autodiff/variable.hpp>
#include <camber/shard/device_mesh.hpp>

namespace camber::shard {

/// The axis's ranks' x concatenated along dim d (uneven parts allowed);
/// `extent` is the concatenated length (the sum of the parts).
ad::Var all_gather(const ad::Var& x, int d, const MeshPtr& mesh, int axis, index_t extent);
/// This rank's chunk of x along dim d (chunk() of the axis).
ad::Var local_chunk(const ad::Var& x, int d, const MeshPtr& mesh, int axis);
/// Shard(d) -> Shard(e) along one axis (MPI_Alltoallv): every rank sends
/// each other rank the part of its block that rank's chunk of dimension e
/// covers. `extent_d` is dimension d's whole length.
ad::Var all_to_all(const ad::Var& x, int d, int e, const MeshPtr& mesh, int axis, index_t extent_d);
/// The sum over the axis's ranks.
ad::Var all_reduce(const ad::Var& x, const MeshPtr& mesh, int axis);
/// The sum over the axis's ranks, this rank's chunk along dim d.
ad::Var reduce_scatter(const ad::Var& x, int d, const MeshPtr& mesh, int axis);
/// x on the axis's first rank, zeros on the others (their sum is x).
ad::Var partial_from_replicate(const ad::Var& x, const MeshPtr& mesh, int axis);
/// Identity; the backward pass sums the cotangent over the axis.
ad::Var grad_all_reduce(const ad::Var& x, const MeshPtr& mesh, int axis);

namespace detail {
/// all_gather forward, reduce_scatter backward (reduce_scatter's VJP).
ad::Var all_gather_summing_back(const ad::Var& x, int d, const MeshPtr& mesh, int axis, index_t extent);
}  // namespace detail

/// Bytes this rank sent by these ops since the start (for the cost model
/// and the benchmarks).
std::int64_t bytes_sent();

}  // namespace camber::shard
