/// @file
/// Steady heat conduction on a distributed mesh, cell-centred finite volumes,
/// PETSc.
///
/// Solves  -div(k grad T) = f  with constant conductivity k and Dirichlet
/// T = g on every boundary face, where f and g come from a manufactured
/// solution T_exact (so the discretization error is known), on any 2-D
/// mesh::DistributedMesh: a generated rectangle, or a .su2/.msh file. One
/// unknown per cell, at its centroid x_c. The flux through an interior face
/// between cells L and R, and through a boundary face of cell L, is the
/// two-point flux
///
/// @code
///   F = k |S| (T_L - T_R) / d,   d = (x_R - x_L) . n     (interior face)
///   F = k |S| (T_L - g(x_f)) / d,  d = (x_f - x_L) . n   (boundary face)
/// @endcode
///
/// with |S| the face length, n its unit normal from L to R (outward at the
/// boundary) and x_f its centre: d is the orthogonal part of the distance
/// from centroid to centroid (or to the face). The source is f(x_c) |cell|.
///
/// @code
///   camber::mesh::DistributedMesh dm(camber::mesh::rectangle(64, 32, 2.0, 1.0), comm);
///   camber::solvers::heat::HeatProblem problem;
///   problem.length_x_m = 2.0; problem.length_y_m = 1.0;
///   camber::solvers::heat::HeatResult r = camber::solvers::heat::solve_heat(dm, problem);
///   // r.temperature: {dm.n_local_cells()}, owned cells then ghosts (dm.local())
///   // r.l2_error, r.max_error: global errors against the exact solution
/// @endcode
///
/// Accuracy and its limit: the two-point flux is exact for a linear T only
/// when the line from centroid to centroid (or to the face centre) is
/// normal to the face, an orthogonal mesh such as the rectangle's quads;
/// there the discrete error is O(h^2) (tests/regression/). On a
/// non-orthogonal mesh the flux misses the gradient's component along the
/// face, an O(1) error in the flux density that does not vanish under
/// refinement: on the right-isosceles triangles of mesh::rectangle (whose
/// non-orthogonality is atan(1/2) = 26.6 degrees) a linear T is not
/// reproduced (its error is |T_x - T_y| h / 24 in every cell: first
/// order), and a curved T such as sin_exp is not converged to at all: the
/// scheme converges to the solution with conductivity
/// k [[9/8, 3/8], [3/8, 9/8]] instead (derived and measured in
/// tests/regression/test_heat_convergence_mpi.cpp). Non-orthogonal meshes
/// need a correction (e.g.\ a reconstructed gradient's tangential part),
/// which this solver does not apply; HeatResult::max_non_orthogonality_deg reports
/// how far a mesh is from orthogonal, and `camber run` warns above 1 degree.
///
/// Parallel layout: the mesh's partition (METIS); PETSc rows are numbered
/// rank by rank (rank r's owned cells follow those of ranks < r, in local
/// order), and a ghost gets its owner's number through the halo exchange.
/// Results agree across rank counts to the linear solver's tolerance. A
/// petsc::PetscSession (solvers/petsc/petsc_session.hpp) must be alive. The manufactured
/// solutions are defined in the mesh's own coordinates, with length scales
/// Lx and Ly (HeatProblem::length_x_m, length_y_m: a rectangle's sides).
///
/// Most users run it through the command line: `camber run` with a
/// `problem: heat` deck (examples/heat/plate.yaml; docs/deck-reference.md),
/// which builds the mesh, partitions it, calls solve_heat and writes the
/// ParaView and HDF5 output through solvers/heat/heat_output.hpp.
///
/// Ownership: solve_heat reads the mesh and keeps nothing; the result owns
/// its Tensors. Values only: no derivatives (the operator is linear in T;
/// differentiating with respect to the mesh is not wired up).
///
/// Units: lengths in m, k in W/(m K), f in W/m^3, T in K (per unit depth).
#pragma once

#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/petsc/linear_solver.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::heat {

/// Manufactured solutions known to solve_heat (HeatProblem::manufactured):
/// @code
///   "sin_exp": T = sin(pi x / Lx) exp(y / Ly) + x y / (Lx Ly)   (smooth, no symmetry)
///   "linear":  T = 1 + 2 x / Lx - 3 y / Ly        (reproduced exactly on orthogonal meshes)
/// @endcode
std::vector<std::string> heat_manufactured_solutions();

struct HeatProblem {
  double length_x_m = 1.0;       ///< Lx > 0 of the manufactured solution (a rectangle's side)
  double length_y_m = 1.0;       ///< Ly > 0 of the manufactured solution
  double conductivity = 1.0;     ///< k > 0, W/(m K)
  std::string manufactured = "sin_exp";
  petsc::LinearSolverOptions solver;    ///< applied, then overridden by -heat_* options
};

struct HeatResult {
  /// Shape {n_local_cells}, K, at the centroids of dm.local()'s cells: owned
  /// cells, then ghosts (filled from their owners).
  Tensor temperature;
  Tensor exact;                  ///< the manufactured T at the same centroids
  /// Global over all ranks, each cell counted once (on its owner):
  /// sqrt(sum_c (T_c - T_exact(x_c))^2 |cell c|) and max_c |T_c - T_exact(x_c)|.
  double l2_error = 0.0;
  double max_error = 0.0;
  int iterations = 0;            ///< Krylov iterations
  double residual_norm = 0.0;    ///< ||b - A T||_2 of the assembled system
  /// Largest angle, over all faces, between the face normal and the line
  /// from the cell centroid to the neighbour's centroid (or to the face
  /// centre): 0 on an orthogonal mesh, where the two-point flux is exact for
  /// linear T.
  double max_non_orthogonality_deg = 0.0;
};

/// Checks the problem (not the mesh); throws camber::Error (bad_input)
/// naming the offending field.
void validate_heat_problem(const HeatProblem& problem);

/// Assembles and solves on dm.comm() (collective; PETSc objects live there).
/// bad_input errors, raised on every rank: an invalid problem, a boundary
/// face without a marker, or a face with d <= 0 (centroids on the same side
/// of it: a badly distorted, non-convex cell).
HeatResult solve_heat(const mesh::DistributedMesh& dm, const HeatProblem& problem);

}  // namespace camber::solvers::heat
