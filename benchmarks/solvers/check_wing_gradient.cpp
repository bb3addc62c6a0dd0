// The adjoint gradient of CL and CD of a 3-D wing with respect to the
// control points of an FFD box (design::FfdVolume), checked against central
// differences of converged solutions, and its cost. Default: the ONERA M6
// coarse grid that examples/onera_m6/mesh.sh writes (M 0.8395, alpha 3.06
// deg, second order, Venkatakrishnan-Wang limiter).
//
//   1. The flow solved from the free stream (the limiter frozen once the
//      residual fell 1e-4), to --rel-tolerance;
//   2. one adjoint solve each for CL and CD (the assembled exact Jacobian,
//      transposed), the shape derivative's share of every rank at its row
//      coordinates, and the FFD box's transpose: dCL/da and dCD/da for all
//      control points at once;
//   3. for the control points of --variables, (J(h e_k) - J(-h e_k)) / 2h
//      with every node of the box moved by the FFD, each J a converged
//      solution with the limiter frozen at the baseline's phi (the function
//      the adjoint differentiates), started from the baseline state.
//
// Prints a Markdown table (adjoint, difference, relative difference) and
// the times. One or more ranks (rank 0 prints).
//
//   check_wing_gradient [MESH] [--variables 0,7,12] [--step 1e-3] [--degree 6,4,2]
//                       [--rel-tolerance 1e-10] [--adjoint-pc automatic|exact|first_order]
//                       [--linear-solver petsc|kokkos] [--shape-method reverse|colouring]
//
// --linear-solver: the adjoint's (AdjointOptions::linear_solver; kokkos,
// the device path: the transposed Jacobian by the reverse sweep, no
// assembled matrix); the flow is solved by PETSc's path either way.
// --shape-method: the node-coordinate partials' (ShapeMethod; reverse, the
// default: one reverse sweep per objective; colouring: forward mode by node
// colours, stored once).
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <exception>
#include <cstdio>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/design/ffd_volume.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/shape_derivative.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include "../common/onera_m6.hpp"

namespace camber {
namespace {

namespace eu = solvers::euler;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Setup {
  eu::FlowConditions flow;
  std::vector<eu::BoundaryCondition> conditions;
  eu::SpatialOptions spatial;
  double rel_tolerance = 1e-10;
};

// A converged solution with the limiter frozen at phi (given), from U, to
// the baseline's final density residual `tolerance`.
eu::Forces solve_frozen(mesh::DistributedMesh& dm, const Setup& s, const Tensor& phi, Tensor U,
                        double tolerance, int& steps, bool& converged) {
  eu::Discretization disc(dm, s.flow, s.conditions, eu::FluxScheme::roe, s.spatial);
  disc.set_limiter(phi);
  eu::SteadyOptions o;
  o.max_iterations = 100;
  o.first_order_drop = 0.0;
  o.rel_tolerance = 1e-300;
  o.abs_tolerance = tolerance;
  const eu::SteadyResult r = eu::solve_steady(disc, U, o);
  steps = r.iterations;
  converged = r.converged;
  return r.forces;
}

int check(int argc, char** argv) {
  const bench::Arguments cli = bench::parse_arguments(
      argc, argv, "check_wing_gradient",
      {"--variables", "--degree", "--step", "--rel-tolerance", "--adjoint-pc",
       "--linear-solver", "--shape-method"});
  const std::string& mesh_path = cli.mesh;
  const std::string degree = cli.get("--degree", "6,4,2");
  const double step = cli.real("--step", 1e-3);
  const std::string adjoint_pc = cli.get("--adjoint-pc", "automatic");
  const std::string linear_solver = cli.get("--linear-solver", "petsc");
  CAMBER_INPUT_REQUIRE(linear_solver == "petsc" || linear_solver == "kokkos",
                       "--linear-solver: petsc or kokkos, got " << linear_solver);
  const std::string shape_method = cli.get("--shape-method", "reverse");
  CAMBER_INPUT_REQUIRE(shape_method == "reverse" || shape_method == "colouring",
                       "--shape-method: reverse or colouring, got " << shape_method);
  Setup s;
  s.flow = bench::onera_m6_flow();
  s.rel_tolerance = cli.real("--rel-tolerance", 1e-10);
  const std::vector<int> deg = cli.integers("--degree", "6,4,2"),
                         checked_variables = cli.integers("--variables", "0,7,12");
  CAMBER_INPUT_REQUIRE(deg.size() == 3, "--degree needs three values, got '" << degree << "'");
  CAMBER_INPUT_REQUIRE(adjoint_pc == "automatic" || adjoint_pc == "exact" ||
                           adjoint_pc == "first_order",
                       "--adjoint-pc: automatic, exact or first_order, got " << adjoint_pc);
  s.conditions = bench::onera_m6_conditions();
  s.spatial.order = 2;
  s.spatial.limiter = eu::LimiterKind::venkatakrishnan_wang;

  solvers::petsc::PetscSession petsc;
  const MPI_Comm comm = MPI_COMM_WORLD;
  const bench::RootPrinter say(comm);

  auto t = std::chrono::steady_clock::now();
  mesh::DistributedMesh dm = mesh::DistributedMesh::read(mesh_path, comm);
  say("mesh %s: %lld cells, read and distributed in %.1f s\n", mesh_path.c_str(),
      static_cast<long long>(dm.n_global_cells()), seconds_since(t));

  // 1. The baseline.
  t = std::chrono::steady_clock::now();
  eu::Discretization disc(dm, s.flow, s.conditions, eu::FluxScheme::roe, s.spatial);
  Tensor U = disc.free_stream_field();
  eu::SteadyOptions o;
  o.max_iterations = 150;
  o.rel_tolerance = s.rel_tolerance;
  o.freeze_limiter_drop = 1e-4;
  const eu::SteadyResult base = eu::solve_steady(disc, U, o);
  say("baseline: %d Newton steps (%s), %.1f s; CL %.6f, CD %.6f\n", base.iterations,
      base.converged ? "converged" : "NOT converged", seconds_since(t), base.forces.cl,
      base.forces.cd);
  const Tensor phi = base.limiter;

  // 2. The adjoint gradients.
  t = std::chrono::steady_clock::now();
  disc.set_limiter(phi);
  design::FfdVolumeOptions fo;
  fo.degree = {deg[0], deg[1], deg[2]};
  const design::FfdVolumeBox box = design::FfdVolume::box_around(dm, {"wing"}, 0.05);
  eu::AdjointOptions ao;
  ao.preconditioner = adjoint_pc == "exact"         ? eu::AdjointOptions::Preconditioner::exact
                      : adjoint_pc == "first_order" ? eu::AdjointOptions::Preconditioner::first_order
                                                    : eu::AdjointOptions::Preconditioner::automatic;
  ao.linear_solver = linear_solver == "kokkos" ? eu::SteadyOptions::LinearSolver::kokkos
                                               : eu::SteadyOptions::LinearSolver::petsc;
  auto tp = std::chrono::steady_clock::now();
  eu::Adjoint adjoint(disc, ao);
  eu::ShapeDerivative shape(
      disc, eu::ShapeDerivative::pattern(disc, shape_method == "colouring"
                                                   ? eu::ShapeMethod::colouring
                                                   : eu::ShapeMethod::reverse));
  const design::FfdVolume ffd_rows(box, shape.row_coordinates(), fo);
  const double t_patterns = seconds_since(tp);
  tp = std::chrono::steady_clock::now();
  adjoint.linearize(U);
  const double t_jacobian = seconds_since(tp);
  tp = std::chrono::steady_clock::now();
  shape.linearize(U);
  const double t_shape = seconds_since(tp);
  say("set-up: %s adjoint; patterns and row coordinates %.1f s (%d Jacobian colours, %d node "
      "colours); linearization (%s) %.1f s; node-coordinate partials %.1f s\n",
      linear_solver.c_str(), t_patterns,
      linear_solver == "petsc" ? adjoint.jacobian().n_colors() : 0, shape.n_colors(),
      linear_solver == "petsc" ? "the exact Jacobian assembled and the force partials"
                               : "the reverse sweep's pieces and the first-order blocks",
      t_jacobian, t_shape);
  std::vector<std::vector<double>> grad(2);
  std::vector<double> adjoint_seconds;
  for (int m = 0; m < 2; ++m) {
    const auto ta = std::chrono::steady_clock::now();
    const eu::AdjointSolution a =
        adjoint.solve(U, m == 0 ? eu::ForceCoefficient::cl : eu::ForceCoefficient::cd);
    const auto tc = std::chrono::steady_clock::now();
    Tensor g = ffd_rows.apply_transpose(shape.rank_derivative(U, a.psi, a.weights));
    par::allreduce_sum_in_place(g, comm);
    const double t_chain = seconds_since(tc);
    grad[static_cast<size_t>(m)] = g.to_vector();
    adjoint_seconds.push_back(seconds_since(ta));
    say("adjoint of %s: %d GMRES iterations (%s%s), %.1f s with the shape chain (%s: %.2f s)\n",
        m == 0 ? "CL" : "CD", a.iterations, a.converged ? "converged" : "NOT converged",
        a.fell_back ? ", LU fallback" : "", adjoint_seconds.back(), shape_method.c_str(),
        t_chain);
  }
  say("FFD box [%.1f, %.1f] x [%.1f, %.1f] x [%.1f, %.1f], %lld variables (z moves of %d x %d x "
      "%d free control points); gradients in %.1f s\n",
      box.lo[0], box.hi[0], box.lo[1], box.hi[1], box.lo[2], box.hi[2],
      static_cast<long long>(ffd_rows.n_design()), fo.degree[0] - 1, fo.degree[1] - 1,
      fo.degree[2] - 1, seconds_since(t));

  // 3. Central differences.
  const design::FfdVolume ffd(box, dm.local().coords(), fo);
  const double h = step * (box.hi[1] - box.lo[1]);
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dm.local().coords());
  say("\n| variable | control point | dCL/da adjoint | dCL/da difference | rel. | dCD/da "
      "adjoint | dCD/da difference | rel. | steps |\n|---|---|---|---|---|---|---|---|---|\n");
  for (const int v : checked_variables) {
    CAMBER_INPUT_REQUIRE(v >= 0 && v < ffd.n_design(),
                         "--variables: " << v << " is not among the " << ffd.n_design());
    std::vector<double> e(static_cast<size_t>(ffd.n_design()), 0.0);
    e[static_cast<size_t>(v)] = 1.0;
    const std::vector<double> dx = ffd.apply(Tensor::from_host({ffd.n_design()}, e)).to_vector();
    eu::Forces f[2];
    int steps[2] = {0, 0};
    bool ok = true;
    for (int side = 0; side < 2; ++side) {
      std::vector<double> c(static_cast<size_t>(dm.n_local_nodes() * 3));
      for (index_t n = 0; n < dm.n_local_nodes(); ++n)
        for (int d = 0; d < 3; ++d)
          c[static_cast<size_t>(3 * n + d)] =
              x(n, d) + (side == 0 ? h : -h) * dx[static_cast<size_t>(3 * n + d)];
      mesh::DistributedMesh moved =
          dm.with_local_coordinates(Tensor::from_host({dm.n_local_nodes(), 3}, c));
      bool converged = false;
      f[side] = solve_frozen(moved, s, phi, U.clone(), s.rel_tolerance * base.reference_residual,
                             steps[side], converged);
      ok = ok && converged;
    }
    const auto& w = ffd.variables()[static_cast<size_t>(v)];
    const double dcl = (f[0].cl - f[1].cl) / (2 * h), dcd = (f[0].cd - f[1].cd) / (2 * h);
    const double acl = grad[0][static_cast<size_t>(v)], acd = grad[1][static_cast<size_t>(v)];
    say("| %d | (%d, %d, %d) | %.8e | %.8e | %.1e | %.8e | %.8e | %.1e | %d, %d%s |\n", v, w.i,
        w.j, w.k, acl, dcl, std::abs(acl - dcl) / std::abs(dcl), acd, dcd,
        std::abs(acd - dcd) / std::abs(dcd), steps[0], steps[1], ok ? "" : " (not converged)");
  }
  return 0;
}

}  // namespace
}  // namespace camber

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] { return camber::check(argc, argv); });
}
