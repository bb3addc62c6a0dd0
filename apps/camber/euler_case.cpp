// camber run for an euler deck: the mesh it describes (generated or read
// in parallel), its boundary conditions and the library's settings from
// its tables, then one aero::solve_flow_case, and the summary.
#include "euler_case.hpp"

#include "euler_common.hpp"

#include <filesystem>
#include <iomanip>
#include <sstream>

#include <camber/core/enum_names.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/core/progress.hpp>
#include <camber/core/timer.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/deck_keys.hpp>
#include <camber/solvers/aero/deck_keys.hpp>
#include <camber/solvers/aero/flow_case.hpp>
#include <camber/solvers/aero/wing_sections.hpp>
#include <camber/solvers/euler/deck_keys.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace euler_app {

mesh::MeshChunk build_mesh_chunk(const deck::Deck& d, MPI_Comm comm, int max_dim,
                                 const std::string& what) {
  return mesh::build_mesh_chunk(d, "mesh", mesh::read_mesh_source(d, "mesh"), comm, max_dim, what);
}

mesh::DistributedMesh build_distributed_mesh(const deck::Deck& d, MPI_Comm comm, int max_dim,
                                             const std::string& what) {
  return mesh::DistributedMesh(build_mesh_chunk(d, comm, max_dim, what), comm);
}

// Boundary conditions from the deck, checked against the mesh's markers
// (every deck name is a marker, every marker has a condition), with the
// deck line in the message.
std::vector<eu::BoundaryCondition> boundary_conditions(const deck::Deck& d, const mesh::Mesh& m,
                                                       MPI_Comm comm) {
  const std::vector<eu::BoundaryCondition> conditions = eu::read_boundary_conditions(d, "boundaries");
  collective_guard(comm, [&] {
    std::vector<std::string> markers;
    for (const mesh::Marker& mk : m.markers()) markers.push_back(mk.name);
    const eu::BoundaryProblem problem = eu::check_boundary_conditions(markers, conditions);
    if (problem.kind == eu::BoundaryProblem::Kind::missing) d.reject("boundaries", problem.message);
    if (problem.kind != eu::BoundaryProblem::Kind::none)
      d.reject("boundaries." + std::string(enum_name(eu::boundary_kind_names, problem.condition)),
               problem.message);
  });
  return conditions;
}

eu::FluxScheme flux_scheme(const deck::Deck& d) { return eu::flux_keys().read(d, "flow").scheme; }

eu::SpatialOptions spatial_options(const deck::Deck& d) {
  return eu::spatial_option_keys().read(d, "flow");
}

eu::SteadyOptions steady_options(const deck::Deck& d) { return eu::steady_option_keys().read(d, "solver"); }

eu::FlowConditions flow_conditions(const deck::Deck& d) { return eu::flow_condition_keys().read(d, "flow"); }

int run_euler(const deck::Deck& d, const Runtime& runtime, const RunOptions& options) {
  const MPI_Comm comm = runtime.comm();
  solvers::petsc::PetscSession petsc(options.petsc_options);
  aero::FlowCaseSettings s;
  s.name = d.string("case");
  s.dir = d.string("output.dir");

  // A file is read in parallel, each rank its chunk; a generated mesh is
  // made on every rank, which keeps its chunk. Either is then distributed.
  mesh::MeshChunk chunk;
  {
    ScopedTimer t("mesh");
    chunk = build_mesh_chunk(d, comm, 3, "");
  }
  // Every rank knows the dimension, so every rank rejects alike (once).
  // The reference pressures at the wing stations, read before any solve.
  aero::flow_case_station_keys().read(d, "wing", s);
  collective_guard(comm, [&] {
    if (chunk.dim == 2 && !s.stations.empty())
      d.reject("wing.stations", "spanwise stations need a 3-D mesh; this one is 2-D");
    if (chunk.dim == 3 && d.boolean("flow.far_field_vortex"))
      d.reject("flow.far_field_vortex", "is a 2-D correction; the mesh is 3-D");
    if (s.reference_file.empty()) return;
    if (s.stations.empty())
      d.reject("wing.reference_cp", "is compared at wing.stations, which are not given");
    try {
      s.reference = aero::read_section_reference(s.reference_file);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::bad_input) throw;
      d.reject("wing.reference_cp", e.message());
    }
  });
  mesh::DistributedMesh dm;
  {
    ScopedTimer t("partition");
    dm = mesh::DistributedMesh(std::move(chunk), comm);
  }
  // Every marker of the mesh is in each local mesh (empty ones too).
  s.conditions = boundary_conditions(d, dm.local(), comm);
  s.flow = flow_conditions(d);
  s.scheme = flux_scheme(d);
  s.spatial = spatial_options(d);
  s.steady = steady_options(d);
  s.paraview = d.boolean("output.paraview");
  s.state = d.boolean("output.hdf5");
  s.restart = options.restart;
  s.labels = {{"case", s.name}, {"deck", d.source()}};
  if (s.restart) {
    const std::string state_path = s.dir + "/" + s.name + ".h5";
    collective_guard(comm, [&] {
      CAMBER_INPUT_REQUIRE(fs::exists(state_path), "--restart: no state file '"
                                                       << state_path << "'; run once without "
                                                       << "--restart (with output.hdf5: true) "
                                                       << "to write it");
    });
  }
  Progress progress("newton", s.steady.max_iterations);
  s.monitor = [&](const eu::IterationReport& r) {
    const std::string status =
        CAMBER_MSG(std::scientific << std::setprecision(3) << "res " << r.residual_density
                                   << std::fixed << " cfl " << std::setprecision(0) << r.cfl
                                   << std::setprecision(5) << " CL " << r.forces.cl << " CD "
                                   << r.forces.cd << " lin " << r.linear_iterations);
    progress.update(r.iteration, status);
    logging::debug(CAMBER_MSG("step " << r.iteration << ": " << status));
  };
  const aero::FlowCaseResult r = aero::solve_flow_case(std::move(dm), s);
  const eu::SteadyResult& result = r.solve;
  progress.finish(result.converged ? "converged" : "not converged");

  std::ostringstream summary;
  summary << std::fixed << std::setprecision(6) << "\n  case            " << s.name
          << "\n  cells           " << r.cells << " on " << r.ranks
          << (r.ranks == 1 ? " rank" : " ranks") << "\n  Newton steps    " << result.iterations
          << (result.converged ? " (converged)" : " (NOT converged)") << "\n  residual drop   "
          << std::setprecision(2) << r.orders << " orders" << std::setprecision(6)
          << "\n  CL              " << result.forces.cl << "\n  CD              "
          << result.forces.cd << "\n  CM              " << result.forces.cm
          << "\n  wall time       " << std::setprecision(2) << result.history.back().seconds
          << " s (solve)\n  peak memory     " << std::setprecision(0)
          << peak_resident_mib(comm) << " MiB (largest rank)";
  logging::info("summary:" + summary.str());
  if (!result.converged) {
    logging::warn(CAMBER_MSG("not converged after " << result.iterations
                                                     << " Newton steps (residual fell "
                                                     << std::setprecision(2) << r.orders
                                                     << " orders; raise solver.max_iterations "
                                                        "or lower solver.cfl_start)"));
    return 1;
  }
  return 0;
}

}  // namespace euler_app

Problem euler_problem() {
  using namespace euler_app;
  Problem p;
  p.name = "euler";
  p.summary =
      "steady compressible Euler flow around an airfoil, generated O-grid or mesh file "
      "(sections mesh, flow, boundaries, solver); camber optimize minimizes a force "
      "coefficient over the wall's shape (sections design, optimizer).";
  p.declare = declare_euler_schema;
  p.validate = validate_euler;
  p.run = run_euler;
  p.restarts = true;
  p.optimize = [](const deck::Deck& d, const Runtime& runtime, const RunOptions& options) {
    return optimize_euler(d, runtime, options.restart, options.petsc_options);
  };
  p.sample = sample_euler;
  return p;
}

}  // namespace camber::app
