// solvers/heat/deck_keys.hpp: the heat problem's and its linear solver's
// deck tables declare the structs' defaults, allow exactly the manufactured
// solutions the solver knows, and read a deck into the structs; the
// conductivity inverse's twin experiment likewise, with its cross-key checks.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/solvers/heat/deck_keys.hpp>

namespace {

namespace deck = camber::deck;
namespace heat = camber::solvers::heat;

deck::Schema schema() {
  deck::Schema s;
  heat::heat_problem_keys().declare(s.section("heat", "Heat."));
  heat::linear_solver_keys().declare(s.section("solver", "Solver."));
  return s;
}

TEST(HeatDeckKeys, DefaultsAndChoicesAreTheLibrarys) {
  const deck::Schema s = schema();
  const heat::HeatProblem p;
  EXPECT_EQ(s.find_section("heat")->find_key("conductivity_W_per_mK")->default_text(),
            deck::value_text(p.conductivity));
  EXPECT_EQ(s.find_section("heat")->find_key("manufactured_solution")->choices,
            heat::heat_manufactured_solutions());
  EXPECT_EQ(s.find_section("solver")->find_key("method")->default_text(), p.solver.method);
  EXPECT_EQ(s.find_section("solver")->find_key("preconditioner")->default_text(), p.solver.preconditioner);
  EXPECT_EQ(s.find_section("solver")->find_key("max_iterations")->default_text(),
            deck::value_text(std::int64_t{p.solver.max_iterations}));
}

TEST(HeatDeckKeys, ADeckReachesTheMembers) {
  const deck::Deck d = deck::parse_deck(
      "heat:\n  conductivity_W_per_mK: 2.5\n  manufactured_solution: linear\n"
      "solver:\n  method: gmres\n  preconditioner: lu\n  max_iterations: 12\n",
      "h.yaml", schema());
  heat::HeatProblem p;
  heat::heat_problem_keys().read(d, "heat", p);
  heat::linear_solver_keys().read(d, "solver", p.solver);
  EXPECT_EQ(p.conductivity, 2.5);
  EXPECT_EQ(p.manufactured, "linear");
  EXPECT_EQ(p.solver.method, "gmres");
  EXPECT_EQ(p.solver.preconditioner, "lu");
  EXPECT_EQ(p.solver.max_iterations, 12);
  EXPECT_EQ(p.solver.rel_tolerance, heat::HeatProblem{}.solver.rel_tolerance);
}

TEST(HeatDeckKeys, TwinExperimentDefaultsAndDeckValues) {
  deck::Schema s;
  heat::declare_twin_experiment(s);
  const heat::TwinExperiment t;
  EXPECT_EQ(s.find_section("inversion")->find_key("regularization")->default_text(),
            deck::value_text(t.regularization));
  EXPECT_EQ(s.find_section("truth")->find_key("inclusion_W_per_mK")->default_text(),
            deck::value_text(t.conductivity.peak));
  EXPECT_EQ(s.find_section("measurements")->find_key("sensors_x")->default_text(),
            deck::value_text(std::int64_t{t.sensors_x}));
  const deck::Deck d = deck::parse_deck(
      "source:\n  power_W_per_m3: 5\n  center_m: [0.25, 0.75]\n"
      "truth:\n  background_W_per_mK: 0.5\n  radius_m: 0.2\n"
      "measurements:\n  times_s: [0.1, 0.3]\n  seed: 9\n"
      "integration:\n  checkpoint_steps: 7\n",
      "t.yaml", s);
  heat::validate_twin_experiment(d);
  const heat::TwinExperiment r = heat::read_twin_experiment(d);
  EXPECT_EQ(r.source.peak, 5.0);
  EXPECT_EQ(r.source.background, 0.0);
  EXPECT_EQ(r.source.center, (std::array<double, 2>{0.25, 0.75}));
  EXPECT_EQ(r.source.radius, t.source.radius);
  EXPECT_EQ(r.conductivity.background, 0.5);
  EXPECT_EQ(r.conductivity.peak, t.conductivity.peak);
  EXPECT_EQ(r.conductivity.radius, 0.2);
  EXPECT_EQ(r.times, (std::vector<double>{0.1, 0.3}));
  EXPECT_EQ(r.seed, 9u);
  EXPECT_EQ(r.checkpoint_steps, 7);
  EXPECT_EQ(r.heat_capacity, t.heat_capacity);

  // Times that do not increase and a guess outside the bounds are refused
  // naming the key and the line.
  const deck::Deck bad = deck::parse_deck(
      "measurements:\n  times_s: [0.3, 0.1]\n", "bad.yaml", s);
  try {
    heat::validate_twin_experiment(bad);
    ADD_FAILURE() << "decreasing times accepted";
  } catch (const camber::Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("measurements.times_s"), std::string::npos) << e.what();
  }
  const deck::Deck outside = deck::parse_deck(
      "inversion:\n  initial_conductivity_W_per_mK: 30\n", "outside.yaml", s);
  EXPECT_THROW(heat::validate_twin_experiment(outside), camber::Error);
}

}  // namespace
