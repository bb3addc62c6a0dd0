// solvers/euler/flow_conditions.hpp against exact values: the
// nondimensional free stream in 2-D and 3-D (density 1, speed Mach along
// alpha, pressure 1/gamma, so speed of sound 1), the physical scales, and
// the enums' name tables (each name its value and back, the library's
// defaults first, an unknown name bad input).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/euler/flow_conditions.hpp>

namespace {

namespace eu = camber::solvers::euler;

eu::FlowConditions conditions() {
  eu::FlowConditions f;
  f.mach = 0.8;
  f.alpha_deg = 1.25;
  f.gamma = 1.3;
  f.gas_constant = 290.0;
  f.pressure = 8.0e4;
  f.temperature = 260.0;
  return f;
}

TEST(FlowConditions, FreeStream2D) {
  const eu::FlowConditions f = conditions();
  const eu::Conserved<double, 2> u = f.free_stream();
  const double a = 1.25 * M_PI / 180.0, p = 1.0 / 1.3;
  EXPECT_DOUBLE_EQ(u[0], 1.0);
  EXPECT_DOUBLE_EQ(u[1], 0.8 * std::cos(a));
  EXPECT_DOUBLE_EQ(u[2], 0.8 * std::sin(a));
  // E = p / (gamma - 1) + rho |u|^2 / 2
  EXPECT_NEAR(u[3], p / 0.3 + 0.5 * 0.64, 1e-15);
  const eu::Primitive<double, 2> w = eu::to_primitive(eu::IdealGas{1.3}, u);
  EXPECT_NEAR(w.p, p, 1e-15);
  EXPECT_NEAR(eu::mach_number(eu::IdealGas{1.3}, w), 0.8, 1e-15);
}

TEST(FlowConditions, FreeStream3DLiesInTheXZPlane) {
  const eu::FlowConditions f = conditions();
  const eu::Conserved<double, 3> u = f.free_stream<3>();
  const double a = 1.25 * M_PI / 180.0, p = 1.0 / 1.3;
  EXPECT_DOUBLE_EQ(u[0], 1.0);
  EXPECT_DOUBLE_EQ(u[1], 0.8 * std::cos(a));
  EXPECT_EQ(u[2], 0.0);
  EXPECT_DOUBLE_EQ(u[3], 0.8 * std::sin(a));
  EXPECT_NEAR(u[4], p / 0.3 + 0.5 * 0.64, 1e-15);
}

TEST(FlowConditions, PhysicalScales) {
  const eu::FlowConditions f = conditions();
  const double rho = 8.0e4 / (290.0 * 260.0), c = std::sqrt(1.3 * 290.0 * 260.0);
  EXPECT_DOUBLE_EQ(f.density_scale(), rho);
  EXPECT_DOUBLE_EQ(f.velocity_scale(), c);
  // The nondimensional free-stream pressure 1/gamma is the physical one.
  EXPECT_NEAR(f.pressure_scale() / 1.3, 8.0e4, 1e-9);
}

template <class Names>
void expect_round_trip(const Names& names) {
  for (const auto& n : names) {
    EXPECT_EQ(camber::enum_from_name(names, n.name, "key"), n.value);
    EXPECT_EQ(camber::enum_name(names, n.value), n.name);
  }
  EXPECT_THROW(camber::enum_from_name(names, "no_such_name", "key"), camber::Error);
}

TEST(FlowConditions, NameTables) {
  expect_round_trip(eu::boundary_kind_names);
  expect_round_trip(eu::flux_scheme_names);
  EXPECT_EQ(eu::flux_scheme_names[0].value, eu::FluxScheme::roe);
  for (const auto& n : eu::boundary_kind_names)
    EXPECT_EQ(std::string(eu::boundary_kind_name(n.value)), n.name);
  const eu::BoundaryCondition c;
  EXPECT_EQ(c.kind, eu::BoundaryKind::slip_wall);
}

TEST(FlowConditions, BoundaryConditionsCheckedAgainstTheMarkers) {
  using Kind = eu::BoundaryProblem::Kind;
  const std::vector<std::string> markers = {"airfoil", "farfield"};
  const auto wall = eu::BoundaryKind::slip_wall, far = eu::BoundaryKind::far_field;
  EXPECT_EQ(eu::check_boundary_conditions(markers, {{"airfoil", wall}, {"farfield", far}}).kind,
            Kind::none);

  eu::BoundaryProblem p = eu::check_boundary_conditions(markers, {{"wing", wall}, {"farfield", far}});
  EXPECT_EQ(p.kind, Kind::unknown_marker);
  EXPECT_EQ(p.marker, "wing");
  EXPECT_EQ(p.condition, wall);
  EXPECT_EQ(p.message, "the mesh has no marker 'wing'; its markers are: airfoil, farfield");

  p = eu::check_boundary_conditions(markers, {{"airfoil", wall}, {"farfield", far}, {"airfoil", far}});
  EXPECT_EQ(p.kind, Kind::duplicate);
  EXPECT_EQ(p.marker, "airfoil");
  EXPECT_EQ(p.condition, far);

  p = eu::check_boundary_conditions(markers, {{"airfoil", wall}});
  EXPECT_EQ(p.kind, Kind::missing);
  EXPECT_EQ(p.marker, "farfield");
  EXPECT_NE(p.message.find("has no boundary condition; give it one of slip_wall, symmetry, "
                           "far_field, supersonic_inflow, supersonic_outflow"),
            std::string::npos)
      << p.message;
}

}  // namespace
