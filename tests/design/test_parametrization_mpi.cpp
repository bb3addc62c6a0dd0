// design/parametrization.hpp at 1, 2 and 4 ranks: the parametrization a
// settings struct names, built from a distributed mesh, is the map of the
// class it names built from the whole mesh on one process (the same
// design variables, the same wall displacement to round-off, whatever the
// partition), with the design-variable counts of their definitions; a
// missing wall marker and the 3-D ffd_volume are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/design/cst.hpp>
#include <camber/design/ffd.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/parametrization.hpp>
#include <camber/mesh/generators.hpp>

#include "tests/mpi_test_utils.hpp"

namespace {

namespace design = camber::design;
namespace mesh = camber::mesh;
namespace test = camber::test;
using camber::Tensor;

mesh::Mesh ogrid() { return mesh::airfoil_ogrid(mesh::naca4("2412", true, 201), 48, 8, 1e-3, 20.0); }

// A design vector with every entry different: 1e-3 (k + 1) (-1)^k.
Tensor design_vector(camber::index_t n) {
  std::vector<double> a(static_cast<size_t>(n));
  for (size_t k = 0; k < a.size(); ++k) a[k] = 1e-3 * static_cast<double>(k + 1) * (k % 2 ? -1.0 : 1.0);
  return Tensor::from_host({n}, a);
}

void expect_same_map(const design::ShapeParametrization& built, const design::ShapeParametrization& direct) {
  ASSERT_EQ(built.n_design(), direct.n_design());
  const Tensor a = design_vector(built.n_design());
  const std::vector<double> d1 = built.displacement(a).to_vector(), d2 = direct.displacement(a).to_vector();
  ASSERT_EQ(d1.size(), d2.size());
  double scale = 0.0;
  for (double v : d2) scale = std::max(scale, std::abs(v));
  EXPECT_GT(scale, 1e-6);  // the design moves the wall
  for (size_t i = 0; i < d1.size(); ++i) EXPECT_NEAR(d1[i], d2[i], 1e-14 * scale) << "entry " << i;
  for (double v : built.displacement(Tensor::zeros({built.n_design()})).to_vector()) EXPECT_EQ(v, 0.0);
}

TEST(Parametrization, EachKindIsTheClassItNames) {
  const mesh::Mesh whole = ogrid();
  const mesh::DistributedMesh dm(ogrid(), test::world());
  design::ParametrizationSettings s;
  s.bumps_per_surface = 5;
  const auto hh = design::make_parametrization(s, dm);
  EXPECT_EQ(hh->n_design(), 10);  // one amplitude per bump, both surfaces
  expect_same_map(*hh, design::HicksHenne(whole, {"airfoil"}, design::evenly_spaced_bumps(5)));

  s.kind = design::ParametrizationKind::cst;
  s.cst.order = 4;
  const auto cst = design::make_parametrization(s, dm);
  EXPECT_EQ(cst->n_design(), 10);  // order + 1 coefficients per surface
  expect_same_map(*cst, design::Cst(whole, {"airfoil"}, s.cst));

  s.kind = design::ParametrizationKind::ffd;
  s.ffd.degree_x = 5;
  s.ffd.degree_y = 1;
  const auto ffd = design::make_parametrization(s, dm);
  expect_same_map(*ffd, design::FreeFormDeformation(whole, {"airfoil"}, s.ffd));
}

TEST(Parametrization, RefusesWhatItCannotBuild) {
  const mesh::DistributedMesh dm(ogrid(), test::world());
  design::ParametrizationSettings s;
  s.wall = "wing";
  try {
    design::make_parametrization(s, dm);
    ADD_FAILURE() << "a missing marker accepted";
  } catch (const camber::Error& e) {
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(std::string(e.what()).find("'wing'"), std::string::npos) << e.what();
  }
  s.wall = "airfoil";
  s.kind = design::ParametrizationKind::ffd_volume;
  EXPECT_THROW(design::make_parametrization(s, dm), camber::Error);
  s.kind = design::ParametrizationKind::hicks_henne;
  s.bumps_per_surface = 0;
  EXPECT_THROW(design::make_parametrization(s, dm), camber::Error);
}

}  // namespace
