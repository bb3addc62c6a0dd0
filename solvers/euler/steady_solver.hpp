// Steady Euler solutions by Newton's method with pseudo-transient
// continuation (PTC), on PETSc.
//
// Each step solves
//
//   (diag(lambda_i / CFL) + dR/dU) dU = -R(U),      U <- U + alpha dU,
//
// where lambda_i is cell i's convective spectral radius (so lambda_i / CFL =
// V_i / dt_i, a local time step) and dR/dU is the exact Jacobian of the
// first-order residual, assembled from the Dual face blocks of
// Discretization::face_jacobians into a PETSc block (BAIJ, 4x4) matrix. As
// the residual falls the CFL number grows by the same factor (switched
// evolution relaxation, at most cfl_growth per step; a step that raised the
// residual multiplies it by cfl_cut instead), so the iteration turns into
// Newton's method and converges quadratically. alpha < 1 only where the full
// step would make a density or pressure negative (halved until it does
// not); a step that needs alpha below 1/64 is rejected, the CFL number cut
// by 10 and the step retried.
//
// The linear solver is GMRES with block-Jacobi/ILU(0) (ILU(0) on one rank),
// to a relative tolerance; -<prefix>ksp_* and -<prefix>pc_* options
// override it. The matrix, the Krylov solver and its vectors are created
// once and reused across steps; PETSc's vectors are placed over the
// Tensors' own storage (no copies).
//
//   solvers::PetscSession petsc;
//   euler::Discretization disc(dm, flow, conditions);
//   Tensor U = disc.free_stream_field();
//   euler::SteadyResult r = euler::solve_steady(disc, U, {});
//   // r.converged, r.iterations, r.history (residuals, CFL, forces per step)
//
// Errors: a NaN residual, or a step rejected at the CFL floor, is a
// camber::Error (failure) naming the cell and its coordinates; U keeps the
// last good state.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <camber/solvers/euler/discretization.hpp>
#include <camber/tensor.hpp>

namespace camber::solvers::euler {

struct SteadyOptions {
  int max_iterations = 100;
  double rel_tolerance = 1e-10;  // on the L2 norm of the density residual
  double abs_tolerance = 1e-14;
  double cfl_start = 10.0;
  double cfl_max = 1e10;
  double cfl_growth = 10.0;  // largest factor per step (when the residual falls)
  double cfl_cut = 0.5;      // factor when the residual rose
  double linear_rel_tolerance = 1e-3;
  int linear_max_iterations = 200;
  std::string options_prefix = "flow_";  // PETSc options: -flow_ksp_type ...
};

struct IterationReport {
  int iteration = 0;
  double residual_density = 0.0;  // L2 over all cells and ranks
  double residual_all = 0.0;      // L2 of all four equations
  double cfl = 0.0;
  double step = 0.0;  // alpha
  int linear_iterations = 0;
  Forces forces;
  double seconds = 0.0;  // since the solve started
};

struct SteadyResult {
  bool converged = false;
  int iterations = 0;
  std::vector<IterationReport> history;  // entry k: state after k steps
  Forces forces;
};

// Called after every step (on every rank) with the step's report.
using SteadyMonitor = std::function<void(const IterationReport&)>;

// Drives U (shape {n_local, 4}, owned rows meaningful) to R(U) = 0.
// Collective; needs a live solvers::PetscSession.
SteadyResult solve_steady(const Discretization& disc, Tensor& U, const SteadyOptions& options,
                          const SteadyMonitor& monitor = nullptr);

}  // namespace camber::solvers::euler
