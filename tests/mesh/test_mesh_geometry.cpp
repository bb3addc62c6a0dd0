// Derivative tests of the geometry kernels: forward-mode Duals against
// central finite differences (first order) and against exact or
// finite-difference second derivatives, on single cells and on a whole
// jittered mesh; and closure of every cell's outward face normals.
//
// Tolerances: with step h = 1e-6 on O(1) coordinates, a central difference
// errs by h^2 |f'''| / 6 (< 1e-11 here: areas are quadratic, centroids
// rational with O(1) third derivatives) plus cancellation eps |f| / h
// (~2e-10), so 1e-8 (relative to max(1, |derivative|)) separates a wrong
// derivative from round-off by two orders of magnitude.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/jacobian.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/su2_reader.hpp>
#include "mesh_test_utils.hpp"
#include "tests/common/central_difference.hpp"
#include "tests/shared_data.hpp"

namespace camber_test_mesh {

using namespace camber::mesh;
namespace ad = camber::ad;
using D2 = ad::Dual<double, 2>;
using camber::test::central_difference;
using camber::test::central_gradient;
using camber::test::central_jacobian;

constexpr double fd_step = 1e-6;
constexpr double fd_tol = 1e-8;

::testing::AssertionResult close(double actual, double expected, double tol) {
  const double scale = std::max(1.0, std::abs(expected));
  if (std::abs(actual - expected) <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "actual " << actual << ", expected " << expected
                                       << ", difference " << actual - expected;
}

// A convex, irregular quad, counter-clockwise: (x0, y0, x1, y1, ...).
const double quad[8] = {0.1, -0.2, 1.3, 0.05, 1.1, 0.9, -0.15, 1.2};

// Cell quantity k (0 area, 1 centroid x, 2 centroid y) of a quad given as 8
// numbers: a function of its node coordinates for ad::gradient.
struct QuadQuantity {
  int k;
  template <class T>
  KOKKOS_INLINE_FUNCTION T operator()(const T (&v)[8]) const {
    T x[4], y[4];
    for (int i = 0; i < 4; ++i) {
      x[i] = v[2 * i];
      y[i] = v[2 * i + 1];
    }
    if (k == 0) return polygon_area(x, y, 4);
    T a, cx, cy;
    polygon_centroid(x, y, 4, a, cx, cy);
    return k == 1 ? cx : cy;
  }
};

TEST(GeometryKernels, CellAreaAndCentroidDerivatives) {
  for (int k = 0; k < 3; ++k) {
    const QuadQuantity f{k};
    double g[8];
    const double value = ad::gradient(f, quad, g);
    EXPECT_DOUBLE_EQ(value, f(quad));
    const std::vector<double> fd = central_gradient(f, quad, fd_step);
    for (int n = 0; n < 8; ++n)
      EXPECT_TRUE(close(g[n], fd[static_cast<size_t>(n)], fd_tol)) << "quantity " << k << " dir " << n;
  }
  // Area, by hand: A = 1/2 sum (x_i y_{i+1} - x_{i+1} y_i), so dA/dx_i =
  // (y_{i+1} - y_{i-1}) / 2 and dA/dy_i = (x_{i-1} - x_{i+1}) / 2.
  double g[8];
  (void)ad::gradient(QuadQuantity{0}, quad, g);
  for (int i = 0; i < 4; ++i) {
    const int next = (i + 1) % 4, prev = (i + 3) % 4;
    EXPECT_NEAR(g[2 * i], 0.5 * (quad[2 * next + 1] - quad[2 * prev + 1]), 1e-15);
    EXPECT_NEAR(g[2 * i + 1], 0.5 * (quad[2 * prev] - quad[2 * next]), 1e-15);
  }
}

TEST(GeometryKernels, SecondDerivatives) {
  // Area is bilinear: d2A/dx_i dy_{i+1} = 1/2, d2A/dx_{i+1} dy_i = -1/2,
  // everything else 0 (exact in floating point).
  double g[8], H[8][8];
  (void)ad::hessian(QuadQuantity{0}, quad, g, H);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      double expected = 0;
      const int ia = a / 2, ib = b / 2;
      if (a % 2 == 0 && b % 2 == 1) expected = ib == (ia + 1) % 4 ? 0.5 : (ia == (ib + 1) % 4 ? -0.5 : 0);
      if (a % 2 == 1 && b % 2 == 0) expected = ia == (ib + 1) % 4 ? 0.5 : (ib == (ia + 1) % 4 ? -0.5 : 0);
      EXPECT_EQ(H[a][b], expected) << a << ", " << b;
    }
  // Centroid x: Hessian against central differences of the (AD) gradient,
  // h = 1e-5: truncation h^2 |f''''| ~ 1e-10, cancellation eps / h ~ 1e-11.
  const QuadQuantity cx{1};
  (void)ad::hessian(cx, quad, g, H);
  const double h = 1e-5;
  const auto fd = central_jacobian(
      [&](const double (&p)[8]) {
        double gp[8];
        (void)ad::gradient(cx, p, gp);
        return std::vector<double>(gp, gp + 8);
      },
      quad, h);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      EXPECT_TRUE(close(H[a][b], fd[static_cast<size_t>(a)][static_cast<size_t>(b)], 1e-7)) << a << ", " << b;
}

TEST(GeometryKernels, FaceNormalAndAreaDerivatives) {
  // n = (yb - ya, xa - xb): linear, so the Dual derivatives are exactly
  // the constant Jacobian; |n| has derivative (x_b - x_a) / L etc.
  const double xa = 0.3, ya = -0.4, xb = 1.7, yb = 0.8;
  const D2 dxa = ad::make_variable<2>(xa, 0), dya = ad::make_variable<2>(ya, 1);
  D2 nx, ny;
  face_normal_2d(dxa, dya, D2(xb), D2(yb), nx, ny);
  EXPECT_EQ(nx.val(), yb - ya);
  EXPECT_EQ(ny.val(), xa - xb);
  EXPECT_EQ(nx.der(0), 0.0);
  EXPECT_EQ(nx.der(1), -1.0);
  EXPECT_EQ(ny.der(0), 1.0);
  EXPECT_EQ(ny.der(1), 0.0);
  const D2 len = face_area_2d(dxa, dya, D2(xb), D2(yb));
  const double l = std::hypot(xb - xa, yb - ya);
  EXPECT_NEAR(len.val(), l, 1e-15);
  EXPECT_NEAR(len.der(0), -(xb - xa) / l, 1e-15);
  EXPECT_NEAR(len.der(1), -(yb - ya) / l, 1e-15);
  // Distance to a segment, interior projection: derivative wrt the point
  // is the unit vector from the foot to the point.
  const D2 px = ad::make_variable<2>(0.9, 0), py = ad::make_variable<2>(1.5, 1);
  const D2 d = point_segment_distance(px, py, D2(xa), D2(ya), D2(xb), D2(yb));
  const double ux = (xb - xa) / l, uy = (yb - ya) / l;
  const double t = (0.9 - xa) * ux + (1.5 - ya) * uy;
  const double fx = 0.9 - (xa + t * ux), fy = 1.5 - (ya + t * uy);
  EXPECT_NEAR(d.val(), std::hypot(fx, fy), 1e-15);
  EXPECT_NEAR(d.der(0), fx / std::hypot(fx, fy), 1e-14);
  EXPECT_NEAR(d.der(1), fy / std::hypot(fx, fy), 1e-14);
}

// A 4 x 3 triangle mesh of [0,1] x [0,1] with interior nodes moved by a
// fixed pseudo-random amount (no symmetric ties in the wall distance).
Kokkos::View<double**> jittered(const Mesh& m) {
  Kokkos::View<double**> x("x", m.n_nodes(), 2);
  auto h = Kokkos::create_mirror_view(x);
  auto orig = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  for (index_t n = 0; n < m.n_nodes(); ++n) {
    const bool interior = orig(n, 0) > 0 && orig(n, 0) < 1 && orig(n, 1) > 0 && orig(n, 1) < 1;
    h(n, 0) = orig(n, 0) + (interior ? 0.06 * std::sin(7.3 * n + 1.0) : 0.0);
    h(n, 1) = orig(n, 1) + (interior ? 0.05 * std::cos(3.1 * n + 0.4) : 0.0) +
              (orig(n, 1) == 0 ? 0.02 * std::sin(5.0 * n) : 0.0);  // a wavy wall
  }
  Kokkos::deep_copy(x, h);
  return x;
}

TEST(MeshGeometry, DualDerivativesMatchFiniteDifferencesOnAWholeMesh) {
  const Mesh m = rectangle(4, 3, 1.0, 1.0, CellShape::triangles);
  const Kokkos::View<double**> x = jittered(m);
  const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  // Node 6 is interior, node 2 on the (wavy) bottom wall.
  for (index_t node : {index_t(6), index_t(2)}) {
    Kokkos::View<D2**> xd("xd", m.n_nodes(), 2);
    auto xdh = Kokkos::create_mirror_view(xd);
    for (index_t n = 0; n < m.n_nodes(); ++n)
      for (int k = 0; k < 2; ++k)
        xdh(n, k) = n == node ? ad::make_variable<2>(xh(n, k), k) : D2(xh(n, k));
    Kokkos::deep_copy(xd, xdh);
    const GeometryFields<D2> gd = compute_geometry(m, xd);
    const auto dist_d = Kokkos::create_mirror_view_and_copy(
        Kokkos::HostSpace(), wall_distance(m, xd, gd.cell_centroid, {"bottom"}));
    const auto vol_d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.cell_volume);
    const auto cen_d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.cell_centroid);
    const auto nor_d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.face_normal);
    const auto are_d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.face_area);

    for (int k = 0; k < 2; ++k) {
      Geometry gp, gm;
      Kokkos::View<double*> dp, dm;
      for (int side : {+1, -1}) {
        Kokkos::View<double**> xs("xs", m.n_nodes(), 2);
        Kokkos::deep_copy(xs, x);
        auto xsh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), xs);
        xsh(node, k) += side * fd_step;
        Kokkos::deep_copy(xs, xsh);
        Geometry g = compute_geometry(m, xs);
        Kokkos::View<double*> d = wall_distance(m, xs, g.cell_centroid, {"bottom"});
        (side > 0 ? gp : gm) = g;
        (side > 0 ? dp : dm) = d;
      }
      auto h = [](const auto& v) {
        return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
      };
      const auto vp = h(gp.cell_volume), vm = h(gm.cell_volume);
      const auto cp = h(gp.cell_centroid), cm = h(gm.cell_centroid);
      const auto np = h(gp.face_normal), nm = h(gm.face_normal);
      const auto ap = h(gp.face_area), am = h(gm.face_area);
      const auto wp = h(dp), wm = h(dm);
      const double s = 2 * fd_step;
      int nonzero = 0;
      for (index_t c = 0; c < m.n_cells(); ++c) {
        EXPECT_TRUE(close(vol_d(c).der(k), (vp(c) - vm(c)) / s, fd_tol)) << "volume " << c;
        for (int d = 0; d < 2; ++d)
          EXPECT_TRUE(close(cen_d(c, d).der(k), (cp(c, d) - cm(c, d)) / s, fd_tol))
              << "centroid " << c;
        EXPECT_TRUE(close(dist_d(c).der(k), (wp(c) - wm(c)) / s, fd_tol)) << "wall distance " << c;
        nonzero += vol_d(c).der(k) != 0;
      }
      EXPECT_GE(nonzero, 1);  // the seeded node moves some cells
      for (index_t f = 0; f < m.n_faces(); ++f) {
        for (int d = 0; d < 2; ++d)
          EXPECT_TRUE(close(nor_d(f, d).der(k), (np(f, d) - nm(f, d)) / s, fd_tol))
              << "normal " << f;
        EXPECT_TRUE(close(are_d(f).der(k), (ap(f) - am(f)) / s, fd_tol)) << "area " << f;
      }
    }
  }
}

TEST(MeshGeometry, ClosureOfFaceNormalsAndOfTheirDerivatives) {
  const Mesh m = rectangle(4, 3, 1.0, 1.0, CellShape::triangles);
  const Kokkos::View<double**> x = jittered(m);
  const Geometry g = compute_geometry(m, x);
  // Each normal is an edge vector turned by 90 degrees; around a closed cell
  // the edge vectors telescope to zero, so only round-off remains.
  EXPECT_LE(max_closure_error(m, g), 1e-15);
  // The same holds for the derivatives along any deformation of the nodes:
  // two tangent directions that move every node differently.
  const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  Kokkos::View<D2**> xd("xd", m.n_nodes(), 2);
  auto xdh = Kokkos::create_mirror_view(xd);
  for (index_t n = 0; n < m.n_nodes(); ++n) {
    const double t = static_cast<double>(n);
    xdh(n, 0) = D2(xh(n, 0));
    xdh(n, 1) = D2(xh(n, 1));
    xdh(n, 0).der(0) = std::sin(t + 1);
    xdh(n, 1).der(0) = std::cos(2 * t + 1);
    xdh(n, 0).der(1) = std::cos(3 * t);
    xdh(n, 1).der(1) = -std::sin(0.5 * t);
  }
  Kokkos::deep_copy(xd, xdh);
  const auto nd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                      compute_geometry(m, xd).face_normal);
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_right());
  std::vector<D2> sum(2 * m.n_cells());
  for (index_t f = 0; f < m.n_faces(); ++f)
    for (int d = 0; d < 2; ++d) {
      sum[2 * left(f) + d] += nd(f, d);
      if (right(f) >= 0) sum[2 * right(f) + d] -= nd(f, d);
    }
  // Tangents are O(1), so round-off of a few additions is ~1e-16 each.
  int moving = 0;
  for (index_t f = 0; f < m.n_faces(); ++f) moving += nd(f, 0).der(0) != 0;
  EXPECT_GT(moving, m.n_faces() / 2);
  for (const D2& s : sum) {
    EXPECT_LE(std::abs(s.val()), 1e-15);
    EXPECT_LE(std::abs(s.der(0)), 1e-14);
    EXPECT_LE(std::abs(s.der(1)), 1e-14);
  }
}

// 3-D geometry on SU2's brick meshes (hexahedra, prisms, tetrahedra,
// tetrahedra with pyramids; ../shared/data), checked against math:
//   * as read (planar faces): the volumes sum to the box's, 2 (1e-12), and
//     each cell's volume is (1/3) sum_f (c_f - x_c) . n_f over its outward
//     faces, the divergence theorem (1e-12 of the cell's volume);
//   * with every node moved by a smooth field of 1e-3 (warped quads): each
//     cell's outward normals sum to zero to round-off (1e-15 of the cell's
//     face areas), the free-stream condition of a finite-volume scheme,
//     and their forward derivatives (Duals along two node fields) too
//     (1e-14 of the square root of those areas: a normal's derivative
//     scales with a length);
//   * the Dual derivative of every cell volume and face normal along one
//     node field against central differences (h = 1e-6; 1e-7 of the
//     largest derivative).
TEST(MeshGeometry, ThreeDimensionalCellsOnTheBrickMeshes) {
  using D = ad::Dual<double, 2>;
  for (const char* kind : {"hex", "prism", "tets", "pyra"}) {
    const std::string path =
        camber::test::shared_mesh(std::string("brick_") + kind + "_ffd_su2_testcases.su2");
    CAMBER_NEED_SHARED_FILE(path);
    const Mesh m = read_su2(path);
    const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_left());
    const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_right());
    {
      const Geometry g = compute_geometry(m);
      const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_volume);
      const auto xc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_centroid);
      const auto n = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_normal);
      const auto cf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_center);
      double total = 0.0;
      std::vector<double> flux(static_cast<size_t>(m.n_cells()), 0.0);
      for (index_t f = 0; f < m.n_faces(); ++f)
        for (const auto& [c, sign] : {std::pair<index_t, double>{left(f), 1.0}, {right(f), -1.0}}) {
          if (c < 0) continue;
          for (int k = 0; k < 3; ++k)
            flux[static_cast<size_t>(c)] += sign * (cf(f, k) - xc(c, k)) * n(f, k) / 3.0;
        }
      double worst = 0.0;
      for (index_t c = 0; c < m.n_cells(); ++c) {
        total += v(c);
        worst = std::max(worst, std::abs(flux[static_cast<size_t>(c)] - v(c)) / v(c));
      }
      EXPECT_NEAR(total, 2.0, 2e-12) << kind;
      EXPECT_LE(worst, 1e-12) << kind;
    }
    // Every node moved by a smooth field; two tangent fields as Duals.
    const auto x0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
    const auto moved = [&](double h) {
      Kokkos::View<D**> x("x", m.n_nodes(), 3);
      auto xh = Kokkos::create_mirror_view(x);
      for (index_t i = 0; i < m.n_nodes(); ++i) {
        const double a = x0(i, 0), b = x0(i, 1), c = x0(i, 2);
        const double field[3] = {std::sin(7 * b + 3 * c), std::cos(5 * a - 4 * c), std::sin(6 * a + 5 * b)};
        for (int k = 0; k < 3; ++k) {
          xh(i, k) = D(x0(i, k) + 1e-3 * field[k] + h * std::cos(1.0 + 3 * k + 0.01 * i));
          xh(i, k).der(0) = std::cos(1.0 + 3 * k + 0.01 * i);
          xh(i, k).der(1) = std::sin(2.0 * k + 0.03 * i);
        }
      }
      Kokkos::deep_copy(x, xh);
      return x;
    };
    const GeometryFields<D> gd = compute_geometry(m, moved(0.0));
    const auto vd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.cell_volume);
    const auto nd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.face_normal);
    const auto ad_ = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.face_area);
    std::vector<D> sum(static_cast<size_t>(3 * m.n_cells()));
    std::vector<double> scale(static_cast<size_t>(m.n_cells()), 0.0);
    for (index_t f = 0; f < m.n_faces(); ++f)
      for (const auto& [c, sign] : {std::pair<index_t, double>{left(f), 1.0}, {right(f), -1.0}}) {
        if (c < 0) continue;
        scale[static_cast<size_t>(c)] += ad_(f).val();
        for (int k = 0; k < 3; ++k) sum[static_cast<size_t>(3 * c + k)] += sign * nd(f, k);
      }
    double closure = 0.0, closure_der = 0.0;
    for (index_t c = 0; c < m.n_cells(); ++c) {
      EXPECT_GT(vd(c).val(), 0.0) << kind << " cell " << c;
      for (int k = 0; k < 3; ++k) {
        const D& s3 = sum[static_cast<size_t>(3 * c + k)];
        closure = std::max(closure, std::abs(s3.val()) / scale[static_cast<size_t>(c)]);
        closure_der = std::max(closure_der, std::max(std::abs(s3.der(0)), std::abs(s3.der(1))) /
                                                std::sqrt(scale[static_cast<size_t>(c)]));
      }
    }
    EXPECT_LE(closure, 1e-15) << kind;
    EXPECT_LE(closure_der, 1e-14) << kind;
    // Central differences along tangent field 0: the cell volumes, then
    // the face normals (face by face), of the mesh moved by t.
    const double h = 1e-6;
    const std::vector<double> fd = central_difference(
        [&](double t) {
          const GeometryFields<D> gt = compute_geometry(m, moved(t));
          const auto vt = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gt.cell_volume);
          const auto nt = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gt.face_normal);
          std::vector<double> values;
          for (index_t c = 0; c < m.n_cells(); ++c) values.push_back(vt(c).val());
          for (index_t f = 0; f < m.n_faces(); ++f)
            for (int k = 0; k < 3; ++k) values.push_back(nt(f, k).val());
          return values;
        },
        0.0, h);
    double dmax = 0.0, err = 0.0;
    for (index_t c = 0; c < m.n_cells(); ++c) {
      dmax = std::max(dmax, std::abs(vd(c).der(0)));
      err = std::max(err, std::abs(fd[static_cast<size_t>(c)] - vd(c).der(0)));
    }
    double nmax = 0.0, nerr = 0.0;
    for (index_t f = 0; f < m.n_faces(); ++f)
      for (int k = 0; k < 3; ++k) {
        const double fd_n = fd[static_cast<size_t>(m.n_cells() + 3 * f + k)];
        nmax = std::max(nmax, std::abs(nd(f, k).der(0)));
        nerr = std::max(nerr, std::abs(fd_n - nd(f, k).der(0)));
      }
    std::cout << kind << ": closure " << closure << ", of its derivative " << closure_der
              << "; dV error " << err << " of " << dmax << ", dn error " << nerr << " of " << nmax
              << "\n";
    EXPECT_LE(err, 1e-7 * dmax) << kind;
    EXPECT_LE(nerr, 1e-7 * nmax) << kind;
  }
}

TEST(MeshGeometry, WithCoordinatesFromATensorScalesTheAreas) {
  // Every node coordinate doubled: every cell area exactly 4x (a scaling
  // by a power of two is exact in floating point).
  const Mesh m = rectangle(3, 2, 1.5, 1.0);
  // Tensors are row-major; the mesh's View has the backend's default layout
  // (column-major on a GPU): copy it into a row-major View first.
  Kokkos::View<double**, Kokkos::LayoutRight> rows("coords", m.coords().extent(0),
                                                   m.coords().extent(1));
  Kokkos::deep_copy(rows, m.coords());
  camber::Tensor doubled = camber::Tensor::from_view(rows).clone();
  doubled *= 2.0;
  const Mesh moved = m.with_coordinates(doubled);
  const Geometry g0 = compute_geometry(m), g1 = compute_geometry(moved);
  const auto v0 = camber::Tensor::from_view(g0.cell_volume).to_vector();
  const auto v1 = camber::Tensor::from_view(g1.cell_volume).to_vector();
  ASSERT_EQ(v0.size(), v1.size());
  for (size_t i = 0; i < v0.size(); ++i) EXPECT_EQ(v1[i], 4.0 * v0[i]);
  EXPECT_THROW(m.with_coordinates(camber::Tensor({m.n_nodes(), 3})), camber::Error);
}

TEST(MeshGeometry, WallDistanceOnARectangle) {
  // Distance from cell centroids of a quad mesh to the bottom wall is the
  // centroid's y, exactly the row's mid-height.
  const Mesh m = rectangle(3, 4, 3.0, 2.0);
  const Geometry g = compute_geometry(m);
  const auto d = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                     wall_distance(m, g, {"bottom"}));
  const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_centroid);
  for (index_t k = 0; k < m.n_cells(); ++k) EXPECT_NEAR(d(k), c(k, 1), 1e-15);
  // Two walls: the nearer one.
  const auto d2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                      wall_distance(m, g, {"bottom", "top"}));
  for (index_t k = 0; k < m.n_cells(); ++k) EXPECT_NEAR(d2(k), std::min(c(k, 1), 2.0 - c(k, 1)), 1e-15);
  EXPECT_TRUE(throws_bad_input([&] { (void)wall_distance(m, g, {"wing"}); },
                               {"no marker 'wing'", "'left', 'right', 'bottom', 'top'"}));
}

// The reverse sweep of the geometry (geometry_transpose) against its
// forward derivative: for random bars B of every field and a random node
// displacement V, <B, dGeometry/dx V> (one Dual<double, 1> evaluation of
// compute_geometry) equals <geometry_transpose(B), V>. Both sides are sums
// of O(n) products of O(1) terms, so they agree to round-off: 1e-12 of the
// sum of the terms' magnitudes. Every cell type: triangles and quads
// (jittered rectangles), tetrahedra, pyramids, prisms, hexahedra (SU2's
// bricks); each field alone, then all together.
double geometry_dot_product_error(const Mesh& m, const Kokkos::View<double**>& x, int field) {
  using D1 = ad::Dual<double, 1>;
  const index_t nn = m.n_nodes(), nc = m.n_cells(), nf = m.n_faces();
  const int dim = m.dim();
  const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  Kokkos::View<D1**> xd("xd", nn, dim);
  auto xdh = Kokkos::create_mirror_view(xd);
  std::vector<double> v(static_cast<size_t>(nn * dim));
  for (index_t n = 0; n < nn; ++n)
    for (int d = 0; d < dim; ++d) {
      const double vn = std::sin(1.7 * n + 0.9 * d + 0.3);
      v[static_cast<size_t>(n * dim + d)] = vn;
      xdh(n, d) = D1(xh(n, d));
      xdh(n, d).der(0) = vn;
    }
  Kokkos::deep_copy(xd, xdh);
  const GeometryFields<D1> gd = compute_geometry(m, xd);
  GeometryFields<double> bar;
  double forward = 0.0, scale = 0.0;
  const auto add = [&](double b, const D1& g) {
    forward += b * g.der(0);
    scale += std::abs(b * g.der(0));
  };
  const auto wave = [](index_t r, int k, double a) { return std::cos(a * r + 1.3 * k + 0.2); };
  if (field == 0 || field == 5) {
    bar.cell_volume = Kokkos::View<double*>("vb", nc);
    auto h = Kokkos::create_mirror_view(bar.cell_volume);
    const auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.cell_volume);
    for (index_t c = 0; c < nc; ++c) add(h(c) = wave(c, 0, 0.71), g(c));
    Kokkos::deep_copy(bar.cell_volume, h);
  }
  if (field == 1 || field == 5) {
    bar.cell_centroid = Kokkos::View<double**>("cb", nc, dim);
    auto h = Kokkos::create_mirror_view(bar.cell_centroid);
    const auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.cell_centroid);
    for (index_t c = 0; c < nc; ++c)
      for (int d = 0; d < dim; ++d) add(h(c, d) = wave(c, d, 0.53), g(c, d));
    Kokkos::deep_copy(bar.cell_centroid, h);
  }
  if (field == 2 || field == 5) {
    bar.face_normal = Kokkos::View<double**>("nb", nf, dim);
    auto h = Kokkos::create_mirror_view(bar.face_normal);
    const auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.face_normal);
    for (index_t f = 0; f < nf; ++f)
      for (int d = 0; d < dim; ++d) add(h(f, d) = wave(f, d, 0.37), g(f, d));
    Kokkos::deep_copy(bar.face_normal, h);
  }
  if (field == 3 || field == 5) {
    bar.face_area = Kokkos::View<double*>("ab", nf);
    auto h = Kokkos::create_mirror_view(bar.face_area);
    const auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.face_area);
    for (index_t f = 0; f < nf; ++f) add(h(f) = wave(f, 0, 0.91), g(f));
    Kokkos::deep_copy(bar.face_area, h);
  }
  if (field == 4 || field == 5) {
    bar.face_center = Kokkos::View<double**>("fb", nf, dim);
    auto h = Kokkos::create_mirror_view(bar.face_center);
    const auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gd.face_center);
    for (index_t f = 0; f < nf; ++f)
      for (int d = 0; d < dim; ++d) add(h(f, d) = wave(f, d, 0.29), g(f, d));
    Kokkos::deep_copy(bar.face_center, h);
  }
  const auto xbar =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geometry_transpose(m, x, bar));
  double reverse = 0.0;
  for (index_t n = 0; n < nn; ++n)
    for (int d = 0; d < dim; ++d) reverse += xbar(n, d) * v[static_cast<size_t>(n * dim + d)];
  EXPECT_GT(scale, 0.0);
  return std::abs(forward - reverse) / scale;
}

TEST(MeshGeometry, TheGeometrysTransposePassesTheDotProductTest) {
  for (const CellShape shape : {CellShape::triangles, CellShape::quads}) {
    const Mesh m = rectangle(4, 3, 1.0, 1.0, shape);
    const Kokkos::View<double**> x = jittered(m);
    for (int field = 0; field <= 5; ++field) {
      const double e = geometry_dot_product_error(m, x, field);
      EXPECT_LT(e, 1e-12) << (shape == CellShape::quads ? "quads" : "triangles") << ", field "
                          << field;
    }
  }
  for (const char* kind : {"hex", "prism", "tets", "pyra"}) {
    const std::string path =
        camber::test::shared_mesh(std::string("brick_") + kind + "_ffd_su2_testcases.su2");
    CAMBER_NEED_SHARED_FILE(path);
    const Mesh m = read_su2(path);
    // The bricks' nodes moved off their lattice (warped quads, skewed cells).
    Kokkos::View<double**> x("x", m.n_nodes(), 3);
    auto h = Kokkos::create_mirror_view(x);
    const auto orig = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
    for (index_t n = 0; n < m.n_nodes(); ++n)
      for (int d = 0; d < 3; ++d) h(n, d) = orig(n, d) + 0.01 * std::sin(2.3 * n + 1.1 * d);
    Kokkos::deep_copy(x, h);
    for (int field = 0; field <= 5; ++field) {
      const double e = geometry_dot_product_error(m, x, field);
      EXPECT_LT(e, 1e-12) << kind << ", field " << field;
    }
  }
}

}  // namespace camber_test_mesh
