// Prints the library's default of every `euler` deck key that sets a
// library setting, one "key value" line each (reals to 17 digits, choices
// by their enum's name), for check_deck_defaults.py to hold against the
// defaults `camber deck-reference` states. Links the library, not the
// command line.
#include <cstdio>
#include <string>

#include <camber/core/enum_names.hpp>
#include <camber/solvers/euler/steady_flow.hpp>

namespace eu = camber::solvers::euler;

namespace {

void real(const char* key, double v) { std::printf("%s %.17g\n", key, v); }
void integer(const char* key, long long v) { std::printf("%s %lld\n", key, v); }
void boolean(const char* key, bool v) { std::printf("%s %s\n", key, v ? "true" : "false"); }
template <class Names, class E>
void choice(const char* key, const Names& names, E v) {
  std::printf("%s %s\n", key, std::string(camber::enum_name(names, v)).c_str());
}

}  // namespace

int main() {
  const eu::FlowConditions flow;
  const eu::SpatialOptions spatial;
  const eu::SteadyFlowSettings design;
  const eu::SteadyOptions& steady = design.steady;
  real("flow.alpha_deg", flow.alpha_deg);
  real("flow.pressure_Pa", flow.pressure);
  real("flow.temperature_K", flow.temperature);
  real("flow.gamma", flow.gamma);
  real("flow.gas_constant_J_per_kgK", flow.gas_constant);
  real("flow.reference_length_m", flow.reference_length);
  real("flow.reference_area_m2", flow.reference_area);
  boolean("flow.far_field_vortex", flow.far_field_vortex);
  choice("flow.flux", eu::flux_scheme_names, design.scheme);
  integer("flow.order", spatial.order);
  choice("flow.limiter", eu::limiter_kind_names, spatial.limiter);
  choice("flow.gradient_stencil", eu::gradient_stencil_names, spatial.gradient_stencil);
  real("flow.venkatakrishnan_k", spatial.venkatakrishnan_k);
  real("flow.wang_epsilon", spatial.wang_epsilon);
  real("flow.smooth_width", spatial.smooth_width);
  integer("solver.max_iterations", steady.max_iterations);
  real("solver.rel_tolerance", steady.rel_tolerance);
  real("solver.cfl_start", steady.cfl_start);
  real("solver.cfl_max", steady.cfl_max);
  real("solver.linear_rel_tolerance", steady.linear_rel_tolerance);
  integer("solver.linear_max_iterations", steady.linear_max_iterations);
  choice("solver.newton_operator", eu::newton_operator_names, steady.newton_operator);
  choice("solver.preconditioner", eu::preconditioner_names, steady.preconditioner);
  integer("solver.jacobian_refresh", steady.jacobian_refresh);
  real("solver.warm_cfl_start", design.warm_cfl_start);
  integer("solver.warm_max_iterations", design.warm_max_iterations);
  real("solver.first_order_drop", steady.first_order_drop);
  real("solver.second_order_cfl_start", steady.second_order_cfl_start);
  real("solver.max_update", steady.max_update);
  real("solver.second_order_cfl_growth", steady.second_order_cfl_growth);
  real("solver.freeze_limiter_drop", steady.freeze_limiter_drop);
  return 0;
}
