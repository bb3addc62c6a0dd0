/// @file
/// Mesh geometry as kernels templated on the scalar type.
///
/// Face normals and areas, cell volumes and centroids, and wall distance,
/// written once for any scalar type T so that T = double gives the values and
/// T = camber::ad::Dual<double, N> gives their derivatives with respect to
/// node coordinates (seed the coordinates of the nodes of interest):
///
/// @code
///   face normal  n_f = (y_b - y_a, -(x_b - x_a))   area-weighted, left -> right
///   face area    |n_f|                              (length in 2-D)
///   cell volume  A = 1/2 sum_i (p_i - p_0) x (p_{i+1} - p_0)   (shoelace)
///   centroid     sum over fan triangles of area * vertex mean, / A
///   wall dist.   min over wall faces of the distance from the cell centroid
///                to the face segment (brute force: O(n_cells n_wall))
/// @endcode
///
/// In 2-D a "volume" is an area per unit depth. Because n_f is the edge
/// vector turned by -90 degrees, the outward normals of a closed cell sum to
/// zero up to round-off (tested). In 3-D (compute_geometry_3d) a face is a
/// fan of triangles about its nodes' mean, and a cell the tetrahedra from
/// its nodes' mean to those triangles: normals, areas, volumes and
/// centroids for tetrahedra, hexahedra, prisms and pyramids, closed to
/// round-off and tiling the domain. Wall distance is 2-D only.
///
/// @code
///   camber::mesh::Geometry g = camber::mesh::compute_geometry(mesh);
///   // g.cell_volume(c), g.face_normal(f, 0..1), g.face_area(f)
///   auto d = camber::mesh::wall_distance(mesh, g, {"airfoil"});
///
///   // derivatives: coordinates as Duals, seeded by the caller
///   Kokkos::View<ad::Dual<double, 2>**> x("x", mesh.n_nodes(), 2);  // fill, seed
///   auto gd = camber::mesh::compute_geometry(mesh, x);   // gd.cell_volume(c).der(k)
/// @endcode
///
/// The scalar kernels (face_normal_2d, polygon_area, polygon_centroid,
/// point_segment_distance) are KOKKOS_INLINE_FUNCTION and usable inside any
/// kernel; forward mode only (derivative conventions of autodiff/dual.hpp:
/// the distance to a segment is not differentiable where it is zero).
#pragma once

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include <camber/autodiff/dual.hpp>
#include <camber/mesh/cell_faces.hpp>
#include <camber/mesh/mesh.hpp>

namespace camber::mesh {

// ------------------------------------------------------------ scalar kernels

/// Area-weighted normal of the 2-D face a -> b: the edge vector turned by -90
/// degrees, pointing to the right of a -> b (outward of a counter-clockwise
/// cell).
template <class T>
KOKKOS_INLINE_FUNCTION void face_normal_2d(const T& xa, const T& ya, const T& xb, const T& yb,
                                           T& nx, T& ny) {
  nx = yb - ya;
  ny = xa - xb;
}

template <class T>
KOKKOS_INLINE_FUNCTION T face_area_2d(const T& xa, const T& ya, const T& xb, const T& yb) {
  const T dx = xb - xa, dy = yb - ya;
  return ad::sqrt(dx * dx + dy * dy);
}

/// Signed area of the polygon (x[i], y[i]), i < n: positive when
/// counter-clockwise. Differences to vertex 0 keep round-off relative to the
/// cell size, not to the distance from the origin.
template <class T>
KOKKOS_INLINE_FUNCTION T polygon_area(const T* x, const T* y, int n) {
  T twice = T(0);
  for (int i = 1; i + 1 < n; ++i)
    twice += (x[i] - x[0]) * (y[i + 1] - y[0]) - (x[i + 1] - x[0]) * (y[i] - y[0]);
  return 0.5 * twice;
}

/// Signed area and centroid of the polygon, from a fan of triangles at
/// vertex 0 (exact for any simple polygon, convex or not).
template <class T>
KOKKOS_INLINE_FUNCTION void polygon_centroid(const T* x, const T* y, int n, T& area, T& cx,
                                             T& cy) {
  T twice = T(0), sx = T(0), sy = T(0);
  for (int i = 1; i + 1 < n; ++i) {
    const T ax = x[i] - x[0], ay = y[i] - y[0];
    const T bx = x[i + 1] - x[0], by = y[i + 1] - y[0];
    const T t = ax * by - bx * ay;  // twice the triangle's area
    twice += t;
    sx += t * (ax + bx);
    sy += t * (ay + by);
  }
  area = 0.5 * twice;
  cx = x[0] + sx / (3.0 * twice);
  cy = y[0] + sy / (3.0 * twice);
}

/// Distance from point p to the segment a-b.
template <class T>
KOKKOS_INLINE_FUNCTION T point_segment_distance(const T& px, const T& py, const T& ax,
                                                const T& ay, const T& bx, const T& by) {
  const T ex = bx - ax, ey = by - ay;
  const T wx = px - ax, wy = py - ay;
  const T len2 = ex * ex + ey * ey;
  T t = (wx * ex + wy * ey) / len2;
  if (t < 0.0) t = T(0);
  if (t > 1.0) t = T(1);
  const T dx = wx - t * ex, dy = wy - t * ey;
  return ad::sqrt(dx * dx + dy * dy);
}

/// Area-weighted normal, centre and area of a 3-D face of m = 3 or 4 nodes
/// p[0..m-1] (outward order: the normal follows the right-hand rule): a fan
/// of triangles about the nodes' mean g, n = sum_i (p_i - g) x (p_i+1 - g)
/// / 2, the centre the fan triangles' centroids weighted by their areas,
/// the area |n|. A warped quad is split the same way from either side, so
/// neighbouring cells see one surface.
template <class T>
KOKKOS_INLINE_FUNCTION void face_geometry_3d(const T (*p)[3], int m, T* n, T* center, T& area) {
  T g[3] = {T(0), T(0), T(0)};
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < 3; ++k) g[k] += p[i][k] / static_cast<double>(m);
  T weight = T(0), c[3] = {T(0), T(0), T(0)};
  for (int k = 0; k < 3; ++k) n[k] = T(0);
  for (int i = 0; i < m; ++i) {
    const T* a = p[i];
    const T* b = p[(i + 1) % m];
    const T ax = a[0] - g[0], ay = a[1] - g[1], az = a[2] - g[2];
    const T bx = b[0] - g[0], by = b[1] - g[1], bz = b[2] - g[2];
    const T tx = 0.5 * (ay * bz - az * by), ty = 0.5 * (az * bx - ax * bz), tz = 0.5 * (ax * by - ay * bx);
    n[0] += tx;
    n[1] += ty;
    n[2] += tz;
    const T w = ad::sqrt(tx * tx + ty * ty + tz * tz);
    weight += w;
    for (int k = 0; k < 3; ++k) c[k] += w * (g[k] + a[k] + b[k]) / 3.0;
  }
  for (int k = 0; k < 3; ++k) center[k] = c[k] / weight;
  area = ad::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/// Volume and centroid of a 3-D cell of type t with nodes p[0..], its faces
/// split as face_geometry_3d splits them: the tetrahedra from the nodes'
/// mean r to each fan triangle (g_f, p_i, p_i+1) of each face, V = sum
/// (g_f - r) . ((p_i - r) x (p_i+1 - r)) / 6, the centroid their centroids
/// weighted by their volumes. Neighbours share the fan triangles, so the
/// volumes tile the domain; a cell given inside out has V < 0.
template <class T>
KOKKOS_INLINE_FUNCTION void cell_geometry_3d(CellType t, const T (*p)[3], int n_nodes, T& volume,
                                             T* centroid) {
  T r[3] = {T(0), T(0), T(0)};
  for (int i = 0; i < n_nodes; ++i)
    for (int k = 0; k < 3; ++k) r[k] += p[i][k] / static_cast<double>(n_nodes);
  T v = T(0), s[3] = {T(0), T(0), T(0)};
  int local[4];
  for (int f = 0; f < n_cell_faces(t); ++f) {
    const int m = cell_face(t, f, local);
    T g[3] = {T(0), T(0), T(0)};
    for (int i = 0; i < m; ++i)
      for (int k = 0; k < 3; ++k) g[k] += (p[local[i]][k] - r[k]) / static_cast<double>(m);
    for (int i = 0; i < m; ++i) {
      const T* pa = p[local[i]];
      const T* pb = p[local[(i + 1) % m]];
      const T ax = pa[0] - r[0], ay = pa[1] - r[1], az = pa[2] - r[2];
      const T bx = pb[0] - r[0], by = pb[1] - r[1], bz = pb[2] - r[2];
      const T vt = (g[0] * (ay * bz - az * by) + g[1] * (az * bx - ax * bz) + g[2] * (ax * by - ay * bx)) / 6.0;
      v += vt;
      s[0] += vt * (g[0] + ax + bx) / 4.0;
      s[1] += vt * (g[1] + ay + by) / 4.0;
      s[2] += vt * (g[2] + az + bz) / 4.0;
    }
  }
  volume = v;
  for (int k = 0; k < 3; ++k) centroid[k] = r[k] + s[k] / v;
}

// ------------------------------------------------------------ mesh fields

/// Geometry of every cell and face, in Views of T.
template <class T>
struct GeometryFields {
  Kokkos::View<T*> cell_volume;     ///< area per unit depth in 2-D
  Kokkos::View<T**> cell_centroid;  ///< n_cells x dim
  Kokkos::View<T**> face_normal;    ///< n_faces x dim, area-weighted, left -> right
  Kokkos::View<T*> face_area;       ///< |face_normal|
  Kokkos::View<T**> face_center;    ///< n_faces x dim
};
using Geometry = GeometryFields<double>;

namespace detail {
void require_2d(const Mesh& mesh, const char* what);
void require_2d_or_3d(const Mesh& mesh, const char* what);
Kokkos::View<index_t*> wall_faces(const Mesh& mesh, const std::vector<std::string>& markers);
}  // namespace detail

template <class T>
GeometryFields<T> compute_geometry_3d(const Mesh& mesh, const Kokkos::View<T**>& coords);

/// The fields of `mesh`'s geometry, allocated (dim columns).
template <class T>
GeometryFields<T> allocate_geometry(const Mesh& mesh) {
  const index_t n_cells = mesh.n_cells(), n_faces = mesh.n_faces(), dim = mesh.dim();
  GeometryFields<T> g;
  g.cell_volume = Kokkos::View<T*>("camber::mesh::cell_volume", n_cells);
  g.cell_centroid = Kokkos::View<T**>("camber::mesh::cell_centroid", n_cells, dim);
  g.face_normal = Kokkos::View<T**>("camber::mesh::face_normal", n_faces, dim);
  g.face_area = Kokkos::View<T*>("camber::mesh::face_area", n_faces);
  g.face_center = Kokkos::View<T**>("camber::mesh::face_center", n_faces, dim);
  return g;
}

/// Geometry of `mesh` at node coordinates `coords` (n_nodes x dim), which
/// may differ from mesh.coords() (a deformed mesh, or Dual coordinates).
/// 2-D, or 3-D (compute_geometry_3d).
template <class T>
GeometryFields<T> compute_geometry(const Mesh& mesh, const Kokkos::View<T**>& coords) {
  detail::require_2d_or_3d(mesh, "compute_geometry");
  if (mesh.dim() == 3) return compute_geometry_3d(mesh, coords);
  const index_t n_cells = mesh.n_cells(), n_faces = mesh.n_faces();
  const GeometryFields<T> g = allocate_geometry<T>(mesh);

  const auto offsets = mesh.cell_offsets();
  const auto nodes = mesh.cell_nodes();
  const auto volume = g.cell_volume;
  const auto centroid = g.cell_centroid;
  Kokkos::parallel_for(
      "camber::mesh::cell_geometry", Kokkos::RangePolicy<>(0, n_cells),
      KOKKOS_LAMBDA(const index_t c) {
        T x[4] = {}, y[4] = {};
        const index_t begin = offsets(c);
        const int n = static_cast<int>(offsets(c + 1) - begin);
        for (int i = 0; i < n; ++i) {
          x[i] = coords(nodes(begin + i), 0);
          y[i] = coords(nodes(begin + i), 1);
        }
        T a, cx, cy;
        polygon_centroid(x, y, n, a, cx, cy);
        volume(c) = a;
        centroid(c, 0) = cx;
        centroid(c, 1) = cy;
      });

  const auto f_offsets = mesh.face_offsets();
  const auto f_nodes = mesh.face_nodes();
  const auto normal = g.face_normal;
  const auto area = g.face_area;
  const auto center = g.face_center;
  Kokkos::parallel_for(
      "camber::mesh::face_geometry", Kokkos::RangePolicy<>(0, n_faces),
      KOKKOS_LAMBDA(const index_t f) {
        const index_t a = f_nodes(f_offsets(f)), b = f_nodes(f_offsets(f) + 1);
        const T xa = coords(a, 0), ya = coords(a, 1), xb = coords(b, 0), yb = coords(b, 1);
        T nx, ny;
        face_normal_2d(xa, ya, xb, yb, nx, ny);
        normal(f, 0) = nx;
        normal(f, 1) = ny;
        area(f) = face_area_2d(xa, ya, xb, yb);
        center(f, 0) = 0.5 * (xa + xb);
        center(f, 1) = 0.5 * (ya + yb);
      });
  Kokkos::fence();
  return g;
}

/// 3-D cells (tetrahedra, hexahedra, prisms, pyramids) and their faces:
/// face_geometry_3d and cell_geometry_3d per face and cell. The outward
/// normals of a closed cell sum to zero to round-off, so a uniform flow
/// has no residual.
template <class T>
GeometryFields<T> compute_geometry_3d(const Mesh& mesh, const Kokkos::View<T**>& coords) {
  const index_t n_cells = mesh.n_cells(), n_faces = mesh.n_faces();
  const GeometryFields<T> g = allocate_geometry<T>(mesh);
  const auto offsets = mesh.cell_offsets();
  const auto nodes = mesh.cell_nodes();
  const auto types = mesh.cell_types();
  const auto volume = g.cell_volume;
  const auto centroid = g.cell_centroid;
  Kokkos::parallel_for(
      "camber::mesh::cell_geometry_3d", Kokkos::RangePolicy<>(0, n_cells),
      KOKKOS_LAMBDA(const index_t c) {
        T p[8][3];
        const index_t begin = offsets(c);
        const int n = static_cast<int>(offsets(c + 1) - begin);
        for (int i = 0; i < n; ++i)
          for (int k = 0; k < 3; ++k) p[i][k] = coords(nodes(begin + i), k);
        T v, x[3];
        cell_geometry_3d(types(c), p, n, v, x);
        volume(c) = v;
        for (int k = 0; k < 3; ++k) centroid(c, k) = x[k];
      });
  const auto f_offsets = mesh.face_offsets();
  const auto f_nodes = mesh.face_nodes();
  const auto normal = g.face_normal;
  const auto area = g.face_area;
  const auto center = g.face_center;
  Kokkos::parallel_for(
      "camber::mesh::face_geometry_3d", Kokkos::RangePolicy<>(0, n_faces),
      KOKKOS_LAMBDA(const index_t f) {
        T p[4][3];
        const index_t begin = f_offsets(f);
        const int m = static_cast<int>(f_offsets(f + 1) - begin);
        for (int i = 0; i < m; ++i)
          for (int k = 0; k < 3; ++k) p[i][k] = coords(f_nodes(begin + i), k);
        T nv[3], cv[3], a;
        face_geometry_3d(p, m, nv, cv, a);
        for (int k = 0; k < 3; ++k) {
          normal(f, k) = nv[k];
          center(f, k) = cv[k];
        }
        area(f) = a;
      });
  Kokkos::fence();
  return g;
}

/// With the mesh's own coordinates.
Geometry compute_geometry(const Mesh& mesh);

/// The transpose of compute_geometry's derivative at `coords` (n_nodes x
/// dim, double): given bars of the geometry fields (the adjoint of each
/// value; a View left empty counts as zero), returns {n_nodes, dim}
///
///   xbar = sum over the fields F of (dF/dx)^T Fbar
///
/// in one pass over the cells and one over the faces, whatever the number of
/// nodes: the reverse mode of the geometry, for shape derivatives. Each
/// cell's and face's local Jacobian is the forward kernel above evaluated in
/// Dual numbers at its own nodes; the nodes' sums are atomic, so their
/// order (and the last bits) may change with the number of threads.
Kokkos::View<double**> geometry_transpose(const Mesh& mesh, const Kokkos::View<double**>& coords,
                                          const GeometryFields<double>& bar);

/// Sum of the cell volumes (areas per unit depth in 2-D) of `mesh`.
double total_volume(const Mesh& mesh);

/// Distance from each cell centroid to the nearest face of the named wall
/// markers, at node coordinates `coords` (the wall moves with them). Unknown
/// marker names are a bad_input error listing the mesh's markers.
template <class T>
Kokkos::View<T*> wall_distance(const Mesh& mesh, const Kokkos::View<T**>& coords,
                               const Kokkos::View<T**>& cell_centroid,
                               const std::vector<std::string>& wall_markers) {
  detail::require_2d(mesh, "wall_distance");
  const Kokkos::View<index_t*> walls = detail::wall_faces(mesh, wall_markers);
  const index_t n_walls = static_cast<index_t>(walls.extent(0));
  const auto f_offsets = mesh.face_offsets();
  const auto f_nodes = mesh.face_nodes();
  Kokkos::View<T*> dist("camber::mesh::wall_distance", mesh.n_cells());
  Kokkos::parallel_for(
      "camber::mesh::wall_distance", Kokkos::RangePolicy<>(0, mesh.n_cells()),
      KOKKOS_LAMBDA(const index_t c) {
        const T px = cell_centroid(c, 0), py = cell_centroid(c, 1);
        T best = T(0);
        for (index_t w = 0; w < n_walls; ++w) {
          const index_t f = walls(w);
          const index_t a = f_nodes(f_offsets(f)), b = f_nodes(f_offsets(f) + 1);
          const T d = point_segment_distance(px, py, coords(a, 0), coords(a, 1), coords(b, 0),
                                             coords(b, 1));
          if (w == 0 || d < best) best = d;
        }
        dist(c) = best;
      });
  Kokkos::fence();
  return dist;
}

Kokkos::View<double*> wall_distance(const Mesh& mesh, const Geometry& geometry,
                                    const std::vector<std::string>& wall_markers);

}  // namespace camber::mesh
