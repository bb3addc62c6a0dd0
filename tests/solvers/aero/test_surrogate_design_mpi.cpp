// solvers/aero/surrogate_design.hpp at 1, 2 and 4 ranks: a NACA 0012
// section (M 0.5, alpha 1 deg, first order, 3 bumps per surface, the
// thickness held) designed through the trust region of two small networks
// for at most 4 flows:
//  - the trust region drives the run (its result counts the flows, at most
//    4) and the record holds one row per flow, evaluations 1, 2, ...;
//  - an accepted step lowers the merit, so the best design's drag is at
//    most the baseline's;
//  - the summary states the flows and the steps accepted;
//  - radii out of order are bad input; the defaults are the design's
//    (subproblem by SLSQP in 300 network evaluations).
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/aero/surrogate_design.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/aero/aero_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
namespace fs = std::filesystem;

aero::SurrogateDesignSettings small_networks(const fs::path& dir) {
  aero::SurrogateDesignSettings t;
  t.ensemble.members = 2;
  t.ensemble.hidden = {8};
  t.ensemble.epochs = 60;
  t.record_path = (dir / "trust_region.csv").string();
  return t;
}

TEST(SurrogateDesign, TheTrustRegionDrivesTheRunAndIsRecorded) {
  const fs::path dir = test::scratch_dir("surrogate_design_out", "run");
  const mesh::Mesh m = test::small_section_mesh();
  std::unique_ptr<aero::AirfoilDesign> design = test::small_section(m, test::world(), 4);
  aero::SurrogateDesign surrogate(*design, small_networks(dir), test::world());
  const aero::AirfoilDesignResult r = design->run();
  surrogate.write_final();
  const opt::TrustRegionResult& t = design->trust_region_result();
  EXPECT_GE(t.n_evaluations, 1);
  EXPECT_LE(t.n_evaluations, 4);
  EXPECT_LE(r.optimizer.objective, r.baseline[1] * (1.0 + 1e-12));
  const std::string summary = surrogate.summary();
  EXPECT_NE(summary.find("trust region    " + std::to_string(t.n_evaluations) + " flows"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find(std::to_string(t.n_accepted) + " steps accepted"), std::string::npos);
  if (test::rank() != 0) return;
  const auto rows = test::read_csv_rows(dir / "trust_region.csv");
  ASSERT_EQ(static_cast<int>(rows.size()), t.n_evaluations);
  for (size_t k = 0; k < rows.size(); ++k) EXPECT_EQ(rows[k][0], static_cast<double>(k + 1));
}

TEST(SurrogateDesign, DefaultsAndBadRadii) {
  const opt::TrustRegionOptions o = aero::design_trust_region_options();
  EXPECT_EQ(o.subproblem.algorithm, "slsqp");
  EXPECT_EQ(o.subproblem.max_evaluations, 300);
  EXPECT_EQ(aero::SurrogateDesignSettings{}.region.subproblem.max_evaluations, 300);
  const fs::path dir = test::scratch_dir("surrogate_design_out", "bad");
  const mesh::Mesh m =
      mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 32, 12, 0.25 / 32, 20.0);
  std::unique_ptr<aero::AirfoilDesign> design = test::small_section(m, test::world(), 4);
  aero::SurrogateDesignSettings t = small_networks(dir);
  t.region.initial_radius = 2.0;  // above max_radius 1
  try {
    aero::SurrogateDesign surrogate(*design, t, test::world());
    FAIL() << "radii out of order";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_NE(e.message().find("min_radius <= initial_radius <= max_radius"), std::string::npos);
  }
}

}  // namespace
}  // namespace camber
