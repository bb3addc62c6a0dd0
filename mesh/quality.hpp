/// @file
/// Mesh quality report: what `camber mesh-info FILE` prints.
///
/// Definitions (per cell, 2-D; the report keeps the extremes):
/// @code
///   volume         signed area of the cell (counter-clockwise positive)
///   aspect ratio   longest edge / shortest edge (1 for a square or an
///                  equilateral triangle; an O-grid wall cell is ~ its
///                  tangential spacing / first_cell_height)
///   skewness       equiangle skewness max((a_max - a_e) / (180 - a_e),
///                  (a_e - a_min) / a_e) over the cell's interior angles a,
///                  with a_e = 60 degrees for triangles and 90 for quads:
///                  0 for regular cells, 1 for a degenerate one
///
///   camber::mesh::MeshQuality q = camber::mesh::quality(mesh);
///   std::cout << camber::mesh::describe(q);
/// @endcode
///
/// In 3-D: the volume of compute_geometry (the tetrahedra from the cell's
/// nodes' mean to its faces' fan triangles, each quad face split about its
/// nodes' mean as its neighbour splits it: the volumes sum to the domain's
/// to round-off; a cell whose nodes are not in VTK order comes out
/// negative), the aspect
/// ratio over the cell's edges, and the equiangle skewness over the angles
/// of its faces (a_e = 60 degrees for triangular faces, 90 for quads), the
/// largest over its faces. Face angles miss the sliver, the tetrahedron
/// whose four nodes lie near one plane with well-shaped faces (its faces
/// can be right isosceles triangles, skewness 0.25, at zero volume), so
/// tetrahedra also report their dihedral angles: 70.53 degrees
/// (acos(1/3)) at every edge of a regular one, near 0 and 180 for a sliver.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

struct MeshQuality {
  int dim = 2;
  index_t n_nodes = 0, n_cells = 0, n_faces = 0;
  index_t n_interior_faces = 0, n_boundary_faces = 0, n_unmarked_boundary_faces = 0;
  /// (type name, count) for each cell type present.
  std::vector<std::pair<std::string, index_t>> cells_by_type;
  /// (marker name, face count), in marker order.
  std::vector<std::pair<std::string, index_t>> marker_faces;
  double min_volume = 0, max_volume = 0, total_volume = 0;
  index_t n_nonpositive_volumes = 0;
  double max_aspect_ratio = 0;
  double max_skewness = 0;
  /// Smallest and largest dihedral angle (degrees) over the tetrahedra's
  /// edges; 180 and 0 when the mesh has no tetrahedra.
  double min_dihedral_angle = 180, max_dihedral_angle = 0;
  index_t n_reoriented_cells = 0;
  double bounding_box[2][3] = {{0, 0, 0}, {0, 0, 0}};  ///< min, max corner
};

MeshQuality quality(const Mesh& mesh);
/// The same for a distributed mesh, from every rank's part (the cell
/// measures over owned cells, each face counted on one rank), reduced:
/// the same report on every rank. Collective.
MeshQuality quality(const DistributedMesh& dm);

/// A multi-line, human-readable summary.
std::string describe(const MeshQuality& q);

}  // namespace camber::mesh
