// solvers/heat/twin_experiment.hpp at 1, 2 and 4 ranks: the Gaussian
// fields against their formula, the sensor grid at the strips' centres of
// the global bounding box whatever the partition, the problem's fields,
// bounds and tolerances as the settings give them, bad settings refused,
// the history file's rows, and the ParaView series of a result: one step
// whose file lists the five cell fields.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/heat/twin_experiment.hpp>

#include "tests/mpi_test_utils.hpp"

namespace {

namespace heat = camber::solvers::heat;
namespace mesh = camber::mesh;
namespace test = camber::test;

TEST(TwinExperiment, GaussianBumpIsItsFormula) {
  const heat::GaussianBump g{1.0, 3.0, {0.6, 0.4}, 0.2};
  EXPECT_DOUBLE_EQ(g(0.6, 0.4), 3.0);
  // One radius away the excess over the background falls by e.
  EXPECT_NEAR(g(0.8, 0.4), 1.0 + 2.0 / std::exp(1.0), 1e-15);
  EXPECT_NEAR(g(0.6, 0.2), 1.0 + 2.0 / std::exp(1.0), 1e-15);
  EXPECT_NEAR(g(10.0, 10.0), 1.0, 1e-15);
}

TEST(TwinExperiment, SensorsSitAtTheStripCentresOfTheWholeMesh) {
  // A 1.2 x 0.8 rectangle: each rank sees part of it, the grid spans all.
  const mesh::DistributedMesh dm(mesh::rectangle(12, 8, 1.2, 0.8), test::world());
  const auto s = heat::sensor_grid(dm, 3, 2);
  ASSERT_EQ(s.size(), 6u);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 3; ++i) {
      EXPECT_NEAR(s[static_cast<size_t>(j * 3 + i)][0], 1.2 * (i + 0.5) / 3.0, 1e-14);
      EXPECT_NEAR(s[static_cast<size_t>(j * 3 + i)][1], 0.8 * (j + 0.5) / 2.0, 1e-14);
    }
  EXPECT_THROW(heat::sensor_grid(dm, 0, 2), camber::Error);
}

TEST(TwinExperiment, TheProblemIsTheSettings) {
  const mesh::DistributedMesh dm(mesh::rectangle(8, 8, 1.0, 1.0), test::world());
  heat::TwinExperiment t;
  t.boundary_temperature = 3.5;
  t.sensors_x = 4;
  t.sensors_y = 5;
  t.initial_conductivity = 2.0;
  t.min_conductivity = 0.5;
  t.max_conductivity = 8.0;
  t.max_evaluations = 7;
  t.rtol = 1e-5;
  t.atol = 1e-8;
  t.checkpoint_steps = 33;
  const heat::ConductivityInverseProblem p = heat::twin_problem(t, dm);
  EXPECT_EQ(p.sensors.size(), 20u);
  EXPECT_EQ(p.times, t.times);
  // Every marker of the rectangle is held at the boundary temperature.
  ASSERT_EQ(p.model.boundary.size(), dm.local().markers().size());
  for (const mesh::Marker& m : dm.local().markers()) ASSERT_EQ(p.model.boundary.count(m.name), 1u);
  for (const auto& [x, y] : {std::pair{0.5, 0.5}, std::pair{0.6, 0.4}, std::pair{0.1, 0.9}}) {
    EXPECT_NEAR(p.model.source(x, y),
                20.0 * std::exp(-((x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5)) / 0.09), 1e-12);
    EXPECT_NEAR(p.true_log_conductivity(x, y),
                std::log(1.0 + std::exp(-((x - 0.6) * (x - 0.6) + (y - 0.4) * (y - 0.4)) / 0.0225)),
                1e-12);
  }
  EXPECT_NEAR(p.initial_log_conductivity, std::log(2.0), 1e-15);
  EXPECT_NEAR(p.lower_log_conductivity, std::log(0.5), 1e-15);
  EXPECT_NEAR(p.upper_log_conductivity, std::log(8.0), 1e-15);
  EXPECT_EQ(p.optimizer.max_evaluations, 7);
  EXPECT_EQ(p.ode.rtol, 1e-5);
  EXPECT_EQ(p.adjoint.quad_atol, 1e-8);
  EXPECT_EQ(p.adjoint.checkpoint_steps, 33);

  heat::TwinExperiment bad = t;
  bad.min_conductivity = 9.0;  // above max
  EXPECT_THROW(heat::twin_problem(bad, dm), camber::Error);
  bad = t;
  bad.conductivity.radius = 0.0;
  EXPECT_THROW(heat::twin_problem(bad, dm), camber::Error);
  bad = t;
  bad.initial_conductivity = 10.0;  // outside the bounds
  EXPECT_THROW(heat::twin_problem(bad, dm), camber::Error);
  bad = t;
  bad.times = {0.1, 0.05};
  EXPECT_THROW(heat::twin_problem(bad, dm), camber::Error);
}

TEST(TwinExperiment, HistoryFileHoldsEveryEvaluation) {
  const std::filesystem::path dir = test::scratch_dir("twin_experiment_out", "history");
  heat::ConductivityInverseResult r;
  r.objective_history = {4.0, 2.5, 1.25};
  r.error_history = {0.5, 0.25, 0.125};
  const std::filesystem::path path = dir / "sub" / "case_history.csv";
  if (test::rank() == 0) heat::write_inverse_history_csv(path.string(), r);
  MPI_Barrier(test::world());
  EXPECT_EQ(test::read_text(path).substr(0, 29), "evaluation,objective,k_error\n");
  const auto rows = test::read_csv_rows(path);
  ASSERT_EQ(rows.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(rows[i], (std::vector<double>{double(i + 1), r.objective_history[i], r.error_history[i]}));
}

TEST(TwinExperiment, TheParaViewSeriesHoldsTheFieldsOfAResult) {
  const std::filesystem::path dir = test::scratch_dir("twin_experiment_out", "paraview");
  mesh::DistributedMesh dm(mesh::rectangle(8, 8, 1.0, 1.0), test::world());
  heat::TwinExperiment t;
  t.sensors_x = t.sensors_y = 2;
  const heat::ConductivityInverseProblem p = heat::twin_problem(t, dm);
  heat::ConductivityInverseResult r;
  const size_t n = static_cast<size_t>(dm.n_owned_cells());
  r.true_m.assign(n, std::log(2.0));
  r.recovered_m.assign(n, std::log(1.5));
  r.final_temperature.assign(n, 0.25);
  const std::string pvd = heat::write_inverse_paraview(dir.string(), "inverse", dm, p, r);
  EXPECT_EQ(pvd, dir.string() + "/inverse.pvd");
  MPI_Barrier(test::world());
  const std::string pvtu = test::read_text(dir / (camber::io::series_file_name("inverse", 0) + ".pvtu"));
  for (const char* field : {"True conductivity [W/(m K)]", "Recovered conductivity [W/(m K)]",
                            "Conductivity error [W/(m K)]", "Final temperature [K]", "Sensor"})
    EXPECT_NE(pvtu.find(std::string("Name=\"") + field + "\""), std::string::npos) << field;
  EXPECT_NE(test::read_text(dir / "inverse.pvd").find(camber::io::series_file_name("inverse", 0) + ".pvtu"),
            std::string::npos);
}

}  // namespace
