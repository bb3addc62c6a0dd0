// solvers/aero/deck_keys.hpp: the design settings' deck tables declare the
// structs' own defaults and read a design deck into them: the lift's
// _baseline names (the baseline's CL: lift_target left NaN), lift_target
// and cm_min read only when given, the optimizer's evaluations and
// tolerance nested in ShapeDesignSettings::optimizer, the airfoil's and the
// wing's own constraints, the deformation and the trust region's networks;
// the optimum over a saved surrogate's inputs (SurrogateOptimumByName: the
// outputs by name, the goal, the bound and the evaluations nested in its
// SurrogateOptimumSettings).
// The operating points read flow.mach's first, each weight with its point.
// The checks across a design deck's keys reject, at the key's line, each
// key that would be ignored or contradicts another, in the sections named,
// and pass a deck that has none of these.
#include <gtest/gtest.h>

#include <array>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/solvers/aero/deck_keys.hpp>
#include <camber/solvers/aero/surrogate_design.hpp>
#include <camber/solvers/euler/deck_keys.hpp>

#include "tests/common/bad_input.hpp"

namespace {

namespace deck = camber::deck;
namespace aero = camber::solvers::aero;

deck::Schema schema() {
  deck::Schema s;
  auto& design = s.section("design", "Design.");
  aero::design_bound_keys().declare(design);
  aero::deformation_keys().declare(design);
  aero::parametrization_keys().declare(design);
  aero::ffd_volume_keys().declare(design);
  auto& optimizer = s.section("optimizer", "Optimizer.");
  aero::shape_design_keys().declare(optimizer);
  aero::airfoil_constraint_keys().declare(optimizer);
  aero::wing_station_keys().declare(optimizer);
  aero::ensemble_keys().declare(s.section("trust_region", "Networks."));
  return s;
}

aero::AirfoilDesignSettings read(const std::string& yaml) {
  const deck::Deck d = deck::parse_deck(yaml, "design.yaml", schema());
  aero::AirfoilDesignSettings s;
  aero::shape_design_keys().read(d, "optimizer", s);
  aero::design_bound_keys().read(d, "design", s);
  aero::airfoil_constraint_keys().read(d, "optimizer", s);
  return s;
}

TEST(AeroDeckKeys, AnEmptyDeckIsTheDefaultSettings) {
  const aero::AirfoilDesignSettings s = read("{}\n"), s0;
  EXPECT_EQ(s.bound, s0.bound);
  EXPECT_EQ(s.bound, 0.01);
  EXPECT_EQ(s.thickness_fraction, 1.0);
  EXPECT_EQ(s.objective, s0.objective);
  EXPECT_EQ(s.lift, s0.lift);
  EXPECT_TRUE(std::isnan(s.lift_target));
  EXPECT_TRUE(std::isinf(s.cm_min) && s.cm_min < 0.0);
  EXPECT_EQ(s.optimizer.max_evaluations, 30);
  EXPECT_EQ(s.optimizer.ftol_rel, 1e-6);
  EXPECT_EQ(s.optimizer.xtol_rel, s0.optimizer.xtol_rel);
  const deck::Schema sc = schema();
  EXPECT_EQ(sc.find_section("optimizer")->find_key("max_iterations")->default_text(), "30");
  EXPECT_EQ(sc.find_section("design")->find_key("bound")->default_text(), "0.01");
}

TEST(AeroDeckKeys, LiftNamesTargetsAndTheMoment) {
  aero::AirfoilDesignSettings s = read("optimizer:\n  lift: fixed_baseline\n");
  EXPECT_EQ(s.lift, aero::LiftConstraint::fixed);
  EXPECT_TRUE(std::isnan(s.lift_target));
  s = read("optimizer:\n  lift: at_least\n  lift_target: 0.3\n  cm_min: -0.1\n  max_iterations: 5\n"
           "  ftol_rel: 1.0e-4\n  area_fraction: 0.9\ndesign:\n  bound: 0.002\n");
  EXPECT_EQ(s.lift, aero::LiftConstraint::at_least);
  EXPECT_EQ(s.lift_target, 0.3);
  EXPECT_EQ(s.cm_min, -0.1);
  EXPECT_EQ(s.optimizer.max_evaluations, 5);
  EXPECT_EQ(s.optimizer.ftol_rel, 1e-4);
  EXPECT_EQ(s.area_fraction, 0.9);
  EXPECT_EQ(s.bound, 0.002);
  EXPECT_EQ(read("optimizer:\n  lift: free\n").lift, aero::LiftConstraint::none);
  EXPECT_THROW(read("optimizer:\n  lift: free_baseline\n"), camber::Error);
}

TEST(AeroDeckKeys, DeformationParametrizationsWingAndNetworks) {
  const deck::Deck d = deck::parse_deck(
      "design:\n  deformation: rbf\n  rbf_support: 2.0\n  parametrization: cst\n  cst_order: 4\n"
      "  ffd_degree_x: 8\n"
      "optimizer:\n  thickness_etas: [0.3, 0.6]\ntrust_region:\n  hidden: [16, 8]\n  members: 2\n",
      "design.yaml", schema());
  const camber::design::DeformationOptions o = aero::deformation_keys().read(d, "design");
  EXPECT_EQ(o.method, camber::design::DeformationMethod::rbf);
  EXPECT_EQ(o.rbf_support, 2.0);
  EXPECT_EQ(o.exponent, camber::design::DeformationOptions{}.exponent);
  EXPECT_EQ(aero::cst_keys().read(d, "design").order, 4);
  EXPECT_EQ(aero::ffd_keys().read(d, "design").degree_x, 8);
  const camber::design::ParametrizationSettings p = aero::parametrization_keys().read(d, "design");
  EXPECT_EQ(p.kind, camber::design::ParametrizationKind::cst);
  EXPECT_EQ(p.cst.order, 4);
  EXPECT_EQ(p.ffd.degree_x, 8);
  EXPECT_EQ(p.wall, camber::design::ParametrizationSettings{}.wall);
  EXPECT_EQ(p.bumps_per_surface, camber::design::ParametrizationSettings{}.bumps_per_surface);
  aero::WingDesignSettings w;
  aero::wing_station_keys().read(d, "optimizer", w);
  EXPECT_EQ(w.thickness_etas, (std::vector<double>{0.3, 0.6}));
  EXPECT_EQ(w.thickness_chord_fractions, aero::WingDesignSettings{}.thickness_chord_fractions);
  const camber::nn::EnsembleOptions e = aero::ensemble_keys().read(d, "trust_region");
  EXPECT_EQ(e.hidden, (std::vector<camber::index_t>{16, 8}));
  EXPECT_EQ(e.members, 2);
  EXPECT_EQ(e.epochs, camber::nn::EnsembleOptions{}.epochs);
}

TEST(AeroDeckKeys, FfdVolumeBoxKeys) {
  const deck::Schema s = schema();
  const aero::WingDesignSettings w0;
  EXPECT_EQ(s.find_section("design")->find_key("ffd_volume_move")->default_text(), "z");
  EXPECT_EQ(s.find_section("design")->find_key("ffd_volume_margin")->default_text(), deck::value_text(w0.margin));
  aero::WingDesignSettings w;
  aero::ffd_volume_keys().read(
      deck::parse_deck("design:\n  ffd_volume_degree: [5, 3, 3]\n  ffd_volume_move: xz\n", "w.yaml", s),
      "design", w);
  EXPECT_EQ(w.ffd.degree, (std::array<int, 3>{5, 3, 3}));
  EXPECT_EQ(w.ffd.move, (std::array<bool, 3>{true, false, true}));
  EXPECT_EQ(w.margin, w0.margin);
  for (const char* bad : {"zw", "zz", "xyzx"}) {
    const deck::Deck d = deck::parse_deck(std::string("design:\n  ffd_volume_move: ") + bad + "\n", "w.yaml", s);
    try {
      aero::ffd_volume_keys().read(d, "design", w);
      ADD_FAILURE() << bad << " accepted";
    } catch (const camber::Error& e) {
      EXPECT_NE(std::string(e.what()).find("w.yaml:2"), std::string::npos) << e.what();
    }
  }
}

// Every section validate_design_keys reads, under the names `names` gives.
deck::Schema design_schema(const aero::DesignDeckSections& names = {}) {
  deck::Schema s;
  auto& design = s.section(names.design, "Design.");
  aero::parametrization_keys().declare(design);
  aero::ffd_volume_keys().declare(design);
  aero::design_bound_keys().declare(design);
  aero::deformation_keys().declare(design);
  auto& optimizer = s.section(names.optimizer, "Optimizer.");
  aero::shape_design_keys().declare(optimizer);
  aero::airfoil_constraint_keys().declare(optimizer);
  aero::wing_station_keys().declare(optimizer);
  aero::operating_point_keys().declare(optimizer);
  aero::trust_region_keys().declare(s.section(names.trust_region, "Trust region."),
                                    aero::design_trust_region_options());
  camber::solvers::euler::flow_condition_keys().declare(s.section(names.flow, "Flow."));
  return s;
}

// The message of the bad_input error validate_design_keys raises on
// `yaml` (a flow section with mach 0.75 goes first); "" when it passes.
std::string rejection(const std::string& yaml, const aero::DesignDeckSections& names = {}) {
  const deck::Deck d = deck::parse_deck(names.flow + ":\n  mach: 0.75\n" + yaml, "design.yaml",
                                        design_schema(names));
  return camber::test::bad_input_message([&] { aero::validate_design_keys(d, names); });
}

#define EXPECT_CONTAINS(text, piece) \
  EXPECT_NE(std::string(text).find(piece), std::string::npos) << (text)

TEST(AeroDeckKeys, OperatingPointsPutTheDesignPointFirstWithItsWeight) {
  const deck::Deck d = deck::parse_deck(
      "flow:\n  mach: 0.75\n  alpha_deg: 1.5\noptimizer:\n  mach_points: [0.7, 0.8, 0.75]\n"
      "  point_weights: [1.0, 2.0, 3.0]\n",
      "design.yaml", design_schema());
  aero::ShapeDesignSettings s;
  s.flow.flow = camber::solvers::euler::flow_condition_keys().read(d, "flow");
  aero::operating_point_keys().read(d, "optimizer", s);
  ASSERT_EQ(s.points.size(), 3u);
  const double expected[3][2] = {{0.75, 3.0}, {0.7, 1.0}, {0.8, 2.0}};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(s.points[i].mach, expected[i][0]);
    EXPECT_EQ(s.points[i].weight, expected[i][1]);
    EXPECT_EQ(s.points[i].alpha_deg, 1.5);
  }
  // No weights: each 1; no mach_points: no points (the one of s.flow).
  const deck::Deck equal = deck::parse_deck(
      "flow:\n  mach: 0.75\noptimizer:\n  mach_points: [0.75, 0.7]\n", "design.yaml", design_schema());
  s.flow.flow.mach = 0.75;
  aero::operating_point_keys().read(equal, "optimizer", s);
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[1].mach, 0.7);
  EXPECT_EQ(s.points[1].weight, 1.0);
  aero::operating_point_keys().read(deck::parse_deck("flow:\n  mach: 0.75\n", "design.yaml", design_schema()),
                                    "optimizer", s);
  EXPECT_TRUE(s.points.empty());
}

TEST(AeroDeckKeys, ALiftTargetGoesWithALiftThatHoldsOne) {
  EXPECT_CONTAINS(rejection("optimizer:\n  lift: equal\n"),
                  "design.yaml:4:9: 'optimizer.lift' = 'equal': 'equal' holds CL at "
                  "optimizer.lift_target, which is not given");
  EXPECT_CONTAINS(rejection("optimizer:\n  lift_target: 0.5\n"),
                  "'optimizer.lift_target' = 0.5: is used only with optimizer.lift: at_least, "
                  "equal or fixed (lift is 'free'), so it would be ignored");
  EXPECT_CONTAINS(rejection("optimizer:\n  lift: at_least\n  lift_target: 0.5\n  alpha_range_deg: 2.0\n"),
                  "'optimizer.alpha_range_deg' = 2.0: is used only when optimizer.lift trims the "
                  "angle of attack");
  EXPECT_CONTAINS(rejection("optimizer:\n  objective: cl\n  lift: equal_baseline\n"),
                  "'optimizer.lift' = 'equal_baseline': the objective is CL, so the lift cannot "
                  "also be held; use lift: free");
}

TEST(AeroDeckKeys, VolumeAndAirfoilKeysGoWithTheirParametrization) {
  EXPECT_CONTAINS(rejection("design:\n  ffd_volume_margin: 0.2\n"),
                  "'design.ffd_volume_margin' = 0.2: is used only with design.parametrization: "
                  "ffd_volume (3-D meshes)");
  EXPECT_CONTAINS(rejection("optimizer:\n  thickness_etas: [0.5]\n"),
                  "'optimizer.thickness_etas' = [0.5]: is used only with design.parametrization");
  EXPECT_CONTAINS(rejection("design:\n  parametrization: ffd_volume\n  cst_order: 4\n"),
                  "design.yaml:5:14: 'design.cst_order' = 4: is a 2-D airfoil setting; "
                  "design.parametrization: ffd_volume (3-D) does not use it");
  EXPECT_CONTAINS(rejection("design:\n  parametrization: ffd_volume\noptimizer:\n  area_fraction: 0.9\n"),
                  "'optimizer.area_fraction' = 0.9: is a 2-D airfoil setting");
  EXPECT_CONTAINS(rejection("design:\n  parametrization: ffd_volume\n  ffd_volume_move: zw\n"),
                  "'design.ffd_volume_move' = 'zw': 'zw' is not a set of directions");
}

TEST(AeroDeckKeys, DeformationKeysGoWithTheirMethod) {
  EXPECT_CONTAINS(rejection("design:\n  deformation: idw\n  rbf_support: 2.0\n"),
                  "'design.rbf_support' = 2.0: is used only with design.deformation: rbf (it is "
                  "'idw'), so it would be ignored");
  EXPECT_CONTAINS(rejection("design:\n  deformation: rbf\n  idw_exponent: 3.0\n"),
                  "'design.idw_exponent' = 3.0: is used only with design.deformation: idw (it is "
                  "'rbf'), so it would be ignored");
}

TEST(AeroDeckKeys, OperatingPointsHoldTheDesignPointAndOneWeightEach) {
  EXPECT_CONTAINS(rejection("optimizer:\n  mach_points: [0.75, 0.7]\n  point_weights: [1.0]\n"),
                  "'optimizer.point_weights' = [1.0]: has 1 values, optimizer.mach_points 2; give "
                  "one weight per operating point");
  EXPECT_CONTAINS(rejection("optimizer:\n  mach_points: [0.7, 0.8]\n"),
                  "'optimizer.mach_points' = [0.7, 0.8]: does not hold flow.mach = 0.75, the design "
                  "point (reported first and written for ParaView); add it");
}

TEST(AeroDeckKeys, TheInitialRadiusLiesBetweenTheOthers) {
  const camber::opt::TrustRegionOptions r = aero::design_trust_region_options();
  ASSERT_LE(r.min_radius, r.max_radius);
  const std::string too_big = deck::value_text(r.max_radius * 2.0);
  EXPECT_CONTAINS(rejection("trust_region:\n  initial_radius: " + too_big + "\n"),
                  "'trust_region.initial_radius' = " + too_big +
                      ": needs min_radius <= initial_radius <= max_radius");
  EXPECT_CONTAINS(rejection("trust_region:\n  min_radius: 0.5\n  initial_radius: 0.25\n  max_radius: 1.0\n"),
                  "'trust_region.initial_radius' = 0.25: needs min_radius <= initial_radius <= "
                  "max_radius; they are 0.5, 0.25, 1");
}

TEST(AeroDeckKeys, ADeckWhoseKeysAgreePasses) {
  EXPECT_EQ(rejection(""), "");
  EXPECT_EQ(rejection("design:\n  deformation: rbf\n  rbf_support: 2.0\n  cst_order: 4\n"
                      "optimizer:\n  lift: equal\n  lift_target: 0.5\n  alpha_range_deg: 2.0\n"
                      "  area_fraction: 0.9\n  mach_points: [0.7, 0.75]\n  point_weights: [1.0, 2.0]\n"
                      "trust_region:\n  min_radius: 0.25\n  initial_radius: 0.25\n  max_radius: 0.5\n"),
            "");
  EXPECT_EQ(rejection("design:\n  parametrization: ffd_volume\n  ffd_volume_move: xz\n"
                      "optimizer:\n  thickness_etas: [0.5]\n  objective: cl\n"),
            "");
}

TEST(AeroDeckKeys, TheChecksReadTheSectionsNamed) {
  aero::DesignDeckSections names;
  names.design = "shape";
  names.optimizer = "opt";
  names.trust_region = "region";
  names.flow = "free_stream";
  EXPECT_CONTAINS(rejection("opt:\n  lift: fixed\n", names),
                  "'opt.lift' = 'fixed': 'fixed' holds CL at opt.lift_target, which is not given");
  EXPECT_CONTAINS(rejection("opt:\n  mach_points: [0.7]\n", names),
                  "does not hold free_stream.mach = 0.75");
  EXPECT_CONTAINS(rejection("shape:\n  rbf_support: 2.0\n", names),
                  "'shape.rbf_support' = 2.0: is used only with shape.deformation: rbf");
  EXPECT_EQ(rejection("opt:\n  mach_points: [0.75]\n", names), "");
}

TEST(AeroDeckKeys, TheSurrogateOptimumsDefaultsAndADeck) {
  deck::Schema sc;
  aero::surrogate_optimum_keys().declare(sc.section("design", "Design."));
  const deck::Section& design = *sc.find_section("design");
  const aero::SurrogateOptimumByName s0;
  EXPECT_EQ(design.find_key("objective")->default_text(), deck::value_text(s0.objective));
  EXPECT_EQ(design.find_key("goal")->default_text(), s0.optimum.maximize ? "maximize" : "minimize");
  EXPECT_EQ(design.find_key("constraint")->default_text(), deck::value_text(s0.constraint));
  EXPECT_EQ(design.find_key("constraint_min")->default_text(),
            deck::value_text(s0.optimum.constraint_min));
  EXPECT_EQ(design.find_key("max_iterations")->default_text(),
            deck::value_text(std::int64_t{s0.optimum.max_evaluations}));
  EXPECT_EQ(aero::surrogate_optimum_keys().names(),
            (std::vector<std::string>{"objective", "goal", "constraint", "constraint_min", "max_iterations"}));

  aero::SurrogateOptimumByName s =
      aero::surrogate_optimum_keys().read(deck::parse_deck("{}\n", "empty.yaml", sc), "design");
  EXPECT_EQ(s.objective, s0.objective);
  EXPECT_EQ(s.constraint, s0.constraint);
  EXPECT_EQ(s.optimum.maximize, s0.optimum.maximize);
  EXPECT_EQ(s.optimum.constraint_min, s0.optimum.constraint_min);
  EXPECT_EQ(s.optimum.max_evaluations, s0.optimum.max_evaluations);

  s = aero::surrogate_optimum_keys().read(
      deck::parse_deck("design:\n  objective: CL\n  goal: maximize\n  constraint: CM\n"
                       "  constraint_min: -0.05\n  max_iterations: 12\n",
                       "design.yaml", sc),
      "design");
  EXPECT_EQ(s.objective, "CL");
  EXPECT_TRUE(s.optimum.maximize);
  EXPECT_EQ(s.constraint, "CM");
  EXPECT_EQ(s.optimum.constraint_min, -0.05);
  EXPECT_EQ(s.optimum.max_evaluations, 12);
  EXPECT_THROW(deck::parse_deck("design:\n  goal: lowest\n", "bad.yaml", sc), camber::Error);
  EXPECT_THROW(deck::parse_deck("design:\n  max_iterations: 0\n", "bad.yaml", sc), camber::Error);
}

}  // namespace
