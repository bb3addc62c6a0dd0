/// @file
/// camber::design::MeshDeformation — volume mesh deformation by inverse-
/// distance weighting (IDW) or radial basis functions (RBF, below): wall
/// displacement -> node coordinates, a linear
/// map usable on Tensors and in the AD graph; and check_cell_volumes, which
/// names the first cell a deformation turned inside out.
///
/// Sources are the wall nodes j (displacement d_j, prescribed) and every
/// other boundary node a (the far field, any other marker, unmarked
/// boundary faces), which are anchors with displacement zero. A node i that
/// is neither moves by
/// @code
///   u_i = sum_j w_ij d_j / (sum_j w_ij + sum_a w_ia),   w = 1 / |x_i - s|^p
/// @endcode
/// (distances in the undeformed mesh; p = exponent, default 3). Wall nodes
/// move exactly by d_j, anchors not at all, and near the wall u_i tends to
/// the displacement of the nearest wall nodes, so a rigid wall motion moves
/// the near-wall cells almost rigidly while the far field stays put. The map
/// d -> x = x0 + L d is linear and L is never stored: applying L or L^T costs
/// O(n_nodes (n_wall + n_anchors)) (one pass over node-source pairs; the
/// denominators are computed once, in the constructor).
///
/// @code
///   namespace design = camber::design;  namespace ad = camber::ad;
///   design::HicksHenne hh(mesh, {"airfoil"}, design::evenly_spaced_bumps(5));
///   design::MeshDeformation idw(mesh, {"airfoil"});               // p = 3
///   ad::Var a = ad::variable(a0);                                 // (10)
///   ad::Var x = design::deformed_coordinates(hh, idw, a);         // (n_nodes, 2)
///   design::check_cell_volumes(mesh, x.value());                  // throws if folded
///   ad::Var g = ad::grad(objective(x), {a})[0];                   // through L^T, basis^T
/// @endcode
///
/// DeformationMethod::rbf interpolates instead with radial basis functions
/// (the Wendland C2 kernel phi(r) = (1 - r/R)^4 (4 r/R + 1), r < R, strictly
/// positive definite in 2-D, no polynomial term), over the same sources:
/// @code
///   u_i = sum_s c_s phi(|x_i - x_s|),   sum_s c_s phi(|x_t - x_s|) = d_t (wall), 0 (anchors)
/// @endcode
/// The source matrix is factored once (dense LU, Eigen) and the interior
/// rows' map from the wall displacement formed (n_interior x n_wall
/// doubles: 10 MB for 5,000 nodes and 256 wall nodes; with rows, only
/// this rank's share), each row summed in a fixed order so that a node
/// held by several ranks moves to the same bits on each; each design
/// costs one product with it, and the transpose is its exact transpose. Nodes
/// farther than R from every source stay put. Where a large wall motion folds IDW's near-wall
/// cells, the smoother RBF field may not (and the reverse; check_cell_volumes
/// tells).
///
/// Derivatives: coordinates(Var) is one graph node whose VJP applies L^T
/// and whose JVP applies L (any order). Limits: 2-D meshes; node positions
/// must be distinct from the source positions (a duplicated node is a
/// bad_input error); boundary nodes other than the wall never slide.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <camber/autodiff/variable.hpp>
#include <camber/core/enum_names.hpp>
#include <camber/design/airfoil_wall.hpp>
#include <camber/design/linear_map.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/core/tensor.hpp>

namespace camber::design {

enum class DeformationMethod { idw, rbf };
/// The methods' names (the deck's design.deformation values), the default
/// first.
inline constexpr std::array<EnumName<DeformationMethod>, 2> deformation_method_names{
    {{DeformationMethod::idw, "idw"}, {DeformationMethod::rbf, "rbf"}}};

struct DeformationOptions {
  double exponent = 3.0;  ///< idw: p in w = 1 / r^p; larger p keeps the motion closer to the wall
  DeformationMethod method = DeformationMethod::idw;
  /// rbf: the support radius of the Wendland C2 kernel, in units of the
  /// wall's extent (the largest distance between two wall nodes: the chord).
  double rbf_support = 5.0;
};

class MeshDeformation {
 public:
  /// Wall = the nodes of the faces of `wall_markers`, numbered as in
  /// AirfoilWall (increasing mesh node index). `rows`: the mesh nodes
  /// whose displacement the map gives, in that order (a distributed design
  /// loop passes the nodes of one rank: euler::SteadyFlow::node_rows(),
  /// and the map's memory and work are that rank's share); empty: every
  /// node, in mesh order. Throws camber::Error
  /// (bad_input) for a 3-D mesh, an unknown marker, no wall faces, p <= 0,
  /// or a node that coincides with a wall or anchor node (IDW); for RBF a
  /// support <= 0 or a source matrix that cannot be factored.
  MeshDeformation(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers,
                  const DeformationOptions& options = {}, std::vector<std::int64_t> rows = {});
  /// The same from the mesh's boundary (design_boundary: e.g. gathered from
  /// a distributed mesh) and the rows' global ids with their undeformed
  /// coordinates ({rows.size(), 2}: euler::SteadyFlow::node_rows() and
  /// row_coordinates()): no global mesh. The sources are the boundary's
  /// wall nodes, then its anchors, in its order, so a row moves to the same
  /// bits as in a build from the whole mesh.
  MeshDeformation(const DesignBoundary& boundary, const DeformationOptions& options,
                  std::vector<std::int64_t> rows, const Tensor& row_coordinates);

  /// The rows: the nodes the map moves.
  index_t n_nodes() const noexcept { return n_nodes_; }
  /// The mesh's node count (the wall's numbering).
  index_t n_mesh_nodes() const noexcept { return n_mesh_nodes_; }
  /// Mesh node index of every row.
  const std::vector<std::int64_t>& rows() const noexcept { return rows_; }
  index_t n_wall() const noexcept { return static_cast<index_t>(wall_nodes_.size()); }
  index_t n_anchors() const noexcept { return n_anchors_; }
  /// Mesh node index of wall node k.
  const std::vector<index_t>& wall_nodes() const noexcept { return wall_nodes_; }
  /// Undeformed node coordinates of the rows, (n_nodes, 2).
  const Tensor& initial_coordinates() const noexcept { return x0_; }
  const DeformationOptions& options() const noexcept { return options_; }
  /// L as a LinearMap: (n_wall, 2) -> node displacement (n_nodes, 2).
  std::shared_ptr<const LinearMap> map() const { return map_; }

  /// Node displacement L d of the rows, (n_nodes, 2), for the wall
  /// displacement d (n_wall, 2).
  Tensor displacement(const Tensor& wall_displacement) const;
  /// Deformed node coordinates x0 + L d, (n_nodes, 2).
  Tensor coordinates(const Tensor& wall_displacement) const;
  /// The same as one graph node: vjp = L^T, jvp = L.
  ad::Var coordinates(const ad::Var& wall_displacement) const;

 private:
  DeformationOptions options_;
  index_t n_mesh_nodes_ = 0, n_nodes_ = 0, n_anchors_ = 0;
  std::vector<std::int64_t> rows_;
  std::vector<index_t> wall_nodes_;
  Tensor x0_;
  std::shared_ptr<const LinearMap> map_;
};

/// Design vector -> deformed node coordinates: the parametrization's wall
/// displacement, then the IDW deformation (two graph nodes). Throws
/// camber::Error when the two were built on different walls or meshes.
ad::Var deformed_coordinates(const ShapeParametrization& shape, const MeshDeformation& deformation,
                             const ad::Var& design);
Tensor deformed_coordinates(const ShapeParametrization& shape, const MeshDeformation& deformation,
                            const Tensor& design);

/// Throws camber::Error(bad_input) when a cell of `mesh` has signed area
/// <= 0 (or NaN) at node coordinates `coords` (n_nodes, 2). The message
/// names the first such cell (lowest index): its index, type, vertex
/// centroid (mean of its nodes) and area, and how many cells are inverted.
/// 2-D meshes only.
void check_cell_volumes(const mesh::Mesh& mesh, const Tensor& coords);
/// The same for the owned cells of a distributed mesh at its local node
/// coordinates (the first n_local_nodes() rows of `coords`, {n, dim};
/// further rows are ignored): the same verdict and message on every rank
/// (the cell's global id). 2-D or 3-D (the volumes of
/// mesh::compute_geometry, those the flow takes). Collective.
void check_cell_volumes(const mesh::DistributedMesh& dm, const Tensor& coords);

}  // namespace camber::design
