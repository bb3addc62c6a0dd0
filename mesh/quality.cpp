#include <camber/mesh/quality.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/parallel/collectives.hpp>

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
    if (type == CellType::tetrahedron) {
      // The angle at edge (a, b) between its faces towards c and d: the
      // angle between c - a and d - a projected onto the plane normal to
      // the edge.
      const int edge[6][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2},
                              {1, 2, 0, 3}, {1, 3, 0, 2}, {2, 3, 0, 1}};
      for (const auto& e : edge) {
        const P t = sub(p[e[1]], p[e[0]]);
        const double tt = dot(t, t);
        P u = sub(p[e[2]], p[e[0]]), w = sub(p[e[3]], p[e[0]]);
        const double ut = dot(u, t) / tt, wt = dot(w, t) / tt;
        for (size_t k = 0; k < 3; ++k) {
          u[k] -= ut * t[k];
          w[k] -= wt * t[k];
        }
        const P uw = cross(u, w);
        const double ang = std::atan2(std::sqrt(dot(uw, uw)), dot(u, w)) * rad_to_deg;
        q.min_dihedral_angle = std::min(q.min_dihedral_angle, ang);
        q.max_dihedral_angle = std::max(q.max_dihedral_angle, ang);
      }
    }
    q.min_volume = std::min(q.min_volume, v);
    q.max_volume = std::max(q.max_volume, v);
    q.total_volume += v;
    q.n_nonpositive_volumes += v <= 0;
    q.max_aspect_ratio = std::max(q.max_aspect_ratio, e_max / e_min);
    q.max_skewness = std::max(q.max_skewness, skew);
  }
}

// Volumes, edge ratios and interior-angle skewness of 2-D cells
// [0, q.n_cells).
void quality_2d(const Mesh& mesh, MeshQuality& q) {
  const Geometry g = compute_geometry(mesh);
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.coords());
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
}

// The cell measures of cells [0, q.n_cells) (volumes, aspect ratio,
// skewness).
void measure_cells(const Mesh& mesh, MeshQuality& q) {
  if (q.dim == 3)
    quality_3d(mesh, q);
  else
    quality_2d(mesh, q);
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

  measure_cells(mesh, q);
  return q;
}

MeshQuality quality(const DistributedMesh& dm) {
  const Mesh& local = dm.local();
  const MPI_Comm comm = dm.comm();
  MeshQuality q;
  q.dim = local.dim();
  // The cell measures over the owned cells, then reduced.
  q.n_cells = dm.n_owned_cells();
  measure_cells(local, q);
  q.min_volume = par::allreduce_min(q.min_volume, comm);
  q.max_volume = par::allreduce_max(q.max_volume, comm);
  q.total_volume = par::allreduce_sum(q.total_volume, comm);
  q.max_aspect_ratio = par::allreduce_max(q.max_aspect_ratio, comm);
  q.max_skewness = par::allreduce_max(q.max_skewness, comm);
  q.min_dihedral_angle = par::allreduce_min(q.min_dihedral_angle, comm);
  q.max_dihedral_angle = par::allreduce_max(q.max_dihedral_angle, comm);
  q.n_nodes = dm.n_global_nodes();
  q.n_cells = dm.n_global_cells();

  // Counts, each item on one rank: owned cells; a face of an owned cell
  // where the other side is owned too, is a boundary, or is a ghost of a
  // higher global id (its owner counts the others).
  const index_t n_owned = dm.n_owned_cells();
  const std::vector<std::int64_t>& gid = dm.cell_global_ids();
  const auto types = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.cell_types());
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_right());
  const auto marker = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_marker());
  const CellType all[] = {CellType::triangle,    CellType::quad,  CellType::tetrahedron,
                          CellType::hexahedron, CellType::prism, CellType::pyramid};
  std::vector<std::int64_t> counts(3 + std::size(all) + local.markers().size(), 0);
  for (index_t f = 0; f < dm.n_owned_faces(); ++f) {
    const index_t l = left(f), r = right(f);
    if (r < 0) {
      ++counts[1];                // boundary
      counts[2] += marker(f) < 0;  // unmarked
      continue;
    }
    const bool l_owned = l < n_owned, r_owned = r < n_owned;
    if (l_owned && r_owned) ++counts[0];
    else if (l_owned) counts[0] += gid[static_cast<size_t>(l)] < gid[static_cast<size_t>(r)];
    else counts[0] += gid[static_cast<size_t>(r)] < gid[static_cast<size_t>(l)];
  }
  for (index_t c = 0; c < n_owned; ++c)
    for (size_t t = 0; t < std::size(all); ++t) counts[3 + t] += types(c) == all[t];
  for (size_t m = 0; m < local.markers().size(); ++m)
    counts[3 + std::size(all) + m] =
        static_cast<std::int64_t>(dm.owned_marker_faces(local.markers()[m].name).size());
  std::int64_t reoriented = 0;
  for (index_t c : local.reoriented_cells()) reoriented += c < n_owned;
  counts.push_back(q.n_nonpositive_volumes);
  counts.push_back(reoriented);
  CAMBER_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()),
                                 MPI_INT64_T, MPI_SUM, comm));
  q.n_interior_faces = counts[0];
  q.n_boundary_faces = counts[1];
  q.n_unmarked_boundary_faces = counts[2];
  q.n_faces = q.n_interior_faces + q.n_boundary_faces;
  for (size_t t = 0; t < std::size(all); ++t)
    if (counts[3 + t] > 0) q.cells_by_type.emplace_back(cell_type_name(all[t]), counts[3 + t]);
  for (size_t m = 0; m < local.markers().size(); ++m)
    q.marker_faces.emplace_back(local.markers()[m].name, counts[3 + std::size(all) + m]);
  q.n_nonpositive_volumes = counts[counts.size() - 2];
  q.n_reoriented_cells = counts.back();

  // The bounding box of the local nodes (every node is some rank's).
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.coords());
  for (int k = 0; k < 3; ++k) {
    double lo = k < q.dim ? std::numeric_limits<double>::infinity() : 0.0;
    double hi = k < q.dim ? -std::numeric_limits<double>::infinity() : 0.0;
    for (index_t n = 0; k < q.dim && n < local.n_nodes(); ++n) {
      lo = std::min(lo, x(n, k));
      hi = std::max(hi, x(n, k));
    }
    q.bounding_box[0][k] = par::allreduce_min(lo, comm);
    q.bounding_box[1][k] = par::allreduce_max(hi, comm);
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
  if (q.max_dihedral_angle > 0)
    os << "dihedral angles of the tetrahedra (70.5288 regular, near 0 and 180 for a sliver): min "
       << q.min_dihedral_angle << ", max " << q.max_dihedral_angle << " degrees\n";
  if (q.n_nonpositive_volumes > 0)
    os << "error: " << q.n_nonpositive_volumes << " cells have non-positive volume\n";
  if (q.n_reoriented_cells > 0)
    os << "note: " << q.n_reoriented_cells
       << (q.dim == 3 ? " inside-out cells were mirrored" : " clockwise cells were reversed")
       << " on reading\n";
  return os.str();
}

}  // namespace camber::mesh
