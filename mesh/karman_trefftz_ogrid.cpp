#include <camber/mesh/karman_trefftz_ogrid.hpp>

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

}  // namespace camber::mesh
