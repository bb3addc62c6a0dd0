/// @file
/// camber::mesh::DistributedMesh — a global Mesh split over MPI ranks, with
/// this rank's local sub-mesh (owned cells, then one layer of ghosts: every
/// cell that shares a node with an owned cell).
///
/// Built without a global copy on any rank: each rank brings a chunk of
/// the mesh (a contiguous range of the file's nodes and cells,
/// mesh/mesh_chunk.hpp). Faces are matched at a rank chosen by a hash of
/// their nodes, which gives the cell graph (cells = vertices, interior
/// faces = edges) in pieces; PT-Scotch partitions it where it lies
/// (par::partition_distributed); cells move to their owners; each node's
/// reading rank tells the owners of the cells around it who else is there,
/// which gives the ghost layer (every cell sharing a node with an owned
/// cell, what node-neighbour stencils need) and a par::CellDistribution
/// built from each rank's own rows; ghost cells and node coordinates come
/// from their owners and reading ranks. Memory per rank is O(local cells +
/// chunk), all messages are personalized all-to-alls (par::exchange). Each
/// rank then keeps a Mesh of its local cells:
///
/// @code
///   local cells   0 .. n_owned-1 owned, along Morton's curve through their
///                 centroids (mesh/reorder.hpp: neighbours numbered close,
///                 whatever the file's order), then ghosts in the
///                 distribution's order (by owner rank, then global id);
///   local nodes   0 .. n_owned_nodes-1 used by owned cells, then the nodes
///                 used only by ghosts (each group sorted by global id);
///   local faces   0 .. n_owned_faces-1 every face of an owned cell (a face
///                 between an owned cell and a ghost has both; boundary faces
///                 keep their marker), then the faces only ghosts have (the
///                 outer side of the ghost layer: unmarked boundary faces of
///                 the local Mesh, which kernels over owned cells never need).
/// @endcode
///
/// Local geometry is ordinary mesh::compute_geometry(local()), for any scalar
/// type (Dual coordinates give derivatives with respect to local nodes).
/// Summed over owned cells and ranks it equals the serial result to
/// round-off; ghost values equal what their owner computes, so a HaloExchange
/// of an owned-cell field reproduces them.
///
/// @code
///   MPI_Comm comm = runtime.comm();
///   DistributedMesh dm = DistributedMesh::read("naca0012.su2", comm);  // collective
///   Geometry g = compute_geometry(dm.local());   // owned and ghost cells
///   camber::Tensor vol = camber::Tensor::from_view(g.cell_volume);  // no copy
///   // ... a kernel overwrites rows n_owned_cells() .. n_local_cells()-1 ...
///   dm.halo().forward(vol);                      // ghost rows come back from owners
///   double area = total_volume(dm);              // owned cells summed over ranks
///   io::write_pvtu("out/grid", dm.owned_piece({{"Volume [m^2]", 1, vol.to_vector()}}), comm);
/// @endcode
///
/// Input: a chunk per rank (DistributedMesh::read reads them), or a global
/// mesh identical on every rank (generators are deterministic), cut into
/// chunks. Markers and cell types are carried over; 2-D and 3-D meshes.
/// The partition depends on the rank count, not on the input's order.
///
/// Output helpers (only in builds with Camber::io): owned_piece() for
/// write_pvtu (owned cells only, so no duplicates across ranks),
/// marker_surface() for write_pvtp (wall faces with the adjacent cell's
/// values, e.g. Cp), file_block() for write_xdmf_mesh (points in a global
/// numbering shared by all ranks).
///
/// Ownership: holds its local Mesh (Views), the distribution (with its
/// duplicated communicator) and a HaloExchange. Not differentiable itself:
/// the partition is discrete; differentiate the local geometry instead.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <camber/mesh/mesh.hpp>
#include <camber/mesh/mesh_chunk.hpp>
#include <camber/parallel/cell_distribution.hpp>
#include <camber/parallel/halo_exchange.hpp>
#include <camber/parallel/partition.hpp>
#include <camber/core/config.hpp>
#include <camber/core/tensor.hpp>

#if CAMBER_WITH_IO
#include <camber/io/vtk_writer.hpp>
#endif

namespace camber::mesh {

/// Cell adjacency of `mesh` as a CSR graph over cell ids (an edge per
/// interior face, both directions, neighbours sorted, no duplicates): the
/// input of par::partition_graph and par::CellDistribution.
void cell_graph(const Mesh& mesh, std::vector<std::int64_t>& xadj,
                std::vector<std::int64_t>& adjncy);

/// Node adjacency of `mesh` as a CSR graph over cell ids: c and d are
/// neighbours when they share at least one node (c not its own neighbour;
/// neighbours sorted, no duplicates). The face graph's edges are among them.
/// The ghost layer of a DistributedMesh.
void node_graph(const Mesh& mesh, std::vector<std::int64_t>& xadj,
                std::vector<std::int64_t>& adjncy);

class DistributedMesh {
 public:
  DistributedMesh() = default;
  /// Collective over `comm`: each rank gives its chunk of the mesh
  /// (mesh/mesh_chunk.hpp) and gets its part; no rank holds the whole mesh
  /// (see the file comment). Bad input found while matching faces (a face
  /// of three cells, a marker element that is no boundary face or is in two
  /// markers) or orienting cells is one bad_input error on every rank,
  /// naming the file and line. options: imbalance_tolerance and seed (no
  /// weights).
  DistributedMesh(MeshChunk chunk, MPI_Comm comm, const par::PartitionOptions& options = {});
  /// Collective over `comm`. `global` must be the same mesh on every rank
  /// (a generated one): each rank takes its chunk of it (chunk_of) and the
  /// rest is as above.
  DistributedMesh(const Mesh& global, MPI_Comm comm,
                  const par::PartitionOptions& options = {});
  /// Collective: every rank reads its chunk of `path` (read_mesh_chunk:
  /// .su2 and .cgns in parallel, .msh through rank 0) and gets its part. A
  /// bad path or file is one bad_input error raised on every rank.
  static DistributedMesh read(const std::string& path, MPI_Comm comm,
                              const par::PartitionOptions& options = {});

  /// This rank's cells, nodes and faces (see the header comment).
  const Mesh& local() const noexcept { return local_; }
  /// The same partition, distribution and halo exchange (shared, not
  /// rebuilt) with the local nodes at `global_coords` ({n_global_nodes,
  /// dim}, global node order, the same on every rank): a deformed mesh of
  /// the same connectivity, as a shape optimization moves it. O(local
  /// nodes); not collective.
  DistributedMesh with_coordinates(const Tensor& global_coords) const;
  /// The same with this rank's local node coordinates given
  /// ({n_local_nodes(), dim}, local node order): no global array. The
  /// caller keeps a node held by several ranks at the same place on each
  /// (ghost geometry must equal its owner's).
  DistributedMesh with_local_coordinates(const Tensor& local_coords) const;
  /// The layout of the cells over the ranks. Its owned adjacency
  /// (owned_xadj, owned_adjncy) lists each owned cell's node neighbours on
  /// other ranks only (what makes the ghost layer); the local mesh has the
  /// rest.
  const par::CellDistribution& distribution() const noexcept { return dist_; }
  /// Fills ghost rows of cell fields of shape {n_local_cells(), ...}.
  par::HaloExchange& halo() noexcept { return halo_; }
  MPI_Comm comm() const noexcept { return dist_.comm(); }
  int rank() const noexcept { return dist_.rank(); }
  int size() const noexcept { return dist_.size(); }

  std::int64_t n_global_cells() const noexcept { return dist_.n_global_cells(); }
  std::int64_t n_global_nodes() const noexcept { return n_global_nodes_; }
  index_t n_owned_cells() const noexcept { return dist_.n_owned(); }
  index_t n_local_cells() const noexcept { return dist_.n_local(); }
  index_t n_owned_nodes() const noexcept { return n_owned_nodes_; }
  index_t n_local_nodes() const noexcept { return static_cast<index_t>(node_global_.size()); }
  index_t n_owned_faces() const noexcept { return n_owned_faces_; }

  /// Global id of every local cell / node.
  const std::vector<std::int64_t>& cell_global_ids() const noexcept {
    return dist_.local_to_global();
  }
  const std::vector<std::int64_t>& node_global_ids() const noexcept { return node_global_; }
  /// One numbering of the nodes shared by all ranks, for writers of whole
  /// files (file_block(), write_su2): a node belongs to the lowest rank
  /// among its cells' owners, and each rank's nodes are stacked in rank
  /// order. The file id of every local node; this rank's nodes are the
  /// file ids [file_node_offset(), file_node_offset() + n_file_nodes()).
  const std::vector<std::int64_t>& node_file_ids() const noexcept { return node_file_id_; }
  std::int64_t file_node_offset() const noexcept { return file_node_offset_; }
  index_t n_file_nodes() const noexcept { return n_file_nodes_; }
  /// Edge cut and imbalance of the partition (same on every rank).
  const par::PartitionQuality& quality() const noexcept { return quality_; }

  /// Local ids of the faces [0, n_owned_faces) in marker `name` (a bad_input
  /// error listing the markers if there is none): this rank's share of a
  /// wall, each face counted on exactly one rank (its owned cell's).
  std::vector<index_t> owned_marker_faces(const std::string& name) const;

#if CAMBER_WITH_IO
  /// The owned cells with the local nodes they use (local ids
  /// 0..n_owned_nodes-1) for io::write_pvtu. Each field has n_owned or
  /// n_local rows (ghost rows are dropped).
  io::UnstructuredPiece owned_piece(const std::vector<io::Field>& cell_fields = {}) const;

  /// The faces of marker `name` owned by this rank (owned_marker_faces) as
  /// line cells, with their nodes as points, for io::write_pvtp. Each cell
  /// field (n_owned or n_local rows) is sampled at the face's owned cell.
  io::SurfacePiece marker_surface(const std::string& name,
                                  const std::vector<io::Field>& cell_fields = {}) const;

  /// This rank's rows of the whole mesh in one numbering shared by all
  /// ranks, for io::write_xdmf_mesh: points are the nodes this rank owns
  /// (a node belongs to the lowest rank among its cells' owners), stacked in
  /// rank order; cells are the owned cells, stacked in rank order, with
  /// connectivity in that shared point numbering.
  io::UnstructuredPiece file_block(const std::vector<io::Field>& cell_fields = {}) const;
#endif

 private:
  std::int64_t n_global_nodes_ = 0;
  index_t n_owned_nodes_ = 0;
  index_t n_owned_faces_ = 0;
  Mesh local_;
  par::CellDistribution dist_;
  par::HaloExchange halo_;
  par::PartitionQuality quality_;
  std::vector<std::int64_t> node_global_;
  /// For file_block(): shared file id of each local node, and how many
  /// nodes this rank owns in that numbering (its file rows).
  std::vector<std::int64_t> node_file_id_;
  std::int64_t file_node_offset_ = 0;
  index_t n_file_nodes_ = 0;
};

/// The faces of each owned cell, for kernels that gather a cell's fluxes
/// without atomics: owned cell c's faces are the entries offset(c) to
/// offset(c + 1) - 1 of `face`, ordered by the global ids of the faces' nodes
/// (the same order on every partition, so a cell's sum over its faces
/// rounds the same way at any rank count), each with the sign 1 where c
/// is the face's left cell and the sign -1 where it is the right one.
/// Every face of an owned cell is among [0, n_owned_faces).
struct OwnedCellFaces {
  Kokkos::View<index_t*> offset;  ///< n_owned + 1
  Kokkos::View<index_t*> face;
  Kokkos::View<double*> sign;
};
OwnedCellFaces owned_cell_faces(const DistributedMesh& dm);

/// Sum of the owned cells' volumes (areas in 2-D) over all ranks: the
/// volume of the global mesh, collective over dm.comm().
double total_volume(const DistributedMesh& dm);

}  // namespace camber::mesh
