#include <camber/solvers/ode/idas.hpp>

#include <idas/idas.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <exception>
#include <string>

#include <camber/error.hpp>

#include "detail/callback_guard.hpp"

namespace camber::solvers {

struct Idas::Impl : detail::CallbackGuard {
  DaeSystem sys;
  IdasOptions o;
  SUNContext ctx = nullptr;
  N_Vector y = nullptr, yp = nullptr, atol = nullptr;
  SUNMatrix a = nullptr;
  SUNLinearSolver ls = nullptr;
  void* mem = nullptr;
  double t = 0.0;
  bool started = false;

  ~Impl() {
    if (mem != nullptr) IDAFree(&mem);
    if (ls != nullptr) SUNLinSolFree(ls);
    if (a != nullptr) SUNMatDestroy(a);
    for (N_Vector v : {y, yp, atol})
      if (v != nullptr) N_VDestroy(v);
    if (ctx != nullptr) SUNContext_Free(&ctx);
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
      const double* yv = N_VGetArrayPointer(y);
      const double* ypv = N_VGetArrayPointer(yp);
      std::vector<OdeDual> yd(static_cast<size_t>(n)), ypd(static_cast<size_t>(n)), rd(static_cast<size_t>(n));
      std::vector<OdeDual> pd(m.sys.p.begin(), m.sys.p.end());
      for (int c = 0; c < n; ++c) {
        for (int i = 0; i < n; ++i) {
          yd[static_cast<size_t>(i)] = OdeDual(yv[i]);
          ypd[static_cast<size_t>(i)] = OdeDual(ypv[i]);
        }
        yd[static_cast<size_t>(c)].der(0) = 1.0;
        ypd[static_cast<size_t>(c)].der(0) = cj;
        m.sys.residual_dual(t, yd.data(), ypd.data(), pd.data(), rd.data());
        for (int i = 0; i < n; ++i) SM_ELEMENT_D(j, i, c) = rd[static_cast<size_t>(i)].der(0);
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
    CAMBER_REQUIRE(false, "IDAS: " << call << " failed with " << IDAGetReturnFlagName(flag) << detail());
  }
};

Idas::Idas(DaeSystem system, IdasOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.sys = std::move(system);
  m.o = std::move(options);
  const int n = m.sys.n;
  CAMBER_INPUT_REQUIRE(n > 0 && m.sys.residual, "dae: a system needs n > 0 equations and a residual");
  CAMBER_INPUT_REQUIRE(m.sys.n_roots == 0 || m.sys.roots, "dae: n_roots > 0 needs root functions");
  CAMBER_INPUT_REQUIRE(std::isfinite(m.o.rtol) && m.o.rtol > 0.0, "dae: rtol must be positive, got " << m.o.rtol);
  CAMBER_INPUT_REQUIRE(m.o.atol.size() == 1 || static_cast<int>(m.o.atol.size()) == n,
                       "dae: atol needs 1 or " << n << " values, got " << m.o.atol.size());
  for (double v : m.o.atol) CAMBER_INPUT_REQUIRE(std::isfinite(v) && v >= 0.0, "dae: atol values must be >= 0");
  CAMBER_INPUT_REQUIRE(m.o.max_steps > 0, "dae: max_steps must be positive");
  CAMBER_REQUIRE(SUNContext_Create(nullptr, &m.ctx) == 0, "IDAS: SUNContext_Create failed");
  m.y = N_VNew_Serial(n, m.ctx);
  m.yp = N_VNew_Serial(n, m.ctx);
  m.atol = N_VNew_Serial(n, m.ctx);
  CAMBER_REQUIRE(m.y && m.yp && m.atol, "IDAS: N_VNew_Serial failed");
  for (int i = 0; i < n; ++i)
    NV_Ith_S(m.atol, i) = m.o.atol.size() == 1 ? m.o.atol[0] : m.o.atol[static_cast<size_t>(i)];
  m.mem = IDACreate(m.ctx);
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
    m.check(IDASVtolerances(m.mem, m.o.rtol, m.atol), "IDASVtolerances");
    m.a = SUNDenseMatrix(n, n, m.ctx);
    m.ls = SUNLinSol_Dense(m.y, m.a, m.ctx);
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
                                                 << "): " << IDAGetReturnFlagName(flag)
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

OdeStats Idas::stats() const {
  const Impl& m = *impl_;
  OdeStats s;
  if (!m.started) return s;
  IDAGetNumSteps(m.mem, &s.steps);
  IDAGetNumResEvals(m.mem, &s.rhs_evals);
  IDAGetNumJacEvals(m.mem, &s.jac_evals);
  IDAGetNumLinSolvSetups(m.mem, &s.lin_setups);
  IDAGetNumErrTestFails(m.mem, &s.error_test_fails);
  IDAGetNumNonlinSolvIters(m.mem, &s.nonlin_iters);
  IDAGetNumNonlinSolvConvFails(m.mem, &s.nonlin_fails);
  IDAGetNumGEvals(m.mem, &s.root_evals);
  IDAGetLastOrder(m.mem, &s.last_order);
  IDAGetLastStep(m.mem, &s.last_step);
  return s;
}

}  // namespace camber::solvers
