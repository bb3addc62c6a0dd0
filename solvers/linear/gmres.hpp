/// @file
/// Restarted GMRES on Kokkos views: the Krylov solver of the device path,
/// which needs no PETSc.
///
/// The method is PETSc's KSPGMRES with its defaults, so that one setting
/// means the same on either path: the Arnoldi basis orthogonalized by
/// classical Gram-Schmidt (one pass; `refine` adds a second), the
/// Hessenberg matrix reduced by Givens rotations as it grows, the residual
/// norm read from the rotated right-hand side, the solution formed at the
/// end of each cycle, and the residual recomputed at each restart.
/// Preconditioning left (the preconditioned residual is tested, as
/// PETSc's KSP_NORM_PRECONDITIONED) or right (the true residual).
/// Convergence as PETSc's default test: ||r_k|| <= max(rel_tolerance
/// ||r_0||, abs_tolerance), with r_0 the first residual (the
/// preconditioned one on the left); divergence when ||r_k|| > div_tolerance
/// ||r_0|| or a norm is not finite. Each restart tests the residual it
/// recomputes, as PETSc's cycle does. `iterations` counts Arnoldi steps over
/// all cycles, as KSPGetIterationNumber.
///
/// Every reduction is deterministic (linear_operator.hpp), so a solve
/// gives the same bits on any number of threads when the operator and
/// preconditioner do.
///
/// @code
///   namespace lin = camber::solvers::linear;
///   lin::GmresOptions o;  o.restart = 60;  o.rel_tolerance = 1e-3;
///   lin::GmresSolver gmres(A.local_size(), o);
///   lin::GmresResult r = gmres.solve(A, M, b, x, comm);   // x: initial guess
/// @endcode
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include <camber/solvers/linear/linear_operator.hpp>

namespace camber::solvers::linear {

enum class PreconditionerSide { left, right };

struct GmresOptions {
  int restart = 30;              ///< Krylov vectors per cycle (PETSc's default)
  double rel_tolerance = 1e-5;   ///< PETSc's default rtol
  double abs_tolerance = 1e-50;  ///< PETSc's default atol
  double div_tolerance = 1e4;    ///< PETSc's default dtol
  int max_iterations = 10000;    ///< PETSc's default max_it
  PreconditionerSide side = PreconditionerSide::left;
  bool nonzero_initial_guess = false;  ///< false: x is set to zero first
  bool refine = false;                 ///< a second Gram-Schmidt pass every step
};

enum class GmresReason {
  converged_relative,
  converged_absolute,
  diverged_iterations,
  /// An invariant Krylov space whose residual is above the tolerance (a
  /// singular operator; PETSc's KSP_DIVERGED_BREAKDOWN).
  diverged_breakdown,
  diverged_tolerance,
  diverged_not_finite,
};

/// What a reason means, in words ("converged: relative tolerance", ...).
std::string to_string(GmresReason reason);

struct GmresResult {
  int iterations = 0;
  GmresReason reason = GmresReason::diverged_iterations;
  double initial_residual_norm = 0.0;  ///< ||r_0|| (preconditioned on the left)
  double residual_norm = 0.0;          ///< the last ||r_k|| GMRES computed
  bool converged() const noexcept {
    return reason == GmresReason::converged_relative || reason == GmresReason::converged_absolute;
  }
};

/// A GMRES solver with its basis allocated once for vectors of n rows.
class GmresSolver {
 public:
  GmresSolver(index_t n, GmresOptions options = {});

  /// Solves A x = b (collective over comm). On the left side M is applied
  /// after A, on the right before it. Throws camber::Error for vectors of
  /// the wrong size or options out of range.
  GmresResult solve(const LinearOperator& A, const Preconditioner& M, ConstVector b, Vector x,
                    MPI_Comm comm);

  const GmresOptions& options() const noexcept { return options_; }
  /// The residual norm after each iteration of the last solve (index 0:
  /// the initial one), as PETSc's KSPGetResidualHistory gives them (the
  /// residuals recomputed at restarts are tested, not recorded).
  const std::vector<double>& history() const noexcept { return history_; }
  /// Krylov vectors allocated so far: the basis grows in chunks of
  /// basis_chunk columns as solves need them (as PETSc's does), up to
  /// restart + 1, and is kept for the next solve.
  int allocated_columns() const noexcept;
  static constexpr int basis_chunk = 30;

 private:
  Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::MemoryTraits<Kokkos::Unmanaged>> column(int j);
  // out[i] = <v_i, w> and w -= sum_i h_i v_i over the first k columns.
  void basis_dots(int k, ConstVector w, MPI_Comm comm, double* out);
  void basis_subtract(int k, const double* h, Vector w);

  index_t n_;
  GmresOptions options_;
  std::vector<Basis> V_;  // chunks of basis_chunk columns (the last may be shorter)
  Vector w_, t_;
  std::vector<double> history_;
};

}  // namespace camber::solvers::linear
