#include <camber/solvers/aero/flow_output.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include <camber/core/error.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>

namespace camber::solvers::aero {

namespace eu = solvers::euler;

std::vector<io::Field> flow_fields(const eu::Discretization& disc, const Tensor& U) {
  const eu::FlowConditions& flow = disc.flow();
  const eu::IdealGas gas = disc.gas();
  const double rho_s = flow.density_scale(), c_s = flow.velocity_scale(),
               p_s = flow.pressure_scale();
  const double p_inf = 1.0 / flow.gamma, q_inf = 0.5 * flow.mach * flow.mach;
  const double s_inf = p_inf;  // p / rho^gamma with rho = 1
  const auto h = U.host();
  const index_t n = disc.n_owned();
  const int nv = disc.n_vars();
  io::Field rho{"Density [kg/m^3]", 1, {}}, vel{"Velocity [m/s]", 3, {}},
      p{"Pressure [Pa]", 1, {}}, mach{"Mach", 1, {}}, cp{"Cp", 1, {}},
      ds{"Entropy deviation s/s_inf - 1", 1, {}};
  const auto add = [&](const auto& w, double w_z) {
    rho.values.push_back(w.rho * rho_s);
    vel.values.insert(vel.values.end(), {w.vel[0] * c_s, w.vel[1] * c_s, w_z * c_s});
    p.values.push_back(w.p * p_s);
    mach.values.push_back(eu::mach_number(gas, w));
    cp.values.push_back((w.p - p_inf) / q_inf);
    ds.values.push_back(eu::entropy_measure(gas, w) / s_inf - 1.0);
  };
  for (index_t c = 0; c < n; ++c) {
    if (nv == 5) {
      eu::Conserved<double, 3> u;
      for (int k = 0; k < 5; ++k) u[k] = h(c * 5 + k);
      const eu::Primitive<double, 3> w = eu::to_primitive(gas, u);
      add(w, w.vel[2]);
    } else {
      eu::Conserved<double, 2> u;
      for (int k = 0; k < 4; ++k) u[k] = h(c * 4 + k);
      add(eu::to_primitive(gas, u), 0.0);
    }
  }
  return {rho, vel, p, mach, cp, ds};
}

std::vector<WallPoint> wall_cp(const eu::Discretization& disc, const Tensor& U,
                               const std::vector<eu::BoundaryCondition>& conditions) {
  mesh::DistributedMesh& dm = disc.mesh();
  const auto center = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                          disc.geometry().face_center);
  const Tensor pressures = disc.wall_face_pressures(U);
  const auto pf = pressures.host();
  const double p_inf = 1.0 / disc.flow().gamma, q_inf = 0.5 * disc.flow().mach * disc.flow().mach;
  const bool three = disc.dim() == 3;
  std::vector<double> mine;
  for (const eu::BoundaryCondition& c : conditions) {
    if (c.kind != eu::BoundaryKind::slip_wall) continue;
    for (index_t f : dm.owned_marker_faces(c.marker))
      mine.insert(mine.end(),
                  {center(f, 0), center(f, 1), three ? center(f, 2) : 0.0, (pf(f) - p_inf) / q_inf});
  }
  const std::vector<double> all = par::gather_on_root(mine, dm.comm());
  std::vector<WallPoint> points;
  for (size_t i = 0; i + 3 < all.size(); i += 4)
    points.push_back({all[i], all[i + 1], all[i + 2], all[i + 3]});
  if (points.empty()) return points;
  if (three) {
    std::sort(points.begin(), points.end(), [](const WallPoint& a, const WallPoint& b) {
      return std::tie(a.x, a.y, a.z) < std::tie(b.x, b.y, b.z);
    });
    return points;
  }
  double cx = 0.0, cy = 0.0;
  for (const WallPoint& q : points) cx += q.x, cy += q.y;
  cx /= static_cast<double>(points.size());
  cy /= static_cast<double>(points.size());
  std::sort(points.begin(), points.end(), [&](const WallPoint& a, const WallPoint& b) {
    return std::atan2(a.y - cy, a.x - cx) < std::atan2(b.y - cy, b.x - cx);
  });
  return points;
}

std::vector<double> surface_sensitivity(const eu::Discretization& disc,
                                        const std::vector<std::string>& walls,
                                        const std::vector<std::int64_t>& node_rows,
                                        const Tensor& dX_share) {
  mesh::DistributedMesh& dm = disc.mesh();
  const int dim = disc.dim();
  CAMBER_REQUIRE(dX_share.size() == static_cast<index_t>(node_rows.size()) * dim,
                 "aero::surface_sensitivity: dX_share has " << dX_share.size()
                                                            << " values for " << node_rows.size()
                                                            << " node rows in " << dim << "-D");
  const auto fo =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().face_offsets());
  const auto fn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().face_nodes());
  const std::vector<std::int64_t>& node_gid = dm.node_global_ids();

  // The wall's nodes, the same sorted list on every rank: O(wall nodes)
  // per rank, never the global mesh.
  std::vector<std::int64_t> wall_nodes;
  for (const std::string& wall : walls)
    for (index_t f : dm.owned_marker_faces(wall))
      for (index_t q = fo(f); q < fo(f + 1); ++q)
        wall_nodes.push_back(node_gid[static_cast<size_t>(fn(q))]);
  wall_nodes = par::all_gather(wall_nodes, dm.comm());
  std::sort(wall_nodes.begin(), wall_nodes.end());
  wall_nodes.erase(std::unique(wall_nodes.begin(), wall_nodes.end()), wall_nodes.end());
  const auto wall_index = [&](std::int64_t node) -> std::int64_t {
    const auto it = std::lower_bound(wall_nodes.begin(), wall_nodes.end(), node);
    return it != wall_nodes.end() && *it == node ? it - wall_nodes.begin() : -1;
  };

  // dJ/dX at the wall nodes: every rank's share, summed.
  std::vector<double> g(static_cast<size_t>(dim) * wall_nodes.size(), 0.0);
  const auto share = dX_share.host();
  for (size_t r = 0; r < node_rows.size(); ++r) {
    const std::int64_t w = wall_index(node_rows[r]);
    if (w < 0) continue;
    for (int d = 0; d < dim; ++d)
      g[static_cast<size_t>(dim * w + d)] += share(static_cast<index_t>(dim * r) + d);
  }
  CAMBER_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, g.data(), static_cast<int>(g.size()), MPI_DOUBLE,
                                 MPI_SUM, dm.comm()));

  const auto normal =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().face_normal);
  const auto area =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().face_area);
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const size_t n = static_cast<size_t>(disc.n_owned());
  std::vector<double> dn(n, 0.0), wall_area(n, 0.0);
  for (const std::string& wall : walls)
    for (index_t f : dm.owned_marker_faces(wall)) {
      // n_f points out of the fluid, into the body: the wall's outward
      // normal (into the fluid) is -n_f.
      double v = 0.0;
      for (index_t q = fo(f); q < fo(f + 1); ++q) {
        const std::int64_t w = wall_index(node_gid[static_cast<size_t>(fn(q))]);
        for (int d = 0; d < dim; ++d) v -= g[static_cast<size_t>(dim * w + d)] * normal(f, d);
      }
      v /= area(f) * static_cast<double>(fo(f + 1) - fo(f));
      const size_t c = static_cast<size_t>(left(f));
      dn[c] += v * area(f);
      wall_area[c] += area(f);
    }
  for (size_t c = 0; c < n; ++c)
    if (wall_area[c] > 0.0) dn[c] /= wall_area[c];
  return dn;
}

std::vector<io::Field> sensitivity_fields(eu::SteadyFlow& flow, const std::vector<std::string>& walls,
                                          const std::string& objective) {
  if (flow.sensitivities().empty()) return {};
  const eu::SteadyFlow::Sensitivity& s = flow.sensitivities().front();
  const eu::Discretization& disc = flow.discretization();
  const index_t n = disc.n_owned();
  const int nv = disc.n_vars();
  io::Field psi{"Adjoint of " + objective +
                    (disc.dim() == 3 ? " (mass, x-, y-, z-momentum, energy)"
                                     : " (mass, x-momentum, y-momentum, energy)"),
                nv, {}};
  const auto ph = s.psi.host();
  for (index_t c = 0; c < n; ++c)
    for (int k = 0; k < nv; ++k) psi.values.push_back(ph(c * nv + k));
  io::Field dn{"Surface sensitivity d" + objective + "/dn [1/m]", 1,
               surface_sensitivity(disc, walls, flow.node_rows(), s.dX_share)};
  return {psi, dn};
}

}  // namespace camber::solvers::aero
