/// @file
/// camber::design::AirfoilWall — the wall nodes of a 2-D airfoil mesh, their
/// chordwise coordinate and surface (upper or lower); and
/// ShapeParametrization, the base of every map design vector -> wall
/// displacement (Hicks-Henne, CST, FFD).
///
/// The wall is the set of nodes on the faces of the given markers, numbered
/// 0 .. n_wall-1 in increasing mesh node order; every wall displacement in
/// this module is an (n_wall, 2) Tensor in that order, and
/// design/mesh_deformation.hpp uses the same numbering. The chord:
/// @code
///   TE   closed wall: the wall node of largest x;
///        open wall (a blunt base left out of the markers): the midpoint of
///        the two free ends
///   LE   the wall node farthest from TE;   c = |TE - LE|
///   e  = (TE - LE) / c,   n = e turned +90 degrees ("up")
///   x_i = clamp((p_i - LE) . e / c, 0, 1)  (chordwise coordinate, 0 at LE)
/// @endcode
/// Walking the wall curve from LE to TE both ways gives two arcs; the upper
/// surface is the one whose mean (p - LE) . n is larger (robust for cambered
/// sections whose lower surface crosses the chord). LE, and a closed wall's
/// TE node, count as upper. A closed wall with a blunt base has its TE at one
/// base corner (the chord tilts by about half the base height over c).
///
/// @code
///   namespace design = camber::design;
///   camber::mesh::Mesh m = camber::mesh::airfoil_ogrid(camber::mesh::naca4("0012", true),
///                                                      128, 48, 1e-4);
///   design::AirfoilWall wall(m, {"airfoil"});
///   // wall.n_nodes(), wall.nodes()[k] (mesh node), wall.chord_coordinate()[k],
///   // wall.surface()[k] == design::Surface::upper, wall.chord(), wall.normal()
/// @endcode
///
/// Limits: one airfoil element (the wall nodes must form one curve, closed
/// or open; a multi-element wall is a bad_input error). Users normally build
/// a parametrization (design/hicks_henne.hpp, ...) from the mesh directly.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <camber/autodiff/variable.hpp>
#include <camber/design/design_boundary.hpp>
#include <camber/design/linear_map.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/core/tensor.hpp>

namespace camber::design {

enum class Surface { upper, lower };

/// "upper" or "lower".
const char* surface_name(Surface s);

/// Bernstein polynomial B_{i,n}(x) = C(n, i) x^i (1 - x)^(n - i), 0 <= i <= n.
double bernstein(int n, int i, double x);

class AirfoilWall {
 public:
  /// Finds the wall of `mesh` (2-D) on the faces of `wall_markers`. Throws
  /// camber::Error(bad_input) for an unknown marker (naming the known ones),
  /// no wall faces, or wall nodes that do not form one curve.
  AirfoilWall(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers);
  /// The same from a mesh's boundary (design/design_boundary.hpp), e.g.
  /// gathered from a distributed mesh: no global mesh needed.
  explicit AirfoilWall(const DesignBoundary& boundary);

  index_t n_nodes() const noexcept { return static_cast<index_t>(nodes_.size()); }
  /// Mesh (global) node index of wall node k, increasing in k.
  const std::vector<index_t>& nodes() const noexcept { return nodes_; }
  /// Chordwise coordinate x_k in [0, 1].
  const std::vector<double>& chord_coordinate() const noexcept { return x_; }
  const std::vector<Surface>& surface() const noexcept { return surface_; }
  /// Baseline coordinates, (n_wall, 2).
  const Tensor& coordinates() const noexcept { return coords_; }
  /// Number of mesh nodes (for checks against the mesh deformation).
  index_t n_mesh_nodes() const noexcept { return n_mesh_nodes_; }
  const std::vector<std::string>& markers() const noexcept { return markers_; }

  const std::array<double, 2>& leading_edge() const noexcept { return le_; }
  const std::array<double, 2>& trailing_edge() const noexcept { return te_; }
  double chord() const noexcept { return chord_; }
  /// Unit vector normal to the chord, "up" (e turned +90 degrees).
  const std::array<double, 2>& normal() const noexcept { return normal_; }
  /// True when the wall curve is closed (sharp or included blunt base).
  bool closed() const noexcept { return closed_; }

 private:
  std::vector<index_t> nodes_;
  std::vector<double> x_;
  std::vector<Surface> surface_;
  Tensor coords_;
  index_t n_mesh_nodes_ = 0;
  std::vector<std::string> markers_;
  std::array<double, 2> le_{}, te_{}, normal_{};
  double chord_ = 0;
  bool closed_ = true;
};

/// A linear map design vector a (n_design) -> wall displacement
/// (n_wall, 2), held as its dense basis: column k of basis() is the wall
/// displacement for a = e_k. The concrete parametrizations fill the basis;
/// this class applies it on Tensors and in the AD graph (forward and
/// reverse mode, any order, through design/linear_map.hpp).
class ShapeParametrization {
 public:
  virtual ~ShapeParametrization() = default;

  const AirfoilWall& wall() const noexcept { return *wall_; }
  index_t n_design() const noexcept { return n_design_; }
  /// (n_wall, 2, n_design).
  const Tensor& basis() const noexcept { return map_->matrix(); }
  std::shared_ptr<const LinearMap> map() const { return map_; }

  /// Wall displacement (n_wall, 2) for the design vector a (n_design).
  Tensor displacement(const Tensor& a) const;
  /// The same as one graph node: vjp = basis^T, jvp = basis.
  ad::Var displacement(const ad::Var& a) const;
  /// Baseline wall coordinates plus displacement(a), (n_wall, 2).
  Tensor wall_coordinates(const Tensor& a) const;
  ad::Var wall_coordinates(const ad::Var& a) const;

 protected:
  /// `basis` as above; `name` names the graph node.
  ShapeParametrization(AirfoilWall wall, Tensor basis, const std::string& name);
  /// For subclasses that need the wall before building the basis.
  explicit ShapeParametrization(AirfoilWall wall);
  void set_basis(Tensor basis, const std::string& name);

 private:
  std::shared_ptr<const AirfoilWall> wall_;
  std::shared_ptr<const DenseMap> map_;
  index_t n_design_ = 0;
};

namespace detail {
/// The index of marker `name` of `mesh`; a bad_input error naming `who`
/// and listing the mesh's markers when it has none of that name.
int require_marker(const mesh::Mesh& mesh, const std::string& name, const char* who);
}  // namespace detail

}  // namespace camber::design
