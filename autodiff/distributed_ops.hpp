/// @file
/// Differentiable communication: the halo exchange and global sums as ops of
/// the tensor graph, so gradients flow across MPI ranks.
///
/// A cell field on a partitioned mesh is a Var of shape {n_local, ...}: the
/// owned rows, then one layer of ghost rows (parallel/cell_distribution.hpp).
///
/// @code
///   y = ad::halo_exchange(x, halo)   // owned rows copied, ghost rows from owners
///   s = ad::allreduce_sum(ad::sum(ad::slice(y, ...)), comm)   // same on every rank
/// @endcode
///
/// Derivatives (both ops are linear, and each rule is again one of these ops,
/// so every order works):
/// @code
///   halo_exchange:  JVP  t -> halo_exchange(t)
///                   VJP  g -> halo_reverse_add(g): ghost cotangents are sent
///                        to their owners and added there; ghost rows of the
///                        result are zero (the incoming ghost values of x do
///                        not affect y).
///   allreduce_sum:  y = sum over ranks of x, the same on every rank.
///                   JVP  t -> allreduce_sum(t)
///                   VJP  g -> g (a broadcast). Convention: a replicated
///                        output's cotangent is itself replicated — every rank
///                        computes the same downstream scalar — and inner
///                        products of replicated values count them once.
/// @endcode
///
/// One sum, several faces: ad::allreduce_sum is par::allreduce_sum_in_place
/// (parallel/collectives.hpp, values outside the graph), which it calls,
/// made a graph op; shard::all_reduce is this op on one device-mesh axis
/// with a placement; nn::allreduce_sum sums many gradients in buckets.
///
/// Lifetime: the ops keep a reference to `halo`; it must outlive every
/// backward or forward pass through them. All ranks of the communicator must
/// call the ops (and their derivatives) in the same order: they are
/// collective.
#pragma once

#include <mpi.h>

#include <camber/autodiff/variable.hpp>
#include <camber/parallel/halo_exchange.hpp>

namespace camber::ad {

/// Fills the ghost rows of a copy of `field` from their owners.
Var halo_exchange(const Var& field, par::HaloExchange& halo);

/// The adjoint of halo_exchange: adds the ghost rows of a copy of `field`
/// into their owners' rows on the owning ranks; ghost rows become zero.
Var halo_reverse_add(const Var& field, par::HaloExchange& halo);

/// Element-wise sum of `x` over the ranks of `comm`; every rank gets it.
/// x must have the same shape on every rank.
Var allreduce_sum(const Var& x, MPI_Comm comm);

/// Identity on a replicated x that rank-dependent computations then use
/// (a wall displacement deformed into each rank's own nodes): their
/// cotangents are each rank's share, and the VJP sums them over `comm`
/// (allreduce_sum); the JVP is the identity. Collective in the backward
/// pass. (shard::grad_all_reduce is this on a device-mesh axis.)
Var grad_allreduce(const Var& x, MPI_Comm comm);

}  // namespace camber::ad
