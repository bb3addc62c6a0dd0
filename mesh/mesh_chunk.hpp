/// @file
/// camber::mesh::MeshChunk — one rank's share of a mesh file, in the file's
/// own (global) numbering, before any partitioning: what parallel input
/// reads, so that no rank ever holds the whole mesh.
///
/// The chunks of the ranks of a communicator split the file's nodes and
/// cells into contiguous ranges in rank order: rank r holds nodes
/// node_begin .. node_begin + n_nodes() - 1 and cells cell_begin ..
/// cell_begin + n_cells() - 1, where node_begin is the sum of the node
/// counts of ranks below r (likewise cell_begin). The ranges are near equal
/// but need not be exactly n/P each (a text reader splits at line
/// boundaries). Marker elements (boundary faces) are split in any way: each
/// element is on exactly one rank, with its marker's index into
/// marker_names, which every rank holds in full and in the file's order.
///
/// @code
///   MeshChunk chunk = read_mesh_chunk("wing.su2", comm);   // collective
///   // chunk.cell_nodes holds global node ids; chunk.coords only this
///   // rank's node range: DistributedMesh(std::move(chunk), comm) finds
///   // the rest by messages (mesh/distributed_mesh.hpp).
/// @endcode
///
/// A reader checks, on the rank that reads them, what can be checked
/// without the other chunks: numbers, element types of the mesh's dimension
/// (cells) or one below (marker elements), node indices in
/// [0, n_global_nodes). A problem on any rank is one
/// camber::Error(bad_input) on every rank, naming the file and the line (or
/// the CGNS zone and section). What needs the whole mesh (a face of three
/// cells, a marker element that is not a boundary face, orientation) is
/// checked when the chunks are distributed.
///
/// Memory: O(file / ranks) per rank, plus marker names.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

struct MeshChunk {
  int dim = 2;
  std::string source;  ///< file name for error messages ("" if none)
  std::int64_t n_global_nodes = 0;
  std::int64_t n_global_cells = 0;

  /// This rank's nodes: global ids node_begin .. node_begin + n_nodes() - 1.
  std::int64_t node_begin = 0;
  std::vector<double> coords;  ///< n_nodes() * dim, node-major

  /// This rank's cells: global ids cell_begin .. cell_begin + n_cells() - 1.
  std::int64_t cell_begin = 0;
  std::vector<CellType> cell_types;
  std::vector<index_t> cell_offsets{0};  ///< CSR into cell_nodes
  std::vector<std::int64_t> cell_nodes;  ///< global node ids, VTK order
  std::vector<long> cell_lines;          ///< empty, or the file line of each cell

  /// Every marker of the file, in the file's order, on every rank.
  std::vector<std::string> marker_names;
  /// This rank's share of the marker elements.
  std::vector<int> face_marker;          ///< index into marker_names
  std::vector<index_t> face_offsets{0};  ///< CSR into face_nodes
  std::vector<std::int64_t> face_nodes;  ///< global node ids
  std::vector<long> face_lines;          ///< empty, or the file line of each element

  index_t n_nodes() const { return static_cast<index_t>(coords.size()) / dim; }
  index_t n_cells() const { return static_cast<index_t>(cell_types.size()); }
  index_t n_faces() const { return static_cast<index_t>(face_marker.size()); }
};

/// Rank `rank`'s chunk (of `n_ranks`) of a mesh held whole in memory: node
/// and cell ranges [n * rank / n_ranks, n * (rank + 1) / n_ranks), and the
/// marker elements of the same share of each marker. Line numbers are kept.
/// No communication: a generated mesh (the same on every rank) enters the
/// distributed path this way.
MeshChunk chunk_of(const MeshData& data, int rank, int n_ranks);
/// The same for a built Mesh (its marker faces are the marker elements).
MeshChunk chunk_of(const Mesh& mesh, int rank, int n_ranks);

/// Collective over `comm`: this rank's chunk of the SU2 file `path`. Every
/// rank reads only its byte range of the file (an offset scan: each rank
/// counts the lines and finds the section headers of its range, the counts
/// are exchanged, then each rank parses the data lines that start in its
/// range). Errors as su2_reader.hpp's, on every rank.
MeshChunk read_su2_chunk(const std::string& path, MPI_Comm comm);

/// Collective over `comm`: this rank's chunk of the CGNS file `path`, read
/// with CGNS partial reads (node and element ranges) by every rank opening
/// the file read-only. The same files and errors as cgns_reader.hpp's.
MeshChunk read_cgns_chunk(const std::string& path, MPI_Comm comm);

/// Collective: the chunk of `path` by its extension (.su2, .cgns: read in
/// parallel as above; .msh: rank 0 reads the Gmsh file and sends each rank
/// its chunk, since Gmsh node tags need not be contiguous). An unknown
/// extension or missing file is a bad_input error on every rank.
MeshChunk read_mesh_chunk(const std::string& path, MPI_Comm comm);

}  // namespace camber::mesh
