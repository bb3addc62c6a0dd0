#include "heat_case.hpp"

#include "mesh_source.hpp"

#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/core/log.hpp>
#include <camber/mesh/deck_keys.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/solvers/heat/deck_keys.hpp>
#include <camber/solvers/heat/heat_conduction.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace {

void declare_heat_schema(deck::Schema& s) {
  declare_rectangle_mesh(s, "Every boundary marker gets the Dirichlet condition T = g.",
                         "; also the length L{} of the manufactured solution, for a mesh file too");
  solvers::heat::heat_problem_keys().declare(
      s.section("heat", "Steady heat conduction -div(k grad T) = f with Dirichlet T = g."));
  solvers::heat::linear_solver_keys().declare(
      s.section("solver", "The linear solver (PETSc KSP); -heat_ksp_* options override it."));
}

void validate_heat(const deck::Deck& d) {
  // length_x_m and length_y_m also size the manufactured solution of a file.
  mesh::validate_mesh_file_keys(d, "mesh", {"cells_x", "cells_y"});
}

solvers::heat::HeatProblem heat_problem_of(const deck::Deck& d) {
  solvers::heat::HeatProblem p;
  p.length_x_m = d.real("mesh.length_x_m");
  p.length_y_m = d.real("mesh.length_y_m");
  solvers::heat::heat_problem_keys().read(d, "heat", p);
  solvers::heat::linear_solver_keys().read(d, "solver", p.solver);
  return p;
}

void write_paraview(const std::string& dir, const std::string& name,
                    const mesh::DistributedMesh& dm, const solvers::heat::HeatResult& r) {
  ScopedTimer timer("write_vtk");
  const auto t = r.temperature.to_vector();
  const auto e = r.exact.to_vector();
  std::vector<double> err(t.size());
  for (size_t i = 0; i < t.size(); ++i) err[i] = t[i] - e[i];
  const io::UnstructuredPiece piece = dm.owned_piece(
      {{"Temperature [K]", 1, t}, {"Exact temperature [K]", 1, e}, {"Error [K]", 1, err}});
  const std::string pvtu =
      io::write_pvtu(dir + "/" + io::series_file_name(name, 0), piece, dm.comm());
  io::PvdSeries series(dir + "/" + name + ".pvd", dm.comm());
  series.add(0.0, fs::path(pvtu).filename().string());
  logging::info("wrote " + dir + "/" + name + ".pvd (ParaView)");
}

// The owned rows of a cell field of shape {n_local_cells}.
Tensor owned_rows(const Tensor& field, index_t n_owned) {
  std::vector<double> values = field.to_vector();
  values.resize(static_cast<size_t>(n_owned));
  return Tensor::from_host({n_owned}, values);
}

void write_hdf5(const std::string& dir, const std::string& name, const deck::Deck& d,
                const mesh::DistributedMesh& dm, const solvers::heat::HeatResult& r) {
  ScopedTimer timer("write_hdf5");
  const std::string path = dir + "/" + name + ".h5";
  const index_t n_owned = dm.n_owned_cells();
  io::H5File file(path, io::Mode::create, dm.comm());
  // Rows are the owned cells of rank 0, then rank 1, ...; cell_id gives
  // each row's cell in the mesh's own numbering.
  file.write("fields/temperature_K", owned_rows(r.temperature, n_owned));
  file.write("fields/exact_temperature_K", owned_rows(r.exact, n_owned));
  std::vector<double> ids(dm.cell_global_ids().begin(),
                          dm.cell_global_ids().begin() + n_owned);
  file.write("fields/cell_id", Tensor::from_host({n_owned}, ids));
  file.set_attribute("", "case", name);
  file.set_attribute("", "deck", d.source());
  file.set_attribute("", "cells", static_cast<std::int64_t>(dm.n_global_cells()));
  if (mesh_from_file(d)) {
    file.set_attribute("", "mesh_file", mesh_file_path(d));
  } else {
    file.set_attribute("", "cells_x", static_cast<std::int64_t>(d.integer("mesh.cells_x")));
    file.set_attribute("", "cells_y", static_cast<std::int64_t>(d.integer("mesh.cells_y")));
  }
  file.set_attribute("", "l2_error_K", r.l2_error);
  file.set_attribute("", "max_error_K", r.max_error);
  file.close();
  logging::info("wrote " + path + " (HDF5)");
}

int run_heat(const deck::Deck& d, const Runtime& runtime, const RunOptions& options) {
  const MPI_Comm comm = runtime.comm();
  const solvers::heat::HeatProblem problem = heat_problem_of(d);
  collective_guard(comm, [&] { solvers::heat::validate_heat_problem(problem); });
  solvers::petsc::PetscSession petsc(options.petsc_options);

  const std::string name = d.string("case");
  const std::string dir = d.string("output.dir");
  mesh::DistributedMesh dm;
  {
    ScopedTimer timer("mesh");
    dm = build_rectangle_or_file_distributed(d, comm);
  }
  const std::string cells =
      mesh_from_file(d) ? CAMBER_MSG(mesh_file_path(d) << ": " << dm.n_global_cells() << " cells")
                   : CAMBER_MSG(d.integer("mesh.cells_x") << " x " << d.integer("mesh.cells_y")
                                                          << " cells");
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
  if (d.boolean("output.paraview")) write_paraview(dir, name, dm, r);
  if (d.boolean("output.hdf5")) write_hdf5(dir, name, d, dm, r);
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
