#include <camber/solvers/ode/cvodes.hpp>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <exception>
#include <sstream>
#include <string>

#include <camber/error.hpp>

namespace camber::solvers {

namespace {

// SUNDIALS objects, each released by its own destroy function.
struct ContextDeleter {
  void operator()(SUNContext c) const { SUNContext_Free(&c); }
};
struct VectorDeleter {
  void operator()(N_Vector v) const { N_VDestroy(v); }
};
struct MatrixDeleter {
  void operator()(SUNMatrix m) const { SUNMatDestroy(m); }
};
struct SolverDeleter {
  void operator()(SUNLinearSolver s) const { SUNLinSolFree(s); }
};
struct MemoryDeleter {
  void operator()(void* m) const { CVodeFree(&m); }
};

}  // namespace

struct Cvodes::Impl {
  OdeSystem sys;
  CvodesOptions o;
  std::unique_ptr<std::remove_pointer_t<SUNContext>, ContextDeleter> ctx;
  std::unique_ptr<std::remove_pointer_t<N_Vector>, VectorDeleter> y, atol;
  std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixDeleter> a;
  std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, SolverDeleter> ls;
  std::unique_ptr<void, MemoryDeleter> mem;
  std::exception_ptr error;  // thrown by a callback, rethrown after CVode returns
  std::string message;       // CVODES' last error message
  double t = 0.0;
  bool started = false;

  // The callbacks: C functions that never let an exception through.
  static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
    auto* self = static_cast<Impl*>(data);
    try {
      self->sys.rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
      return 0;
    } catch (...) {
      self->error = std::current_exception();
      return -1;  // unrecoverable
    }
  }
  static int jac(sunrealtype t, N_Vector y, N_Vector, SUNMatrix j, void* data, N_Vector, N_Vector,
                 N_Vector) {
    auto* self = static_cast<Impl*>(data);
    try {
      const int n = self->sys.n;
      const double* yv = N_VGetArrayPointer(y);
      std::vector<OdeDual> yd(static_cast<size_t>(n)), fd(static_cast<size_t>(n));
      for (int c = 0; c < n; ++c) {  // column c: seed y_c
        for (int i = 0; i < n; ++i) yd[static_cast<size_t>(i)] = OdeDual(yv[i]);
        yd[static_cast<size_t>(c)].der(0) = 1.0;
        self->sys.rhs_dual(t, yd.data(), fd.data());
        for (int i = 0; i < n; ++i) SM_ELEMENT_D(j, i, c) = fd[static_cast<size_t>(i)].der(0);
      }
      return 0;
    } catch (...) {
      self->error = std::current_exception();
      return -1;
    }
  }
  static int root(sunrealtype t, N_Vector y, sunrealtype* g, void* data) {
    auto* self = static_cast<Impl*>(data);
    try {
      self->sys.roots(t, N_VGetArrayPointer(y), g);
      return 0;
    } catch (...) {
      self->error = std::current_exception();
      return -1;
    }
  }
  static void on_error(int, const char*, const char* function, char* msg, void* data) {
    static_cast<Impl*>(data)->message = std::string(function) + ": " + msg;
  }

  // A CVODES call that must succeed (set-up): otherwise an error naming it.
  void check(int flag, const char* call) const {
    CAMBER_REQUIRE(flag >= 0, "CVODES: " << call << " failed with " << CVodeGetReturnFlagName(flag)
                                         << (message.empty() ? "" : ": " + message));
  }
};

Cvodes::Cvodes(OdeSystem system, CvodesOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.sys = std::move(system);
  m.o = std::move(options);
  const int n = m.sys.n;
  CAMBER_INPUT_REQUIRE(n > 0 && m.sys.rhs, "ode: a system needs n > 0 equations and a right-hand side");
  CAMBER_INPUT_REQUIRE(m.sys.n_roots == 0 || m.sys.roots, "ode: n_roots > 0 needs root functions");
  CAMBER_INPUT_REQUIRE(std::isfinite(m.o.rtol) && m.o.rtol > 0.0,
                       "ode: rtol must be positive, got " << m.o.rtol);
  CAMBER_INPUT_REQUIRE(m.o.atol.size() == 1 || static_cast<int>(m.o.atol.size()) == n,
                       "ode: atol needs 1 or " << n << " values, got " << m.o.atol.size());
  for (double a : m.o.atol)
    CAMBER_INPUT_REQUIRE(std::isfinite(a) && a >= 0.0, "ode: atol values must be >= 0, got " << a);
  CAMBER_INPUT_REQUIRE(m.o.max_steps > 0, "ode: max_steps must be positive, got " << m.o.max_steps);
  CAMBER_INPUT_REQUIRE(m.o.max_step >= 0.0 && m.o.initial_step >= 0.0,
                       "ode: max_step and initial_step must be >= 0");

  SUNContext ctx = nullptr;
  CAMBER_REQUIRE(SUNContext_Create(nullptr, &ctx) == 0, "CVODES: SUNContext_Create failed");
  m.ctx.reset(ctx);
  m.y.reset(N_VNew_Serial(n, ctx));
  m.atol.reset(N_VNew_Serial(n, ctx));
  CAMBER_REQUIRE(m.y && m.atol, "CVODES: N_VNew_Serial failed");
  for (int i = 0; i < n; ++i)
    NV_Ith_S(m.atol.get(), i) = m.o.atol.size() == 1 ? m.o.atol[0] : m.o.atol[static_cast<size_t>(i)];
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
  m.error = nullptr;
  m.message.clear();
  double t = m.t;
  const int flag = CVode(m.mem.get(), tout, m.y.get(), &t, CV_NORMAL);
  if (m.error) std::rethrow_exception(m.error);
  CAMBER_REQUIRE(flag >= 0, "CVODES failed at t = " << t << " (integrating from " << m.t << " to "
                                                   << tout << "): " << CVodeGetReturnFlagName(flag)
                                                   << (m.message.empty() ? "" : ": " + m.message));
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
  OdeStats s;
  if (!m.started) return s;
  void* mem = m.mem.get();
  CVodeGetNumSteps(mem, &s.steps);
  CVodeGetNumRhsEvals(mem, &s.rhs_evals);
  CVodeGetNumJacEvals(mem, &s.jac_evals);
  CVodeGetNumLinSolvSetups(mem, &s.lin_setups);
  CVodeGetNumErrTestFails(mem, &s.error_test_fails);
  CVodeGetNumNonlinSolvIters(mem, &s.nonlin_iters);
  CVodeGetNumNonlinSolvConvFails(mem, &s.nonlin_fails);
  CVodeGetNumGEvals(mem, &s.root_evals);
  CVodeGetLastOrder(mem, &s.last_order);
  CVodeGetLastStep(mem, &s.last_step);
  return s;
}

const OdeSystem& Cvodes::system() const { return impl_->sys; }

}  // namespace camber::solvers
