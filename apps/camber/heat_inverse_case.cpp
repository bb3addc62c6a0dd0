#include "heat_inverse_case.hpp"

#include <iomanip>
#include <string>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/mesh/deck_keys.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/heat/deck_keys.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace {

void declare_inverse_schema(deck::Schema& s) {
  mesh::rectangle_source_keys("Every boundary marker is held at heat.boundary_temperature_K.")
      .declare(s.section("mesh", "The computational mesh: a rectangle generated here, or a file."));
  solvers::heat::declare_twin_experiment(s);
}

void validate_inverse(const deck::Deck& d) {
  mesh::validate_rectangle_source_keys(d, "mesh");
  solvers::heat::validate_twin_experiment(d);
}

int run_inverse(const deck::Deck& d, const Runtime& runtime, const RunOptions&) {
  const MPI_Comm comm = runtime.comm();
  const std::string name = d.string("case"), dir = d.string("output.dir");
  mesh::DistributedMesh dm;
  {
    ScopedTimer timer("mesh");
    dm = mesh::DistributedMesh(
        mesh::build_mesh_chunk(d, "mesh", mesh::read_rectangle_source(d, "mesh"), comm, 2, "the heat problem"),
        comm);
  }
  const solvers::heat::ConductivityInverseProblem p =
      solvers::heat::twin_problem(solvers::heat::read_twin_experiment(d), dm);
  logging::info(CAMBER_MSG("heat inverse: " << dm.n_global_cells() << " cells (unknowns) on " << runtime.size()
                                            << (runtime.size() == 1 ? " rank, " : " ranks, ") << p.sensors.size()
                                            << " sensors x " << p.times.size() << " times, noise "
                                            << p.noise_std << " K, regularization " << p.regularization));
  const auto report = [&](const solvers::heat::InverseProgress& e) {
    logging::info(CAMBER_MSG("evaluation " << e.evaluation << ": J " << std::scientific << std::setprecision(4)
                                           << e.objective << " (misfit " << e.misfit << ", smoothness "
                                           << e.regularization << "), |grad| " << e.gradient_norm << ", k error "
                                           << std::fixed << std::setprecision(4) << e.k_error << "; forward "
                                           << e.forward.ode.steps << " steps (last step " << std::scientific
                                           << std::setprecision(2) << e.forward.ode.last_step << " s), adjoint "
                                           << e.backward.ode.steps << " steps, " << e.checkpoints
                                           << " checkpoints"));
  };
  solvers::heat::ConductivityInverseResult r;
  {
    ScopedTimer timer("inverse");
    r = solvers::heat::run_conductivity_inverse(dm, p, report);
  }
  logging::info(CAMBER_MSG("optimizer: " << r.optimizer.message << ", " << r.optimizer.n_evaluations
                                         << " evaluations"));
  logging::info(CAMBER_MSG("data: " << r.n_data << " readings, rms " << std::setprecision(4) << r.data_rms
                                    << " K; misfit " << std::scientific << std::setprecision(4)
                                    << r.misfit_initial << " -> " << r.misfit_final << " (noise level "
                                    << 0.5 * r.n_data << ")"));
  logging::info(CAMBER_MSG("conductivity error ||k - k_true|| / ||k_true||: " << std::fixed << std::setprecision(4)
                                                                            << r.error_initial << " (initial guess) -> "
                                                                            << r.error_final << " (recovered)"));
  if (runtime.rank() == 0) {
    solvers::heat::write_inverse_history_csv(dir + "/" + name + "_history.csv", r);
    logging::info("wrote " + dir + "/" + name + "_history.csv");
  }
  if (d.boolean("output.paraview"))
    logging::info("wrote " + solvers::heat::write_inverse_paraview(dir, name, dm, p, r) +
                  " (ParaView: true and recovered conductivity)");
  return 0;
}

}  // namespace

Problem heat_inverse_problem() {
  Problem p;
  p.name = "heat_inverse";
  p.summary =
      "recover a conductivity field from sparse noisy temperatures of a transient heat run (method of "
      "lines with CVODES, adjoint gradient, L-BFGS) (sections mesh, heat, source, truth, measurements, "
      "inversion, integration).";
  p.declare = declare_inverse_schema;
  p.validate = validate_inverse;
  p.run = run_inverse;
  return p;
}

}  // namespace camber::app
