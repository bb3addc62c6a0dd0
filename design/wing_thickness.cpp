#include <camber/design/wing_thickness.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>

namespace camber::design {

namespace {

template <class View>
auto host(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

}  // namespace

WingThickness::WingThickness(const mesh::DistributedMesh& dm, const std::vector<std::string>& walls,
                             const std::vector<double>& etas,
                             const std::vector<double>& chord_fractions) {
  const MPI_Comm comm = dm.comm();
  CAMBER_INPUT_REQUIRE(dm.local().dim() == 3, "wing thickness stations need a 3-D mesh; this one is "
                                                  << dm.local().dim() << "-D");
  for (double f : etas)
    CAMBER_INPUT_REQUIRE(f > 0.0 && f < 1.0, "a thickness section eta = " << f
                                                                           << " must lie in (0, 1)");
  for (double f : chord_fractions)
    CAMBER_INPUT_REQUIRE(f > 0.0 && f < 1.0, "a thickness station x/c = "
                                                 << f << " must lie in (0, 1)");
  const mesh::Mesh& local = dm.local();
  const auto x = host(local.coords());
  const auto offsets = host(local.face_offsets());
  const auto nodes = host(local.face_nodes());
  std::vector<index_t> faces;
  for (const std::string& w : walls) {
    const std::vector<index_t> f = dm.owned_marker_faces(w);
    faces.insert(faces.end(), f.begin(), f.end());
  }
  const double inf = std::numeric_limits<double>::infinity();
  double b = -inf;
  for (index_t f : faces)
    for (index_t k = offsets(f); k < offsets(f + 1); ++k) b = std::max(b, x(nodes(k), 1));
  b = par::allreduce_max(b, comm);
  std::string names;
  for (const std::string& w : walls) names += (names.empty() ? "'" : ", '") + w + "'";
  CAMBER_INPUT_REQUIRE(std::isfinite(b) && b > 0.0,
                       "the wall " << names << " has no faces, or none at y > 0: thickness "
                                   << "stations need a wing whose root lies on y = 0");

  // Per station, this rank's highest and lowest hit: z, then the hit
  // face's (up to) four nodes (x, y, z each) and the weights of the point.
  constexpr int hit = 17;
  std::vector<double> mine;
  for (double eta : etas) {
    // The chord at y = eta b: the extreme x of the plane's cut.
    const double y0 = eta * b;
    double lo = inf, hi = -inf;
    for (index_t f : faces) {
      const index_t begin = offsets(f), end = offsets(f + 1);
      for (index_t k = begin; k < end; ++k) {
        const index_t p = nodes(k), q = nodes(k + 1 < end ? k + 1 : begin);
        const double yp = x(p, 1) - y0, yq = x(q, 1) - y0;
        if ((yp < 0.0) == (yq < 0.0)) continue;
        const double t = yp / (yp - yq);
        const double xc = x(p, 0) + t * (x(q, 0) - x(p, 0));
        lo = std::min(lo, xc), hi = std::max(hi, xc);
      }
    }
    lo = par::allreduce_min(lo, comm);
    hi = par::allreduce_max(hi, comm);
    CAMBER_INPUT_REQUIRE(hi > lo, "the plane y = " << y0 << " (eta = " << eta
                                                    << ") does not cut the wall");
    for (double xc : chord_fractions) {
      WingStation s;
      s.eta = eta;
      s.x_over_c = xc;
      s.x = lo + xc * (hi - lo);
      s.y = y0;
      stations_.push_back(s);
      // The line's highest and lowest points on this rank's wall faces: a
      // triangle as itself, a quadrilateral as the four triangles from the
      // mean of its nodes to its edges (as the flow's geometry splits it;
      // the split does not depend on where the face's node list starts,
      // so mirror-image faces are split alike).
      std::vector<double> up(hit, 0.0), down(hit, 0.0);
      up[0] = -inf, down[0] = inf;
      for (index_t f : faces) {
        const index_t begin = offsets(f);
        const int m = static_cast<int>(offsets(f + 1) - begin);
        CAMBER_REQUIRE(m == 3 || m == 4, "WingThickness: a wall face has " << m << " nodes");
        double c[3] = {0.0, 0.0, 0.0};
        for (int j = 0; j < m; ++j)
          for (int d = 0; d < 3; ++d) c[d] += x(nodes(begin + j), d) / m;
        for (int k = 0; k < (m == 3 ? 1 : 4); ++k) {
          // The triangle (p0, p1, p2) and each corner's weights on the
          // face's nodes.
          double p[3][3], on[3][4] = {};
          for (int v = 0; v < 3; ++v) {
            const bool centre = m == 4 && v == 0;
            const int node = m == 3 ? v : (k + v - 1) % 4;
            for (int d = 0; d < 3; ++d) p[v][d] = centre ? c[d] : x(nodes(begin + node), d);
            for (int j = 0; j < m; ++j) on[v][j] = centre ? 1.0 / m : (j == node ? 1.0 : 0.0);
          }
          const double x1 = p[1][0] - p[0][0], y1 = p[1][1] - p[0][1];
          const double x2 = p[2][0] - p[0][0], y2 = p[2][1] - p[0][1];
          const double det = x1 * y2 - x2 * y1;
          if (det == 0.0) continue;  // seen edge-on from above
          const double px = s.x - p[0][0], py = s.y - p[0][1];
          const double l1 = (px * y2 - x2 * py) / det, l2 = (x1 * py - px * y1) / det;
          const double tol = 1e-12;
          if (l1 < -tol || l2 < -tol || l1 + l2 > 1.0 + tol) continue;
          const double l[3] = {1.0 - l1 - l2, l1, l2};
          double z = 0.0;
          for (int v = 0; v < 3; ++v) z += l[v] * p[v][2];
          for (std::vector<double>* side : {&up, &down}) {
            if (side == &up ? !(z > up[0]) : !(z < down[0])) continue;
            std::fill(side->begin(), side->end(), 0.0);
            (*side)[0] = z;
            for (int j = 0; j < m; ++j) {
              for (int d = 0; d < 3; ++d)
                (*side)[static_cast<size_t>(1 + 3 * j + d)] = x(nodes(begin + j), d);
              double w = 0.0;
              for (int v = 0; v < 3; ++v) w += l[v] * on[v][j];
              (*side)[static_cast<size_t>(13 + j)] = w;
            }
          }
        }
      }
      mine.insert(mine.end(), up.begin(), up.end());
      mine.insert(mine.end(), down.begin(), down.end());
    }
  }
  // Every rank's hits; the highest and lowest over the ranks.
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<double> all(mine.size() * static_cast<size_t>(size));
  CAMBER_CHECK_MPI(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                                 static_cast<int>(mine.size()), MPI_DOUBLE, comm));
  for (size_t s = 0; s < stations_.size(); ++s) {
    WingStation& st = stations_[s];
    st.z_upper = -inf, st.z_lower = inf;
    for (int r = 0; r < size; ++r) {
      const double* u = &all[static_cast<size_t>(r) * mine.size() + s * 2 * hit];
      const double* d = u + hit;
      if (u[0] > st.z_upper) {
        st.z_upper = u[0];
        for (int j = 0; j < 4; ++j) {
          st.upper[static_cast<size_t>(j)] = {u[1 + 3 * j], u[2 + 3 * j], u[3 + 3 * j]};
          st.upper_weights[static_cast<size_t>(j)] = u[13 + j];
        }
      }
      if (d[0] < st.z_lower) {
        st.z_lower = d[0];
        for (int j = 0; j < 4; ++j) {
          st.lower[static_cast<size_t>(j)] = {d[1 + 3 * j], d[2 + 3 * j], d[3 + 3 * j]};
          st.lower_weights[static_cast<size_t>(j)] = d[13 + j];
        }
      }
    }
    CAMBER_INPUT_REQUIRE(st.z_upper > st.z_lower,
                         "the thickness station eta = " << st.eta << ", x/c = " << st.x_over_c
                                                        << " (x = " << st.x << ", y = " << st.y
                                                        << ") does not cross the wing twice");
  }
}

std::vector<double> WingThickness::baseline() const {
  std::vector<double> t;
  for (const WingStation& s : stations_) t.push_back(s.thickness());
  return t;
}

std::vector<std::vector<double>> WingThickness::jacobian(const FfdVolumeBox& box,
                                                         const FfdVolumeOptions& options) const {
  // The box at the hit faces' nodes, the upper four then the lower four
  // of each station (unused ones with weight 0); column k is the box's
  // displacement for the unit design e_k, interpolated as the faces
  // interpolate their nodes.
  std::vector<double> points;
  for (const WingStation& s : stations_)
    for (const auto* side : {&s.upper, &s.lower})
      for (const auto& p : *side) points.insert(points.end(), p.begin(), p.end());
  const index_t n_points = static_cast<index_t>(8 * stations_.size());
  const FfdVolume ffd(box, Tensor::from_host({n_points, 3}, points), options);
  const index_t n = ffd.n_design();
  std::vector<std::vector<double>> T(stations_.size(), std::vector<double>(static_cast<size_t>(n)));
  for (index_t k = 0; k < n; ++k) {
    std::vector<double> e(static_cast<size_t>(n), 0.0);
    e[static_cast<size_t>(k)] = 1.0;
    const auto d = ffd.apply(Tensor::from_host({n}, e)).host();
    for (size_t s = 0; s < stations_.size(); ++s) {
      double dt = 0.0;
      for (size_t j = 0; j < 4; ++j)
        dt += stations_[s].upper_weights[j] * d(static_cast<index_t>(3 * (8 * s + j) + 2)) -
              stations_[s].lower_weights[j] * d(static_cast<index_t>(3 * (8 * s + 4 + j) + 2));
      T[s][static_cast<size_t>(k)] = dt;
    }
  }
  return T;
}

std::vector<double> WingThickness::thickness(const std::vector<std::vector<double>>& T,
                                             const std::vector<double>& a) const {
  std::vector<double> t = baseline();
  for (size_t s = 0; s < t.size(); ++s)
    for (size_t k = 0; k < a.size(); ++k) t[s] += T[s][k] * a[k];
  return t;
}

}  // namespace camber::design
