// solvers/ode/deck_keys.hpp: CVODES' and the adjoint's deck tables declare
// the structs' defaults and read a deck into them (the method by name).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <camber/core/error.hpp>
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

TEST(OdeDeckKeys, ACaseDeckReachesTheCaseAndItsChecksNameTheKey) {
  deck::Schema s;
  ode::declare_ode_case(s);
  const std::string good =
      "model:\n  name: lotka_volterra\n  parameters: [1.5, 1, 3, 1]\n  initial: [10, 5]\n"
      "integration:\n  rtol: 1.0e-8\n  output_times: [1, 2]\n"
      "sensitivity:\n  mode: adjoint\n  integrand_component: 2\n";
  const deck::Deck d = deck::parse_deck(good, "lv.yaml", s);
  ode::validate_ode_case(d);
  const ode::OdeCase c = ode::read_ode_case(d);
  EXPECT_EQ(c.model, "lotka_volterra");
  EXPECT_EQ(c.parameters, (std::vector<double>{1.5, 1.0, 3.0, 1.0}));
  EXPECT_EQ(c.initial, (std::vector<double>{10.0, 5.0}));
  EXPECT_EQ(c.integration.rtol, 1e-8);
  EXPECT_EQ(c.integration.atol, ode::CvodesOptions{}.atol);
  EXPECT_EQ(c.t0, 0.0);
  EXPECT_EQ(c.output_times, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(c.sensitivity, ode::OdeSensitivity::adjoint);
  EXPECT_EQ(c.integrand_component, 2);
  EXPECT_EQ(c.adjoint.checkpoint_steps, ode::AdjointOptions{}.checkpoint_steps);

  // Three parameters for a four-parameter model: the key and its line.
  const deck::Deck bad = deck::parse_deck(
      "model:\n  name: lotka_volterra\n  parameters: [1.5, 1, 3]\n  initial: [10, 5]\n"
      "integration:\n  output_times: [1, 2]\n",
      "bad.yaml", s);
  try {
    ode::validate_ode_case(bad);
    ADD_FAILURE() << "three parameters accepted";
  } catch (const camber::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.yaml:3"), std::string::npos) << what;
    EXPECT_NE(what.find("model.parameters"), std::string::npos) << what;
    EXPECT_EQ(e.exit_code(), 2);
  }
}

}  // namespace
