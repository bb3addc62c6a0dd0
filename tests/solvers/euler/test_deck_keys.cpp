// solvers/euler/deck_keys.hpp: each Euler settings struct's deck table
// declares the struct's own defaults (a deck that leaves a key out and a
// C++ program that leaves the member alone solve the same problem), lists
// every enum name of the struct's tables, and reads every key back into
// its member. The checks across keys reject, at the key's line, a far-field
// vortex at a supersonic Mach number, cfl_max below cfl_start and a marker
// given two boundary conditions, and pass a deck that has none of these.
// The boundaries table declares BoundaryMarkers' defaults (the generated
// grids' markers), reads a deck into it, and refuses a value that is not
// a string at its key; the same markers give the same conditions from C++.
#include <gtest/gtest.h>

#include <string>
#include <vector>


#include <camber/core/enum_names.hpp>
#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/solvers/euler/deck_keys.hpp>

#include "tests/common/bad_input.hpp"
#include "tests/common/schema_default.hpp"

namespace {

namespace deck = camber::deck;
namespace eu = camber::solvers::euler;

deck::Schema schema() {
  deck::Schema s;
  auto& flow = s.section("flow", "Flow.");
  eu::flow_condition_keys().declare(flow);
  eu::flux_keys().declare(flow);
  eu::spatial_option_keys().declare(flow);
  auto& solver = s.section("solver", "Solver.");
  eu::steady_option_keys().declare(solver);
  eu::warm_start_keys().declare(solver);
  return s;
}

using camber::test::default_of;

TEST(EulerDeckKeys, DefaultsAreTheStructsOwn) {
  const deck::Schema s = schema();
  const eu::FlowConditions flow;
  const eu::SpatialOptions spatial;
  const eu::SteadyOptions steady;
  const eu::SteadyFlowSettings design;
  EXPECT_TRUE(s.find_section("flow")->find_key("mach")->required);
  EXPECT_EQ(default_of(s, "flow", "alpha_deg"), deck::value_text(flow.alpha_deg));
  EXPECT_EQ(default_of(s, "flow", "gamma"), deck::value_text(flow.gamma));
  EXPECT_EQ(default_of(s, "flow", "far_field_vortex"), deck::value_text(flow.far_field_vortex));
  EXPECT_EQ(default_of(s, "flow", "flux"), std::string(camber::enum_name(eu::flux_scheme_names, design.scheme)));
  EXPECT_EQ(default_of(s, "flow", "order"), deck::value_text(std::int64_t{spatial.order}));
  EXPECT_EQ(default_of(s, "flow", "limiter"),
            std::string(camber::enum_name(eu::limiter_kind_names, spatial.limiter)));
  EXPECT_EQ(default_of(s, "flow", "wang_epsilon"), deck::value_text(spatial.wang_epsilon));
  EXPECT_EQ(default_of(s, "solver", "max_iterations"), deck::value_text(std::int64_t{steady.max_iterations}));
  EXPECT_EQ(default_of(s, "solver", "cfl_max"), deck::value_text(steady.cfl_max));
  EXPECT_EQ(default_of(s, "solver", "newton_operator"),
            std::string(camber::enum_name(eu::newton_operator_names, steady.newton_operator)));
  EXPECT_EQ(default_of(s, "solver", "warm_cfl_start"), deck::value_text(design.warm_cfl_start));
  EXPECT_EQ(default_of(s, "solver", "warm_max_iterations"),
            deck::value_text(std::int64_t{design.warm_max_iterations}));
  EXPECT_EQ(s.find_section("flow")->find_key("limiter")->choices, camber::enum_names(eu::limiter_kind_names));
}

TEST(EulerDeckKeys, AnEmptyDeckReadsAsTheDefaultStructs) {
  const deck::Deck d = deck::parse_deck("flow:\n  mach: 0.5\n", "case.yaml", schema());
  const eu::FlowConditions f = eu::flow_condition_keys().read(d, "flow");
  const eu::FlowConditions f0;
  EXPECT_EQ(f.mach, 0.5);
  EXPECT_EQ(f.alpha_deg, f0.alpha_deg);
  EXPECT_EQ(f.moment_point, f0.moment_point);
  EXPECT_EQ(f.reference_area, f0.reference_area);
  const eu::SteadyOptions o = eu::steady_option_keys().read(d, "solver");
  const eu::SteadyOptions o0;
  EXPECT_EQ(o.rel_tolerance, o0.rel_tolerance);
  EXPECT_EQ(o.preconditioner, o0.preconditioner);
  EXPECT_EQ(o.second_order_cfl_start, o0.second_order_cfl_start);
  EXPECT_EQ(o.abs_tolerance, o0.abs_tolerance);
}

TEST(EulerDeckKeys, GivenKeysReachTheirMembers) {
  const deck::Deck d = deck::parse_deck(
      "flow:\n  mach: 0.8\n  alpha_deg: 1.25\n  flux: hllc\n  order: 2\n  limiter: none\n"
      "  moment_point_m: [0.5, 0.1, 0.2]\n  far_field_vortex: true\n"
      "solver:\n  max_iterations: 7\n  newton_operator: matrix_free\n  preconditioner: second_order\n"
      "  jacobian_refresh: 3\n  warm_cfl_start: 50.0\n  warm_max_iterations: 0\n",
      "case.yaml", schema());
  const eu::FlowConditions f = eu::flow_condition_keys().read(d, "flow");
  EXPECT_EQ(f.alpha_deg, 1.25);
  EXPECT_EQ(f.moment_point, (std::array<double, 3>{0.5, 0.1, 0.2}));
  EXPECT_TRUE(f.far_field_vortex);
  eu::SteadyFlowSettings s;
  eu::flux_keys().read(d, "flow", s);
  eu::warm_start_keys().read(d, "solver", s);
  EXPECT_EQ(s.scheme, eu::FluxScheme::hllc);
  EXPECT_EQ(s.warm_cfl_start, 50.0);
  EXPECT_EQ(s.warm_max_iterations, 0);
  const eu::SpatialOptions sp = eu::spatial_option_keys().read(d, "flow");
  EXPECT_EQ(sp.order, 2);
  EXPECT_EQ(sp.limiter, eu::LimiterKind::none);
  const eu::SteadyOptions o = eu::steady_option_keys().read(d, "solver");
  EXPECT_EQ(o.max_iterations, 7);
  EXPECT_EQ(o.newton_operator, eu::SteadyOptions::NewtonOperator::matrix_free);
  EXPECT_EQ(o.preconditioner, eu::SteadyOptions::Preconditioner::second_order);
  EXPECT_EQ(o.jacobian_refresh, 3);
}

// A boundaries section of one string key per boundary kind.
deck::Schema schema_with_boundaries() {
  deck::Schema s = schema();
  eu::boundary_marker_keys().declare(s.section("boundaries", "Boundaries."));
  return s;
}

TEST(EulerDeckKeys, BoundaryMarkerDefaultsAreTheStructsOwn) {
  const deck::Schema s = schema_with_boundaries();
  const eu::BoundaryMarkers m;
  // One key per boundary kind, named as the kind.
  EXPECT_EQ(eu::boundary_marker_keys().names(), camber::enum_names(eu::boundary_kind_names));
  EXPECT_EQ(default_of(s, "boundaries", "slip_wall"), m.slip_wall);
  EXPECT_EQ(default_of(s, "boundaries", "symmetry"), m.symmetry);
  EXPECT_EQ(default_of(s, "boundaries", "far_field"), m.far_field);
  EXPECT_EQ(default_of(s, "boundaries", "supersonic_inflow"), m.supersonic_inflow);
  EXPECT_EQ(default_of(s, "boundaries", "supersonic_outflow"), m.supersonic_outflow);
  // The generated airfoil grids' markers: wall airfoil, far field farfield.
  const std::vector<eu::BoundaryCondition> c = eu::boundary_conditions(m);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].marker, "airfoil");
  EXPECT_EQ(c[0].kind, eu::BoundaryKind::slip_wall);
  EXPECT_EQ(c[1].marker, "farfield");
  EXPECT_EQ(c[1].kind, eu::BoundaryKind::far_field);
  // A deck without the section: the same conditions.
  const std::vector<eu::BoundaryCondition> from_deck =
      eu::read_boundary_conditions(deck::parse_deck("flow: {mach: 0.5}\n", "case.yaml", s), "boundaries");
  ASSERT_EQ(from_deck.size(), 2u);
  EXPECT_EQ(from_deck[0].marker, "airfoil");
  EXPECT_EQ(from_deck[1].marker, "farfield");
}

TEST(EulerDeckKeys, BoundaryMarkersAreReadIntoTheStruct) {
  const deck::Schema s = schema_with_boundaries();
  const eu::BoundaryMarkers m = eu::boundary_marker_keys().read(
      deck::parse_deck("flow: {mach: 0.5}\nboundaries:\n  slip_wall: wing, flap\n  symmetry: root\n"
                       "  supersonic_outflow: exit\n",
                       "case.yaml", s),
      "boundaries");
  EXPECT_EQ(m.slip_wall, "wing, flap");
  EXPECT_EQ(m.symmetry, "root");
  EXPECT_EQ(m.far_field, eu::BoundaryMarkers{}.far_field);
  EXPECT_EQ(m.supersonic_inflow, "");
  EXPECT_EQ(m.supersonic_outflow, "exit");
  const std::string bad = camber::test::bad_input_message(
      [&] { deck::parse_deck("flow: {mach: 0.5}\nboundaries:\n  far_field: [a, b]\n", "case.yaml", s); });
  EXPECT_NE(bad.find("case.yaml:3:"), std::string::npos) << bad;
  EXPECT_NE(bad.find("boundaries.far_field"), std::string::npos) << bad;
  // Without a deck, a marker given two conditions is bad_input naming the kind.
  eu::BoundaryMarkers twice;
  twice.symmetry = "airfoil";
  const std::string m2 = camber::test::bad_input_message([&] { eu::boundary_conditions(twice); });
  EXPECT_NE(m2.find("symmetry: marker 'airfoil' is given two boundary conditions"), std::string::npos) << m2;
}

// The message of the bad_input error that `check` raises on `yaml`; ""
// when the deck passes.
template <class Check>
std::string rejection(const std::string& yaml, Check check) {
  const deck::Deck d = deck::parse_deck(yaml, "case.yaml", schema_with_boundaries());
  return camber::test::bad_input_message([&] { check(d); });
}

#define EXPECT_CONTAINS(text, piece) \
  EXPECT_NE(std::string(text).find(piece), std::string::npos) << (text)

TEST(EulerDeckKeys, AFarFieldVortexNeedsASubsonicFreeStream) {
  const auto check = [](const deck::Deck& d) { eu::validate_flow_condition_keys(d, "flow"); };
  EXPECT_CONTAINS(rejection("flow:\n  mach: 1.0\n  far_field_vortex: true\n", check),
                  "case.yaml:3:21: 'flow.far_field_vortex' = true: needs a subsonic free stream "
                  "(flow.mach < 1)");
  EXPECT_EQ(rejection("flow:\n  mach: 0.99\n  far_field_vortex: true\n", check), "");
  EXPECT_EQ(rejection("flow:\n  mach: 2.0\n", check), "");
}

TEST(EulerDeckKeys, CflMaxBelowCflStartIsRejected) {
  const auto check = [](const deck::Deck& d) { eu::validate_steady_option_keys(d, "solver"); };
  EXPECT_CONTAINS(rejection("flow: {mach: 0.5}\nsolver:\n  cfl_start: 10.0\n  cfl_max: 5.0\n", check),
                  "case.yaml:4:12: 'solver.cfl_max' = 5.0: must be at least solver.cfl_start");
  EXPECT_EQ(rejection("flow: {mach: 0.5}\nsolver:\n  cfl_start: 10.0\n  cfl_max: 10.0\n", check), "");
  // The defaults pass: a C++ program's SteadyOptions{} is a valid deck.
  const eu::SteadyOptions o0;
  EXPECT_LE(o0.cfl_start, o0.cfl_max);
  EXPECT_EQ(rejection("flow: {mach: 0.5}\n", check), "");
}

TEST(EulerDeckKeys, TheDevicePathRefusesTheAssembledOperatorAndTheSecondOrderPreconditioner) {
  const auto check = [](const deck::Deck& d) { eu::validate_steady_option_keys(d, "solver"); };
  EXPECT_CONTAINS(rejection("flow: {mach: 0.5}\nsolver:\n  linear_solver: kokkos\n"
                            "  newton_operator: assembled\n",
                            check),
                  "case.yaml:4:20: 'solver.newton_operator' = 'assembled': needs "
                  "solver.linear_solver petsc");
  EXPECT_CONTAINS(rejection("flow: {mach: 0.5}\nsolver:\n  linear_solver: kokkos\n"
                            "  preconditioner: second_order\n",
                            check),
                  "case.yaml:4:19: 'solver.preconditioner' = 'second_order': needs solver.linear_solver petsc");
  EXPECT_EQ(rejection("flow: {mach: 0.5}\nsolver:\n  linear_solver: kokkos\n"
                      "  newton_operator: matrix_free\n",
                      check),
            "");
  EXPECT_EQ(rejection("flow: {mach: 0.5}\nsolver:\n  newton_operator: assembled\n", check), "");
}

TEST(EulerDeckKeys, BoundaryMarkersAreReadOnceEach) {
  std::vector<eu::BoundaryCondition> conditions;
  const auto read = [&](const deck::Deck& d) { conditions = eu::read_boundary_conditions(d, "boundaries"); };
  EXPECT_EQ(rejection("flow: {mach: 0.5}\nboundaries:\n  far_field: ' inlet ,outlet,, '\n"
                      "  slip_wall: wing, flap\n",
                      read),
            "");
  // In boundary_kind_names' order (slip_wall before far_field), each
  // kind's markers in the deck's order, trimmed, empty names dropped.
  ASSERT_EQ(conditions.size(), 4u);
  EXPECT_EQ(conditions[0].marker, "wing");
  EXPECT_EQ(conditions[0].kind, eu::BoundaryKind::slip_wall);
  EXPECT_EQ(conditions[1].marker, "flap");
  EXPECT_EQ(conditions[2].marker, "inlet");
  EXPECT_EQ(conditions[2].kind, eu::BoundaryKind::far_field);
  EXPECT_EQ(conditions[3].marker, "outlet");
  EXPECT_CONTAINS(rejection("flow: {mach: 0.5}\nboundaries:\n  slip_wall: wing\n  symmetry: wing\n", read),
                  "case.yaml:4:13: 'boundaries.symmetry' = 'wing': marker 'wing' is given two boundary "
                  "conditions");
  EXPECT_CONTAINS(rejection("flow: {mach: 0.5}\nboundaries:\n  far_field: out, out\n", read),
                  "'boundaries.far_field' = 'out, out': marker 'out' is given two boundary conditions");
  EXPECT_EQ(eu::marker_names(" a, b ,,c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(eu::marker_names(" , ").empty());
}

}  // namespace
