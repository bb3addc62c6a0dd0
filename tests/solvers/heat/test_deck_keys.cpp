// solvers/heat/deck_keys.hpp: the heat problem's and its linear solver's
// deck tables declare the structs' defaults, allow exactly the manufactured
// solutions the solver knows, and read a deck into the structs.
#include <gtest/gtest.h>

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

}  // namespace
