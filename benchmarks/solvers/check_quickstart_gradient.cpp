// The shape gradient `camber optimize` uses, checked against finite
// differences on the chain of examples/naca0012/quickstart_drag.yaml, built
// here from library calls with that deck's settings (SU2's QuickStart NACA
// 0012 mesh, M = 0.8, alpha = 1.25 deg, second order with the classic
// limiter frozen at 1e-3, at most 300 Newton steps, 19 Hicks-Henne bumps per
// surface, IDW; every other setting the library's default, which is the
// deck's: cli_deck_defaults_are_library_defaults), and its cost.
// benchmarks/run-gradient-check.sh builds and runs it.
//
//   1. The chain of `camber optimize`: the baseline solved from the free
//      stream, then re-solved warm at a = 0, as the optimizer's first
//      evaluation does (the limiter is frozen again there, at the cold
//      solution's phi), and dCD/da_k for all bumps by one adjoint solve
//      (ad::vjp: adjoint, shape derivative, IDW and bumps transposed): what
//      hicks_henne_<n>.csv holds.
//   2. For a few bumps, central differences of CD
//        (CD(h e_k) - CD(-h e_k)) / (2 h)
//      for several steps h, each CD a converged solution of the residual
//      with the limiter frozen at the baseline's phi, the same phi array for
//      +h and -h (the cells do not change, only their node coordinates):
//      the function whose derivative the adjoint computes, and a smooth one
//      of a wherever the flux has no kink. Each solve starts from the
//      baseline state and converges the density residual --rel-tolerance
//      below the free stream's (the cold start's reference).
//   3. For comparison, the same difference through SteadyFlow as the
//      optimizer evaluates CD (warm start from the baseline, the limiter
//      frozen again at the start state on the perturbed mesh), at one step:
//      the function the optimizer actually minimizes.
//
// Prints a Markdown table (adjoint, differences per h, relative
// differences), the times (primal, adjoint gradient, each difference
// solve) and each step's second difference of CD (which settles as h
// shrinks where CD is smooth, and grows like 1/h across a kink of the
// frozen-limiter residual, e.g. of the flux's |.|, min and max). A difference solve that does
// not reach the tolerance is flagged, not fatal. One or more ranks
// (collective; rank 0 prints).
//
//   check_quickstart_gradient [MESH] [--bumps 3,11,24,32] [--steps 1e-3,1e-4,1e-5]
//                             [--linear-solver petsc|kokkos]
//
// --linear-solver: the flow's and the adjoint's (solver.linear_solver;
// kokkos, the device path: camber's GMRES, the transposed Jacobian by the
// reverse sweep); the shape derivative is PETSc's either way.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <camber/autodiff/functional.hpp>
#include <camber/design/airfoil_wall.hpp>
#include <camber/design/design_boundary.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/core/error.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

namespace camber {
namespace {

namespace eu = solvers::euler;

// The flow of quickstart_drag.yaml: the library's defaults but for these.
eu::SteadyFlowSettings quickstart_flow() {
  eu::SteadyFlowSettings s;
  s.flow.mach = 0.8;
  s.flow.alpha_deg = 1.25;
  s.conditions = {{"airfoil", eu::BoundaryKind::slip_wall}, {"farfield", eu::BoundaryKind::far_field}};
  s.spatial.order = 2;
  s.spatial.limiter = eu::LimiterKind::venkatakrishnan;
  s.steady.max_iterations = 300;
  s.steady.freeze_limiter_drop = 1e-3;
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// One converged CD of the frozen-limiter residual at node coordinates X.
struct FrozenSolve {
  double cd = 0.0;
  double drop = 0.0;  // final density residual / reference
  int newton = 0;
  bool converged = false;
  double seconds = 0.0;
};

// The residual with the limiter frozen at `phi` on the mesh with node
// coordinates X (the baseline's partition: the cells are the same), solved
// from `start` to `rel_tolerance` of `reference`.
FrozenSolve solve_frozen(const mesh::Mesh& global, MPI_Comm comm,
                         const eu::SteadyFlowSettings& settings, const Tensor& X,
                         const Tensor& phi, const Tensor& start, double reference,
                         double rel_tolerance, int max_iterations) {
  const auto t0 = std::chrono::steady_clock::now();
  mesh::DistributedMesh dm(global.with_coordinates(X), comm);
  eu::SpatialOptions spatial = settings.spatial;
  spatial.freeze_limiter = false;
  eu::Discretization disc(dm, settings.flow, settings.conditions, settings.scheme, spatial);
  disc.set_limiter(phi);
  Tensor U = start.clone();
  eu::SteadyOptions o = settings.steady;
  o.first_order_drop = 0.0;  // a second-order start near the solution
  o.cfl_start = std::max(o.cfl_start, settings.warm_cfl_start);
  o.reference_residual = reference;
  o.rel_tolerance = rel_tolerance;
  o.abs_tolerance = 0.0;
  o.max_iterations = max_iterations;
  const eu::SteadyResult r = eu::solve_steady(disc, U, o);
  FrozenSolve s;
  s.cd = r.forces.cd;
  s.converged = r.converged;
  s.newton = r.iterations;
  s.drop = r.history.empty() ? 0.0 : r.history.back().residual_density / reference;
  s.seconds = seconds_since(t0);
  return s;
}

// "1e-3,1e-4" -> {1e-3, 1e-4}; bad_input names the option.
std::vector<double> parse_list(const std::string& option, const std::string& text) {
  std::vector<double> v;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, end - begin);
    size_t used = 0;
    double x = 0.0;
    try {
      x = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    CAMBER_INPUT_REQUIRE(used > 0 && used == item.size(),
                         option << ": '" << item << "' is not a number (expected e.g. 1e-3,1e-4)");
    v.push_back(x);
    begin = end + 1;
  }
  return v;
}

int check(int argc, char** argv, const Runtime& runtime) {
  CLI::App cli{"dCD/da_k of camber optimize's chain against central differences with the "
               "baseline's limiter frozen"};
  std::string mesh_path = CAMBER_QUICKSTART_MESH;
  std::string bumps_text = "3,11,24,32", steps_text = "1e-3,1e-4,1e-5";
  double rel_tolerance = 1e-12, refreeze_step = 1e-4;
  int max_iterations = 60;
  std::string linear_solver = "petsc";
  cli.add_option("mesh", mesh_path, "The QuickStart mesh (markers airfoil and farfield)");
  cli.add_option("--linear-solver", linear_solver, "The flow's and the adjoint's linear solver")
      ->check(CLI::IsMember({"petsc", "kokkos"}));
  cli.add_option("--bumps", bumps_text, "Design variables checked (0-based; upper surface first)");
  cli.add_option("--steps", steps_text, "Difference steps h (bump amplitude, chord units)");
  cli.add_option("--rel-tolerance", rel_tolerance,
                 "Each difference solve: density residual / free-stream residual");
  cli.add_option("--max-iterations", max_iterations, "Newton steps per difference solve");
  cli.add_option("--refreeze-step", refreeze_step,
                 "Step of the difference through SteadyFlow (limiter refrozen per solve); 0: "
                 "skip");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return runtime.rank() == 0 ? cli.exit(e) : (e.get_exit_code() == 0 ? 0 : 2);
  }
  const MPI_Comm comm = runtime.comm();
  const bool root = runtime.rank() == 0;
  solvers::petsc::PetscSession petsc;

  mesh::Mesh global;
  collective_guard(comm, [&] { global = mesh::read_mesh(mesh_path); });
  eu::SteadyFlowSettings settings = quickstart_flow();
  if (linear_solver == "kokkos") settings.steady.linear_solver = eu::SteadyOptions::LinearSolver::kokkos;
  const std::unique_ptr<design::ShapeParametrization> shape = std::make_unique<design::HicksHenne>(
      design::AirfoilWall(design::design_boundary(mesh::DistributedMesh(global, comm), {"airfoil"})),
      design::evenly_spaced_bumps(19));
  const auto* hh = dynamic_cast<const design::HicksHenne*>(shape.get());
  const design::MeshDeformation idw(global, {"airfoil"}, design::DeformationOptions{});
  const index_t n = shape->n_design();
  std::vector<index_t> bumps;
  std::vector<double> steps;
  collective_guard(comm, [&] {
    for (double b : parse_list("--bumps", bumps_text)) {
      CAMBER_INPUT_REQUIRE(b >= 0 && b < n && b == std::floor(b),
                           "--bumps: " << b << " is not a design variable in [0, " << n << ")");
      bumps.push_back(static_cast<index_t>(b));
    }
    steps = parse_list("--steps", steps_text);
    for (double h : steps) CAMBER_INPUT_REQUIRE(h > 0.0, "--steps: " << h << " is not positive");
  });
  const auto design = [&](index_t k, double h) {
    std::vector<double> a(static_cast<size_t>(n), 0.0);
    if (k >= 0) a[static_cast<size_t>(k)] = h;
    return Tensor::from_host({n}, a);
  };

  // 1. The baseline from the free stream, then the optimizer's first
  // evaluation (warm, limiter refrozen) and its gradient.
  eu::SteadyFlow flow(global, comm, settings);
  const Tensor X0 = design::deformed_coordinates(*shape, idw, design(-1, 0.0));
  const double cd_cold = flow.coefficients(X0).to_vector()[1];
  const eu::SteadyFlowReport cold = flow.report();
  const ad::Var av = ad::variable(design(-1, 0.0));
  const ad::Var c = flow.coefficients(design::deformed_coordinates(*shape, idw, av));
  const eu::SteadyFlowReport warm = flow.report();
  // Whether that solve froze the limiter (it does unless the cold state
  // already met the tolerance with the live limiter).
  const bool warm_frozen = flow.discretization().limiter_frozen();
  const double cd0 = c.value().to_vector()[1];
  auto t = std::chrono::steady_clock::now();
  const std::vector<double> g =
      ad::vjp({c}, {av}, {ad::constant(Tensor::from_host({3}, {0.0, 1.0, 0.0}))})[0]
          .value()
          .to_vector();
  const double gradient_seconds = seconds_since(t);
  const eu::SteadyFlowReport adjoint = flow.report();
  const Tensor U0 = flow.state().clone();
  Tensor U0_ghosts = U0.clone();
  const Tensor phi0 = flow.discretization().limiter(U0_ghosts);
  // The cold start's reference: the density residual of the free stream
  // (phi does not matter there: its gradients vanish).
  double reference = 0.0;
  {
    Tensor U_inf = flow.discretization().free_stream_field();
    const Tensor R = flow.discretization().residual(U_inf);
    const auto rh = R.host();
    double s = 0.0;
    for (index_t i = 0; i < flow.discretization().n_owned(); ++i) s += rh(i * 4) * rh(i * 4);
    reference = std::sqrt(par::allreduce_sum(s, comm));
  }

  // 2. The frozen-limiter solve at a = 0 (the differences' centre) and the
  // differences.
  const FrozenSolve centre = solve_frozen(global, comm, settings, X0, phi0, U0, reference,
                                          rel_tolerance, max_iterations);
  struct Row {
    index_t k;
    std::vector<double> fd;
    std::vector<FrozenSolve> plus, minus;
    double refrozen = NAN;
    double refrozen_seconds = 0.0;
  };
  std::vector<Row> rows;
  for (index_t k : bumps) {
    Row row{k, {}, {}, {}};
    for (double h : steps) {
      const FrozenSolve p =
          solve_frozen(global, comm, settings, design::deformed_coordinates(*shape, idw, design(k, h)),
                       phi0, U0, reference, rel_tolerance, max_iterations);
      const FrozenSolve m =
          solve_frozen(global, comm, settings, design::deformed_coordinates(*shape, idw, design(k, -h)),
                       phi0, U0, reference, rel_tolerance, max_iterations);
      row.fd.push_back((p.cd - m.cd) / (2.0 * h));
      row.plus.push_back(p);
      row.minus.push_back(m);
    }
    if (refreeze_step > 0.0) {
      t = std::chrono::steady_clock::now();
      flow.set_state(U0);
      const double cp =
          flow.coefficients(design::deformed_coordinates(*shape, idw, design(k, refreeze_step)))
              .to_vector()[1];
      flow.set_state(U0);
      const double cm =
          flow.coefficients(design::deformed_coordinates(*shape, idw, design(k, -refreeze_step)))
              .to_vector()[1];
      row.refrozen = (cp - cm) / (2.0 * refreeze_step);
      row.refrozen_seconds = seconds_since(t) / 2.0;
    }
    rows.push_back(row);
  }

  if (!root) return 0;
  double g_max = 0.0;
  for (double x : g) g_max = std::max(g_max, std::abs(x));
  std::printf("QuickStart chain on %s: %d cells, %d design variables, %d rank(s), linear solver %s\n",
              mesh_path.c_str(), static_cast<int>(global.n_cells()), static_cast<int>(n),
              runtime.size(), linear_solver.c_str());
  std::printf("baseline (cold): CD %.12f, %d Newton steps, %.2f s, density residual %.2e of the "
              "reference %.3e\n",
              cd_cold, cold.newton_iterations, cold.solve_seconds, cold.residual_drop, reference);
  std::printf("first evaluation (warm): CD %.12f, %d Newton steps, %.2f s, limiter %s\n", cd0,
              warm.newton_iterations, warm.solve_seconds,
              warm_frozen ? "frozen at the cold solution" : "LIVE (not frozen)");
  std::printf("adjoint gradient (all %d variables): %.2f s (adjoint solve and shape "
              "derivative %.2f s, %d GMRES its); max |dCD/da| %.6e\n",
              static_cast<int>(n), gradient_seconds, adjoint.adjoint_seconds,
              adjoint.adjoint_iterations, g_max);
  std::printf("frozen-limiter re-solve at a = 0: CD %.12f (%+.2e from the first evaluation), "
              "%d Newton steps, residual %.2e of the reference, %.2f s\n\n",
              centre.cd, centre.cd - cd0, centre.newton, centre.drop, centre.seconds);

  std::printf("| bump | side | x_k | adjoint |");
  for (double h : steps) std::printf(" FD h=%.0e |", h);
  for (double h : steps) std::printf(" rel. diff h=%.0e |", h);
  if (refreeze_step > 0.0) std::printf(" FD refrozen h=%.0e | rel. diff |", refreeze_step);
  std::printf("\n|---|---|---|---|");
  for (size_t i = 0; i < 2 * steps.size() + (refreeze_step > 0.0 ? 2 : 0); ++i) std::printf("---|");
  std::printf("\n");
  for (const Row& row : rows) {
    const design::HicksHenneBump& b = hh->bumps()[static_cast<size_t>(row.k)];
    const double a = g[static_cast<size_t>(row.k)];
    std::printf("| %d | %s | %.2f | %+.9e |", static_cast<int>(row.k),
                b.surface == design::Surface::upper ? "upper" : "lower", b.peak, a);
    for (double fd : row.fd) std::printf(" %+.9e |", fd);
    for (double fd : row.fd) std::printf(" %.1e |", std::abs(fd - a) / std::abs(a));
    if (refreeze_step > 0.0)
      std::printf(" %+.6e | %.1e |", row.refrozen, std::abs(row.refrozen - a) / std::abs(a));
    std::printf("\n");
  }

  // A smooth CD has a second difference (CD(h) - 2 CD(0) + CD(-h)) / h^2
  // that settles as h shrinks; kinks of the residual between -h and h make
  // it grow like 1/h.
  std::printf("\ndifference solves (frozen baseline phi, from the baseline state): Newton steps, "
              "final residual / reference, seconds; second difference of CD\n");
  double total = 0.0;
  int n_solves = 0, n_unconverged = 0;
  for (const Row& row : rows)
    for (size_t i = 0; i < steps.size(); ++i) {
      for (const FrozenSolve* s : {&row.plus[i], &row.minus[i]}) {
        std::printf("  bump %2d h %s%.0e: %2d steps, %.1e, %.2f s%s\n", static_cast<int>(row.k),
                    s == &row.plus[i] ? "+" : "-", steps[i], s->newton, s->drop, s->seconds,
                    s->converged ? "" : "  NOT CONVERGED");
        total += s->seconds;
        ++n_solves;
        n_unconverged += s->converged ? 0 : 1;
      }
      std::printf("  bump %2d h  %.0e: (CD(h) - 2 CD(0) + CD(-h)) / h^2 = %+.3e\n",
                  static_cast<int>(row.k), steps[i],
                  (row.plus[i].cd - 2.0 * centre.cd + row.minus[i].cd) / (steps[i] * steps[i]));
    }
  std::printf("  %d solves, %.1f s in all, %.2f s each on average%s\n", n_solves, total,
              total / std::max(n_solves, 1),
              n_unconverged > 0 ? CAMBER_MSG("; " << n_unconverged << " did not reach "
                                                  << rel_tolerance << " in " << max_iterations
                                                  << " steps")
                                      .c_str()
                                : "");
  if (refreeze_step > 0.0)
    for (const Row& row : rows)
      std::printf("  bump %2d refrozen (SteadyFlow) solves: %.2f s each\n",
                  static_cast<int>(row.k), row.refrozen_seconds);
  return 0;
}

}  // namespace
}  // namespace camber

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] { return camber::check(argc, argv, runtime); });
}
