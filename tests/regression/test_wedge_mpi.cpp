// A supersonic case nobody here made: SU2's inviscid wedge channel
// (../shared/data/meshes/wedge_inviscid_su2_testcases.su2: 3,626 quads, a
// 10-degree ramp from x = 0.5, markers inlet, outlet, upper, lower), run as
// SU2 runs it: M = 2, p = 1e5 Pa, T = 300 K, supersonic inlet and outlet,
// slip walls. The attached oblique shock's angle beta and pressure ratio
// follow from the theta-beta-M relation,
//
//   tan(theta) = 2 cot(beta) (M^2 sin^2 beta - 1) / (M^2 (gamma + cos 2 beta) + 2),
//   p2 / p1    = 1 + 2 gamma / (gamma + 1) (M^2 sin^2 beta - 1),
//
// (weak solution: beta = 39.31 deg, p2 / p1 = 1.7066 at theta = 10 deg).
// Required at first and second order (both limiters), at 1, 2 and 4 ranks:
// the mean pressure between the ramp and the shock within 1% of p2 / p1,
// the free stream ahead of the ramp kept (1e-8, ten cells upstream), and the shock angle from
// the level set p = (p1 + p2) / 2 within 1% of beta.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/shared_data.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace {

using namespace camber;
using namespace camber::solvers::euler;
constexpr double pi = 3.14159265358979323846;

// The weak oblique-shock angle for deflection theta at Mach m (bisection
// between the Mach angle and the angle of largest deflection).
double weak_shock_angle(double m, double theta, double gamma) {
  const auto deflection = [&](double beta) {
    const double s = std::sin(beta);
    return std::atan(2.0 / std::tan(beta) * (m * m * s * s - 1.0) /
                     (m * m * (gamma + std::cos(2.0 * beta)) + 2.0));
  };
  double lo = std::asin(1.0 / m), hi = lo;
  // The deflection rises from 0 at the Mach angle to its maximum; walk up
  // to past theta, then bisect.
  while (deflection(hi) < theta && hi < 0.5 * pi) hi += 1e-3;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (deflection(mid) < theta ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

struct WedgeResult {
  double p_ratio_behind = 0, worst_ahead = 0, beta_deg = 0, intercept_x = 0;  // see run_wedge
  int steps = 0;
  bool converged = false;
};

WedgeResult run_wedge(int order, LimiterKind limiter, MPI_Comm comm) {
  const std::string path = test::shared_mesh("wedge_inviscid_su2_testcases.su2");
  mesh::DistributedMesh dm = mesh::DistributedMesh::read(path, comm);
  FlowConditions flow;
  flow.mach = 2.0;
  flow.alpha_deg = 0.0;
  flow.pressure = 1e5;
  flow.temperature = 300.0;
  SpatialOptions spatial;
  spatial.order = order;
  spatial.limiter = limiter;
  const Discretization disc(dm, flow,
                            {{"inlet", BoundaryKind::supersonic_inflow},
                             {"outlet", BoundaryKind::supersonic_outflow},
                             {"upper", BoundaryKind::slip_wall},
                             {"lower", BoundaryKind::slip_wall}},
                            FluxScheme::roe, spatial);
  Tensor U = disc.free_stream_field();
  SteadyOptions options;
  options.max_iterations = 200;
  options.rel_tolerance = 1e-10;
  const SteadyResult r = solve_steady(disc, U, options);
  WedgeResult out;
  out.steps = r.iterations;
  out.converged = r.converged;

  const double gamma = flow.gamma, theta = 10.0 * pi / 180.0;
  const double beta = weak_shock_angle(flow.mach, theta, gamma);
  const double sb = std::sin(beta);
  const double ratio = 1.0 + 2.0 * gamma / (gamma + 1.0) * (flow.mach * flow.mach * sb * sb - 1.0);
  const double p1 = 1.0 / gamma;  // nondimensional free-stream pressure
  const double p_mid = 0.5 * (1.0 + ratio) * p1;

  const std::vector<double> u = U.to_vector();  // ghost rows filled by the solve's last residual
  const auto pressure_of = [&](index_t c) {
    Conserved<double, 2> s;
    for (int k = 0; k < 4; ++k) s[k] = u[static_cast<size_t>(c * 4 + k)];
    return pressure(disc.gas(), s);
  };
  const auto centroid =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_centroid);
  const auto volume =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_volume);
  // The uniform state behind the shock: cells three cells (h ~ 0.02) clear
  // of the exact shock line and of the ramp.
  const double h = 0.02, tb = std::tan(beta), tt = std::tan(theta);
  double sums[2] = {0.0, 0.0}, worst_ahead = 0.0;
  for (index_t c = 0; c < disc.n_owned(); ++c) {
    const double x = centroid(c, 0), y = centroid(c, 1), dx = x - 0.5;
    const double p = pressure_of(c) / p1;
    if (dx > 0.1 && x < 1.45 && y > dx * tt + 3 * h && y < dx * tb - 3 * h * std::hypot(1.0, tb)) {
      sums[0] += volume(c) * p;
      sums[1] += volume(c);
    }
    // Ahead of the ramp: the flow is supersonic in x, so the upwind flux
    // through every face across x carries nothing upstream and the free
    // stream is kept there to the solver's tolerance. At second order the
    // upwind state is reconstructed with a gradient that sees the
    // downstream neighbour, so an influence creeps upstream, shrinking
    // cell by cell: checked ten cells (h ~ 0.02) ahead of the corner.
    if (x < 0.5 - 10 * h) worst_ahead = std::max(worst_ahead, std::abs(p - 1.0));
  }
  // Shock crossings: on every interior face whose cells straddle p_mid,
  // the point on the segment between the two centroids where the linear
  // interpolant equals p_mid. A face between an owned cell and a ghost is
  // counted by the rank owning the cell of smaller global id, so every
  // face counts once on any rank count. Least-squares line y = a + b x
  // through the crossings with 0.1 < y < 0.8 (clear of the corner, the
  // upper wall and the outlet).
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  const auto& gid = dm.cell_global_ids();
  double fit[5] = {0, 0, 0, 0, 0};  // n, sum x, sum y, sum xy, sum yy
  for (index_t f = 0; f < disc.n_faces(); ++f) {
    const index_t l = left(f), rr = right(f);
    if (rr < 0) continue;
    const bool l_owned = l < disc.n_owned(), r_owned = rr < disc.n_owned();
    if (!(l_owned && (r_owned || gid[static_cast<size_t>(l)] < gid[static_cast<size_t>(rr)])) &&
        !(r_owned && !l_owned && gid[static_cast<size_t>(rr)] < gid[static_cast<size_t>(l)]))
      continue;
    const double pl = pressure_of(l), pr = pressure_of(rr);
    if ((pl - p_mid) * (pr - p_mid) >= 0.0) continue;
    const double t = (p_mid - pl) / (pr - pl);
    const double x = centroid(l, 0) + t * (centroid(rr, 0) - centroid(l, 0));
    const double y = centroid(l, 1) + t * (centroid(rr, 1) - centroid(l, 1));
    if (y < 0.1 || y > 0.8 || x > 1.45) continue;
    // Fit x = x0 + y / tan(beta): x as a function of y (one crossing per
    // row of faces, steep line).
    fit[0] += 1;
    fit[1] += x;
    fit[2] += y;
    fit[3] += x * y;
    fit[4] += y * y;
  }
  for (double& v : sums) v = par::allreduce_sum(v, comm);
  for (double& v : fit) v = par::allreduce_sum(v, comm);
  out.worst_ahead = par::allreduce_max(worst_ahead, comm);
  out.p_ratio_behind = sums[0] / sums[1] / ratio;  // relative to the exact ratio
  const double slope = (fit[0] * fit[3] - fit[1] * fit[2]) / (fit[0] * fit[4] - fit[2] * fit[2]);
  out.beta_deg = std::atan(1.0 / slope) * 180.0 / pi;
  out.intercept_x = (fit[1] - slope * fit[2]) / fit[0];
  return out;
}

TEST(Wedge, ObliqueShockMatchesThetaBetaMach) {
  const std::string path = test::shared_mesh("wedge_inviscid_su2_testcases.su2");
  CAMBER_NEED_SHARED_FILE(path);
  const double beta = weak_shock_angle(2.0, 10.0 * pi / 180.0, 1.4) * 180.0 / pi;
  test::say("[wedge] theta-beta-M: beta = %.3f deg\n", beta);
  struct Case {
    const char* name;
    int order;
    LimiterKind limiter;
  };
  for (const Case& c : {Case{"first order", 1, LimiterKind::none},
                        Case{"second order, Venkatakrishnan", 2, LimiterKind::venkatakrishnan},
                        Case{"second order, Venkatakrishnan-Wang", 2,
                             LimiterKind::venkatakrishnan_wang}}) {
    const WedgeResult r = run_wedge(c.order, c.limiter, test::world());
    test::say("[wedge] %s: %d steps%s; p behind / exact p2 = %.5f; x < 0.3: |p / p1 - 1| <= %.1e; "
              "shock angle %.3f deg (%.2f%% off), through x = %.4f at y = 0\n",
              c.name, r.steps, r.converged ? "" : " (NOT converged)", r.p_ratio_behind,
              r.worst_ahead, r.beta_deg, 100.0 * (r.beta_deg / beta - 1.0), r.intercept_x);
    EXPECT_TRUE(r.converged) << c.name;
    EXPECT_NEAR(r.p_ratio_behind, 1.0, 0.01) << c.name;
    EXPECT_LT(r.worst_ahead, 1e-8) << c.name;
    EXPECT_NEAR(r.beta_deg / beta, 1.0, 0.01) << c.name;
    // The shock starts at the ramp's corner (0.5, 0): within two cells.
    EXPECT_NEAR(r.intercept_x, 0.5, 0.04) << c.name;
  }
}

}  // namespace
