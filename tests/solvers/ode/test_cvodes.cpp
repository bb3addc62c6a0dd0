// CVODES through camber::solvers::ode::Cvodes: exact solutions (y' = -k y, and
// a rotation with Adams), the Robertson problem against SUNDIALS' example
// cvsRoberts_dns (the same tolerances, root functions and output times; its
// printed output, installed by Debian's libsundials-dev, is read here and
// every printed value and root must match to its printed precision), the
// AD Jacobian against the one written by hand, and failures as errors.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/solvers/ode/arkode.hpp>
#include <camber/solvers/ode/cvodes.hpp>
#include <camber/solvers/ode/idas.hpp>
#include <camber/solvers/ode/ode_op.hpp>

#include "tests/common/central_difference.hpp"

// The path of one of SUNDIALS' installed example files, declared as
// `path`; without the file the test is skipped, or fails under CI.
#define CAMBER_SUNDIALS_EXAMPLE(path, relative)                                              \
  const std::string path = std::string(CAMBER_SUNDIALS_EXAMPLES) + (relative);             \
  if (!std::ifstream(path)) {                                                               \
    if (std::getenv("CI")) FAIL() << "missing " << path << " (Debian's libsundials-dev)";  \
    GTEST_SKIP() << "missing " << path;                                                     \
  }                                                                                         \
  static_assert(true, "")

namespace {

namespace solvers = camber::solvers;

TEST(Cvodes, ExponentialDecayMatchesTheExactSolution) {
  const double k = 3.0;
  solvers::ode::CvodesOptions o;
  o.rtol = 1e-10;
  o.atol = {1e-14};
  solvers::ode::Cvodes cv(solvers::ode::make_ode_system(1, [k](double, const auto* y, auto* ydot) {
                       ydot[0] = -k * y[0];
                     }), o);
  cv.reset(0.0, {2.0});
  std::vector<double> y;
  for (double t : {0.1, 0.5, 1.0, 2.0}) {
    EXPECT_EQ(cv.advance(t, y), t);
    // Global error within a few hundred tolerances of the exact value.
    EXPECT_NEAR(y[0], 2.0 * std::exp(-k * t), 1e-8 * 2.0 * std::exp(-k * t)) << t;
  }
  EXPECT_GT(cv.stats().steps, 10);
  EXPECT_GT(cv.stats().jac_evals, 0);  // BDF with the AD Jacobian
}

TEST(Cvodes, AdamsOnARotationKeepsTheRadius) {
  solvers::ode::CvodesOptions o;
  o.method = solvers::ode::OdeMethod::adams;
  o.rtol = 1e-10;
  o.atol = {1e-12};
  o.max_steps = 5000;
  solvers::ode::Cvodes cv(solvers::ode::make_ode_system(2, [](double, const auto* y, auto* ydot) {
                       ydot[0] = -y[1];
                       ydot[1] = y[0];
                     }), o);
  cv.reset(0.0, {1.0, 0.0});
  std::vector<double> y;
  cv.advance(2.0 * M_PI, y);
  EXPECT_NEAR(y[0], 1.0, 1e-7);
  EXPECT_NEAR(y[1], 0.0, 1e-7);
}

// Robertson, written as in cvsRoberts_dns.c (same operation order).
const auto robertson = [](double, const auto* y, auto* ydot) {
  ydot[0] = -0.04 * y[0] + 1.0e4 * y[1] * y[2];
  ydot[2] = 3.0e7 * y[1] * y[1];
  ydot[1] = -ydot[0] - ydot[2];
};

TEST(Cvodes, AdJacobianEqualsTheHandWrittenOne) {
  // cvsRoberts_dns.c's Jac at a point, against the Dual evaluation.
  const double y[3] = {0.7, 3e-5, 0.2};
  const double want[3][3] = {{-0.04, 1.0e4 * y[2], 1.0e4 * y[1]},
                             {0.04, -1.0e4 * y[2] - 6.0e7 * y[1], -1.0e4 * y[1]},
                             {0.0, 6.0e7 * y[1], 0.0}};
  const solvers::ode::OdeSystem s = solvers::ode::make_ode_system(3, robertson);
  for (int c = 0; c < 3; ++c) {
    solvers::ode::OdeDual yd[3] = {y[0], y[1], y[2]}, fd[3];
    yd[c].der(0) = 1.0;
    s.rhs_dual(0.0, yd, nullptr, fd);
    for (int i = 0; i < 3; ++i) EXPECT_DOUBLE_EQ(fd[i].der(0), want[i][c]) << i << "," << c;
  }
}

struct Printed {
  double t;
  double y[3];
  std::vector<int> roots;  // empty unless a root line followed
};

TEST(Cvodes, RobertsonMatchesSundialsOwnExampleOutput) {
  CAMBER_SUNDIALS_EXAMPLE(path, "/cvodes/serial/cvsRoberts_dns.out");
  std::ifstream in(path);
  std::vector<Printed> ref;
  long ref_steps = -1;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string w;
    s >> w;
    if (w == "At") {
      Printed p{};
      std::string eq, ylabel;
      s >> w >> eq >> p.t >> ylabel >> eq >> p.y[0] >> p.y[1] >> p.y[2];  // "t = T y = a b c"
      ref.push_back(p);
    } else if (w == "rootsfound[]") {
      s >> w;
      int a = 0, b = 0;
      s >> a >> b;
      ref.back().roots = {a, b};
    } else if (line.rfind("Steps ", 0) == 0) {
      ref_steps = std::stol(line.substr(line.find('=') + 1));
    }
  }
  ASSERT_EQ(ref.size(), 14u) << "unexpected format of " << path;

  // The example's set-up: BDF, rtol 1e-4, atol (1e-8, 1e-14, 1e-6), roots
  // y1 - 1e-4 and y3 - 0.01, outputs at 0.4 x 10^k.
  solvers::ode::CvodesOptions o;
  o.rtol = 1.0e-4;
  o.atol = {1.0e-8, 1.0e-14, 1.0e-6};
  solvers::ode::OdeSystem sys = solvers::ode::make_ode_system(3, robertson);
  sys.n_roots = 2;
  sys.roots = [](double, const double* y, double* g) {
    g[0] = y[0] - 0.0001;
    g[1] = y[2] - 0.01;
  };
  solvers::ode::Cvodes cv(sys, o);
  cv.reset(0.0, {1.0, 0.0, 0.0});
  std::vector<double> y;
  std::vector<int> roots;
  double tout = 0.4;
  size_t k = 0;
  while (k < ref.size()) {
    const double t = cv.advance(tout, y, &roots);
    const Printed& p = ref[k];
    // Printed as %0.4e and %14.6e: agree to that rounding.
    EXPECT_NEAR(t, p.t, 0.51e-4 * std::abs(p.t)) << "output " << k;
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(y[static_cast<size_t>(i)], p.y[i], 0.51e-6 * std::abs(p.y[i])) << "output " << k << " y" << i + 1;
    EXPECT_EQ(roots, p.roots) << "output " << k;
    if (roots.empty()) tout *= 10.0;
    ++k;
  }
  // The same steps: the wrapper adds no work.
  EXPECT_EQ(cv.stats().steps, ref_steps);
}

// Reads the numbers after `label` on each line that starts with it.
std::vector<std::vector<double>> printed(const std::string& path, const std::string& label) {
  std::ifstream in(path);
  std::vector<std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(label, 0) == 0) {
      std::istringstream s(line.substr(label.size()));
      std::vector<double> v;
      double x = 0.0;
      while (s >> x) v.push_back(x);
      rows.push_back(v);
    }
  return rows;
}

const auto robertson_p = [](double, const auto* y, const auto* p, auto* ydot) {
  ydot[0] = -p[0] * y[0] + p[1] * y[1] * y[2];
  ydot[2] = p[2] * y[1] * y[1];
  ydot[1] = -ydot[0] - ydot[2];
};

TEST(Cvodes, RobertsonAdjointMatchesSundialsOwnExampleOutput) {
  // cvsRoberts_ASAi_dns: G = integral of y3 from 0 to tB, dG/dp and
  // lambda(0) = dG/dy0 for tB = 4e7 and tB = 50, from one forward run.
  CAMBER_SUNDIALS_EXAMPLE(path, "/cvodes/serial/cvsRoberts_ASAi_dns.out");
  const auto g_ref = printed(path, "G:");
  const auto dp_ref = printed(path, "dG/dp:");
  const auto l0_ref = printed(path, "lambda(t0):");
  ASSERT_EQ(g_ref.size(), 1u);
  ASSERT_EQ(dp_ref.size(), 2u);
  ASSERT_EQ(l0_ref.size(), 2u);

  // The example's tolerances: forward rtol 1e-6, atol (1e-8, 1e-14, 1e-6),
  // 2500 steps; quadratures 1e-6/1e-6; adjoint 1e-6/1e-8; checkpoints every
  // 150 steps (AdjointOptions' defaults are these).
  solvers::ode::CvodesOptions o;
  o.rtol = 1e-6;
  o.atol = {1e-8, 1e-14, 1e-6};
  o.max_steps = 2500;
  const solvers::ode::OdeSystem sys = solvers::ode::make_ode_system(3, {0.04, 1.0e4, 3.0e7}, robertson_p);
  const solvers::ode::OdeIntegrand g =
      solvers::ode::make_integrand([](double, const auto* y, const auto*) { return y[2]; });
  solvers::ode::OdeStats fwd;
  const std::vector<solvers::ode::IntegralGradient> r =
      solvers::ode::integral_gradients(sys, g, o, 0.0, {1.0, 0.0, 0.0}, {50.0, 4.0e7}, {}, &fwd);
  ASSERT_EQ(r.size(), 2u);
  // Printed with 5 significant digits: agree to 1e-4 relative, or within
  // 1e-7 absolute (a tenth of the quadratures' absolute tolerance): the
  // example's backward runs stop at t = 40 on the way to 0, which changes
  // CVODES' first backward step, and dG/dp3 = 5.1144e-4 at tB = 4e7 moves
  // by 7e-8 (1.3e-4 relative) with it.
  auto near = [](double a, double b) { return std::abs(a - b) <= 1e-4 * std::abs(b) + 1e-7; };
  EXPECT_PRED2(near, r[1].value, g_ref[0][0]);
  for (int k = 0; k < 3; ++k) {
    // The output lists tB = 4e7 first, then tB = 50.
    EXPECT_PRED2(near, r[1].d_dp[static_cast<size_t>(k)], dp_ref[0][static_cast<size_t>(k)]) << "tB 4e7, p" << k + 1;
    EXPECT_PRED2(near, r[0].d_dp[static_cast<size_t>(k)], dp_ref[1][static_cast<size_t>(k)]) << "tB 50, p" << k + 1;
    EXPECT_PRED2(near, r[1].d_dy0[static_cast<size_t>(k)], l0_ref[0][static_cast<size_t>(k)]) << "tB 4e7, y0 " << k + 1;
    EXPECT_PRED2(near, r[0].d_dy0[static_cast<size_t>(k)], l0_ref[1][static_cast<size_t>(k)]) << "tB 50, y0 " << k + 1;
  }
  std::printf("Robertson adjoint: G %.6e, dG/dp %.6e %.6e %.6e (forward %ld steps, backward %ld)\n",
              r[1].value, r[1].d_dp[0], r[1].d_dp[1], r[1].d_dp[2], fwd.steps, r[1].backward.steps);
}

// Adjoint and quadrature tolerances, all the same relative and absolute.
solvers::ode::AdjointOptions adjoint_tolerances(double rtol, double atol) {
  solvers::ode::AdjointOptions a;
  a.rtol = a.quad_rtol = rtol;
  a.atol = a.quad_atol = atol;
  return a;
}

TEST(Cvodes, AdjointGradientMatchesCentralDifferences) {
  // y' = -p0 y + p1 sin(t), G = integral of y^2 + p0 y over [0, 2]: the
  // adjoint's dG/dp and dG/dy0 against central differences of G, with
  // tight tolerances.
  const auto f = [](double t, const auto* y, const auto* p, auto* ydot) {
    ydot[0] = -p[0] * y[0] + p[1] * std::sin(t);
  };
  const solvers::ode::OdeIntegrand g =
      solvers::ode::make_integrand([](double, const auto* y, const auto* p) { return y[0] * y[0] + p[0] * y[0]; });
  solvers::ode::CvodesOptions o;
  o.rtol = 1e-11;
  o.atol = {1e-13};
  o.max_steps = 100000;
  const solvers::ode::AdjointOptions a = adjoint_tolerances(1e-11, 1e-13);
  auto G = [&](std::vector<double> p, double y0) {
    return solvers::ode::integral_gradients(solvers::ode::make_ode_system(1, p, f), g, o, 0.0, {y0}, {2.0}, a)[0];
  };
  const std::vector<double> p{0.7, 1.3};
  const solvers::ode::IntegralGradient r = G(p, 0.5);
  const double h = 1e-3;
  const auto G_of_p = [&](const std::vector<double>& q) { return G(q, 0.5).value; };
  for (int k = 0; k < 2; ++k) {
    const double fd = camber::test::central_partial(G_of_p, p, static_cast<size_t>(k), h);
    std::printf("dG/dp%d: adjoint %.12f, central difference %.12f\n", k, r.d_dp[static_cast<size_t>(k)], fd);
    // Central differences with h = 1e-3: truncation ~1e-6 times the third
    // derivative, integration noise ~1e-9 / h; hence 5e-6 relative.
    EXPECT_NEAR(r.d_dp[static_cast<size_t>(k)], fd, 5e-6 * std::abs(fd)) << "p" << k;
  }
  const double fd_y0 = camber::test::central_difference([&](double y0) { return G(p, y0).value; }, 0.5, h);
  EXPECT_NEAR(r.d_dy0[0], fd_y0, 5e-6 * std::abs(fd_y0));
}

TEST(Cvodes, RobertsonForwardSensitivitiesMatchSundialsOwnExampleOutput) {
  // cvsRoberts_FSA_dns -sensi stg1 t: staggered corrector (STAGGERED1),
  // sensitivities in the error test, pbar = p; its printed output (y and
  // dy/dp at 12 output times, and the steps taken) read from the file.
  CAMBER_SUNDIALS_EXAMPLE(path, "/cvodes/serial/cvsRoberts_FSA_dns_-sensi_stg1_t.out");
  std::ifstream in(path);
  struct Block {
    double t = 0.0;
    long steps = 0;
    std::vector<double> y, s;
  };
  std::vector<Block> ref;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string w;
    if (!(s >> w)) continue;
    if (std::isdigit(static_cast<unsigned char>(w[0])) && line.find("e") != std::string::npos) {
      Block b;
      int order = 0;
      double h = 0.0;
      b.t = std::stod(w);
      if (s >> order >> h >> b.steps) ref.push_back(b);
    } else if (w == "Solution" && !ref.empty()) {
      double v = 0.0;
      while (s >> v) ref.back().y.push_back(v);
    } else if (w == "Sensitivity" && !ref.empty()) {
      int j = 0;
      s >> j;
      double v = 0.0;
      while (s >> v) ref.back().s.push_back(v);
    }
  }
  ASSERT_EQ(ref.size(), 12u) << "unexpected format of " << path;
  solvers::ode::CvodesOptions o;
  o.rtol = 1e-4;
  o.atol = {1e-8, 1e-14, 1e-6};
  const solvers::ode::OdeSystem sys = solvers::ode::make_ode_system(3, {0.04, 1.0e4, 3.0e7}, robertson_p);
  std::vector<double> times;
  for (const Block& b : ref) times.push_back(b.t);
  const solvers::ode::SensitivitySolution r = solvers::ode::forward_sensitivities(sys, o, 0.0, {1.0, 0.0, 0.0}, times);
  // Printed with 5 significant digits.
  auto near = [](double a, double b) { return std::abs(a - b) <= 1e-4 * std::abs(b); };
  for (size_t k = 0; k < ref.size(); ++k) {
    ASSERT_EQ(ref[k].y.size(), 3u);
    ASSERT_EQ(ref[k].s.size(), 9u);
    for (size_t i = 0; i < 3; ++i) EXPECT_PRED2(near, r.y[k][i], ref[k].y[i]) << "t " << times[k] << " y" << i + 1;
    for (size_t i = 0; i < 9; ++i)
      EXPECT_PRED2(near, r.s[k][i], ref[k].s[i]) << "t " << times[k] << " dy" << i % 3 + 1 << "/dp" << i / 3 + 1;
    EXPECT_EQ(r.steps[k], ref[k].steps) << "t " << times[k];
  }
}

TEST(Cvodes, FailuresAndBadInputAreErrors) {
  solvers::ode::CvodesOptions o;
  o.rtol = 1e-4;
  o.atol = {1e-8, 1e-14, 1e-6};
  o.max_steps = 20;
  solvers::ode::Cvodes cv(solvers::ode::make_ode_system(3, robertson), o);
  cv.reset(0.0, {1.0, 0.0, 0.0});
  std::vector<double> y;
  try {
    cv.advance(4e10, y);
    FAIL() << "20 steps reached 4e10";
  } catch (const camber::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("CV_TOO_MUCH_WORK"), std::string::npos) << m;
    EXPECT_NE(m.find("CVODES failed at t = "), std::string::npos) << m;
  }
  // An exception in the right-hand side comes out of advance().
  solvers::ode::OdeSystem bad;
  bad.n = 1;
  bad.rhs = [](double t, const double*, const double*, double* ydot) {
    if (t > 0.5) throw std::runtime_error("right-hand side gave up");
    ydot[0] = 1.0;
  };
  solvers::ode::Cvodes cb(bad, {});
  cb.reset(0.0, {0.0});
  EXPECT_THROW(cb.advance(1.0, y), std::runtime_error);

  auto expect_bad = [](auto&& f) {
    try {
      f();
      ADD_FAILURE() << "accepted";
    } catch (const camber::Error& e) {
      EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input) << e.what();
    }
  };
  solvers::ode::CvodesOptions neg;
  neg.rtol = -1.0;
  expect_bad([&] { solvers::ode::Cvodes c(solvers::ode::make_ode_system(3, robertson), neg); });
  solvers::ode::CvodesOptions two;
  two.atol = {1e-8, 1e-8};
  expect_bad([&] { solvers::ode::Cvodes c(solvers::ode::make_ode_system(3, robertson), two); });
  expect_bad([&] { cv.reset(0.0, {1.0, NAN, 0.0}); });
  expect_bad([&] { cv.reset(0.0, {1.0}); });
}

}  // namespace

namespace {

// Lotka-Volterra with four parameters: nonlinear in y and in p.
const auto lotka = [](double, const auto* y, const auto* p, auto* ydot) {
  ydot[0] = p[0] * y[0] - p[1] * y[0] * y[1];
  ydot[1] = -p[2] * y[1] + p[3] * y[0] * y[1];
};

solvers::ode::CvodesOptions tight() {
  solvers::ode::CvodesOptions o;
  o.rtol = 1e-10;
  o.atol = {1e-12};
  o.max_steps = 100000;
  return o;
}

solvers::ode::AdjointOptions tight_adjoint() { return adjoint_tolerances(1e-10, 1e-12); }

const std::vector<double> lv_p{1.1, 0.4, 0.9, 0.3}, lv_y0{2.0, 1.5}, lv_times{0.5, 1.5, 3.0};
const std::vector<double> lv_w{0.3, -1.2, 0.8, 0.5, -0.7, 1.1};  // 3 times x 2

TEST(OdeSolution, AdjointAndForwardSensitivitiesPassTheDotProductTest) {
  // <W, J v> (one forward sensitivity) against <J^T W, v> (one adjoint
  // sweep with jumps at the output times), v = (dy0, dp).
  const solvers::ode::OdeSystem sys = solvers::ode::make_ode_system(2, lv_p, lotka);
  const std::vector<double> dy0{0.7, -0.2}, dp{0.5, -1.0, 0.3, 0.8};
  const std::vector<double> jv = solvers::ode::solution_jvp(sys, tight(), 0.0, lv_y0, lv_times, dy0, dp);
  const solvers::ode::SolutionVjp jtw = solvers::ode::solution_vjp(sys, tight(), 0.0, lv_y0, lv_times, lv_w, tight_adjoint());
  double lhs = 0.0, rhs = 0.0;
  for (size_t i = 0; i < lv_w.size(); ++i) lhs += lv_w[i] * jv[i];
  for (size_t i = 0; i < 2; ++i) rhs += jtw.d_y0[i] * dy0[i];
  for (size_t j = 0; j < 4; ++j) rhs += jtw.d_p[j] * dp[j];
  std::printf("dot-product test: <W, J v> = %.12f, <J^T W, v> = %.12f\n", lhs, rhs);
  EXPECT_NEAR(lhs, rhs, 1e-7 * std::abs(lhs));
}

TEST(OdeSolution, VjpMatchesCentralDifferences) {
  auto loss = [](const std::vector<double>& p, const std::vector<double>& y0) {
    const std::vector<double> y =
        solvers::ode::solution_values(solvers::ode::make_ode_system(2, p, lotka), tight(), 0.0, y0, lv_times);
    double s = 0.0;
    for (size_t i = 0; i < y.size(); ++i) s += lv_w[i] * y[i];
    return s;
  };
  const solvers::ode::SolutionVjp g = solvers::ode::solution_vjp(solvers::ode::make_ode_system(2, lv_p, lotka), tight(), 0.0,
                                                       lv_y0, lv_times, lv_w, tight_adjoint());
  const double h = 1e-4;  // truncation ~1e-8, integration noise ~1e-10 / h
  const std::vector<double> fd_p =
      camber::test::central_gradient([&](const std::vector<double>& p) { return loss(p, lv_y0); }, lv_p, h);
  for (size_t j = 0; j < 4; ++j) EXPECT_NEAR(g.d_p[j], fd_p[j], 1e-5 * std::abs(fd_p[j]) + 1e-7) << "p" << j;
  const std::vector<double> fd_y0 =
      camber::test::central_gradient([&](const std::vector<double>& y0) { return loss(lv_p, y0); }, lv_y0, h);
  for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(g.d_y0[i], fd_y0[i], 1e-5 * std::abs(fd_y0[i]) + 1e-7) << "y0 " << i;
}

TEST(OdeSolution, IsAnOpOfTheAdEngine) {
  namespace ad = camber::ad;
  using camber::Tensor;
  const solvers::ode::OdeSystem sys = solvers::ode::make_ode_system(2, lv_p, lotka);
  const ad::Var p = ad::variable(Tensor::from_host({4}, lv_p));
  const ad::Var y0 = ad::variable(Tensor::from_host({2}, lv_y0));
  const ad::Var Y = solvers::ode::ode_solution(sys, y0, p, 0.0, lv_times, tight(), tight_adjoint());
  ASSERT_EQ(Y.shape(), (camber::Shape{3, 2}));
  EXPECT_EQ(Y.value().to_vector(), solvers::ode::solution_values(sys, tight(), 0.0, lv_y0, lv_times));
  const ad::Var loss = ad::sum(Y * ad::constant(Tensor::from_host({3, 2}, lv_w)));
  const ad::Vars g = ad::grad(loss, {y0, p});
  const solvers::ode::SolutionVjp want = solvers::ode::solution_vjp(sys, tight(), 0.0, lv_y0, lv_times, lv_w, tight_adjoint());
  EXPECT_EQ(g[0].value().to_vector(), want.d_y0);
  EXPECT_EQ(g[1].value().to_vector(), want.d_p);
  // Forward mode through the op: the same directional sensitivity.
  const std::vector<double> dp{0.5, -1.0, 0.3, 0.8};
  const ad::JvpResult r = ad::jvp(
      [&](const ad::Vars& in) { return ad::Vars{solvers::ode::ode_solution(sys, in[0], in[1], 0.0, lv_times, tight())}; },
      {y0, p}, {ad::constant(Tensor::from_host({2}, {0.0, 0.0})), ad::constant(Tensor::from_host({4}, dp))});
  EXPECT_EQ(r.tangents[0].value().to_vector(),
            solvers::ode::solution_jvp(sys, tight(), 0.0, lv_y0, lv_times, {0.0, 0.0}, dp));
  // Second derivatives are refused, not zero.
  const ad::Vars g2 = ad::grad(ad::sum(ad::square(solvers::ode::ode_solution(sys, y0, p, 0.0, lv_times, tight()))),
                               {p}, /*create_graph=*/true);
  try {
    ad::grad(ad::sum(g2[0]), {p});
    ADD_FAILURE() << "a second derivative through ode_solution was computed";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("second derivatives through ode_solution"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

TEST(OdeIntegral, IsAnOpWhoseGradientIsTheAdjoints) {
  namespace ad = camber::ad;
  using camber::Tensor;
  const solvers::ode::OdeSystem sys = solvers::ode::make_ode_system(2, lv_p, lotka);
  const solvers::ode::OdeIntegrand g =
      solvers::ode::make_integrand([](double, const auto* y, const auto* p) { return y[0] * y[1] + p[0] * y[0]; });
  const ad::Var p = ad::variable(Tensor::from_host({4}, lv_p));
  const ad::Var y0 = ad::variable(Tensor::from_host({2}, lv_y0));
  const ad::Var G = solvers::ode::ode_integral(sys, g, y0, p, 0.0, 3.0, tight(), tight_adjoint());
  const solvers::ode::IntegralGradient want =
      solvers::ode::integral_gradients(sys, g, tight(), 0.0, lv_y0, {3.0}, tight_adjoint())[0];
  EXPECT_EQ(G.value().to_vector()[0], want.value);
  const ad::Vars d = ad::grad(2.0 * ad::sum(G), {y0, p});
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(d[0].value().to_vector()[i], 2.0 * want.d_dy0[i]);
  for (size_t j = 0; j < 4; ++j) EXPECT_EQ(d[1].value().to_vector()[j], 2.0 * want.d_dp[j]);
  // Forward mode: the directional derivative.
  const std::vector<double> dp{0.5, -1.0, 0.3, 0.8};
  const ad::JvpResult r = ad::jvp(
      [&](const ad::Vars& in) {
        return ad::Vars{solvers::ode::ode_integral(sys, g, in[0], in[1], 0.0, 3.0, tight(), tight_adjoint())};
      },
      {y0, p}, {ad::constant(Tensor::from_host({2}, {0.0, 0.0})), ad::constant(Tensor::from_host({4}, dp))});
  double dir = 0.0;
  for (size_t j = 0; j < 4; ++j) dir += want.d_dp[j] * dp[j];
  EXPECT_DOUBLE_EQ(r.tangents[0].value().to_vector()[0], dir);
  // Its gradient against central differences of G itself.
  const double h = 1e-4;
  const std::vector<double> fd = camber::test::central_gradient(
      [&](const std::vector<double>& q) {
        return solvers::ode::integral_gradients(solvers::ode::make_ode_system(2, q, lotka), g, tight(), 0.0, lv_y0,
                                                {3.0}, tight_adjoint())[0]
            .value;
      },
      lv_p, h);
  for (size_t j = 0; j < 4; ++j) EXPECT_NEAR(want.d_dp[j], fd[j], 1e-5 * std::abs(fd[j]) + 1e-7) << "p" << j;
}

}  // namespace

namespace {

TEST(OdeIntegral, SecondDerivativesInPThroughTheOpAreIntegralHvp) {
  // ad::hvp (forward over reverse) and reverse over reverse through the op
  // give integral_hvp's H v; H v differs from a wrong rule (zero, or the
  // gradient) by far more than the tolerances.
  namespace ad = camber::ad;
  using camber::Tensor;
  const solvers::ode::OdeIntegrand g =
      solvers::ode::make_integrand([](double, const auto* y, const auto* p) { return y[0] * y[1] + p[0] * p[1] * y[0]; });
  const std::vector<double> v{0.5, -1.0, 0.3, 0.8};
  const std::vector<double> want =
      solvers::ode::integral_hvp(solvers::ode::make_ode_system(2, lv_p, lotka), g, tight(), 0.0, lv_y0, 3.0, v, tight_adjoint()).hvp;
  const solvers::ode::OdeSystem sys = solvers::ode::make_ode_system(2, lv_p, lotka);
  const ad::Var y0 = ad::constant(Tensor::from_host({2}, lv_y0));
  const auto G = [&](const ad::Var& p) {
    return ad::mul_scalar(solvers::ode::ode_integral(sys, g, y0, p, 0.0, 3.0, tight(), tight_adjoint()), 1.5);
  };
  const Tensor fwd = ad::hvp([&](const ad::Var& p) { return ad::sum(G(p)); }, Tensor::from_host({4}, lv_p),
                             Tensor::from_host({4}, v));
  const ad::Var p = ad::variable(Tensor::from_host({4}, lv_p));
  const ad::Var grad = ad::grad(ad::sum(G(p)), {p}, true)[0];
  const Tensor rev = ad::grad(ad::sum(ad::mul(grad, ad::constant(Tensor::from_host({4}, v)))), {p})[0].value();
  double scale = 0.0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_NEAR(fwd.to_vector()[j], 1.5 * want[j], 1e-9 * 1.5 * scale) << "forward over reverse, p" << j;
    EXPECT_NEAR(rev.to_vector()[j], 1.5 * want[j], 1e-9 * 1.5 * scale) << "reverse over reverse, p" << j;
  }
  // With respect to a y0 that needs a gradient: refused, not wrong.
  const ad::Var y0v = ad::variable(Tensor::from_host({2}, lv_y0));
  const ad::Var gp = ad::grad(ad::sum(solvers::ode::ode_integral(sys, g, y0v, p, 0.0, 3.0, tight(), tight_adjoint())), {p},
                              true)[0];
  EXPECT_THROW(ad::grad(ad::sum(gp), {p, y0v}), camber::Error);
}

TEST(OdeIntegral, HessianVectorProductMatchesDifferencesOfGradientsAndIsSymmetric) {
  // Forward over adjoint, against central differences of the adjoint
  // gradient along v, and u^T H v = v^T H u.
  const solvers::ode::OdeIntegrand g =
      solvers::ode::make_integrand([](double, const auto* y, const auto* p) { return y[0] * y[1] + p[0] * p[1] * y[0]; });
  const std::vector<double> v{0.5, -1.0, 0.3, 0.8}, u{-0.2, 0.4, 1.0, 0.1};
  const solvers::ode::IntegralHvp hv =
      solvers::ode::integral_hvp(solvers::ode::make_ode_system(2, lv_p, lotka), g, tight(), 0.0, lv_y0, 3.0, v, tight_adjoint());
  const solvers::ode::IntegralHvp hu =
      solvers::ode::integral_hvp(solvers::ode::make_ode_system(2, lv_p, lotka), g, tight(), 0.0, lv_y0, 3.0, u, tight_adjoint());
  const solvers::ode::IntegralGradient g0 = solvers::ode::integral_gradients(
      solvers::ode::make_ode_system(2, lv_p, lotka), g, tight(), 0.0, lv_y0, {3.0}, tight_adjoint())[0];
  for (size_t j = 0; j < 4; ++j) EXPECT_NEAR(hv.gradient[j], g0.d_dp[j], 1e-8 * std::abs(g0.d_dp[j]) + 1e-10);
  EXPECT_NEAR(hv.value, g0.value, 1e-9 * std::abs(g0.value));
  const double h = 1e-4;
  const auto grad_at = [&](const std::vector<double>& p) {
    return solvers::ode::integral_gradients(solvers::ode::make_ode_system(2, p, lotka), g, tight(), 0.0, lv_y0, {3.0},
                                       tight_adjoint())[0].d_dp;
  };
  const std::vector<double> hv_fd = camber::test::directional_difference(grad_at, lv_p, v, h);
  for (size_t j = 0; j < 4; ++j) {
    const double fd = hv_fd[j];
    std::printf("(H v)_%zu: forward over adjoint %.10f, differences of gradients %.10f\n", j, hv.hvp[j], fd);
    EXPECT_NEAR(hv.hvp[j], fd, 1e-5 * std::abs(fd) + 1e-7) << j;
  }
  double uhv = 0.0, vhu = 0.0;
  for (size_t j = 0; j < 4; ++j) {
    uhv += u[j] * hv.hvp[j];
    vhu += v[j] * hu.hvp[j];
  }
  EXPECT_NEAR(uhv, vhu, 1e-7 * std::abs(uhv)) << "H is not symmetric";
}

}  // namespace

namespace {

TEST(Idas, RobertsonDaeMatchesSundialsOwnExampleOutput) {
  // idasRoberts_dns: the algebraic form y1 + y2 + y3 = 1, rtol 1e-4, atol
  // (1e-8, 1e-6, 1e-6), roots y1 - 1e-4 and y3 - 0.01, 12 outputs; its
  // printed lines (t, y, steps, order, step size) read from the file.
  CAMBER_SUNDIALS_EXAMPLE(path, "/idas/serial/idasRoberts_dns.out");
  std::ifstream in(path);
  struct Line {
    double t = 0.0, y[3] = {0, 0, 0}, h = 0.0;
    long steps = 0;
    int order = 0;
    std::vector<int> roots;
  };
  std::vector<Line> ref;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find('|') != std::string::npos && !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      Line l;
      char bar = 0;
      std::istringstream s(line);
      if (s >> l.t >> l.y[0] >> l.y[1] >> l.y[2] >> bar >> l.steps >> l.order >> l.h) ref.push_back(l);
    } else if (line.find("rootsfound[]") != std::string::npos && !ref.empty()) {
      std::istringstream s(line.substr(line.find('=') + 1));
      int a = 0, b = 0;
      s >> a >> b;
      ref.back().roots = {a, b};
    }
  }
  ASSERT_EQ(ref.size(), 14u) << "unexpected format of " << path;
  solvers::ode::DaeSystem sys = solvers::ode::make_dae_system(
      3, {0.04, 1.0e4, 3.0e7}, [](double, const auto* y, const auto* yp, const auto* p, auto* r) {
        r[0] = -p[0] * y[0] + p[1] * y[1] * y[2];
        r[1] = -r[0] - p[2] * y[1] * y[1] - yp[1];
        r[0] = r[0] - yp[0];
        r[2] = y[0] + y[1] + y[2] - 1.0;
      });
  sys.n_roots = 2;
  sys.roots = [](double, const double* y, double* g) {
    g[0] = y[0] - 0.0001;
    g[1] = y[2] - 0.01;
  };
  solvers::ode::IdasOptions o;
  o.rtol = 1e-4;
  o.atol = {1e-8, 1e-6, 1e-6};
  solvers::ode::Idas ida(sys, o);
  ida.reset(0.0, {1.0, 0.0, 0.0}, {-0.04, 0.04, 0.0});
  std::vector<double> y;
  std::vector<int> roots;
  double tout = 0.4;
  for (size_t k = 0; k < ref.size(); ++k) {
    const double t = ida.advance(tout, y, &roots);
    const Line& l = ref[k];
    // Printed as %10.4e: agree to that rounding.
    EXPECT_NEAR(t, l.t, 0.51e-4 * std::abs(l.t)) << "output " << k;
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(y[static_cast<size_t>(i)], l.y[i], 0.51e-4 * std::abs(l.y[i])) << "output " << k << " y" << i + 1;
    EXPECT_EQ(roots, l.roots) << "output " << k;
    const solvers::ode::OdeStats s = ida.stats();
    EXPECT_EQ(s.steps, l.steps) << "output " << k;
    EXPECT_EQ(s.last_order, l.order) << "output " << k;
    EXPECT_NEAR(s.last_step, l.h, 0.51e-4 * l.h) << "output " << k;
    if (roots.empty()) tout *= 10.0;
  }
  // Too few steps allowed: IDAS stops, and the error names its flag.
  solvers::ode::IdasOptions few = o;
  few.max_steps = 3;
  solvers::ode::Idas bad(sys, few);
  bad.reset(0.0, {1.0, 0.0, 0.0}, {-0.04, 0.04, 0.0});
  try {
    bad.advance(4e10, y);
    ADD_FAILURE() << "3 steps reached 4e10";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("IDA_TOO_MUCH_WORK"), std::string::npos) << e.what();
  }
}

TEST(Idas, RobertsonAdjointMatchesSundialsOwnExampleOutput) {
  // idasRoberts_ASAi_dns: the DAE form, G = integral of y3 from 0 to tB,
  // dG/dp and lambda(0) for tB = 4e10 and tB = 50 from one forward run
  // (checkpoints every 100 steps), its backward initial values made
  // consistent by IDACalcICB as the example does for tB = 50.
  CAMBER_SUNDIALS_EXAMPLE(path, "/idas/serial/idasRoberts_ASAi_dns.out");
  const auto g_ref = printed(path, "G:");
  const auto dp_ref = printed(path, "dG/dp:");
  const auto l0_ref = printed(path, "lambda(t0):");
  const auto steps_ref = printed(path, "Steps                        =");
  ASSERT_EQ(g_ref.size(), 1u);
  ASSERT_EQ(dp_ref.size(), 2u);
  ASSERT_EQ(l0_ref.size(), 2u);
  ASSERT_FALSE(steps_ref.empty());
  // The example's tolerances: rtol 1e-6, atol (1e-8, 1e-12, 1e-8) forward;
  // quadratures 1e-6 / 1e-6; adjoint 1e-6 / 1e-8.
  solvers::ode::IdasOptions o;
  o.rtol = 1e-6;
  o.atol = {1e-8, 1e-12, 1e-8};
  o.max_steps = 2500;
  solvers::ode::AdjointOptions a;
  a.rtol = 1e-6;
  a.atol = 1e-8;
  a.quad_rtol = 1e-6;
  a.quad_atol = 1e-6;
  a.checkpoint_steps = 100;
  const solvers::ode::DaeSystem sys = solvers::ode::make_dae_system(
      3, {0.04, 1.0e4, 3.0e7}, [](double, const auto* y, const auto* yp, const auto* p, auto* r) {
        r[0] = p[0] * y[0] - p[1] * y[1] * y[2];
        r[1] = -r[0] + p[2] * y[1] * y[1] + yp[1];
        r[0] = r[0] + yp[0];
        r[2] = y[0] + y[1] + y[2] - 1.0;
      });
  const solvers::ode::OdeIntegrand g = solvers::ode::make_integrand([](double, const auto* y, const auto*) { return y[2]; });
  solvers::ode::OdeStats fwd;
  const auto r = solvers::ode::dae_integral_gradients(sys, g, o, 0.0, {1.0, 0.0, 0.0}, {-0.04, 0.04, 0.0}, {50.0, 4.0e10},
                                                a, &fwd);
  ASSERT_EQ(r.size(), 2u);
  // The forward run is the example's, step for step.
  EXPECT_EQ(fwd.steps, static_cast<long>(steps_ref[0][0]));
  // Printed with 5 significant digits (%12.4e): 1e-4 relative.
  auto near = [](double x, double ref) { return std::abs(x - ref) <= 1e-4 * std::abs(ref); };
  EXPECT_PRED2(near, r[1].value, g_ref[0][0]);
  for (size_t k = 0; k < 3; ++k) {
    // The output lists tB = 4e10 first, then tB = 50.
    EXPECT_PRED2(near, r[1].d_dp[k], dp_ref[0][k]) << "tB 4e10, p" << k + 1;
    EXPECT_PRED2(near, r[0].d_dp[k], dp_ref[1][k]) << "tB 50, p" << k + 1;
    EXPECT_PRED2(near, r[1].lambda0[k], l0_ref[0][k]) << "tB 4e10, lambda" << k + 1;
    EXPECT_PRED2(near, r[0].lambda0[k], l0_ref[1][k]) << "tB 50, lambda" << k + 1;
  }
  std::printf("IDAS Robertson adjoint: G %.6e, dG/dp %.6e %.6e %.6e (forward %ld steps, backward %ld)\n",
              r[1].value, r[1].d_dp[0], r[1].d_dp[1], r[1].d_dp[2], fwd.steps, r[1].backward.steps);
}

TEST(Idas, AdjointGradientMatchesCentralDifferences) {
  // y1' = -p0 y1 + p1 y2, 0 = y2 - sin(t) y1 - p2 (index 1), G = integral
  // of y1^2 + p0 y2 over [0, 2]: dG/dp against central differences of G.
  const auto F = [](double t, const auto* y, const auto* yp, const auto* p, auto* r) {
    r[0] = yp[0] + p[0] * y[0] - p[1] * y[1];
    r[1] = y[1] - std::sin(t) * y[0] - p[2];
  };
  const solvers::ode::OdeIntegrand g =
      solvers::ode::make_integrand([](double, const auto* y, const auto* p) { return y[0] * y[0] + p[0] * y[1]; });
  solvers::ode::IdasOptions o;
  o.rtol = 1e-11;
  o.atol = {1e-13};
  o.max_steps = 100000;
  const solvers::ode::AdjointOptions a = adjoint_tolerances(1e-11, 1e-13);
  const std::vector<double> p = {0.7, 0.4, 0.3};
  // Consistent initial values: y2 = sin(0) y1 + p2, y1' = -p0 y1 + p1 y2.
  const auto value = [&](const std::vector<double>& q) {
    const solvers::ode::DaeSystem sys = solvers::ode::make_dae_system(2, q, F);
    const double y1 = 1.0, y2 = q[2];
    return solvers::ode::dae_integral_gradients(sys, g, o, 0.0, {y1, y2}, {-q[0] * y1 + q[1] * y2, 0.0}, {2.0}, a)[0];
  };
  const solvers::ode::DaeIntegralGradient r = value(p);
  // y2(0) = p2 follows from the algebraic equation; only differential
  // initial values enter the adjoint (lambda(0)^T dF/dy' dy(0)/dp), and
  // y1(0) = 1 does not depend on p.
  // h = 1e-4: the O(h^2) truncation (1e-3 leaves 1.2e-6) and the
  // integrators' noise over 2h (1e-5 leaves 2e-6) both under 1e-6.
  const double h = 1e-4;
  const std::vector<double> fd =
      camber::test::central_gradient([&](const std::vector<double>& q) { return value(q).value; }, p, h);
  for (size_t j = 0; j < 3; ++j) EXPECT_NEAR(r.d_dp[j], fd[j], 1e-6 * std::abs(fd[j]) + 1e-9) << "p" << j;
}

// The rows "t u" of an ARKODE example's printed table (t = 1 .. 10).
std::vector<std::pair<double, double>> printed_table(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::pair<double, double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    double t = 0.0, u = 0.0;
    std::string rest;
    if (s >> t >> u && !(s >> rest) && t >= 1.0) rows.emplace_back(t, u);
  }
  return rows;
}

// The integer after `label` (and an optional '=') in a printed file.
long printed_count(const std::string& path, const std::string& label) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find(label);
    if (at == std::string::npos) continue;
    std::string rest = line.substr(at + label.size());
    const auto eq = rest.find_first_of("0123456789");
    if (eq != std::string::npos) return std::atol(rest.c_str() + eq);
  }
  return -1;
}

TEST(Arkode, ImplicitAnalyticMatchesSundialsOwnExampleOutput) {
  // ark_analytic: y' = lambda y + 1/(1+t^2) - lambda atan(t), lambda = -100,
  // y(0) = 0 (exact: atan(t)), DIRK with a dense solver, f linear in y with
  // a constant Jacobian, rtol 1e-6, atol 1e-10, outputs at t = 1 .. 10.
  CAMBER_SUNDIALS_EXAMPLE(path, "/arkode/C_serial/ark_analytic.out");
  const auto table = printed_table(path);
  ASSERT_EQ(table.size(), 10u) << "unexpected format of " << path;
  solvers::ode::ArkodeOptions o;
  o.method = solvers::ode::ArkMethod::implicit;
  o.rtol = 1e-6;
  o.atol = {1e-10};
  o.linear_implicit = true;
  o.jacobian_time_dependent = false;
  solvers::ode::Arkode ark(solvers::ode::make_implicit_system(1, {-100.0},
                                                    [](double t, const auto* y, const auto* p, auto* ydot) {
                                                      ydot[0] = p[0] * y[0] + 1.0 / (1.0 + t * t) - p[0] * std::atan(t);
                                                    }),
                      o);
  ark.reset(0.0, {0.0});
  std::vector<double> y;
  for (const auto& [t, u] : table) {
    ark.advance(t, y);
    EXPECT_NEAR(y[0], u, 0.51e-6) << "t = " << t;  // printed as %f
    EXPECT_NEAR(y[0], std::atan(t), 1e-5) << "t = " << t;
  }
  const solvers::ode::ArkodeStats s = ark.stats();
  EXPECT_EQ(s.steps, printed_count(path, "Internal solver steps"));
  EXPECT_EQ(s.attempts, printed_count(path, "attempted"));
  EXPECT_EQ(s.implicit_rhs_evals, printed_count(path, "Fi ="));
  EXPECT_EQ(s.lin_setups, printed_count(path, "linear solver setups"));
  EXPECT_EQ(s.jac_evals, printed_count(path, "Jacobian evaluations"));
  EXPECT_EQ(s.nonlin_iters, printed_count(path, "Newton iterations"));
  EXPECT_EQ(s.error_test_fails, printed_count(path, "error test failures"));
  std::printf("ark_analytic: %ld steps, %ld f_I evaluations, %ld Jacobians\n", s.steps, s.implicit_rhs_evals,
              s.jac_evals);
}

TEST(Arkode, ExplicitAnalyticNonlinMatchesSundialsOwnExampleOutput) {
  // ark_analytic_nonlin: y' = (t + 1) exp(-y), y(0) = 0 (exact:
  // log(t^2/2 + t + 1)), ERK, rtol 1e-6, atol 1e-10.
  CAMBER_SUNDIALS_EXAMPLE(path, "/arkode/C_serial/ark_analytic_nonlin.out");
  const auto table = printed_table(path);
  ASSERT_EQ(table.size(), 10u) << "unexpected format of " << path;
  solvers::ode::ArkodeOptions o;
  o.method = solvers::ode::ArkMethod::explicit_rk;
  o.rtol = 1e-6;
  o.atol = {1e-10};
  solvers::ode::Arkode ark(solvers::ode::make_explicit_system(
                          1, {}, [](double t, const double* y, const double*, double* ydot) { ydot[0] = (t + 1.0) * std::exp(-y[0]); }),
                      o);
  ark.reset(0.0, {0.0});
  std::vector<double> y;
  for (const auto& [t, u] : table) {
    ark.advance(t, y);
    EXPECT_NEAR(y[0], u, 0.51e-6) << "t = " << t;
    EXPECT_NEAR(y[0], std::log(t * t / 2 + t + 1), 1e-5) << "t = " << t;
  }
  const solvers::ode::ArkodeStats s = ark.stats();
  EXPECT_EQ(s.steps, printed_count(path, "Steps                        ="));
  EXPECT_EQ(s.attempts, printed_count(path, "Step attempts"));
}

TEST(Arkode, ImexBrusselatorMatchesBdfWithStepsSetByAccuracyNotStiffness) {
  // The stiff Brusselator of ark_brusselator's test 1 (a = 1.2, b = 2.5,
  // eps = 1e-5): only (b - w) / eps is stiff; it goes to the implicit part,
  // the rest is explicit. Reference: CVODES' BDF at rtol 1e-10. An explicit
  // method's steps are bounded by stability (h < ~2.8 eps), IMEX's by
  // accuracy.
  const std::vector<double> p = {1.2, 2.5, 1e-5};
  const auto slow = [](double, const double* y, const double* q, double* d) {
    d[0] = q[0] - (y[2] + 1.0) * y[0] + y[1] * y[0] * y[0];
    d[1] = y[2] * y[0] - y[1] * y[0] * y[0];
    d[2] = -y[2] * y[0];
  };
  const auto stiff = [](double, const auto* y, const auto* q, auto* d) {
    d[0] = 0.0 * y[0];
    d[1] = 0.0 * y[1];
    d[2] = (q[1] - y[2]) / q[2];
  };
  const std::vector<double> y0 = {3.9, 1.1, 2.8};
  const double tf = 2.0;
  solvers::ode::CvodesOptions c;
  c.rtol = 1e-10;
  c.atol = {1e-12};
  c.max_steps = 1000000;
  solvers::ode::Cvodes bdf(solvers::ode::make_ode_system(3, p,
                                               [&](double t, const auto* y, const auto* q, auto* d) {
                                                 using S = std::decay_t<decltype(d[0])>;
                                                 S s[3];
                                                 stiff(t, y, q, s);
                                                 d[0] = q[0] - (y[2] + 1.0) * y[0] + y[1] * y[0] * y[0] + s[0];
                                                 d[1] = y[2] * y[0] - y[1] * y[0] * y[0] + s[1];
                                                 d[2] = -y[2] * y[0] + s[2];
                                               }),
                      c);
  std::vector<double> ref, y, ye;
  bdf.reset(0.0, y0);
  bdf.advance(tf, ref);
  solvers::ode::ArkodeOptions o;
  o.rtol = 1e-6;
  o.atol = {1e-10};
  o.max_steps = 1000000;
  o.method = solvers::ode::ArkMethod::imex;
  solvers::ode::Arkode imex(solvers::ode::make_imex_system(3, p, slow, stiff), o);
  o.method = solvers::ode::ArkMethod::explicit_rk;
  solvers::ode::Arkode erk(solvers::ode::make_explicit_system(3, p,
                                                    [&](double t, const double* yy, const double* q, double* d) {
                                                      double s[3];
                                                      slow(t, yy, q, d);
                                                      stiff(t, yy, q, s);
                                                      for (int i = 0; i < 3; ++i) d[i] += s[i];
                                                    }),
                      o);
  imex.reset(0.0, y0);
  erk.reset(0.0, y0);
  imex.advance(tf, y);
  erk.advance(tf, ye);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(y[i], ref[i], 1e-4 * std::abs(ref[i])) << "IMEX y" << i;
    EXPECT_NEAR(ye[i], ref[i], 1e-4 * std::abs(ref[i])) << "ERK y" << i;
  }
  const long imex_steps = imex.stats().steps, erk_steps = erk.stats().steps;
  std::printf("Brusselator to t = 2: IMEX %ld steps, ERK %ld, BDF %ld\n", imex_steps, erk_steps, bdf.stats().steps);
  EXPECT_LT(20 * imex_steps, erk_steps);
}

TEST(Arkode, BadSetUpsAreBadInput) {
  solvers::ode::ArkodeOptions o;
  o.method = solvers::ode::ArkMethod::imex;
  EXPECT_THROW(solvers::ode::Arkode(solvers::ode::make_explicit_system(1, {}, [](double, const double*, const double*, double* d) { d[0] = 0; }), o),
               camber::Error);
  o.method = solvers::ode::ArkMethod::implicit;
  o.rtol = -1.0;
  EXPECT_THROW(solvers::ode::Arkode(solvers::ode::make_implicit_system(1, {}, [](double, const auto*, const auto*, auto* d) { d[0] = 0.0; }), o),
               camber::Error);
}

}  // namespace
