// `camber optimize DECK` for the euler problem: aerodynamic shape
// optimization in a gradient loop.
//
// Each evaluation: the design vector a -> wall displacement (the deck's
// parametrization) -> deformed volume mesh (IDW) -> converged flow
// (SteadyFlow, warm-started) -> CL, CD, CM; their gradients by adjoint
// solves through the same chain (ad::vjp); thickness constraints are linear
// in a and exact. NLopt (camber::opt) drives the loop. After every
// evaluation the optimizer's history and the flow state are checkpointed
// (atomically), and --restart replays the history (no flow solves) and
// continues from the saved state, so it reaches the design an uninterrupted
// run reaches.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <memory>
#include <sstream>

#include "euler_common.hpp"
#include <camber/solvers/aero/deck_keys.hpp>
#include <camber/solvers/aero/design_outputs.hpp>
#include <camber/solvers/aero/design_record.hpp>
#include <camber/solvers/aero/surrogate_design.hpp>
#include <camber/solvers/euler/deck_keys.hpp>
#include <camber/design/parametrization.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace euler_app {

eu::SteadyFlowSettings design_flow_settings(const deck::Deck& d, const mesh::Mesh& m,
                                            MPI_Comm comm) {
  eu::SteadyFlowSettings settings;
  settings.conditions = boundary_conditions(d, m, comm);
  settings.flow = flow_conditions(d);
  settings.scheme = flux_scheme(d);
  settings.spatial = spatial_options(d);
  settings.steady = steady_options(d);
  eu::warm_start_keys().read(d, "solver", settings);
  // `camber -v optimize`: every Newton step of every flow solve.
  settings.monitor = [](const eu::IterationReport& r) {
    logging::debug(CAMBER_MSG("  flow step " << r.iteration << std::scientific << std::setprecision(3)
                                             << "  res " << r.residual_density << "  cfl " << r.cfl
                                             << "  step " << r.step << "  ksp " << r.linear_iterations
                                             << std::fixed << std::setprecision(6) << "  CL " << r.forces.cl));
  };
  return settings;
}

design::DeformationOptions deformation_options(const deck::Deck& d) {
  return aero::deformation_keys().read(d, "design");
}

std::unique_ptr<design::ShapeParametrization> shape_parametrization(
    const deck::Deck& d, const mesh::DistributedMesh& dm, MPI_Comm comm) {
  const design::ParametrizationSettings settings = aero::parametrization_keys().read(d, "design");
  std::unique_ptr<design::ShapeParametrization> p;
  collective_guard(comm, [&] {
    if (dm.local().marker_index(settings.wall) < 0)
      d.reject("design.wall", "the mesh has no marker '" + settings.wall + "'");
    p = design::make_parametrization(settings, dm);
  });
  return p;
}

void shape_design_settings(const deck::Deck& d, aero::ShapeDesignSettings& s, MPI_Comm comm) {
  aero::shape_design_keys().read(d, "optimizer", s);
  aero::design_bound_keys().read(d, "design", s);
  aero::operating_point_keys().read(d, "optimizer", s);  // flow.mach's point first
  // trust_region: the design's optimizer stays SLSQP (aero::SurrogateDesign drives it).
  if (d.string("optimizer.algorithm") != "trust_region") s.optimizer.algorithm = d.string("optimizer.algorithm");
  // The checkpoint: <case>_optimizer.history and <case>_optimizer_state_<k>.h5.
  s.checkpoint = d.string("output.dir") + "/" + d.string("case") + "_optimizer";
  collective_guard(comm, [&] { aero::design_start_keys().read(d, "design", s); });
}

void check_start(const deck::Deck& d, const aero::ShapeDesign& problem, MPI_Comm comm) {
  collective_guard(comm, [&] {
    aero::validate_design_start(problem.design_settings(), problem.n_design(), d.rejecter("design"),
                                "this design section", "design.bound");
  });
}

aero::DesignRecordSettings design_record_settings(const deck::Deck& d, std::vector<std::string> walls,
                                                 const std::string& checkpoint) {
  aero::DesignRecordSettings r;
  r.name = d.string("case");
  r.dir = d.string("output.dir");
  r.objective = d.string("optimizer.objective");
  r.parametrization = d.string("design.parametrization");
  r.walls = std::move(walls);
  r.paraview = d.boolean("output.paraview");
  r.checkpoint = checkpoint;
  return r;
}

void log_baseline(const aero::DesignRecord& record, const std::string& geometry) {
  logging::info("optimize: " + record.size_line());
  for (const std::string& line : record.baseline_lines(geometry)) logging::info(line);
}

}  // namespace euler_app

using namespace euler_app;

int optimize_euler(const deck::Deck& d, const Runtime& runtime, bool restart,
                   const std::string& petsc_options) {
  const MPI_Comm comm = runtime.comm();
  if (d.boolean("flow.far_field_vortex"))
    d.reject("flow.far_field_vortex",
             "camber optimize's adjoint holds the far field fixed, so it would not be the "
             "derivative of a lift-dependent far field; use a far field of many chords");
  solvers::petsc::PetscSession petsc(petsc_options);
  const std::string name = d.string("case"), dir = d.string("output.dir");
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  // A mesh file is read in parallel (each rank its chunk); a 3-D one
  // designs a wing (wing_optimize.cpp). No rank holds the global mesh.
  const bool trust_region = d.string("optimizer.algorithm") == "trust_region";
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(!(trust_region && restart),
                         "--restart: optimizer.algorithm: trust_region does not restart (its "
                         "networks are not checkpointed); run again without --restart");
  });
  mesh::MeshChunk chunk = build_mesh_chunk(d, comm, 3, "");
  collective_guard(comm, [&] {
    if (chunk.dim == 3 && trust_region)
      d.reject("optimizer.algorithm",
               "trust_region designs 2-D sections so far; this mesh is 3-D (use slsqp, mma or ccsaq)");
  });
  if (chunk.dim == 3)
    return optimize_wing(d, runtime, restart, mesh::DistributedMesh(std::move(chunk), comm));
  mesh::DistributedMesh dm(std::move(chunk), comm);
  collective_guard(comm, [&] {
    const std::string& p = d.string("design.parametrization");
    if (p == "ffd_volume" || p == "wing_twist")
      d.reject("design.parametrization",
               p + " designs a 3-D mesh; this one is 2-D (use hicks_henne, cst or ffd)");
  });
  aero::AirfoilDesignSettings settings;
  settings.flow = design_flow_settings(d, dm.local(), comm);
  settings.wall = aero::parametrization_keys().read(d, "design").wall;
  settings.deformation = deformation_options(d);
  aero::airfoil_constraint_keys().read(d, "optimizer", settings);
  shape_design_settings(d, settings, comm);
  std::unique_ptr<design::ShapeParametrization> shape = shape_parametrization(d, dm, comm);
  aero::AirfoilDesign problem(std::move(dm), std::move(shape), settings);
  check_start(d, problem, comm);
  const index_t n = problem.n_design();
  const double max_thickness_min = settings.max_thickness_min;
  const std::vector<double> t0 = problem.thickness(std::vector<double>(static_cast<size_t>(n), 0.0));
  const double t0_max = *std::max_element(t0.begin(), t0.end());
  if (max_thickness_min > 0.0 && t0_max < max_thickness_min)
    logging::warn(CAMBER_MSG("the baseline's largest thickness "
                             << t0_max << " is below optimizer.max_thickness_min = "
                             << max_thickness_min << ": the optimizer starts from an infeasible design"));

  const aero::DesignRecordSettings record = design_record_settings(d, {settings.wall}, settings.checkpoint);
  aero::DesignRecord outputs(problem, record, comm);
  log_baseline(outputs, CAMBER_MSG(", max thickness " << t0_max));
  if (runtime.rank() == 0) fs::create_directories(dir);
  CAMBER_CHECK_MPI(MPI_Barrier(comm));
  std::unique_ptr<aero::SurrogateDesign> trust;
  if (trust_region) {
    aero::SurrogateDesignSettings t;
    t.ensemble = aero::ensemble_keys().read(d, "trust_region");
    aero::trust_region_keys().read(d, "trust_region", t.region);
    t.record_path = dir + "/" + name + "_trust_region.csv";
    t.objective = d.string("optimizer.objective");
    trust = std::make_unique<aero::SurrogateDesign>(problem, t, comm);
  }
  const aero::AirfoilDesignResult result = problem.run(std::ref(outputs), restart);

  // The final design: shape and mesh (written by every rank, its part).
  std::vector<std::string> files = outputs.write_final(result);
  if (trust) trust->write_final();
  for (std::string& f : aero::write_final_airfoil(problem, result, record)) files.push_back(std::move(f));
  std::ostringstream geometry;
  geometry << std::fixed << std::setprecision(6) << "\n  max thickness   "
           << result.baseline_max_thickness << "    " << result.final_max_thickness
           << "\n  area            " << result.baseline_area << "    " << result.final_area
           << "\n  LE radius       " << result.baseline_le_radius << "    " << result.final_le_radius;
  std::ostringstream summary;
  summary << outputs.summary(result, geometry.str(), elapsed()) << (trust ? trust->summary() : std::string())
          << aero::output_rows(files);
  logging::info("summary:" + summary.str());
  // A collapsed trust region is an error (exit 1) once the last accepted
  // design is written.
  if (result.optimizer.status == opt::Status::trust_region_collapsed)
    throw Error(ErrorKind::failure, "camber optimize: " + result.optimizer.message +
                                        "; the outputs hold the last accepted design");
  return result.optimizer.status == opt::Status::evaluation_failed ? 1 : 0;
}

}  // namespace camber::app
