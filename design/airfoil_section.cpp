#include <camber/design/airfoil_section.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <camber/core/error.hpp>

namespace camber::design {

ThicknessStations::ThicknessStations(const AirfoilWall& wall, int n) : wall_(&wall) {
  for (int s = 1; s < n; ++s) stations_.push_back(0.5 * (1.0 - std::cos(M_PI * s / n)));
  for (Surface side : {Surface::upper, Surface::lower}) {
    std::vector<index_t>& order = side == Surface::upper ? upper_ : lower_;
    for (index_t k = 0; k < wall.n_nodes(); ++k)
      if (wall.surface()[static_cast<size_t>(k)] == side) order.push_back(k);
    std::sort(order.begin(), order.end(), [&](index_t a, index_t b) {
      return wall.chord_coordinate()[static_cast<size_t>(a)] <
             wall.chord_coordinate()[static_cast<size_t>(b)];
    });
  }
}

std::vector<double> ThicknessStations::operator()(const Tensor& coords) const {
  std::vector<double> t;
  t.reserve(stations_.size());
  for (double x : stations_) t.push_back(height(upper_, coords, x) - height(lower_, coords, x));
  return t;
}

double ThicknessStations::height(const std::vector<index_t>& order, const Tensor& coords,
                                 double x) const {
  const auto c = coords.host();
  const auto& n = wall_->normal();
  const auto& xc = wall_->chord_coordinate();
  auto it = std::lower_bound(order.begin(), order.end(), x, [&](index_t k, double v) {
    return xc[static_cast<size_t>(k)] < v;
  });
  if (it == order.begin()) ++it;
  if (it == order.end()) --it;
  const index_t b = *it, a = *(it - 1);
  const double xa = xc[static_cast<size_t>(a)], xb = xc[static_cast<size_t>(b)];
  const double w = xb > xa ? (x - xa) / (xb - xa) : 0.0;
  const double ya = n[0] * c(a * 2) + n[1] * c(a * 2 + 1);
  const double yb = n[0] * c(b * 2) + n[1] * c(b * 2 + 1);
  return (1.0 - w) * ya + w * yb;
}

LinearThickness::LinearThickness(const ThicknessStations& stations,
                                 const ShapeParametrization& shape) {
  const index_t n = shape.n_design();
  std::vector<double> e(static_cast<size_t>(n), 0.0);
  t0_ = stations(shape.wall_coordinates(Tensor::from_host({n}, e)));
  T_.assign(stations.size(), std::vector<double>(static_cast<size_t>(n)));
  for (index_t k = 0; k < n; ++k) {
    e.assign(static_cast<size_t>(n), 0.0);
    e[static_cast<size_t>(k)] = 1.0;
    const std::vector<double> tk = stations(shape.wall_coordinates(Tensor::from_host({n}, e)));
    for (size_t s = 0; s < stations.size(); ++s) T_[s][static_cast<size_t>(k)] = tk[s] - t0_[s];
  }
}

std::vector<double> LinearThickness::operator()(const std::vector<double>& a) const {
  std::vector<double> t = t0_;
  for (size_t s = 0; s < t.size(); ++s)
    for (size_t k = 0; k < a.size(); ++k) t[s] += T_[s][k] * a[k];
  return t;
}

std::vector<index_t> selig_order(const AirfoilWall& wall) {
  std::vector<index_t> upper, lower;
  for (index_t k = 0; k < wall.n_nodes(); ++k)
    (wall.surface()[static_cast<size_t>(k)] == Surface::upper ? upper : lower).push_back(k);
  const auto& x = wall.chord_coordinate();
  std::sort(upper.begin(), upper.end(), [&](index_t a, index_t b) {
    return x[static_cast<size_t>(a)] > x[static_cast<size_t>(b)];
  });
  std::sort(lower.begin(), lower.end(), [&](index_t a, index_t b) {
    return x[static_cast<size_t>(a)] < x[static_cast<size_t>(b)];
  });
  upper.insert(upper.end(), lower.begin(), lower.end());
  return upper;
}

double section_area(const AirfoilWall& wall, const Tensor& coords, Tensor* gradient) {
  CAMBER_REQUIRE(coords.shape() == (Shape{wall.n_nodes(), 2}),
                 "section_area: coords has shape " << shape_string(coords.shape())
                                                   << ", expected {" << wall.n_nodes() << ", 2}");
  const std::vector<index_t> order = selig_order(wall);
  const auto c = coords.host();
  const size_t n = order.size();
  double twice = 0.0;
  std::vector<double> g(static_cast<size_t>(wall.n_nodes()) * 2, 0.0);
  for (size_t i = 0; i < n; ++i) {
    const index_t p = order[i], q = order[(i + 1) % n], o = order[(i + n - 1) % n];
    twice += c(p * 2) * c(q * 2 + 1) - c(q * 2) * c(p * 2 + 1);
    g[static_cast<size_t>(p * 2)] = 0.5 * (c(q * 2 + 1) - c(o * 2 + 1));
    g[static_cast<size_t>(p * 2 + 1)] = 0.5 * (c(o * 2) - c(q * 2));
  }
  if (gradient) *gradient = Tensor::from_host({wall.n_nodes(), 2}, g);
  return 0.5 * twice;
}

double leading_edge_radius(const AirfoilWall& wall, const Tensor& coords, Tensor* gradient,
                           double probe) {
  CAMBER_REQUIRE(coords.shape() == (Shape{wall.n_nodes(), 2}),
                 "leading_edge_radius: coords has shape " << shape_string(coords.shape())
                                                          << ", expected {" << wall.n_nodes()
                                                          << ", 2}");
  const std::vector<double>& x = wall.chord_coordinate();
  const std::vector<Surface>& side = wall.surface();
  const index_t n = wall.n_nodes();
  index_t le = 0, up = -1, lo = -1;
  for (index_t k = 1; k < n; ++k)
    if (x[static_cast<size_t>(k)] < x[static_cast<size_t>(le)]) le = k;
  for (index_t k = 0; k < n; ++k) {
    const double xk = x[static_cast<size_t>(k)];
    if (k == le || xk - x[static_cast<size_t>(le)] < probe) continue;
    index_t& pick = side[static_cast<size_t>(k)] == Surface::upper ? up : lo;
    if (pick < 0 || xk < x[static_cast<size_t>(pick)]) pick = k;
  }
  CAMBER_INPUT_REQUIRE(up >= 0 && lo >= 0, "leading_edge_radius: no wall node "
                                               << probe << " chords behind the leading edge on "
                                               << (up < 0 ? "the upper" : "the lower")
                                               << " surface");
  const auto c = coords.host();
  const index_t node[3] = {le, up, lo};
  double p[3][2];
  for (int i = 0; i < 3; ++i)
    for (int d = 0; d < 2; ++d) p[i][d] = c(node[i] * 2 + d);
  // R = |AB| |BC| |CA| / (2 |(B - A) x (C - A)|), A = LE, B = upper, C = lower.
  const auto dist2 = [&](int i, int j) {
    return (p[i][0] - p[j][0]) * (p[i][0] - p[j][0]) + (p[i][1] - p[j][1]) * (p[i][1] - p[j][1]);
  };
  const double cross =
      (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
  CAMBER_INPUT_REQUIRE(cross != 0.0, "leading_edge_radius: the leading-edge node and its "
                                     "neighbours " << probe << " chords behind are collinear");
  const double radius =
      std::sqrt(dist2(0, 1) * dist2(1, 2) * dist2(2, 0)) / (2.0 * std::abs(cross));
  if (gradient) {
    // d log R = sum over the sides of d log |side| - d cross / cross.
    double g[3][2] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3;
      const double l2 = dist2(i, j);
      for (int d = 0; d < 2; ++d) {
        g[i][d] += (p[i][d] - p[j][d]) / l2;
        g[j][d] += (p[j][d] - p[i][d]) / l2;
      }
    }
    const double dcross[3][2] = {{p[1][1] - p[2][1], p[2][0] - p[1][0]},
                                 {p[2][1] - p[0][1], p[0][0] - p[2][0]},
                                 {p[0][1] - p[1][1], p[1][0] - p[0][0]}};
    std::vector<double> out(static_cast<size_t>(n) * 2, 0.0);
    for (int i = 0; i < 3; ++i)
      for (int d = 0; d < 2; ++d)
        out[static_cast<size_t>(node[i] * 2 + d)] = radius * (g[i][d] - dcross[i][d] / cross);
    *gradient = Tensor::from_host({n, 2}, out);
  }
  return radius;
}

std::string selig_text(const std::string& title, const AirfoilWall& wall, const Tensor& coords) {
  const auto c = coords.host();
  std::ostringstream out;
  out << title << '\n' << std::setprecision(10);
  for (index_t k : selig_order(wall)) out << c(k * 2) << ' ' << c(k * 2 + 1) << '\n';
  return out.str();
}

}  // namespace camber::design
