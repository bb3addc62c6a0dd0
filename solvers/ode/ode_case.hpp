/// @file
/// camber::solvers::ode case — one built-in model (models.hpp) integrated
/// by CVODES to a list of output times, with forward sensitivities dy/dp
/// at every output, or the adjoint gradient of G = integral of y_k dt:
/// what `camber run` does with `problem: ode`, as one call.
///
/// @code
///   ode::OdeCase c;
///   c.model = "lotka_volterra";
///   c.parameters = {1.5, 1.0, 3.0, 1.0};
///   c.initial = {10.0, 5.0};
///   c.output_times = {1.0, 2.0, 5.0};
///   c.sensitivity = ode::OdeSensitivity::adjoint;
///   c.integrand_component = 2;                       // G = integral of y2 dt
///   const ode::OdeCaseResult r = ode::run_ode_case(c);
///   // r.y[k]: the state at output_times[k]; r.gradient->d_dp: dG/dp
///   ode::write_ode_solution_csv("out/case_solution.csv", c, r);
/// @endcode
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <camber/core/enum_names.hpp>
#include <camber/solvers/ode/cvodes.hpp>

namespace camber::solvers::ode {

/// none: the state only. forward: dy/dp at every output time. adjoint:
/// G = integral from t0 to the last output time of y_k dt, dG/dp and dG/dy0.
enum class OdeSensitivity { none, forward, adjoint };
inline constexpr std::array<EnumName<OdeSensitivity>, 3> ode_sensitivity_names{
    {{OdeSensitivity::none, "none"}, {OdeSensitivity::forward, "forward"}, {OdeSensitivity::adjoint, "adjoint"}}};

struct OdeCase {
  std::string model = "robertson";   ///< a built-in model's name
  std::vector<double> parameters;    ///< exactly the model's count
  std::vector<double> initial;       ///< y(t0), exactly the model's states
  CvodesOptions integration;         ///< atol: one value or one per state
  double t0 = 0.0;
  std::vector<double> output_times;  ///< increasing, after t0
  OdeSensitivity sensitivity = OdeSensitivity::none;
  int integrand_component = 1;       ///< k of G (adjoint), counted from 1
  AdjointOptions adjoint;            ///< its rtol is integration.rtol
};

/// Told the member (its name in OdeCase) and what is wrong with it; must
/// throw.
using OdeCaseReject = std::function<void(const std::string& member, const std::string& what)>;
/// Checks that the model can run the case: parameter and state counts,
/// atol's length, output times increasing after t0, the integrand's
/// component. The first fault goes to `reject`.
void validate_ode_case(const OdeCase& c, const OdeCaseReject& reject);
/// The same checks; bad_input naming the member.
void validate_ode_case(const OdeCase& c);

struct OdeCaseResult {
  std::vector<double> t;               ///< the output times reached
  std::vector<std::vector<double>> y;  ///< y[k][i]
  /// forward: s[k][j * n + i] = dy_i / dp_j at t[k]; empty otherwise.
  std::vector<std::vector<double>> s;
  std::vector<long> steps;          ///< steps taken up to t[k]
  std::vector<double> step_size;    ///< the last step's size at t[k] (none: 0 with forward)
  std::vector<int> order;           ///< the last step's order at t[k] (0 with forward)
  OdeStats stats;                   ///< of the forward integration
  /// adjoint: G and its gradients; the forward run it took.
  std::optional<IntegralGradient> gradient;
  OdeStats adjoint_forward;
};

/// Integrates the case (validated first). Not collective: every caller
/// integrates the whole system.
OdeCaseResult run_ode_case(const OdeCase& c);

/// `t,y1,..,yn` (and `dy1_dp1,..` with forward sensitivities) at 17 digits,
/// written atomically.
void write_ode_solution_csv(const std::string& path, const OdeCase& c, const OdeCaseResult& r);
/// `quantity,value` rows: G, `dG_dp1` .., `dG_dy0_1` ..; needs r.gradient.
void write_ode_gradient_csv(const std::string& path, const OdeCaseResult& r);

}  // namespace camber::solvers::ode
