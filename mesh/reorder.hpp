/// @file
/// Cell and node numbering for memory locality: cells in the order of a
/// space-filling curve through their centroids, nodes in the order the
/// reordered cells first use them.
///
/// A cell-centred scheme with node-neighbour stencils (the Euler
/// reconstruction's least squares and limiter) gathers from tens of cells
/// per cell; when the generator numbers cells in no spatial order (Gmsh's
/// Delaunay tetrahedra: on the ONERA M6's 90k-cell example grid the cells
/// around a node span 75,000 numbers on median) nearly every gather misses
/// the cache. Reordered, the same solve on the M6's medium grid took 0.53x
/// the time to the same Newton steps and forces (docs/performance.md,
/// "Cell order and the transient"). DistributedMesh orders each rank's
/// owned cells so (morton_order of their centroids) whatever the file's
/// order; `camber mesh-reorder IN OUT` writes a reordered copy of a file
/// (nodes too), for other tools or a file read serially.
///
/// The curve is Morton's (Z-order): each centroid's coordinates scaled to
/// the bounding box and quantized to 21 bits (3-D) or 31 bits (2-D), their
/// bits interleaved; ties keep the input order (a stable sort), so the
/// result depends only on the mesh. Nodes no cell uses keep their relative
/// order after the used ones. Markers keep their elements and their order,
/// with the nodes renumbered; cell_lines and marker lines (error-message
/// provenance) move with their elements.
///
/// @code
///   camber::mesh::MeshData data = camber::mesh::read_mesh_data("wing.su2");
///   camber::mesh::Mesh m = camber::mesh::Mesh::from_cells(camber::mesh::reorder_for_locality(data));
///   camber::mesh::write_su2(m, "wing_ordered.su2");
///   camber::mesh::reorder_mesh_file("wing.su2", "wing_ordered.su2", comm);  // the same, collective
/// @endcode
///
/// Not differentiable (a permutation); O(cells log cells) time, one copy of
/// the mesh's arrays.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

/// The order of n points ({n * dim} coordinates, point-major) along Morton's
/// curve through their bounding box: order[k] is the point that comes k-th
/// (ties in input order).
std::vector<index_t> morton_order(const std::vector<double>& points, int dim);

/// The cell order of reorder_for_locality: order[k] is the input cell that
/// becomes cell k.
std::vector<index_t> locality_cell_order(const MeshData& data);

/// `data` with its cells and nodes renumbered as the file comment says.
MeshData reorder_for_locality(const MeshData& data);

/// The counts of a mesh file reorder_mesh_file wrote.
struct ReorderedFile {
  std::int64_t n_cells = 0, n_nodes = 0;
};

/// Collective over `comm` (`camber mesh-reorder`): rank 0 reads `in`
/// (.su2, .msh or .cgns) and writes it to `out`, an SU2 file, with its
/// cells and nodes renumbered by reorder_for_locality. Bad input (an
/// unreadable or malformed file, an output not named .su2) is one
/// bad_input error on every rank, naming the file. The counts are
/// returned on every rank.
ReorderedFile reorder_mesh_file(const std::string& in, const std::string& out, MPI_Comm comm);

}  // namespace camber::mesh
