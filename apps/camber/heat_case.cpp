#include "heat_case.hpp"

#include <filesystem>
#include <iomanip>
#include <sstream>

#include <camber/solvers/heat_conduction.hpp>
#include <camber/solvers/petsc_session.hpp>
#include <camber/error.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_session.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/log.hpp>
#include <camber/timer.hpp>

namespace camber::app {

namespace {

void declare_heat_schema(deck::Schema& s) {
  s.section("mesh", "The computational mesh.")
      .choice("generate", "rectangle", {"rectangle"},
              "Mesh generator. rectangle: [0, length_x_m] x [0, length_y_m] in uniform "
              "quadrilaterals, split into contiguous blocks of cells across MPI ranks.")
      .integer("cells_x", 64, deck::IntRange(2, 1 << 20), "Cells along x.")
      .integer("cells_y", 64, deck::IntRange(2, 1 << 20), "Cells along y.")
      .real("length_x_m", 1.0, deck::Range::positive(), "Domain length along x, in metres.")
      .real("length_y_m", 1.0, deck::Range::positive(), "Domain length along y, in metres.");
  s.section("heat", "Steady heat conduction -div(k grad T) = f with Dirichlet T = g.")
      .real("conductivity_W_per_mK", 1.0, deck::Range::positive(),
            "Thermal conductivity k, in W/(m K).")
      .choice("manufactured_solution", "sin_exp", solvers::heat_manufactured_solutions(),
              "Exact solution that defines f and g. sin_exp: T = sin(pi x/Lx) exp(y/Ly) + x y/(Lx "
              "Ly). linear: T = 1 + 2 x/Lx - 3 y/Ly (reproduced to round-off).");
  s.section("solver", "The linear solver (PETSc KSP); -heat_ksp_* options override it.")
      .choice("method", "cg", {"cg", "gmres", "bcgs", "preonly"},
              "Krylov method (PETSc KSPType). preonly with preconditioner lu is a direct solve.")
      .choice("preconditioner", "hypre", {"hypre", "gamg", "bjacobi", "jacobi", "lu", "none"},
              "Preconditioner (PETSc PCType). hypre is BoomerAMG; lu needs one rank.")
      .real("rel_tolerance", 1e-12, deck::Range(1e-16, 1.0).and_less_than(1.0),
            "Stop when the residual norm falls by this factor.")
      .integer("max_iterations", 10000, deck::IntRange::positive(),
               "Fail when not converged after this many iterations.");
}

solvers::HeatProblem heat_problem_of(const deck::Deck& d) {
  solvers::HeatProblem p;
  p.nx = d.integer("mesh.cells_x");
  p.ny = d.integer("mesh.cells_y");
  p.length_x_m = d.real("mesh.length_x_m");
  p.length_y_m = d.real("mesh.length_y_m");
  p.conductivity = d.real("heat.conductivity_W_per_mK");
  p.manufactured = d.string("heat.manufactured_solution");
  p.solver.method = d.string("solver.method");
  p.solver.preconditioner = d.string("solver.preconditioner");
  p.solver.rel_tolerance = d.real("solver.rel_tolerance");
  p.solver.max_iterations = static_cast<int>(d.integer("solver.max_iterations"));
  return p;
}

void write_paraview(const std::string& dir, const std::string& name,
                    const solvers::HeatProblem& problem, const solvers::HeatResult& r,
                    MPI_Comm comm) {
  ScopedTimer timer("write_vtk");
  const solvers::LocalQuadMesh m = solvers::local_mesh(problem, r.cell_begin, r.cell_end);
  const index_t n_cells = r.cell_end - r.cell_begin;
  io::UnstructuredPiece piece;
  piece.points_xyz = m.points_xyz;
  piece.connectivity.assign(m.connectivity.begin(), m.connectivity.end());
  for (index_t c = 0; c < n_cells; ++c) {
    piece.offsets.push_back(4 * (c + 1));
    piece.cell_types.push_back(io::vtk_cell::quad);
  }
  const auto t = r.temperature.to_vector();
  const auto e = r.exact.to_vector();
  std::vector<double> err(t.size());
  for (size_t i = 0; i < t.size(); ++i) err[i] = t[i] - e[i];
  piece.cell_data.push_back({"Temperature [K]", 1, t});
  piece.cell_data.push_back({"Exact temperature [K]", 1, e});
  piece.cell_data.push_back({"Error [K]", 1, err});
  const std::string pvtu =
      io::write_pvtu(dir + "/" + io::series_file_name(name, 0), piece, comm);
  io::PvdSeries series(dir + "/" + name + ".pvd", comm);
  series.add(0.0, std::filesystem::path(pvtu).filename().string());
  logging::info("wrote " + dir + "/" + name + ".pvd (ParaView)");
}

void write_hdf5(const std::string& dir, const std::string& name, const deck::Deck& d,
                const solvers::HeatResult& r, MPI_Comm comm) {
  ScopedTimer timer("write_hdf5");
  const std::string path = dir + "/" + name + ".h5";
  io::H5File file(path, io::Mode::create, comm);
  file.write("fields/temperature_K", r.temperature);
  file.write("fields/exact_temperature_K", r.exact);
  file.set_attribute("", "case", name);
  file.set_attribute("", "deck", d.source());
  file.set_attribute("", "cells_x", static_cast<std::int64_t>(d.integer("mesh.cells_x")));
  file.set_attribute("", "cells_y", static_cast<std::int64_t>(d.integer("mesh.cells_y")));
  file.set_attribute("", "l2_error_K", r.l2_error);
  file.set_attribute("", "max_error_K", r.max_error);
  file.close();
  logging::info("wrote " + path + " (HDF5)");
}

int run_heat(const deck::Deck& d, const Runtime& runtime, const RunOptions& options) {
  const solvers::HeatProblem problem = heat_problem_of(d);
  collective_guard(runtime.comm(), [&] {
    try {
      solvers::validate_heat_problem(problem, runtime.size());
    } catch (const Error& e) {
      // Point at the deck line of the mesh size, the usual culprit.
      d.reject("mesh.cells_x", e.message());
    }
  });
  solvers::PetscSession petsc(options.petsc_options);

  const std::string name = d.string("case");
  const std::string dir = d.string("output.dir");
  logging::info(CAMBER_MSG("heat: " << problem.nx << " x " << problem.ny << " cells on "
                                << runtime.size() << (runtime.size() == 1 ? " rank" : " ranks")
                                << ", k = " << problem.conductivity
                                << " W/(m K), manufactured solution " << problem.manufactured));
  solvers::HeatResult r;
  {
    ScopedTimer timer("heat");
    r = solvers::solve_heat(problem, runtime.comm());
  }
  logging::info(CAMBER_MSG("linear solve: " << problem.solver.method << " + "
                                        << problem.solver.preconditioner << ", " << r.iterations
                                        << " iterations, residual " << std::scientific
                                        << std::setprecision(3) << r.residual_norm));
  logging::info(CAMBER_MSG("error against the manufactured solution: L2 " << std::scientific
                                                                      << std::setprecision(6)
                                                                      << r.l2_error << " K, max "
                                                                      << r.max_error << " K"));
  if (d.boolean("output.paraview")) write_paraview(dir, name, problem, r, runtime.comm());
  if (d.boolean("output.hdf5")) write_hdf5(dir, name, d, r, runtime.comm());
  return 0;
}

}  // namespace

Problem heat_problem() {
  Problem p;
  p.name = "heat";
  p.summary =
      "steady heat conduction on a rectangle with a manufactured solution (sections mesh, "
      "heat, solver).";
  p.declare = declare_heat_schema;
  p.run = run_heat;
  return p;
}

}  // namespace camber::app
