#include <camber/solvers/aero/wing_sections.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <tuple>
#include <utility>

#include <Eigen/Dense>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/parallel/collectives.hpp>

namespace camber::solvers::aero {

namespace {

template <class View>
auto host(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

// This rank's owned faces of the walls, the host arrays that locate them,
// their pressures as the forces take them, and the walls' largest y over
// all ranks (the semi-span). Collective.
struct WallFaces {
  WallFaces(const euler::Discretization& disc, const Tensor& U,
            const std::vector<std::string>& walls)
      : x(host(disc.mesh().local().coords())),
        offsets(host(disc.mesh().local().face_offsets())),
        nodes(host(disc.mesh().local().face_nodes())),
        normal(host(disc.geometry().face_normal)),
        pressures(disc.wall_face_pressures(U)),
        pf(pressures.host()) {
    for (const std::string& w : walls) {
      const std::vector<index_t> f = disc.mesh().owned_marker_faces(w);
      faces.insert(faces.end(), f.begin(), f.end());
    }
    double largest = -std::numeric_limits<double>::infinity();
    for (index_t f : faces)
      for (index_t k = offsets(f); k < offsets(f + 1); ++k) largest = std::max(largest, x(nodes(k), 1));
    b = par::allreduce_max(largest, disc.mesh().comm());
  }
  decltype(host(std::declval<mesh::Mesh>().coords())) x;
  decltype(host(std::declval<mesh::Mesh>().face_offsets())) offsets;
  decltype(host(std::declval<mesh::Mesh>().face_nodes())) nodes;
  decltype(host(std::declval<mesh::Geometry>().face_normal)) normal;
  Tensor pressures;
  decltype(std::declval<Tensor>().host()) pf;
  std::vector<index_t> faces;
  double b = 0.0;
};

}  // namespace

std::vector<SectionPoint> wing_sections(const euler::Discretization& disc, const Tensor& U,
                                        const std::vector<std::string>& walls,
                                        const std::vector<double>& etas) {
  mesh::DistributedMesh& dm = disc.mesh();
  collective_guard(dm.comm(), [&] {
    CAMBER_INPUT_REQUIRE(disc.dim() == 3, "wing sections need a 3-D mesh; this one is "
                                              << disc.dim() << "-D");
    for (double eta : etas)
      CAMBER_INPUT_REQUIRE(eta > 0.0 && eta < 1.0,
                           "a wing station eta = " << eta << " must lie in (0, 1)");
  });
  const WallFaces wall(disc, U, walls);
  const auto& x = wall.x;
  const auto& offsets = wall.offsets;
  const auto& nodes = wall.nodes;
  const auto& normal = wall.normal;
  const auto& pf = wall.pf;
  const std::vector<index_t>& faces = wall.faces;
  const double b = wall.b;

  // Per cut: eta, x, z, Cp, side.
  std::vector<double> mine;
  const double p_inf = 1.0 / disc.gas().gamma, q_inf = 0.5 * disc.flow().mach * disc.flow().mach;
  for (double eta : etas) {
    const double y0 = eta * b;
    for (index_t f : faces) {
      double cut[2][3];
      int n_cut = 0;
      const index_t begin = offsets(f), end = offsets(f + 1);
      for (index_t k = begin; k < end && n_cut < 2; ++k) {
        const index_t a = nodes(k), c = nodes(k + 1 < end ? k + 1 : begin);
        const double ya = x(a, 1) - y0, yc = x(c, 1) - y0;
        if ((ya < 0.0) == (yc < 0.0)) continue;  // the edge does not cross
        const double t = ya / (ya - yc);
        for (int d = 0; d < 3; ++d) cut[n_cut][d] = x(a, d) + t * (x(c, d) - x(a, d));
        ++n_cut;
      }
      if (n_cut < 2) continue;
      const double p = pf(f);
      // The face normal points out of the fluid, into the body: the upper
      // surface's points to -z.
      mine.insert(mine.end(), {eta, 0.5 * (cut[0][0] + cut[1][0]), 0.5 * (cut[0][2] + cut[1][2]),
                               (p - p_inf) / q_inf, normal(f, 2) < 0.0 ? 1.0 : -1.0});
    }
  }

  const std::vector<double> all = par::gather_on_root(mine, dm.comm());
  std::vector<SectionPoint> points;
  for (size_t i = 0; i + 4 < all.size(); i += 5) {
    SectionPoint q;
    q.eta = all[i];
    q.x = all[i + 1];
    q.z = all[i + 2];
    q.cp = all[i + 3];
    q.side = all[i + 4] > 0.0 ? 1 : -1;
    points.push_back(q);
  }
  // x/c from each station's leading to trailing edge.
  for (double eta : etas) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const SectionPoint& q : points)
      if (q.eta == eta) lo = std::min(lo, q.x), hi = std::max(hi, q.x);
    for (SectionPoint& q : points)
      if (q.eta == eta && hi > lo) q.x_over_c = (q.x - lo) / (hi - lo);
  }
  std::sort(points.begin(), points.end(), [](const SectionPoint& a, const SectionPoint& c) {
    return std::make_tuple(a.eta, -a.side, a.x) < std::make_tuple(c.eta, -c.side, c.x);
  });
  return points;
}

SpanLoad span_load(const euler::Discretization& disc, const Tensor& U,
                   const std::vector<std::string>& walls, int strips) {
  mesh::DistributedMesh& dm = disc.mesh();
  collective_guard(dm.comm(), [&] {
    CAMBER_INPUT_REQUIRE(disc.dim() == 3, "a spanwise load needs a 3-D mesh; this one is "
                                              << disc.dim() << "-D");
    CAMBER_INPUT_REQUIRE(strips >= 1, "a spanwise load needs at least one strip, not " << strips);
  });
  const WallFaces wall(disc, U, walls);
  const auto& x = wall.x;
  const auto& offsets = wall.offsets;
  const auto& nodes = wall.nodes;
  const auto& normal = wall.normal;
  const auto& pf = wall.pf;
  const std::vector<index_t>& faces = wall.faces;
  const double b = wall.b;
  const double alpha = disc.flow().alpha_deg * 3.14159265358979323846 / 180.0;
  const double p_inf = 1.0 / disc.gas().gamma, q_inf = 0.5 * disc.flow().mach * disc.flow().mach;
  // Per strip: lift, then drag. The face normal (area-weighted) points
  // into the body, along the pressure's force on it. A face's force is
  // shared among the strips it crosses by the fraction of its area in
  // each (exact for the triangles of a fan from its first node).
  std::vector<double> force(2 * static_cast<size_t>(strips), 0.0);
  const double dy = b / strips;
  // The fraction of a triangle's area below y, its nodes' y sorted.
  const auto below = [](double y, double y0, double y1, double y2) {
    if (y <= y0) return 0.0;
    if (y >= y2) return 1.0;
    if (y < y1) return (y - y0) * (y - y0) / ((y2 - y0) * (y1 - y0));
    return 1.0 - (y2 - y) * (y2 - y) / ((y2 - y0) * (y2 - y1));
  };
  for (index_t f : faces) {
    const index_t begin = offsets(f), end = offsets(f + 1);
    const double dp = (pf(f) - p_inf) / q_inf;
    const double fx = dp * normal(f, 0), fz = dp * normal(f, 2);
    const double lift = -fx * std::sin(alpha) + fz * std::cos(alpha);
    const double drag = fx * std::cos(alpha) + fz * std::sin(alpha);
    // The fan's triangles and their areas.
    std::vector<std::array<double, 4>> fan;  // y0 <= y1 <= y2, area
    double area = 0.0;
    const index_t a = nodes(begin);
    for (index_t k = begin + 1; k + 1 < end; ++k) {
      const index_t c = nodes(k), d = nodes(k + 1);
      double u[3], v[3];
      for (int q = 0; q < 3; ++q) u[q] = x(c, q) - x(a, q), v[q] = x(d, q) - x(a, q);
      const double t = 0.5 * std::sqrt(std::pow(u[1] * v[2] - u[2] * v[1], 2) +
                                       std::pow(u[2] * v[0] - u[0] * v[2], 2) +
                                       std::pow(u[0] * v[1] - u[1] * v[0], 2));
      std::array<double, 3> y{x(a, 1), x(c, 1), x(d, 1)};
      std::sort(y.begin(), y.end());
      fan.push_back({y[0], y[1], y[2], t});
      area += t;
    }
    for (const auto& tri : fan) {
      const double share = area > 0.0 ? tri[3] / area : 1.0 / static_cast<double>(fan.size());
      const int first = std::clamp(static_cast<int>(tri[0] / dy), 0, strips - 1);
      const int last = std::clamp(static_cast<int>(tri[2] / dy), 0, strips - 1);
      for (int j = first; j <= last; ++j) {
        const double lo = j == 0 ? -std::numeric_limits<double>::infinity() : j * dy;
        const double hi = j == strips - 1 ? std::numeric_limits<double>::infinity() : (j + 1) * dy;
        const double w = share * (below(hi, tri[0], tri[1], tri[2]) - below(lo, tri[0], tri[1], tri[2]));
        force[2 * static_cast<size_t>(j)] += w * lift;
        force[2 * static_cast<size_t>(j) + 1] += w * drag;
      }
    }
  }
  std::vector<double> all(force.size());
  CAMBER_CHECK_MPI(MPI_Allreduce(force.data(), all.data(), static_cast<int>(force.size()),
                                 MPI_DOUBLE, MPI_SUM, dm.comm()));
  SpanLoad load;
  load.semi_span = b;
  for (int j = 0; j < strips; ++j) {
    load.y_lo.push_back(j * dy);
    load.y_hi.push_back((j + 1) * dy);
    load.lift.push_back(all[2 * static_cast<size_t>(j)] / dy);
    load.drag.push_back(all[2 * static_cast<size_t>(j) + 1] / dy);
  }
  return load;
}

SpanEfficiency span_efficiency(const SpanLoad& load, int terms) {
  const int strips = static_cast<int>(load.lift.size());
  CAMBER_INPUT_REQUIRE(terms >= 1 && terms <= strips,
                       "span_efficiency: " << terms << " terms for " << strips << " strips");
  const double b = load.semi_span;
  // Each strip's mean of sin((2k - 1) theta(y)), by the midpoint rule on
  // 64 sub-intervals (the integrand is smooth in y except at the tip,
  // where sqrt(b - y) is integrable and the rule's error small).
  const int sub = 64;
  Eigen::MatrixXd M(strips, terms);
  Eigen::VectorXd r(strips);
  for (int j = 0; j < strips; ++j) {
    const double lo = load.y_lo[static_cast<size_t>(j)], hi = load.y_hi[static_cast<size_t>(j)];
    for (int k = 0; k < terms; ++k) {
      double sum = 0.0;
      for (int q = 0; q < sub; ++q) {
        const double y = lo + (q + 0.5) / sub * (hi - lo);
        const double theta = std::acos(std::clamp(y / b, -1.0, 1.0));
        sum += std::sin((2 * k + 1) * theta);
      }
      M(j, k) = 4.0 * b * sum / sub;
    }
    r(j) = load.lift[static_cast<size_t>(j)];
  }
  const Eigen::VectorXd a = M.colPivHouseholderQr().solve(r);
  SpanEfficiency out;
  double delta = 0.0;
  for (int k = 0; k < terms; ++k) {
    out.a.push_back(a(k));
    if (k > 0) delta += (2 * k + 1) * (a(k) / a(0)) * (a(k) / a(0));
  }
  out.e = 1.0 / (1.0 + delta);
  // The elliptic load of the same lift: A_1's term alone with A_1 from the
  // strips' total (sum lift dy = pi b^2 A_1 over the half span).
  double total = 0.0, largest = 0.0;
  for (int j = 0; j < strips; ++j) {
    total += load.lift[static_cast<size_t>(j)] *
             (load.y_hi[static_cast<size_t>(j)] - load.y_lo[static_cast<size_t>(j)]);
    largest = std::max(largest, std::abs(load.lift[static_cast<size_t>(j)]));
  }
  const double a1 = total / (3.14159265358979323846 * b * b);
  for (int j = 0; j < strips; ++j)
    out.elliptic_gap = std::max(out.elliptic_gap, std::abs(load.lift[static_cast<size_t>(j)] -
                                                           a1 * M(j, 0)) / largest);
  return out;
}

std::vector<SectionPoint> read_section_reference(const std::string& path) {
  std::ifstream in(path);
  CAMBER_INPUT_REQUIRE(in, "cannot open the reference pressure file '" << path << "'");
  std::vector<SectionPoint> points;
  std::string line;
  bool header = false;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    const std::string text = line.substr(first, last - first + 1);
    if (!header) {
      CAMBER_INPUT_REQUIRE(text == "eta,x_over_c,cp,side",
                           path << ":" << number << ": the header is '" << text
                                << "'; expected 'eta,x_over_c,cp,side'");
      header = true;
      continue;
    }
    std::vector<double> v;
    std::stringstream fields(text);
    std::string field;
    while (std::getline(fields, field, ',')) {
      char* end = nullptr;
      const double x = std::strtod(field.c_str(), &end);
      CAMBER_INPUT_REQUIRE(!field.empty() && end && *end == '\0' && std::isfinite(x),
                           path << ":" << number << ": '" << field << "' is not a number");
      v.push_back(x);
    }
    CAMBER_INPUT_REQUIRE(v.size() == 4, path << ":" << number << ": " << v.size()
                                             << " columns; expected 4 (eta,x_over_c,cp,side)");
    CAMBER_INPUT_REQUIRE(v[0] > 0.0 && v[0] < 1.0 && v[1] >= 0.0 && v[1] <= 1.0,
                         path << ":" << number << ": eta = " << v[0] << " must lie in (0, 1) and x/c = "
                              << v[1] << " in [0, 1]");
    CAMBER_INPUT_REQUIRE(v[3] == -1.0 || v[3] == 0.0 || v[3] == 1.0,
                         path << ":" << number << ": side = " << v[3] << " must be 1 (upper), -1 (lower) or 0 (leading edge)");
    SectionPoint q;
    q.eta = v[0];
    q.x_over_c = v[1];
    q.cp = v[2];
    q.side = static_cast<int>(v[3]);
    points.push_back(q);
  }
  CAMBER_INPUT_REQUIRE(header, path << ": no header line 'eta,x_over_c,cp,side'");
  CAMBER_INPUT_REQUIRE(!points.empty(), path << ": no points");
  return points;
}

std::vector<SectionComparison> compare_sections(const std::vector<SectionPoint>& computed,
                                                const std::vector<SectionPoint>& reference) {
  const auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9; };
  std::vector<double> etas;
  for (const SectionPoint& r : reference)
    if (std::none_of(etas.begin(), etas.end(), [&](double e) { return same(e, r.eta); }))
      etas.push_back(r.eta);
  std::vector<SectionComparison> out;
  for (double eta : etas) {
    // Each side's computed curve, by x/c.
    std::vector<std::pair<double, double>> curve[2];
    for (const SectionPoint& q : computed)
      if (same(q.eta, eta)) curve[q.side > 0 ? 1 : 0].emplace_back(q.x_over_c, q.cp);
    if (curve[0].empty() && curve[1].empty()) continue;
    for (auto& c : curve) std::sort(c.begin(), c.end());
    SectionComparison s;
    s.eta = eta;
    double sum = 0.0;
    for (const SectionPoint& r : reference) {
      if (!same(r.eta, eta)) continue;
      const auto& c = curve[r.side > 0 ? 1 : 0];
      if (r.side == 0 || c.empty() || r.x_over_c < c.front().first || r.x_over_c > c.back().first) {
        ++s.skipped;
        continue;
      }
      const auto hi = std::lower_bound(c.begin(), c.end(), std::make_pair(r.x_over_c, -1e300));
      double cp = hi->second;
      if (hi != c.begin() && hi->first > r.x_over_c) {
        const auto lo = hi - 1;
        const double t = (r.x_over_c - lo->first) / (hi->first - lo->first);
        cp = lo->second + t * (hi->second - lo->second);
      }
      const double d = cp - r.cp;
      sum += d * d;
      ++s.compared;
      if (std::abs(d) > s.max_abs) s.max_abs = std::abs(d), s.max_at = r.x_over_c, s.max_side = r.side;
    }
    s.rms = s.compared > 0 ? std::sqrt(sum / s.compared) : 0.0;
    out.push_back(s);
  }
  return out;
}

}  // namespace camber::solvers::aero
