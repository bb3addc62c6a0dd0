#include <camber/mesh/quality.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include <camber/mesh/geometry.hpp>

#include <camber/mesh/cell_faces.hpp>

namespace camber::mesh {

namespace {

constexpr double rad_to_deg = 180.0 / 3.14159265358979323846;

// Volumes (compute_geometry's), edge ratios and face-angle skewness of
// 3-D cells.
void quality_3d(const Mesh& mesh, MeshQuality& q) {
  const Geometry geometry = compute_geometry(mesh);
  const auto vol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geometry.cell_volume);
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.coords());
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_offsets());
  const auto nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_nodes());
  const auto types = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_types());
  using P = std::array<double, 3>;
  const auto sub = [](const P& a, const P& b) { return P{a[0] - b[0], a[1] - b[1], a[2] - b[2]}; };
  const auto dot = [](const P& a, const P& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; };
  const auto cross = [](const P& a, const P& b) {
    return P{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
  };
  q.min_volume = std::numeric_limits<double>::infinity();
  q.max_volume = -std::numeric_limits<double>::infinity();
  for (index_t c = 0; c < q.n_cells; ++c) {
    const int n = static_cast<int>(off(c + 1) - off(c));
    P p[8];
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) p[i][static_cast<size_t>(k)] = x(nodes(off(c) + i), k);
    const CellType type = static_cast<CellType>(types(c));
    const double v = vol(c);
    double e_min = std::numeric_limits<double>::infinity(), e_max = 0.0, skew = 0.0;
    for (int f = 0; f < n_cell_faces(type); ++f) {
      int fn[4];
      const int m = cell_face(type, f, fn);
      // The face's edges (each edge is met from its two faces) and angles.
      double a_min = 360.0, a_max = 0.0;
      for (int i = 0; i < m; ++i) {
        const P& a = p[fn[(i + m - 1) % m]];
        const P& b = p[fn[i]];
        const P& d = p[fn[(i + 1) % m]];
        const P e1 = sub(d, b), e2 = sub(a, b);
        const double l1 = std::sqrt(dot(e1, e1));
        e_min = std::min(e_min, l1);
        e_max = std::max(e_max, l1);
        const double ang =
            std::atan2(std::sqrt(dot(cross(e1, e2), cross(e1, e2))), dot(e1, e2)) * rad_to_deg;
        a_min = std::min(a_min, ang);
        a_max = std::max(a_max, ang);
      }
      const double a_e = m == 3 ? 60.0 : 90.0;
      skew = std::max(skew, std::max((a_max - a_e) / (180.0 - a_e), (a_e - a_min) / a_e));
    }
    q.min_volume = std::min(q.min_volume, v);
    q.max_volume = std::max(q.max_volume, v);
    q.total_volume += v;
    q.n_nonpositive_volumes += v <= 0;
    q.max_aspect_ratio = std::max(q.max_aspect_ratio, e_max / e_min);
    q.max_skewness = std::max(q.max_skewness, skew);
  }
}

}  // namespace

MeshQuality quality(const Mesh& mesh) {
  MeshQuality q;
  q.dim = mesh.dim();
  q.n_nodes = mesh.n_nodes();
  q.n_cells = mesh.n_cells();
  q.n_faces = mesh.n_faces();
  q.n_boundary_faces = mesh.n_boundary_faces();
  q.n_interior_faces = q.n_faces - q.n_boundary_faces;
  q.n_reoriented_cells = mesh.n_reoriented_cells();
  const CellType all[] = {CellType::triangle,    CellType::quad,  CellType::tetrahedron,
                          CellType::hexahedron, CellType::prism, CellType::pyramid};
  for (CellType t : all)
    if (const index_t n = mesh.count_cells(t)) q.cells_by_type.emplace_back(cell_type_name(t), n);
  for (const Marker& m : mesh.markers()) q.marker_faces.emplace_back(m.name, m.n_faces());

  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_right());
  const auto marker = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_marker());
  for (index_t f = 0; f < q.n_faces; ++f) q.n_unmarked_boundary_faces += right(f) < 0 && marker(f) < 0;

  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.coords());
  for (int k = 0; k < 3; ++k) {
    q.bounding_box[0][k] = k < q.dim ? std::numeric_limits<double>::infinity() : 0.0;
    q.bounding_box[1][k] = k < q.dim ? -std::numeric_limits<double>::infinity() : 0.0;
  }
  for (index_t n = 0; n < q.n_nodes; ++n)
    for (int k = 0; k < q.dim; ++k) {
      q.bounding_box[0][k] = std::min(q.bounding_box[0][k], x(n, k));
      q.bounding_box[1][k] = std::max(q.bounding_box[1][k], x(n, k));
    }

  if (q.dim == 3) {
    quality_3d(mesh, q);
    return q;
  }
  const Geometry g = compute_geometry(mesh);
  const auto vol = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_volume);
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_offsets());
  const auto nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_nodes());
  q.min_volume = std::numeric_limits<double>::infinity();
  q.max_volume = -std::numeric_limits<double>::infinity();
  for (index_t c = 0; c < q.n_cells; ++c) {
    q.min_volume = std::min(q.min_volume, vol(c));
    q.max_volume = std::max(q.max_volume, vol(c));
    q.total_volume += vol(c);
    q.n_nonpositive_volumes += vol(c) <= 0;
    const int n = static_cast<int>(off(c + 1) - off(c));
    double e_min = std::numeric_limits<double>::infinity(), e_max = 0;
    double a_min = 360, a_max = 0;
    for (int i = 0; i < n; ++i) {
      const index_t a = nodes(off(c) + (i + n - 1) % n), b = nodes(off(c) + i),
                    d = nodes(off(c) + (i + 1) % n);
      const double ex = x(d, 0) - x(b, 0), ey = x(d, 1) - x(b, 1);
      const double e = std::hypot(ex, ey);
      e_min = std::min(e_min, e);
      e_max = std::max(e_max, e);
      // Interior angle at b between b->a and b->d (counter-clockwise cell).
      const double fx = x(a, 0) - x(b, 0), fy = x(a, 1) - x(b, 1);
      double ang = std::atan2(ex * fy - ey * fx, ex * fx + ey * fy) * rad_to_deg;
      if (ang < 0) ang += 360;
      a_min = std::min(a_min, ang);
      a_max = std::max(a_max, ang);
    }
    const double a_e = n == 3 ? 60.0 : 90.0;
    q.max_aspect_ratio = std::max(q.max_aspect_ratio, e_max / e_min);
    q.max_skewness =
        std::max(q.max_skewness, std::max((a_max - a_e) / (180 - a_e), (a_e - a_min) / a_e));
  }
  return q;
}

namespace {

// "triangle" -> "triangles", "tetrahedron" -> "tetrahedra".
std::string plural(const std::string& name, index_t n) {
  if (n == 1) return name;
  const std::string on = "hedron";
  if (name.size() > on.size() && name.compare(name.size() - on.size(), on.size(), on) == 0)
    return name.substr(0, name.size() - 2) + "a";
  return name + "s";
}

}  // namespace

std::string describe(const MeshQuality& q) {
  std::ostringstream os;
  os << q.dim << "-D mesh: " << q.n_nodes << " nodes, " << q.n_cells << " cells (";
  for (std::size_t i = 0; i < q.cells_by_type.size(); ++i)
    os << (i ? ", " : "") << q.cells_by_type[i].second << " " << plural(q.cells_by_type[i].first, q.cells_by_type[i].second);
  os << "), " << q.n_faces << " faces (" << q.n_interior_faces << " interior, "
     << q.n_boundary_faces << " boundary)\n";
  os << "markers:";
  if (q.marker_faces.empty()) os << " none";
  for (const auto& m : q.marker_faces) os << "\n  " << m.first << ": " << m.second << " faces";
  os << "\n";
  if (q.n_unmarked_boundary_faces > 0)
    os << "warning: " << q.n_unmarked_boundary_faces << " boundary faces belong to no marker\n";
  os << std::setprecision(6);
  os << "bounding box: [" << q.bounding_box[0][0] << ", " << q.bounding_box[1][0] << "] x ["
     << q.bounding_box[0][1] << ", " << q.bounding_box[1][1] << "]";
  if (q.dim == 3) os << " x [" << q.bounding_box[0][2] << ", " << q.bounding_box[1][2] << "]";
  os << "\n";
  os << "cell volume: min " << q.min_volume << ", max " << q.max_volume << ", total "
     << q.total_volume << "\n";
  os << "max aspect ratio (longest / shortest edge): " << q.max_aspect_ratio << "\n";
  os << "max equiangle skewness (0 best, 1 degenerate"
     << (q.dim == 3 ? "; over the cells' face angles" : "") << "): " << q.max_skewness << "\n";
  if (q.n_nonpositive_volumes > 0)
    os << "error: " << q.n_nonpositive_volumes << " cells have non-positive volume\n";
  if (q.n_reoriented_cells > 0)
    os << "note: " << q.n_reoriented_cells
       << (q.dim == 3 ? " inside-out cells were mirrored" : " clockwise cells were reversed")
       << " on reading\n";
  return os.str();
}

}  // namespace camber::mesh
