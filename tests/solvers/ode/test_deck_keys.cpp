// solvers/ode/deck_keys.hpp: CVODES' and the adjoint's deck tables declare
// the structs' defaults and read a deck into them (the method by name).
#include <gtest/gtest.h>

#include <camber/deck/deck.hpp>
#include <camber/deck/schema.hpp>
#include <camber/solvers/ode/deck_keys.hpp>

namespace {

namespace deck = camber::deck;
namespace ode = camber::solvers::ode;

deck::Schema schema() {
  deck::Schema s;
  ode::cvodes_keys().declare(s.section("integration", "CVODES."));
  ode::adjoint_keys().declare(s.section("sensitivity", "Adjoint."));
  return s;
}

TEST(OdeDeckKeys, DefaultsAreTheStructsOwn) {
  const deck::Schema s = schema();
  const ode::CvodesOptions o;
  EXPECT_EQ(s.find_section("integration")->find_key("method")->default_text(), "bdf");
  EXPECT_EQ(s.find_section("integration")->find_key("rtol")->default_text(), deck::value_text(o.rtol));
  EXPECT_EQ(s.find_section("integration")->find_key("atol")->default_text(), deck::value_text(o.atol));
  EXPECT_EQ(s.find_section("integration")->find_key("max_steps")->default_text(),
            deck::value_text(std::int64_t{o.max_steps}));
  EXPECT_EQ(s.find_section("sensitivity")->find_key("checkpoint_steps")->default_text(),
            deck::value_text(std::int64_t{ode::AdjointOptions{}.checkpoint_steps}));
}

TEST(OdeDeckKeys, ADeckReachesTheMembers) {
  const deck::Deck d = deck::parse_deck(
      "integration:\n  method: adams\n  rtol: 1.0e-8\n  atol: [1.0e-6, 1.0e-12]\n  max_steps: 7\n"
      "sensitivity:\n  checkpoint_steps: 9\n",
      "o.yaml", schema());
  const ode::CvodesOptions o = ode::cvodes_keys().read(d, "integration");
  EXPECT_EQ(o.method, ode::OdeMethod::adams);
  EXPECT_EQ(o.rtol, 1e-8);
  EXPECT_EQ(o.atol, (std::vector<double>{1e-6, 1e-12}));
  EXPECT_EQ(o.max_steps, 7);
  EXPECT_EQ(ode::adjoint_keys().read(d, "sensitivity").checkpoint_steps, 9);
}

}  // namespace
