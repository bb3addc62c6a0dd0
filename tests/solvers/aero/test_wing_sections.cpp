// Reference pressures at wing stations (solvers/aero/wing_sections.hpp):
// the CSV reader's errors name the file and line, and the comparison of
// computed with reference Cp is exact where the computed curve is linear.
// The span efficiency of a load against lifting-line theory's closed forms:
// the strips' means of sin(n theta), y = b cos theta, integrated exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/aero/wing_sections.hpp>

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace fs = std::filesystem;

std::string written(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("camber_section_reference_" + name + ".csv");
  std::ofstream(p) << text;
  return p.string();
}

void expect_bad_input(const std::string& path, const std::string& fragment) {
  try {
    aero::read_section_reference(path);
    ADD_FAILURE() << "no error for " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(e.message().find(fragment), std::string::npos) << e.message();
  }
}

TEST(SectionReference, ReadsCommentsHeaderAndRows) {
  const std::string p =
      written("good", "# a comment\n\neta,x_over_c,cp,side\n0.2,0.5,-0.25,1\n0.2,0.0,0.8,0\n"
                      "  # another\n0.44,0.95,0.1,-1\n");
  const std::vector<aero::SectionPoint> r = aero::read_section_reference(p);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].eta, 0.2);
  EXPECT_EQ(r[0].x_over_c, 0.5);
  EXPECT_EQ(r[0].cp, -0.25);
  EXPECT_EQ(r[0].side, 1);
  EXPECT_EQ(r[1].side, 0);
  EXPECT_EQ(r[2].side, -1);
}

TEST(SectionReference, BadFilesNameTheFileAndLine) {
  expect_bad_input("/nonexistent/reference.csv", "cannot open the reference pressure file");
  const std::string header = written("header", "# c\nx,cp\n");
  expect_bad_input(header, header + ":2: the header is 'x,cp'");
  const std::string nan = written("nan", "eta,x_over_c,cp,side\n0.2,0.5,abc,1\n");
  expect_bad_input(nan, nan + ":2: 'abc' is not a number");
  const std::string columns = written("columns", "eta,x_over_c,cp,side\n0.2,0.5,1\n");
  expect_bad_input(columns, columns + ":2: 3 columns");
  const std::string range = written("range", "eta,x_over_c,cp,side\n1.2,0.5,0.1,1\n");
  expect_bad_input(range, range + ":2: eta = 1.2");
  const std::string side = written("side", "eta,x_over_c,cp,side\n0.2,0.5,0.1,2\n");
  expect_bad_input(side, side + ":2: side = 2");
  const std::string empty = written("empty", "eta,x_over_c,cp,side\n");
  expect_bad_input(empty, empty + ": no points");
}

// Computed Cp linear in x/c on each side (upper 1 - 2x, lower 0.5 - x) at
// unevenly spaced points; the reference is the same lines shifted by +0.1
// (upper) and -0.3 (lower), so every interpolated difference is exact.
TEST(SectionReference, ComparisonIsExactForLinearCurves) {
  std::vector<aero::SectionPoint> computed;
  for (double x : {0.0, 0.03, 0.1, 0.37, 0.5, 0.81, 1.0}) {
    computed.push_back({0.44, x, 0.0, 0.0, 1.0 - 2.0 * x, 1});
    computed.push_back({0.44, x, 0.0, 0.0, 0.5 - x, -1});
  }
  computed.push_back({0.65, 0.5, 0.0, 0.0, 0.0, 1});  // a station the reference lacks
  std::vector<aero::SectionPoint> reference;
  for (double x : {0.05, 0.2, 0.6, 0.9}) {
    reference.push_back({0.44, x, 0.0, 0.0, 1.0 - 2.0 * x + 0.1, 1});
    reference.push_back({0.44, x, 0.0, 0.0, 0.5 - x - 0.3, -1});
  }
  reference.push_back({0.44, 0.0, 0.0, 0.0, 1.0, 0});  // a leading-edge orifice: skipped
  reference.push_back({0.2, 0.5, 0.0, 0.0, 0.0, 1});   // a station not computed: left out
  const std::vector<aero::SectionComparison> c = aero::compare_sections(computed, reference);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].eta, 0.44);
  EXPECT_EQ(c[0].compared, 8);
  EXPECT_EQ(c[0].skipped, 1);
  // RMS of four differences -0.1 and four +0.3: sqrt((4 * 0.01 + 4 * 0.09) / 8).
  EXPECT_NEAR(c[0].rms, std::sqrt(0.05), 1e-14);
  EXPECT_NEAR(c[0].max_abs, 0.3, 1e-14);
  EXPECT_EQ(c[0].max_side, -1);
}

// The mean over [y0, y1] of sin(n theta), y = b cos theta: with
// dy = -b sin(theta) d theta, the integral of sin(n theta) sin(theta) is
// (sin((n - 1) t) / (n - 1) - sin((n + 1) t) / (n + 1)) / 2 (the first term
// t / 2 for n = 1).
double strip_mean(int n, double y0, double y1, double b) {
  const auto primitive = [n](double t) {
    const double first = n == 1 ? t : std::sin((n - 1) * t) / (n - 1);
    return 0.5 * (first - std::sin((n + 1) * t) / (n + 1));
  };
  const double t0 = std::acos(y0 / b), t1 = std::acos(y1 / b);
  return b * (primitive(t0) - primitive(t1)) / (y1 - y0);
}

// A load 4 b sum A_n sin(n theta) in `strips` strips.
aero::SpanLoad load_of(const std::vector<std::pair<int, double>>& terms, int strips, double b) {
  aero::SpanLoad load;
  load.semi_span = b;
  for (int j = 0; j < strips; ++j) {
    const double y0 = b * j / strips, y1 = b * (j + 1) / strips;
    load.y_lo.push_back(y0);
    load.y_hi.push_back(y1);
    double v = 0.0;
    for (const auto& [n, a] : terms) v += 4.0 * b * a * strip_mean(n, y0, y1, b);
    load.lift.push_back(v);
    load.drag.push_back(0.0);
  }
  return load;
}

TEST(SpanEfficiency, TheEllipticLoadHasEfficiencyOne) {
  const aero::SpanLoad load = load_of({{1, 0.02}}, 40, 3.06);
  const aero::SpanEfficiency fit = aero::span_efficiency(load, 5);
  ASSERT_EQ(fit.a.size(), 5u);
  // The strips' means are exact and the fit's (64-point midpoint) means
  // of sqrt-like terms near the tip are not: the gap they leave is small.
  EXPECT_NEAR(fit.a[0], 0.02, 1e-5);
  EXPECT_NEAR(fit.e, 1.0, 1e-6);
  EXPECT_LT(fit.elliptic_gap, 1e-3);
}

TEST(SpanEfficiency, OddHarmonicsLowerItAsLiftingLineTheorySays) {
  // e = 1 / (1 + 3 (A3/A1)^2 + 5 (A5/A1)^2) = 1 / (1 + 0.03 + 0.0125).
  const aero::SpanLoad load = load_of({{1, 0.02}, {3, 0.002}, {5, -0.001}}, 40, 3.0);
  const aero::SpanEfficiency fit = aero::span_efficiency(load, 5);
  EXPECT_NEAR(fit.a[1] / fit.a[0], 0.1, 1e-3);
  EXPECT_NEAR(fit.a[2] / fit.a[0], -0.05, 1e-3);
  EXPECT_NEAR(fit.e, 1.0 / 1.0425, 2e-4);
  EXPECT_GT(fit.elliptic_gap, 0.05);
  EXPECT_THROW(aero::span_efficiency(load, 0), Error);
  EXPECT_THROW(aero::span_efficiency(load, 41), Error);
}

}  // namespace
}  // namespace camber
