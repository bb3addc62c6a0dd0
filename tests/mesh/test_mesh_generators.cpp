// Tests of the rectangle and airfoil generators, the Selig reader and the
// quality report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <camber/mesh/generators.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/quality.hpp>
#include "mesh_test_utils.hpp"

namespace camber_test_mesh {

using namespace camber::mesh;
constexpr double pi = 3.14159265358979323846;

TEST(Rectangle, QuadCountsAreasAndMarkers) {
  const index_t nx = 5, ny = 3;
  const double lx = 2.5, ly = 1.5;
  const Mesh m = rectangle(nx, ny, lx, ly);
  EXPECT_EQ(m.n_nodes(), (nx + 1) * (ny + 1));
  EXPECT_EQ(m.n_cells(), nx * ny);
  EXPECT_EQ(m.n_faces(), nx * (ny + 1) + ny * (nx + 1));
  EXPECT_EQ(m.n_boundary_faces(), 2 * (nx + ny));
  EXPECT_EQ(m.markers()[m.marker_index("left")].n_faces(), ny);
  EXPECT_EQ(m.markers()[m.marker_index("right")].n_faces(), ny);
  EXPECT_EQ(m.markers()[m.marker_index("bottom")].n_faces(), nx);
  EXPECT_EQ(m.markers()[m.marker_index("top")].n_faces(), nx);
  const Geometry g = compute_geometry(m);
  // Sums of equal cells: round-off ~ n_cells * eps relative.
  EXPECT_NEAR(total_volume(g), lx * ly, 1e-14 * lx * ly);
  EXPECT_NEAR(boundary_area(m, g), lx * ly, 1e-14 * lx * ly);
  EXPECT_LE(max_closure_error(m, g), 1e-15);
  const MeshQuality q = quality(m);
  EXPECT_NEAR(q.min_volume, lx * ly / (nx * ny), 1e-15);
  EXPECT_NEAR(q.max_aspect_ratio, 1.0, 1e-14);  // 0.5 x 0.5 squares
  EXPECT_NEAR(q.max_skewness, 0.0, 1e-14);
  EXPECT_EQ(q.n_unmarked_boundary_faces, 0);
  // Right-marker normals point in +x with the face length.
  auto faces = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                   m.markers()[m.marker_index("right")].faces);
  auto n = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_normal);
  for (index_t i = 0; i < ny; ++i) {
    EXPECT_NEAR(n(faces(i), 0), ly / ny, 1e-15);
    EXPECT_NEAR(n(faces(i), 1), 0.0, 1e-15);
  }
}

TEST(Rectangle, TriangleCounts) {
  const index_t nx = 4, ny = 3;
  const Mesh m = rectangle(nx, ny, 1.0, 2.0, CellShape::triangles);
  EXPECT_EQ(m.n_cells(), 2 * nx * ny);
  EXPECT_EQ(m.count_cells(CellType::triangle), 2 * nx * ny);
  EXPECT_EQ(m.n_faces(), nx * (ny + 1) + ny * (nx + 1) + nx * ny);  // + diagonals
  EXPECT_EQ(m.n_boundary_faces(), 2 * (nx + ny));
  const Geometry g = compute_geometry(m);
  EXPECT_NEAR(total_volume(g), 2.0, 1e-14);
  EXPECT_TRUE(throws_bad_input([] { (void)rectangle(0, 3, 1, 1); }, {"at least 1 x 1"}));
  EXPECT_TRUE(throws_bad_input([] { (void)rectangle(2, 3, -1, 1); }, {"must be positive"}));
}

// Linear interpolation of the surface y at x on the upper (Selig order:
// first half) or lower surface.
double surface_y(const AirfoilSurface& s, double x, bool upper) {
  const index_t le = s.size() / 2;
  const index_t begin = upper ? 0 : le, end = upper ? le : s.size() - 1;
  for (index_t k = begin; k < end; ++k) {
    const double x0 = s.x[k], x1 = s.x[k + 1];
    if ((x0 - x) * (x1 - x) <= 0) return s.y[k] + (x - x0) / (x1 - x0) * (s.y[k + 1] - s.y[k]);
  }
  ADD_FAILURE() << "x = " << x << " not on the surface";
  return 0;
}

TEST(Naca4, ThicknessFromTheFormula) {
  // y_t(0.3) = 0.6 (0.2969 sqrt(0.3) - 0.1260 0.3 - 0.3516 0.09 + 0.2843
  // 0.027 - a4 0.0081): thickness 0.120034 (a4 = 0.1015) and 0.120024
  // (sharp, 0.1036). The generated points lie on the formula; between
  // cosine-spaced points (spacing ~0.01 at x = 0.3) linear interpolation
  // is off by h^2 |y''| / 8 < 1e-5.
  for (bool sharp : {false, true}) {
    const AirfoilSurface s = naca4("0012", sharp);
    const double a4 = sharp ? 0.1036 : 0.1015;
    const double yt = 0.6 * (0.2969 * std::sqrt(0.3) - 0.1260 * 0.3 - 0.3516 * 0.09 +
                             0.2843 * 0.027 - a4 * 0.0081);
    EXPECT_NEAR(naca4_half_thickness(0.3, 0.12, sharp), yt, 1e-15);
    const double thickness = surface_y(s, 0.3, true) - surface_y(s, 0.3, false);
    EXPECT_NEAR(thickness, 2 * yt, 1e-5);
    EXPECT_NEAR(thickness, 0.12, 1e-3);  // NACA 0012: 12 % thick near x = 0.3
    // Trailing edge: closed for the sharp variant, 0.021 t = 0.00252 open
    // for the original.
    const double te_gap = s.y.front() - s.y.back();
    EXPECT_NEAR(te_gap, sharp ? 0.0 : 0.021 * 0.12, 1e-15);
  }
  // Cambered: NACA 2412 camber line at x = p = 0.4 is m = 0.02 above the
  // thickness-symmetric mean of the two surfaces there (to O(dyc/dx) = 0).
  const AirfoilSurface c = naca4("2412");
  EXPECT_NEAR(0.5 * (surface_y(c, 0.4, true) + surface_y(c, 0.4, false)), 0.02, 1e-4);
  EXPECT_TRUE(throws_bad_input([] { (void)naca4("012"); }, {"expected 4 digits"}));
  EXPECT_TRUE(throws_bad_input([] { (void)naca4("2012"); }, {"camber position"}));
}

TEST(SeligDat, RoundTripAndErrors) {
  const AirfoilSurface s = naca4("0012", true, 65);
  std::string text = "NACA 0012 sharp\n";
  char buf[64];
  for (index_t k = 0; k < s.size(); ++k) {
    std::snprintf(buf, sizeof buf, "  %.17g  %.17g\n", s.x[k], s.y[k]);
    text += buf;
  }
  const AirfoilSurface r = selig_dat(write_temp("naca0012.dat", text));
  EXPECT_EQ(r.name, "NACA 0012 sharp");
  ASSERT_EQ(r.size(), s.size());
  for (index_t k = 0; k < s.size(); ++k) {
    EXPECT_EQ(r.x[k], s.x[k]);
    EXPECT_EQ(r.y[k], s.y[k]);
  }
  EXPECT_TRUE(throws_bad_input(
      [&] { (void)selig_dat(write_temp("bad.dat", replace_line(text, 5, "0.9 O.01"))); },
      {"bad.dat:5:", "expected y", "'O.01'"}));
  EXPECT_TRUE(throws_bad_input(
      [&] { (void)selig_dat(write_temp("three.dat", replace_line(text, 7, "0.9 0.01 0.0"))); },
      {"three.dat:7:", "expected a coordinate pair 'x y' (2 fields), found 3 fields"}));
  EXPECT_TRUE(throws_bad_input(
      [&] { (void)selig_dat(write_temp("lednicer.dat", replace_line(text, 2, "33. 33."))); },
      {"lednicer.dat:2:", "Lednicer-format"}));
  EXPECT_TRUE(throws_bad_input(
      [&] { (void)selig_dat(write_temp("short.dat", truncate_lines(text, 3))); },
      {"short.dat:3:", "at least 5 coordinate pairs, found 2"}));
}

// NACA 0012 (sharp) area: 10 t int_0^1 (0.2969 sqrt(x) - 0.1260 x - 0.3516
// x^2 + 0.2843 x^3 - 0.1036 x^4) dx = 1.2 (0.2969 2/3 - 0.063 - 0.1172 +
// 0.071075 - 0.02072) = 0.0817056.
constexpr double naca0012_sharp_area = 1.2 * (0.2969 * 2.0 / 3.0 - 0.063 - 0.1172 + 0.071075 -
                                              0.02072);

TEST(AirfoilOGrid, Naca0012SharpTrailingEdge) {
  const int ni = 256, nj = 80;
  const double h1 = 1e-5;
  OGridInfo info;
  const Mesh m = airfoil_ogrid(naca4("0012", true, 1001), ni, nj, h1, 50.0, &info);
  EXPECT_EQ(m.n_cells(), ni * nj);
  EXPECT_EQ(m.n_nodes(), ni * (nj + 1));
  EXPECT_EQ(m.n_faces(), ni * nj + ni * (nj + 1));
  EXPECT_EQ(m.n_boundary_faces(), 2 * ni);
  EXPECT_EQ(m.markers()[m.marker_index("airfoil")].n_faces(), ni);
  EXPECT_EQ(m.markers()[m.marker_index("farfield")].n_faces(), ni);
  EXPECT_NEAR(info.chord, 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(info.farfield_radius, 50.0);

  const Geometry g = compute_geometry(m);
  const MeshQuality q = quality(m);
  std::cout << describe(q) << "growth ratio " << info.growth_ratio << "\n";
  EXPECT_EQ(q.n_nonpositive_volumes, 0);
  EXPECT_GT(q.min_volume, 0.0);
  EXPECT_LT(q.max_skewness, 1.0);
  EXPECT_LE(max_closure_error(m, g), 1e-14);

  // Far-field nodes on the circle of radius 50 chords around mid-chord;
  // first layer one first_cell_height off the wall (the blend toward the
  // far field tilts it by w_1 ~ h1 / chord, a 1e-5 relative change).
  auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  double max_dtheta = 0, deficit_bound = 0;
  for (int i = 0; i < ni; ++i) {
    const index_t far = static_cast<index_t>(nj) * ni + i;
    const double r = std::hypot(x(far, 0) - info.center_x, x(far, 1) - info.center_y);
    EXPECT_NEAR(r, 50.0, 1e-12 * 50.0);
    const double h = std::hypot(x(ni + i, 0) - x(i, 0), x(ni + i, 1) - x(i, 1));
    EXPECT_NEAR(h, h1, 1e-3 * h1);
    const index_t next = static_cast<index_t>(nj) * ni + (i + 1) % ni;
    double dth = std::atan2(x(next, 1) - info.center_y, x(next, 0) - info.center_x) -
                 std::atan2(x(far, 1) - info.center_y, x(far, 0) - info.center_x);
    if (dth < 0) dth += 2 * pi;
    max_dtheta = std::max(max_dtheta, dth);
    deficit_bound += 50.0 * 50.0 * dth * dth * dth / 12.0;  // R^2/2 (t - sin t) <= R^2 t^3/12
  }

  // Area: cells tile the annulus between the far-field polygon and the
  // wall polygon (round-off only), and that is pi R^2 - A_airfoil up to the
  // inscribed-polygon deficit (bounded above) and the wall polygon's chord
  // error against the exact NACA 0012 area (< 1e-4 with 256 points).
  const double area = total_volume(g);
  EXPECT_NEAR(area, boundary_area(m, g), 1e-12 * area);
  EXPECT_NEAR(info.wall_area, naca0012_sharp_area, 1e-4);
  const double exact = pi * 50.0 * 50.0 - naca0012_sharp_area;
  EXPECT_LE(exact - area, deficit_bound + 1e-4);
  EXPECT_GE(exact - area, -1e-4);
  std::cout << "O-grid area " << area << ", pi R^2 - A_naca " << exact << ", deficit bound "
            << deficit_bound << ", max far-field angle step " << max_dtheta << "\n";
}

TEST(AirfoilOGrid, CamberedBluntAndFromSeligFile) {
  // NACA 2412 with its blunt trailing edge: the trailing-edge base is part
  // of the wall.
  const Mesh m = airfoil_ogrid(naca4("2412", false, 401), 128, 48, 1e-4, 60.0);
  const MeshQuality q = quality(m);
  EXPECT_EQ(q.n_nonpositive_volumes, 0);
  EXPECT_EQ(m.n_cells(), 128 * 48);
  // From a Selig file written by hand (coarse NACA 0012, 33 points).
  const AirfoilSurface s = naca4("0012", false, 17);
  std::string text = "coarse NACA 0012\n";
  char buf[64];
  for (index_t k = 0; k < s.size(); ++k) {
    std::snprintf(buf, sizeof buf, "%.10f %.10f\n", s.x[k], s.y[k]);
    text += buf;
  }
  const Mesh ms = airfoil_ogrid(selig_dat(write_temp("coarse.dat", text)), 64, 32, 1e-3, 50.0);
  EXPECT_EQ(quality(ms).n_nonpositive_volumes, 0);
  // A surface listed clockwise (lower surface first) gives the same grid,
  // with a blunt and with a sharp trailing edge.
  for (bool sharp : {false, true}) {
    const AirfoilSurface ccw = naca4("0012", sharp, 17);
    AirfoilSurface cw = ccw;
    std::reverse(cw.x.begin(), cw.x.end());
    std::reverse(cw.y.begin(), cw.y.end());
    const Mesh m1 = airfoil_ogrid(ccw, 64, 32, 1e-3, 50.0);
    const Mesh m2 = airfoil_ogrid(cw, 64, 32, 1e-3, 50.0);
    EXPECT_EQ(quality(m2).n_nonpositive_volumes, 0);
    const double a1 = total_volume(compute_geometry(m1)), a2 = total_volume(compute_geometry(m2));
    EXPECT_NEAR(a1, a2, 1e-12 * a1) << "sharp " << sharp;
  }
  EXPECT_TRUE(throws_bad_input([&] { (void)airfoil_ogrid(s, 64, 32, 1e-3, 1.5); },
                               {"farfield_chords must be >= 2"}));
  EXPECT_TRUE(throws_bad_input([&] { (void)airfoil_ogrid(s, 63, 32, 1e-3, 50.0); },
                               {"cells_around must be even"}));
  EXPECT_TRUE(throws_bad_input([&] { (void)airfoil_ogrid(s, 64, 32, 2.0, 50.0); },
                               {"first_cell_height"}));
}

}  // namespace camber_test_mesh
