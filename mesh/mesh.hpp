/// @file
/// camber::mesh::Mesh — an unstructured mesh on Kokkos Views.
///
/// Nodes, cells (triangles and quadrilaterals; tetrahedra, hexahedra, prisms
/// and pyramids are stored for later 3-D work), the faces between cells, and
/// named boundary markers. Everything numerical lives in Kokkos::Views in the
/// default memory space, so kernels over cells and faces run on any backend:
///
/// @code
///   coords(n, d)                       node n, coordinate d (n_nodes x dim)
///   cell_offsets(c) .. cell_offsets(c+1)-1   index range of cell c's nodes in
///   cell_nodes(...)                    (CSR), counter-clockwise in 2-D
///   cell_types(c)                      CellType (the VTK/SU2 type id)
///   face_offsets/face_nodes            CSR as for cells; 2 nodes in 2-D
///   face_left(f), face_right(f)        cells on either side; right = -1 on
///                                      the boundary
///   face_marker(f)                     index into markers(), -1 for interior
///                                      (or unmarked boundary) faces
/// @endcode
///
/// Orientation: the nodes of face f are stored in the order of its left
/// cell, so in 2-D its normal (dy, -dx) points from left to right cell,
/// outward at the boundary. Mesh::from_cells() makes every 2-D cell
/// counter-clockwise: with Orientation::fix it reverses clockwise cells (what
/// readers use; files in the wild come in either order), with
/// Orientation::require a clockwise cell is an error (what generators use, so
/// that a generator bug is not hidden). A zero-area 2-D cell is always an
/// error. Likewise in 3-D: a cell must have positive volume in VTK's node
/// order (the right-hand rule on cell_faces.hpp's outward faces); one inside
/// out is mirrored back (fix) or an error (require), and a zero-volume cell
/// is an error.
///
/// Usage (readers and generators fill a MeshData on the host and build):
///
/// @code
///   camber::mesh::MeshData d;              // dim = 2
///   d.add_node(0, 0); d.add_node(1, 0); d.add_node(0, 1);
///   d.add_cell(CellType::triangle, {0, 1, 2});
///   d.add_marker("wall").add_element({0, 1});
///   camber::mesh::Mesh m = camber::mesh::Mesh::from_cells(std::move(d));
///   // m.n_faces() == 3, m.n_boundary_faces() == 3, markers()[0].n_faces() == 1
/// @endcode
///
/// Most users want a reader (mesh/su2_reader.hpp, mesh/gmsh_reader.hpp) or a
/// generator (mesh/generators.hpp) and then mesh/geometry.hpp.
///
/// Ownership: a Mesh owns its Views; copies of a Mesh share them (as Views
/// do). Faces are built on the host with a hash map of sorted node keys; a
/// face shared by more than two cells is an error.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <camber/core/tensor.hpp>

namespace camber::mesh {

/// 64-bit indices of nodes, cells and faces (camber::index_t).
using ::camber::index_t;

/// Element types, numbered as in VTK and SU2.
enum class CellType : std::int8_t {
  line = 3,
  triangle = 5,
  quad = 9,
  tetrahedron = 10,
  hexahedron = 12,
  prism = 13,
  pyramid = 14,
};

/// Number of nodes of a (linear) element type.
KOKKOS_INLINE_FUNCTION int n_cell_nodes(CellType t) {
  switch (t) {
    case CellType::line: return 2;
    case CellType::triangle: return 3;
    case CellType::quad: return 4;
    case CellType::tetrahedron: return 4;
    case CellType::hexahedron: return 8;
    case CellType::prism: return 6;
    case CellType::pyramid: return 5;
  }
  return 0;
}
/// Topological dimension of an element type (line 1, triangle 2, tet 3).
int cell_dimension(CellType t);
/// "triangle", "quad", ...
const char* cell_type_name(CellType t);
/// The CellType with VTK/SU2 id `id`; false if there is none.
bool cell_type_from_id(int id, CellType& type);

enum class Orientation { fix, require };

/// Host-side description of a mesh, filled by readers and generators and
/// turned into a Mesh by Mesh::from_cells(). The optional `*_lines` arrays
/// hold the line of the source file each cell/element came from, so that an
/// inconsistency found while building is reported at its line.
struct MeshData {
  struct Marker {
    std::string name;
    std::vector<index_t> offsets{0};
    std::vector<index_t> nodes;
    std::vector<long> lines;  ///< empty, or one per element

    Marker& add_element(std::initializer_list<index_t> element_nodes, long line = 0);
    Marker& add_element(const index_t* element_nodes, int n, long line = 0);
    index_t n_elements() const { return static_cast<index_t>(offsets.size()) - 1; }
  };

  int dim = 2;
  std::string source;          ///< file name for error messages ("" if none)
  std::vector<double> coords;  ///< n_nodes * dim, node-major
  std::vector<CellType> cell_types;
  std::vector<index_t> cell_offsets{0};
  std::vector<index_t> cell_nodes;
  std::vector<long> cell_lines;  ///< empty, or one per cell
  std::vector<Marker> markers;

  index_t add_node(double x, double y);
  index_t add_node(double x, double y, double z);
  index_t add_cell(CellType type, std::initializer_list<index_t> nodes, long line = 0);
  index_t add_cell(CellType type, const index_t* nodes, int n, long line = 0);
  Marker& add_marker(const std::string& name);

  index_t n_nodes() const { return static_cast<index_t>(coords.size()) / dim; }
  index_t n_cells() const { return static_cast<index_t>(cell_types.size()); }
};

/// A named set of boundary faces.
struct Marker {
  std::string name;
  Kokkos::View<index_t*> faces;
  index_t n_faces() const { return static_cast<index_t>(faces.extent(0)); }
};

class Mesh {
 public:
  using IndexView = Kokkos::View<index_t*>;

  Mesh() = default;

  /// Builds cells, faces and markers from host arrays. Throws
  /// camber::Error(bad_input) when a node index is out of range, a cell has
  /// zero area (2-D) or volume (3-D), a face is shared by more than two cells, a marker
  /// element is not a boundary face, or (Orientation::require) a cell is
  /// clockwise or inside out. Messages name data.source and the element's line if known.
  static Mesh from_cells(MeshData data, Orientation orientation = Orientation::fix);

  int dim() const noexcept { return dim_; }
  /// The file the mesh was read from ("" for generated meshes).
  const std::string& source() const noexcept { return source_; }
  index_t n_nodes() const noexcept { return static_cast<index_t>(coords_.extent(0)); }
  index_t n_cells() const noexcept { return static_cast<index_t>(cell_types_.extent(0)); }
  index_t n_faces() const noexcept { return static_cast<index_t>(face_left_.extent(0)); }
  index_t n_boundary_faces() const noexcept { return n_boundary_faces_; }
  /// How many cells from_cells() reversed to make them counter-clockwise.
  index_t n_reoriented_cells() const noexcept { return static_cast<index_t>(reoriented_.size()); }
  /// Which (increasing cell ids).
  const std::vector<index_t>& reoriented_cells() const noexcept { return reoriented_; }

  const Kokkos::View<double**>& coords() const noexcept { return coords_; }
  /// The same mesh (cells, faces, markers: shared, they are immutable) with
  /// other node coordinates, n_nodes x dim (copied): a deformed mesh. Cells
  /// are not re-oriented or checked (see design::check_cell_volumes).
  Mesh with_coordinates(const Kokkos::View<const double**>& coords) const;
  /// The same from a Tensor of shape {n_nodes, dim} (row-major), as the
  /// design chain's coordinates come.
  Mesh with_coordinates(const Tensor& coords) const;
  const IndexView& cell_offsets() const noexcept { return cell_offsets_; }
  const IndexView& cell_nodes() const noexcept { return cell_nodes_; }
  const Kokkos::View<CellType*>& cell_types() const noexcept { return cell_types_; }
  const IndexView& face_offsets() const noexcept { return face_offsets_; }
  const IndexView& face_nodes() const noexcept { return face_nodes_; }
  const IndexView& face_left() const noexcept { return face_left_; }
  const IndexView& face_right() const noexcept { return face_right_; }
  const Kokkos::View<int*>& face_marker() const noexcept { return face_marker_; }
  const std::vector<Marker>& markers() const noexcept { return markers_; }

  /// Index of the marker called `name`, or -1.
  int marker_index(const std::string& name) const;
  /// Number of cells of the given type.
  index_t count_cells(CellType type) const;

 private:
  int dim_ = 2;
  std::string source_;
  index_t n_boundary_faces_ = 0;
  std::vector<index_t> reoriented_;
  Kokkos::View<double**> coords_;
  IndexView cell_offsets_, cell_nodes_;
  Kokkos::View<CellType*> cell_types_;
  IndexView face_offsets_, face_nodes_, face_left_, face_right_;
  Kokkos::View<int*> face_marker_;
  std::vector<Marker> markers_;
};

}  // namespace camber::mesh
