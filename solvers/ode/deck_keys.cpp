#include "deck_keys.hpp"

#include <map>
#include <string>
#include <vector>

#include <camber/solvers/ode/models.hpp>

namespace camber::solvers::ode {

using deck::IntRange;
using deck::Keys;
using deck::Length;
using deck::Range;

const Keys<CvodesOptions>& cvodes_keys() {
  static const Keys<CvodesOptions> keys =
      Keys<CvodesOptions>()
          .choice("method", &CvodesOptions::method, ode_method_names,
                  "bdf for stiff problems, adams for non-stiff ones.")
          .real("rtol", &CvodesOptions::rtol, Range::positive().and_less_than(1.0), "Relative tolerance.")
          .reals("atol", &CvodesOptions::atol, Length::at_least(1), Range::non_negative(),
                 "Absolute tolerance: one value, or one per component.")
          .integer("max_steps", &CvodesOptions::max_steps, IntRange(1, 100000000),
                   "Most steps between two output times.");
  return keys;
}

const Keys<AdjointOptions>& adjoint_keys() {
  static const Keys<AdjointOptions> keys = Keys<AdjointOptions>().integer(
      "checkpoint_steps", &AdjointOptions::checkpoint_steps, IntRange(1, 100000000),
      "Forward steps between two adjoint checkpoints: fewer stores more, more recomputes more.");
  return keys;
}

namespace {

// The case's model: its name and the values every deck must give.
const Keys<OdeCase>& model_keys() {
  static const Keys<OdeCase> keys = [] {
    std::vector<std::string> names;
    std::string list;
    for (const BuiltinModel& m : builtin_models()) {
      names.push_back(m.name);
      list += (list.empty() ? "" : "; ") + m.name + ": " + m.equations;
    }
    Keys<OdeCase> k;
    k.custom(
         "name",
         [names, list](deck::Section& s, const OdeCase&) {
           s.choice("name", deck::required, names, "The model. " + list + ".");
         },
         [](const deck::Deck& d, const std::string& path, OdeCase& c) { c.model = d.string(path); })
        .custom(
            "parameters",
            [](deck::Section& s, const OdeCase&) {
              s.reals("parameters", deck::required, Length::at_least(1), Range::all(),
                      "The parameters p1, p2, ... (3 for robertson, 4 for lotka_volterra).");
            },
            [](const deck::Deck& d, const std::string& path, OdeCase& c) { c.parameters = d.reals(path); })
        .custom(
            "initial",
            [](deck::Section& s, const OdeCase&) {
              s.reals("initial", deck::required, Length::at_least(1), Range::all(),
                      "The initial state y(t0) (3 values for robertson, 2 for lotka_volterra).");
            },
            [](const deck::Deck& d, const std::string& path, OdeCase& c) { c.initial = d.reals(path); });
    return k;
  }();
  return keys;
}

const Keys<OdeCase>& output_keys() {
  static const Keys<OdeCase> keys =
      Keys<OdeCase>()
          .real("t0", &OdeCase::t0, Range::all(), "Initial time.")
          .custom(
              "output_times",
              [](deck::Section& s, const OdeCase&) {
                s.reals("output_times", deck::required, Length::at_least(1), Range::all(),
                        "Times at which the solution is reported, increasing, after t0.");
              },
              [](const deck::Deck& d, const std::string& path, OdeCase& c) { c.output_times = d.reals(path); });
  return keys;
}

const Keys<OdeCase>& sensitivity_keys() {
  static const Keys<OdeCase> keys =
      Keys<OdeCase>()
          .choice("mode", &OdeCase::sensitivity, ode_sensitivity_names,
                  "forward: dy/dp at every output time (forward sensitivities). adjoint: G = "
                  "integral from t0 to the last output time of y_k dt (k = integrand_component), "
                  "its value and dG/dp, dG/dy0 (one adjoint sweep with checkpoints).")
          .integer("integrand_component", &OdeCase::integrand_component, IntRange(1, 1000000),
                   "k in G = integral of y_k dt (adjoint mode), counted from 1.");
  return keys;
}

}  // namespace

void declare_ode_case(deck::Schema& s) {
  const OdeCase c;
  model_keys().declare(
      s.section("model", "The ODE system: one of the built-in models, its parameters and initial state."), c);
  auto& integration = s.section("integration", "CVODES (SUNDIALS): variable order, variable step.");
  cvodes_keys().declare(integration, c.integration);
  output_keys().declare(integration, c);
  auto& sensitivity =
      s.section("sensitivity", "Derivatives with respect to the parameters and the initial state.");
  sensitivity_keys().declare(sensitivity, c);
  adjoint_keys().declare(sensitivity, c.adjoint);
}

OdeCase read_ode_case(const deck::Deck& d) {
  OdeCase c;
  model_keys().read(d, "model", c);
  cvodes_keys().read(d, "integration", c.integration);
  output_keys().read(d, "integration", c);
  sensitivity_keys().read(d, "sensitivity", c);
  adjoint_keys().read(d, "sensitivity", c.adjoint);
  return c;
}

void validate_ode_case(const deck::Deck& d) {
  static const std::map<std::string, std::string> key_of{
      {"parameters", "model.parameters"},
      {"initial", "model.initial"},
      {"atol", "integration.atol"},
      {"output_times", "integration.output_times"},
      {"integrand_component", "sensitivity.integrand_component"}};
  validate_ode_case(read_ode_case(d), [&d](const std::string& member, const std::string& what) {
    d.reject(key_of.at(member), what);
  });
}

}  // namespace camber::solvers::ode
