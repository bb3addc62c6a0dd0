// solvers/aero/design_outputs.hpp at 1, 2 and 4 ranks: the final outputs
// of a one-evaluation design started away from the baseline (so the final
// design is that start), checked against computations made here:
//  - a NACA 0012 wing between symmetry planes in an FFD box of degree
//    (3, 2, 3) moved in z (4 variables): the SU2 mesh read back holds the
//    baseline's nodes moved by the box (design::FfdVolume applied here to
//    the global mesh) to 1e-12; the thickness CSV holds the stations, t0
//    and t of the result, and t / t0 to the 10 digits written; the
//    reported thinnest ratio is min t / t0 of the result's vectors
//    exactly, and t is the thickness measured again on the mesh read back
//    (design::WingThickness) to 1e-12; the station CSVs hold the wall
//    pressure of the flows at the baseline and the final design; the
//    ParaView files exist;
//  - a NACA 0012 section with 3 Hicks-Henne bumps per surface: the Selig
//    file's points are the wall nodes of the SU2 mesh read back (two
//    separate computations: the wall's parametrization and the volume
//    mesh's deformation) to the 10 digits written, in Selig order from
//    the fixed trailing edge (1, 0); the far field is where it was.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <camber/design/ffd_volume.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/wing_thickness.hpp>
#include <camber/mesh/su2_reader.hpp>
#include <camber/solvers/aero/design_outputs.hpp>
#include <camber/solvers/aero/flow_case.hpp>
#include <camber/solvers/aero/wing_sections.hpp>
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/aero/aero_test_utils.hpp"
#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber {
namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
namespace fs = std::filesystem;

// For every point of `got` (dim numbers each), the distance to the nearest
// point of `want`; each point of `want` must be nearest to exactly one of
// `got`. Returns the largest distance.
double largest_match_distance(const std::vector<double>& got, const std::vector<double>& want, int dim) {
  const size_t n = got.size() / static_cast<size_t>(dim), m = want.size() / static_cast<size_t>(dim);
  EXPECT_EQ(n, m);
  std::vector<int> hits(m, 0);
  double worst = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double best = std::numeric_limits<double>::infinity();
    size_t at = 0;
    for (size_t j = 0; j < m; ++j) {
      double d2 = 0.0;
      for (int c = 0; c < dim; ++c) {
        const double d = got[i * static_cast<size_t>(dim) + static_cast<size_t>(c)] -
                         want[j * static_cast<size_t>(dim) + static_cast<size_t>(c)];
        d2 += d * d;
      }
      if (d2 < best) best = d2, at = j;
    }
    ++hits[at];
    worst = std::max(worst, std::sqrt(best));
  }
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<long>(m)) << "a point matched twice";
  return worst;
}

bool listed(const std::vector<std::string>& files, const fs::path& path) {
  return std::find(files.begin(), files.end(), path.string()) != files.end();
}

TEST(DesignOutputs, WingFinalOutputsAreTheFinalDesigns) {
  const fs::path dir = test::scratch_dir("design_outputs_out", "wing");
  const mesh::Mesh global = eu::test_utils::extruded_wing(mesh::CellShape::quads);
  aero::WingDesignSettings s;
  s.flow.flow = eu::test_utils::wing_flow();
  s.flow.conditions = eu::test_utils::wing_conditions;
  s.flow.spatial.order = 1;
  s.flow.steady.rel_tolerance = 1e-10;
  s.walls = {"airfoil"};
  s.ffd.degree = {3, 2, 3};
  s.margin = 0.05;
  s.bound = 0.01;
  s.optimizer.max_evaluations = 1;
  s.start = {0.006, -0.004, 0.005, -0.007};
  aero::WingDesign problem(mesh::DistributedMesh(global, test::world()), s);
  ASSERT_EQ(problem.n_design(), 4);
  problem.baseline();
  aero::DesignRecordSettings r;
  r.name = "wing";
  r.dir = dir.string();
  r.walls = {"airfoil"};
  r.station_etas = {0.3, 0.7};
  const std::vector<std::string> baseline_files = aero::write_wing_stations(problem, r, "baseline");
  const aero::WingDesignResult result = problem.run();
  // The start, through the optimizer's scaling by the bound.
  ASSERT_EQ(result.final_shape.size(), s.start.size());
  for (size_t k = 0; k < s.start.size(); ++k) ASSERT_NEAR(result.final_shape[k], s.start[k], 1e-15);
  const aero::WingOutputs out = aero::write_final_wing(problem, result, r);

  // The files, the same list on every rank.
  EXPECT_EQ(baseline_files, (std::vector<std::string>{(dir / "wing_baseline_stations.csv").string(),
                                                      (dir / "wing_baseline_span_load.csv").string()}));
  EXPECT_EQ(out.files.size(), 6u);
  for (const char* f : {"wing_final.su2", "wing_final_stations.csv", "wing_final_span_load.csv",
                        "wing_final.pvtu", "wing_final_airfoil.pvtp", "wing_thickness.csv"}) {
    EXPECT_TRUE(listed(out.files, dir / f)) << f;
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }

  // The thinnest ratio: min t / t0 of the result's vectors, on every rank.
  const size_t n_stations = problem.thickness_stations().size();
  ASSERT_EQ(n_stations, s.thickness_etas.size() * s.thickness_chord_fractions.size());
  ASSERT_EQ(result.final_thickness.size(), n_stations);
  ASSERT_EQ(result.baseline_thickness.size(), n_stations);
  double thinnest = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < n_stations; ++k)
    thinnest = std::min(thinnest, result.final_thickness[k] / result.baseline_thickness[k]);
  EXPECT_EQ(out.thinnest_ratio, thinnest);
  EXPECT_GT(std::abs(thinnest - 1.0), 1e-4);  // the start did change the thickness

  // The SU2 mesh read back: the global mesh moved by the box, node by node.
  const mesh::MeshData back = mesh::read_su2_data((dir / "wing_final.su2").string());
  ASSERT_EQ(back.dim, 3);
  EXPECT_EQ(back.n_nodes(), global.n_nodes());
  EXPECT_EQ(back.n_cells(), global.n_cells());
  const design::FfdVolumeBox box =
      design::FfdVolume::box_around(mesh::DistributedMesh(global, test::world()), s.walls, s.margin);
  const design::FfdVolume ffd(box, global.coords(), s.ffd);
  const Tensor dx = ffd.apply(Tensor::from_host({ffd.n_design()}, result.final_shape));
  std::vector<double> moved = eu::test_utils::host_coords(global);
  const auto d = dx.host();
  for (size_t i = 0; i < moved.size(); ++i) moved[i] += d(static_cast<index_t>(i));
  EXPECT_LE(largest_match_distance(back.coords, moved, 3), 1e-12);

  // The thickness measured again on the mesh read back is the result's t.
  const design::WingThickness again(mesh::DistributedMesh(mesh::read_su2((dir / "wing_final.su2").string()),
                                                          test::world()),
                                    s.walls, s.thickness_etas, s.thickness_chord_fractions);
  const std::vector<double> t_measured = again.baseline();
  ASSERT_EQ(t_measured.size(), n_stations);
  for (size_t k = 0; k < n_stations; ++k)
    EXPECT_NEAR(t_measured[k], result.final_thickness[k], 1e-12) << "station " << k;

  // The final flow's station pressures (wing_sections gives rank 0 the points).
  const std::vector<aero::SectionPoint> final_points = aero::wing_sections(
      problem.flow().discretization(), problem.flow().state(), r.walls, r.station_etas);
  // The final flow's force coefficients (the flow holds the final design).
  const std::vector<double> final_coefficients =
      problem.flow().rank_coefficients(result.final_rows, result.final_alpha_deg).to_vector();
  if (test::rank() != 0) return;

  // The span load: its strips tile [0, b] and the lift and drag they hold,
  // summed over the span, are the flow's CL and CD times the reference
  // area (the same wall pressures, summed by strip rather than at once).
  const auto load = test::read_csv_rows(dir / "wing_final_span_load.csv");
  ASSERT_EQ(load.size(), static_cast<size_t>(aero::span_load_strips));
  double lift = 0.0, drag = 0.0;
  for (size_t j = 0; j < load.size(); ++j) {
    ASSERT_EQ(load[j].size(), 6u);
    if (j > 0) EXPECT_NEAR(load[j][0], load[j - 1][1], 1e-12);
    lift += load[j][3] * (load[j][1] - load[j][0]);
    drag += load[j][4] * (load[j][1] - load[j][0]);
  }
  EXPECT_EQ(load.front()[0], 0.0);
  EXPECT_NEAR(load.back()[1], eu::test_utils::span, 1e-12);
  EXPECT_NEAR(lift, final_coefficients[0] * s.flow.flow.reference_area, 1e-8);
  EXPECT_NEAR(drag, final_coefficients[1] * s.flow.flow.reference_area, 1e-8);
  EXPECT_GT(std::abs(final_coefficients[0]), 1e-3);
  // The baseline's wall faces are three spanwise layers of 0.2 (the
  // section tapering slowly with y), which the 40 strips of 0.015 do not
  // align with: each strip holds its area share of the faces it crosses,
  // so the load changes smoothly inside a layer (by under 1e-3 of the mean
  // between neighbours) and a strip across a layer's edge holds a value
  // between its neighbours' (binned whole by their centroids, the faces
  // would load three strips and leave the others empty).
  const auto base_load = test::read_csv_rows(dir / "wing_baseline_span_load.csv");
  ASSERT_EQ(base_load.size(), load.size());
  double mean = 0.0;
  for (const auto& row : base_load) mean += row[3] / static_cast<double>(base_load.size());
  EXPECT_GT(std::abs(mean), 1e-3);
  const double layer = eu::test_utils::span / 3.0;
  for (size_t j = 1; j + 1 < base_load.size(); ++j) {
    const double lo = base_load[j][0], hi = base_load[j][1];
    const bool across = std::floor(lo / layer + 1e-12) != std::floor(hi / layer - 1e-12);
    if (across) {
      EXPECT_GE(base_load[j][3], std::min(base_load[j - 1][3], base_load[j + 1][3])) << "strip " << j;
      EXPECT_LE(base_load[j][3], std::max(base_load[j - 1][3], base_load[j + 1][3])) << "strip " << j;
    } else if (std::floor(base_load[j - 1][0] / layer + 1e-12) ==
               std::floor(base_load[j - 1][1] / layer - 1e-12)) {
      EXPECT_NEAR(base_load[j][3], base_load[j - 1][3], 1e-3 * std::abs(mean)) << "strip " << j;
    }
  }

  // The thickness table: the stations, the result's t0 and t, and t / t0
  // to the 10 significant digits written.
  const auto rows = test::read_csv_rows(dir / "wing_thickness.csv");
  ASSERT_EQ(rows.size(), n_stations);
  double thinnest_written = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < n_stations; ++k) {
    const design::WingStation& st = problem.thickness_stations().stations()[k];
    ASSERT_EQ(rows[k].size(), 7u);
    const double t0 = result.baseline_thickness[k], t = result.final_thickness[k];
    EXPECT_NEAR(rows[k][0], st.eta, 1e-9);
    EXPECT_NEAR(rows[k][1], st.x_over_c, 1e-9);
    EXPECT_NEAR(rows[k][2], st.x, 1e-9);
    EXPECT_NEAR(rows[k][3], st.y, 1e-9);
    EXPECT_NEAR(rows[k][4], t0, 1e-9 * t0);
    EXPECT_NEAR(rows[k][5], t, 1e-9 * t);
    EXPECT_NEAR(rows[k][6], t / t0, 1e-9 * t / t0);
    thinnest_written = std::min(thinnest_written, rows[k][6]);
  }
  EXPECT_NEAR(thinnest_written, out.thinnest_ratio, 1e-9);

  const auto stations = test::read_csv_rows(dir / "wing_final_stations.csv");
  ASSERT_EQ(stations.size(), final_points.size());
  ASSERT_FALSE(stations.empty());
  for (size_t i = 0; i < stations.size(); ++i) {
    EXPECT_TRUE(stations[i][0] == 0.3 || stations[i][0] == 0.7) << stations[i][0];
    EXPECT_NEAR(stations[i][2], final_points[i].x, 1e-9);
    EXPECT_NEAR(stations[i][3], final_points[i].z, 1e-9);
    EXPECT_NEAR(stations[i][4], final_points[i].cp, 1e-9 * (1.0 + std::abs(final_points[i].cp)));
  }
  // The baseline's stations cut the same faces of the undeformed wall: as
  // many points, none moved in x/c's order (the box moves nodes in z only).
  const auto base_stations = test::read_csv_rows(dir / "wing_baseline_stations.csv");
  ASSERT_EQ(base_stations.size(), stations.size());
  double moved_z = 0.0;
  for (size_t i = 0; i < stations.size(); ++i) {
    EXPECT_NEAR(base_stations[i][2], stations[i][2], 1e-9);
    moved_z = std::max(moved_z, std::abs(base_stations[i][3] - stations[i][3]));
  }
  EXPECT_GT(moved_z, 1e-4);
}

TEST(DesignOutputs, AirfoilSeligFileIsTheFinalMeshsWall) {
  const fs::path dir = test::scratch_dir("design_outputs_out", "airfoil");
  const mesh::Mesh m = test::small_section_mesh();
  aero::AirfoilDesignSettings s = test::small_section_settings(1);
  s.start = {0.0015, -0.001, 0.0005, 0.001, -0.0015, 0.002};
  aero::AirfoilDesign problem(
      m, test::world(),
      std::make_unique<design::HicksHenne>(m, std::vector<std::string>{"airfoil"},
                                           design::evenly_spaced_bumps(3)),
      s);
  ASSERT_EQ(problem.n_design(), 6);
  const aero::AirfoilDesignResult result = problem.run();
  ASSERT_EQ(result.final_shape.size(), s.start.size());
  for (size_t k = 0; k < s.start.size(); ++k) ASSERT_NEAR(result.final_shape[k], s.start[k], 1e-15);
  aero::DesignRecordSettings r;
  r.name = "naca";
  r.dir = dir.string();
  const std::vector<std::string> files = aero::write_final_airfoil(problem, result, r);
  EXPECT_EQ(files, (std::vector<std::string>{(dir / "naca_final.dat").string(),
                                             (dir / "naca_final.su2").string()}));
  if (test::rank() != 0) return;

  // The Selig file: its title, then one point per wall node.
  std::ifstream in(dir / "naca_final.dat");
  std::string title;
  std::getline(in, title);
  EXPECT_EQ(title, "naca (camber optimize, final design)");
  std::vector<double> dat;
  for (double x, y; in >> x >> y;) dat.insert(dat.end(), {x, y});

  // The SU2 mesh read back: the wall marker's nodes, and the far field's.
  const mesh::MeshData back = mesh::read_su2_data((dir / "naca_final.su2").string());
  ASSERT_EQ(back.dim, 2);
  EXPECT_EQ(back.n_nodes(), m.n_nodes());
  const auto marker_points = [](const mesh::MeshData& md, const std::string& name) {
    std::vector<index_t> nodes;
    for (const mesh::MeshData::Marker& mk : md.markers)
      if (mk.name == name) nodes = mk.nodes;
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    std::vector<double> p;
    for (index_t n : nodes)
      p.insert(p.end(), {md.coords[static_cast<size_t>(2 * n)], md.coords[static_cast<size_t>(2 * n + 1)]});
    return p;
  };
  const std::vector<double> wall = marker_points(back, "airfoil");
  ASSERT_EQ(dat.size(), wall.size());
  EXPECT_LE(largest_match_distance(dat, wall, 2), 1e-9);

  // Selig order: from the trailing edge, which the bumps leave at (1, 0),
  // forward along one surface to the leading edge and back along the other.
  ASSERT_GE(dat.size(), 6u);
  EXPECT_NEAR(dat[0], 1.0, 1e-9);
  EXPECT_NEAR(dat[1], 0.0, 1e-9);
  const size_t n = dat.size() / 2;
  size_t le = 0;
  for (size_t i = 0; i < n; ++i)
    if (dat[2 * i] < dat[2 * le]) le = i;
  for (size_t i = 1; i < n; ++i) {
    if (i <= le)
      EXPECT_LT(dat[2 * i], dat[2 * (i - 1)]) << i;
    else
      EXPECT_GT(dat[2 * i], dat[2 * (i - 1)]) << i;
  }

  // The design moved the wall but not the far field: the distance from
  // each marker node to the nearest node of the undeformed mesh.
  const auto x0 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  const auto nearest_undeformed = [&](const std::vector<double>& p) {
    double worst = 0.0;
    for (size_t i = 0; i < p.size() / 2; ++i) {
      double best = std::numeric_limits<double>::infinity();
      for (index_t j = 0; j < m.n_nodes(); ++j)
        best = std::min(best, std::hypot(p[2 * i] - x0(j, 0), p[2 * i + 1] - x0(j, 1)));
      worst = std::max(worst, best);
    }
    return worst;
  };
  const std::vector<double> far = marker_points(back, "farfield");
  ASSERT_FALSE(far.empty());
  EXPECT_LE(nearest_undeformed(far), 1e-12);
  EXPECT_GT(nearest_undeformed(wall), 1e-4);
}

}  // namespace
}  // namespace camber
