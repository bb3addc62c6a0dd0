#include "ode_case.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/solvers/ode/cvodes.hpp>
#include <camber/solvers/ode/deck_keys.hpp>
#include <camber/solvers/ode/models.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace fs = std::filesystem;

namespace {

const solvers::ode::BuiltinModel& model_of(const deck::Deck& d) {
  return solvers::ode::builtin_model_info(d.string("model.name"));
}

void declare_ode_schema(deck::Schema& s) {
  std::vector<std::string> names;
  std::string list;
  for (const solvers::ode::BuiltinModel& m : solvers::ode::builtin_models()) {
    names.push_back(m.name);
    list += (list.empty() ? "" : "; ") + m.name + ": " + m.equations;
  }
  s.section("model", "The ODE system: one of the built-in models, its parameters and initial state.")
      .choice("name", deck::required, names, "The model. " + list + ".")
      .reals("parameters", deck::required, deck::Length::at_least(1), deck::Range::all(),
             "The parameters p1, p2, ... (3 for robertson, 4 for lotka_volterra).")
      .reals("initial", deck::required, deck::Length::at_least(1), deck::Range::all(),
             "The initial state y(t0) (3 values for robertson, 2 for lotka_volterra).");
  auto& integration = s.section("integration", "CVODES (SUNDIALS): variable order, variable step.");
  solvers::ode::cvodes_keys().declare(integration);
  integration
      .real("t0", 0.0, deck::Range::all(), "Initial time.")
      .reals("output_times", deck::required, deck::Length::at_least(1), deck::Range::all(),
             "Times at which the solution is reported, increasing, after t0.");
  auto& sensitivity = s.section("sensitivity", "Derivatives with respect to the parameters and the initial state.");
  sensitivity
      .choice("mode", "none", {"none", "forward", "adjoint"},
              "forward: dy/dp at every output time (forward sensitivities). adjoint: G = integral "
              "from t0 to the last output time of y_k dt (k = integrand_component), its value and "
              "dG/dp, dG/dy0 (one adjoint sweep with checkpoints).")
      .integer("integrand_component", 1, deck::IntRange(1, 1000000),
               "k in G = integral of y_k dt (adjoint mode), counted from 1.");
  solvers::ode::adjoint_keys().declare(sensitivity);
}

void validate_ode(const deck::Deck& d) {
  const solvers::ode::BuiltinModel& m = model_of(d);
  if (static_cast<int>(d.reals("model.parameters").size()) != m.parameters)
    d.reject("model.parameters", CAMBER_MSG(m.name << " has " << m.parameters << " parameters, got "
                                                    << d.reals("model.parameters").size()));
  if (static_cast<int>(d.reals("model.initial").size()) != m.states)
    d.reject("model.initial", CAMBER_MSG(m.name << " has " << m.states << " components, got "
                                                 << d.reals("model.initial").size()));
  const auto& atol = d.reals("integration.atol");
  if (atol.size() != 1 && static_cast<int>(atol.size()) != m.states)
    d.reject("integration.atol", CAMBER_MSG("one value or " << m.states << ", got " << atol.size()));
  double last = d.real("integration.t0");
  for (double t : d.reals("integration.output_times")) {
    if (!(t > last))
      d.reject("integration.output_times",
               CAMBER_MSG("times must increase after t0 = " << d.real("integration.t0") << ", got " << t
                                                            << " after " << last));
    last = t;
  }
  if (d.integer("sensitivity.integrand_component") > m.states)
    d.reject("sensitivity.integrand_component", CAMBER_MSG(m.name << " has " << m.states << " components"));
}

std::string vector_text(const std::vector<double>& v) {
  std::ostringstream s;
  s << std::setprecision(6) << std::scientific;
  for (size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
  return s.str();
}

int run_ode(const deck::Deck& d, const Runtime& runtime, const RunOptions&) {
  const std::string name = d.string("case"), dir = d.string("output.dir");
  const solvers::ode::BuiltinModel& m = model_of(d);
  const solvers::ode::OdeSystem sys = solvers::ode::builtin_model(m.name, d.reals("model.parameters"));
  const solvers::ode::CvodesOptions o = solvers::ode::cvodes_keys().read(d, "integration");
  const double t0 = d.real("integration.t0");
  const std::vector<double>& times = d.reals("integration.output_times");
  const std::vector<double>& y0 = d.reals("model.initial");
  const std::string mode = d.string("sensitivity.mode");
  logging::info(CAMBER_MSG("ode: " << m.name << " (" << m.equations << "), p = "
                                   << vector_text(sys.p) << ", " << d.string("integration.method")
                                   << ", rtol " << o.rtol << ", sensitivity " << mode));
  std::ostringstream csv;
  csv << std::setprecision(17) << "t";
  for (int i = 1; i <= m.states; ++i) csv << ",y" << i;
  if (mode == "forward")
    for (int j = 1; j <= m.parameters; ++j)
      for (int i = 1; i <= m.states; ++i) csv << ",dy" << i << "_dp" << j;
  csv << "\n";
  solvers::ode::OdeStats stats;
  if (mode == "forward") {
    ScopedTimer timer("ode forward sensitivities");
    const solvers::ode::SensitivitySolution r = solvers::ode::forward_sensitivities(sys, o, t0, y0, times);
    for (size_t k = 0; k < r.t.size(); ++k) {
      logging::info(CAMBER_MSG("t = " << std::setprecision(4) << std::scientific << r.t[k] << "  steps "
                                      << r.steps[k] << "  y = " << vector_text(r.y[k])));
      csv << r.t[k];
      for (double v : r.y[k]) csv << "," << v;
      for (double v : r.s[k]) csv << "," << v;
      csv << "\n";
    }
    stats = r.stats;
  } else {
    ScopedTimer timer("ode integration");
    solvers::ode::Cvodes cv(sys, o);
    cv.reset(t0, y0);
    std::vector<double> y;
    for (double t : times) {
      const double reached = cv.advance(t, y);
      const solvers::ode::OdeStats s = cv.stats();
      logging::info(CAMBER_MSG("t = " << std::setprecision(4) << std::scientific << reached << "  steps "
                                      << s.steps << "  step size " << s.last_step << "  order "
                                      << s.last_order << "  y = " << vector_text(y)));
      csv << reached;
      for (double v : y) csv << "," << v;
      csv << "\n";
    }
    stats = cv.stats();
  }
  logging::info(CAMBER_MSG("ode: " << stats.steps << " steps, " << stats.rhs_evals
                                   << " right-hand side evaluations, " << stats.jac_evals
                                   << " Jacobians, " << stats.error_test_fails << " error test failures, "
                                   << stats.nonlin_fails << " nonlinear convergence failures"));
  fs::create_directories(dir);
  const std::string csv_path = dir + "/" + name + "_solution.csv";
  if (runtime.rank() == 0) std::ofstream(csv_path) << csv.str();
  std::string written = csv_path;
  if (mode == "adjoint") {
    ScopedTimer timer("ode adjoint");
    const int k = static_cast<int>(d.integer("sensitivity.integrand_component")) - 1;
    solvers::ode::AdjointOptions a = solvers::ode::adjoint_keys().read(d, "sensitivity");
    a.rtol = o.rtol;
    const solvers::ode::OdeIntegrand g = solvers::ode::make_integrand([k](double, const auto* y, const auto*) { return y[k]; });
    solvers::ode::OdeStats fwd;
    const solvers::ode::IntegralGradient r =
        solvers::ode::integral_gradients(sys, g, o, t0, y0, {times.back()}, a, &fwd)[0];
    logging::info(CAMBER_MSG("G = integral of y" << k + 1 << " from " << t0 << " to " << times.back()
                                                << " = " << std::setprecision(6) << std::scientific << r.value));
    logging::info("dG/dp  = " + vector_text(r.d_dp));
    logging::info("dG/dy0 = " + vector_text(r.d_dy0));
    logging::info(CAMBER_MSG("adjoint: forward " << fwd.steps << " steps, backward " << r.backward.steps
                                                 << " steps, checkpoints every " << a.checkpoint_steps));
    const std::string grad_path = dir + "/" + name + "_gradient.csv";
    if (runtime.rank() == 0) {
      std::ofstream out(grad_path);
      out << std::setprecision(17) << "quantity,value\nG," << r.value << "\n";
      for (size_t j = 0; j < r.d_dp.size(); ++j) out << "dG_dp" << j + 1 << "," << r.d_dp[j] << "\n";
      for (size_t i = 0; i < r.d_dy0.size(); ++i) out << "dG_dy0_" << i + 1 << "," << r.d_dy0[i] << "\n";
    }
    written += " and " + grad_path;
  }
  logging::info("wrote " + written);
  return 0;
}

}  // namespace

Problem ode_problem() {
  Problem p;
  p.name = "ode";
  p.summary =
      "a built-in ODE model (robertson, lotka_volterra) integrated by SUNDIALS' CVODES, with forward "
      "or adjoint sensitivities with respect to its parameters (sections model, integration, "
      "sensitivity).";
  p.declare = declare_ode_schema;
  p.validate = validate_ode;
  p.run = run_ode;
  return p;
}

}  // namespace camber::app
