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
// and pass a deck that has none of these. The tables of a flow case's wing
// stations, of the airfoil sampler's space and of design.start declare
// the defaults of a default-constructed struct, read a deck into it
// (files relative to the deck's folder) and refuse bad values as
// bad_input naming the key; the sample space's shape range is checked
// against the design's bound at its key.
#include <gtest/gtest.h>

#include <array>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/solvers/aero/deck_keys.hpp>
#include <camber/solvers/aero/design_file.hpp>
#include <camber/solvers/aero/surrogate_design.hpp>
#include <camber/solvers/euler/deck_keys.hpp>

#include "tests/common/bad_input.hpp"
#include "tests/common/schema_default.hpp"

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
  aero::wing_twist_keys().declare(design);
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

TEST(AeroDeckKeys, WingTwistKeys) {
  const deck::Schema s = schema();
  const aero::WingDesignSettings w0;
  EXPECT_EQ(s.find_section("design")->find_key("twist_axis")->default_text(),
            deck::value_text(w0.twist.axis_chord_fraction));
  aero::WingDesignSettings w;
  aero::wing_twist_keys().read(
      deck::parse_deck("design:\n  twist_etas: [0.3, 0.6, 1.0]\n  twist_axis: 1.0\n", "w.yaml", s),
      "design", w);
  EXPECT_EQ(w.twist.stations, (std::vector<double>{0.3, 0.6, 1.0}));
  EXPECT_EQ(w.twist.axis_chord_fraction, 1.0);
  EXPECT_EQ(w.twist.blend, w0.twist.blend);
  // Out of (0, 1] is the schema's range.
  for (const char* bad : {"[0.0, 0.5]", "[0.5, 1.5]"}) {
    try {
      const deck::Deck d =
          deck::parse_deck(std::string("design:\n  twist_etas: ") + bad + "\n", "w.yaml", s);
      aero::wing_twist_keys().read(d, "design", w);
      ADD_FAILURE() << bad << " accepted";
    } catch (const camber::Error& e) {
      EXPECT_EQ(e.kind(), camber::ErrorKind::bad_input);
      EXPECT_NE(std::string(e.what()).find("w.yaml:2"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("twist_etas"), std::string::npos) << e.what();
    }
  }
}

// Every section validate_design_keys reads, under the names `names` gives.
deck::Schema design_schema(const aero::DesignDeckSections& names = {}) {
  deck::Schema s;
  auto& design = s.section(names.design, "Design.");
  aero::parametrization_keys().declare(design);
  aero::ffd_volume_keys().declare(design);
  aero::wing_twist_keys().declare(design);
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
  EXPECT_CONTAINS(rejection("design:\n  twist_axis: 1.0\n"),
                  "'design.twist_axis' = 1.0: is used only with design.parametrization: "
                  "wing_twist (3-D meshes)");
  EXPECT_CONTAINS(rejection("design:\n  parametrization: wing_twist\n  ffd_volume_margin: 0.2\n"),
                  "'design.ffd_volume_margin' = 0.2: is used only with design.parametrization: "
                  "ffd_volume");
  EXPECT_CONTAINS(rejection("design:\n  parametrization: wing_twist\n  bumps_per_surface: 4\n"),
                  "'design.bumps_per_surface' = 4: is a 2-D airfoil setting; "
                  "design.parametrization: wing_twist (3-D) does not use it");
  EXPECT_CONTAINS(
      rejection("design:\n  parametrization: wing_twist\noptimizer:\n  thickness_fraction: 1.0\n"),
      "'optimizer.thickness_fraction' = 1.0: must be 0 with design.parametrization: wing_twist");
  EXPECT_CONTAINS(rejection("design:\n  parametrization: wing_twist\n  twist_etas: [0.5, 0.5]\n"),
                  "'design.twist_etas' = [0.5, 0.5]: must increase, but value 1 (0.5) follows 0.5");
  EXPECT_CONTAINS(rejection("design:\n  parametrization: wing_twist\n  twist_etas: [0.6, 0.3]\n"),
                  "must increase, but value 1 (0.3) follows 0.6");
  EXPECT_EQ(rejection("design:\n  parametrization: wing_twist\n  twist_etas: [0.5, 1.0]\n"
                      "optimizer:\n  thickness_fraction: 0.0\n"),
            "");
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

using camber::test::default_of;

deck::Schema station_and_sample_schema() {
  deck::Schema s;
  aero::flow_case_station_keys().declare(s.section("wing", "Stations."));
  aero::airfoil_sample_space_keys().declare(s.section("sample", "Sample space."));
  auto& design = s.section("design", "Design.");
  aero::design_bound_keys().declare(design);
  aero::design_start_keys().declare(design);
  return s;
}

TEST(AeroDeckKeys, StationAndSampleSpaceDefaultsAreTheStructsOwn) {
  const deck::Schema s = station_and_sample_schema();
  const aero::FlowCaseSettings run;
  const aero::AirfoilSampleSpace space;
  EXPECT_EQ(default_of(s, "wing", "stations"), deck::value_text(run.stations));
  EXPECT_EQ(default_of(s, "wing", "reference_cp"), deck::value_text(run.reference_file));
  EXPECT_EQ(default_of(s, "sample", "mach"),
            deck::value_text(std::vector<double>{space.mach[0], space.mach[1]}));
  EXPECT_EQ(default_of(s, "sample", "alpha_deg"),
            deck::value_text(std::vector<double>{space.alpha_deg[0], space.alpha_deg[1]}));
  EXPECT_EQ(default_of(s, "sample", "shape"), deck::value_text(space.shape));
  EXPECT_EQ(default_of(s, "sample", "gradients"), deck::value_text(space.gradients));
  // No start: the undeformed shape (ShapeDesignSettings::start empty).
  EXPECT_EQ(default_of(s, "design", "start"), deck::value_text(std::string()));
  EXPECT_TRUE(aero::ShapeDesignSettings{}.start.empty());

  // An empty deck reads as those structs.
  const deck::Deck d = deck::parse_deck("{}\n", "case.yaml", s);
  aero::FlowCaseSettings r;
  aero::flow_case_station_keys().read(d, "wing", r);
  EXPECT_EQ(r.stations, run.stations);
  EXPECT_EQ(r.reference_file, run.reference_file);
  const aero::AirfoilSampleSpace p = aero::airfoil_sample_space_keys().read(d, "sample");
  EXPECT_EQ(p.mach, space.mach);
  EXPECT_EQ(p.alpha_deg, space.alpha_deg);
  EXPECT_EQ(p.shape, space.shape);
  EXPECT_EQ(p.gradients, space.gradients);
  aero::ShapeDesignSettings sd;
  sd.start = {1.0};
  aero::design_start_keys().read(d, "design", sd);
  EXPECT_TRUE(sd.start.empty());
}

TEST(AeroDeckKeys, StationsAndSampleSpaceAreRead) {
  const deck::Deck d = deck::parse_deck(
      "wing:\n  stations: [0.2, 0.65]\n  reference_cp: experiment.csv\n"
      "sample:\n  mach: [0.5, 0.8]\n  alpha_deg: [0.0, 3.0]\n  shape: [-0.001, 0.002]\n",
      "cases/m6.yaml", station_and_sample_schema());
  aero::FlowCaseSettings r;
  aero::flow_case_station_keys().read(d, "wing", r);
  EXPECT_EQ(r.stations, (std::vector<double>{0.2, 0.65}));
  EXPECT_EQ(r.reference_file, "cases/experiment.csv");  // beside the deck
  const aero::AirfoilSampleSpace p = aero::airfoil_sample_space_keys().read(d, "sample");
  EXPECT_EQ(p.mach, (std::array<double, 2>{0.5, 0.8}));
  EXPECT_EQ(p.alpha_deg, (std::array<double, 2>{0.0, 3.0}));
  EXPECT_EQ(p.shape, (std::vector<double>{-0.001, 0.002}));
  EXPECT_FALSE(p.gradients);
  EXPECT_TRUE(p.with_gradients());  // a varied shape implies them
  const aero::FlowCaseSettings absolute = aero::flow_case_station_keys().read(
      deck::parse_deck("wing:\n  reference_cp: /data/cp.csv\n", "cases/m6.yaml", station_and_sample_schema()),
      "wing");
  EXPECT_EQ(absolute.reference_file, "/data/cp.csv");
}

TEST(AeroDeckKeys, BadStationAndSampleValuesNameTheKey) {
  const auto load = [](const std::string& yaml) {
    return camber::test::bad_input_message(
        [&] { deck::parse_deck(yaml, "case.yaml", station_and_sample_schema()); });
  };
  EXPECT_CONTAINS(load("wing:\n  stations: [0.5, 1.5]\n"), "case.yaml:2:19: 'wing.stations[1]' = 1.5");
  EXPECT_CONTAINS(load("sample:\n  mach: [0.5]\n"), "'sample.mach'");
  EXPECT_CONTAINS(load("sample:\n  alpha_deg: [-95.0, 4.0]\n"), "case.yaml:2:15: 'sample.alpha_deg[0]' = -95.0");
  EXPECT_CONTAINS(load("sample:\n  shape: [-2.0, 0.5]\n"), "case.yaml:2:11: 'sample.shape[0]' = -2.0");
  EXPECT_CONTAINS(load("sample:\n  gradients: 1\n"), "'sample.gradients'");
  EXPECT_EQ(load("sample:\n  shape: [-0.5, 0.5]\n"), "");
}

// The message validate_airfoil_sample_space gives at the deck's key for
// the sample.shape `shape` under design.bound 0.01; "" when it passes.
std::string shape_rejection(const std::string& shape) {
  const deck::Deck d = deck::parse_deck("design:\n  bound: 0.01\nsample:\n  shape: " + shape + "\n",
                                        "case.yaml", station_and_sample_schema());
  return camber::test::bad_input_message([&] {
    aero::validate_airfoil_sample_space(
        aero::airfoil_sample_space_keys().read(d, "sample"), d.real("design.bound"),
        [&](const std::string& member, const std::string& what) { d.reject("sample." + member, what); },
        "design.bound");
  });
}

TEST(AeroDeckKeys, TheSampledShapeRangeLiesInsideTheBound) {
  EXPECT_CONTAINS(shape_rejection("[0.005, -0.005]"),
                  "case.yaml:4:10: 'sample.shape' = [0.005, -0.005]: [0.005, -0.005] is no range "
                  "(low < high)");
  EXPECT_CONTAINS(shape_rejection("[-0.02, 0.005]"),
                  "'sample.shape' = [-0.02, 0.005]: [-0.02, 0.005] lies outside [-design.bound, "
                  "design.bound] = [-0.01, 0.01]");
  EXPECT_CONTAINS(shape_rejection("[0.005]"), "'sample.shape' = [0.005]: a shape range is [low, high]");
  EXPECT_EQ(shape_rejection("[-0.01, 0.01]"), "");
  EXPECT_EQ(shape_rejection("[]"), "");
  // Without a deck: bad_input naming the member (the sampler's own check).
  const std::string m = camber::test::bad_input_message([] {
    aero::AirfoilSampleSpace space;
    space.shape = {0.0, 0.2};
    aero::validate_airfoil_sample_space(space, 0.1, [](const std::string& member, const std::string& what) {
      camber::throw_bad_input(member + ": " + what);
    });
  });
  EXPECT_CONTAINS(m, "shape: [0, 0.2] lies outside [-bound, bound] = [-0.1, 0.1]");
}

TEST(AeroDeckKeys, TheStartDesignIsReadFromTheDecksFolder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("camber_design_start_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::vector<double> shape{0.00123, -0.0004, 1.0 / 3.0};
  aero::write_design_file((dir / "coarse_final_design.csv").string(), {shape, {0.5}});
  const std::string deck_path = (dir / "fine.yaml").string();
  aero::ShapeDesignSettings s;
  aero::design_start_keys().read(
      deck::parse_deck("design:\n  start: coarse_final_design.csv\n", deck_path, station_and_sample_schema()),
      "design", s);
  EXPECT_EQ(s.start, shape);  // bit for bit; the alpha row is not used
  const deck::Deck missing =
      deck::parse_deck("design:\n  start: no_such_design.csv\n", deck_path, station_and_sample_schema());
  EXPECT_CONTAINS(camber::test::bad_input_message([&] { aero::design_start_keys().read(missing, "design", s); }),
                  "fine.yaml:2:10: 'design.start' = 'no_such_design.csv': ");
  fs::remove_all(dir);
}

}  // namespace
