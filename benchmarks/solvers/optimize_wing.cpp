// Drag minimization of a 3-D wing at the baseline's lift over the z moves
// of an FFD box's control points, with the library's parts and no global
// mesh: the mesh read in parallel, euler::SteadyFlow built from it, the
// box (design::FfdVolume) as a graph node at each rank's node rows, SLSQP
// (opt::Optimizer). Default: the ONERA M6 coarse grid that
// examples/onera_m6/mesh.sh writes (M 0.8395, alpha 3.06 deg, second order,
// Venkatakrishnan-Wang limiter live, so the function evaluated is the one
// the adjoint differentiates).
//
// Variables: the 15 z moves (mm) of a 6 x 4 x 2 box's free control points
// and the angle of attack (degrees); objective CD; one equality, CL = the
// baseline's. Each evaluation is one flow solve (warm-started from the last)
// and two adjoint solves (CD's and CL's) sharing one linearization. With a
// box of degree 2 in z and z moves only, a section symmetric about the
// box's mid-plane keeps its thickness exactly (B_{1,2}(u) = B_{1,2}(1 - u)
// at z and -z): the design changes camber and twist, not thickness.
//
//   optimize_wing [MESH] [--designs 10] [--bound 10]
//
// Prints one line per evaluation and the baseline against the best design
// (rank 0).
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <camber/autodiff/distributed_ops.hpp>
#include <camber/autodiff/functional.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/design/ffd_volume.hpp>
#include <camber/design/linear_map.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include "../common/onera_m6.hpp"

namespace camber {
namespace {

namespace eu = solvers::euler;

int run(int argc, char** argv) {
  const bench::Arguments cli =
      bench::parse_arguments(argc, argv, "optimize_wing", {"--designs", "--bound"});
  const std::string& mesh_path = cli.mesh;
  const int designs = cli.integer("--designs", 10);
  const double bound = cli.real("--bound", 10.0);  // mm
  solvers::petsc::PetscSession petsc;
  const MPI_Comm comm = MPI_COMM_WORLD;
  const bench::RootPrinter say(comm);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  eu::SteadyFlowSettings s;
  s.flow = bench::onera_m6_flow();
  s.conditions = bench::onera_m6_conditions();
  s.spatial.order = 2;
  s.spatial.limiter = eu::LimiterKind::venkatakrishnan_wang;
  s.steady.rel_tolerance = 1e-10;
  s.steady.max_iterations = 150;
  s.warm_max_iterations = 60;
  eu::SteadyFlow flow(mesh::DistributedMesh::read(mesh_path, comm), s);
  const Tensor X0 = flow.row_coordinates();
  design::FfdVolumeOptions fo;
  fo.degree = {6, 4, 2};
  const design::FfdVolumeBox box = design::FfdVolume::box_around(flow.distributed_mesh(), {"wing"}, 0.05);
  const auto ffd = std::make_shared<design::FfdVolume>(box, X0, fo);
  const index_t n = ffd->n_design();
  say("%s: %lld cells; %lld FFD z moves (box [%.1f, %.1f] x [%.1f, %.1f] x [%.1f, %.1f] mm, "
      "bounds +-%.1f mm) and alpha\n",
      mesh_path.c_str(), static_cast<long long>(flow.distributed_mesh().n_global_cells()),
      static_cast<long long>(n), box.lo[0], box.hi[0], box.lo[1], box.hi[1], box.lo[2], box.hi[2],
      bound);

  // (CL, CD, CM) and the gradients of CD and CL at x = (a, alpha).
  struct Point {
    double cl, cd;
    std::vector<double> dcd, dcl;
  };
  const auto evaluate = [&](const std::vector<double>& x) {
    std::vector<double> a(x.begin(), x.begin() + n);
    const ad::Var av = ad::variable(Tensor::from_host({n}, a));
    const ad::Var alpha = ad::variable(Tensor::from_host({1}, {x.back()}));
    ad::Var c;
    try {
      c = flow.rank_coefficients(design::apply_linear(ffd, ad::grad_allreduce(av, comm), X0), alpha);
    } catch (const Error& e) {
      throw opt::EvaluationFailed(e.what());
    }
    const std::vector<double> v = c.value().to_vector();
    Point p{v[0], v[1], {}, {}};
    for (int m : {1, 0}) {
      std::vector<double> w(3, 0.0);
      w[static_cast<size_t>(m)] = 1.0;
      ad::GradOptions keep;
      keep.retain_graph = m == 1;  // CL's adjoint follows on the same graph
      const ad::Vars g =
          ad::vjp({c}, {av, alpha}, {ad::constant(Tensor::from_host({3}, w))}, keep);
      std::vector<double> grad = g[0].value().to_vector();
      grad.push_back(g[1].value().to_vector()[0]);
      (m == 1 ? p.dcd : p.dcl) = grad;
    }
    return p;
  };

  std::vector<double> x0(static_cast<size_t>(n) + 1, 0.0);
  x0.back() = s.flow.alpha_deg;
  const Point base = evaluate(x0);
  const double cl_target = base.cl;
  say("baseline: CL %.6f, CD %.6f (%.1f s)\n", base.cl, base.cd, elapsed());

  opt::Problem problem;
  problem.x0 = x0;
  problem.lower.assign(x0.size(), -bound);
  problem.upper.assign(x0.size(), bound);
  problem.lower.back() = x0.back() - 1.0;
  problem.upper.back() = x0.back() + 1.0;
  problem.n_equality = 1;
  bool first = true;
  problem.evaluate = [&](const std::vector<double>& x) {
    const Point p = first ? base : evaluate(x);
    first = false;
    opt::Evaluation e;
    e.objective = p.cd;
    e.objective_gradient = p.dcd;
    e.equality = {p.cl - cl_target};
    e.equality_gradients = {p.dcl};
    return e;
  };
  opt::Options o;
  o.algorithm = "slsqp";
  o.max_evaluations = designs;
  o.ftol_rel = 1e-6;
  o.xtol_rel = 1e-6;
  o.constraint_tol = 1e-6;
  o.x_scale.assign(x0.size(), bound);
  o.x_scale.back() = 1.0;
  o.objective_scale = 1.0 / base.cd;
  o.constraint_scale = {1.0 / base.cl};
  opt::Optimizer optimizer(problem, o, comm);
  optimizer.on_evaluation([&](const opt::Record& r) {
    if (r.failed) {
      say("design %2d: failed (%s)\n", r.evaluation, r.failure.c_str());
      return;
    }
    say("design %2d: CD %.6f, |CL - CL0| %.2e, |grad CD| %.3e, alpha %.4f deg, %.0f s\n",
        r.evaluation, r.objective, r.max_violation, r.gradient_norm, r.x.back(), elapsed());
  });
  const opt::Result r = optimizer.minimize();
  say("best: CD %.6f at CL %.6f +- %.1e (baseline CD %.6f, CL %.6f): %.2f%% drag, alpha %.4f deg, "
      "largest z move %.2f mm; %d evaluations, %.0f s\n",
      r.objective, cl_target, r.max_violation, base.cd, base.cl,
      100.0 * (r.objective - base.cd) / base.cd, r.x.back(),
      [&] {
        double m = 0.0;
        for (index_t k = 0; k < n; ++k) m = std::max(m, std::abs(r.x[static_cast<size_t>(k)]));
        return m;
      }(),
      r.n_evaluations, elapsed());
  return 0;
}

}  // namespace
}  // namespace camber

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] { return camber::run(argc, argv); });
}
