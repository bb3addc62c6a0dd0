#include <camber/mesh/mesh.hpp>

#include <camber/mesh/cell_faces.hpp>


#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

#include <camber/core/error.hpp>

namespace camber::mesh {

int cell_dimension(CellType t) {
  switch (t) {
    case CellType::line: return 1;
    case CellType::triangle:
    case CellType::quad: return 2;
    default: return 3;
  }
}

const char* cell_type_name(CellType t) {
  switch (t) {
    case CellType::line: return "line";
    case CellType::triangle: return "triangle";
    case CellType::quad: return "quad";
    case CellType::tetrahedron: return "tetrahedron";
    case CellType::hexahedron: return "hexahedron";
    case CellType::prism: return "prism";
    case CellType::pyramid: return "pyramid";
  }
  return "unknown";
}

bool cell_type_from_id(int id, CellType& type) {
  switch (id) {
    case 3: type = CellType::line; return true;
    case 5: type = CellType::triangle; return true;
    case 9: type = CellType::quad; return true;
    case 10: type = CellType::tetrahedron; return true;
    case 12: type = CellType::hexahedron; return true;
    case 13: type = CellType::prism; return true;
    case 14: type = CellType::pyramid; return true;
    default: return false;
  }
}

// ------------------------------------------------------------------ MeshData

MeshData::Marker& MeshData::Marker::add_element(std::initializer_list<index_t> element_nodes,
                                                long line) {
  return add_element(element_nodes.begin(), static_cast<int>(element_nodes.size()), line);
}

MeshData::Marker& MeshData::Marker::add_element(const index_t* element_nodes, int n, long line) {
  nodes.insert(nodes.end(), element_nodes, element_nodes + n);
  offsets.push_back(static_cast<index_t>(nodes.size()));
  if (line > 0 || !lines.empty()) {
    lines.resize(offsets.size() - 2, 0);
    lines.push_back(line);
  }
  return *this;
}

index_t MeshData::add_node(double x, double y) {
  CAMBER_REQUIRE(dim == 2, "MeshData::add_node(x, y) on a " << dim << "-D mesh");
  coords.push_back(x);
  coords.push_back(y);
  return n_nodes() - 1;
}

index_t MeshData::add_node(double x, double y, double z) {
  CAMBER_REQUIRE(dim == 3, "MeshData::add_node(x, y, z) on a " << dim << "-D mesh");
  coords.push_back(x);
  coords.push_back(y);
  coords.push_back(z);
  return n_nodes() - 1;
}

index_t MeshData::add_cell(CellType type, std::initializer_list<index_t> nodes, long line) {
  return add_cell(type, nodes.begin(), static_cast<int>(nodes.size()), line);
}

index_t MeshData::add_cell(CellType type, const index_t* nodes, int n, long line) {
  CAMBER_REQUIRE(n == n_cell_nodes(type), "a " << cell_type_name(type) << " has "
                                               << n_cell_nodes(type) << " nodes, got " << n);
  cell_types.push_back(type);
  cell_nodes.insert(cell_nodes.end(), nodes, nodes + n);
  cell_offsets.push_back(static_cast<index_t>(cell_nodes.size()));
  if (line > 0 || !cell_lines.empty()) {
    cell_lines.resize(cell_types.size() - 1, 0);
    cell_lines.push_back(line);
  }
  return n_cells() - 1;
}

MeshData::Marker& MeshData::add_marker(const std::string& name) {
  markers.push_back(Marker{});
  markers.back().name = name;
  return markers.back();
}

// ------------------------------------------------------------------ faces

namespace {

using FaceKey = std::array<index_t, 4>;

struct FaceKeyHash {
  std::size_t operator()(const FaceKey& k) const noexcept {
    std::size_t h = 1469598103934665603ull;
    for (index_t v : k) h = (h ^ static_cast<std::size_t>(v)) * 1099511628211ull;
    return h;
  }
};

FaceKey make_key(const index_t* nodes, int n) {
  FaceKey k{-1, -1, -1, -1};
  for (int i = 0; i < n; ++i) k[i] = nodes[i];
  // Insertion sort of at most 4 entries (std::sort trips GCC 12's
  // -Warray-bounds on a fixed-size array).
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && k[j - 1] > k[j]; --j) std::swap(k[j - 1], k[j]);
  return k;
}

std::string where(const MeshData& d, const std::vector<long>& lines, index_t i) {
  std::string w = d.source;
  if (i < static_cast<index_t>(lines.size()) && lines[i] > 0)
    w += (w.empty() ? "line " : ":") + std::to_string(lines[i]);
  return w.empty() ? std::string() : w + ": ";
}

std::string node_list(const index_t* nodes, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + std::to_string(nodes[i]);
  return s;
}

template <class V>
V to_view(const std::string& label, const std::vector<typename V::value_type>& host) {
  V v(Kokkos::view_alloc(label, Kokkos::WithoutInitializing), host.size());
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < host.size(); ++i) h(i) = host[i];
  Kokkos::deep_copy(v, h);
  return v;
}

// Signed volume of 3-D cell c by its outward face table: a tetrahedron per
// face edge from the cell's node mean and the face's node mean (positive
// for a cell in VTK order).
double signed_volume_3d(const MeshData& d, const index_t* nodes, CellType t, int n) {
  double xc[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) xc[k] += d.coords[3 * nodes[i] + k] / n;
  double volume = 0;
  for (int f = 0; f < n_cell_faces(t); ++f) {
    int local[4];
    const int m = cell_face(t, f, local);
    double xf[3] = {0, 0, 0};
    for (int i = 0; i < m; ++i)
      for (int k = 0; k < 3; ++k) xf[k] += d.coords[3 * nodes[local[i]] + k] / m;
    for (int i = 0; i < m; ++i) {
      const double* a = &d.coords[3 * nodes[local[i]]];
      const double* b = &d.coords[3 * nodes[local[(i + 1) % m]]];
      const double u[3] = {a[0] - xf[0], a[1] - xf[1], a[2] - xf[2]};
      const double v[3] = {b[0] - xf[0], b[1] - xf[1], b[2] - xf[2]};
      const double cross[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                               u[0] * v[1] - u[1] * v[0]};
      volume += (cross[0] * (xf[0] - xc[0]) + cross[1] * (xf[1] - xc[1]) +
                 cross[2] * (xf[2] - xc[2])) / 6.0;
    }
  }
  return volume;
}

// A 3-D cell of zero volume is an error; one inside out (negative volume,
// the mirror image of VTK's order) is an error with Orientation::require and
// is mirrored back with Orientation::fix.
void orient_3d(MeshData& d, index_t c, Orientation orientation, index_t& n_reoriented) {
  const CellType t = d.cell_types[c];
  index_t* nodes = d.cell_nodes.data() + d.cell_offsets[c];
  const int n = n_cell_nodes(t);
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) lo[k] = hi[k] = d.coords[3 * nodes[0] + k];
  for (int i = 1; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], d.coords[3 * nodes[i] + k]);
      hi[k] = std::max(hi[k], d.coords[3 * nodes[i] + k]);
    }
  const double size = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
  const double volume = signed_volume_3d(d, nodes, t, n);
  CAMBER_INPUT_REQUIRE(std::abs(volume) > 1e-13 * size * size * size,
                       where(d, d.cell_lines, c)
                           << cell_type_name(t) << " cell " << c << " (nodes "
                           << node_list(nodes, n)
                           << ") has zero volume; the mesh is degenerate there");
  if (volume > 0) return;
  CAMBER_INPUT_REQUIRE(orientation == Orientation::fix,
                       where(d, d.cell_lines, c)
                           << cell_type_name(t) << " cell " << c << " (nodes "
                           << node_list(nodes, n) << ") is inside out (negative volume "
                           << volume << "); VTK's node order is expected");
  // Mirror images: reverse the base (and the top) about the first node.
  switch (t) {
    case CellType::tetrahedron: std::swap(nodes[1], nodes[2]); break;
    case CellType::pyramid: std::swap(nodes[1], nodes[3]); break;
    case CellType::prism:
      std::swap(nodes[1], nodes[2]);
      std::swap(nodes[4], nodes[5]);
      break;
    case CellType::hexahedron:
      std::swap(nodes[1], nodes[3]);
      std::swap(nodes[5], nodes[7]);
      break;
    default: break;
  }
  ++n_reoriented;
}

}  // namespace

Mesh Mesh::from_cells(MeshData d, Orientation orientation) {
  CAMBER_INPUT_REQUIRE(d.dim == 2 || d.dim == 3,
                       d.source << ": meshes are 2-D or 3-D, got dimension " << d.dim);
  CAMBER_REQUIRE(d.coords.size() % d.dim == 0, "MeshData: coords size is not a multiple of dim");
  CAMBER_REQUIRE(d.cell_offsets.size() == d.cell_types.size() + 1 &&
                     d.cell_offsets.back() == static_cast<index_t>(d.cell_nodes.size()),
                 "MeshData: cell_offsets inconsistent with cell_types/cell_nodes");
  const index_t n_nodes = d.n_nodes();
  const index_t n_cells = d.n_cells();
  CAMBER_INPUT_REQUIRE(n_cells > 0, d.source << (d.source.empty() ? "" : ": ")
                                             << "the mesh has no cells");

  Mesh m;
  m.dim_ = d.dim;
  m.source_ = d.source;

  // Cells: types, node ranges, orientation.
  for (index_t c = 0; c < n_cells; ++c) {
    const CellType t = d.cell_types[c];
    CAMBER_INPUT_REQUIRE(cell_dimension(t) == d.dim,
                         where(d, d.cell_lines, c) << "a " << cell_type_name(t) << " cell in a "
                                                   << d.dim << "-D mesh");
    index_t* nodes = d.cell_nodes.data() + d.cell_offsets[c];
    const int n = static_cast<int>(d.cell_offsets[c + 1] - d.cell_offsets[c]);
    CAMBER_INPUT_REQUIRE(n == n_cell_nodes(t), where(d, d.cell_lines, c)
                                                   << "a " << cell_type_name(t) << " needs "
                                                   << n_cell_nodes(t) << " nodes, found " << n);
    for (int i = 0; i < n; ++i)
      CAMBER_INPUT_REQUIRE(0 <= nodes[i] && nodes[i] < n_nodes,
                           where(d, d.cell_lines, c) << "cell " << c << ": node index " << nodes[i]
                                                     << " out of range [0, " << n_nodes << ")");
    if (d.dim == 3) {
      index_t reversed = 0;
      orient_3d(d, c, orientation, reversed);
      if (reversed > 0) m.reoriented_.push_back(c);
      continue;
    }
    double twice_area = 0, perimeter = 0;
    for (int i = 0; i < n; ++i) {
      const double* a = &d.coords[2 * nodes[i]];
      const double* b = &d.coords[2 * nodes[(i + 1) % n]];
      twice_area += (a[0] - d.coords[2 * nodes[0]]) * (b[1] - d.coords[2 * nodes[0] + 1]) -
                    (b[0] - d.coords[2 * nodes[0]]) * (a[1] - d.coords[2 * nodes[0] + 1]);
      perimeter += std::hypot(b[0] - a[0], b[1] - a[1]);
    }
    CAMBER_INPUT_REQUIRE(std::abs(twice_area) > 1e-13 * perimeter * perimeter,
                         where(d, d.cell_lines, c)
                             << "cell " << c << " (nodes " << node_list(nodes, n)
                             << ") has zero area; the mesh is degenerate there");
    if (twice_area < 0) {
      CAMBER_INPUT_REQUIRE(orientation == Orientation::fix,
                           where(d, d.cell_lines, c)
                               << "cell " << c << " (nodes " << node_list(nodes, n)
                               << ") is clockwise (negative area " << 0.5 * twice_area << ")");
      std::reverse(nodes + 1, nodes + n);
      m.reoriented_.push_back(c);
    }
  }

  // Faces from sorted node keys.
  std::unordered_map<FaceKey, index_t, FaceKeyHash> face_of;
  face_of.reserve(static_cast<std::size_t>(n_cells) * (d.dim == 2 ? 2 : 3));
  std::vector<index_t> f_offsets{0}, f_nodes, f_left, f_right;
  for (index_t c = 0; c < n_cells; ++c) {
    const CellType type = d.cell_types[c];
    CAMBER_REQUIRE(n_cell_faces(type) > 0, "no faces for element type " << cell_type_name(type));
    const index_t* nodes = d.cell_nodes.data() + d.cell_offsets[c];
    for (int k = 0; k < n_cell_faces(type); ++k) {
      int local[4];
      const int size = cell_face(type, k, local);
      index_t fn[4];
      for (int i = 0; i < size; ++i) fn[i] = nodes[local[i]];
      const FaceKey key = make_key(fn, size);
      auto it = face_of.find(key);
      if (it == face_of.end()) {
        face_of.emplace(key, static_cast<index_t>(f_left.size()));
        f_nodes.insert(f_nodes.end(), fn, fn + size);
        f_offsets.push_back(static_cast<index_t>(f_nodes.size()));
        f_left.push_back(c);
        f_right.push_back(-1);
      } else {
        const index_t f = it->second;
        CAMBER_INPUT_REQUIRE(f_right[f] == -1 && f_left[f] != c,
                             where(d, d.cell_lines, c)
                                 << "face (nodes " << node_list(fn, size)
                                 << ") is shared by more than two cells (cells " << f_left[f]
                                 << ", " << (f_right[f] == -1 ? c : f_right[f]) << ", " << c
                                 << "); the mesh is not a valid conforming mesh");
        f_right[f] = c;
      }
    }
  }
  const index_t n_faces = static_cast<index_t>(f_left.size());
  for (index_t f = 0; f < n_faces; ++f) m.n_boundary_faces_ += f_right[f] == -1;

  // Markers: every element must be a boundary face, each face in one marker.
  std::vector<int> f_marker(n_faces, -1);
  std::vector<std::vector<index_t>> marker_faces(d.markers.size());
  for (std::size_t mk = 0; mk < d.markers.size(); ++mk) {
    const MeshData::Marker& mdata = d.markers[mk];
    for (std::size_t other = 0; other < mk; ++other)
      CAMBER_INPUT_REQUIRE(d.markers[other].name != mdata.name,
                           d.source << (d.source.empty() ? "" : ": ") << "marker '"
                                    << mdata.name << "' is defined twice");
    for (index_t e = 0; e < mdata.n_elements(); ++e) {
      const index_t* en = mdata.nodes.data() + mdata.offsets[e];
      const int n = static_cast<int>(mdata.offsets[e + 1] - mdata.offsets[e]);
      const bool ok_size = d.dim == 2 ? n == 2 : (n == 3 || n == 4);
      CAMBER_INPUT_REQUIRE(ok_size, where(d, mdata.lines, e)
                                        << "marker '" << mdata.name << "' element " << e
                                        << " has " << n << " nodes; a boundary element of a "
                                        << d.dim << "-D mesh has "
                                        << (d.dim == 2 ? "2" : "3 or 4"));
      for (int i = 0; i < n; ++i)
        CAMBER_INPUT_REQUIRE(0 <= en[i] && en[i] < n_nodes,
                             where(d, mdata.lines, e)
                                 << "marker '" << mdata.name << "' element " << e
                                 << ": node index " << en[i] << " out of range [0, " << n_nodes
                                 << ")");
      auto it = face_of.find(make_key(en, n));
      CAMBER_INPUT_REQUIRE(it != face_of.end(),
                           where(d, mdata.lines, e)
                               << "marker '" << mdata.name << "' element " << e << " (nodes "
                               << node_list(en, n) << ") is not a face of any cell");
      const index_t f = it->second;
      CAMBER_INPUT_REQUIRE(f_right[f] == -1, where(d, mdata.lines, e)
                                                 << "marker '" << mdata.name << "' element " << e
                                                 << " (nodes " << node_list(en, n)
                                                 << ") is an interior face, not on the boundary");
      CAMBER_INPUT_REQUIRE(f_marker[f] == -1,
                           where(d, mdata.lines, e)
                               << "marker '" << mdata.name << "' element " << e << " (nodes "
                               << node_list(en, n) << ") is already in marker '"
                               << d.markers[f_marker[f]].name << "'");
      f_marker[f] = static_cast<int>(mk);
      marker_faces[mk].push_back(f);
    }
  }

  // Device copies.
  m.coords_ = Kokkos::View<double**>(
      Kokkos::view_alloc("camber::mesh::coords", Kokkos::WithoutInitializing), n_nodes, d.dim);
  {
    auto h = Kokkos::create_mirror_view(m.coords_);
    for (index_t n = 0; n < n_nodes; ++n)
      for (int k = 0; k < d.dim; ++k) h(n, k) = d.coords[n * d.dim + k];
    Kokkos::deep_copy(m.coords_, h);
  }
  m.cell_offsets_ = to_view<IndexView>("camber::mesh::cell_offsets", d.cell_offsets);
  m.cell_nodes_ = to_view<IndexView>("camber::mesh::cell_nodes", d.cell_nodes);
  m.cell_types_ = to_view<Kokkos::View<CellType*>>("camber::mesh::cell_types", d.cell_types);
  m.face_offsets_ = to_view<IndexView>("camber::mesh::face_offsets", f_offsets);
  m.face_nodes_ = to_view<IndexView>("camber::mesh::face_nodes", f_nodes);
  m.face_left_ = to_view<IndexView>("camber::mesh::face_left", f_left);
  m.face_right_ = to_view<IndexView>("camber::mesh::face_right", f_right);
  m.face_marker_ = to_view<Kokkos::View<int*>>("camber::mesh::face_marker", f_marker);
  for (std::size_t mk = 0; mk < d.markers.size(); ++mk)
    m.markers_.push_back(
        Marker{d.markers[mk].name, to_view<IndexView>("camber::mesh::marker_faces",
                                                      marker_faces[mk])});
  return m;
}

Mesh Mesh::with_coordinates(const Kokkos::View<const double**>& coords) const {
  CAMBER_REQUIRE(coords.extent(0) == coords_.extent(0) && coords.extent(1) == coords_.extent(1),
                 "Mesh::with_coordinates: coords is " << coords.extent(0) << " x "
                                                      << coords.extent(1) << ", the mesh has "
                                                      << coords_.extent(0) << " x "
                                                      << coords_.extent(1));
  Mesh moved(*this);
  moved.coords_ = Kokkos::View<double**>("mesh::coords", coords.extent(0), coords.extent(1));
  Kokkos::deep_copy(moved.coords_, coords);
  return moved;
}

Mesh Mesh::with_coordinates(const Tensor& coords) const {
  const auto n = static_cast<index_t>(coords_.extent(0)), dim = static_cast<index_t>(coords_.extent(1));
  CAMBER_REQUIRE(coords.shape() == (Shape{n, dim}),
                 "Mesh::with_coordinates: coords has shape " << shape_string(coords.shape())
                                                             << ", the mesh has " << n << " x "
                                                             << dim);
  Kokkos::View<double**> c("mesh::coords", static_cast<size_t>(n), static_cast<size_t>(dim));
  const auto xh = coords.host();
  auto ch = Kokkos::create_mirror_view(c);
  for (index_t i = 0; i < n; ++i)
    for (index_t d = 0; d < dim; ++d) ch(i, d) = xh(i * dim + d);
  Kokkos::deep_copy(c, ch);
  return with_coordinates(Kokkos::View<const double**>(c));
}

int Mesh::marker_index(const std::string& name) const {
  for (std::size_t i = 0; i < markers_.size(); ++i)
    if (markers_[i].name == name) return static_cast<int>(i);
  return -1;
}

index_t Mesh::count_cells(CellType type) const {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cell_types_);
  index_t n = 0;
  for (std::size_t c = 0; c < h.extent(0); ++c) n += h(c) == type;
  return n;
}

}  // namespace camber::mesh
