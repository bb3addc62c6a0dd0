/// @file
/// Graph partitioning: which rank owns each mesh cell. METIS for a graph
/// one process holds whole (partition_graph, partition_over_ranks);
/// PT-Scotch for one the ranks hold in pieces (partition_distributed, what
/// DistributedMesh uses, so that no rank needs the whole mesh).
///
/// Cells are the vertices of an undirected graph given in CSR form over
/// global ids 0..n-1: the neighbours of vertex v are
/// adjncy[xadj[v]] .. adjncy[xadj[v+1]-1] (each edge listed in both
/// directions, no self-loops, no duplicates; the usual METIS convention).
/// partition_graph() splits the vertices into n_parts parts of nearly equal
/// (weighted) size while cutting few edges, which for a mesh means balanced
/// work per rank and small halos.
///
/// @code
///   // a chain 0 - 1 - 2 - 3
///   std::vector<std::int64_t> xadj{0, 1, 3, 5, 6}, adjncy{1, 0, 2, 1, 3, 2};
///   std::vector<int> part = camber::par::partition_graph(xadj, adjncy, 2);
///   auto q = camber::par::partition_quality(xadj, adjncy, part, 2);
///   // part == {0,0,1,1} or {1,1,0,0}; q.edge_cut == 1; q.imbalance == 0
/// @endcode
///
/// Quality: edge_cut is the (weighted) number of edges between parts;
/// imbalance = (largest part weight) / (mean part weight) - 1, so 0 is
/// perfect balance and 0.05 means the busiest rank has 5% more than average.
///
/// Determinism: METIS runs with a fixed seed, so equal input gives equal
/// output on one machine. partition_over_ranks() goes further: it partitions
/// on rank 0 only and broadcasts, so every rank holds the same vector even
/// if METIS builds differ. Most users want partition_over_ranks() followed
/// by CellDistribution (parallel/cell_distribution.hpp).
///
/// Not differentiable (a partition is discrete). Limitations: one balance
/// constraint (ncon = 1); METIS is built with 32-bit indices on Debian, so a graph with
/// 2^31 or more vertices or edge entries is refused with an error.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace camber::par {

enum class PartitionMethod {
  automatic,  ///< recursive bisection for n_parts <= 8, k-way above (METIS' advice)
  kway,       ///< METIS_PartGraphKway
  recursive,  ///< METIS_PartGraphRecursive
};

struct PartitionOptions {
  /// One weight per vertex (work per cell); empty means all 1.
  std::vector<std::int64_t> vertex_weights;
  /// One weight per adjncy entry (communication per face), the same in both
  /// directions of an edge; empty means all 1.
  std::vector<std::int64_t> edge_weights;
  /// Allowed imbalance (largest part / mean - 1) passed to METIS as its
  /// load-imbalance factor; METIS treats it as a target, not a guarantee.
  double imbalance_tolerance = 0.03;
  int seed = 4321;
  PartitionMethod method = PartitionMethod::automatic;
};

struct PartitionQuality {
  std::int64_t edge_cut = 0;  ///< sum of weights of edges between parts
  double imbalance = 0.0;     ///< max part weight / mean part weight - 1
};

/// Throws camber::Error unless (xadj, adjncy) is a valid undirected graph:
/// xadj starts at 0, is non-decreasing and ends at adjncy.size(); every
/// neighbour is in range; no self-loops, duplicate edges or one-way edges.
void validate_graph(const std::vector<std::int64_t>& xadj,
                    const std::vector<std::int64_t>& adjncy);

/// Part (0..n_parts-1) of each vertex. Serial: call it on one rank, or on
/// every rank with identical input. n_parts == 1 is trivial; when n_parts
/// is at least the vertex count, vertex v goes to part v.
std::vector<int> partition_graph(const std::vector<std::int64_t>& xadj,
                                 const std::vector<std::int64_t>& adjncy, int n_parts,
                                 const PartitionOptions& options = {});

/// Collective over `comm`: rank 0 partitions its graph into comm-size parts
/// and broadcasts the result; the graph (and options) of other ranks are not
/// read and may be empty. A failure on rank 0 (bad graph, METIS error) is
/// raised as the same camber::Error on every rank.
std::vector<int> partition_over_ranks(MPI_Comm comm, const std::vector<std::int64_t>& xadj,
                                      const std::vector<std::int64_t>& adjncy,
                                      const PartitionOptions& options = {});

/// Collective over `comm`: partitions a graph that the ranks hold in pieces,
/// with PT-Scotch (SCOTCH_dgraphPart), into comm-size parts. Rank r holds
/// the rows of vertices first_r .. first_r + xadj.size() - 2, where first_r
/// is the sum of the vertex counts of ranks below r (contiguous ranges in
/// rank order, as a parallel reader leaves them); adjncy holds global vertex
/// ids, every edge listed from both ends. Returns the part of each of this
/// rank's vertices. No rank holds the whole graph: the parallel path of
/// DistributedMesh (mesh/distributed_mesh.hpp). options.vertex_weights has
/// one weight per local vertex (empty: all 1); edge weights are not used;
/// imbalance_tolerance is Scotch's load-imbalance ratio; Scotch runs in a
/// deterministic context seeded with options.seed, so equal input at equal
/// rank count gives equal output. One rank: every vertex in part 0. A bad graph
/// (checked by SCOTCH_dgraphCheck) or a Scotch failure is the same
/// camber::Error on every rank. Scotch is built with 32-bit indices here: a
/// graph of 2^31 vertices or local edge entries is refused.
std::vector<int> partition_distributed(MPI_Comm comm, const std::vector<std::int64_t>& xadj,
                                       const std::vector<std::int64_t>& adjncy,
                                       const PartitionOptions& options = {});

/// Edge cut and imbalance of a partition of a graph held in pieces (as for
/// partition_distributed; `part` for this rank's vertices). Collective: the
/// parts of off-rank neighbours come by message. Unit weights.
PartitionQuality partition_quality(MPI_Comm comm, const std::vector<std::int64_t>& xadj,
                                   const std::vector<std::int64_t>& adjncy,
                                   const std::vector<int>& part);

/// Edge cut and imbalance of `part` (weights as in partition_graph; empty =
/// all 1). Empty parts count in the mean.
PartitionQuality partition_quality(const std::vector<std::int64_t>& xadj,
                                   const std::vector<std::int64_t>& adjncy,
                                   const std::vector<int>& part, int n_parts,
                                   const PartitionOptions& weights = {});

}  // namespace camber::par
