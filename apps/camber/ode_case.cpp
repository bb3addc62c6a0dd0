#include "ode_case.hpp"

#include <iomanip>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/solvers/ode/deck_keys.hpp>
#include <camber/solvers/ode/models.hpp>
#include <camber/core/timer.hpp>

namespace camber::app {

namespace {

namespace ode = solvers::ode;

std::string vector_text(const std::vector<double>& v) {
  std::ostringstream s;
  s << std::setprecision(6) << std::scientific;
  for (size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
  return s.str();
}

int run_ode(const deck::Deck& d, const Runtime& runtime, const RunOptions&) {
  const std::string name = d.string("case"), dir = d.string("output.dir");
  const ode::OdeCase c = ode::read_ode_case(d);
  const ode::BuiltinModel& m = ode::builtin_model_info(c.model);
  logging::info(CAMBER_MSG("ode: " << m.name << " (" << m.equations << "), p = " << vector_text(c.parameters)
                                   << ", " << enum_name(ode::ode_method_names, c.integration.method)
                                   << ", rtol " << c.integration.rtol << ", sensitivity "
                                   << enum_name(ode::ode_sensitivity_names, c.sensitivity)));
  ode::OdeCaseResult r;
  {
    ScopedTimer timer("ode");
    r = ode::run_ode_case(c);
  }
  for (size_t k = 0; k < r.t.size(); ++k) {
    std::ostringstream line;
    line << "t = " << std::setprecision(4) << std::scientific << r.t[k] << "  steps " << r.steps[k];
    if (r.s.empty()) line << "  step size " << r.step_size[k] << "  order " << r.order[k];
    logging::info(line.str() + "  y = " + vector_text(r.y[k]));
  }
  const ode::OdeStats& stats = r.stats;
  logging::info(CAMBER_MSG("ode: " << stats.steps << " steps, " << stats.rhs_evals
                                   << " right-hand side evaluations, " << stats.jac_evals
                                   << " Jacobians, " << stats.error_test_fails << " error test failures, "
                                   << stats.nonlin_fails << " nonlinear convergence failures"));
  const std::string csv_path = dir + "/" + name + "_solution.csv";
  if (runtime.rank() == 0) ode::write_ode_solution_csv(csv_path, c, r);
  std::string written = csv_path;
  if (r.gradient) {
    const ode::IntegralGradient& g = *r.gradient;
    logging::info(CAMBER_MSG("G = integral of y" << c.integrand_component << " from " << c.t0 << " to "
                                                << c.output_times.back() << " = " << std::setprecision(6)
                                                << std::scientific << g.value));
    logging::info("dG/dp  = " + vector_text(g.d_dp));
    logging::info("dG/dy0 = " + vector_text(g.d_dy0));
    logging::info(CAMBER_MSG("adjoint: forward " << r.adjoint_forward.steps << " steps, backward "
                                                 << g.backward.steps << " steps, checkpoints every "
                                                 << c.adjoint.checkpoint_steps));
    const std::string grad_path = dir + "/" + name + "_gradient.csv";
    if (runtime.rank() == 0) ode::write_ode_gradient_csv(grad_path, r);
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
  p.declare = ode::declare_ode_case;
  p.validate = [](const deck::Deck& d) { ode::validate_ode_case(d); };
  p.run = run_ode;
  return p;
}

}  // namespace camber::app
