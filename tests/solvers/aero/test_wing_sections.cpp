// Reference pressures at wing stations (solvers/aero/wing_sections.hpp):
// the CSV reader's errors name the file and line, and the comparison of
// computed with reference Cp is exact where the computed curve is linear.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
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

}  // namespace
}  // namespace camber
