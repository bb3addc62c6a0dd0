// solvers/aero/airfoil_sampler.hpp at 1, 2 and 4 ranks on the small
// section of aero_test_utils.hpp (NACA 0012, 48 x 24, M 0.5, first order):
//  - without gradients a sample is the flow solve_steady gives at that
//    Mach number and angle (forces to 1e-12), with the columns named;
//  - with gradients, d(CL, CD, CM)/d(mach, alpha) against central
//    differences of samples (steps 1e-3 and 1e-2 deg; 2e-4 of the largest
//    entry: differences of solves converged to 1e-10);
//  - with the shape varied, the fourth output t_max and every output's
//    derivative in the first shape variable against central differences
//    (step 2e-4 chords; 1e-7 for t_max, piecewise linear in the shape);
//  - a shape range outside the bound (naming the member shape) and a
//    point of the wrong length are bad input;
//  - the identity names the ranges, the shape variables and their
//    parametrization, gradients, the mesh's cells and the scheme;
//  - force_output gives each output the sampler names its force (NaN for
//    t_max and any other name), and a sample's forces by their names.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/enum_names.hpp>
#include <camber/core/error.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/solvers/aero/airfoil_sampler.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>

#include "aero_test_utils.hpp"
#include "tests/common/bad_input.hpp"
#include "tests/mpi_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace {

namespace aero = camber::solvers::aero;
namespace eu = camber::solvers::euler;
namespace mesh = camber::mesh;
namespace test = camber::test;
namespace design = camber::design;

std::unique_ptr<aero::AirfoilSampler> sampler(const mesh::Mesh& m, const aero::AirfoilSampleSpace& space) {
  mesh::DistributedMesh dm(m, test::world());
  std::unique_ptr<design::ShapeParametrization> shape;
  if (space.gradients || !space.shape.empty())
    shape = std::make_unique<design::HicksHenne>(m, std::vector<std::string>{"airfoil"},
                                                 design::evenly_spaced_bumps(3));
  return std::make_unique<aero::AirfoilSampler>(dm, space, test::small_section_settings(1), std::move(shape));
}

// |a - b| <= tol * max |b| entry by entry.
void expect_close(const std::vector<double>& a, const std::vector<double>& b, double tol, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  double scale = 0.0;
  for (double v : b) scale = std::max(scale, std::abs(v));
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol * scale) << what << " entry " << i;
}

TEST(AirfoilSampler, ForceOutputsAreTheForcesByTheSamplersNames) {
  eu::Forces f;
  f.cl = 0.31;
  f.cd = 0.0207;
  f.cm = -0.043;
  f.fx = 7.0;
  EXPECT_EQ(aero::force_output(f, "CL"), 0.31);
  EXPECT_EQ(aero::force_output(f, "CD"), 0.0207);
  EXPECT_EQ(aero::force_output(f, "CM"), -0.043);
  for (const char* other : {"t_max", "cl", "fx", ""}) EXPECT_TRUE(std::isnan(aero::force_output(f, other))) << other;
}

TEST(AirfoilSampler, ASampleIsTheFlowAtItsPoint) {
  const mesh::Mesh m = test::small_section_mesh();
  auto s = sampler(m, {});
  EXPECT_EQ(s->inputs().names, (std::vector<std::string>{"mach", "alpha_deg"}));
  EXPECT_EQ(s->outputs().names, (std::vector<std::string>{"CL", "CD", "CM"}));
  EXPECT_FALSE(s->gradients());
  const aero::FlowSample f = (*s)({0.45, 2.0});
  EXPECT_TRUE(f.converged);
  EXPECT_TRUE(f.gradients.empty());

  mesh::DistributedMesh dm(m, test::world());
  const aero::AirfoilDesignSettings set = test::small_section_settings(1);
  eu::FlowConditions flow = set.flow.flow;
  flow.mach = 0.45;
  flow.alpha_deg = 2.0;
  eu::Discretization disc(dm, flow, set.flow.conditions, set.flow.scheme, set.flow.spatial);
  camber::Tensor U = disc.free_stream_field();
  const eu::SteadyResult r = eu::solve_steady(disc, U, set.flow.steady, {});
  expect_close(f.outputs, {r.forces.cl, r.forces.cd, r.forces.cm}, 1e-12, "forces");
  for (size_t k = 0; k < f.outputs.size(); ++k)
    EXPECT_NEAR(aero::force_output(r.forces, s->outputs().names[k]), f.outputs[k], 1e-12) << k;
  EXPECT_EQ(f.iterations, r.iterations);
  EXPECT_THROW((*s)({0.45}), camber::Error);
}

TEST(AirfoilSampler, GradientsAreCentralDifferencesOfSamples) {
  const mesh::Mesh m = test::small_section_mesh();
  aero::AirfoilSampleSpace space;
  space.gradients = true;
  auto s = sampler(m, space);
  const std::vector<double> x{0.5, 1.0};
  const aero::FlowSample f = (*s)(x);
  ASSERT_EQ(f.gradients.size(), 6u);
  const std::vector<double> h{1e-3, 1e-2};
  for (size_t i = 0; i < 2; ++i) {
    const std::vector<double> fd =
        test::central_partial([&](const std::vector<double>& y) { return (*s)(y).outputs; }, x, i, h[i]);
    std::vector<double> adjoint;
    for (size_t o = 0; o < 3; ++o) adjoint.push_back(f.gradients[o * 2 + i]);
    expect_close(adjoint, fd, 2e-4, i == 0 ? "d/dmach" : "d/dalpha");
  }
}

TEST(AirfoilSampler, AVariedShapeAddsTheThicknessAndItsDerivatives) {
  const mesh::Mesh m = test::small_section_mesh();
  aero::AirfoilSampleSpace space;
  space.shape = {-0.002, 0.002};
  auto s = sampler(m, space);
  ASSERT_EQ(s->n_shape(), 6);
  EXPECT_EQ(s->inputs().names.size(), 8u);
  EXPECT_EQ(s->inputs().names[2], "shape_0");
  EXPECT_EQ(s->outputs().names.back(), "t_max");
  EXPECT_EQ(s->ranges()[7], (std::array<double, 2>{-0.002, 0.002}));
  std::vector<double> x(8, 0.0);
  x[0] = 0.5;
  x[1] = 1.0;
  x[3] = 0.001;
  const aero::FlowSample f = (*s)(x);
  ASSERT_EQ(f.outputs.size(), 4u);
  EXPECT_NEAR(f.outputs[3], 0.12, 0.01);  // a NACA 0012, a bump of 0.001 chords on it
  const auto outputs = [&](const std::vector<double>& y) { return (*s)(y).outputs; };
  const std::vector<double> fd = test::central_partial(outputs, x, 2, 2e-4);
  std::vector<double> adjoint;
  for (size_t o = 0; o < 3; ++o) adjoint.push_back(f.gradients[o * 8 + 2]);
  expect_close(adjoint, {fd[0], fd[1], fd[2]}, 2e-4, "d(CL, CD, CM)/dshape_0");
  // t_max is the largest of the stations' thicknesses, linear in the shape
  // on each piece: a step of 1e-7 chords stays on the piece at x (2e-4 may
  // cross to another station), and the value is exact, so 1e-6.
  const std::vector<double> fd_t = test::central_partial(outputs, x, 2, 1e-7);
  EXPECT_NEAR(f.gradients[3 * 8 + 2], fd_t[3], 1e-6 * std::abs(fd_t[3])) << "dt_max/dshape_0";

  EXPECT_EQ(s->identity("hicks_henne"),
            "mach=0.29999999999999999,0.59999999999999998 alpha_deg=-2,4 shape=-0.002,0.002 "
            "shape_variables=6 parametrization=hicks_henne gradients=1 cells=" +
                std::to_string(m.n_cells()) + " order=1 limiter=" +
                std::string(camber::enum_name(eu::limiter_kind_names,
                                              test::small_section_settings(1).flow.spatial.limiter)));

  space.shape = {-0.01, 0.002};  // beyond the bound 0.002
  const std::string refused = test::bad_input_message([&] { sampler(m, space); });
  EXPECT_NE(refused.find("airfoil sampler: shape: [-0.01, 0.002] lies outside [-bound, bound]"),
            std::string::npos)
      << refused;
}

TEST(AirfoilSampler, TheIdentityOfMachAndAlphaOnly) {
  const mesh::Mesh m = test::small_section_mesh();
  aero::AirfoilSampleSpace space;
  space.mach = {0.5, 0.75};
  space.alpha_deg = {-1.5, 2.5};
  auto s = sampler(m, space);
  EXPECT_FALSE(space.with_gradients());
  // Reals to 17 digits: 0.5, 0.75, -1.5 and 2.5 are exact binary fractions.
  EXPECT_EQ(s->identity("unused"),
            "mach=0.5,0.75 alpha_deg=-1.5,2.5 cells=" + std::to_string(m.n_cells()) + " order=1 limiter=" +
                std::string(camber::enum_name(eu::limiter_kind_names,
                                              test::small_section_settings(1).flow.spatial.limiter)));
}

}  // namespace
