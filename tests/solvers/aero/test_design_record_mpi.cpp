// solvers/aero/design_record.hpp at 1, 2 and 4 ranks: a two-evaluation
// design of a NACA 0012 section (M 0.5, alpha 1 deg, first order, 3 bumps
// per surface) run with a DesignRecord as its hook writes what the design
// computed:
//  - the history CSV: one row per evaluation, its objective the
//    optimizer's history's to the 10 digits written;
//  - the baseline gradient: one row per shape variable, equal to the first
//    evaluation's objective gradient to 12 digits;
//  - the final design file: the result's shape variables, bit for bit;
//  - the ParaView series: one entry per evaluation, each file present;
//  - the paths write_final returns: the same on every rank, each present,
//    and output_rows lists each on a row of its own;
//  - the summary: the baseline's and the final CD and the geometry rows;
// and, before a run, the size line names the mesh's cells, the ranks, the
// variables and the objective, and the baseline lines the baseline's
// coefficients and the lift held.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <memory>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <camber/design/hicks_henne.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/aero/design_file.hpp>
#include <camber/solvers/aero/design_record.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/aero/aero_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
namespace fs = std::filesystem;


TEST(DesignRecord, WritesWhatTheDesignComputed) {
  const fs::path dir = test::scratch_dir("design_record_out", "two");
  const mesh::Mesh m = test::small_section_mesh();
  std::unique_ptr<aero::AirfoilDesign> design = test::small_section(m, test::world(), 2);
  aero::AirfoilDesign& problem = *design;
  aero::DesignRecordSettings r;
  r.name = "naca";
  r.dir = dir.string();
  r.objective = "cd";
  r.parametrization = "hicks_henne";
  r.walls = {"airfoil"};
  aero::DesignRecord record(problem, r, test::world());
  const aero::AirfoilDesignResult result = problem.run(std::ref(record));
  const std::vector<std::string> files = record.write_final(result);
  const std::string summary = record.summary(result, "\n  geometry rows here", 1.5);
  // Every rank the same list: rank 0's, sent.
  std::string listed;
  for (const std::string& f : files) listed += f + "\n";
  std::vector<char> root(listed.begin(), listed.end());
  int length = static_cast<int>(root.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, test::world());
  root.resize(static_cast<size_t>(length));
  MPI_Bcast(root.data(), length, MPI_CHAR, 0, test::world());
  EXPECT_EQ(std::string(root.begin(), root.end()), listed);

  const index_t n = problem.n_design();
  ASSERT_EQ(n, 6);
  ASSERT_GE(problem.history().size(), 2u);
  if (test::rank() != 0) return;
  const auto history = test::read_csv_rows(dir / "naca_optimizer_history.csv");
  ASSERT_EQ(history.size(), problem.history().size());
  for (size_t k = 0; k < history.size(); ++k) {
    EXPECT_EQ(history[k][0], static_cast<double>(k + 1));
    const double objective = problem.history()[k].values.objective;
    EXPECT_NEAR(history[k][1], objective, 1e-9 * std::abs(objective));
  }
  const auto gradient = test::read_csv_rows(dir / "hicks_henne_6.csv");
  const std::vector<double>& g = problem.history().front().values.objective_gradient;
  ASSERT_EQ(gradient.size(), g.size());
  for (size_t k = 0; k < g.size(); ++k) EXPECT_NEAR(gradient[k][1], g[k], 1e-11 * std::abs(g[k]) + 1e-300);
  const aero::DesignFile final_design = aero::read_design_file((dir / "naca_final_design.csv").string());
  EXPECT_EQ(final_design.shape,
            std::vector<double>(result.optimizer.x.begin(), result.optimizer.x.begin() + n));
  const std::string pvd = test::read_text(dir / "naca_designs.pvd");
  for (size_t k = 1; k <= history.size(); ++k) {
    const std::string file = io::series_file_name("naca_design", static_cast<int>(k)) + ".pvtu";
    EXPECT_NE(pvd.find(file), std::string::npos) << file;
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  }
  const std::string d = dir.string() + "/";
  for (const char* written : {"hicks_henne_6.csv", "naca_designs.pvd", "naca_optimizer_history.csv",
                              "naca_final_design.csv"})
    EXPECT_NE(std::find(files.begin(), files.end(), d + written), files.end()) << written;
  for (const std::string& f : files) EXPECT_TRUE(fs::exists(f)) << f;
  const std::string rows = aero::output_rows({"a.csv", "b.su2"});
  EXPECT_EQ(rows, "\n  outputs         a.csv\n                  b.su2");
  std::ostringstream cd;
  cd << std::fixed << std::setprecision(6) << result.baseline[1] << "    " << result.final[1];
  EXPECT_NE(summary.find(cd.str()), std::string::npos) << summary;
  EXPECT_NE(summary.find("geometry rows here"), std::string::npos);
  EXPECT_NE(summary.find("evaluations     " + std::to_string(result.optimizer.n_evaluations)),
            std::string::npos)
      << summary;
}

TEST(DesignRecord, SizeAndBaselineLinesAreTheProblems) {
  const mesh::Mesh m = test::small_section_mesh();
  aero::AirfoilDesignSettings s = test::small_section_settings(1);
  s.lift = aero::LiftConstraint::at_least;
  aero::AirfoilDesign problem(m, test::world(),
                              std::make_unique<design::HicksHenne>(m, std::vector<std::string>{"airfoil"},
                                                                   design::evenly_spaced_bumps(3)),
                              s);
  aero::DesignRecordSettings r;
  r.objective = "cd";
  r.parametrization = "hicks_henne";
  const aero::DesignRecord record(problem, r, test::world());
  std::ostringstream size;
  size << m.n_cells() << " cells on " << test::size() << (test::size() == 1 ? " rank" : " ranks")
       << ", 6 design variables (hicks_henne), objective cd";
  EXPECT_EQ(record.size_line(), size.str());

  const std::vector<std::string> lines = record.baseline_lines(", geometry here");
  ASSERT_EQ(lines.size(), 2u);  // the baseline, the lift held
  const std::array<double, 3>& b = problem.baseline();
  std::ostringstream baseline, lift;
  baseline << std::setprecision(6) << "baseline: CL " << b[0] << ", CD " << b[1] << ", CM " << b[2]
           << ", geometry here (";
  EXPECT_EQ(lines[0].rfind(baseline.str(), 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find(" Newton steps, "), std::string::npos) << lines[0];
  lift << std::setprecision(6) << "lift: CL >= " << b[0];  // the target: the baseline's CL
  EXPECT_EQ(lines[1], lift.str());
}

}  // namespace
}  // namespace camber
