#include "heat_case.hpp"

#include <iomanip>
#include <string>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/mesh/deck_keys.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/heat/deck_keys.hpp>
#include <camber/solvers/heat/heat_conduction.hpp>
#include <camber/solvers/heat/heat_output.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace {

void declare_heat_schema(deck::Schema& s) {
  mesh::rectangle_source_keys("Every boundary marker gets the Dirichlet condition T = g.",
                              "; also the length L{} of the manufactured solution, for a mesh file too")
      .declare(s.section("mesh", "The computational mesh: a rectangle generated here, or a file."));
  solvers::heat::heat_problem_keys().declare(
      s.section("heat", "Steady heat conduction -div(k grad T) = f with Dirichlet T = g."));
  solvers::heat::linear_solver_keys().declare(
      s.section("solver", "The linear solver (PETSc KSP); -heat_ksp_* options override it."));
}

void validate_heat(const deck::Deck& d) {
  // length_x_m and length_y_m also size the manufactured solution of a file.
  mesh::validate_rectangle_source_keys(d, "mesh");
}

solvers::heat::HeatProblem heat_problem_of(const deck::Deck& d, const mesh::RectangleSettings& r) {
  solvers::heat::HeatProblem p;
  p.length_x_m = r.length_x_m;
  p.length_y_m = r.length_y_m;
  solvers::heat::heat_problem_keys().read(d, "heat", p);
  solvers::heat::linear_solver_keys().read(d, "solver", p.solver);
  return p;
}

int run_heat(const deck::Deck& d, const Runtime& runtime, const RunOptions& options) {
  const MPI_Comm comm = runtime.comm();
  const mesh::MeshSource source = mesh::read_rectangle_source(d, "mesh");
  const solvers::heat::HeatProblem problem = heat_problem_of(d, source.rectangle);
  collective_guard(comm, [&] { solvers::heat::validate_heat_problem(problem); });
  solvers::petsc::PetscSession petsc(options.petsc_options);

  const std::string name = d.string("case");
  const std::string dir = d.string("output.dir");
  mesh::DistributedMesh dm;
  {
    ScopedTimer timer("mesh");
    dm = mesh::DistributedMesh(mesh::build_mesh_chunk(d, "mesh", source, comm, 2, "the heat problem"), comm);
  }
  const bool file = source.kind == mesh::MeshSourceKind::file;
  const std::string cells =
      file ? CAMBER_MSG(source.file << ": " << dm.n_global_cells() << " cells")
           : CAMBER_MSG(source.rectangle.cells_x << " x " << source.rectangle.cells_y << " cells");
  logging::info(CAMBER_MSG("heat: " << cells << " on " << runtime.size()
                                << (runtime.size() == 1 ? " rank" : " ranks")
                                << ", k = " << problem.conductivity
                                << " W/(m K), manufactured solution " << problem.manufactured));
  solvers::heat::HeatResult r;
  {
    ScopedTimer timer("heat");
    r = solvers::heat::solve_heat(dm, problem);
  }
  logging::info(CAMBER_MSG("linear solve: " << problem.solver.method << " + "
                                        << problem.solver.preconditioner << ", " << r.iterations
                                        << " iterations, residual " << std::scientific
                                        << std::setprecision(3) << r.residual_norm));
  logging::info(CAMBER_MSG("error against the manufactured solution: L2 " << std::scientific
                                                                      << std::setprecision(6)
                                                                      << r.l2_error << " K, max "
                                                                      << r.max_error << " K"));
  // 1 degree: far above the round-off of an orthogonal mesh's centroids,
  // far below any mesh that was not built to be orthogonal.
  if (r.max_non_orthogonality_deg > 1.0)
    logging::warn(CAMBER_MSG(
        "the mesh is not orthogonal (up to "
        << std::fixed << std::setprecision(1) << r.max_non_orthogonality_deg
        << " degrees between a face normal and the line from a cell centroid to the next "
           "centroid or to the face): the two-point flux is inconsistent there, so the error "
           "need not vanish under refinement"));
  if (d.boolean("output.paraview"))
    logging::info("wrote " + solvers::heat::write_heat_paraview(dir, name, dm, r) + " (ParaView)");
  if (d.boolean("output.hdf5")) {
    solvers::heat::HeatFileAttributes attributes;
    attributes.deck = d.source();
    if (file) {
      attributes.mesh_file = source.file;
    } else {
      attributes.cells_x = source.rectangle.cells_x;
      attributes.cells_y = source.rectangle.cells_y;
    }
    logging::info("wrote " + solvers::heat::write_heat_hdf5(dir, name, dm, r, attributes) + " (HDF5)");
  }
  return 0;
}

}  // namespace

Problem heat_problem() {
  Problem p;
  p.name = "heat";
  p.summary =
      "steady heat conduction with a manufactured solution, on a generated rectangle or a mesh "
      "file (sections mesh, heat, solver).";
  p.declare = declare_heat_schema;
  p.validate = validate_heat;
  p.run = run_heat;
  return p;
}

}  // namespace camber::app
