/// @file
/// CVODES on a distributed state: dy/dt = f(t, y, p) with y split over the
/// ranks of an MPI communicator (SUNDIALS' parallel N_Vector, each rank
/// holding its own rows), solved by BDF with a matrix-free Newton-Krylov
/// iteration (GMRES on products with df/dy, Jacobi-preconditioned), and the
/// gradient of a loss made of terms at chosen times by CVODES' adjoint
/// sensitivity analysis (checkpoints, backward GMRES on products with
/// (df/dy)^T, the parameter gradient from products with (df/dp)^T).
///
/// The system supplies products, not matrices: a discretization on a
/// distributed mesh computes them with its own halo exchanges, so every
/// callback is collective (all ranks are called together, in the same
/// order). solvers/heat/transient_heat.hpp is one such system.
///
/// @code
///   solvers::ode::DistributedOdeSystem sys;   // comm, n_local, n_local_p, callbacks
///   solvers::ode::DistributedCvodesOptions o;
///   o.rtol = 1e-6; o.atol = 1e-9;
///   solvers::ode::DistributedCvodes cv(sys, o);
///   cv.reset(0.0, y0_local);
///   cv.advance(0.1, y_local);            // collective
///
///   solvers::ode::PointLoss loss;             // sum over k of phi_k(y(t_k))
///   loss.times = {0.05, 0.1};
///   loss.term = [&](int k, const double* y, double* dphi_dy) { ...; return phi_local; };
///   solvers::ode::DistributedGradient g = solvers::ode::distributed_gradient(sys, o, 0.0, y0_local, loss);
///   // g.value (summed over ranks), g.d_dp (this rank's rows of dL/dp)
/// @endcode
///
/// Errors: SUNDIALS' failures are camber::Error naming the call, the time
/// reached and the flag; bad options or sizes are bad input, agreed by all
/// ranks before any collective call (an error on one rank is raised on
/// every rank, with the lowest failing rank's message). A callback
/// that throws on one rank while the others wait in its collective
/// communication cannot be recovered here; the callbacks of a
/// discretization should validate before communicating.
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <vector>

#include <camber/solvers/ode/cvodes.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::ode {

/// A distributed ODE system: this rank's n_local rows of y (and n_local_p
/// rows of the parameters, which the system itself holds). Every callback
/// is collective; pointers are this rank's rows.
struct DistributedOdeSystem {
  MPI_Comm comm = MPI_COMM_NULL;
  index_t n_local = 0;
  index_t n_local_p = 0;
  /// ydot = f(t, y)
  std::function<void(double t, const double* y, double* ydot)> rhs;
  /// out = (df/dy) v
  std::function<void(double t, const double* y, const double* v, double* out)> jvp;
  /// out = (df/dy)^T w
  std::function<void(double t, const double* y, const double* w, double* out)> vjp_y;
  /// out = (df/dp)^T w (n_local_p rows); needed by distributed_gradient only.
  std::function<void(double t, const double* y, const double* w, double* out)> vjp_p;
  /// out = diag(df/dy): the Jacobi preconditioner of the Newton systems.
  std::function<void(double t, const double* y, double* out)> jacobian_diagonal;
};

struct DistributedCvodesOptions {
  double rtol = 1e-6;
  double atol = 1e-10;
  long max_steps = 5000;   ///< per advance() call
  double max_step = 0.0;   ///< 0: no limit
  int krylov_dim = 0;      ///< GMRES restart length; 0: SUNDIALS' default (5)
};

/// CVODES' counters, with the Krylov solver's.
struct DistributedOdeStats {
  OdeStats ode;
  long linear_iters = 0;       ///< GMRES iterations
  long jtimes_evals = 0;       ///< products with df/dy
  long prec_solves = 0;
  long linear_conv_fails = 0;
};

class DistributedCvodes {
 public:
  DistributedCvodes(DistributedOdeSystem system, DistributedCvodesOptions options);
  ~DistributedCvodes();
  DistributedCvodes(const DistributedCvodes&) = delete;
  DistributedCvodes& operator=(const DistributedCvodes&) = delete;

  /// (Re)starts at t0 with this rank's rows y0 (n_local finite values). Collective.
  void reset(double t0, const std::vector<double>& y0);
  /// Integrates to tout (> the time reached); `y` gets this rank's rows.
  /// Collective.
  void advance(double tout, std::vector<double>& y);
  DistributedOdeStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// L = sum over k of phi_k(y(t_k)), t_k ascending after t0. `term(k, y,
/// dphi_dy)` gets this rank's rows of y(t_k), returns this rank's part of
/// phi_k (the parts are summed over ranks) and writes this rank's rows of
/// dphi_k/dy. Called on every rank, in order of k, during the forward run.
struct PointLoss {
  std::vector<double> times;
  std::function<double(int k, const double* y, double* dphi_dy)> term;
};

struct DistributedAdjointOptions {
  double rtol = 1e-6;       ///< backward problem (relative)
  double atol = 1e-10;      ///< backward problem (absolute)
  double quad_rtol = 1e-6;  ///< dL/dp
  double quad_atol = 1e-10;
  /// Forward steps between checkpoints. CVODES stores every step's state
  /// and derivative between two checkpoints (Hermite interpolation), so
  /// memory grows with this number and recomputation falls.
  long checkpoint_steps = 100;
};

struct DistributedGradient {
  double value = 0.0;              ///< L, summed over ranks
  std::vector<double> d_dp;        ///< this rank's rows of dL/dp
  std::vector<double> d_dy0;       ///< this rank's rows of dL/dy(t0)
  /// This rank's rows of y(t_k) at every loss time (for output).
  std::vector<std::vector<double>> states;
  /// The forward run's counters, and the backward run's summed over its
  /// segments between loss times.
  DistributedOdeStats forward, backward;
  int checkpoints = 0;             ///< CVODES' checkpoints of the forward run
};

/// One forward run storing checkpoints, then one backward run of the
/// adjoint lambda' = -(df/dy)^T lambda from lambda(t_K) = dphi_K/dy,
/// jumping by dphi_k/dy at each earlier t_k, with
/// dL/dp = integral from t0 to t_K of (df/dp)^T lambda dt and
/// dL/dy0 = lambda(t0). Collective.
DistributedGradient distributed_gradient(const DistributedOdeSystem& system,
                                         const DistributedCvodesOptions& options, double t0,
                                         const std::vector<double>& y0, const PointLoss& loss,
                                         const DistributedAdjointOptions& adjoint = {});

}  // namespace camber::solvers::ode
