/// @file
/// Steady heat conduction on a rectangle, cell-centred finite volumes, PETSc.
///
/// Solves  -div(k grad T) = f  on [0, Lx] x [0, Ly] with constant
/// conductivity k and Dirichlet T = g on the whole boundary, where f and g
/// come from a manufactured solution T_exact (so the discretization error is
/// known). The mesh is nx * ny uniform quadrilaterals generated in code; cell
/// (i, j) has global index c = j * nx + i. The flux through a face between
/// two cells is the two-point flux k (T_P - T_N) / h * |face| (exact for
/// linear T on this orthogonal grid); a boundary face uses g at the face
/// centre, at distance h/2. The discrete error is O(h^2).
///
/// @code
///   camber::solvers::HeatProblem problem;
///   problem.nx = 64; problem.ny = 32;
///   problem.length_x_m = 2.0; problem.length_y_m = 1.0;
///   camber::solvers::HeatResult r = camber::solvers::solve_heat(problem, comm);
///   // r.temperature: this rank's cells [r.cell_begin, r.cell_end)
///   // r.l2_error, r.max_error: global errors against the exact solution
/// @endcode
///
/// Parallel layout: each rank owns a contiguous block of global cell indices
/// (block_cell_range), a stand-in until mesh partitioning arrives; results
/// agree across rank counts to the linear solver's tolerance. A PetscSession
/// (solvers/petsc_session.hpp) must be alive. This is a verification problem
/// for the PETSc machinery; the general diffusion operator on unstructured
/// meshes will build on mesh/.
///
/// Units: lengths in m, k in W/(m K), f in W/m^3, T in K (per unit depth).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include <camber/solvers/linear_solver.hpp>
#include <camber/tensor.hpp>

namespace camber::solvers {

/// Manufactured solutions known to solve_heat (HeatProblem::manufactured):
/// @code
///   "sin_exp": T = sin(pi x / Lx) exp(y / Ly) + x y / (Lx Ly)   (smooth, no symmetry)
///   "linear":  T = 1 + 2 x / Lx - 3 y / Ly                      (reproduced exactly)
/// @endcode
std::vector<std::string> heat_manufactured_solutions();

struct HeatProblem {
  index_t nx = 16;               ///< cells along x, >= 2
  index_t ny = 16;               ///< cells along y, >= 2
  double length_x_m = 1.0;       ///< Lx > 0
  double length_y_m = 1.0;       ///< Ly > 0
  double conductivity = 1.0;     ///< k > 0, W/(m K)
  std::string manufactured = "sin_exp";
  LinearSolverOptions solver;    ///< applied, then overridden by -heat_* options
};

struct HeatResult {
  index_t cell_begin = 0;        ///< this rank's global cells [cell_begin, cell_end)
  index_t cell_end = 0;
  Tensor temperature;            ///< shape {cell_end - cell_begin}, K, at cell centres
  Tensor exact;                  ///< the manufactured T at the same cell centres
  /// Global over all ranks: sqrt(sum_c (T_c - T_exact(x_c))^2 |cell|) and
  /// max_c |T_c - T_exact(x_c)|.
  double l2_error = 0.0;
  double max_error = 0.0;
  int iterations = 0;            ///< Krylov iterations
  double residual_norm = 0.0;    ///< ||b - A T||_2 of the assembled system
};

/// The contiguous block of global cells owned by `part` of `n_parts`: sizes
/// differ by at most one, lower parts get the larger blocks.
struct CellRange {
  index_t begin = 0;
  index_t end = 0;
};
CellRange block_cell_range(index_t n_cells, int n_parts, int part);

/// Checks the problem for a run on n_ranks ranks; throws camber::Error
/// (bad_input) naming the offending field.
void validate_heat_problem(const HeatProblem& problem, int n_ranks);

/// Assembles and solves on `comm` (collective; PETSc objects live on comm).
HeatResult solve_heat(const HeatProblem& problem, MPI_Comm comm);

/// Geometry of the cells [cell_begin, cell_end), for writing a .vtu piece.
/// Points are the distinct corners of these cells, numbered locally.
struct LocalQuadMesh {
  index_t cell_begin = 0;
  index_t cell_end = 0;
  index_t n_points = 0;
  std::vector<double> points_xyz;    ///< 3 per point (z = 0)
  std::vector<index_t> connectivity; ///< 4 local point indices per cell, counter-clockwise
  std::vector<double> centroids_xyz; ///< 3 per cell
};
LocalQuadMesh local_mesh(const HeatProblem& problem, index_t cell_begin, index_t cell_end);

}  // namespace camber::solvers
