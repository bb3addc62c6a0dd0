#include <camber/mesh/karman_trefftz_ogrid.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "detail/ogrid_topology.hpp"
#include <camber/core/error.hpp>

namespace camber::mesh {

namespace {
constexpr double pi = 3.14159265358979323846;
using cplx = std::complex<double>;

// The NACA 0012 thickness law with its original coefficient (a blunt edge
// at x = 1, closed further out), and its slope.
double half_thickness(double x) { return naca4_half_thickness(x, 0.12, false); }

double half_thickness_slope(double x) {
  return 0.6 * (0.5 * 0.2969 / std::sqrt(x) - 0.1260 - 2 * 0.3516 * x + 3 * 0.2843 * x * x -
                4 * 0.1015 * x * x * x);
}

// Angle of zeta - zeta_c in [0, 2 pi) (0 at the trailing edge's image).
double circle_angle(const KarmanTrefftzMap& map, cplx zeta) {
  double a = std::arg(zeta - map.zeta_c);
  return a < 0 ? a + 2 * pi : a;
}
}  // namespace

KarmanTrefftzMap KarmanTrefftzMap::naca0012() {
  KarmanTrefftzMap m;
  // The root of the thickness law past x = 1 (where it is 0.00126 > 0).
  double lo = 1.0, hi = 1.1;
  for (int it = 0; it < 200 && hi - lo > 0; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (half_thickness(mid) > 0 ? lo : hi) = mid;
  }
  m.x_te = 0.5 * (lo + hi);
  m.tau = 2.0 * std::atan(-half_thickness_slope(m.x_te));
  const double t = 0.12;
  m.z2 = 0.5 * 1.1019 * t * t;
  m.power = pi / (2 * pi - m.tau);
  // The near-circle's centre: midway between the images of the trailing
  // edge (zeta_1) and of the leading edge (z = 0).
  m.zeta_c = 0.5 * (m.zeta1 + m.to_circle(cplx(0.0, 0.0)).real());
  return m;
}

cplx KarmanTrefftzMap::to_circle(cplx z) const {
  const cplx w = std::pow((z - x_te) / (z - z2), power);
  return (zeta1 - zeta2 * w) / (1.0 - w);
}

cplx KarmanTrefftzMap::from_circle(cplx zeta) const {
  const cplx w = std::pow((zeta - zeta1) / (zeta - zeta2), 1.0 / power);
  return (x_te - z2 * w) / (1.0 - w);
}

Mesh karman_trefftz_ogrid(int n, CellShape shape, KarmanTrefftzInfo* info) {
  CAMBER_INPUT_REQUIRE(n >= 16 && n % 2 == 0,
                       "karman_trefftz_ogrid: the cell count N must be even and >= 16, got " << n);
  const KarmanTrefftzMap map = KarmanTrefftzMap::naca0012();
  const int half = n / 2;

  // Wall nodes of the upper surface, i = 0 (trailing edge) .. N/2 (leading
  // edge): the surface point at x = s^2 (s^2 keeps the square-root nose
  // smooth in the unknown) whose image lies at angle 2 pi i / N. The angle
  // falls monotonically from pi at the nose to 0 at the trailing edge.
  std::vector<cplx> wall(static_cast<std::size_t>(half) + 1);
  wall[0] = cplx(map.x_te, 0.0);
  wall[static_cast<std::size_t>(half)] = cplx(0.0, 0.0);
  const double s_te = std::sqrt(map.x_te);
  for (int i = 1; i < half; ++i) {
    const double theta = 2 * pi * i / n;
    double lo = 0.0, hi = s_te;  // angle(lo) = pi > theta > angle(hi) = 0
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      if (mid == lo || mid == hi) break;
      const double x = mid * mid;
      const double a = circle_angle(map, map.to_circle(cplx(x, half_thickness(x))));
      (a > theta ? lo : hi) = mid;
    }
    const double x = 0.25 * (lo + hi) * (lo + hi);
    wall[static_cast<std::size_t>(i)] = cplx(x, half_thickness(x));
  }
  // R_1: the perimeter of the wall's images (the whole near-circle, twice
  // the upper half by symmetry) over 2 pi.
  std::vector<double> r0(static_cast<std::size_t>(half) + 1);
  double perimeter = 0;
  cplx prev;
  for (int i = 0; i <= half; ++i) {
    const cplx zeta = i == 0 ? cplx(map.zeta1, 0.0) : map.to_circle(wall[static_cast<std::size_t>(i)]);
    r0[static_cast<std::size_t>(i)] = std::abs(zeta - map.zeta_c);
    if (i > 0) perimeter += 2 * std::abs(zeta - prev);
    prev = zeta;
  }
  const double r1 = perimeter / (2 * pi);
  const double ratio = std::exp(2 * pi / n);
  const double rn = r1 * std::exp(2 * pi);

  // Nodes (i, j), i around (counter-clockwise from the trailing edge), j out.
  std::vector<cplx> z(static_cast<std::size_t>(n) * (n + 1));
  auto at = [n](int i, int j) { return static_cast<std::size_t>(j) * n + static_cast<std::size_t>(i % n); };
  for (int j = 0; j <= n; ++j) {
    const double rj = r1 * std::pow(ratio, j);
    for (int i = 0; i <= half; ++i) {
      cplx p;
      if (j == 0) {
        p = wall[static_cast<std::size_t>(i)];
      } else {
        const double ri0 = r0[static_cast<std::size_t>(i)];
        const double r = j == n ? rn : ri0 + (rj - r1) * (rn - ri0) / (rn - r1);
        p = map.from_circle(map.zeta_c + std::polar(r, 2 * pi * i / n));
      }
      if (i == 0 || i == half) p = cplx(p.real(), 0.0);
      z[at(i, j)] = p;
      if (i > 0 && i < half) z[at(n - i, j)] = std::conj(p);
    }
  }

  MeshData d;
  d.dim = 2;
  d.coords.reserve(2 * z.size());
  for (const cplx& p : z) d.add_node(p.real(), p.imag());
  detail::add_ogrid_cells(d, n, n, shape);

  if (info) {
    info->map = map;
    info->r1 = r1;
    info->radial_ratio = ratio;
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += std::abs(z[at(i, n)] - cplx(0.5 * map.x_te, 0.0));
    info->farfield_radius = sum / n;
  }
  return Mesh::from_cells(std::move(d), Orientation::require);
}

AirfoilSurface vassberg_jameson_naca0012(int points_per_side) {
  CAMBER_INPUT_REQUIRE(points_per_side >= 3, "vassberg_jameson_naca0012: points_per_side must be "
                                             ">= 3, got " << points_per_side);
  const double x_te = KarmanTrefftzMap::naca0012().x_te;
  const int n = points_per_side;
  AirfoilSurface s;
  s.name = "NACA 0012 closed at x = 1.0089 (Vassberg and Jameson)";
  const auto x_at = [&](int k) { return x_te * 0.5 * (1 - std::cos(pi * k / (n - 1))); };
  for (int k = n - 1; k >= 0; --k) {
    s.x.push_back(k == n - 1 ? x_te : x_at(k));
    s.y.push_back(k == n - 1 ? 0.0 : half_thickness(x_at(k)));
  }
  for (int k = 1; k < n; ++k) {
    s.x.push_back(k == n - 1 ? x_te : x_at(k));
    s.y.push_back(k == n - 1 ? 0.0 : -half_thickness(x_at(k)));
  }
  return s;
}

Mesh conformal_ogrid(const AirfoilSurface& surface, int cells_around, int cells_normal,
                     double farfield_chords, OGridInfo* info, CellShape shape) {
  const int ni = cells_around, nj = cells_normal;
  CAMBER_INPUT_REQUIRE(ni >= 16 && ni % 2 == 0,
                       "conformal_ogrid: cells_around must be even and >= 16, got " << ni);
  CAMBER_INPUT_REQUIRE(nj >= 2, "conformal_ogrid: cells_normal must be >= 2, got " << nj);
  CAMBER_INPUT_REQUIRE(farfield_chords >= 2,
                       "conformal_ogrid: farfield_chords must be >= 2, got " << farfield_chords);
  const detail::WallLoop loop = detail::wall_loop(surface, "conformal_ogrid");
  CAMBER_INPUT_REQUIRE(loop.closed,
                       "conformal_ogrid: the surface must close at a sharp trailing edge (its "
                       "last point equal to its first): the Karman-Trefftz map is built on the "
                       "edge's angle");
  const std::size_t np = loop.x.size();
  std::vector<cplx> z(np);
  for (std::size_t k = 0; k < np; ++k) z[k] = cplx(loop.x[k], loop.y[k]);
  const cplx z1 = z[0], zle = z[loop.le];
  const double chord = loop.chord;

  // The map's constants from the polygon: the trailing-edge angle between
  // the first segments of the two sides, and z2 half the leading-edge
  // radius (the circle through the nose and the points about 0.5% of the
  // chord from it) behind the nose, along the chord.
  const cplx up = z[1] - z1, lo = z[np - 1] - z1;
  const double tau = std::acos(std::clamp(
      (up.real() * lo.real() + up.imag() * lo.imag()) / (std::abs(up) * std::abs(lo)), -1.0, 1.0));
  CAMBER_INPUT_REQUIRE(tau < 0.5 * pi,
                       "conformal_ogrid: the trailing-edge angle is " << tau * 180 / pi
                           << " degrees; at most 90 are supported");
  std::size_t ka = loop.le, kb = loop.le;
  while (ka > 1 && std::abs(z[ka] - zle) < 5e-3 * chord) --ka;
  while (kb + 2 < np && std::abs(z[kb] - zle) < 5e-3 * chord) ++kb;
  const cplx a = z[ka] - zle, b = z[kb] - zle;
  const double cross = std::abs(a.real() * b.imag() - a.imag() * b.real());
  CAMBER_INPUT_REQUIRE(cross > 0.0, "conformal_ogrid: the nose is not rounded (the points "
                                    "around the leading edge lie on a line)");
  const double r_le = std::abs(a) * std::abs(b) * std::abs(a - b) / (2 * cross);
  // The map of karman_trefftz_ogrid in the chord's frame (nose at 0,
  // trailing edge at +chord on the real axis): zeta_1 = 1, zeta_2 = 0 (the
  // paper's values only move and scale the image), so the trailing edge
  // goes to zeta = 1 and infinity to infinity.
  const cplx axis = (z1 - zle) / std::abs(z1 - zle);
  KarmanTrefftzMap map;
  map.x_te = std::abs(z1 - zle);
  map.tau = tau;
  map.z2 = 0.5 * r_le;
  map.zeta1 = 1.0;
  map.zeta2 = 0.0;
  map.power = pi / (2 * pi - tau);
  const auto to_circle = [&](cplx q) { return map.to_circle((q - zle) / axis); };
  const auto from_circle = [&](cplx zeta) { return zle + axis * map.from_circle(zeta); };
  const cplx zeta_c = 0.5 * (1.0 + to_circle(zle));
  const cplx dir_te = (1.0 - zeta_c) / std::abs(1.0 - zeta_c);
  // Angle about zeta_c from the trailing edge's image, counter-clockwise.
  const auto angle = [&](cplx q) {
    const double t = std::arg((to_circle(q) - zeta_c) / dir_te);
    return t < 0 ? t + 2 * pi : t;
  };

  // The polygon's angles must rise from 0 to 2 pi (an image that winds
  // back, e.g. of a strongly cambered section whose chord line leaves it,
  // cannot be gridded this way).
  std::vector<double> theta(np + 1);
  theta[0] = 0.0;
  theta[np] = 2 * pi;
  for (std::size_t k = 1; k < np; ++k) {
    theta[k] = angle(z[k]);
    CAMBER_INPUT_REQUIRE(theta[k] > theta[k - 1],
                         "conformal_ogrid: the Karman-Trefftz image of the surface folds back "
                         "near ("
                             << z[k].real() << ", " << z[k].imag()
                             << "); use airfoil_ogrid for this section");
  }

  // Wall node i: the surface point whose image lies at angle 2 pi i / N
  // (bisection along the segment that holds that angle).
  std::vector<cplx> wall(static_cast<std::size_t>(ni));
  wall[0] = z1;
  std::size_t seg = 0;
  for (int i = 1; i < ni; ++i) {
    const double t = 2 * pi * i / ni;
    while (theta[seg + 1] < t) ++seg;
    const cplx p0 = z[seg], p1 = seg + 1 < np ? z[seg + 1] : z[0];
    double u0 = 0.0, u1 = 1.0;
    for (int it = 0; it < 200; ++it) {
      const double um = 0.5 * (u0 + u1);
      if (um == u0 || um == u1) break;
      (angle(p0 + um * (p1 - p0)) < t ? u0 : u1) = um;
    }
    wall[static_cast<std::size_t>(i)] = p0 + 0.5 * (u0 + u1) * (p1 - p0);
  }
  std::vector<double> r0(static_cast<std::size_t>(ni));
  double perimeter = 0;
  for (int i = 0; i < ni; ++i) {
    const cplx zi = i == 0 ? cplx(1.0, 0.0) : to_circle(wall[static_cast<std::size_t>(i)]);
    const cplx zn = i + 1 == ni ? cplx(1.0, 0.0) : to_circle(wall[static_cast<std::size_t>(i + 1)]);
    r0[static_cast<std::size_t>(i)] = std::abs(zi - zeta_c);
    perimeter += std::abs(zn - zi);
  }
  const double r1 = perimeter / (2 * pi);

  // The far-field radius R_N in the circle plane whose image lies, on
  // average, farfield_chords chords from mid-chord.
  const cplx mid = 0.5 * (z1 + zle);
  const auto far_distance = [&](double rn) {
    double sum = 0;
    for (int i = 0; i < ni; ++i)
      sum += std::abs(from_circle(zeta_c + rn * dir_te * std::polar(1.0, 2 * pi * i / ni)) - mid);
    return sum / ni;
  };
  double log_lo = std::log(r1), log_hi = std::log(r1) + 1.0;
  while (far_distance(std::exp(log_hi)) < farfield_chords * chord) log_hi += 1.0;
  for (int it = 0; it < 200 && log_hi - log_lo > 1e-14; ++it) {
    const double m = 0.5 * (log_lo + log_hi);
    (far_distance(std::exp(m)) < farfield_chords * chord ? log_lo : log_hi) = m;
  }
  const double rn = std::exp(0.5 * (log_lo + log_hi));
  const double ratio = std::pow(rn / r1, 1.0 / nj);

  MeshData d;
  d.dim = 2;
  d.coords.reserve(2 * static_cast<std::size_t>(ni) * (nj + 1));
  for (int j = 0; j <= nj; ++j) {
    const double rj = j == nj ? rn : r1 * std::pow(ratio, j);
    for (int i = 0; i < ni; ++i) {
      const double ri0 = r0[static_cast<std::size_t>(i)];
      cplx p = wall[static_cast<std::size_t>(i)];
      if (j > 0) {
        const double r = j == nj ? rn : ri0 + (rj - r1) * (rn - ri0) / (rn - r1);
        p = from_circle(zeta_c + r * dir_te * std::polar(1.0, 2 * pi * i / ni));
      }
      d.add_node(p.real(), p.imag());
    }
  }
  detail::add_ogrid_cells(d, ni, nj, shape);

  if (info) {
    info->chord = chord;
    info->farfield_radius = far_distance(rn);
    info->growth_ratio = ratio;
    info->center_x = mid.real();
    info->center_y = mid.imag();
    double twice = 0;
    for (int i = 0; i < ni; ++i) {
      const cplx p = wall[static_cast<std::size_t>(i)], q = wall[static_cast<std::size_t>((i + 1) % ni)];
      twice += p.real() * q.imag() - q.real() * p.imag();
    }
    info->wall_area = 0.5 * twice;
  }
  return Mesh::from_cells(std::move(d), Orientation::require);
}

}  // namespace camber::mesh
