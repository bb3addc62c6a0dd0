/// @file
/// camber::par::CellDistribution — which cells a rank owns, its ghost layer,
/// and who sends what to whom.
///
/// Given a cell graph (cells = vertices, faces = edges, CSR over global ids,
/// see parallel/partition.hpp) and the owner rank of every cell, each rank
/// keeps:
///   * its owned cells: local ids 0 .. n_owned-1, sorted by global id when
///     built from the whole graph, in the caller's order when built from a
///     rank's own rows (DistributedMesh orders them along a space-filling
///     curve, mesh/reorder.hpp);
///   * one layer of ghost cells (neighbours of owned cells owned elsewhere):
///     local ids n_owned .. n_local-1, grouped by owner rank (ascending) and
///     sorted by global id within a group;
///   * global <-> local maps, and the owned-cell adjacency in local ids;
///   * the communication pattern: for each neighbour rank, the owned cells
///     it needs (send list) and the contiguous ghost slots it fills.
///
/// A cell field is then a Tensor of shape {n_local(), ...} whose ghost rows
/// HaloExchange (parallel/halo_exchange.hpp) fills from their owners.
///
/// @code
///   std::vector<int> part = camber::par::partition_over_ranks(comm, xadj, adjncy);
///   camber::par::CellDistribution dist(comm, xadj, adjncy, part);
///   camber::Tensor u({dist.n_local(), 4});         // owned rows, then ghosts
///   camber::par::HaloExchange halo(dist);
///   halo.forward(u);                                // ghosts = owners' values
/// @endcode
///
/// Input: the whole graph and part vector on every rank, identical
/// everywhere (checked with a fingerprint reduction; O(global) memory and
/// O(global) work per rank at construction, fine up to ~10^7 cells). The
/// construction is collective and reports bad input (invalid graph, part out
/// of range, edges listed one way, ranks disagreeing) as the same
/// camber::Error on every rank. The second constructor builds the same
/// layout from each rank's own rows (O(local) memory).
///
/// Ownership: the object owns its index arrays and a private duplicate of
/// the communicator (parallel/communicator.hpp); copies share the duplicate.
/// Not differentiable itself: it is the static layout that the halo exchange
/// and reductions use.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <utility>
#include <vector>

#include <camber/parallel/communicator.hpp>
#include <camber/core/tensor.hpp>

namespace camber::par {

/// What this rank exchanges with one neighbour rank. The relation is
/// symmetric: if this rank receives ghosts from r, it also sends to r.
struct NeighbourRank {
  int rank = -1;
  /// Local ids of the owned cells that are ghosts on `rank`, sorted by
  /// global id (the order in which `rank` stores them).
  std::vector<index_t> send_cells;
  /// This rank's ghosts owned by `rank` are local ids
  /// ghost_begin..ghost_begin + n_ghosts - 1.
  index_t ghost_begin = 0;
  index_t n_ghosts = 0;
};

class CellDistribution {
 public:
  CellDistribution() = default;
  /// Collective over `comm`. part[g] is the rank (0 .. size-1) owning cell g.
  CellDistribution(MPI_Comm comm, const std::vector<std::int64_t>& xadj,
                   const std::vector<std::int64_t>& adjncy, const std::vector<int>& part);
  /// Collective over `comm`, from this rank's rows only (no global arrays;
  /// what a mesh distributed without a global copy builds from): `owned`
  /// the distinct global ids of the cells this rank owns, in the order they
  /// get local ids 0, 1, ... (each cell owned by
  /// one rank), xadj/adjncy their neighbours (CSR over `owned`, global ids,
  /// every edge also listed by the neighbour's owner), adjncy_owner the
  /// owner rank of each adjncy entry. With `owned` sorted, the same layout
  /// as the constructor above gives for the same graph and ownership.
  CellDistribution(MPI_Comm comm, std::vector<std::int64_t> owned,
                   const std::vector<std::int64_t>& xadj, const std::vector<std::int64_t>& adjncy,
                   const std::vector<int>& adjncy_owner);

  /// The private duplicate used for this layout's messages.
  MPI_Comm comm() const noexcept { return comm_.get(); }
  const Communicator& communicator() const noexcept { return comm_; }
  int rank() const noexcept { return comm_.rank(); }
  int size() const noexcept { return comm_.size(); }

  std::int64_t n_global_cells() const noexcept { return n_global_; }
  index_t n_owned() const noexcept { return n_owned_; }
  index_t n_ghosts() const noexcept { return n_local() - n_owned_; }
  index_t n_local() const noexcept { return static_cast<index_t>(local_to_global_.size()); }

  /// Global id of every local cell (owned first, then ghosts).
  const std::vector<std::int64_t>& local_to_global() const noexcept { return local_to_global_; }
  std::int64_t global_id(index_t local) const;
  /// Local id of global cell g, or -1 if g is neither owned nor a ghost here.
  index_t local_id(std::int64_t global) const;
  bool is_owned(index_t local) const noexcept { return local >= 0 && local < n_owned_; }
  /// Owner rank of each ghost: ghost_owner()[i] owns local cell n_owned() + i.
  const std::vector<int>& ghost_owner() const noexcept { return ghost_owner_; }

  /// Neighbours of owned cells in local ids (every neighbour of an owned
  /// cell is owned or a ghost): CSR with n_owned() + 1 offsets, in the order
  /// of the global adjacency.
  const std::vector<index_t>& owned_xadj() const noexcept { return owned_xadj_; }
  const std::vector<index_t>& owned_adjncy() const noexcept { return owned_adjncy_; }

  /// Neighbour ranks in ascending order.
  const std::vector<NeighbourRank>& neighbours() const noexcept { return neighbours_; }

 private:
  // Ghosts, owned adjacency and neighbour ranks from the owned rows (owned
  // cells already in local_to_global_); then every rank checks that what
  // its neighbours will send matches its ghosts.
  void lay_out(const std::vector<std::int64_t>& xadj, const std::vector<std::int64_t>& adjncy,
               const std::vector<int>& owner);
  void check_counts() const;

  Communicator comm_;
  std::int64_t n_global_ = 0;
  index_t n_owned_ = 0;
  std::vector<std::int64_t> local_to_global_;
  std::vector<int> ghost_owner_;
  /// (global id, local id) of the ghosts, sorted by global id, for local_id().
  std::vector<std::pair<std::int64_t, index_t>> owned_lookup_;  // (global, local), sorted
  std::vector<std::pair<std::int64_t, index_t>> ghost_lookup_;
  std::vector<index_t> owned_xadj_;
  std::vector<index_t> owned_adjncy_;
  std::vector<NeighbourRank> neighbours_;
};

}  // namespace camber::par
