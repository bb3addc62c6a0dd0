// Tests of Vassberg and Jameson's Karman-Trefftz O-grid against its
// construction: the map's constants as the paper gives them, the wall on
// the analytic surface at equal angles of its image, exact symmetry,
// near-square cells and the far-field radius. And of conformal_ogrid, the
// same construction around any sharp-edged airfoil: on V&J's airfoil it
// reproduces their grid; on a cambered one its wall is the polygon's, its
// cells near-square and its far field where asked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <complex>
#include <cstdio>
#include <utility>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/karman_trefftz_ogrid.hpp>
#include <camber/mesh/quality.hpp>

namespace camber_test_mesh {

using namespace camber::mesh;
using camber::index_t;
using cplx = std::complex<double>;
constexpr double pi = 3.14159265358979323846;

TEST(KarmanTrefftz, ConstantsAreThePapers) {
  const KarmanTrefftzMap m = KarmanTrefftzMap::naca0012();
  // Vassberg and Jameson (2010): x_te = 1.0089304115, tau = 0.2818725 rad,
  // z_2 = 0.0079337, each given to its last printed digit.
  EXPECT_NEAR(m.x_te, 1.0089304115, 1e-9);
  EXPECT_NEAR(m.tau, 0.2818725, 1e-7);
  EXPECT_NEAR(m.z2, 0.0079337, 1e-7);
  EXPECT_NEAR(naca4_half_thickness(m.x_te, 0.12, false), 0.0, 1e-15);
  // The map sends the trailing edge to zeta_1 and inverts to round-off
  // outside the airfoil.
  EXPECT_NEAR(std::abs(m.to_circle(cplx(m.x_te + 1e-12, 0.0)) - m.zeta1), 0.0, 1e-6);
  for (const cplx z : {cplx(-0.5, 0.3), cplx(0.5, 0.2), cplx(0.5, -0.07), cplx(1.2, 0.01),
                       cplx(100.0, -40.0), cplx(-3.0, 0.0)}) {
    EXPECT_NEAR(std::abs(m.from_circle(m.to_circle(z)) - z), 0.0, 1e-12 * (1 + std::abs(z)))
        << z;
  }
}

// Every node's coordinates on the host.
struct Nodes {
  Kokkos::View<double**, Kokkos::HostSpace> x;
  int n;
  cplx at(int i, int j) const {
    const index_t k = static_cast<index_t>(j) * n + (i % n);
    return {x(k, 0), x(k, 1)};
  }
};

Nodes nodes_of(const Mesh& m, int n) {
  return {Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords()), n};
}

TEST(KarmanTrefftz, WallOnTheSurfaceAtEqualMappedAngles) {
  const int n = 64;
  KarmanTrefftzInfo info;
  const Mesh m = karman_trefftz_ogrid(n, CellShape::quads, &info);
  EXPECT_EQ(m.n_cells(), n * n);
  EXPECT_EQ(m.n_nodes(), n * (n + 1));
  EXPECT_EQ(m.markers()[m.marker_index("airfoil")].n_faces(), n);
  EXPECT_EQ(m.markers()[m.marker_index("farfield")].n_faces(), n);
  const Nodes p = nodes_of(m, n);
  const KarmanTrefftzMap& map = info.map;
  for (int i = 0; i < n; ++i) {
    const cplx z = p.at(i, 0);
    // On the analytic surface (upper for i < N/2, lower after).
    const double yt = naca4_half_thickness(std::max(z.real(), 0.0), 0.12, false);
    EXPECT_NEAR(std::abs(z.imag()), yt, 1e-15) << i;
    EXPECT_EQ(z.imag() >= 0, i <= n / 2) << i;
    // Its image at angle 2 pi i / N about zeta_c (the bisection resolves x
    // to round-off; the angle follows to ~1e-12 away from the singular
    // trailing edge).
    if (i == 0) continue;
    double a = std::arg(map.to_circle(z) - map.zeta_c);
    if (a < -1e-9) a += 2 * pi;
    EXPECT_NEAR(a, 2 * pi * i / n, 1e-10) << i;
  }
}

TEST(KarmanTrefftz, SymmetricToTheLastBit) {
  const int n = 32;
  const Nodes p = nodes_of(karman_trefftz_ogrid(n), n);
  for (int j = 0; j <= n; ++j) {
    EXPECT_EQ(p.at(0, j).imag(), 0.0);
    EXPECT_EQ(p.at(n / 2, j).imag(), 0.0);
    for (int i = 1; i < n / 2; ++i) {
      EXPECT_EQ(p.at(n - i, j).real(), p.at(i, j).real());
      EXPECT_EQ(p.at(n - i, j).imag(), -p.at(i, j).imag());
    }
  }
}

// Aspect ratio of quad (i, j): the mean of its two radial edges over the
// mean of its two tangential ones.
double aspect(const Nodes& p, int i, int j) {
  const double radial = 0.5 * (std::abs(p.at(i, j + 1) - p.at(i, j)) +
                               std::abs(p.at(i + 1, j + 1) - p.at(i + 1, j)));
  const double around = 0.5 * (std::abs(p.at(i + 1, j) - p.at(i, j)) +
                               std::abs(p.at(i + 1, j + 1) - p.at(i, j + 1)));
  return radial / around;
}

// Equiangle skewness of quad (i, j): the largest |corner angle - 90 deg|
// over 90 deg.
double skewness(const Nodes& p, int i, int j) {
  const cplx c[4] = {p.at(i, j), p.at(i, j + 1), p.at(i + 1, j + 1), p.at(i + 1, j)};
  double worst = 0;
  for (int k = 0; k < 4; ++k) {
    const cplx a = c[(k + 3) % 4] - c[k], b = c[(k + 1) % 4] - c[k];
    const double angle = std::abs(std::arg(b / a));
    worst = std::max(worst, std::abs(angle - 0.5 * pi) / (0.5 * pi));
  }
  return worst;
}

// The largest |aspect ratio - 1| and skewness over an N x N grid's quads,
// leaving out the trailing edge's corner (within four cells around and
// eight out), where the map is singular.
std::pair<double, double> worst_shape(const Nodes& p, int n) {
  double worst_aspect = 0, worst_skew = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (j < 8 && (i < 4 || i >= n - 4)) continue;
      worst_aspect = std::max(worst_aspect, std::abs(aspect(p, i, j) - 1.0));
      worst_skew = std::max(worst_skew, skewness(p, i, j));
    }
  return {worst_aspect, worst_skew};
}

TEST(KarmanTrefftz, CellsAreNearSquaresAndTheFarFieldIs150Chords) {
  // A conformal image of a polar grid whose radial ratio exp(2 pi / N)
  // matches its angular step: square to O(1/N) where the map is smooth,
  // the deviation bounded by the angular step 2 pi / N (the variation of
  // |dz/dzeta| across a cell of that angular size) plus, near the wall, how
  // far the near-circle is from round (below). At the trailing edge
  // the map is singular (a corner of 2 pi - tau): the grid there is
  // self-similar, the same few cells at every N, left out (within four
  // cells around and eight out; the two wall cells at the edge itself have
  // a 172-degree corner). Angles: the near-circle is not a circle (its
  // radius varies by a few degrees of slope) and straight wall edges cut
  // the curved nose, so corners near the nose's wall depart from 90 degrees
  // by more than 2 pi / N; every corner stays within 22.5 degrees of
  // square (skewness 1/4), and the worst falls as N grows.
  double previous_skew = 1.0;
  for (const int n : {64, 128, 256}) {
    KarmanTrefftzInfo info;
    const Mesh m = karman_trefftz_ogrid(n, CellShape::quads, &info);
    const Nodes p = nodes_of(m, n);
    // The near-circle's radius r_i0 varies around R_1 by a few per cent;
    // the wall rings' radial step is R_1 (e^(2 pi / N) - 1) against an
    // angular one of r_i0 2 pi / N: aspect R_1 / r_i0 there.
    double out_of_round = 0;
    for (int i = 1; i < n; ++i)
      out_of_round = std::max(
          out_of_round,
          std::abs(info.r1 / std::abs(info.map.to_circle(p.at(i, 0)) - info.map.zeta_c) - 1.0));
    const auto [worst_aspect, worst_skew] = worst_shape(p, n);
    EXPECT_LT(worst_aspect, out_of_round + 2 * pi / n) << n;
    EXPECT_LT(worst_skew, 0.25) << n;
    EXPECT_LT(worst_skew, previous_skew) << n;
    previous_skew = worst_skew;
    EXPECT_EQ(quality(m).n_nonpositive_volumes, 0);
    // Far field: R_N = R_1 exp(2 pi) in the circle plane, where the map is
    // nearly the identity at that distance: a circle of ~150 chords.
    EXPECT_NEAR(info.farfield_radius, 150.0, 15.0) << n;
    double rmin = 1e300, rmax = 0;
    for (int i = 0; i < n; ++i) {
      const double r = std::abs(p.at(i, n) - cplx(0.5 * info.map.x_te, 0.0));
      rmin = std::min(rmin, r);
      rmax = std::max(rmax, r);
    }
    EXPECT_LT(rmax / rmin - 1.0, 0.01) << n;
    std::printf("N = %d: aspect ratio within %.4f of 1 (bound %.4f + 2 pi / N = %.4f), skewness "
                "at most %.3f; far field %.2f chords (%.1e out of round)\n",
                n, worst_aspect, out_of_round, out_of_round + 2 * pi / n, worst_skew,
                info.farfield_radius, rmax / rmin - 1.0);
  }
}

TEST(KarmanTrefftz, TrianglesShareTheNodes) {
  const int n = 32;
  const Mesh q = karman_trefftz_ogrid(n, CellShape::quads);
  const Mesh t = karman_trefftz_ogrid(n, CellShape::triangles);
  EXPECT_EQ(t.n_cells(), 2 * n * n);
  EXPECT_EQ(t.n_nodes(), q.n_nodes());
  EXPECT_NEAR(total_volume(t), total_volume(q), 1e-12 * total_volume(q));
  // Split symmetrically: every triangle's centroid has a mirror image
  // about the chord (the quad grid is symmetric to the last bit).
  const Geometry g = compute_geometry(t);
  const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_centroid);
  std::vector<std::pair<double, double>> upper, lower;
  for (index_t k = 0; k < t.n_cells(); ++k)
    (c(k, 1) > 0 ? upper : lower).emplace_back(c(k, 0), std::abs(c(k, 1)));
  ASSERT_EQ(upper.size(), lower.size());
  std::sort(upper.begin(), upper.end());
  std::sort(lower.begin(), lower.end());
  double worst = 0;
  for (size_t k = 0; k < upper.size(); ++k)
    worst = std::max({worst, std::abs(upper[k].first - lower[k].first),
                      std::abs(upper[k].second - lower[k].second)});
  EXPECT_LT(worst, 1e-10) << "triangle centroids not mirrored about the chord";
}

TEST(KarmanTrefftz, BadCellCountIsBadInput) {
  for (const int n : {15, 8, 0, -2}) {
    try {
      karman_trefftz_ogrid(n);
      FAIL() << n;
    } catch (const camber::Error& e) {
      EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
      EXPECT_NE(std::string(e.what()).find("even and >= 16"), std::string::npos);
    }
  }
}

TEST(ConformalOGrid, ReproducesTheKarmanTrefftzGridOnItsAirfoil) {
  // The two differ only where the constants come from: the paper's
  // analytic trailing-edge angle and leading-edge radius against the
  // polygon's (its first segments, a circle through the nose and points
  // 0.5% of the chord away), and the far field asked for in chords. The
  // wall nodes lie on the same surface at the same mapped angles, so they
  // agree to a small part of the local spacing; so does every other node.
  const int n = 64;
  KarmanTrefftzInfo kt_info;
  const Nodes kt = nodes_of(karman_trefftz_ogrid(n, CellShape::quads, &kt_info), n);
  OGridInfo info;
  // farfield_chords is in chords of the airfoil: V&J's is x_te long.
  const double chord = kt_info.map.x_te;
  const Mesh m = conformal_ogrid(vassberg_jameson_naca0012(), n, n,
                                 kt_info.farfield_radius / chord, &info, CellShape::quads);
  EXPECT_NEAR(info.chord, chord, 1e-12);
  ASSERT_EQ(m.n_nodes(), n * (n + 1));
  const Nodes cf = nodes_of(m, n);
  EXPECT_NEAR(info.growth_ratio, kt_info.radial_ratio, 2e-3 * (kt_info.radial_ratio - 1));
  EXPECT_NEAR(info.farfield_radius, kt_info.farfield_radius, 1e-9 * kt_info.farfield_radius);
  double worst = 0;
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i < n; ++i) {
      // Relative to the smaller edge of the node's cells around.
      const double h = std::min(std::abs(kt.at(i + 1, j) - kt.at(i, j)),
                                std::abs(kt.at(i, j) - kt.at(i + n - 1, j)));
      worst = std::max(worst, std::abs(cf.at(i, j) - kt.at(i, j)) / h);
    }
  std::printf("conformal_ogrid against karman_trefftz_ogrid, N = %d: nodes within %.2e of the "
              "local spacing\n",
              n, worst);
  EXPECT_LT(worst, 2e-3);
}

TEST(ConformalOGrid, CamberedWallIsThePolygonsAndCellsAreNearSquares) {
  const int n = 96;
  const AirfoilSurface s = naca4("2412", true, 4001);
  OGridInfo info;
  const Mesh m = conformal_ogrid(s, n, n, 150.0, &info, CellShape::quads);
  EXPECT_EQ(m.n_cells(), n * n);
  EXPECT_EQ(m.markers()[m.marker_index("airfoil")].n_faces(), n);
  EXPECT_EQ(m.markers()[m.marker_index("farfield")].n_faces(), n);
  EXPECT_EQ(quality(m).n_nonpositive_volumes, 0);
  const Nodes p = nodes_of(m, n);
  // Every wall node on a segment of the polygon.
  for (int i = 0; i < n; ++i) {
    const cplx z = p.at(i, 0);
    double nearest = 1e300;
    for (index_t k = 0; k < s.size(); ++k) {
      const cplx a(s.x[k], s.y[k]), b(s.x[(k + 1) % s.size()], s.y[(k + 1) % s.size()]);
      const double u = std::clamp(((z - a) * std::conj(b - a)).real() / std::norm(b - a), 0.0, 1.0);
      nearest = std::min(nearest, std::abs(z - (a + u * (b - a))));
    }
    EXPECT_LT(nearest, 1e-13) << i;
  }
  EXPECT_EQ(p.at(0, 0), cplx(s.x[0], s.y[0]));  // the trailing edge itself
  // Far field where asked (the mean distance from mid-chord, in chords), and
  // round.
  EXPECT_NEAR(info.farfield_radius, 150.0 * info.chord, 1e-9 * 150.0);
  double rmin = 1e300, rmax = 0;
  for (int i = 0; i < n; ++i) {
    const double r = std::abs(p.at(i, n) - cplx(info.center_x, info.center_y));
    rmin = std::min(rmin, r);
    rmax = std::max(rmax, r);
  }
  EXPECT_LT(rmax / rmin - 1.0, 0.01);
  // Near-square and near-orthogonal away from the trailing edge's corner,
  // as V&J's grid (the same bounds as the test above uses for it).
  const auto [worst_aspect, worst_skew] = worst_shape(p, n);
  std::printf("NACA 2412, N = %d: aspect ratio within %.4f of 1, skewness at most %.3f, radial "
              "ratio %.5f (exp(2 pi / N) = %.5f)\n",
              n, worst_aspect, worst_skew, info.growth_ratio, std::exp(2 * pi / n));
  EXPECT_LT(worst_aspect, 0.15);
  EXPECT_LT(worst_skew, 0.25);
}

TEST(ConformalOGrid, SymmetricSectionGivesASymmetricGrid) {
  const int n = 32;
  const Nodes p = nodes_of(conformal_ogrid(naca4("0012", true, 2001), n, n), n);
  for (int j = 0; j <= n; ++j) {
    EXPECT_NEAR(p.at(0, j).imag(), 0.0, 1e-12 * (1 + std::abs(p.at(0, j))));
    EXPECT_NEAR(p.at(n / 2, j).imag(), 0.0, 1e-12 * (1 + std::abs(p.at(n / 2, j))));
    for (int i = 1; i < n / 2; ++i)
      EXPECT_NEAR(std::abs(p.at(n - i, j) - std::conj(p.at(i, j))), 0.0,
                  1e-12 * (1 + std::abs(p.at(i, j))))
          << i << ", " << j;
  }
}

TEST(ConformalOGrid, BluntEdgeAndBadCountsAreBadInput) {
  const auto expect_bad = [](auto&& make, const char* words) {
    try {
      make();
      FAIL() << words;
    } catch (const camber::Error& e) {
      EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  expect_bad([] { conformal_ogrid(naca4("0012", false), 64, 64); }, "sharp trailing edge");
  expect_bad([] { conformal_ogrid(naca4("0012", true), 63, 64); }, "even and >= 16");
  expect_bad([] { conformal_ogrid(naca4("0012", true), 64, 1); }, "cells_normal must be >= 2");
}

}  // namespace camber_test_mesh
