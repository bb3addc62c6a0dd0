/// @file
/// The discrete adjoint of the steady Euler equations: sensitivities of a
/// force coefficient to the flow's parameters without differentiating the
/// Newton iterations.
///
/// At a converged state, R(U, p) = 0 defines U(p); for an objective J(U, p)
/// (a weighted sum of the wall force and moment: CL, CD, CM)
///
/// @code
///   (dR/dU)^T psi = (dJ/dU)^T                      adjoint solve
///   dJ/dp = dJ/dp|_U - psi^T dR/dp|_U               any number of parameters p
///   (dR/dU) dU = -dR/dp|_U,  dJ/dp = dJ/dp|_U + dJ/dU dU    the tangent (one solve per p)
/// @endcode
///
/// Two linear solvers (AdjointOptions::linear_solver, as the steady
/// solver's). petsc: dR/dU is the exact Jacobian (ExactJacobian, stencil
/// assembly) and the transposed system is solved by PETSc
/// (KSPSolveTranspose: right-preconditioned GMRES with block-Jacobi and
/// ILU(1) in RCM order, falling back to a MUMPS LU of the same matrix; see
/// AdjointOptions::direct; -adjoint_ksp_* and -adjoint_pc_* options
/// override it). kokkos (the device path, no PETSc): camber's GMRES
/// (solvers/linear) on (dR/dU)^T applied matrix-free by a reverse sweep of
/// the residual (detail/residual_transpose.hpp), right-preconditioned by
/// ILU(1) in blocks of the transposed first-order matrix, and the
/// objective's gradient dJ/dU from the same sweep; the tangent solves use
/// the Dual tangent and the first-order matrix's ILU(1). One Adjoint holds
/// one linearization:
/// the Jacobian and its factorization serve every adjoint and tangent solve
/// at that state. With Venkatakrishnan's limiter the residual must
/// be the frozen-limiter one (Discretization::freeze_limiter or
/// set_limiter(SteadyResult::limiter)): then dR/dU is the exact Jacobian of
/// the residual whose root U is, and the sensitivities are exact to the
/// solve tolerances.
///
/// @code
///   disc.set_limiter(result.limiter);                   // or freeze_limiter(U)
///   euler::Adjoint adj(disc);
///   euler::AdjointSolution a = adj.solve(U, euler::ForceCoefficient::cd, {});
///   double dcd_dalpha = adj.alpha_derivative(U, a);    // per degree
/// @endcode
///
/// 2-D and 3-D meshes: states and adjoints have n_vars = dim + 2 columns;
/// the objectives are weighted sums of the wall's pitch-plane load G =
/// (f_x, f_y, m_z) in 2-D, (f_x, f_z, m_y) in 3-D (lift along z, alpha
/// about y; Discretization::force_coefficient_weights).
///
/// Parameters so far: the angle of attack (the far-field state). Its partial
/// dR/dalpha|_U is a central difference of the residual in alpha (R is an
/// explicit, smooth function of alpha: step 1e-3 degree, error ~1e-10
/// relative); dJ/dalpha|_U is exact. Derivatives with respect to the node
/// coordinates (shape) are ShapeDerivative's
/// (solvers/euler/shape_derivative.hpp), from this adjoint solution.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/config.hpp>
#include <camber/core/tensor.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#if CAMBER_WITH_PETSC
#include <camber/solvers/euler/exact_jacobian.hpp>
#endif

namespace camber::solvers::euler {

namespace detail {
class AdjointSystem;
}

/// Which force coefficient an adjoint is for.
/// `weighted`: a given weighted sum of the force and moment.
enum class ForceCoefficient : int { cl = 0, cd = 1, cm = 2, weighted = 3 };

/// Linear solver settings of the adjoint (and tangent) solves.
struct AdjointOptions {
  /// PETSc's KSP on the assembled exact Jacobian, or the device path's
  /// matrix-free transpose and camber's GMRES (see the file comment; the
  /// default is the steady solver's).
  SteadyOptions::LinearSolver linear_solver = SteadyOptions{}.linear_solver;
  /// false: right-preconditioned GMRES with block-Jacobi and ILU(1) in
  /// reverse Cuthill-McKee order in each block (the steady solver's
  /// preconditioner, transposed; on threads as factorization says), and,
  /// should it not converge in
  /// max_iterations, the solve again with the LU below (AdjointSolution::
  /// fell_back). On the README's 5,120-cell transonic O-grid: 86 GMRES
  /// iterations, 0.43 s per adjoint against 0.92 s with the LU.
  /// true: GMRES around a sparse LU (MUMPS) of the Jacobian, which
  /// converges in one or two iterations whatever the conditioning, at the
  /// LU's memory (the natural-order ILU(0) and ILU(1), left-preconditioned,
  /// did not converge on SU2's QuickStart mesh). PETSc only; the device
  /// path has no LU to fall back on and reports converged = false.
  bool direct = false;
  /// The iterative solve's preconditioner (direct = false): block-Jacobi
  /// ILU(1) of the exact Jacobian itself (exact), or of the first-order
  /// Jacobian (first_order: a block per face neighbour, so a fraction of
  /// the exact matrix's memory on 3-D node-neighbour stencils, at the cost
  /// of more GMRES iterations). automatic: exact in 2-D, first_order in 3-D;
  /// always first_order on the device path (exact is refused there).
  enum class Preconditioner { automatic, exact, first_order };
  Preconditioner preconditioner = Preconditioner::automatic;
  /// The iterative solve's ILU (direct = false), as the steady solver's
  /// (SteadyOptions::factorization, ilu_blocks): threaded, BlockIlu applied
  /// transposed, its blocks factored and swept on the threads; petsc,
  /// PETSc's block Jacobi on one thread per rank; automatic, threaded when
  /// there is more than one thread.
  SteadyOptions::Factorization factorization = SteadyOptions::Factorization::automatic;
  int ilu_blocks = 0;
  double rel_tolerance = 1e-10;  ///< of the preconditioned residual norm
  int max_iterations = 2000;
  int restart = 200;  ///< GMRES restart length
  std::string options_prefix = "adjoint_";  ///< -adjoint_ksp_*, -adjoint_sub_pc_* override
};

/// An adjoint (or tangent) solution and its solve's statistics.
struct AdjointSolution {
  ForceCoefficient objective = ForceCoefficient::cd;
  /// J = weights . G, G the pitch-plane load (Discretization::
  /// force_coefficient_weights)
  std::array<double, 3> weights = {0.0, 0.0, 0.0};
  Tensor psi;             ///< {n_local, n_vars}, owned rows
  Tensor objective_gradient;  ///< dJ/dU, {n_local, n_vars}, owned rows
  int iterations = 0;      ///< of every attempt (iterative, then LU)
  bool converged = false;
  bool fell_back = false;  ///< the iterative solve failed; the LU's solution
  double seconds = 0.0;    ///< Jacobian assembly and solve
};

/// Adjoint and tangent solves at a converged state of one discretization.
class Adjoint {
 public:
  /// Builds the linear solver's structures for disc (PETSc: the exact
  /// Jacobian's colouring; the device path: the transposed stencil and the
  /// first-order matrix's pattern), collective. disc must outlive this
  /// object. Options the chosen linear solver does not have are refused
  /// (camber::Error).
  explicit Adjoint(const Discretization& disc, const AdjointOptions& options = {});
#if CAMBER_WITH_PETSC
  /// `pattern`: the PETSc Jacobian's colouring and preallocation when the
  /// caller has them (ExactJacobian::pattern; a design loop builds it
  /// once), else built here (collective); unused on the device path.
  Adjoint(const Discretization& disc, const AdjointOptions& options,
          std::shared_ptr<const ExactJacobian::Pattern> pattern);
#endif
  ~Adjoint();
  Adjoint(const Adjoint&) = delete;
  Adjoint& operator=(const Adjoint&) = delete;

  /// Assembles dR/dU at U and sets up its solver (the LU is factored at the
  /// first solve), and evaluates the wall force's dG/dU (the objectives'
  /// gradients are then sparse products). solve(), solve_tangent() and
  /// objective_gradients() do this at their first call and reuse it after:
  /// call linearize again when U has changed. Collective.
  void linearize(Tensor& U);

  /// d(w . G)/dU at the linearized U for each weight vector ({n_local,
  /// n_vars}, owned rows). Collective.
  std::vector<Tensor> objective_gradients(Tensor& U,
                                          const std::vector<std::array<double, 3>>& weights);

  /// Assembles dR/dU at U and solves (dR/dU)^T psi = (dJ/dU)^T. Collective.
  AdjointSolution solve(Tensor& U, ForceCoefficient objective);
  /// The same for J = weights . G, e.g. a combination of CL, CD and CM
  /// (objective() is then `weighted`).
  AdjointSolution solve(Tensor& U, const std::array<double, 3>& weights);

  /// dJ/dalpha (per degree) from an adjoint solution at U (of CL, CD, CM
  /// or a weighted sum of them).
  double alpha_derivative(Tensor& U, const AdjointSolution& adjoint) const;
  /// dJ/dalpha|_U (per degree) of J = weights . G with the
  /// weights turning with the free stream (a combination of CL, CD, CM).
  double objective_alpha_partial(const Tensor& U, const std::array<double, 3>& weights) const;

  /// dJ/dalpha (per degree) from the tangent: (dR/dU) dU = -dR/dalpha, then
  /// dJ/dalpha|_U + dJ/dU . dU. One linear solve per parameter; the same
  /// number as the adjoint's to the solve tolerances (the dot-product test
  /// of the whole chain).
  double alpha_derivative_tangent(Tensor& U, ForceCoefficient objective,
                                  int* iterations = nullptr);

  /// Assembles dR/dU at U and solves (dR/dU) x = rhs (rhs, x: {n_local,
  /// n_vars}, owned rows): the tangent of any parameter. Collective.
  Tensor solve_tangent(Tensor& U, const Tensor& rhs, int* iterations = nullptr);

  /// dR/dalpha|_U per degree (central difference, see the file comment);
  /// {n_local, n_vars}, owned rows.
  Tensor residual_alpha_derivative(Tensor& U) const;
  /// dR/dM|_U (central difference in the free-stream Mach number, step
  /// 1e-4 M); {n_local, n_vars}, owned rows. The coefficients' own
  /// dependence at fixed U is -2 C / M (they are loads over q = M^2 / 2).
  Tensor residual_mach_derivative(Tensor& U) const;
  /// dJ/dM = -2 J / M - psi^T dR/dM|_U for the adjoint's objective J
  /// (its value at U given: `objective`). Collective.
  double mach_derivative(Tensor& U, const AdjointSolution& adjoint, double objective) const;

#if CAMBER_WITH_PETSC
  /// The assembled exact Jacobian of the PETSc linear solver (camber::Error
  /// on the device path, which forms none).
  const ExactJacobian& jacobian() const;
#endif

 private:
  const Discretization* disc_;
  AdjointOptions options_;
  std::unique_ptr<detail::AdjointSystem> system_;
  bool linearized_ = false;
};

}  // namespace camber::solvers::euler
