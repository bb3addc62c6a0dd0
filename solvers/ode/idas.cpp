#include <camber/solvers/ode/idas.hpp>

#include <idas/idas.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>

#include <camber/core/error.hpp>

#include "detail/callback_guard.hpp"
#include "detail/sundials_handles.hpp"

namespace camber::solvers::ode {

namespace {

// a dF/dy_c + b dF/dy'_c: one Dual evaluation with y_c seeded a and y'_c
// seeded b (c < n), or the derivative with respect to p_(c - n) (a = 1,
// b ignored).
std::vector<double> residual_column(const DaeSystem& sys, double t, const double* y, const double* yp, int c,
                                    double a, double b) {
  const size_t n = static_cast<size_t>(sys.n);
  std::vector<OdeDual> yd(n), ypd(n), rd(n);
  std::vector<OdeDual> pd(sys.p.begin(), sys.p.end());
  for (size_t i = 0; i < n; ++i) {
    yd[i] = OdeDual(y[i]);
    ypd[i] = OdeDual(yp[i]);
  }
  if (c < sys.n) {
    yd[static_cast<size_t>(c)].der(0) = a;
    ypd[static_cast<size_t>(c)].der(0) = b;
  } else {
    pd[static_cast<size_t>(c - sys.n)].der(0) = a;
  }
  sys.residual_dual(t, yd.data(), ypd.data(), pd.data(), rd.data());
  std::vector<double> col(n);
  for (size_t i = 0; i < n; ++i) col[i] = rd[i].der(0);
  return col;
}

}  // namespace

struct Idas::Impl : detail::CallbackGuard {
  DaeSystem sys;
  IdasOptions o;
  // Declared first: destroyed after everything made in it.
  detail::Context ctx;
  detail::Vec atol;
  N_Vector y = nullptr, yp = nullptr;
  SUNMatrix a = nullptr;
  SUNLinearSolver ls = nullptr;
  void* mem = nullptr;
  double t = 0.0;
  bool started = false;

  ~Impl() {
    if (mem != nullptr) IDAFree(&mem);
    if (ls != nullptr) SUNLinSolFree(ls);
    if (a != nullptr) SUNMatDestroy(a);
    for (N_Vector v : {y, yp})
      if (v != nullptr) N_VDestroy(v);
  }

  static Impl& of(void* data) { return *static_cast<Impl*>(data); }
  static int res(sunrealtype t, N_Vector y, N_Vector yp, N_Vector r, void* data) {
    Impl& m = of(data);
    return m.guard([&] {
      m.sys.residual(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), m.sys.p.data(), N_VGetArrayPointer(r));
    });
  }
  // dF/dy + cj dF/dy', column c from one Dual evaluation seeded (1, cj).
  static int jac(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix j, void* data,
                 N_Vector, N_Vector, N_Vector) {
    Impl& m = of(data);
    return m.guard([&] {
      const int n = m.sys.n;
      for (int c = 0; c < n; ++c) {
        const std::vector<double> col = residual_column(m.sys, t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), c, 1.0, cj);
        for (int i = 0; i < n; ++i) SM_ELEMENT_D(j, i, c) = col[static_cast<size_t>(i)];
      }
    });
  }
  static int root(sunrealtype t, N_Vector y, N_Vector, sunrealtype* g, void* data) {
    Impl& m = of(data);
    return m.guard([&] { m.sys.roots(t, N_VGetArrayPointer(y), g); });
  }
  static void on_error(int, const char*, const char* function, char* msg, void* data) {
    of(data).record(function, msg);
  }
  void check(int flag, const char* call) const {
    if (flag >= 0) return;
    CAMBER_REQUIRE(false, "IDAS: " << call << " failed with " << detail::take_name(IDAGetReturnFlagName(flag)) << detail());
  }
};

Idas::Idas(DaeSystem system, IdasOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.sys = std::move(system);
  m.o = std::move(options);
  const int n = m.sys.n;
  CAMBER_INPUT_REQUIRE(n > 0 && m.sys.residual, "dae: a system needs n > 0 equations and a residual");
  CAMBER_INPUT_REQUIRE(m.sys.n_roots == 0 || m.sys.roots, "dae: n_roots > 0 needs root functions");
  detail::check_tolerances("dae", n, m.o.rtol, m.o.atol, m.o.max_steps);
  m.ctx = detail::make_context("IDAS");
  m.atol = detail::absolute_tolerances(m.o.atol, n, m.ctx.get(), "IDAS");
  m.y = N_VNew_Serial(n, m.ctx.get());
  m.yp = N_VNew_Serial(n, m.ctx.get());
  CAMBER_REQUIRE(m.y && m.yp, "IDAS: N_VNew_Serial failed");
  m.mem = IDACreate(m.ctx.get());
  CAMBER_REQUIRE(m.mem != nullptr, "IDAS: IDACreate failed");
  m.check(IDASetErrHandlerFn(m.mem, Impl::on_error, &m), "IDASetErrHandlerFn");
  m.check(IDASetUserData(m.mem, &m), "IDASetUserData");
}

Idas::~Idas() = default;

void Idas::reset(double t0, const std::vector<double>& y0, const std::vector<double>& yp0) {
  Impl& m = *impl_;
  const int n = m.sys.n;
  CAMBER_INPUT_REQUIRE(static_cast<int>(y0.size()) == n && static_cast<int>(yp0.size()) == n,
                       "dae: y0 and yp0 need " << n << " values each, got " << y0.size() << " and " << yp0.size());
  for (int i = 0; i < n; ++i) {
    CAMBER_INPUT_REQUIRE(std::isfinite(y0[static_cast<size_t>(i)]) && std::isfinite(yp0[static_cast<size_t>(i)]),
                         "dae: y0 and yp0 must be finite");
    NV_Ith_S(m.y, i) = y0[static_cast<size_t>(i)];
    NV_Ith_S(m.yp, i) = yp0[static_cast<size_t>(i)];
  }
  if (!m.started) {
    m.check(IDAInit(m.mem, Impl::res, t0, m.y, m.yp), "IDAInit");
    m.check(IDASVtolerances(m.mem, m.o.rtol, m.atol.get()), "IDASVtolerances");
    m.a = SUNDenseMatrix(n, n, m.ctx.get());
    m.ls = SUNLinSol_Dense(m.y, m.a, m.ctx.get());
    CAMBER_REQUIRE(m.a && m.ls, "IDAS: dense matrix or linear solver creation failed");
    m.check(IDASetLinearSolver(m.mem, m.ls, m.a), "IDASetLinearSolver");
    if (m.sys.residual_dual) m.check(IDASetJacFn(m.mem, Impl::jac), "IDASetJacFn");
    if (m.sys.n_roots > 0) m.check(IDARootInit(m.mem, m.sys.n_roots, Impl::root), "IDARootInit");
    m.check(IDASetMaxNumSteps(m.mem, m.o.max_steps), "IDASetMaxNumSteps");
    m.started = true;
  } else {
    m.check(IDAReInit(m.mem, t0, m.y, m.yp), "IDAReInit");
  }
  m.t = t0;
}

double Idas::advance(double tout, std::vector<double>& y, std::vector<int>* roots) {
  Impl& m = *impl_;
  CAMBER_REQUIRE(m.started, "Idas::advance before reset()");
  CAMBER_INPUT_REQUIRE(std::isfinite(tout), "dae: output time " << tout);
  m.clear();
  double t = m.t;
  const int flag = IDASolve(m.mem, tout, &t, m.y, m.yp, IDA_NORMAL);
  m.rethrow();
  CAMBER_REQUIRE(flag >= 0, "IDAS failed at t = " << t << " (integrating from " << m.t << " to " << tout
                                                 << "): " << detail::take_name(IDAGetReturnFlagName(flag))
                                                 << m.detail());
  m.t = t;
  const int n = m.sys.n;
  y.assign(N_VGetArrayPointer(m.y), N_VGetArrayPointer(m.y) + n);
  if (roots != nullptr) {
    roots->clear();
    if (flag == IDA_ROOT_RETURN) {
      roots->resize(static_cast<size_t>(m.sys.n_roots));
      m.check(IDAGetRootInfo(m.mem, roots->data()), "IDAGetRootInfo");
    }
  }
  return t;
}

namespace {

OdeStats ida_stats(void* mem) {
  OdeStats s;
  IDAGetNumSteps(mem, &s.steps);
  IDAGetNumResEvals(mem, &s.rhs_evals);
  IDAGetNumJacEvals(mem, &s.jac_evals);
  IDAGetNumLinSolvSetups(mem, &s.lin_setups);
  IDAGetNumErrTestFails(mem, &s.error_test_fails);
  IDAGetNumNonlinSolvIters(mem, &s.nonlin_iters);
  IDAGetNumNonlinSolvConvFails(mem, &s.nonlin_fails);
  IDAGetNumGEvals(mem, &s.root_evals);
  IDAGetLastOrder(mem, &s.last_order);
  IDAGetLastStep(mem, &s.last_step);
  return s;
}

}  // namespace

OdeStats Idas::stats() const {
  const Impl& m = *impl_;
  return m.started ? ida_stats(m.mem) : OdeStats{};
}

namespace {

// The callbacks of the adjoint run (forward and backward user data).
struct DaeRun : detail::CallbackGuard {
  const DaeSystem* sys = nullptr;
  const OdeIntegrand* g = nullptr;
  static DaeRun& of(void* d) { return *static_cast<DaeRun*>(d); }
  int n() const { return sys->n; }

  static int res(sunrealtype t, N_Vector y, N_Vector yp, N_Vector r, void* d) {
    DaeRun& m = of(d);
    return m.guard([&] {
      m.sys->residual(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), m.sys->p.data(), N_VGetArrayPointer(r));
    });
  }
  static int jac(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix j, void* d,
                 N_Vector, N_Vector, N_Vector) {
    DaeRun& m = of(d);
    return m.guard([&] {
      for (int c = 0; c < m.n(); ++c) {
        const auto col = residual_column(*m.sys, t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), c, 1.0, cj);
        for (int i = 0; i < m.n(); ++i) SM_ELEMENT_D(j, i, c) = col[static_cast<size_t>(i)];
      }
    });
  }
  static int quad(sunrealtype t, N_Vector y, N_Vector, N_Vector q, void* d) {
    DaeRun& m = of(d);
    return m.guard([&] { NV_Ith_S(q, 0) = m.g->g(t, N_VGetArrayPointer(y), m.sys->p.data()); });
  }
  // dg/dy_k (k < n) or dg/dp_(k - n), by one Dual evaluation.
  double dg(double t, const double* y, int k) const {
    std::vector<OdeDual> yd(y, y + n()), pd(sys->p.begin(), sys->p.end());
    (k < n() ? yd[static_cast<size_t>(k)] : pd[static_cast<size_t>(k - n())]).der(0) = 1.0;
    return g->g_dual(t, yd.data(), pd.data()).der(0);
  }
  // (dF/dy')^T lambda' - (dF/dy)^T lambda + (dg/dy)^T
  static int res_b(sunrealtype t, N_Vector y, N_Vector yp, N_Vector yb, N_Vector ypb, N_Vector rb, void* d) {
    DaeRun& m = of(d);
    return m.guard([&] {
      const double *yv = N_VGetArrayPointer(y), *ypv = N_VGetArrayPointer(yp);
      const double *l = N_VGetArrayPointer(yb), *lp = N_VGetArrayPointer(ypb);
      for (int k = 0; k < m.n(); ++k) {
        const auto fy = residual_column(*m.sys, t, yv, ypv, k, 1.0, 0.0);
        const auto fyp = residual_column(*m.sys, t, yv, ypv, k, 0.0, 1.0);
        double r = m.dg(t, yv, k);
        for (int i = 0; i < m.n(); ++i) r += fyp[static_cast<size_t>(i)] * lp[i] - fy[static_cast<size_t>(i)] * l[i];
        NV_Ith_S(rb, k) = r;
      }
    });
  }
  // d res_b / d lambda + cj d res_b / d lambda' = -(dF/dy)^T + cj (dF/dy')^T
  static int jac_b(sunrealtype t, sunrealtype cj, N_Vector y, N_Vector yp, N_Vector, N_Vector, N_Vector,
                   SUNMatrix jb, void* d, N_Vector, N_Vector, N_Vector) {
    DaeRun& m = of(d);
    return m.guard([&] {
      for (int k = 0; k < m.n(); ++k) {
        const auto col = residual_column(*m.sys, t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), k, -1.0, cj);
        for (int i = 0; i < m.n(); ++i) SM_ELEMENT_D(jb, k, i) = col[static_cast<size_t>(i)];
      }
    });
  }
  // (dg/dp)^T - (dF/dp)^T lambda, integrated backward (dG/dp = -qB(t0)).
  static int quad_b(sunrealtype t, N_Vector y, N_Vector yp, N_Vector yb, N_Vector, N_Vector qb, void* d) {
    DaeRun& m = of(d);
    return m.guard([&] {
      const double *yv = N_VGetArrayPointer(y), *ypv = N_VGetArrayPointer(yp), *l = N_VGetArrayPointer(yb);
      for (int j = 0; j < static_cast<int>(m.sys->p.size()); ++j) {
        const auto fp = residual_column(*m.sys, t, yv, ypv, m.n() + j, 1.0, 0.0);
        double q = m.dg(t, yv, m.n() + j);
        for (int i = 0; i < m.n(); ++i) q -= fp[static_cast<size_t>(i)] * l[i];
        NV_Ith_S(qb, j) = q;
      }
    });
  }
  static void on_error(int, const char*, const char* function, char* msg, void* d) { of(d).record(function, msg); }
  void check(int flag, const char* call, double t = NAN) const {
    rethrow();
    if (flag >= 0) return;
    const std::string at = std::isnan(t) ? std::string() : " at t = " + std::to_string(t);
    CAMBER_REQUIRE(false, "IDAS: " << call << " failed" << at << ": " << detail::take_name(IDAGetReturnFlagName(flag)) << detail());
  }
};

struct IdaMemoryDeleter {
  void operator()(void* m) const { IDAFree(&m); }
};

}  // namespace

std::vector<DaeIntegralGradient> dae_integral_gradients(const DaeSystem& sys, const OdeIntegrand& g,
                                                        const IdasOptions& o, double t0,
                                                        const std::vector<double>& y0,
                                                        const std::vector<double>& yp0,
                                                        const std::vector<double>& t_ends,
                                                        const AdjointOptions& a, OdeStats* forward_stats) {
  const int n = sys.n, np = static_cast<int>(sys.p.size());
  CAMBER_INPUT_REQUIRE(n > 0 && sys.residual && sys.residual_dual,
                       "dae adjoint: the system needs n > 0 and its residual on Duals");
  CAMBER_INPUT_REQUIRE(static_cast<int>(y0.size()) == n && static_cast<int>(yp0.size()) == n,
                       "dae adjoint: y0 and yp0 need " << n << " values each");
  CAMBER_INPUT_REQUIRE(g.g && g.g_dual, "dae adjoint: the integrand needs g on double and on Duals");
  CAMBER_INPUT_REQUIRE(o.rtol > 0.0 && (o.atol.size() == 1 || static_cast<int>(o.atol.size()) == n),
                       "dae adjoint: rtol must be > 0 and atol have 1 or " << n << " values");
  CAMBER_INPUT_REQUIRE(!t_ends.empty(), "dae adjoint: no end time");
  for (double te : t_ends)
    CAMBER_INPUT_REQUIRE(std::isfinite(te) && te > t0, "dae adjoint: end time " << te << " not after t0 = " << t0);
  CAMBER_INPUT_REQUIRE(a.rtol > 0.0 && a.atol >= 0.0 && a.quad_rtol > 0.0 && a.quad_atol >= 0.0 &&
                           a.checkpoint_steps > 0,
                       "dae adjoint: tolerances must be positive and checkpoint_steps > 0");

  DaeRun run;
  run.sys = &sys;
  run.g = &g;
  detail::Context ctx = detail::make_context("IDAS");
  SUNContext raw = ctx.get();
  const auto vec = [&](int len) {
    detail::Vec v = detail::make_vector(std::max(len, 1), raw, "IDAS");
    N_VConst(0.0, v.get());
    return v;
  };
  detail::Vec y = vec(n), yp = vec(n), q = vec(1), yb = vec(n), ypb = vec(n), qb = vec(np), id = vec(n);
  detail::Vec atol = detail::absolute_tolerances(o.atol, n, raw, "IDAS");
  for (int i = 0; i < n; ++i) {
    NV_Ith_S(y.get(), i) = y0[static_cast<size_t>(i)];
    NV_Ith_S(yp.get(), i) = yp0[static_cast<size_t>(i)];
  }
  std::unique_ptr<void, IdaMemoryDeleter> mem(IDACreate(raw));
  CAMBER_REQUIRE(mem != nullptr, "IDAS: IDACreate failed");
  void* ida = mem.get();
  detail::Matrix A(SUNDenseMatrix(n, n, raw)), AB(SUNDenseMatrix(n, n, raw));
  detail::Solver LS(SUNLinSol_Dense(y.get(), A.get(), raw)), LSB(SUNLinSol_Dense(yb.get(), AB.get(), raw));
  CAMBER_REQUIRE(A && AB && LS && LSB, "IDAS: dense matrix or linear solver creation failed");
  run.check(IDASetErrHandlerFn(ida, DaeRun::on_error, &run), "IDASetErrHandlerFn");
  run.check(IDAInit(ida, DaeRun::res, t0, y.get(), yp.get()), "IDAInit");
  run.check(IDASVtolerances(ida, o.rtol, atol.get()), "IDASVtolerances");
  run.check(IDASetUserData(ida, &run), "IDASetUserData");
  run.check(IDASetLinearSolver(ida, LS.get(), A.get()), "IDASetLinearSolver");
  run.check(IDASetJacFn(ida, DaeRun::jac), "IDASetJacFn");
  run.check(IDAQuadInit(ida, DaeRun::quad, q.get()), "IDAQuadInit");
  run.check(IDAQuadSStolerances(ida, a.quad_rtol, a.quad_atol), "IDAQuadSStolerances");
  run.check(IDASetQuadErrCon(ida, SUNTRUE), "IDASetQuadErrCon");
  run.check(IDASetMaxNumSteps(ida, o.max_steps), "IDASetMaxNumSteps");
  run.check(IDAAdjInit(ida, a.checkpoint_steps, IDA_HERMITE), "IDAAdjInit");

  // Forward to each end time in turn, keeping y and y' there.
  std::vector<double> ends = t_ends;
  std::sort(ends.begin(), ends.end());
  std::vector<DaeIntegralGradient> out(ends.size());
  std::vector<std::vector<double>> y_end(ends.size()), yp_end(ends.size());
  double t = t0;
  int ncheck = 0;
  for (size_t k = 0; k < ends.size(); ++k) {
    run.check(IDASolveF(ida, ends[k], &t, y.get(), yp.get(), IDA_NORMAL, &ncheck), "IDASolveF", t);
    double tq = t;
    run.check(IDAGetQuad(ida, &tq, q.get()), "IDAGetQuad", t);
    out[k].t_end = ends[k];
    out[k].value = NV_Ith_S(q.get(), 0);
    y_end[k].assign(N_VGetArrayPointer(y.get()), N_VGetArrayPointer(y.get()) + n);
    yp_end[k].assign(N_VGetArrayPointer(yp.get()), N_VGetArrayPointer(yp.get()) + n);
  }
  if (forward_stats != nullptr) *forward_stats = ida_stats(ida);

  // lambda_i is differential where equation i has a y' term.
  for (int i = 0; i < n; ++i) NV_Ith_S(id.get(), i) = 0.0;
  for (int c = 0; c < n; ++c) {
    const auto col = residual_column(sys, t0, y0.data(), yp0.data(), c, 0.0, 1.0);
    for (int i = 0; i < n; ++i)
      if (col[static_cast<size_t>(i)] != 0.0) NV_Ith_S(id.get(), i) = 1.0;
  }

  // Backward, the last end time first.
  int which = -1;
  for (size_t k = ends.size(); k-- > 0;) {
    N_VConst(0.0, yb.get());
    N_VConst(0.0, ypb.get());
    N_VConst(0.0, qb.get());
    if (which < 0) {
      run.check(IDACreateB(ida, &which), "IDACreateB");
      run.check(IDAInitB(ida, which, DaeRun::res_b, ends[k], yb.get(), ypb.get()), "IDAInitB");
      run.check(IDASStolerancesB(ida, which, a.rtol, a.atol), "IDASStolerancesB");
      run.check(IDASetUserDataB(ida, which, &run), "IDASetUserDataB");
      run.check(IDASetMaxNumStepsB(ida, which, o.max_steps), "IDASetMaxNumStepsB");
      run.check(IDASetLinearSolverB(ida, which, LSB.get(), AB.get()), "IDASetLinearSolverB");
      run.check(IDASetJacFnB(ida, which, DaeRun::jac_b), "IDASetJacFnB");
      if (np > 0) {
        run.check(IDAQuadInitB(ida, which, DaeRun::quad_b, qb.get()), "IDAQuadInitB");
        run.check(IDAQuadSStolerancesB(ida, which, a.quad_rtol, a.quad_atol), "IDAQuadSStolerancesB");
        run.check(IDASetQuadErrConB(ida, which, SUNTRUE), "IDASetQuadErrConB");
      }
    } else {
      run.check(IDAReInitB(ida, which, ends[k], yb.get(), ypb.get()), "IDAReInitB");
      if (np > 0) run.check(IDAQuadReInitB(ida, which, qb.get()), "IDAQuadReInitB");
    }
    run.check(IDASetIdB(ida, which, id.get()), "IDASetIdB");
    detail::Vec ye = vec(n), ype = vec(n);
    std::copy(y_end[k].begin(), y_end[k].end(), N_VGetArrayPointer(ye.get()));
    std::copy(yp_end[k].begin(), yp_end[k].end(), N_VGetArrayPointer(ype.get()));
    const double first_out = ends[k] - 0.02 * (ends[k] - t0);
    run.check(IDACalcICB(ida, which, first_out, ye.get(), ype.get()), "IDACalcICB", ends[k]);
    run.check(IDASolveB(ida, t0, IDA_NORMAL), "IDASolveB", ends[k]);
    double tb = t0;
    run.check(IDAGetB(ida, which, &tb, yb.get(), ypb.get()), "IDAGetB", tb);
    DaeIntegralGradient& r = out[k];
    r.lambda0.assign(N_VGetArrayPointer(yb.get()), N_VGetArrayPointer(yb.get()) + n);
    if (np > 0) {
      run.check(IDAGetQuadB(ida, which, &tb, qb.get()), "IDAGetQuadB", tb);
      for (int j = 0; j < np; ++j) r.d_dp.push_back(-NV_Ith_S(qb.get(), j));
    }
    r.backward = ida_stats(IDAGetAdjIDABmem(ida, which));
  }
  return out;
}

}  // namespace camber::solvers::ode
