// mesh::geometry_transpose (geometry.hpp): the reverse sweep of
// compute_geometry, cell by cell and face by face. Each cell's (and
// face's) few geometric values are functions of its own nodes only, so
// the local Jacobian comes from one forward evaluation of the same
// templated kernel (cell_geometry_3d, polygon_centroid, face_geometry_3d)
// in Dual numbers seeded at its nodes, and its transpose times the bars is
// added to the nodes'. A node is shared by several cells and faces: the
// additions are atomic (the sum's order, and so its last bits, may change
// with the thread count).
#include <camber/mesh/geometry.hpp>

#include <camber/core/error.hpp>

namespace camber::mesh {

namespace {

using Range = Kokkos::RangePolicy<>;

// A View's row r, or zero where the View is empty (no bar given).
KOKKOS_INLINE_FUNCTION double bar_at(const Kokkos::View<const double**>& v, index_t r, int d) {
  return v.extent(0) == 0 ? 0.0 : v(r, d);
}
KOKKOS_INLINE_FUNCTION double bar_at(const Kokkos::View<const double*>& v, index_t r) {
  return v.extent(0) == 0 ? 0.0 : v(r);
}

// The bars of one 3-D cell of NN nodes into its nodes.
template <int NN>
KOKKOS_INLINE_FUNCTION void cell_3d_transpose(CellType type, const Kokkos::View<double**>& coords,
                                              const Kokkos::View<index_t*>& nodes, index_t begin,
                                              double vbar, const double (&cbar)[3],
                                              const Kokkos::View<double**>& out) {
  using D = ad::Dual<double, 3 * NN>;
  D p[NN][3];
  for (int i = 0; i < NN; ++i)
    for (int k = 0; k < 3; ++k) {
      p[i][k] = D(coords(nodes(begin + i), k));
      p[i][k].der(3 * i + k) = 1.0;
    }
  D v, x[3];
  cell_geometry_3d(type, p, NN, v, x);
  for (int i = 0; i < NN; ++i)
    for (int k = 0; k < 3; ++k) {
      double s = vbar * v.der(3 * i + k);
      for (int d = 0; d < 3; ++d) s += cbar[d] * x[d].der(3 * i + k);
      Kokkos::atomic_add(&out(nodes(begin + i), k), s);
    }
}

// The same for one 2-D cell (a polygon of NN nodes).
template <int NN>
KOKKOS_INLINE_FUNCTION void cell_2d_transpose(const Kokkos::View<double**>& coords,
                                              const Kokkos::View<index_t*>& nodes, index_t begin,
                                              double vbar, const double (&cbar)[3],
                                              const Kokkos::View<double**>& out) {
  using D = ad::Dual<double, 2 * NN>;
  D x[NN], y[NN];
  for (int i = 0; i < NN; ++i) {
    x[i] = D(coords(nodes(begin + i), 0));
    x[i].der(2 * i) = 1.0;
    y[i] = D(coords(nodes(begin + i), 1));
    y[i].der(2 * i + 1) = 1.0;
  }
  D a, cx, cy;
  polygon_centroid(x, y, NN, a, cx, cy);
  for (int i = 0; i < NN; ++i)
    for (int k = 0; k < 2; ++k) {
      const int j = 2 * i + k;
      const double s = vbar * a.der(j) + cbar[0] * cx.der(j) + cbar[1] * cy.der(j);
      Kokkos::atomic_add(&out(nodes(begin + i), k), s);
    }
}

// The bars of one 3-D face of M nodes (normal, centre, area) into its nodes.
template <int M>
KOKKOS_INLINE_FUNCTION void face_3d_transpose(const Kokkos::View<double**>& coords,
                                              const Kokkos::View<index_t*>& nodes, index_t begin,
                                              const double (&nbar)[3], const double (&cbar)[3],
                                              double abar, const Kokkos::View<double**>& out) {
  using D = ad::Dual<double, 3 * M>;
  D p[M][3];
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < 3; ++k) {
      p[i][k] = D(coords(nodes(begin + i), k));
      p[i][k].der(3 * i + k) = 1.0;
    }
  D n[3], c[3], a;
  face_geometry_3d(p, M, n, c, a);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < 3; ++k) {
      const int j = 3 * i + k;
      double s = abar * a.der(j);
      for (int d = 0; d < 3; ++d) s += nbar[d] * n[d].der(j) + cbar[d] * c[d].der(j);
      Kokkos::atomic_add(&out(nodes(begin + i), k), s);
    }
}

}  // namespace

Kokkos::View<double**> geometry_transpose(const Mesh& mesh, const Kokkos::View<double**>& coords,
                                          const GeometryFields<double>& bar) {
  detail::require_2d_or_3d(mesh, "geometry_transpose");
  const index_t n_cells = mesh.n_cells(), n_faces = mesh.n_faces(), n_nodes = mesh.n_nodes();
  const int dim = mesh.dim();
  CAMBER_REQUIRE(static_cast<index_t>(coords.extent(0)) == n_nodes &&
                     static_cast<int>(coords.extent(1)) == dim,
                 "geometry_transpose: coords must be " << n_nodes << " x " << dim);
  const auto rows_ok = [](index_t rows, index_t expected) { return rows == 0 || rows == expected; };
  CAMBER_REQUIRE(rows_ok(static_cast<index_t>(bar.cell_volume.extent(0)), n_cells) &&
                     rows_ok(static_cast<index_t>(bar.cell_centroid.extent(0)), n_cells) &&
                     rows_ok(static_cast<index_t>(bar.face_normal.extent(0)), n_faces) &&
                     rows_ok(static_cast<index_t>(bar.face_area.extent(0)), n_faces) &&
                     rows_ok(static_cast<index_t>(bar.face_center.extent(0)), n_faces),
                 "geometry_transpose: each bar must be empty or have a row per cell ("
                     << n_cells << ") or face (" << n_faces << ")");
  Kokkos::View<double**> out("camber::mesh::coords_bar", static_cast<size_t>(n_nodes),
                             static_cast<size_t>(dim));
  const Kokkos::View<const double*> vbar = bar.cell_volume, abar = bar.face_area;
  const Kokkos::View<const double**> cbar = bar.cell_centroid, nbar = bar.face_normal,
                                     fbar = bar.face_center;
  const auto offsets = mesh.cell_offsets();
  const auto nodes = mesh.cell_nodes();
  const auto types = mesh.cell_types();
  Kokkos::parallel_for(
      "camber::mesh::cell_geometry_transpose", Range(0, n_cells), KOKKOS_LAMBDA(const index_t c) {
        const index_t begin = offsets(c);
        const int n = static_cast<int>(offsets(c + 1) - begin);
        const double vb = bar_at(vbar, c);
        double cb[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < dim; ++d) cb[d] = bar_at(cbar, c, d);
        if (vb == 0.0 && cb[0] == 0.0 && cb[1] == 0.0 && cb[2] == 0.0) return;
        if (dim == 2) {
          if (n == 3)
            cell_2d_transpose<3>(coords, nodes, begin, vb, cb, out);
          else
            cell_2d_transpose<4>(coords, nodes, begin, vb, cb, out);
          return;
        }
        switch (n) {
          case 4: cell_3d_transpose<4>(types(c), coords, nodes, begin, vb, cb, out); break;
          case 5: cell_3d_transpose<5>(types(c), coords, nodes, begin, vb, cb, out); break;
          case 6: cell_3d_transpose<6>(types(c), coords, nodes, begin, vb, cb, out); break;
          default: cell_3d_transpose<8>(types(c), coords, nodes, begin, vb, cb, out); break;
        }
      });
  const auto f_offsets = mesh.face_offsets();
  const auto f_nodes = mesh.face_nodes();
  Kokkos::parallel_for(
      "camber::mesh::face_geometry_transpose", Range(0, n_faces), KOKKOS_LAMBDA(const index_t f) {
        const index_t begin = f_offsets(f);
        const int m = static_cast<int>(f_offsets(f + 1) - begin);
        double nb[3] = {0.0, 0.0, 0.0}, cb[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < dim; ++d) {
          nb[d] = bar_at(nbar, f, d);
          cb[d] = bar_at(fbar, f, d);
        }
        const double ab = bar_at(abar, f);
        if (dim == 3) {
          if (m == 3)
            face_3d_transpose<3>(coords, f_nodes, begin, nb, cb, ab, out);
          else
            face_3d_transpose<4>(coords, f_nodes, begin, nb, cb, ab, out);
          return;
        }
        // 2-D: n = (yb - ya, xa - xb), centre the mean, area |b - a|.
        const index_t a = f_nodes(begin), b = f_nodes(begin + 1);
        const double ex = coords(b, 0) - coords(a, 0), ey = coords(b, 1) - coords(a, 1);
        const double len = ad::sqrt(ex * ex + ey * ey);
        const double ax = ab * ex / len, ay = ab * ey / len;  // d|e|/d(b - a)
        Kokkos::atomic_add(&out(a, 0), nb[1] + 0.5 * cb[0] - ax);
        Kokkos::atomic_add(&out(a, 1), -nb[0] + 0.5 * cb[1] - ay);
        Kokkos::atomic_add(&out(b, 0), -nb[1] + 0.5 * cb[0] + ax);
        Kokkos::atomic_add(&out(b, 1), nb[0] + 0.5 * cb[1] + ay);
      });
  Kokkos::fence();
  return out;
}

}  // namespace camber::mesh
