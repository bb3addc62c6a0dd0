#include <camber/solvers/ode/cvodes.hpp>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <sstream>
#include <string>

#include <camber/core/error.hpp>

#include "detail/callback_guard.hpp"
#include "detail/sundials_handles.hpp"

namespace camber::solvers::ode {

namespace {

using detail::ContextDeleter;
using detail::MatrixDeleter;
using detail::SolverDeleter;
using detail::VectorDeleter;
using MemoryDeleter = detail::CvodeMemoryDeleter;

// scale * df/dy (or its transpose) into a dense SUNDIALS matrix: four
// columns per Dual evaluation of f when the system has rhs_dual4, one
// otherwise.
void dense_jacobian(const OdeSystem& sys, double t, const double* y, SUNMatrix j, double scale,
                    bool transpose) {
  const int n = sys.n;
  const auto put = [&](int i, int c, double v) {
    if (transpose)
      SM_ELEMENT_D(j, c, i) = scale * v;
    else
      SM_ELEMENT_D(j, i, c) = scale * v;
  };
  if (sys.rhs_dual4) {
    std::vector<OdeDual4> yd(static_cast<size_t>(n)), fd(static_cast<size_t>(n));
    std::vector<OdeDual4> pd(sys.p.begin(), sys.p.end());
    for (int c0 = 0; c0 < n; c0 += 4) {
      for (int i = 0; i < n; ++i) yd[static_cast<size_t>(i)] = OdeDual4(y[i]);
      for (int k = 0; k < 4 && c0 + k < n; ++k) yd[static_cast<size_t>(c0 + k)].der(k) = 1.0;
      sys.rhs_dual4(t, yd.data(), pd.data(), fd.data());
      for (int k = 0; k < 4 && c0 + k < n; ++k)
        for (int i = 0; i < n; ++i) put(i, c0 + k, fd[static_cast<size_t>(i)].der(k));
    }
    return;
  }
  std::vector<OdeDual> yd(static_cast<size_t>(n)), fd(static_cast<size_t>(n));
  std::vector<OdeDual> pd(sys.p.begin(), sys.p.end());
  for (int c = 0; c < n; ++c) {  // column c: seed y_c
    for (int i = 0; i < n; ++i) yd[static_cast<size_t>(i)] = OdeDual(y[i]);
    yd[static_cast<size_t>(c)].der(0) = 1.0;
    sys.rhs_dual(t, yd.data(), pd.data(), fd.data());
    for (int i = 0; i < n; ++i) put(i, c, fd[static_cast<size_t>(i)].der(0));
  }
}

// out[k] = sum_i (df_i/dx_k) w_i + dg/dx_k for x = y (wrt_p false) or p,
// with g optional: the vector-Jacobian products of the adjoint equations,
// four k per evaluation when the four-tangent versions exist.
void vjp(const OdeSystem& sys, const OdeIntegrand* g, double t, const double* y, const double* w,
         bool wrt_p, double* out) {
  const int n = sys.n, m = wrt_p ? static_cast<int>(sys.p.size()) : n;
  if (sys.rhs_dual4 && (g == nullptr || g->g_dual4)) {
    std::vector<OdeDual4> yd(static_cast<size_t>(n)), fd(static_cast<size_t>(n));
    std::vector<OdeDual4> pd(sys.p.size());
    for (int k0 = 0; k0 < m; k0 += 4) {
      for (int i = 0; i < n; ++i) yd[static_cast<size_t>(i)] = OdeDual4(y[i]);
      for (size_t i = 0; i < sys.p.size(); ++i) pd[i] = OdeDual4(sys.p[i]);
      for (int k = 0; k < 4 && k0 + k < m; ++k) (wrt_p ? pd : yd)[static_cast<size_t>(k0 + k)].der(k) = 1.0;
      sys.rhs_dual4(t, yd.data(), pd.data(), fd.data());
      const OdeDual4 gv = g != nullptr ? g->g_dual4(t, yd.data(), pd.data()) : OdeDual4(0.0);
      for (int k = 0; k < 4 && k0 + k < m; ++k) {
        double s = gv.der(k);
        for (int i = 0; i < n; ++i) s += fd[static_cast<size_t>(i)].der(k) * w[i];
        out[k0 + k] = s;
      }
    }
    return;
  }
  std::vector<OdeDual> yd(static_cast<size_t>(n)), fd(static_cast<size_t>(n));
  std::vector<OdeDual> pd(sys.p.size());
  for (int k = 0; k < m; ++k) {
    for (int i = 0; i < n; ++i) yd[static_cast<size_t>(i)] = OdeDual(y[i]);
    for (size_t i = 0; i < sys.p.size(); ++i) pd[i] = OdeDual(sys.p[i]);
    (wrt_p ? pd : yd)[static_cast<size_t>(k)].der(0) = 1.0;
    sys.rhs_dual(t, yd.data(), pd.data(), fd.data());
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += fd[static_cast<size_t>(i)].der(0) * w[i];
    if (g != nullptr) s += g->g_dual(t, yd.data(), pd.data()).der(0);
    out[k] = s;
  }
}

OdeStats stats_of(void* mem) { return detail::cvode_stats(mem); }

}  // namespace

struct Cvodes::Impl : detail::CallbackGuard {
  OdeSystem sys;
  CvodesOptions o;
  detail::Context ctx;
  detail::Vec y, atol;
  std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixDeleter> a;
  std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, SolverDeleter> ls;
  std::unique_ptr<void, MemoryDeleter> mem;
  double t = 0.0;
  bool started = false;

  static Impl& of(void* data) { return *static_cast<Impl*>(data); }
  static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
    Impl& m = of(data);
    return m.guard([&] { m.sys.rhs(t, N_VGetArrayPointer(y), m.sys.p.data(), N_VGetArrayPointer(ydot)); });
  }
  static int jac(sunrealtype t, N_Vector y, N_Vector, SUNMatrix j, void* data, N_Vector, N_Vector,
                 N_Vector) {
    Impl& m = of(data);
    return m.guard([&] { dense_jacobian(m.sys, t, N_VGetArrayPointer(y), j, 1.0, false); });
  }
  static int root(sunrealtype t, N_Vector y, sunrealtype* g, void* data) {
    Impl& m = of(data);
    return m.guard([&] { m.sys.roots(t, N_VGetArrayPointer(y), g); });
  }
  static void on_error(int, const char*, const char* function, char* msg, void* data) {
    of(data).record(function, msg);
  }

  // A CVODES call that must succeed (set-up): otherwise an error naming it.
  void check(int flag, const char* call) const {
    CAMBER_REQUIRE(flag >= 0, "CVODES: " << call << " failed with " << detail::take_name(CVodeGetReturnFlagName(flag))
                                         << detail());
  }
};

Cvodes::Cvodes(OdeSystem system, CvodesOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.sys = std::move(system);
  m.o = std::move(options);
  const int n = m.sys.n;
  CAMBER_INPUT_REQUIRE(n > 0 && m.sys.rhs, "ode: a system needs n > 0 equations and a right-hand side");
  CAMBER_INPUT_REQUIRE(m.sys.n_roots == 0 || m.sys.roots, "ode: n_roots > 0 needs root functions");
  detail::check_tolerances("ode", n, m.o.rtol, m.o.atol, m.o.max_steps);
  CAMBER_INPUT_REQUIRE(m.o.max_step >= 0.0 && m.o.initial_step >= 0.0,
                       "ode: max_step and initial_step must be >= 0");

  m.ctx = detail::make_context("CVODES");
  SUNContext ctx = m.ctx.get();
  m.y = detail::make_vector(n, ctx, "CVODES");
  m.atol = detail::absolute_tolerances(m.o.atol, n, ctx, "CVODES");
  m.mem.reset(CVodeCreate(m.o.method == OdeMethod::bdf ? CV_BDF : CV_ADAMS, ctx));
  CAMBER_REQUIRE(m.mem != nullptr, "CVODES: CVodeCreate failed");
  m.check(CVodeSetErrHandlerFn(m.mem.get(), Impl::on_error, &m), "CVodeSetErrHandlerFn");
  m.check(CVodeSetUserData(m.mem.get(), &m), "CVodeSetUserData");
}

Cvodes::~Cvodes() = default;

void Cvodes::reset(double t0, const std::vector<double>& y0) {
  Impl& m = *impl_;
  const int n = m.sys.n;
  CAMBER_INPUT_REQUIRE(static_cast<int>(y0.size()) == n, "ode: y0 has " << y0.size()
                                                                        << " values, the system " << n);
  for (double v : y0) CAMBER_INPUT_REQUIRE(std::isfinite(v), "ode: y0 holds " << v);
  CAMBER_INPUT_REQUIRE(std::isfinite(t0), "ode: t0 is " << t0);
  for (int i = 0; i < n; ++i) NV_Ith_S(m.y.get(), i) = y0[static_cast<size_t>(i)];
  void* mem = m.mem.get();
  if (!m.started) {
    m.check(CVodeInit(mem, Impl::rhs, t0, m.y.get()), "CVodeInit");
    m.check(CVodeSVtolerances(mem, m.o.rtol, m.atol.get()), "CVodeSVtolerances");
    m.a.reset(SUNDenseMatrix(n, n, m.ctx.get()));
    m.ls.reset(SUNLinSol_Dense(m.y.get(), m.a.get(), m.ctx.get()));
    CAMBER_REQUIRE(m.a && m.ls, "CVODES: dense matrix or linear solver creation failed");
    m.check(CVodeSetLinearSolver(mem, m.ls.get(), m.a.get()), "CVodeSetLinearSolver");
    if (m.sys.rhs_dual) m.check(CVodeSetJacFn(mem, Impl::jac), "CVodeSetJacFn");
    if (m.sys.n_roots > 0) m.check(CVodeRootInit(mem, m.sys.n_roots, Impl::root), "CVodeRootInit");
    m.check(CVodeSetMaxNumSteps(mem, m.o.max_steps), "CVodeSetMaxNumSteps");
    if (m.o.max_step > 0.0) m.check(CVodeSetMaxStep(mem, m.o.max_step), "CVodeSetMaxStep");
    if (m.o.initial_step > 0.0) m.check(CVodeSetInitStep(mem, m.o.initial_step), "CVodeSetInitStep");
    m.started = true;
  } else {
    m.check(CVodeReInit(mem, t0, m.y.get()), "CVodeReInit");
  }
  m.t = t0;
}

double Cvodes::advance(double tout, std::vector<double>& y, std::vector<int>* roots) {
  Impl& m = *impl_;
  CAMBER_REQUIRE(m.started, "Cvodes::advance before reset()");
  CAMBER_INPUT_REQUIRE(std::isfinite(tout), "ode: output time " << tout);
  m.clear();
  double t = m.t;
  const int flag = CVode(m.mem.get(), tout, m.y.get(), &t, CV_NORMAL);
  m.rethrow();
  CAMBER_REQUIRE(flag >= 0, "CVODES failed at t = " << t << " (integrating from " << m.t << " to "
                                                   << tout << "): " << detail::take_name(CVodeGetReturnFlagName(flag))
                                                   << m.detail());
  m.t = t;
  const int n = m.sys.n;
  y.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) y[static_cast<size_t>(i)] = NV_Ith_S(m.y.get(), i);
  if (roots != nullptr) {
    roots->clear();
    if (flag == CV_ROOT_RETURN) {
      roots->resize(static_cast<size_t>(m.sys.n_roots));
      m.check(CVodeGetRootInfo(m.mem.get(), roots->data()), "CVodeGetRootInfo");
    }
  }
  return t;
}

OdeStats Cvodes::stats() const {
  const Impl& m = *impl_;
  return m.started ? stats_of(m.mem.get()) : OdeStats{};
}

const OdeSystem& Cvodes::system() const { return impl_->sys; }

namespace {

// The callbacks of the sensitivity, adjoint and Hessian-vector runs (user
// data of the forward and backward problems), and their errors.
struct Run : detail::CallbackGuard {
  const OdeSystem* sys = nullptr;
  const OdeIntegrand* g = nullptr;
  const std::vector<double>* direction = nullptr;  // v, for integral_hvp
  static Run& of(void* data) { return *static_cast<Run*>(data); }

  static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
    Run& r = of(data);
    return r.guard([&] { r.sys->rhs(t, N_VGetArrayPointer(y), r.sys->p.data(), N_VGetArrayPointer(ydot)); });
  }
  static int jac(sunrealtype t, N_Vector y, N_Vector, SUNMatrix j, void* data, N_Vector, N_Vector,
                 N_Vector) {
    Run& r = of(data);
    return r.guard([&] { dense_jacobian(*r.sys, t, N_VGetArrayPointer(y), j, 1.0, false); });
  }
  static int quad(sunrealtype t, N_Vector y, N_Vector qdot, void* data) {
    Run& r = of(data);
    return r.guard([&] { NV_Ith_S(qdot, 0) = r.g->g(t, N_VGetArrayPointer(y), r.sys->p.data()); });
  }
  // lambda' = -(df/dy)^T lambda - (dg/dy)^T
  static int rhs_b(sunrealtype t, N_Vector y, N_Vector yb, N_Vector ybdot, void* data) {
    Run& r = of(data);
    return r.guard([&] {
      double* out = N_VGetArrayPointer(ybdot);
      vjp(*r.sys, r.g, t, N_VGetArrayPointer(y), N_VGetArrayPointer(yb), false, out);
      for (int i = 0; i < r.sys->n; ++i) out[i] = -out[i];
    });
  }
  // d(lambda')/d(lambda) = -(df/dy)^T
  static int jac_b(sunrealtype t, N_Vector y, N_Vector, N_Vector, SUNMatrix jb, void* data,
                   N_Vector, N_Vector, N_Vector) {
    Run& r = of(data);
    return r.guard([&] { dense_jacobian(*r.sys, t, N_VGetArrayPointer(y), jb, -1.0, true); });
  }
  // dG/dp accumulates (df/dp)^T lambda + (dg/dp)^T
  static int quad_b(sunrealtype t, N_Vector y, N_Vector yb, N_Vector qbdot, void* data) {
    Run& r = of(data);
    return r.guard([&] {
      vjp(*r.sys, r.g, t, N_VGetArrayPointer(y), N_VGetArrayPointer(yb), true, N_VGetArrayPointer(qbdot));
    });
  }
  // S_j' = (df/dy) S_j + df/dp_j: one Dual evaluation, tangent (S_j, e_j).
  static int rhs_s(int, sunrealtype t, N_Vector y, N_Vector, int js, N_Vector ys, N_Vector ysdot,
                   void* data, N_Vector, N_Vector) {
    Run& r = of(data);
    return r.guard([&] {
      const OdeSystem& sys = *r.sys;
      const int n = sys.n;
      std::vector<OdeDual> yd(static_cast<size_t>(n)), fd(static_cast<size_t>(n));
      std::vector<OdeDual> pd(sys.p.begin(), sys.p.end());
      for (int i = 0; i < n; ++i) {
        yd[static_cast<size_t>(i)] = OdeDual(NV_Ith_S(y, i));
        yd[static_cast<size_t>(i)].der(0) = NV_Ith_S(ys, i);
      }
      pd[static_cast<size_t>(js)].der(0) = 1.0;
      sys.rhs_dual(t, yd.data(), pd.data(), fd.data());
      for (int i = 0; i < n; ++i) NV_Ith_S(ysdot, i) = fd[static_cast<size_t>(i)].der(0);
    });
  }
  static void on_error(int, const char*, const char* function, char* msg, void* data) {
    of(data).record(function, msg);
  }
  // Rethrows a callback's exception; a failed call is an error naming it,
  // its flag and (with t) the time reached.
  void check(int flag, const char* call, double t = NAN) const {
    rethrow();
    if (flag >= 0) return;
    const std::string at = std::isnan(t) ? std::string() : " at t = " + std::to_string(t);
    CAMBER_REQUIRE(false, "CVODES: " << call << " failed" << at << ": " << detail::take_name(CVodeGetReturnFlagName(flag))
                                     << detail());
  }
};

using detail::Matrix;
using detail::Solver;
using detail::Vec;
struct ArrayDeleter {
  int count;
  void operator()(N_Vector* v) const { N_VDestroyVectorArray(v, count); }
};
using VecArray = std::unique_ptr<N_Vector, ArrayDeleter>;

// The options and initial state every run checks.
void check_forward(const OdeSystem& sys, const CvodesOptions& o, const std::vector<double>& y0,
                   const char* who) {
  const int n = sys.n;
  CAMBER_INPUT_REQUIRE(n > 0 && sys.rhs && sys.rhs_dual,
                       who << ": the system needs n > 0 and its right-hand side on Duals");
  CAMBER_INPUT_REQUIRE(static_cast<int>(y0.size()) == n, who << ": y0 has " << y0.size()
                                                               << " values, the system " << n);
  CAMBER_INPUT_REQUIRE(o.rtol > 0.0 && (o.atol.size() == 1 || static_cast<int>(o.atol.size()) == n),
                       who << ": rtol must be > 0 and atol have 1 or " << n << " values");
}

// The forward problem of a sensitivity, adjoint or Hessian-vector run:
// CVODES memory with the dense linear solver, the AD Jacobian and the
// options, its callbacks reading `run`.
struct Forward {
  detail::Context ctx;
  Vec y, atol;
  std::unique_ptr<void, MemoryDeleter> mem;
  Matrix a;
  Solver ls;

  Forward(const OdeSystem& sys, const CvodesOptions& o, double t0, const std::vector<double>& y0, Run& run) {
    const int n = sys.n;
    ctx = detail::make_context("CVODES");
    SUNContext raw = ctx.get();
    y = detail::make_vector(n, raw, "CVODES");
    atol = detail::absolute_tolerances(o.atol, n, raw, "CVODES");
    for (int i = 0; i < n; ++i) NV_Ith_S(y.get(), i) = y0[static_cast<size_t>(i)];
    mem.reset(CVodeCreate(o.method == OdeMethod::bdf ? CV_BDF : CV_ADAMS, raw));
    CAMBER_REQUIRE(mem != nullptr, "CVODES: CVodeCreate failed");
    void* cv = mem.get();
    run.check(CVodeSetErrHandlerFn(cv, Run::on_error, &run), "CVodeSetErrHandlerFn");
    run.check(CVodeInit(cv, Run::rhs, t0, y.get()), "CVodeInit");
    run.check(CVodeSVtolerances(cv, o.rtol, atol.get()), "CVodeSVtolerances");
    run.check(CVodeSetUserData(cv, &run), "CVodeSetUserData");
    a.reset(SUNDenseMatrix(n, n, raw));
    ls.reset(SUNLinSol_Dense(y.get(), a.get(), raw));
    run.check(CVodeSetLinearSolver(cv, ls.get(), a.get()), "CVodeSetLinearSolver");
    run.check(CVodeSetJacFn(cv, Run::jac), "CVodeSetJacFn");
    run.check(CVodeSetMaxNumSteps(cv, o.max_steps), "CVodeSetMaxNumSteps");
    if (o.max_step > 0.0) run.check(CVodeSetMaxStep(cv, o.max_step), "CVodeSetMaxStep");
  }
  void* cv() const { return mem.get(); }
  SUNContext context() const { return ctx.get(); }
  // G's quadrature in the forward problem.
  void add_quadrature(Run& run, const AdjointOptions& a_opts, N_Vector q) const {
    run.check(CVodeQuadInit(cv(), Run::quad, q), "CVodeQuadInit");
    run.check(CVodeSetQuadErrCon(cv(), SUNTRUE), "CVodeSetQuadErrCon");
    run.check(CVodeQuadSStolerances(cv(), a_opts.quad_rtol, a_opts.quad_atol), "CVodeQuadSStolerances");
  }
};

// The first-order backward problem (adjoint lambda of size n and, with
// parameters, the quadrature of dG/dp), created at t_end.
int create_backward(const Forward& f, Run& run, const CvodesOptions& o, const AdjointOptions& a,
                    double t_end, N_Vector yb, N_Vector qb, const Solver& ls, const Matrix& m) {
  void* cv = f.cv();
  int index = -1;
  run.check(CVodeCreateB(cv, o.method == OdeMethod::bdf ? CV_BDF : CV_ADAMS, &index), "CVodeCreateB");
  run.check(CVodeInitB(cv, index, Run::rhs_b, t_end, yb), "CVodeInitB");
  run.check(CVodeSStolerancesB(cv, index, a.rtol, a.atol), "CVodeSStolerancesB");
  run.check(CVodeSetUserDataB(cv, index, &run), "CVodeSetUserDataB");
  run.check(CVodeSetLinearSolverB(cv, index, ls.get(), m.get()), "CVodeSetLinearSolverB");
  run.check(CVodeSetJacFnB(cv, index, Run::jac_b), "CVodeSetJacFnB");
  if (!run.sys->p.empty()) {
    run.check(CVodeQuadInitB(cv, index, Run::quad_b, qb), "CVodeQuadInitB");
    run.check(CVodeSetQuadErrConB(cv, index, SUNTRUE), "CVodeSetQuadErrConB");
    run.check(CVodeQuadSStolerancesB(cv, index, a.quad_rtol, a.quad_atol), "CVodeQuadSStolerancesB");
  }
  run.check(CVodeSetMaxNumStepsB(cv, index, o.max_steps), "CVodeSetMaxNumStepsB");
  return index;
}

// CVODES integrates backward quadratures from t_end down to t0, so
// qB(t0) = -(the integral over [t0, t_end]): the gradient is -qB.
std::vector<double> negated(N_Vector q, int from, int count) {
  std::vector<double> v;
  for (int j = 0; j < count; ++j) v.push_back(-NV_Ith_S(q, from + j));
  return v;
}

void check_adjoint_options(const AdjointOptions& a) {
  CAMBER_INPUT_REQUIRE(a.rtol > 0.0 && a.atol >= 0.0 && a.quad_rtol > 0.0 && a.quad_atol >= 0.0 &&
                           a.checkpoint_steps > 0,
                       "adjoint: tolerances must be positive and checkpoint_steps > 0");
}

}  // namespace

std::vector<IntegralGradient> integral_gradients(const OdeSystem& sys, const OdeIntegrand& g,
                                                 const CvodesOptions& o, double t0,
                                                 const std::vector<double>& y0,
                                                 const std::vector<double>& t_ends,
                                                 const AdjointOptions& a, OdeStats* forward_stats) {
  const int n = sys.n, np = static_cast<int>(sys.p.size());
  check_forward(sys, o, y0, "adjoint");
  CAMBER_INPUT_REQUIRE(g.g && g.g_dual, "adjoint: the integrand needs g on double and on Duals");
  CAMBER_INPUT_REQUIRE(!t_ends.empty(), "adjoint: no end time");
  for (double te : t_ends)
    CAMBER_INPUT_REQUIRE(std::isfinite(te) && te > t0, "adjoint: end time " << te << " not after t0 = " << t0);
  check_adjoint_options(a);

  Run run;
  run.sys = &sys;
  run.g = &g;
  Forward f(sys, o, t0, y0, run);
  void* cv = f.cv();
  Vec q(N_VNew_Serial(1, f.context())), dky(N_VNew_Serial(1, f.context()));
  Vec yb(N_VNew_Serial(n, f.context())), qb(N_VNew_Serial(std::max(np, 1), f.context()));
  Matrix bmat(SUNDenseMatrix(n, n, f.context()));
  Solver bls(SUNLinSol_Dense(yb.get(), bmat.get(), f.context()));
  NV_Ith_S(q.get(), 0) = 0.0;
  f.add_quadrature(run, a, q.get());
  run.check(CVodeAdjInit(cv, a.checkpoint_steps, CV_HERMITE), "CVodeAdjInit");

  // Forward to the last end time, one step at a time (so the first step
  // size is estimated for the whole interval, as one call would), reading
  // G at each end time from the step that passes it.
  std::vector<double> ends = t_ends;
  std::sort(ends.begin(), ends.end());
  std::vector<IntegralGradient> out;
  double t = t0;
  int ncheck = 0;
  size_t next = 0;
  long taken = 0;
  while (next < ends.size()) {
    run.check(CVodeF(cv, ends.back(), f.y.get(), &t, CV_ONE_STEP, &ncheck), "CVodeF", t);
    CAMBER_REQUIRE(++taken <= o.max_steps * static_cast<long>(ends.size()) * 1000,
                   "adjoint: the forward integration does not reach " << ends.back());
    while (next < ends.size() && ends[next] <= t) {
      run.check(CVodeGetQuadDky(cv, ends[next], 0, dky.get()), "CVodeGetQuadDky", ends[next]);
      IntegralGradient r;
      r.t_end = ends[next];
      r.value = NV_Ith_S(dky.get(), 0);
      out.push_back(r);
      ++next;
    }
  }
  if (forward_stats != nullptr) *forward_stats = stats_of(cv);

  // Backward, once per end time (the last first, as CVODES' examples do).
  int index = -1;
  for (size_t k = out.size(); k-- > 0;) {
    IntegralGradient& r = out[k];
    N_VConst(0.0, yb.get());
    N_VConst(0.0, qb.get());
    if (index < 0) {
      index = create_backward(f, run, o, a, r.t_end, yb.get(), qb.get(), bls, bmat);
    } else {
      run.check(CVodeReInitB(cv, index, r.t_end, yb.get()), "CVodeReInitB");
      if (np > 0) run.check(CVodeQuadReInitB(cv, index, qb.get()), "CVodeQuadReInitB");
    }
    run.check(CVodeB(cv, t0, CV_NORMAL), "CVodeB", r.t_end);
    double tb = t0;
    run.check(CVodeGetB(cv, index, &tb, yb.get()), "CVodeGetB", tb);
    r.d_dy0.assign(N_VGetArrayPointer(yb.get()), N_VGetArrayPointer(yb.get()) + n);
    if (np > 0) {
      run.check(CVodeGetQuadB(cv, index, &tb, qb.get()), "CVodeGetQuadB", tb);
      r.d_dp = negated(qb.get(), 0, np);
    }
    r.backward = stats_of(CVodeGetAdjCVodeBmem(cv, index));
  }
  return out;
}

namespace {
SensitivitySolution sensitivities(const OdeSystem& sys, const CvodesOptions& o, double t0,
                                  const std::vector<double>& y0, const std::vector<double>& times,
                                  const SensitivityOptions& so, const std::vector<double>* s0);
}  // namespace

SensitivitySolution forward_sensitivities(const OdeSystem& sys, const CvodesOptions& o, double t0,
                                          const std::vector<double>& y0,
                                          const std::vector<double>& times,
                                          const SensitivityOptions& so) {
  return sensitivities(sys, o, t0, y0, times, so, nullptr);
}

namespace {

// The directional sensitivity of a one-parameter system started at s0.
std::vector<double> forward_sensitivities_from(const OdeSystem& sys, const CvodesOptions& o, double t0,
                                               const std::vector<double>& y0,
                                               const std::vector<double>& s0,
                                               const std::vector<double>& times) {
  SensitivityOptions so;
  so.pbar = {1.0};
  const SensitivitySolution r = sensitivities(sys, o, t0, y0, times, so, &s0);
  std::vector<double> out;
  for (const auto& s : r.s) out.insert(out.end(), s.begin(), s.end());
  return out;
}

SensitivitySolution sensitivities(const OdeSystem& sys, const CvodesOptions& o, double t0,
                                  const std::vector<double>& y0, const std::vector<double>& times,
                                  const SensitivityOptions& so, const std::vector<double>* s0) {
  const int n = sys.n, np = static_cast<int>(sys.p.size());
  check_forward(sys, o, y0, "sensitivities");
  CAMBER_INPUT_REQUIRE(np > 0, "sensitivities: the system has no parameters");
  CAMBER_INPUT_REQUIRE(so.pbar.empty() || static_cast<int>(so.pbar.size()) == np,
                       "sensitivities: pbar needs " << np << " values, got " << so.pbar.size());
  double last = t0;
  for (double t : times) {
    CAMBER_INPUT_REQUIRE(std::isfinite(t) && t > last, "sensitivities: output times must increase after t0, got " << t);
    last = t;
  }
  Run run;
  run.sys = &sys;
  Forward f(sys, o, t0, y0, run);
  void* cv = f.cv();
  VecArray ys(N_VCloneVectorArray(np, f.y.get()), ArrayDeleter{np});
  CAMBER_REQUIRE(ys != nullptr, "CVODES: N_VCloneVectorArray failed");
  for (int j = 0; j < np; ++j) N_VConst(0.0, ys.get()[j]);
  if (s0 != nullptr)
    for (int i = 0; i < n; ++i) NV_Ith_S(ys.get()[0], i) = (*s0)[static_cast<size_t>(i)];
  const int method = so.corrector == SensitivityCorrector::simultaneous ? CV_SIMULTANEOUS
                     : so.corrector == SensitivityCorrector::staggered  ? CV_STAGGERED
                                                                        : CV_STAGGERED1;
  run.check(CVodeSensInit1(cv, np, method, Run::rhs_s, ys.get()), "CVodeSensInit1");
  run.check(CVodeSensEEtolerances(cv), "CVodeSensEEtolerances");
  run.check(CVodeSetSensErrCon(cv, so.error_control ? SUNTRUE : SUNFALSE), "CVodeSetSensErrCon");
  std::vector<double> pbar = so.pbar;
  if (pbar.empty())
    for (double v : sys.p) pbar.push_back(v != 0.0 ? std::abs(v) : 1.0);
  run.check(CVodeSetSensParams(cv, nullptr, pbar.data(), nullptr), "CVodeSetSensParams");

  SensitivitySolution out;
  double t = t0;
  for (double tout : times) {
    run.check(CVode(cv, tout, f.y.get(), &t, CV_NORMAL), "CVode", t);
    double ts = t;
    run.check(CVodeGetSens(cv, &ts, ys.get()), "CVodeGetSens", t);
    out.t.push_back(t);
    out.y.emplace_back(N_VGetArrayPointer(f.y.get()), N_VGetArrayPointer(f.y.get()) + n);
    std::vector<double> s(static_cast<size_t>(n * np));
    for (int j = 0; j < np; ++j)
      for (int i = 0; i < n; ++i) s[static_cast<size_t>(j * n + i)] = NV_Ith_S(ys.get()[j], i);
    out.s.push_back(std::move(s));
    long steps = 0;
    CVodeGetNumSteps(cv, &steps);
    out.steps.push_back(steps);
  }
  out.stats = stats_of(cv);
  return out;
}

}  // namespace

namespace {

void check_times(double t0, const std::vector<double>& times) {
  CAMBER_INPUT_REQUIRE(!times.empty(), "ode: no output times");
  double last = t0;
  for (double t : times) {
    CAMBER_INPUT_REQUIRE(std::isfinite(t) && t > last, "ode: output times must increase after t0 = "
                                                           << t0 << ", got " << t);
    last = t;
  }
}

}  // namespace

std::vector<double> solution_values(const OdeSystem& sys, const CvodesOptions& o, double t0,
                                    const std::vector<double>& y0, const std::vector<double>& times) {
  check_times(t0, times);
  Cvodes cv(sys, o);
  cv.reset(t0, y0);
  std::vector<double> out, y;
  for (double t : times) {
    cv.advance(t, y);
    out.insert(out.end(), y.begin(), y.end());
  }
  return out;
}

std::vector<double> solution_jvp(const OdeSystem& sys, const CvodesOptions& o, double t0,
                                 const std::vector<double>& y0, const std::vector<double>& times,
                                 const std::vector<double>& dy0, const std::vector<double>& dp) {
  const int n = sys.n;
  CAMBER_INPUT_REQUIRE(static_cast<int>(dy0.size()) == n && dp.size() == sys.p.size(),
                       "ode: a tangent needs " << n << " initial-value and " << sys.p.size()
                                               << " parameter components");
  // One directional sensitivity: a system whose single parameter s moves
  // y0 + s dy0 and p + s dp; its sensitivity is the tangent of Y.
  OdeSystem d;
  d.n = n;
  d.p = {0.0};
  const OdeSystem base = sys;
  d.rhs = [base](double t, const double* y, const double*, double* ydot) { base.rhs(t, y, base.p.data(), ydot); };
  d.rhs_dual = [base, dp](double t, const OdeDual* y, const OdeDual* s, OdeDual* ydot) {
    std::vector<OdeDual> p(base.p.size());
    for (size_t j = 0; j < p.size(); ++j) {
      p[j] = OdeDual(base.p[j]);
      p[j].der(0) = s[0].der(0) * dp[j];
    }
    base.rhs_dual(t, y, p.data(), ydot);
  };
  return forward_sensitivities_from(d, o, t0, y0, dy0, times);
}

SolutionVjp solution_vjp(const OdeSystem& sys, const CvodesOptions& o, double t0,
                         const std::vector<double>& y0, const std::vector<double>& times,
                         const std::vector<double>& w, const AdjointOptions& a) {
  const int n = sys.n, np = static_cast<int>(sys.p.size());
  check_times(t0, times);
  check_forward(sys, o, y0, "ode");
  check_adjoint_options(a);
  CAMBER_INPUT_REQUIRE(w.size() == times.size() * static_cast<size_t>(n),
                       "ode: the cotangent needs " << times.size() * static_cast<size_t>(n) << " values, got " << w.size());
  Run run;
  run.sys = &sys;
  run.g = nullptr;
  Forward f(sys, o, t0, y0, run);
  void* cv = f.cv();
  Vec yb(N_VNew_Serial(n, f.context())), qb(N_VNew_Serial(std::max(np, 1), f.context()));
  Matrix bmat(SUNDenseMatrix(n, n, f.context()));
  Solver bls(SUNLinSol_Dense(yb.get(), bmat.get(), f.context()));
  run.check(CVodeAdjInit(cv, a.checkpoint_steps, CV_HERMITE), "CVodeAdjInit");
  double t = t0;
  int ncheck = 0;
  // Forward to the output times in turn (each stop is an interpolation).
  for (double tk : times) run.check(CVodeF(cv, tk, f.y.get(), &t, CV_NORMAL, &ncheck), "CVodeF", t);

  // Backward: lambda(t_K) = W_K; at each earlier t_k, lambda += W_k.
  const size_t K = times.size();
  for (int i = 0; i < n; ++i) NV_Ith_S(yb.get(), i) = w[(K - 1) * static_cast<size_t>(n) + static_cast<size_t>(i)];
  N_VConst(0.0, qb.get());
  const int index = create_backward(f, run, o, a, times[K - 1], yb.get(), qb.get(), bls, bmat);
  for (size_t k = K; k-- > 0;) {
    const double target = k > 0 ? times[k - 1] : t0;
    run.check(CVodeB(cv, target, CV_NORMAL), "CVodeB", times[k]);
    double tb = target;
    run.check(CVodeGetB(cv, index, &tb, yb.get()), "CVodeGetB", tb);
    if (np > 0) run.check(CVodeGetQuadB(cv, index, &tb, qb.get()), "CVodeGetQuadB", tb);
    if (k > 0) {  // the jump at t_{k-1}, then a fresh start from there
      for (int i = 0; i < n; ++i) NV_Ith_S(yb.get(), i) += w[(k - 1) * static_cast<size_t>(n) + static_cast<size_t>(i)];
      run.check(CVodeReInitB(cv, index, target, yb.get()), "CVodeReInitB");
      if (np > 0) run.check(CVodeQuadReInitB(cv, index, qb.get()), "CVodeQuadReInitB");
    }
  }
  SolutionVjp r;
  r.d_y0.assign(N_VGetArrayPointer(yb.get()), N_VGetArrayPointer(yb.get()) + n);
  r.d_p = negated(qb.get(), 0, np);
  return r;
}

namespace {

// For x = y (wrt_p false) or p, with y + e s and p + e v:
//   first[k]  = sum_i (df_i/dx_k) lambda_i + dg/dx_k
//   second[k] = sum_i (df_i/dx_k) mu_i + d/de[sum_i (df_i/dx_k) lambda_i + dg/dx_k]
// one nested-Dual evaluation per k (inner: x_k, outer: e).
void second_order_products(const OdeSystem& sys, const OdeIntegrand& g, double t, const double* y,
                           const double* s, const std::vector<double>& v, const double* lambda,
                           const double* mu, bool wrt_p, double* first, double* second) {
  const int n = sys.n, np = static_cast<int>(sys.p.size()), m = wrt_p ? np : n;
  std::vector<OdeDual2> yd(static_cast<size_t>(n)), pd(static_cast<size_t>(np)), fd(static_cast<size_t>(n));
  for (int k = 0; k < m; ++k) {
    for (int j = 0; j < n; ++j) {
      OdeDual2& x = yd[static_cast<size_t>(j)];
      x = OdeDual2(0.0);
      x.val() = OdeDual(y[j]);
      x.val().der(0) = !wrt_p && j == k ? 1.0 : 0.0;
      x.der(0) = OdeDual(s[j]);
    }
    for (int j = 0; j < np; ++j) {
      OdeDual2& x = pd[static_cast<size_t>(j)];
      x = OdeDual2(0.0);
      x.val() = OdeDual(sys.p[static_cast<size_t>(j)]);
      x.val().der(0) = wrt_p && j == k ? 1.0 : 0.0;
      x.der(0) = OdeDual(v[static_cast<size_t>(j)]);
    }
    sys.rhs_dual2(t, yd.data(), pd.data(), fd.data());
    const OdeDual2 gv = g.g_dual2(t, yd.data(), pd.data());
    double a = gv.val().der(0), b = gv.der(0).der(0);
    for (int i = 0; i < n; ++i) {
      const OdeDual2& fi = fd[static_cast<size_t>(i)];
      a += fi.val().der(0) * lambda[i];
      b += fi.val().der(0) * mu[i] + fi.der(0).der(0) * lambda[i];
    }
    first[k] = a;
    second[k] = b;
  }
}

// The callbacks of integral_hvp (user data: a Run with its direction).
struct Hvp {
  // s' = (df/dy) s + (df/dp) v: one Dual evaluation seeded with (s, v).
  static int rhs_s(int, sunrealtype t, N_Vector y, N_Vector, int, N_Vector ys, N_Vector ysdot,
                   void* data, N_Vector, N_Vector) {
    Run& r = Run::of(data);
    return r.guard([&] {
      const OdeSystem& sys = *r.sys;
      const int n = sys.n;
      std::vector<OdeDual> yd(static_cast<size_t>(n)), fd(static_cast<size_t>(n)), pd(sys.p.size());
      for (int i = 0; i < n; ++i) {
        yd[static_cast<size_t>(i)] = OdeDual(NV_Ith_S(y, i));
        yd[static_cast<size_t>(i)].der(0) = NV_Ith_S(ys, i);
      }
      for (size_t j = 0; j < pd.size(); ++j) {
        pd[j] = OdeDual(sys.p[j]);
        pd[j].der(0) = (*r.direction)[j];
      }
      sys.rhs_dual(t, yd.data(), pd.data(), fd.data());
      for (int i = 0; i < n; ++i) NV_Ith_S(ysdot, i) = fd[static_cast<size_t>(i)].der(0);
    });
  }
  // yB = (lambda, mu): lambda' = -first(y), mu' = -second(y).
  static int rhs_bs(sunrealtype t, N_Vector y, N_Vector* ys, N_Vector yb, N_Vector ybdot, void* data) {
    Run& r = Run::of(data);
    return r.guard([&] {
      const int n = r.sys->n;
      const double* b = N_VGetArrayPointer(yb);
      double* out = N_VGetArrayPointer(ybdot);
      second_order_products(*r.sys, *r.g, t, N_VGetArrayPointer(y), N_VGetArrayPointer(ys[0]), *r.direction,
                            b, b + n, false, out, out + n);
      for (int i = 0; i < 2 * n; ++i) out[i] = -out[i];
    });
  }
  // qB = (gradient, Hv) integrands.
  static int quad_bs(sunrealtype t, N_Vector y, N_Vector* ys, N_Vector yb, N_Vector qbdot, void* data) {
    Run& r = Run::of(data);
    return r.guard([&] {
      const int n = r.sys->n, np = static_cast<int>(r.sys->p.size());
      const double* b = N_VGetArrayPointer(yb);
      double* out = N_VGetArrayPointer(qbdot);
      second_order_products(*r.sys, *r.g, t, N_VGetArrayPointer(y), N_VGetArrayPointer(ys[0]), *r.direction,
                            b, b + n, true, out, out + np);
    });
  }
};

}  // namespace

IntegralHvp integral_hvp(const OdeSystem& sys, const OdeIntegrand& g, const CvodesOptions& o, double t0,
                         const std::vector<double>& y0, double t_end, const std::vector<double>& v,
                         const AdjointOptions& a) {
  const int n = sys.n, np = static_cast<int>(sys.p.size());
  check_forward(sys, o, y0, "hvp");
  check_adjoint_options(a);
  CAMBER_INPUT_REQUIRE(np > 0 && sys.rhs_dual2,
                       "hvp: the system needs parameters and its right-hand side on nested Duals");
  CAMBER_INPUT_REQUIRE(g.g && g.g_dual2, "hvp: the integrand needs g on double and on nested Duals");
  CAMBER_INPUT_REQUIRE(static_cast<int>(v.size()) == np, "hvp: v needs " << np << " values, got " << v.size());
  CAMBER_INPUT_REQUIRE(std::isfinite(t_end) && t_end > t0, "hvp: t_end " << t_end << " not after t0 " << t0);
  Run base;
  base.sys = &sys;
  base.g = &g;
  base.direction = &v;
  Forward f(sys, o, t0, y0, base);
  void* cv = f.cv();
  Vec q(N_VNew_Serial(1, f.context()));
  Vec yb(N_VNew_Serial(2 * n, f.context())), qb(N_VNew_Serial(2 * np, f.context()));
  Matrix bmat(SUNDenseMatrix(2 * n, 2 * n, f.context()));
  Solver bls(SUNLinSol_Dense(yb.get(), bmat.get(), f.context()));
  NV_Ith_S(q.get(), 0) = 0.0;
  f.add_quadrature(base, a, q.get());
  VecArray ys(N_VCloneVectorArray(1, f.y.get()), ArrayDeleter{1});
  CAMBER_REQUIRE(ys != nullptr, "CVODES: N_VCloneVectorArray failed");
  N_VConst(0.0, ys.get()[0]);
  base.check(CVodeSensInit1(cv, 1, CV_STAGGERED, Hvp::rhs_s, ys.get()), "CVodeSensInit1");
  base.check(CVodeSensEEtolerances(cv), "CVodeSensEEtolerances");
  base.check(CVodeSetSensErrCon(cv, SUNTRUE), "CVodeSetSensErrCon");
  base.check(CVodeAdjInit(cv, a.checkpoint_steps, CV_HERMITE), "CVodeAdjInit");
  double t = t0;
  int ncheck = 0;
  base.check(CVodeF(cv, t_end, f.y.get(), &t, CV_NORMAL, &ncheck), "CVodeF", t);
  double tq = t;
  base.check(CVodeGetQuad(cv, &tq, q.get()), "CVodeGetQuad", t);
  IntegralHvp out;
  out.value = NV_Ith_S(q.get(), 0);

  N_VConst(0.0, yb.get());
  N_VConst(0.0, qb.get());
  int index = -1;
  base.check(CVodeCreateB(cv, o.method == OdeMethod::bdf ? CV_BDF : CV_ADAMS, &index), "CVodeCreateB");
  base.check(CVodeInitBS(cv, index, Hvp::rhs_bs, t_end, yb.get()), "CVodeInitBS");
  base.check(CVodeSStolerancesB(cv, index, a.rtol, a.atol), "CVodeSStolerancesB");
  base.check(CVodeSetUserDataB(cv, index, &base), "CVodeSetUserDataB");
  base.check(CVodeSetLinearSolverB(cv, index, bls.get(), bmat.get()), "CVodeSetLinearSolverB");
  base.check(CVodeQuadInitBS(cv, index, Hvp::quad_bs, qb.get()), "CVodeQuadInitBS");
  base.check(CVodeSetQuadErrConB(cv, index, SUNTRUE), "CVodeSetQuadErrConB");
  base.check(CVodeQuadSStolerancesB(cv, index, a.quad_rtol, a.quad_atol), "CVodeQuadSStolerancesB");
  base.check(CVodeSetMaxNumStepsB(cv, index, o.max_steps), "CVodeSetMaxNumStepsB");
  base.check(CVodeB(cv, t0, CV_NORMAL), "CVodeB", t_end);
  double tb = t0;
  base.check(CVodeGetB(cv, index, &tb, yb.get()), "CVodeGetB", tb);
  base.check(CVodeGetQuadB(cv, index, &tb, qb.get()), "CVodeGetQuadB", tb);
  out.gradient = negated(qb.get(), 0, np);
  out.hvp = negated(qb.get(), np, np);
  return out;
}

}  // namespace camber::solvers::ode
