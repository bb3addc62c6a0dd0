/// @file
/// camber::design::DesignBoundary — what a 2-D shape design needs of a
/// mesh besides its node rows: the wall's faces and every other boundary
/// node (the volume deformation's anchors), with their coordinates, in the
/// mesh's global node numbering. Built from a Mesh, or gathered from a
/// DistributedMesh onto every rank: O(boundary nodes) per rank (the
/// O(sqrt(cells)) boundary of a 2-D mesh, a few hundred to a few thousand
/// nodes), never the global mesh. AirfoilWall (the parametrizations) and
/// MeshDeformation are built from it, so that a design on a distributed
/// mesh and one on a global mesh give the same wall and the same map.
///
/// @code
///   mesh::DistributedMesh dm = mesh::DistributedMesh::read("naca0012.su2", comm);
///   design::DesignBoundary b = design::design_boundary(dm, {"airfoil"});   // collective
///   design::HicksHenne bumps(design::AirfoilWall(b), design::evenly_spaced_bumps(8));
///   design::MeshDeformation idw(b, {}, flow.node_rows(), flow.row_coordinates());
/// @endcode
///
/// The wall faces are sorted by their (lower, higher) node ids and the
/// anchors by node id, so both builds list them in one order.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/mesh.hpp>

namespace camber::design {

struct DesignBoundary {
  std::int64_t n_mesh_nodes = 0;          ///< the global mesh's node count
  std::vector<std::string> wall_markers;  ///< as given
  /// The wall's faces (2-D: edges) as (lower, higher) global node ids,
  /// sorted, each once.
  std::vector<std::array<std::int64_t, 2>> wall_faces;
  std::vector<std::int64_t> wall_nodes;  ///< sorted, each once
  std::vector<double> wall_coords;       ///< (n_wall, 2), in wall_nodes' order
  /// Every other node of a boundary face (far field, other markers,
  /// unmarked boundary faces), sorted, each once.
  std::vector<std::int64_t> anchors;
  std::vector<double> anchor_coords;  ///< (n_anchors, 2)

  /// The wall index of global node `node` (-1: not a wall node).
  std::int64_t wall_index(std::int64_t node) const;
  /// The anchor index of `node` (-1: not an anchor).
  std::int64_t anchor_index(std::int64_t node) const;
};

/// From a whole 2-D mesh. Throws camber::Error(bad_input) for a 3-D mesh,
/// no markers given, a marker the mesh lacks (listing its markers) or wall
/// markers without faces.
DesignBoundary design_boundary(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers);
/// Gathered from a distributed 2-D mesh onto every rank (each boundary face
/// from the rank that owns its cell). Collective; the same errors on every
/// rank alike.
DesignBoundary design_boundary(const mesh::DistributedMesh& dm,
                               const std::vector<std::string>& wall_markers);

}  // namespace camber::design
