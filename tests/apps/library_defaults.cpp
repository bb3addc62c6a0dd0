// Prints the library's default of every `euler` deck key that sets a
// library setting, one "key value" line each (reals to 17 digits, choices
// by their enum's name), for check_deck_defaults.py to hold against the
// defaults `camber deck-reference` states. Links the library, not the
// command line.
#include <cstdio>
#include <string>
#include <vector>

#include <camber/core/enum_names.hpp>
#include <camber/design/cst.hpp>
#include <camber/design/ffd.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/nn/ensemble.hpp>
#include <camber/nn/io/sample_campaign.hpp>
#include <camber/optimization/trust_region.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/aero/airfoil_sampler.hpp>
#include <camber/solvers/aero/flow_case.hpp>
#include <camber/solvers/aero/wing_design.hpp>
#include <camber/solvers/euler/deck_keys.hpp>
#include <camber/solvers/euler/steady_flow.hpp>

namespace eu = camber::solvers::euler;
namespace aero = camber::solvers::aero;

namespace {

void real(const char* key, double v) { std::printf("%s %.17g\n", key, v); }
void integer(const char* key, long long v) { std::printf("%s %lld\n", key, v); }
void reals(const char* key, const std::vector<double>& v) {
  std::printf("%s [", key);
  for (size_t k = 0; k < v.size(); ++k) std::printf("%s%.17g", k ? ", " : "", v[k]);
  std::printf("]\n");
}
void boolean(const char* key, bool v) { std::printf("%s %s\n", key, v ? "true" : "false"); }
void string(const char* key, const std::string& v) { std::printf("%s %s\n", key, v.empty() ? "\"\"" : v.c_str()); }
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
  real("solver.cfl_plateau_growth", steady.cfl_plateau_growth);
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
  // The design: an airfoil's (2-D) and a wing's (3-D) settings.
  const aero::AirfoilDesignSettings airfoil;
  const aero::WingDesignSettings wing;
  const camber::design::DeformationOptions deformation;
  integer("design.cst_order", camber::design::CstOptions{}.order);
  integer("design.ffd_degree_x", camber::design::FfdOptions{}.degree_x);
  integer("design.ffd_degree_y", camber::design::FfdOptions{}.degree_y);
  real("design.ffd_volume_margin", wing.margin);
  reals("design.twist_etas", wing.twist.stations);
  real("design.twist_axis", wing.twist.axis_chord_fraction);
  real("design.twist_blend", wing.twist.blend);
  real("design.bound", airfoil.bound);
  choice("design.deformation", camber::design::deformation_method_names, deformation.method);
  real("design.idw_exponent", deformation.exponent);
  real("design.rbf_support", deformation.rbf_support);
  choice("optimizer.objective", aero::coefficient_names, airfoil.objective);
  std::printf("optimizer.algorithm %s\n", airfoil.optimizer.algorithm.c_str());
  integer("optimizer.max_iterations", airfoil.optimizer.max_evaluations);
  real("optimizer.ftol_rel", airfoil.optimizer.ftol_rel);
  real("optimizer.thickness_fraction", airfoil.thickness_fraction);
  real("optimizer.thickness_fraction", wing.thickness_fraction);
  reals("optimizer.thickness_etas", wing.thickness_etas);
  reals("optimizer.thickness_chords", wing.thickness_chord_fractions);
  real("optimizer.max_thickness_min", airfoil.max_thickness_min);
  real("optimizer.area_fraction", airfoil.area_fraction);
  real("optimizer.le_radius_fraction", airfoil.le_radius_fraction);
  choice("optimizer.lift", aero::lift_constraint_names, airfoil.lift);
  real("optimizer.alpha_range_deg", airfoil.alpha_range_deg);
  const camber::opt::TrustRegionOptions region;
  real("trust_region.initial_radius", region.initial_radius);
  real("trust_region.min_radius", region.min_radius);
  real("trust_region.max_radius", region.max_radius);
  real("trust_region.penalty", region.penalty);
  const camber::nn::EnsembleOptions ensemble;
  integer("trust_region.members", ensemble.members);
  integer("trust_region.epochs", ensemble.epochs);
  real("trust_region.learning_rate", ensemble.learning_rate);
  real("trust_region.gradient_weight", ensemble.gradient_weight);
  integer("trust_region.seed", static_cast<long long>(ensemble.seed));
  const camber::nn::io::SampleCampaignSettings sample;
  integer("sample.count", sample.count);
  integer("sample.seed", static_cast<long long>(sample.seed));
  integer("sample.active_rounds", sample.active_rounds);
  integer("sample.active_batch", sample.active_batch);
  integer("sample.active_candidates", sample.active_candidates);
  integer("sample.ranks_per_sample", sample.ranks_per_sample);
  const aero::AirfoilSampleSpace space;
  reals("sample.mach", {space.mach[0], space.mach[1]});
  reals("sample.alpha_deg", {space.alpha_deg[0], space.alpha_deg[1]});
  reals("sample.shape", space.shape);
  boolean("sample.gradients", space.gradients);
  // The boundaries (the generated grids' markers) and the wing stations.
  const eu::BoundaryMarkers markers;
  string("boundaries.slip_wall", markers.slip_wall);
  string("boundaries.symmetry", markers.symmetry);
  string("boundaries.far_field", markers.far_field);
  string("boundaries.supersonic_inflow", markers.supersonic_inflow);
  string("boundaries.supersonic_outflow", markers.supersonic_outflow);
  const aero::FlowCaseSettings run;
  reals("wing.stations", run.stations);
  string("wing.reference_cp", run.reference_file);
  return 0;
}
