#include <camber/solvers/ode/ode_case.hpp>

#include <cmath>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/solvers/ode/models.hpp>

namespace camber::solvers::ode {

void validate_ode_case(const OdeCase& c, const OdeCaseReject& reject) {
  const auto check = [&](bool ok, const char* member, const std::string& what) {
    if (!ok) reject(member, what);
  };
  const BuiltinModel& m = builtin_model_info(c.model);
  check(static_cast<int>(c.parameters.size()) == m.parameters, "parameters",
        CAMBER_MSG(m.name << " has " << m.parameters << " parameters, got " << c.parameters.size()));
  check(static_cast<int>(c.initial.size()) == m.states, "initial",
        CAMBER_MSG(m.name << " has " << m.states << " components, got " << c.initial.size()));
  const size_t n_atol = c.integration.atol.size();
  check(n_atol == 1 || static_cast<int>(n_atol) == m.states, "atol",
        CAMBER_MSG("one value or " << m.states << ", got " << n_atol));
  check(!c.output_times.empty(), "output_times", "no output times");
  double last = c.t0;
  for (double t : c.output_times) {
    check(std::isfinite(t) && t > last, "output_times",
          CAMBER_MSG("times must increase after t0 = " << c.t0 << ", got " << t << " after " << last));
    last = t;
  }
  check(c.integrand_component >= 1 && c.integrand_component <= m.states, "integrand_component",
        CAMBER_MSG(m.name << " has " << m.states << " components"));
}

void validate_ode_case(const OdeCase& c) {
  validate_ode_case(c, [](const std::string& member, const std::string& what) {
    throw_bad_input("ode case: " + member + ": " + what);
  });
}

OdeCaseResult run_ode_case(const OdeCase& c) {
  validate_ode_case(c);
  const OdeSystem sys = builtin_model(c.model, c.parameters);
  OdeCaseResult r;
  if (c.sensitivity == OdeSensitivity::forward) {
    SensitivitySolution f = forward_sensitivities(sys, c.integration, c.t0, c.initial, c.output_times);
    r.t = std::move(f.t);
    r.y = std::move(f.y);
    r.s = std::move(f.s);
    r.steps = std::move(f.steps);
    r.step_size.assign(r.t.size(), 0.0);
    r.order.assign(r.t.size(), 0);
    r.stats = f.stats;
  } else {
    Cvodes cv(sys, c.integration);
    cv.reset(c.t0, c.initial);
    std::vector<double> y;
    for (double t : c.output_times) {
      r.t.push_back(cv.advance(t, y));
      const OdeStats s = cv.stats();
      r.y.push_back(y);
      r.steps.push_back(s.steps);
      r.step_size.push_back(s.last_step);
      r.order.push_back(s.last_order);
    }
    r.stats = cv.stats();
  }
  if (c.sensitivity == OdeSensitivity::adjoint) {
    const int k = c.integrand_component - 1;
    AdjointOptions a = c.adjoint;
    a.rtol = c.integration.rtol;
    const OdeIntegrand g = make_integrand([k](double, const auto* y, const auto*) { return y[k]; });
    r.gradient = integral_gradients(sys, g, c.integration, c.t0, c.initial, {c.output_times.back()}, a,
                                    &r.adjoint_forward)[0];
  }
  return r;
}

namespace {

void write_csv(const std::string& path, const std::string& text) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  write_file_atomically(path, text);
}

}  // namespace

void write_ode_solution_csv(const std::string& path, const OdeCase& c, const OdeCaseResult& r) {
  const size_t n = c.initial.size(), m = c.parameters.size();
  std::ostringstream csv;
  csv << std::setprecision(17) << "t";
  for (size_t i = 1; i <= n; ++i) csv << ",y" << i;
  if (!r.s.empty())
    for (size_t j = 1; j <= m; ++j)
      for (size_t i = 1; i <= n; ++i) csv << ",dy" << i << "_dp" << j;
  csv << "\n";
  for (size_t k = 0; k < r.t.size(); ++k) {
    csv << r.t[k];
    for (double v : r.y[k]) csv << "," << v;
    if (!r.s.empty())
      for (double v : r.s[k]) csv << "," << v;
    csv << "\n";
  }
  write_csv(path, csv.str());
}

void write_ode_gradient_csv(const std::string& path, const OdeCaseResult& r) {
  CAMBER_REQUIRE(r.gradient.has_value(), "write_ode_gradient_csv: the case computed no gradient");
  const IntegralGradient& g = *r.gradient;
  std::ostringstream out;
  out << std::setprecision(17) << "quantity,value\nG," << g.value << "\n";
  for (size_t j = 0; j < g.d_dp.size(); ++j) out << "dG_dp" << j + 1 << "," << g.d_dp[j] << "\n";
  for (size_t i = 0; i < g.d_dy0.size(); ++i) out << "dG_dy0_" << i + 1 << "," << g.d_dy0[i] << "\n";
  write_csv(path, out.str());
}

}  // namespace camber::solvers::ode
