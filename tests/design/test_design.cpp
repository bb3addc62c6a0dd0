// Shape parametrizations (Hicks-Henne, CST, FFD) and IDW mesh deformation.
//
// Values are checked against closed forms computed here from the node
// coordinates (bump peaks, Bernstein identities, partition of unity, IDW's
// interpolation and anchoring properties). Every map is affine in its
// input, so a central difference has no truncation error at any step: the
// finite-difference checks hold to rounding, and the tangent/adjoint
// dot-product test <J v, w> = <v, J^T w> holds to rounding of the two sums.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <array>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/gradcheck.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/design/airfoil_section.hpp>
#include <camber/design/airfoil_wall.hpp>
#include <camber/design/cst.hpp>
#include <camber/design/ffd.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/linear_map.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/core/error.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/su2_reader.hpp>

#include "tests/common/central_difference.hpp"
#include "tests/shared_data.hpp"

namespace camber_test_design {

namespace ad = camber::ad;
namespace design = camber::design;
namespace mesh = camber::mesh;
using camber::index_t;
using camber::Tensor;

constexpr double pi = 3.14159265358979323846;

// NACA 0012 with a sharp trailing edge at (1, 0): 64 wall nodes, 24 layers,
// far field at 50 chords. Small enough for every test to build its own.
mesh::Mesh ogrid() {
  return mesh::airfoil_ogrid(mesh::naca4("0012", true, 201), 64, 24, 1e-3, 50.0);
}

std::string quickstart_path() {
  return camber::test::shared_mesh("naca0012_inviscid_su2_quickstart.su2");
}

Tensor random_tensor(const camber::Shape& shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(camber::shape_size(shape)));
  for (double& x : v) x = u(rng);
  return Tensor::from_host(shape, v);
}

// Node coordinates on the host, x_i = c[2 i], y_i = c[2 i + 1].
std::vector<double> host_coords(const mesh::Mesh& m) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  std::vector<double> c(static_cast<size_t>(2 * m.n_nodes()));
  for (index_t i = 0; i < m.n_nodes(); ++i) {
    c[static_cast<size_t>(2 * i)] = h(i, 0);
    c[static_cast<size_t>(2 * i + 1)] = h(i, 1);
  }
  return c;
}

// Nodes on the faces of one marker.
std::vector<index_t> marker_nodes(const mesh::Mesh& m, const std::string& name) {
  const auto fo = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_offsets());
  const auto fn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.face_nodes());
  const auto faces =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.markers()[m.marker_index(name)].faces);
  std::vector<index_t> nodes;
  for (size_t f = 0; f < faces.extent(0); ++f)
    for (index_t q = fo(faces(f)); q < fo(faces(f) + 1); ++q) nodes.push_back(fn(q));
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

// Signed area of every cell by the shoelace formula over its edges.
std::vector<double> cell_areas(const mesh::Mesh& m, const std::vector<double>& c) {
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_offsets());
  const auto cn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_nodes());
  std::vector<double> area(static_cast<size_t>(m.n_cells()));
  for (index_t e = 0; e < m.n_cells(); ++e) {
    double twice = 0;
    const index_t b = off(e), n = off(e + 1) - off(e);
    for (index_t k = 0; k < n; ++k) {
      const index_t p = cn(b + k), q = cn(b + (k + 1) % n);
      twice += c[static_cast<size_t>(2 * p)] * c[static_cast<size_t>(2 * q + 1)] -
               c[static_cast<size_t>(2 * q)] * c[static_cast<size_t>(2 * p + 1)];
    }
    area[static_cast<size_t>(e)] = 0.5 * twice;
  }
  return area;
}

bool throws_bad_input(const std::function<void()>& f, const std::vector<std::string>& parts,
                      std::string* message = nullptr) {
  try {
    f();
  } catch (const camber::Error& e) {
    if (message) *message = e.message();
    bool ok = e.kind() == camber::ErrorKind::bad_input;
    for (const std::string& p : parts) {
      const bool has = e.message().find(p) != std::string::npos;
      if (!has) std::cerr << "message lacks '" << p << "': " << e.message() << "\n";
      ok = ok && has;
    }
    return ok;
  }
  return false;
}

// --------------------------------------------------------------- derivatives

// For a Var map f: (gradient of phi = <w, f(a)> from ad::grad) against the
// central difference of phi evaluated on Tensors, and <J v, w> (forward
// mode) against <v, J^T w> (reverse mode).
struct DerivativeErrors {
  double fd_rel = 0;   // max_k |g_k - D_k| / max_k |g_k|
  double dot_rel = 0;  // |<Jv,w> - <v,J^T w>| / max(|<Jv,w>|, |<v,J^T w>|)
};

DerivativeErrors derivative_errors(const ad::VarFunction& f, const Tensor& a0, double step,
                                   std::uint64_t seed) {
  DerivativeErrors e;
  const Tensor y0 = f(ad::constant(a0)).value();
  const Tensor w = random_tensor(y0.shape(), seed);
  const ad::Var a = ad::variable(a0);
  const std::vector<double> g = ad::grad(ad::dot(f(a), ad::constant(w)), {a})[0].value().to_vector();
  const std::vector<double> av = a0.to_vector();
  const std::vector<double> d = camber::test::central_gradient(
      [&](const std::vector<double>& a1) {
        return camber::dot(f(ad::constant(Tensor::from_host(a0.shape(), a1))).value(), w);
      },
      av, step);
  double gmax = 0, err = 0;
  for (size_t k = 0; k < av.size(); ++k) {
    gmax = std::max(gmax, std::abs(g[k]));
    err = std::max(err, std::abs(g[k] - d[k]));
  }
  e.fd_rel = err / gmax;

  const Tensor v = random_tensor(a0.shape(), seed + 1);
  const Tensor jv = ad::jvp(f, ad::constant(a0), ad::constant(v)).tangents[0].value();
  const ad::Var a2 = ad::variable(a0);
  const Tensor jtw = ad::vjp({f(a2)}, {a2}, {ad::constant(w)})[0].value();
  const double lhs = camber::dot(jv, w), rhs = camber::dot(v, jtw);
  e.dot_rel = std::abs(lhs - rhs) / std::max(std::abs(lhs), std::abs(rhs));
  return e;
}

// ---------------------------------------------------------------- the wall

TEST(AirfoilWall, Naca0012OGridChordSidesAndChordwiseCoordinate) {
  const mesh::Mesh m = ogrid();
  const design::AirfoilWall wall(m, {"airfoil"});
  const std::vector<double> c = host_coords(m);
  EXPECT_EQ(wall.nodes(), marker_nodes(m, "airfoil"));
  EXPECT_EQ(wall.n_nodes(), 64);
  EXPECT_TRUE(wall.closed());
  // Trailing edge: the sharp corner at (1, 0); leading edge: the wall node
  // farthest from it.
  EXPECT_NEAR(wall.trailing_edge()[0], 1.0, 1e-12);
  EXPECT_NEAR(wall.trailing_edge()[1], 0.0, 1e-12);
  double far = 0;
  for (index_t node : wall.nodes())
    far = std::max(far, std::hypot(c[2 * node] - 1.0, c[2 * node + 1]));
  EXPECT_NEAR(wall.chord(), far, 1e-12);
  // A symmetric section: the chord is the x axis, upward normal (0, 1).
  EXPECT_NEAR(wall.normal()[0], 0.0, 1e-12);
  EXPECT_NEAR(wall.normal()[1], 1.0, 1e-12);
  for (index_t k = 0; k < wall.n_nodes(); ++k) {
    const index_t node = wall.nodes()[static_cast<size_t>(k)];
    const double x = c[2 * node], y = c[2 * node + 1];
    const double xi = (x - wall.leading_edge()[0]) / wall.chord();
    EXPECT_NEAR(wall.chord_coordinate()[static_cast<size_t>(k)], std::clamp(xi, 0.0, 1.0), 1e-12);
    if (std::abs(y) > 1e-12) {
      EXPECT_EQ(wall.surface()[static_cast<size_t>(k)],
                y > 0 ? design::Surface::upper : design::Surface::lower)
          << "node " << node << " at (" << x << ", " << y << ")";
    }
  }
}

TEST(AirfoilWall, SidesOfACamberedSection) {
  // NACA 4412: the lower surface rises above the chord line aft, so the
  // sides cannot come from the sign of y; they come from the walk around
  // the wall. The upper surface is the one with more y at equal x.
  const mesh::Mesh m = mesh::airfoil_ogrid(mesh::naca4("4412", true, 201), 64, 16, 1e-3, 50.0);
  const design::AirfoilWall wall(m, {"airfoil"});
  const std::vector<double> c = host_coords(m);
  const double yc_max = 0.04;  // camber line y_c <= m = 0.04
  for (index_t k = 0; k < wall.n_nodes(); ++k) {
    const index_t node = wall.nodes()[static_cast<size_t>(k)];
    const double y = c[2 * node + 1];
    if (y > yc_max + 1e-3) {
      EXPECT_EQ(wall.surface()[static_cast<size_t>(k)], design::Surface::upper);
    }
    if (y < -1e-3) {
      EXPECT_EQ(wall.surface()[static_cast<size_t>(k)], design::Surface::lower);
    }
  }
  index_t n_upper = 0;
  for (design::Surface s : wall.surface()) n_upper += s == design::Surface::upper;
  // 64 wall nodes: 31 on each side between LE and TE, plus LE and TE (upper).
  EXPECT_EQ(n_upper, 33);
}

TEST(AirfoilWall, OpenWallWithoutTheBluntBase) {
  // The blunt NACA 0012 O-grid, rebuilt with the trailing-edge base (the
  // wall faces at x = 1) in a marker of its own: the wall is then an open
  // curve whose two free ends are symmetric about the chord, so the
  // trailing edge, their midpoint, is (1, 0).
  const mesh::Mesh blunt = mesh::airfoil_ogrid(mesh::naca4("0012", false, 201), 64, 16, 1e-3, 50.0);
  const std::vector<double> c = host_coords(blunt);
  mesh::MeshData d;
  for (index_t i = 0; i < blunt.n_nodes(); ++i) d.add_node(c[2 * i], c[2 * i + 1]);
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), blunt.cell_offsets());
  const auto cn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), blunt.cell_nodes());
  const auto ct = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), blunt.cell_types());
  for (index_t e = 0; e < blunt.n_cells(); ++e)
    d.add_cell(ct(e), &cn(off(e)), static_cast<int>(off(e + 1) - off(e)));
  const auto fo = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), blunt.face_offsets());
  const auto fn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), blunt.face_nodes());
  const auto wall_faces = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), blunt.markers()[blunt.marker_index("airfoil")].faces);
  mesh::MeshData::Marker& airfoil = d.add_marker("airfoil");
  std::vector<std::array<index_t, 2>> base;
  for (size_t k = 0; k < wall_faces.extent(0); ++k) {
    const index_t a = fn(fo(wall_faces(k))), b = fn(fo(wall_faces(k)) + 1);
    if (c[2 * a] > 1.0 - 1e-9 && c[2 * b] > 1.0 - 1e-9)
      base.push_back({a, b});
    else
      airfoil.add_element({a, b});
  }
  ASSERT_FALSE(base.empty());
  mesh::MeshData::Marker& base_marker = d.add_marker("base");
  for (const auto& f : base) base_marker.add_element({f[0], f[1]});
  const mesh::Mesh m = mesh::Mesh::from_cells(std::move(d));

  const design::AirfoilWall wall(m, {"airfoil"});
  EXPECT_FALSE(wall.closed());
  EXPECT_NEAR(wall.trailing_edge()[0], 1.0, 1e-12);
  EXPECT_NEAR(wall.trailing_edge()[1], 0.0, 1e-12);
  EXPECT_NEAR(wall.normal()[1], 1.0, 1e-12);
  for (index_t k = 0; k < wall.n_nodes(); ++k) {
    const double y = c[static_cast<size_t>(2 * wall.nodes()[static_cast<size_t>(k)] + 1)];
    if (std::abs(y) > 1e-12) {
      EXPECT_EQ(wall.surface()[static_cast<size_t>(k)],
                y > 0 ? design::Surface::upper : design::Surface::lower);
    }
  }
  // With the base an anchor of the deformation, the bumps leave it in place.
  const design::HicksHenne hh(wall, design::evenly_spaced_bumps(3));
  const design::MeshDeformation idw(m, {"airfoil"});
  const std::vector<double> x =
      design::deformed_coordinates(hh, idw, Tensor::full({6}, 0.01)).to_vector();
  for (const auto& f : base)
    for (index_t node : f)
      for (int j = 0; j < 2; ++j) EXPECT_EQ(x[2 * node + j], c[2 * node + j]);
}

TEST(AirfoilWall, QuickStartMesh) {
  const std::string path = quickstart_path();
  CAMBER_NEED_SHARED_FILE(path);
  const mesh::Mesh m = mesh::read_su2(path);
  const design::AirfoilWall wall(m, {"airfoil"});
  const std::vector<double> c = host_coords(m);
  EXPECT_EQ(wall.n_nodes(), 200);  // 200 marker elements on a closed curve
  EXPECT_TRUE(wall.closed());
  // Trailing edge: the wall node of largest x; chord: the largest distance
  // from it; the symmetric section lies along the x axis.
  double x_te = -1e300;
  for (index_t node : wall.nodes()) x_te = std::max(x_te, c[2 * node]);
  double far = 0;
  for (index_t node : wall.nodes())
    far = std::max(far, std::hypot(c[2 * node] - wall.trailing_edge()[0],
                                   c[2 * node + 1] - wall.trailing_edge()[1]));
  EXPECT_EQ(wall.trailing_edge()[0], x_te);
  EXPECT_EQ(wall.chord(), far);
  EXPECT_NEAR(wall.normal()[0], 0.0, 1e-6);
  index_t n_upper = 0, n_positive_y = 0;
  for (index_t k = 0; k < wall.n_nodes(); ++k) {
    const double y = c[static_cast<size_t>(2 * wall.nodes()[static_cast<size_t>(k)] + 1)];
    n_upper += wall.surface()[static_cast<size_t>(k)] == design::Surface::upper;
    n_positive_y += y > 1e-9;
    if (std::abs(y) > 1e-9) {
      EXPECT_EQ(wall.surface()[static_cast<size_t>(k)],
                y > 0 ? design::Surface::upper : design::Surface::lower);
    }
  }
  EXPECT_EQ(n_upper, n_positive_y + 2);  // and LE, TE
}

TEST(AirfoilWall, BadWallsAreInputErrors) {
  const mesh::Mesh m = ogrid();
  EXPECT_TRUE(throws_bad_input([&] { design::AirfoilWall w(m, {"wing"}); },
                               {"no marker 'wing'", "'airfoil'", "'farfield'"}));
  // Two separate curves: four free ends.
  const mesh::Mesh r = mesh::rectangle(4, 4, 1.0, 1.0);
  EXPECT_TRUE(throws_bad_input([&] { design::AirfoilWall w(r, {"bottom", "top"}); },
                               {"4 free ends"}));
}

// ------------------------------------------------------------- Hicks-Henne

TEST(HicksHenne, BumpFunctionPeaksAtItsLocation) {
  for (double xk : {0.1, 0.25, 0.5, 0.8}) {
    EXPECT_NEAR(design::hicks_henne_bump(xk, xk), 1.0, 1e-15);
    EXPECT_EQ(design::hicks_henne_bump(0.0, xk), 0.0);
    EXPECT_EQ(design::hicks_henne_bump(1.0, xk), 0.0);
    // Below 1 elsewhere, rising before the peak and falling after it.
    for (double x : {0.3 * xk, 0.9 * xk}) EXPECT_LT(design::hicks_henne_bump(x, xk), 1.0);
    EXPECT_LT(design::hicks_henne_bump(0.5 * xk, xk), design::hicks_henne_bump(0.9 * xk, xk));
    const double after = xk + 0.5 * (1 - xk);
    EXPECT_LT(design::hicks_henne_bump(after, xk),
              design::hicks_henne_bump(xk + 0.1 * (1 - xk), xk));
  }
  EXPECT_TRUE(throws_bad_input([] { (void)design::hicks_henne_bump(0.5, 1.0); }, {"(0, 1)"}));
}

TEST(HicksHenne, WallDisplacementIsTheBumpSum) {
  const mesh::Mesh m = ogrid();
  const std::vector<double> c = host_coords(m);
  const design::AirfoilWall wall(m, {"airfoil"});
  // One bump with its peak exactly at an upper-surface node: that node
  // moves by the unit normal (0, 1).
  index_t peak_node = -1;
  double xk = 0;
  for (index_t k = 0; k < wall.n_nodes(); ++k) {
    const index_t node = wall.nodes()[static_cast<size_t>(k)];
    if (c[2 * node + 1] > 0 && c[2 * node] > 0.3 && c[2 * node] < 0.5) {
      peak_node = k;
      xk = c[2 * node] / wall.chord();  // LE at the origin
      break;
    }
  }
  ASSERT_GE(peak_node, 0);
  const design::HicksHenne one(m, {"airfoil"}, {{xk, design::Surface::upper}});
  const std::vector<double> d1 = one.displacement(Tensor::full({1}, 1.0)).to_vector();
  EXPECT_NEAR(d1[static_cast<size_t>(2 * peak_node)], 0.0, 1e-15);
  EXPECT_NEAR(d1[static_cast<size_t>(2 * peak_node + 1)], 1.0, 1e-14);
  for (double v : d1) EXPECT_LE(v, 1.0 + 1e-14);

  // Twelve bumps with amplitudes a_k: dy_i = sum over the bumps of node i's
  // side of a_k sin^3(pi x_i^(ln 0.5 / ln x_k)), dx_i = 0.
  const std::vector<design::HicksHenneBump> bumps = design::evenly_spaced_bumps(6);
  const design::HicksHenne hh(m, {"airfoil"}, bumps);
  ASSERT_EQ(hh.n_design(), 12);
  const Tensor a = random_tensor({12}, 3);
  const std::vector<double> av = a.to_vector(), d = hh.displacement(a).to_vector();
  for (index_t k = 0; k < wall.n_nodes(); ++k) {
    const index_t node = wall.nodes()[static_cast<size_t>(k)];
    const double x = c[2 * node], y = c[2 * node + 1];
    double dy = 0;
    for (size_t b = 0; b < bumps.size(); ++b) {
      const bool upper = bumps[b].surface == design::Surface::upper;
      if (x <= 0 || x >= 1 || (upper ? y < 0 : y >= 0)) continue;
      if (y == 0 && !upper) continue;
      const double s = std::sin(pi * std::pow(x, std::log(0.5) / std::log(bumps[b].peak)));
      dy += av[b] * s * s * s;
    }
    EXPECT_NEAR(d[static_cast<size_t>(2 * k)], 0.0, 1e-15);
    EXPECT_NEAR(d[static_cast<size_t>(2 * k + 1)], dy, 1e-14) << "wall node " << k;
  }
}

// --------------------------------------------------------------------- CST

TEST(Cst, BernsteinIdentitiesGiveClosedForms) {
  const mesh::Mesh m = ogrid();
  const std::vector<double> c = host_coords(m);
  design::CstOptions opt;
  opt.order = 5;
  opt.trailing_edge_thickness = true;
  const design::Cst cst(m, {"airfoil"}, opt);
  ASSERT_EQ(cst.n_design(), 14);
  // Upper: all a_i = 1 (sum_i B_i = 1)        -> dy = sqrt(x) (1 - x);
  // lower: a_i = i / n (sum_i i/n B_i = x)    -> dy = x^1.5 (1 - x);
  // trailing-edge term on the lower surface   -> + 0.25 x.
  std::vector<double> a(14, 0.0);
  for (int i = 0; i <= 5; ++i) {
    a[static_cast<size_t>(cst.coefficient_index(design::Surface::upper, i))] = 1.0;
    a[static_cast<size_t>(cst.coefficient_index(design::Surface::lower, i))] = i / 5.0;
  }
  a[static_cast<size_t>(cst.trailing_edge_index(design::Surface::lower))] = 0.25;
  const std::vector<double> d = cst.displacement(Tensor::from_host({14}, a)).to_vector();
  const design::AirfoilWall& wall = cst.wall();
  for (index_t k = 0; k < wall.n_nodes(); ++k) {
    const index_t node = wall.nodes()[static_cast<size_t>(k)];
    const double x = std::clamp(c[2 * node] / wall.chord(), 0.0, 1.0), y = c[2 * node + 1];
    if (std::abs(y) < 1e-12) continue;  // LE and TE: C = 0 and the TE term is the upper's
    const double dy = y > 0 ? std::sqrt(x) * (1 - x) : std::pow(x, 1.5) * (1 - x) + 0.25 * x;
    EXPECT_NEAR(d[static_cast<size_t>(2 * k)], 0.0, 1e-15);
    EXPECT_NEAR(d[static_cast<size_t>(2 * k + 1)], dy, 1e-14) << "wall node " << k;
  }
  EXPECT_NEAR(design::cst_class_function(0.25), 0.5 * 0.75, 1e-16);
}

// --------------------------------------------------------------------- FFD

TEST(FreeFormDeformation, ZeroUniformAndLinearControlPointShifts) {
  const mesh::Mesh m = ogrid();
  const std::vector<double> c = host_coords(m);
  design::FfdOptions opt;
  opt.degree_x = 5;
  opt.degree_y = 2;
  opt.move_x = true;
  const design::FreeFormDeformation ffd(m, {"airfoil"}, opt);
  const index_t n_cp = ffd.n_control_points();
  ASSERT_EQ(n_cp, 18);
  ASSERT_EQ(ffd.n_design(), 36);
  const design::AirfoilWall& wall = ffd.wall();
  const design::FfdBox box = ffd.box();

  // Zero design: zero displacement.
  EXPECT_EQ(ffd.displacement(Tensor::zeros({36})).max_abs(), 0.0);

  // Every control point moved by (0.02, -0.03): every point moves by it.
  std::vector<double> a(36);
  for (index_t k = 0; k < n_cp; ++k) {
    a[static_cast<size_t>(k)] = -0.03;
    a[static_cast<size_t>(n_cp + k)] = 0.02;
  }
  const std::vector<double> d = ffd.displacement(Tensor::from_host({36}, a)).to_vector();
  for (index_t k = 0; k < wall.n_nodes(); ++k) {
    EXPECT_NEAR(d[static_cast<size_t>(2 * k)], 0.02, 1e-15);
    EXPECT_NEAR(d[static_cast<size_t>(2 * k + 1)], -0.03, 1e-15);
  }
  // Any point inside the box too; points outside do not move.
  const Tensor pts = Tensor::from_host({3, 2}, {0.5 * (box.x_min + box.x_max), box.y_min,
                                                box.x_max, 0.5 * (box.y_min + box.y_max),
                                                box.x_max + 1.0, 0.0});
  const std::vector<double> q = ffd.displacement_at(pts, Tensor::from_host({36}, a)).to_vector();
  EXPECT_NEAR(q[0], 0.02, 1e-15);
  EXPECT_NEAR(q[1], -0.03, 1e-15);
  EXPECT_NEAR(q[2], 0.02, 1e-15);
  EXPECT_NEAR(q[3], -0.03, 1e-15);
  EXPECT_EQ(q[4], 0.0);
  EXPECT_EQ(q[5], 0.0);

  // Linear precision: control point (i, j) moved up by i / l moves a point
  // up by its local coordinate s = (x - x_min) / (x_max - x_min); moved
  // right by j / m, right by t = (y - y_min) / (y_max - y_min).
  for (int i = 0; i <= 5; ++i)
    for (int j = 0; j <= 2; ++j) {
      a[static_cast<size_t>(i * 3 + j)] = i / 5.0;
      a[static_cast<size_t>(n_cp + i * 3 + j)] = j / 2.0;
    }
  const std::vector<double> dl = ffd.displacement(Tensor::from_host({36}, a)).to_vector();
  for (index_t k = 0; k < wall.n_nodes(); ++k) {
    const index_t node = wall.nodes()[static_cast<size_t>(k)];
    const double s = (c[2 * node] - box.x_min) / (box.x_max - box.x_min);
    const double t = (c[2 * node + 1] - box.y_min) / (box.y_max - box.y_min);
    EXPECT_NEAR(dl[static_cast<size_t>(2 * k)], t, 1e-14);
    EXPECT_NEAR(dl[static_cast<size_t>(2 * k + 1)], s, 1e-14);
  }
  // The default box: the wall's bounding box grown by 0.05 chords.
  EXPECT_NEAR(box.x_max, 1.0 + 0.05 * wall.chord(), 1e-12);
}

TEST(FreeFormDeformation, ABoxThatMissesTheWallIsAnInputError) {
  const mesh::Mesh m = ogrid();
  design::FfdOptions opt;
  opt.box = {0.0, 0.5, -0.1, 0.1};
  EXPECT_TRUE(throws_bad_input([&] { design::FreeFormDeformation f(m, {"airfoil"}, opt); },
                               {"does not contain the wall"}));
}

// -------------------------------------------------------------------- IDW

TEST(MeshDeformation, WallMovesExactlyFarFieldStaysNearWallMovesRigidly) {
  const mesh::Mesh m = ogrid();
  const std::vector<double> c = host_coords(m);
  const design::MeshDeformation idw(m, {"airfoil"});
  const std::vector<index_t> wall = marker_nodes(m, "airfoil");
  const std::vector<index_t> far = marker_nodes(m, "farfield");
  EXPECT_EQ(idw.wall_nodes(), wall);
  EXPECT_EQ(idw.n_anchors(), static_cast<index_t>(far.size()));

  // Any wall displacement: wall nodes move by exactly it, far field not.
  const Tensor d = random_tensor({idw.n_wall(), 2}, 11);
  const std::vector<double> dv = d.to_vector(), x = idw.coordinates(d).to_vector();
  for (size_t k = 0; k < wall.size(); ++k)
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(x[2 * wall[k] + j], c[2 * wall[k] + j] + dv[2 * k + j]);
  for (index_t node : far)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(x[2 * node + j], c[2 * node + j]);

  // Rigid translation t of the wall: u_i = f_i t with
  //   1 - f_i = A / (W + A) <= A / W <= n_anchor (r_wall / r_anchor)^p,
  // W >= 1 / r_wall^p the wall weights, A <= n_anchor / r_anchor^p the
  // anchor weights (r_*: distance to the nearest such node).
  const double tx = 0.01, ty = -0.02, p = idw.options().exponent;
  std::vector<double> t(static_cast<size_t>(2 * idw.n_wall()));
  for (index_t k = 0; k < idw.n_wall(); ++k) {
    t[static_cast<size_t>(2 * k)] = tx;
    t[static_cast<size_t>(2 * k + 1)] = ty;
  }
  const std::vector<double> u = idw.displacement(Tensor::from_host({idw.n_wall(), 2}, t)).to_vector();
  int n_near = 0;
  for (index_t i = 0; i < m.n_nodes(); ++i) {
    auto nearest = [&](const std::vector<index_t>& set) {
      double r = 1e300;
      for (index_t s : set) r = std::min(r, std::hypot(c[2 * i] - c[2 * s], c[2 * i + 1] - c[2 * s + 1]));
      return r;
    };
    const double rw = nearest(wall), ra = nearest(far);
    const double ux = u[static_cast<size_t>(2 * i)], uy = u[static_cast<size_t>(2 * i + 1)];
    // Parallel to t, with 0 <= f <= 1.
    EXPECT_NEAR(ux * ty - uy * tx, 0.0, 1e-17);
    const double f = (ux * tx + uy * ty) / (tx * tx + ty * ty);
    EXPECT_GE(f, -1e-15);
    EXPECT_LE(f, 1.0 + 1e-15);
    if (rw > 0 && ra > 0) {
      const double bound = static_cast<double>(far.size()) * std::pow(rw / ra, p);
      EXPECT_LE(1.0 - f, bound * (1 + 1e-12) + 1e-15) << "node " << i;
      if (rw < 0.05) {
        ++n_near;
        EXPECT_LT(bound, 1e-6);  // so near-wall cells translate to 1e-6 relative
      }
    }
  }
  EXPECT_GT(n_near, 64);
}

TEST(MeshDeformation, QuickStartMeshWallFarFieldAndTiming) {
  const std::string path = quickstart_path();
  CAMBER_NEED_SHARED_FILE(path);
  const mesh::Mesh m = mesh::read_su2(path);
  const std::vector<double> c = host_coords(m);
  const std::vector<index_t> wall = marker_nodes(m, "airfoil");
  const std::vector<index_t> far = marker_nodes(m, "farfield");

  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const design::MeshDeformation idw(m, {"airfoil"}, {5.0});
  const auto t1 = clock::now();
  const Tensor d = random_tensor({idw.n_wall(), 2}, 5);
  const Tensor x = idw.coordinates(d);
  const auto t2 = clock::now();
  const Tensor g = idw.map()->apply_transpose(random_tensor({m.n_nodes(), 2}, 6));
  const auto t3 = clock::now();
  auto ms = [](clock::duration dt) { return std::chrono::duration<double, std::milli>(dt).count(); };
  std::cout << "IDW on the QuickStart mesh (" << m.n_nodes() << " nodes, " << idw.n_wall()
            << " wall, " << idw.n_anchors() << " anchors): setup " << ms(t1 - t0)
            << " ms, apply " << ms(t2 - t1) << " ms, transpose " << ms(t3 - t2) << " ms\n";

  EXPECT_EQ(idw.wall_nodes(), wall);
  const std::vector<double> dv = d.to_vector(), xv = x.to_vector();
  for (size_t k = 0; k < wall.size(); ++k)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(xv[2 * wall[k] + j], c[2 * wall[k] + j] + dv[2 * k + j]);
  for (index_t node : far)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(xv[2 * node + j], c[2 * node + j]);
  EXPECT_NO_THROW(design::check_cell_volumes(m, idw.initial_coordinates()));
}

// ------------------------------------------------------- inverted cells

TEST(CheckCellVolumes, AnOverLargeBumpNamesTheFirstInvertedCell) {
  const mesh::Mesh m = ogrid();
  const design::HicksHenne hh(m, {"airfoil"}, {{0.9, design::Surface::upper}});
  const design::MeshDeformation idw(m, {"airfoil"});
  // The baseline and a small bump are valid.
  EXPECT_NO_THROW(design::check_cell_volumes(m, idw.initial_coordinates()));
  EXPECT_NO_THROW(design::check_cell_volumes(
      m, design::deformed_coordinates(hh, idw, Tensor::full({1}, 0.002))));
  // Half a chord up near the trailing edge folds the cells there.
  const Tensor x = design::deformed_coordinates(hh, idw, Tensor::full({1}, 0.5));
  const std::vector<double> xv = x.to_vector();
  const std::vector<double> area = cell_areas(m, xv);
  index_t first = -1;
  for (index_t e = 0; e < m.n_cells() && first < 0; ++e)
    if (!(area[static_cast<size_t>(e)] > 0)) first = e;
  ASSERT_GE(first, 0) << "the test's bump does not invert a cell";
  // Its vertex centroid, as the message prints it.
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_offsets());
  const auto cn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.cell_nodes());
  double cx = 0, cy = 0;
  const index_t n = off(first + 1) - off(first);
  for (index_t k = 0; k < n; ++k) {
    cx += xv[static_cast<size_t>(2 * cn(off(first) + k))] / static_cast<double>(n);
    cy += xv[static_cast<size_t>(2 * cn(off(first) + k) + 1)] / static_cast<double>(n);
  }
  std::ostringstream where;
  where << "(" << cx << ", " << cy << ")";
  std::string message;
  EXPECT_TRUE(throws_bad_input([&] { design::check_cell_volumes(m, x); },
                               {"cell " + std::to_string(first) + " (quad)", where.str(), "<= 0"},
                               &message));
  std::cout << "the message: " << message << "\n";
}

// ------------------------------------------------------------ derivatives

// Each parametrization composed with the IDW deformation, on the O-grid:
// design vector (>= 12 variables) -> node coordinates.
void expect_derivatives(const design::ShapeParametrization& shape, const mesh::Mesh& m,
                        std::uint64_t seed, const design::DeformationOptions& options = {}) {
  const design::MeshDeformation idw(m, {"airfoil"}, options);
  const ad::VarFunction f = [&](const ad::Var& a) {
    return design::deformed_coordinates(shape, idw, a);
  };
  const Tensor a0 = camber::scale(random_tensor({shape.n_design()}, seed), 1e-3);
  ASSERT_GE(shape.n_design(), 10);
  // Affine map: the difference quotient is exact but for rounding, of
  // order eps * sum|w x| / h; h = 0.1 keeps that below 1e-10.
  const DerivativeErrors e = derivative_errors(f, a0, 0.1, seed);
  EXPECT_LT(e.fd_rel, 1e-8);
  EXPECT_LT(e.dot_rel, 1e-12);
  // The parametrization alone, and the gradient checker's first- and
  // second-order checks (the VJP's VJP goes through the map again).
  const DerivativeErrors es =
      derivative_errors([&](const ad::Var& a) { return shape.displacement(a); }, a0, 0.1, seed);
  EXPECT_LT(es.fd_rel, 1e-8);
  EXPECT_LT(es.dot_rel, 1e-12);
  const ad::GradCheckResult r =
      ad::check_all([&](const ad::Vars& in) { return f(in[0]); }, {a0});
  EXPECT_TRUE(r.ok) << r.report();
  std::cout << "derivative errors: composed fd " << e.fd_rel << ", dot " << e.dot_rel
            << "; parametrization fd " << es.fd_rel << ", dot " << es.dot_rel << "\n";
}

TEST(Derivatives, HicksHenneThroughIdw) {
  const mesh::Mesh m = ogrid();
  expect_derivatives(design::HicksHenne(m, {"airfoil"}, design::evenly_spaced_bumps(6)), m, 21);
}

TEST(Derivatives, CstThroughIdw) {
  const mesh::Mesh m = ogrid();
  design::CstOptions opt;
  opt.order = 5;
  opt.trailing_edge_thickness = true;
  expect_derivatives(design::Cst(m, {"airfoil"}, opt), m, 22);
}

TEST(Derivatives, FfdThroughIdw) {
  const mesh::Mesh m = ogrid();
  design::FfdOptions opt;
  opt.degree_x = 5;
  opt.degree_y = 1;
  opt.move_x = true;  // 24 variables
  expect_derivatives(design::FreeFormDeformation(m, {"airfoil"}, opt), m, 23);
}

TEST(Derivatives, HicksHenneThroughRbf) {
  const mesh::Mesh m = ogrid();
  design::DeformationOptions rbf;
  rbf.method = design::DeformationMethod::rbf;
  expect_derivatives(design::HicksHenne(m, {"airfoil"}, design::evenly_spaced_bumps(6)), m, 24,
                     rbf);
}

// RBF deformation: the wall nodes move exactly by the wall displacement,
// the other boundary nodes not at all, nodes farther than the support from
// every source stay put; a rigid translation of the wall moves the nodes
// near it almost rigidly; a large bump (0.04 chord) that folds cells of
// IDW (p = 3) does not fold the RBF mesh, or the reverse is reported.
TEST(MeshDeformation, RbfInterpolatesTheWallAndKeepsTheFarField) {
  const mesh::Mesh m = ogrid();
  design::DeformationOptions o;
  o.method = design::DeformationMethod::rbf;
  o.rbf_support = 2.0;
  const design::MeshDeformation rbf(m, {"airfoil"}, o);
  const index_t nw = rbf.n_wall();
  std::vector<double> d(static_cast<size_t>(2 * nw));
  for (index_t j = 0; j < nw; ++j) {
    d[static_cast<size_t>(2 * j)] = 1e-3 * std::sin(0.3 * j);
    d[static_cast<size_t>(2 * j + 1)] = 2e-3 * std::cos(0.7 * j);
  }
  const auto u = rbf.displacement(Tensor::from_host({nw, 2}, d)).host();
  const auto x0 = rbf.initial_coordinates().host();
  std::vector<int> is_wall(static_cast<size_t>(m.n_nodes()), -1);
  for (index_t j = 0; j < nw; ++j) is_wall[static_cast<size_t>(rbf.wall_nodes()[static_cast<size_t>(j)])] = static_cast<int>(j);
  int far = 0;
  for (index_t i = 0; i < m.n_nodes(); ++i) {
    const int j = is_wall[static_cast<size_t>(i)];
    if (j >= 0) {
      EXPECT_EQ(u(2 * i), d[static_cast<size_t>(2 * j)]);
      EXPECT_EQ(u(2 * i + 1), d[static_cast<size_t>(2 * j + 1)]);
      continue;
    }
    // The O-grid's chord is 1 (support 2 chords): beyond 3 from mid-chord
    // every wall node is more than 2 away.
    if (std::hypot(x0(2 * i) - 0.5, x0(2 * i + 1)) > 3.0) {
      ++far;
      EXPECT_EQ(u(2 * i), 0.0);
      EXPECT_EQ(u(2 * i + 1), 0.0);
    }
  }
  EXPECT_GT(far, 0);
  // A rigid translation: within 0.02 chords of the wall every node moves by
  // the translation to 5% of it.
  const std::vector<double> shift = [&] {
    std::vector<double> t(static_cast<size_t>(2 * nw));
    for (index_t j = 0; j < nw; ++j) t[static_cast<size_t>(2 * j)] = 1e-3, t[static_cast<size_t>(2 * j + 1)] = -2e-3;
    return t;
  }();
  const auto ut = rbf.displacement(Tensor::from_host({nw, 2}, shift)).host();
  int near = 0;
  for (index_t i = 0; i < m.n_nodes(); ++i) {
    double dist = 1e300;
    for (index_t w : rbf.wall_nodes())
      dist = std::min(dist, std::hypot(x0(2 * i) - x0(2 * w), x0(2 * i + 1) - x0(2 * w + 1)));
    if (dist > 0.02) continue;
    ++near;
    EXPECT_NEAR(ut(2 * i), 1e-3, 5e-5) << i;
    EXPECT_NEAR(ut(2 * i + 1), -2e-3, 1e-4) << i;
  }
  EXPECT_GT(near, nw);
  o.rbf_support = 0.0;
  EXPECT_THROW(design::MeshDeformation(m, {"airfoil"}, o), camber::Error);
}

// A deformation of some rows only (one rank's nodes in a distributed
// design loop) is the whole map's rows, for IDW and RBF: the displacement
// at each row equals the whole map's at that node bit for bit (the same
// arithmetic), and the transposes of two overlapping row sets, each given
// its share of a node cotangent (a node in both sets split between them),
// sum to the whole map's transpose (1e-14 relative: the sums run in
// another order).
TEST(MeshDeformation, RowsAreTheWholeMapsRowsAndTheirTransposesSum) {
  const mesh::Mesh m = ogrid();
  const index_t n = m.n_nodes();
  // Rows: every node below 60% of the count, and every third node above
  // 40% (so both sets hold the nodes of [0.4 n, 0.6 n) divisible by 3),
  // in a shuffled order.
  std::vector<std::int64_t> a, b;
  for (index_t i = 0; i < n; ++i) {
    if (i < 6 * n / 10) a.push_back(i);
    if (i >= 4 * n / 10 && (i % 3 == 0 || i >= 6 * n / 10)) b.push_back(i);
  }
  std::reverse(a.begin(), a.end());
  std::rotate(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(b.size() / 3), b.end());
  for (const design::DeformationMethod method :
       {design::DeformationMethod::idw, design::DeformationMethod::rbf}) {
    design::DeformationOptions o;
    o.method = method;
    const design::MeshDeformation whole(m, {"airfoil"}, o), da(m, {"airfoil"}, o, a),
        db(m, {"airfoil"}, o, b);
    ASSERT_EQ(da.n_nodes(), static_cast<index_t>(a.size()));
    EXPECT_EQ(da.n_mesh_nodes(), n);
    EXPECT_EQ(da.wall_nodes(), whole.wall_nodes());
    const Tensor d = random_tensor({whole.n_wall(), 2}, 21);
    const Tensor xt = whole.coordinates(d);  // (a Tensor's host() may alias it)
    const auto x = xt.host();
    for (const auto* part : {&da, &db}) {
      const Tensor xpt = part->coordinates(d);
      const auto xp = xpt.host();
      for (size_t r = 0; r < part->rows().size(); ++r)
        for (index_t c = 0; c < 2; ++c)
          EXPECT_EQ(xp(static_cast<index_t>(2 * r) + c), x(part->rows()[r] * 2 + c))
              << (method == design::DeformationMethod::rbf ? "rbf" : "idw") << " row " << r;
    }
    // Shares of a node cotangent g: nodes in both sets split 0.3 / 0.7.
    const Tensor gt = random_tensor({n, 2}, 22);
    const auto g = gt.host();
    std::vector<int> in_a(static_cast<size_t>(n), 0), in_b(static_cast<size_t>(n), 0);
    for (std::int64_t i : a) in_a[static_cast<size_t>(i)] = 1;
    for (std::int64_t i : b) in_b[static_cast<size_t>(i)] = 1;
    const auto share = [&](const std::vector<std::int64_t>& rows, bool first) {
      std::vector<double> s(rows.size() * 2);
      for (size_t r = 0; r < rows.size(); ++r) {
        const size_t i = static_cast<size_t>(rows[r]);
        const double f = in_a[i] && in_b[i] ? (first ? 0.3 : 0.7) : 1.0;
        for (index_t c = 0; c < 2; ++c) s[2 * r + static_cast<size_t>(c)] = f * g(rows[r] * 2 + c);
      }
      return Tensor::from_host({static_cast<index_t>(rows.size()), 2}, s);
    };
    const Tensor gat = da.map()->apply_transpose(share(a, true));
    const Tensor gbt = db.map()->apply_transpose(share(b, false));
    const Tensor gwt = whole.map()->apply_transpose(gt);
    const auto ga = gat.host(), gb = gbt.host(), gw = gwt.host();
    double scale = 0.0, diff = 0.0;
    for (index_t k = 0; k < 2 * whole.n_wall(); ++k) {
      scale = std::max(scale, std::abs(gw(k)));
      diff = std::max(diff, std::abs(ga(k) + gb(k) - gw(k)));
    }
    EXPECT_LE(diff, 1e-14 * scale) << (method == design::DeformationMethod::rbf ? "rbf" : "idw");
  }
  EXPECT_THROW(design::MeshDeformation(m, {"airfoil"}, {}, {n}), camber::Error);
}

TEST(Derivatives, IdwWallDisplacementOnTheQuickStartMesh) {
  const std::string path = quickstart_path();
  CAMBER_NEED_SHARED_FILE(path);
  const mesh::Mesh m = mesh::read_su2(path);
  const design::MeshDeformation idw(m, {"airfoil"});
  const design::HicksHenne hh(m, {"airfoil"}, design::evenly_spaced_bumps(5));
  // A valid 5 mm-per-chord design, and its derivatives.
  const Tensor a0 = camber::scale(random_tensor({10}, 31), 5e-3);
  EXPECT_NO_THROW(design::check_cell_volumes(m, design::deformed_coordinates(hh, idw, a0)));
  const DerivativeErrors e = derivative_errors(
      [&](const ad::Var& a) { return design::deformed_coordinates(hh, idw, a); }, a0, 0.1, 32);
  EXPECT_LT(e.fd_rel, 1e-8);
  EXPECT_LT(e.dot_rel, 1e-12);
  // The IDW map alone: <L v, w> = <v, L^T w> over all wall displacements.
  const Tensor v = random_tensor({idw.n_wall(), 2}, 33);
  const Tensor w = random_tensor({idw.n_nodes(), 2}, 34);
  const double lhs = camber::dot(idw.displacement(v), w);
  const double rhs = camber::dot(v, idw.map()->apply_transpose(w));
  EXPECT_LT(std::abs(lhs - rhs), 1e-12 * std::abs(lhs));
  std::cout << "QuickStart derivative errors: fd " << e.fd_rel << ", dot " << e.dot_rel
            << ", IDW dot " << std::abs(lhs - rhs) / std::abs(lhs) << "\n";
}

// The checks above can fail: a map whose transpose is off by 1e-6 (relative)
// fails both the finite-difference and the dot-product test.
class SlightlyWrongTranspose final : public design::LinearMap {
 public:
  explicit SlightlyWrongTranspose(std::shared_ptr<const design::LinearMap> m) : m_(std::move(m)) {}
  camber::Shape input_shape() const override { return m_->input_shape(); }
  camber::Shape output_shape() const override { return m_->output_shape(); }
  Tensor apply(const Tensor& x) const override { return m_->apply(x); }
  Tensor apply_transpose(const Tensor& y) const override {
    return camber::scale(m_->apply_transpose(y), 1.0 + 1e-6);
  }
  std::string name() const override { return "slightly_wrong"; }

 private:
  std::shared_ptr<const design::LinearMap> m_;
};

TEST(Derivatives, TheChecksCatchAWrongTranspose) {
  const mesh::Mesh m = ogrid();
  const design::HicksHenne hh(m, {"airfoil"}, design::evenly_spaced_bumps(6));
  const auto wrong = std::make_shared<const SlightlyWrongTranspose>(hh.map());
  const DerivativeErrors e = derivative_errors(
      [&](const ad::Var& a) { return design::apply_linear(wrong, a); }, Tensor::zeros({12}), 0.1, 41);
  EXPECT_GT(e.fd_rel, 1e-8);
  EXPECT_GT(e.dot_rel, 1e-12);
}

TEST(Derivatives, MismatchedWallsAreAnError) {
  const mesh::Mesh m = ogrid();
  const mesh::Mesh other = mesh::airfoil_ogrid(mesh::naca4("0012", true, 201), 32, 8, 1e-3, 50.0);
  const design::HicksHenne hh(m, {"airfoil"}, design::evenly_spaced_bumps(2));
  const design::MeshDeformation idw(other, {"airfoil"});
  EXPECT_THROW((void)design::deformed_coordinates(hh, idw, Tensor::zeros({4})), camber::Error);
}

// The thickness at the stations of a NACA 0012 O-grid (sharp trailing
// edge) against the closed form 2 y_t(x): the wall nodes lie on the
// section and the stations interpolate linearly between them, so the
// difference is the chord error of the curve, O(h^2): doubling the wall
// nodes (128 to 256) divides the largest difference on 5-95% chord by
// about 4 (at least 3 asserted), and at 256 it is below 5e-5.
TEST(ThicknessStations, Naca0012ConvergesToTheClosedFormAtSecondOrder) {
  double worst[2] = {0.0, 0.0};
  for (int level : {0, 1}) {
    const mesh::Mesh m =
        mesh::airfoil_ogrid(mesh::naca4("0012", true, 801), 128 << level, 16, 1e-3, 50.0);
    const design::AirfoilWall wall(m, {"airfoil"});
    const design::ThicknessStations stations(wall);
    ASSERT_EQ(stations.size(), 49u);
    const std::vector<double> t = stations(wall.coordinates());
    for (size_t s = 0; s < t.size(); ++s) {
      const double x = stations.stations()[s];
      if (x < 0.05 || x > 0.95) continue;
      worst[level] = std::max(worst[level], std::abs(t[s] - 2.0 * mesh::naca4_half_thickness(x, 0.12, true)));
    }
    if (level == 1) {
      EXPECT_NEAR(*std::max_element(t.begin(), t.end()), 0.12, 1e-4);
    }
  }
  std::cout << "[thickness stations] largest |t - 2 y_t| on 5-95% chord: " << worst[0]
            << " (128 wall nodes), " << worst[1] << " (256), ratio " << worst[0] / worst[1] << "\n";
  EXPECT_GT(worst[0] / worst[1], 3.0);
  EXPECT_LT(worst[1], 5e-5);
}

// t(a) = t0 + T a exactly for the bumps (they move the wall normal to the
// chord): the linear map equals the stations measured on the moved wall.
TEST(ThicknessStations, LinearInTheDesignForHicksHenne) {
  const mesh::Mesh m = ogrid();
  const design::HicksHenne hh(m, {"airfoil"}, design::evenly_spaced_bumps(6));
  const design::ThicknessStations stations(hh.wall());
  const design::LinearThickness linear(stations, hh);
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> u(-0.01, 0.01);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<double> a(static_cast<size_t>(hh.n_design()));
    for (double& x : a) x = u(gen);
    const std::vector<double> direct = stations(hh.wall_coordinates(Tensor::from_host({hh.n_design()}, a)));
    const std::vector<double> lin = linear(a);
    for (size_t s = 0; s < direct.size(); ++s) EXPECT_NEAR(lin[s], direct[s], 1e-14) << s;
  }
}

// The shoelace area of a NACA 0012 O-grid's wall (sharp trailing edge)
// against the closed form 2 int_0^1 y_t dx = 10 t (0.2969 (2/3) - 0.1260/2
// - 0.3516/3 + 0.2843/4 - 0.1036/5): the polygon's chord error is O(h^2),
// so doubling the wall nodes (128 to 256) divides the difference by about 4
// (at least 3 asserted); and its gradient in the coordinates (n_wall, 2)
// against central differences (exact: A is quadratic), 1e-10.
TEST(SectionArea, Naca0012ConvergesToTheClosedFormAndItsGradientIsExact) {
  const double exact =
      10.0 * 0.12 * (0.2969 * 2.0 / 3.0 - 0.1260 / 2.0 - 0.3516 / 3.0 + 0.2843 / 4.0 - 0.1036 / 5.0);
  double error[2] = {0.0, 0.0};
  for (int level : {0, 1}) {
    const mesh::Mesh m =
        mesh::airfoil_ogrid(mesh::naca4("0012", true, 801), 128 << level, 16, 1e-3, 50.0);
    const design::AirfoilWall wall(m, {"airfoil"});
    Tensor g;
    const Tensor X = wall.coordinates();
    const double area = design::section_area(wall, X, &g);
    error[level] = std::abs(area - exact);
    if (level == 1) continue;
    const auto gh = g.host();
    std::vector<double> x = X.to_vector();
    const double h = 1e-6;
    const auto area_of = [&](const std::vector<double>& y) {
      return design::section_area(wall, Tensor::from_host(X.shape(), y));
    };
    for (size_t i = 0; i < x.size(); i += 7)
      EXPECT_NEAR(gh(static_cast<index_t>(i)), camber::test::central_partial(area_of, x, i, h), 1e-10) << i;
  }
  std::cout << "[section area] closed form " << exact << "; |A - closed form| " << error[0]
            << " (128 wall nodes), " << error[1] << " (256), ratio " << error[0] / error[1] << "\n";
  EXPECT_GT(error[0] / error[1], 3.0);
  EXPECT_LT(error[1] / exact, 1e-3);
}

// The leading-edge radius on an ellipse of semi-axes 0.5 and b = 0.06
// (nose radius 2 b^2 = 0.0072): the circle through the nose (0, 0) and
// the ellipse's points (x, +-y) has radius R(x) = 2 b^2 + x (1/2 - 2 b^2)
// exactly (y^2 = 4 b^2 (x - x^2)). The wall nodes of an O-grid around a
// 4,001-point polygon of the ellipse lie on it to about 1e-8; R is checked
// against R(x) at the probe nodes' chord coordinate, and its gradient
// against central differences of R at every node it moves.
TEST(LeadingEdgeRadius, EllipseGivesTheClosedFormAndItsGradientIsExact) {
  const double b = 0.06;
  mesh::AirfoilSurface ellipse;
  ellipse.name = "ellipse";
  const int half = 2000;
  for (int i = -half; i <= half; ++i) {  // Selig order: upper TE -> LE -> lower TE
    const double theta = M_PI * std::abs(i) / half;
    const double x = 0.5 + 0.5 * std::cos(theta);
    ellipse.x.push_back(x);
    ellipse.y.push_back((i < 0 ? 1.0 : -1.0) * b * std::sin(theta));
  }
  const mesh::Mesh m = mesh::airfoil_ogrid(ellipse, 256, 8, 1e-3, 20.0);
  const design::AirfoilWall wall(m, {"airfoil"});
  const Tensor X = wall.coordinates();
  Tensor g;
  for (const double probe : {0.005, 0.02}) {
    const double r = design::leading_edge_radius(wall, X, &g, probe);
    // The probe nodes: the first node on each side at least `probe` behind.
    const auto xh = X.host();
    double x_probe = 1.0;
    for (index_t k = 0; k < wall.n_nodes(); ++k)
      if (wall.chord_coordinate()[static_cast<size_t>(k)] >= probe)
        x_probe = std::min(x_probe, xh(k * 2));
    const double expected = 2 * b * b + x_probe * (0.5 - 2 * b * b);
    std::cout << "[leading-edge radius] ellipse b = " << b << ", probe " << probe << ": R "
              << r << ", closed form at x = " << x_probe << " " << expected << "\n";
    EXPECT_NEAR(r, expected, 1e-5 * expected) << probe;
  }
  const auto gh = g.host();
  std::vector<double> x = X.to_vector();
  int moved = 0;
  const double h = 1e-7;
  const auto radius_of = [&](const std::vector<double>& y) {
    return design::leading_edge_radius(wall, Tensor::from_host(X.shape(), y), nullptr, 0.02);
  };
  for (size_t i = 0; i < x.size(); ++i) {
    if (gh(static_cast<index_t>(i)) == 0.0) continue;
    ++moved;
    const double fd = camber::test::central_partial(radius_of, x, i, h);
    EXPECT_NEAR(gh(static_cast<index_t>(i)), fd, 1e-6 * std::abs(fd) + 1e-9) << i;
  }
  EXPECT_EQ(moved, 6);  // three nodes, two coordinates each
  // A probe beyond every node of a surface is bad input.
  EXPECT_THROW(design::leading_edge_radius(wall, X, nullptr, 1.5), camber::Error);
}

// Selig order: the title, the upper surface from the trailing edge to the
// leading edge, the lower surface back; every wall node once.
TEST(SeligText, UpperFromTheTrailingEdgeThenLowerBack) {
  const mesh::Mesh m = ogrid();
  const design::AirfoilWall wall(m, {"airfoil"});
  std::istringstream in(design::selig_text("NACA 0012", wall, wall.coordinates()));
  std::string title;
  std::getline(in, title);
  EXPECT_EQ(title, "NACA 0012");
  std::vector<std::array<double, 2>> p;
  double x, y;
  while (in >> x >> y) p.push_back({x, y});
  ASSERT_EQ(static_cast<index_t>(p.size()), wall.n_nodes());
  EXPECT_NEAR(p.front()[0], 1.0, 1e-12);
  size_t le = 0;
  for (size_t k = 0; k < p.size(); ++k)
    if (p[k][0] < p[le][0]) le = k;
  for (size_t k = 1; k <= le; ++k) EXPECT_LE(p[k][0], p[k - 1][0]) << "upper, point " << k;
  for (size_t k = le + 1; k < p.size(); ++k) EXPECT_GE(p[k][0], p[k - 1][0]) << "lower, point " << k;
  for (size_t k = 1; k < le; ++k) EXPECT_GE(p[k][1], 0.0);
  for (size_t k = le + 1; k < p.size(); ++k) EXPECT_LE(p[k][1], 1e-12);
}

}  // namespace camber_test_design
