// solvers/ode/ode_case.hpp: a built-in model's case run end to end. The
// Lotka-Volterra invariant V = p4 y1 - p3 ln y1 + p2 y2 - p1 ln y2 held at
// every output, the forward sensitivities and the adjoint gradient of
// G = integral of y_k dt against central differences of whole runs, the
// checks naming the member, and the CSV files' rows.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/ode/ode_case.hpp>

#include "tests/common/central_difference.hpp"

namespace {

namespace ode = camber::solvers::ode;

ode::OdeCase lotka_volterra() {
  ode::OdeCase c;
  c.model = "lotka_volterra";
  c.parameters = {1.5, 1.0, 3.0, 1.0};
  c.initial = {10.0, 5.0};
  c.output_times = {0.5, 1.0, 2.0, 3.0};
  c.integration.rtol = 1e-10;
  c.integration.atol = {1e-12};
  c.integration.max_steps = 100000;
  return c;
}

double invariant(const std::vector<double>& p, const std::vector<double>& y) {
  return p[3] * y[0] - p[2] * std::log(y[0]) + p[1] * y[1] - p[0] * std::log(y[1]);
}

// G of the case (adjoint mode), the integral of y_k dt.
double integral(ode::OdeCase c) {
  c.sensitivity = ode::OdeSensitivity::adjoint;
  return ode::run_ode_case(c).gradient->value;
}

TEST(OdeCase, LotkaVolterraKeepsItsInvariant) {
  const ode::OdeCase c = lotka_volterra();
  const ode::OdeCaseResult r = ode::run_ode_case(c);
  ASSERT_EQ(r.t, c.output_times);
  const double v0 = invariant(c.parameters, c.initial);
  for (size_t k = 0; k < r.t.size(); ++k) {
    EXPECT_NEAR(invariant(c.parameters, r.y[k]), v0, 1e-7 * std::abs(v0)) << "t = " << r.t[k];
    EXPECT_GT(r.steps[k], 0);
    EXPECT_GT(r.order[k], 0);
  }
  EXPECT_TRUE(r.s.empty());
  EXPECT_FALSE(r.gradient.has_value());
}

TEST(OdeCase, ForwardSensitivitiesAreCentralDifferences) {
  ode::OdeCase c = lotka_volterra();
  c.sensitivity = ode::OdeSensitivity::forward;
  const ode::OdeCaseResult r = ode::run_ode_case(c);
  const ode::OdeCaseResult plain = ode::run_ode_case(lotka_volterra());
  const size_t n = 2, k = r.t.size() - 1;
  for (size_t i = 0; i < n; ++i) EXPECT_NEAR(r.y[k][i], plain.y[k][i], 1e-6 * std::abs(plain.y[k][i]));
  // Parameter j moved by 1e-5 of itself both ways; column j is dy/dp_j.
  std::vector<double> h;
  for (double p : c.parameters) h.push_back(1e-5 * p);
  const auto columns = camber::test::central_partials(
      [&](const std::vector<double>& p) {
        ode::OdeCase moved = lotka_volterra();
        moved.parameters = p;
        return ode::run_ode_case(moved).y[k];
      },
      c.parameters, h);
  for (size_t j = 0; j < c.parameters.size(); ++j)
    for (size_t i = 0; i < n; ++i) {
      const double fd = columns[j][i];
      EXPECT_NEAR(r.s[k][j * n + i], fd, 1e-4 * (std::abs(fd) + 1.0)) << "dy" << i + 1 << "/dp" << j + 1;
    }
}

TEST(OdeCase, AdjointGradientIsCentralDifferences) {
  ode::OdeCase c = lotka_volterra();
  c.sensitivity = ode::OdeSensitivity::adjoint;
  c.integrand_component = 2;
  c.adjoint.atol = 1e-10;
  c.adjoint.quad_rtol = 1e-10;
  c.adjoint.quad_atol = 1e-10;
  const ode::OdeCaseResult r = ode::run_ode_case(c);
  ASSERT_TRUE(r.gradient.has_value());
  ASSERT_EQ(r.gradient->d_dp.size(), 4u);
  ASSERT_EQ(r.gradient->d_dy0.size(), 2u);
  // Each entry of `inputs` (parameters or initial state) moved by 1e-5 of
  // itself both ways.
  const auto check = [&c](std::vector<double> ode::OdeCase::*inputs, const std::vector<double>& adjoint,
                          const char* what) {
    const auto integral_at = [&](const std::vector<double>& x) {
      ode::OdeCase moved = c;
      moved.*inputs = x;
      return integral(moved);
    };
    for (size_t j = 0; j < adjoint.size(); ++j) {
      const double fd = camber::test::central_partial(integral_at, c.*inputs, j, 1e-5 * (c.*inputs)[j]);
      EXPECT_NEAR(adjoint[j], fd, 1e-5 * (std::abs(fd) + 1.0)) << what << j + 1;
    }
  };
  check(&ode::OdeCase::parameters, r.gradient->d_dp, "dG/dp");
  check(&ode::OdeCase::initial, r.gradient->d_dy0, "dG/dy0_");
}

TEST(OdeCase, ChecksNameTheMember) {
  const auto member_of = [](const ode::OdeCase& c) {
    std::string member;
    try {
      ode::validate_ode_case(c, [&](const std::string& m, const std::string&) {
        member = m;
        throw std::runtime_error(m);
      });
    } catch (const std::runtime_error&) {
    }
    return member;
  };
  EXPECT_EQ(member_of(lotka_volterra()), "");
  ode::OdeCase c = lotka_volterra();
  c.parameters.pop_back();
  EXPECT_EQ(member_of(c), "parameters");
  c = lotka_volterra();
  c.initial.push_back(1.0);
  EXPECT_EQ(member_of(c), "initial");
  c = lotka_volterra();
  c.integration.atol = {1e-8, 1e-8, 1e-8};
  EXPECT_EQ(member_of(c), "atol");
  c = lotka_volterra();
  c.output_times = {1.0, 0.5};
  EXPECT_EQ(member_of(c), "output_times");
  c = lotka_volterra();
  c.t0 = 0.5;  // the first output time is not after t0
  EXPECT_EQ(member_of(c), "output_times");
  c = lotka_volterra();
  c.integrand_component = 3;
  EXPECT_EQ(member_of(c), "integrand_component");
  EXPECT_THROW(ode::run_ode_case(c), camber::Error);
}

TEST(OdeCase, FilesHoldTheRows) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "camber_ode_case_test";
  std::filesystem::remove_all(dir);
  ode::OdeCase c = lotka_volterra();
  c.sensitivity = ode::OdeSensitivity::forward;
  const ode::OdeCaseResult r = ode::run_ode_case(c);
  ode::write_ode_solution_csv((dir / "s.csv").string(), c, r);
  std::ifstream in(dir / "s.csv");
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, "t,y1,y2,dy1_dp1,dy2_dp1,dy1_dp2,dy2_dp2,dy1_dp3,dy2_dp3,dy1_dp4,dy2_dp4");
  for (size_t k = 0; k < r.t.size(); ++k) {
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    std::vector<double> row;
    for (size_t at = 0; at != std::string::npos;) {
      const size_t comma = line.find(',', at);
      row.push_back(std::stod(line.substr(at, comma - at)));
      at = comma == std::string::npos ? comma : comma + 1;
    }
    ASSERT_EQ(row.size(), 11u);
    EXPECT_EQ(row[0], r.t[k]);  // 17 digits read back exactly
    EXPECT_EQ(row[2], r.y[k][1]);
    EXPECT_EQ(row[10], r.s[k][7]);
  }
  EXPECT_THROW(ode::write_ode_gradient_csv((dir / "g.csv").string(), r), camber::Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
