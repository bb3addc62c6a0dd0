// solvers/aero/deck_keys.hpp: the design settings' deck tables declare the
// structs' own defaults and read a design deck into them: the lift's
// _baseline names (the baseline's CL: lift_target left NaN), lift_target
// and cm_min read only when given, the optimizer's evaluations and
// tolerance nested in ShapeDesignSettings::optimizer, the airfoil's and the
// wing's own constraints, the deformation and the trust region's networks;
// the optimum over a saved surrogate's inputs (SurrogateOptimumByName: the
// outputs by name, the goal, the bound and the evaluations nested in its
// SurrogateOptimumSettings).
#include <gtest/gtest.h>

#include <array>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/solvers/aero/deck_keys.hpp>

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
