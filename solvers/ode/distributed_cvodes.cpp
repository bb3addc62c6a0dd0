#include <camber/solvers/ode/distributed_cvodes.hpp>

#include <cvodes/cvodes.h>
#include <nvector/nvector_parallel.h>
#include <sunlinsol/sunlinsol_spgmr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

#include "detail/callback_guard.hpp"
#include "detail/sundials_handles.hpp"

namespace camber::solvers::ode {

namespace {

using detail::Vec;

double* data(N_Vector v) { return N_VGetArrayPointer(v); }

// Reductions whose result does not depend on how the vector is split over
// ranks: each rank sums its terms in double-double arithmetic (Knuth's
// TwoSum; the error of every addition is kept), the ranks' pairs are
// combined the same way, and the pair is rounded once. The result is the
// correctly rounded sum but for cases within ~1e-30 of a rounding
// boundary, so the integrator's every decision, and its result, is the
// same at any rank count (the element-wise operations are exact per
// element anyway).
struct DoubleDouble {
  double hi = 0.0, lo = 0.0;
  void add(double x) {
    const double s = hi + x, b = s - hi;
    lo += (hi - (s - b)) + (x - b);
    hi = s;
  }
};

void combine_double_double(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const DoubleDouble*>(in);
  auto* b = static_cast<DoubleDouble*>(inout);
  for (int i = 0; i < *len; ++i) {
    const double s = a[i].hi + b[i].hi, v = s - a[i].hi;
    const double e = (a[i].hi - (s - v)) + (b[i].hi - v);  // exact, and symmetric in a and b
    b[i].lo = (a[i].lo + b[i].lo) + e;
    b[i].hi = s;
  }
}

double reproducible_sum(DoubleDouble local, N_Vector v) {
  static const auto types = [] {
    std::pair<MPI_Datatype, MPI_Op> t;
    MPI_Type_contiguous(2, MPI_DOUBLE, &t.first);
    MPI_Type_commit(&t.first);
    MPI_Op_create(combine_double_double, 1, &t.second);
    return t;
  }();
  DoubleDouble global;
  MPI_Allreduce(&local, &global, 1, types.first, types.second,
                *static_cast<MPI_Comm*>(N_VGetCommunicator(v)));
  return global.hi + global.lo;
}

sunrealtype dot_product(N_Vector x, N_Vector y) {
  const double *a = data(x), *b = data(y);
  DoubleDouble s;
  for (sunindextype i = 0, n = N_VGetLocalLength_Parallel(x); i < n; ++i) s.add(a[i] * b[i]);
  return reproducible_sum(s, x);
}

sunrealtype weighted_squares(N_Vector x, N_Vector w, N_Vector mask) {
  const double *a = data(x), *b = data(w), *m = mask != nullptr ? data(mask) : nullptr;
  DoubleDouble s;
  for (sunindextype i = 0, n = N_VGetLocalLength_Parallel(x); i < n; ++i) {
    if (m != nullptr && !(m[i] > 0.0)) continue;
    const double p = a[i] * b[i];
    s.add(p * p);
  }
  return reproducible_sum(s, x);
}

sunrealtype wrms_norm(N_Vector x, N_Vector w) {
  return std::sqrt(weighted_squares(x, w, nullptr) / static_cast<double>(N_VGetLength(x)));
}
sunrealtype wrms_norm_mask(N_Vector x, N_Vector w, N_Vector id) {
  return std::sqrt(weighted_squares(x, w, id) / static_cast<double>(N_VGetLength(x)));
}
sunrealtype wl2_norm(N_Vector x, N_Vector w) { return std::sqrt(weighted_squares(x, w, nullptr)); }
sunrealtype l1_norm(N_Vector x) {
  const double* a = data(x);
  DoubleDouble s;
  for (sunindextype i = 0, n = N_VGetLocalLength_Parallel(x); i < n; ++i) s.add(std::abs(a[i]));
  return reproducible_sum(s, x);
}

// A parallel vector with the reductions above (its clones copy them).
N_Vector reproducible_vector(MPI_Comm comm, index_t n_local, sunindextype n_global, SUNContext ctx) {
  N_Vector v = N_VNew_Parallel(comm, static_cast<sunindextype>(n_local), n_global, ctx);
  CAMBER_REQUIRE(v != nullptr, "CVODES: N_VNew_Parallel failed");
  v->ops->nvdotprod = dot_product;
  v->ops->nvwrmsnorm = wrms_norm;
  v->ops->nvwrmsnormmask = wrms_norm_mask;
  v->ops->nvwl2norm = wl2_norm;
  v->ops->nvl1norm = l1_norm;
  // No fused or rank-local variants: SUNDIALS falls back to the above.
  v->ops->nvdotprodmulti = nullptr;
  v->ops->nvwrmsnormvectorarray = nullptr;
  v->ops->nvwrmsnormmaskvectorarray = nullptr;
  v->ops->nvdotprodlocal = nullptr;
  v->ops->nvwsqrsumlocal = nullptr;
  v->ops->nvwsqrsummasklocal = nullptr;
  v->ops->nvl1normlocal = nullptr;
  v->ops->nvdotprodmultilocal = nullptr;
  v->ops->nvdotprodmultiallreduce = nullptr;
  return v;
}

// The callbacks of the forward and backward problems, and their errors.
struct Calls : detail::CallbackGuard {
  const DistributedOdeSystem* sys = nullptr;
  std::vector<double> jdiag, jdiag_b;  // diag(df/dy) at the last set-up
  std::vector<double> pdiag, pdiag_b;  // the preconditioner: 1 - gamma diag(A)

  static Calls& of(void* d) { return *static_cast<Calls*>(d); }
  size_t n() const { return static_cast<size_t>(sys->n_local); }

  static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* d) {
    Calls& c = of(d);
    return c.guard([&] { c.sys->rhs(t, data(y), data(ydot)); });
  }
  static int jtimes(N_Vector v, N_Vector jv, sunrealtype t, N_Vector y, N_Vector, void* d, N_Vector) {
    Calls& c = of(d);
    return c.guard([&] { c.sys->jvp(t, data(y), data(v), data(jv)); });
  }
  // The Jacobi preconditioner P = I - gamma A, A = df/dy (forward) or
  // -(df/dy)^T (backward), whose diagonal is scale * diag(df/dy) with
  // scale 1 or -1. diag(df/dy) is recomputed unless CVODES says the old
  // one will do (jok).
  int jacobi_setup(sunrealtype t, N_Vector y, sunbooleantype jok, sunbooleantype* jcur, sunrealtype gamma,
                   double scale, std::vector<double>& jd, std::vector<double>& pd) {
    return guard([&] {
      if (!jok || jd.size() != n()) {
        jd.resize(n());
        sys->jacobian_diagonal(t, data(y), jd.data());
        *jcur = SUNTRUE;
      } else {
        *jcur = SUNFALSE;
      }
      pd.resize(n());
      for (size_t i = 0; i < n(); ++i) pd[i] = 1.0 - gamma * scale * jd[i];
    });
  }
  int jacobi_solve(N_Vector r, N_Vector z, const std::vector<double>& pd) {
    return guard([&] {
      const double* rv = data(r);
      double* zv = data(z);
      for (size_t i = 0; i < n(); ++i) zv[i] = rv[i] / pd[i];
    });
  }
  static int psetup(sunrealtype t, N_Vector y, N_Vector, sunbooleantype jok, sunbooleantype* jcur,
                    sunrealtype gamma, void* d) {
    Calls& c = of(d);
    return c.jacobi_setup(t, y, jok, jcur, gamma, 1.0, c.jdiag, c.pdiag);
  }
  static int psolve(sunrealtype, N_Vector, N_Vector, N_Vector r, N_Vector z, sunrealtype, sunrealtype, int,
                    void* d) {
    Calls& c = of(d);
    return c.jacobi_solve(r, z, c.pdiag);
  }
  // lambda' = -(df/dy)^T lambda
  static int rhs_b(sunrealtype t, N_Vector y, N_Vector yb, N_Vector ybdot, void* d) {
    Calls& c = of(d);
    return c.guard([&] {
      c.sys->vjp_y(t, data(y), data(yb), data(ybdot));
      N_VScale(-1.0, ybdot, ybdot);
    });
  }
  static int jtimes_b(N_Vector v, N_Vector jv, sunrealtype t, N_Vector y, N_Vector, N_Vector, void* d,
                      N_Vector) {
    Calls& c = of(d);
    return c.guard([&] {
      c.sys->vjp_y(t, data(y), data(v), data(jv));
      N_VScale(-1.0, jv, jv);
    });
  }
  static int psetup_b(sunrealtype t, N_Vector y, N_Vector, N_Vector, sunbooleantype jok,
                      sunbooleantype* jcur, sunrealtype gamma, void* d) {
    Calls& c = of(d);
    return c.jacobi_setup(t, y, jok, jcur, gamma, -1.0, c.jdiag_b, c.pdiag_b);
  }
  static int psolve_b(sunrealtype, N_Vector, N_Vector, N_Vector, N_Vector r, N_Vector z, sunrealtype,
                      sunrealtype, int, void* d) {
    Calls& c = of(d);
    return c.jacobi_solve(r, z, c.pdiag_b);
  }
  // dL/dp accumulates (df/dp)^T lambda (CVODES integrates it backward).
  static int quad_b(sunrealtype t, N_Vector y, N_Vector yb, N_Vector qbdot, void* d) {
    Calls& c = of(d);
    return c.guard([&] { c.sys->vjp_p(t, data(y), data(yb), data(qbdot)); });
  }
  static void on_error(int, const char*, const char* function, char* msg, void* d) {
    of(d).record(function, msg);
  }
  void check(int flag, const char* call, double t = NAN) const {
    rethrow();
    if (flag >= 0) return;
    const std::string at = std::isnan(t) ? std::string() : " at t = " + std::to_string(t);
    CAMBER_REQUIRE(false, "CVODES (distributed): " << call << " failed" << at << ": "
                                                   << detail::take_name(CVodeGetReturnFlagName(flag)) << detail());
  }
};

void check_system(const DistributedOdeSystem& s, const DistributedCvodesOptions& o, bool adjoint) {
  CAMBER_INPUT_REQUIRE(s.comm != MPI_COMM_NULL && s.n_local >= 0 && s.rhs && s.jvp && s.jacobian_diagonal,
                       "distributed ode: the system needs a communicator, n_local >= 0, rhs, jvp "
                       "and jacobian_diagonal");
  CAMBER_INPUT_REQUIRE(!adjoint || (s.vjp_y && s.vjp_p && s.n_local_p >= 0),
                       "distributed ode: the adjoint needs vjp_y and vjp_p");
  CAMBER_INPUT_REQUIRE(std::isfinite(o.rtol) && o.rtol > 0.0 && std::isfinite(o.atol) && o.atol > 0.0,
                       "distributed ode: rtol and atol must be > 0, got " << o.rtol << " and " << o.atol);
  CAMBER_INPUT_REQUIRE(o.max_steps > 0 && o.max_step >= 0.0 && o.krylov_dim >= 0,
                       "distributed ode: max_steps > 0, max_step >= 0 and krylov_dim >= 0 required");
}

sunindextype global_length(index_t n_local, MPI_Comm comm) {
  std::int64_t local = n_local, global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_INT64_T, MPI_SUM, comm);
  return static_cast<sunindextype>(global);
}

DistributedOdeStats stats_of(void* mem) {
  DistributedOdeStats s;
  s.ode = detail::cvode_stats(mem);
  CVodeGetNumLinIters(mem, &s.linear_iters);
  CVodeGetNumJtimesEvals(mem, &s.jtimes_evals);
  CVodeGetNumPrecSolves(mem, &s.prec_solves);
  CVodeGetNumLinConvFails(mem, &s.linear_conv_fails);
  return s;
}

// Counters of several runs, summed (the last order and step: b's).
void add(DistributedOdeStats& a, const DistributedOdeStats& b) {
  a.ode.steps += b.ode.steps;
  a.ode.rhs_evals += b.ode.rhs_evals;
  a.ode.jac_evals += b.ode.jac_evals;
  a.ode.lin_setups += b.ode.lin_setups;
  a.ode.error_test_fails += b.ode.error_test_fails;
  a.ode.nonlin_iters += b.ode.nonlin_iters;
  a.ode.nonlin_fails += b.ode.nonlin_fails;
  a.ode.root_evals += b.ode.root_evals;
  a.ode.last_order = b.ode.last_order;
  a.ode.last_step = b.ode.last_step;
  a.linear_iters += b.linear_iters;
  a.jtimes_evals += b.jtimes_evals;
  a.prec_solves += b.prec_solves;
  a.linear_conv_fails += b.linear_conv_fails;
}

// CVODES memory with GMRES, the system's products and the Jacobi
// preconditioner, on parallel vectors.
struct Problem {
  MPI_Comm comm;
  detail::Context ctx;
  Vec y;
  detail::Solver ls;
  detail::CvodeMemory mem;

  Problem(const DistributedOdeSystem& s, const DistributedCvodesOptions& o, Calls& calls) : comm(s.comm) {
    SUNContext raw = nullptr;
    CAMBER_REQUIRE(SUNContext_Create(static_cast<void*>(&comm), &raw) == 0, "CVODES: SUNContext_Create failed");
    ctx.reset(raw);
    y.reset(reproducible_vector(comm, s.n_local, global_length(s.n_local, comm), raw));
    mem.reset(CVodeCreate(CV_BDF, raw));
    CAMBER_REQUIRE(mem != nullptr, "CVODES: CVodeCreate failed");
    ls.reset(SUNLinSol_SPGMR(y.get(), SUN_PREC_LEFT, o.krylov_dim, raw));
    CAMBER_REQUIRE(ls != nullptr, "CVODES: SUNLinSol_SPGMR failed");
    calls.check(CVodeSetErrHandlerFn(cv(), Calls::on_error, &calls), "CVodeSetErrHandlerFn");
  }
  void* cv() const { return mem.get(); }
  Vec vector(index_t n_local) const {
    Vec v(reproducible_vector(comm, n_local, global_length(n_local, comm), ctx.get()));
    N_VConst(0.0, v.get());
    return v;
  }
  void init(const DistributedCvodesOptions& o, double t0, Calls& calls) {
    void* m = cv();
    calls.check(CVodeInit(m, Calls::rhs, t0, y.get()), "CVodeInit");
    calls.check(CVodeSStolerances(m, o.rtol, o.atol), "CVodeSStolerances");
    calls.check(CVodeSetUserData(m, &calls), "CVodeSetUserData");
    calls.check(CVodeSetLinearSolver(m, ls.get(), nullptr), "CVodeSetLinearSolver");
    calls.check(CVodeSetJacTimes(m, nullptr, Calls::jtimes), "CVodeSetJacTimes");
    calls.check(CVodeSetPreconditioner(m, Calls::psetup, Calls::psolve), "CVodeSetPreconditioner");
    calls.check(CVodeSetMaxNumSteps(m, o.max_steps), "CVodeSetMaxNumSteps");
    if (o.max_step > 0.0) calls.check(CVodeSetMaxStep(m, o.max_step), "CVodeSetMaxStep");
  }
};

void check_rows(const std::vector<double>& values, index_t n, const char* what) {
  CAMBER_INPUT_REQUIRE(static_cast<index_t>(values.size()) == n, "distributed ode: " << what << " has " << values.size()
                                                                                   << " rows on this rank, the system " << n);
  for (double x : values) CAMBER_INPUT_REQUIRE(std::isfinite(x), "distributed ode: " << what << " holds " << x);
}

void load(N_Vector v, const std::vector<double>& values) { std::copy(values.begin(), values.end(), data(v)); }

// The checks every rank makes before the first collective call, agreed by
// all (collective_guard: a bad value on one rank is an error on every
// rank, not a hang).
void agree(MPI_Comm comm, const std::function<void()>& checks) {
  CAMBER_INPUT_REQUIRE(comm != MPI_COMM_NULL, "distributed ode: the system has no communicator");
  collective_guard(comm, checks);
}

std::vector<double> rows(N_Vector v) {
  const double* p = data(v);
  return std::vector<double>(p, p + N_VGetLocalLength_Parallel(v));
}

}  // namespace

struct DistributedCvodes::Impl {
  DistributedOdeSystem sys;
  DistributedCvodesOptions o;
  Calls calls;
  std::unique_ptr<Problem> problem;
  double t = 0.0;
  bool started = false;
};

DistributedCvodes::DistributedCvodes(DistributedOdeSystem system, DistributedCvodesOptions options)
    : impl_(std::make_unique<Impl>()) {
  agree(system.comm, [&] { check_system(system, options, false); });
  impl_->sys = std::move(system);
  impl_->o = options;
  impl_->calls.sys = &impl_->sys;
  impl_->problem = std::make_unique<Problem>(impl_->sys, impl_->o, impl_->calls);
}

DistributedCvodes::~DistributedCvodes() = default;

void DistributedCvodes::reset(double t0, const std::vector<double>& y0) {
  Impl& m = *impl_;
  agree(m.sys.comm, [&] {
    CAMBER_INPUT_REQUIRE(std::isfinite(t0), "distributed ode: t0 is " << t0);
    check_rows(y0, m.sys.n_local, "y0");
  });
  load(m.problem->y.get(), y0);
  m.calls.clear();
  m.calls.jdiag.clear();
  if (!m.started) {
    m.problem->init(m.o, t0, m.calls);
    m.started = true;
  } else {
    m.calls.check(CVodeReInit(m.problem->cv(), t0, m.problem->y.get()), "CVodeReInit");
  }
  m.t = t0;
}

void DistributedCvodes::advance(double tout, std::vector<double>& y) {
  Impl& m = *impl_;
  CAMBER_REQUIRE(m.started, "DistributedCvodes::advance before reset()");
  CAMBER_INPUT_REQUIRE(std::isfinite(tout) && tout > m.t,
                       "distributed ode: output time " << tout << " is not after " << m.t);
  m.calls.clear();
  double t = m.t;
  m.calls.check(CVode(m.problem->cv(), tout, m.problem->y.get(), &t, CV_NORMAL), "CVode", t);
  m.t = t;
  y = rows(m.problem->y.get());
}

DistributedOdeStats DistributedCvodes::stats() const {
  return impl_->started ? stats_of(impl_->problem->cv()) : DistributedOdeStats{};
}

DistributedGradient distributed_gradient(const DistributedOdeSystem& sys, const DistributedCvodesOptions& o,
                                         double t0, const std::vector<double>& y0, const PointLoss& loss,
                                         const DistributedAdjointOptions& a) {
  agree(sys.comm, [&] {
    check_system(sys, o, true);
    CAMBER_INPUT_REQUIRE(static_cast<bool>(loss.term) && !loss.times.empty(),
                         "distributed ode: the loss needs times and a term");
    double last = t0;
    for (double t : loss.times) {
      CAMBER_INPUT_REQUIRE(std::isfinite(t) && t > last,
                           "distributed ode: loss times must increase after t0 = " << t0 << ", got " << t);
      last = t;
    }
    CAMBER_INPUT_REQUIRE(a.rtol > 0.0 && a.atol > 0.0 && a.quad_rtol > 0.0 && a.quad_atol > 0.0 &&
                             a.checkpoint_steps > 0,
                         "distributed ode: adjoint tolerances must be > 0 and checkpoint_steps > 0");
    check_rows(y0, sys.n_local, "y0");
  });

  Calls calls;
  calls.sys = &sys;
  Problem f(sys, o, calls);
  load(f.y.get(), y0);
  f.init(o, t0, calls);
  void* cv = f.cv();
  calls.check(CVodeAdjInit(cv, a.checkpoint_steps, CV_HERMITE), "CVodeAdjInit");

  // Forward, stopping at each loss time for its term and jump.
  const size_t K = loss.times.size();
  const size_t n = static_cast<size_t>(sys.n_local);
  DistributedGradient out;
  std::vector<std::vector<double>> jumps(K, std::vector<double>(n, 0.0));
  double local_value = 0.0, t = t0;
  int ncheck = 0;
  for (size_t k = 0; k < K; ++k) {
    calls.check(CVodeF(cv, loss.times[k], f.y.get(), &t, CV_NORMAL, &ncheck), "CVodeF", t);
    local_value += loss.term(static_cast<int>(k), data(f.y.get()), jumps[k].data());
    out.states.push_back(rows(f.y.get()));
  }
  MPI_Allreduce(&local_value, &out.value, 1, MPI_DOUBLE, MPI_SUM, sys.comm);
  out.forward = stats_of(cv);
  out.checkpoints = ncheck;

  // Backward: lambda(t_K) = dphi_K/dy, jumping by dphi_k/dy at each t_k.
  Vec yb = f.vector(sys.n_local), qb = f.vector(sys.n_local_p);
  std::copy(jumps[K - 1].begin(), jumps[K - 1].end(), data(yb.get()));
  detail::Solver lsb(SUNLinSol_SPGMR(yb.get(), SUN_PREC_LEFT, o.krylov_dim, f.ctx.get()));
  CAMBER_REQUIRE(lsb != nullptr, "CVODES: SUNLinSol_SPGMR failed");
  int which = -1;
  calls.check(CVodeCreateB(cv, CV_BDF, &which), "CVodeCreateB");
  calls.check(CVodeInitB(cv, which, Calls::rhs_b, loss.times[K - 1], yb.get()), "CVodeInitB");
  calls.check(CVodeSStolerancesB(cv, which, a.rtol, a.atol), "CVodeSStolerancesB");
  calls.check(CVodeSetUserDataB(cv, which, &calls), "CVodeSetUserDataB");
  calls.check(CVodeSetLinearSolverB(cv, which, lsb.get(), nullptr), "CVodeSetLinearSolverB");
  calls.check(CVodeSetJacTimesB(cv, which, nullptr, Calls::jtimes_b), "CVodeSetJacTimesB");
  calls.check(CVodeSetPreconditionerB(cv, which, Calls::psetup_b, Calls::psolve_b), "CVodeSetPreconditionerB");
  calls.check(CVodeSetMaxNumStepsB(cv, which, o.max_steps), "CVodeSetMaxNumStepsB");
  calls.check(CVodeQuadInitB(cv, which, Calls::quad_b, qb.get()), "CVodeQuadInitB");
  calls.check(CVodeSetQuadErrConB(cv, which, SUNTRUE), "CVodeSetQuadErrConB");
  calls.check(CVodeQuadSStolerancesB(cv, which, a.quad_rtol, a.quad_atol), "CVodeQuadSStolerancesB");
  for (size_t k = K; k-- > 0;) {
    const double target = k > 0 ? loss.times[k - 1] : t0;
    calls.check(CVodeB(cv, target, CV_NORMAL), "CVodeB", loss.times[k]);
    double tb = target;
    calls.check(CVodeGetB(cv, which, &tb, yb.get()), "CVodeGetB", tb);
    calls.check(CVodeGetQuadB(cv, which, &tb, qb.get()), "CVodeGetQuadB", tb);
    add(out.backward, stats_of(CVodeGetAdjCVodeBmem(cv, which)));  // CVodeReInitB resets them
    if (k > 0) {  // the jump at t_{k-1}, then a fresh start from there
      double* lambda = data(yb.get());
      for (size_t i = 0; i < n; ++i) lambda[i] += jumps[k - 1][i];
      calls.check(CVodeReInitB(cv, which, target, yb.get()), "CVodeReInitB");
      calls.check(CVodeQuadReInitB(cv, which, qb.get()), "CVodeQuadReInitB");
    }
  }
  out.d_dy0 = rows(yb.get());
  // CVODES integrates the quadrature from t_K down to t0: dL/dp = -qB(t0).
  out.d_dp = rows(qb.get());
  for (double& v : out.d_dp) v = -v;
  return out;
}

}  // namespace camber::solvers::ode
