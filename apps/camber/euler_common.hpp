// What the euler problem's jobs share (`camber run` and `camber optimize`,
// euler_case.cpp and euler_optimize.cpp): the deck's sections, the mesh
// and conditions it describes, the design chain, and the outputs.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "problem.hpp"

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/design/airfoil_wall.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/mesh/airfoil_grid.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/aero/design_record.hpp>
#include <camber/solvers/aero/shape_design.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/core/tensor.hpp>

namespace camber::app {

namespace eu = solvers::euler;
namespace aero = solvers::aero;

namespace euler_app {

// The euler problem's sections (mesh, flow, boundaries, solver, design,
// optimizer) and their cross-key checks (the library's, on those sections).
void declare_euler_schema(deck::Schema& s);
void validate_euler(const deck::Deck& d);

// This rank's chunk of the mesh the deck describes (mesh::build_mesh_chunk:
// a file's chunk read in parallel, a generated grid made on every rank).
// A mesh of more than max_dim dimensions is rejected at mesh.file, saying
// that `what` works on 2-D meshes so far.
mesh::MeshChunk build_mesh_chunk(const deck::Deck& d, MPI_Comm comm, int max_dim,
                                 const std::string& what);
// The same distributed over the ranks of comm.
mesh::DistributedMesh build_distributed_mesh(const deck::Deck& d, MPI_Comm comm, int max_dim,
                                             const std::string& what);
// Boundary conditions checked against the mesh's markers (bad_input names
// the deck key and line).
std::vector<eu::BoundaryCondition> boundary_conditions(const deck::Deck& d, const mesh::Mesh& m,
                                                       MPI_Comm comm);
eu::FlowConditions flow_conditions(const deck::Deck& d);
eu::FluxScheme flux_scheme(const deck::Deck& d);
eu::SpatialOptions spatial_options(const deck::Deck& d);
eu::SteadyOptions steady_options(const deck::Deck& d);

// `camber optimize`'s chain (euler_optimize.cpp): the flow solved at every
// design (the sections above, warm starts to the absolute tolerance 1e-13,
// solver.warm_cfl_start), the design section's parametrization of the wall
// (bad_input for a wall the mesh lacks) and its mesh deformation's options.
eu::SteadyFlowSettings design_flow_settings(const deck::Deck& d, const mesh::Mesh& m,
                                            MPI_Comm comm);
std::unique_ptr<design::ShapeParametrization> shape_parametrization(
    const deck::Deck& d, const mesh::DistributedMesh& dm, MPI_Comm comm);
design::DeformationOptions deformation_options(const deck::Deck& d);
// What the optimizer section and design.bound set whatever the geometry
// (objective, lift, alpha range, moment bound, operating points, NLopt,
// the checkpoint <dir>/<case>_optimizer, design.start's design, read and
// rejected collectively); s.flow must be set first.
void shape_design_settings(const deck::Deck& d, aero::ShapeDesignSettings& s, MPI_Comm comm);
// design.start checked against the problem built (rejected at the key).
void check_start(const deck::Deck& d, const aero::ShapeDesign& problem, MPI_Comm comm);
// The problem's size, the baseline's coefficients (solving it) followed by
// `geometry`, and the lift held (aero::DesignRecord's lines).
void log_baseline(const aero::DesignRecord& record, const std::string& geometry);

// camber optimize's record of the design (aero::DesignRecord) with the
// deck's case, folder, objective, parametrization and output.paraview.
aero::DesignRecordSettings design_record_settings(const deck::Deck& d, std::vector<std::string> walls,
                                                 const std::string& checkpoint);

// What every flow of a design shares: the deck's mesh, partitioned over
// `comm`, and its boundary conditions.
struct FlowSetup {
  mesh::DistributedMesh dm;
  std::vector<eu::BoundaryCondition> conditions;
};
FlowSetup flow_setup(const deck::Deck& d, MPI_Comm comm);
// The steady flow at (mach, alpha_deg) from free stream, with the deck's
// other flow and solver settings (collective over setup.dm's communicator).
eu::SteadyResult solve_flow_at(const deck::Deck& d, FlowSetup& setup, double mach,
                               double alpha_deg);

}  // namespace euler_app

// `camber sample` for an euler deck (euler_sample.cpp): the sample
// section's design, solved by groups of ranks, written as a data set.
int sample_euler(const deck::Deck& d, const Runtime& runtime, const RunOptions& options);

// `camber optimize` for an euler deck (euler_optimize.cpp).
int optimize_euler(const deck::Deck& d, const Runtime& runtime, bool restart,
                   const std::string& petsc_options);
// The same on a 3-D mesh, read in parallel (wing_optimize.cpp): an FFD box
// around the walls, called by optimize_euler inside its PETSc session.
int optimize_wing(const deck::Deck& d, const Runtime& runtime, bool restart,
                  mesh::DistributedMesh dm);

}  // namespace camber::app
