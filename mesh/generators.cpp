#include <camber/mesh/generators.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "detail/ogrid_topology.hpp"
#include "detail/text_reader.hpp"
#include <camber/core/error.hpp>

namespace camber::mesh {

namespace {
constexpr double pi = 3.14159265358979323846;
}

Mesh rectangle(index_t nx, index_t ny, double lx, double ly, CellShape shape) {
  CAMBER_INPUT_REQUIRE(nx >= 1 && ny >= 1, "rectangle: needs at least 1 x 1 cells, got "
                                               << nx << " x " << ny);
  CAMBER_INPUT_REQUIRE(lx > 0 && ly > 0,
                       "rectangle: side lengths must be positive, got " << lx << " x " << ly);
  MeshData d;
  d.dim = 2;
  d.coords.reserve(2 * (nx + 1) * (ny + 1));
  for (index_t j = 0; j <= ny; ++j)
    for (index_t i = 0; i <= nx; ++i)
      d.add_node(lx * static_cast<double>(i) / nx, ly * static_cast<double>(j) / ny);
  auto node = [nx](index_t i, index_t j) { return j * (nx + 1) + i; };
  for (index_t j = 0; j < ny; ++j)
    for (index_t i = 0; i < nx; ++i) {
      const index_t a = node(i, j), b = node(i + 1, j), c = node(i + 1, j + 1), e = node(i, j + 1);
      if (shape == CellShape::quads) {
        d.add_cell(CellType::quad, {a, b, c, e});
      } else {
        d.add_cell(CellType::triangle, {a, b, c});
        d.add_cell(CellType::triangle, {a, c, e});
      }
    }
  auto& left = d.add_marker("left");
  for (index_t j = 0; j < ny; ++j) left.add_element({node(0, j + 1), node(0, j)});
  auto& right = d.add_marker("right");
  for (index_t j = 0; j < ny; ++j) right.add_element({node(nx, j), node(nx, j + 1)});
  auto& bottom = d.add_marker("bottom");
  for (index_t i = 0; i < nx; ++i) bottom.add_element({node(i, 0), node(i + 1, 0)});
  auto& top = d.add_marker("top");
  for (index_t i = 0; i < nx; ++i) top.add_element({node(i + 1, ny), node(i, ny)});
  return Mesh::from_cells(std::move(d), Orientation::require);
}

// ------------------------------------------------------------------ airfoils

double naca4_half_thickness(double x, double t, bool sharp_te) {
  const double a4 = sharp_te ? 0.1036 : 0.1015;
  return 5.0 * t *
         (0.2969 * std::sqrt(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x -
          a4 * x * x * x * x);
}

AirfoilSurface naca4(const std::string& digits, bool sharp_te, int points_per_side) {
  CAMBER_INPUT_REQUIRE(digits.size() == 4 && std::all_of(digits.begin(), digits.end(),
                                                         [](unsigned char ch) {
                                                           return std::isdigit(ch) != 0;
                                                         }),
                       "naca4: expected 4 digits such as \"0012\" or \"2412\", got '" << digits
                                                                                      << "'");
  CAMBER_INPUT_REQUIRE(points_per_side >= 3,
                       "naca4: points_per_side must be >= 3, got " << points_per_side);
  const double m = (digits[0] - '0') / 100.0;
  const double p = (digits[1] - '0') / 10.0;
  const double t = std::stoi(digits.substr(2)) / 100.0;
  CAMBER_INPUT_REQUIRE(t > 0, "naca4: thickness (last two digits) must be > 0 in '" << digits
                                                                                    << "'");
  CAMBER_INPUT_REQUIRE(m == 0 || (p > 0 && p < 1),
                       "naca4: a cambered section needs its camber position (second digit) "
                       "between 1 and 9 in '"
                           << digits << "'");
  AirfoilSurface s;
  s.name = std::string("NACA ") + digits + (sharp_te ? " (sharp trailing edge)" : "");
  const int n = points_per_side;
  std::vector<double> xu(n), yu(n), xl(n), yl(n);
  for (int k = 0; k < n; ++k) {
    const double x = 0.5 * (1.0 - std::cos(pi * k / (n - 1)));
    const double yt = naca4_half_thickness(x, t, sharp_te);
    double yc = 0, dyc = 0;
    if (m > 0) {
      if (x < p) {
        yc = m / (p * p) * (2 * p * x - x * x);
        dyc = 2 * m / (p * p) * (p - x);
      } else {
        yc = m / ((1 - p) * (1 - p)) * ((1 - 2 * p) + 2 * p * x - x * x);
        dyc = 2 * m / ((1 - p) * (1 - p)) * (p - x);
      }
    }
    const double th = std::atan(dyc);
    xu[k] = x - yt * std::sin(th);
    yu[k] = yc + yt * std::cos(th);
    xl[k] = x + yt * std::sin(th);
    yl[k] = yc - yt * std::cos(th);
  }
  for (int k = n - 1; k >= 0; --k) {
    s.x.push_back(xu[k]);
    s.y.push_back(yu[k]);
  }
  for (int k = 1; k < n; ++k) {
    s.x.push_back(xl[k]);
    s.y.push_back(yl[k]);
  }
  return s;
}

AirfoilSurface selig_dat(const std::string& path) {
  detail::TextReader r(path, '#');
  r.require_line("the airfoil name on the first line");
  AirfoilSurface s;
  s.name = std::string(r.line());
  while (r.next_line()) {
    r.require_fields(2, 2, "a coordinate pair 'x y'");
    const double x = r.real(0, "x"), y = r.real(1, "y");
    if (s.x.empty() && x > 1.5 && y > 1.5)
      r.fail("expected a coordinate pair 'x y', found the point counts " + detail::quote(r.line()) +
             " of a Lednicer-format file; convert it to Selig format (one loop from the "
             "trailing edge over the upper surface)");
    s.x.push_back(x);
    s.y.push_back(y);
  }
  if (s.x.size() < 5)
    r.fail("expected at least 5 coordinate pairs, found " + std::to_string(s.x.size()));
  return s;
}

// ------------------------------------------------------------------ O-grid

namespace {

struct Pt {
  double x, y;
};

// Points at arc lengths `at` (increasing, within [0, length]) along a polyline.
void resample(const std::vector<Pt>& line, const std::vector<double>& at, std::vector<Pt>& out) {
  std::vector<double> arc(line.size(), 0.0);
  for (std::size_t k = 1; k < line.size(); ++k)
    arc[k] = arc[k - 1] + std::hypot(line[k].x - line[k - 1].x, line[k].y - line[k - 1].y);
  std::size_t seg = 0;
  for (double s : at) {
    while (seg + 2 < line.size() && arc[seg + 1] < s) ++seg;
    const double len = arc[seg + 1] - arc[seg];
    const double u = len > 0 ? std::clamp((s - arc[seg]) / len, 0.0, 1.0) : 0.0;
    out.push_back({line[seg].x + u * (line[seg + 1].x - line[seg].x),
                   line[seg].y + u * (line[seg + 1].y - line[seg].y)});
  }
}

double polyline_length(const std::vector<Pt>& line) {
  double l = 0;
  for (std::size_t k = 1; k < line.size(); ++k)
    l += std::hypot(line[k].x - line[k - 1].x, line[k].y - line[k - 1].y);
  return l;
}

double polygon_signed_area(const std::vector<Pt>& p) {
  double twice = 0;
  for (std::size_t k = 1; k + 1 < p.size(); ++k)
    twice += (p[k].x - p[0].x) * (p[k + 1].y - p[0].y) - (p[k + 1].x - p[0].x) * (p[k].y - p[0].y);
  return 0.5 * twice;
}

}  // namespace

namespace detail {

WallLoop wall_loop(const AirfoilSurface& surface, const std::string& who) {
  // The closed wall polygon, counter-clockwise, first point at the trailing
  // edge, consecutive duplicates removed.
  std::vector<Pt> p;
  for (index_t k = 0; k < surface.size(); ++k) {
    const Pt q{surface.x[k], surface.y[k]};
    if (p.empty() || q.x != p.back().x || q.y != p.back().y) p.push_back(q);
  }
  // Trailing edge: the first point (or the midpoint of first and last for
  // a blunt edge); leading edge: the point farthest from it (as XFOIL
  // defines them); chord: their distance.
  double extent = 0;
  for (const Pt& q : p) extent = std::max(extent, std::hypot(q.x - p[0].x, q.y - p[0].y));
  CAMBER_INPUT_REQUIRE(extent > 0, who << ": all surface points coincide");
  const bool closed = std::hypot(p.back().x - p.front().x, p.back().y - p.front().y) <=
                      1e-12 * extent;
  if (closed) p.pop_back();
  // A clockwise surface (lower surface first) is reversed into Selig order,
  // keeping a trailing-edge point first.
  if (polygon_signed_area(p) < 0) std::reverse(closed ? p.begin() + 1 : p.begin(), p.end());
  CAMBER_INPUT_REQUIRE(polygon_signed_area(p) > 0,
                       who << ": the surface encloses no area; check the coordinates");
  const Pt te = closed ? p.front()
                       : Pt{0.5 * (p.front().x + p.back().x), 0.5 * (p.front().y + p.back().y)};
  std::size_t le = 0;
  double chord = 0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const double dist_te = std::hypot(p[k].x - te.x, p[k].y - te.y);
    if (dist_te > chord) {
      chord = dist_te;
      le = k;
    }
  }
  CAMBER_INPUT_REQUIRE(le > 0 && le + 1 < p.size(),
                       who << ": the leading edge (the point farthest from the trailing "
                       "edge) must lie between the first and the last point; is the surface in "
                       "Selig order?");
  WallLoop loop;
  for (const Pt& q : p) {
    loop.x.push_back(q.x);
    loop.y.push_back(q.y);
  }
  loop.closed = closed;
  loop.te_x = te.x;
  loop.te_y = te.y;
  loop.le = le;
  loop.chord = chord;
  return loop;
}

void add_ogrid_cells(MeshData& d, int ni, int nj, CellShape shape) {
  auto node = [ni](int i, int j) { return static_cast<index_t>(j) * ni + (i % ni); };
  d.cell_types.reserve(static_cast<std::size_t>(ni) * nj * (shape == CellShape::quads ? 1 : 2));
  for (int j = 0; j < nj; ++j)
    for (int i = 0; i < ni; ++i) {
      // The wall runs counter-clockwise with the domain on its right, so
      // (i,j) -> (i,j+1) -> (i+1,j+1) -> (i+1,j) is counter-clockwise.
      const index_t a = node(i, j), b = node(i, j + 1), c = node(i + 1, j + 1), e = node(i + 1, j);
      if (shape == CellShape::quads) {
        d.add_cell(CellType::quad, {a, b, c, e});
      } else if (2 * i < ni) {
        d.add_cell(CellType::triangle, {a, b, c});
        d.add_cell(CellType::triangle, {a, c, e});
      } else {
        // The mirror image of the first half's split (node i reflects to
        // ni - i), so that a grid symmetric about the chord stays so.
        d.add_cell(CellType::triangle, {a, b, e});
        d.add_cell(CellType::triangle, {b, c, e});
      }
    }
  auto& airfoil = d.add_marker("airfoil");
  for (int i = 0; i < ni; ++i) airfoil.add_element({node(i, 0), node(i + 1, 0)});
  auto& farfield = d.add_marker("farfield");
  for (int i = 0; i < ni; ++i) farfield.add_element({node(i + 1, nj), node(i, nj)});
}

}  // namespace detail

Mesh airfoil_ogrid(const AirfoilSurface& surface, int cells_around, int cells_normal,
                   double first_cell_height, double farfield_chords, OGridInfo* info,
                   CellShape shape) {
  CAMBER_INPUT_REQUIRE(surface.x.size() == surface.y.size() && surface.size() >= 5,
                       "airfoil_ogrid: the surface needs at least 5 points (x and y of equal "
                       "length), got "
                           << surface.x.size() << " and " << surface.y.size());
  CAMBER_INPUT_REQUIRE(cells_around >= 16 && cells_around % 2 == 0,
                       "airfoil_ogrid: cells_around must be even and >= 16, got " << cells_around);
  CAMBER_INPUT_REQUIRE(cells_normal >= 2,
                       "airfoil_ogrid: cells_normal must be >= 2, got " << cells_normal);
  CAMBER_INPUT_REQUIRE(farfield_chords >= 2,
                       "airfoil_ogrid: farfield_chords must be >= 2 (the far-field circle "
                       "must clear the airfoil; below about 50 chords the forces need a "
                       "far-field vortex correction), got "
                           << farfield_chords);

  const detail::WallLoop loop = detail::wall_loop(surface, "airfoil_ogrid");
  std::vector<Pt> p(loop.x.size());
  for (std::size_t k = 0; k < p.size(); ++k) p[k] = {loop.x[k], loop.y[k]};
  const bool closed = loop.closed;
  const Pt te{loop.te_x, loop.te_y};
  const std::size_t le = loop.le;
  const double chord = loop.chord;

  // Sides: upper (trailing edge -> leading edge), lower (leading edge ->
  // trailing edge), and for a blunt trailing edge its base.
  std::vector<Pt> upper(p.begin(), p.begin() + le + 1);
  std::vector<Pt> lower(p.begin() + le, p.end());
  std::vector<Pt> base;
  if (closed) {
    lower.push_back(p.front());
  } else {
    base = {p.back(), p.front()};
  }
  const double l_upper = polyline_length(upper), l_lower = polyline_length(lower);
  const double l_base = base.empty() ? 0.0 : polyline_length(base);
  const int n_base =
      base.empty() ? 0
                   : std::max(2, static_cast<int>(std::lround(cells_around * l_base /
                                                              (l_upper + l_lower + l_base))));
  const int n_upper = (cells_around - n_base) / 2;
  const int n_lower = cells_around - n_base - n_upper;
  CAMBER_INPUT_REQUIRE(n_upper >= 4 && n_lower >= 4,
                       "airfoil_ogrid: cells_around = " << cells_around
                                                        << " is too small for this surface");
  std::vector<Pt> wall;
  wall.reserve(cells_around);
  auto cosine = [](double len, int n) {
    std::vector<double> at;
    for (int k = 0; k < n; ++k) at.push_back(len * 0.5 * (1.0 - std::cos(pi * k / n)));
    return at;
  };
  resample(upper, cosine(l_upper, n_upper), wall);
  resample(lower, cosine(l_lower, n_lower), wall);
  if (n_base > 0) {
    std::vector<double> at;
    for (int k = 0; k < n_base; ++k) at.push_back(l_base * k / n_base);
    resample(base, at, wall);
  }
  const int ni = cells_around, nj = cells_normal;

  // Far field: circle around mid-chord; the angle of far-field point i
  // follows half its index and half its arc length along the wall, so it
  // increases with i and keeps some of the wall's clustering.
  const double cx = 0.5 * (p[le].x + te.x);
  const double cy = 0.5 * (p[le].y + te.y);
  const double radius = farfield_chords * chord;
  std::vector<double> arc(ni + 1, 0.0);
  for (int i = 0; i < ni; ++i) {
    const Pt& a = wall[i];
    const Pt& b = wall[(i + 1) % ni];
    arc[i + 1] = arc[i] + std::hypot(b.x - a.x, b.y - a.y);
  }
  const double theta0 = std::atan2(wall[0].y - cy, wall[0].x - cx);
  std::vector<Pt> far(ni), normal(ni);
  for (int i = 0; i < ni; ++i) {
    const double th = theta0 + 2 * pi * (0.5 * i / ni + 0.5 * arc[i] / arc[ni]);
    far[i] = {cx + radius * std::cos(th), cy + radius * std::sin(th)};
    // Bisector of the outward unit normals (dy, -dx) of the two wall edges.
    const Pt& a = wall[(i + ni - 1) % ni];
    const Pt& b = wall[i];
    const Pt& c = wall[(i + 1) % ni];
    const double l0 = std::hypot(b.x - a.x, b.y - a.y), l1 = std::hypot(c.x - b.x, c.y - b.y);
    double nx = (b.y - a.y) / l0 + (c.y - b.y) / l1;
    double ny = -(b.x - a.x) / l0 - (c.x - b.x) / l1;
    double nl = std::hypot(nx, ny);
    if (nl < 1e-8) {  // a cusp: point away from mid-chord
      nx = b.x - cx;
      ny = b.y - cy;
      nl = std::hypot(nx, ny);
    }
    normal[i] = {nx / nl, ny / nl};
  }

  // Wall distances of the layers: geometric growth from first_cell_height
  // to the far-field distance.
  const double dist = radius - 0.5 * chord;
  CAMBER_INPUT_REQUIRE(first_cell_height > 0 && first_cell_height * nj < dist,
                       "airfoil_ogrid: first_cell_height must be > 0 and cells_normal * "
                       "first_cell_height < the far-field distance "
                           << dist << ", got " << first_cell_height);
  auto total = [&](double r) { return first_cell_height * (std::pow(r, nj) - 1) / (r - 1); };
  double lo = 1.0 + 1e-12, hi = 2.0;
  while (total(hi) < dist) hi *= 2;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (total(mid) < dist ? lo : hi) = mid;
  }
  const double growth = 0.5 * (lo + hi);
  std::vector<double> s(nj + 1, 0.0);
  for (int j = 1; j <= nj; ++j) s[j] = s[j - 1] + first_cell_height * std::pow(growth, j - 1);
  s[nj] = dist;

  MeshData d;
  d.dim = 2;
  d.coords.reserve(2 * static_cast<std::size_t>(ni) * (nj + 1));
  const double blend_len = chord;
  const double w_end = 1.0 - std::exp(-dist / blend_len);
  // The extrusion direction of layer j: the wall normals averaged with
  // Gaussian weights exp(-(d / b_j)^2) over the wall arc length d, b_j =
  // min(s_j, chord / 4). At the wall it is the local normal (orthogonal
  // cells); further out, the normals' turn at a sharp trailing edge is
  // spread over the columns within b_j of it. (The plain normals send one
  // column of wedges, 90 degrees wide, into each side of the near wake;
  // on the transonic NACA 0012 that alone cost 10% of CL.)
  // The weights are negligible past 5 b_j, so each average walks out from
  // i in both directions only that far; the layers beyond chord / 4 share
  // one width, and their directions are computed once.
  std::vector<Pt> dir(normal);
  double dir_width = 0.0;
  for (int j = 0; j <= nj; ++j) {
    const double w = (1.0 - std::exp(-s[j] / blend_len)) / w_end;
    const double width = std::min(s[j], 0.25 * chord);
    for (int i = 0; i < ni && j > 0 && width != dir_width; ++i) {
      // The window of wall points within 5 b_j of i: walk forward and
      // backward by arc length (each k taken from the side nearer to it,
      // forward on a tie), then sum in increasing k.
      const double perimeter = arc[ni];
      int reach[2] = {0, 0};  // steps forward, backward
      for (int side = 0; side < 2; ++side)
        for (int step = 1; step < ni; ++step) {
          const int k = ((i + (side == 0 ? step : -step)) % ni + ni) % ni;
          const double along =
              std::fmod((side == 0 ? 1.0 : -1.0) * (arc[k] - arc[i]) + perimeter, perimeter);
          if (along > 5 * width ||
              (side == 0 ? along > 0.5 * perimeter : along >= 0.5 * perimeter))
            break;
          reach[side] = step;
        }
      const int first = ((i - reach[1]) % ni + ni) % ni, last = (i + reach[0]) % ni;
      double sx = 0, sy = 0;
      const auto add = [&](int from, int to) {
        for (int k = from; k <= to; ++k) {
          double dd = std::fabs(arc[k] - arc[i]);
          dd = std::min(dd, perimeter - dd);
          if (dd > 5 * width) continue;
          const double wk = std::exp(-(dd / width) * (dd / width));
          sx += wk * normal[k].x;
          sy += wk * normal[k].y;
        }
      };
      if (reach[0] + reach[1] + 1 >= ni) {
        add(0, ni - 1);
      } else if (first <= last) {
        add(first, last);
      } else {
        add(0, last);
        add(first, ni - 1);
      }
      const double l = std::hypot(sx, sy);
      dir[i] = {sx / l, sy / l};
    }
    if (j > 0) dir_width = width;
    for (int i = 0; i < ni; ++i) {
      if (j == nj) {
        d.add_node(far[i].x, far[i].y);
        continue;
      }
      const double ux = (1 - w) * dir[i].x + w * (far[i].x - wall[i].x) / dist;
      const double uy = (1 - w) * dir[i].y + w * (far[i].y - wall[i].y) / dist;
      d.add_node(wall[i].x + s[j] * ux, wall[i].y + s[j] * uy);
    }
  }
  detail::add_ogrid_cells(d, ni, nj, shape);

  if (info) {
    info->chord = chord;
    info->farfield_radius = radius;
    info->growth_ratio = growth;
    info->center_x = cx;
    info->center_y = cy;
    info->wall_area = polygon_signed_area(wall);
  }
  return Mesh::from_cells(std::move(d), Orientation::require);
}

}  // namespace camber::mesh
