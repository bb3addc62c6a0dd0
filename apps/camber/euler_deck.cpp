// The euler problem's deck: its sections (declared from the library's
// key tables where a library settings struct owns the keys) and the
// library's checks that span keys, called on them.
#include "euler_common.hpp"

#include <string>

#include <camber/mesh/deck_keys.hpp>
#include <camber/nn/io/deck_keys.hpp>
#include <camber/solvers/aero/deck_keys.hpp>
#include <camber/solvers/aero/surrogate_design.hpp>
#include <camber/solvers/euler/deck_keys.hpp>

namespace camber::app::euler_app {

void declare_euler_schema(deck::Schema& s) {
  // Every default below that a library setting has is read from the
  // library's own settings structs: a deck and a C++ program that leave a
  // setting out get the same value.
  mesh::mesh_source_keys().declare(
      s.section("mesh", "The computational mesh: an airfoil O-grid generated here, or a file."));
  auto& flow = s.section("flow", "The free stream and the reference quantities of the coefficients.");
  eu::flow_condition_keys().declare(flow);
  eu::flux_keys().declare(flow);
  eu::spatial_option_keys().declare(flow);
  eu::boundary_marker_keys().declare(
      s.section("boundaries", "Boundary condition of each mesh marker: comma-separated marker names "
                              "per kind. Every marker of the mesh needs exactly one."));
  aero::flow_case_station_keys().declare(
      s.section("wing", "3-D meshes: the wall pressure along spanwise stations of a wing whose root "
                        "lies on the plane y = 0."));
  auto& solver = s.section("solver", "Pseudo-transient Newton (PETSc GMRES, block-Jacobi/ILU(1)); "
                                    "-flow_ksp_* and -flow_pc_* options override the linear solver.");
  eu::steady_option_keys().declare(solver);
  eu::warm_start_keys().declare(solver);
  auto& design = s.section("design", "camber optimize: the shape parametrization of the wall and "
                                    "the volume mesh deformation (inverse-distance weighting or "
                                    "radial basis functions).");
  aero::parametrization_keys().declare(design);
  const aero::WingDesignSettings wing_defaults;
  aero::ffd_volume_keys().declare(design, wing_defaults);
  aero::wing_twist_keys().declare(design, wing_defaults);
  aero::design_bound_keys().declare(design);
  aero::design_start_keys().declare(design);
  aero::deformation_keys().declare(design);
  auto& optimizer = s.section("optimizer", "camber optimize: the objective, the constraints and NLopt.");
  optimizer.choice("algorithm", aero::ShapeDesignSettings{}.optimizer.algorithm,
                   {"slsqp", "mma", "ccsaq", "trust_region"},
                   "NLopt's algorithm on the flow, or trust_region: surrogate-based optimization "
                   "(2-D): an ensemble of small networks trained on every flow's values and "
                   "adjoint gradients is optimized (SLSQP) inside a trust region, each candidate "
                   "is checked by a flow and its adjoints and accepted or not, the region grows "
                   "or shrinks, and the networks are fine-tuned with the new point (section "
                   "trust_region).");
  aero::shape_design_keys().declare(optimizer);
  aero::airfoil_constraint_keys().declare(optimizer);
  aero::wing_station_keys().declare(optimizer, wing_defaults);
  aero::operating_point_keys().declare(optimizer);
  auto& region = s.section("trust_region", "camber optimize with optimizer.algorithm: "
                                           "trust_region: the trust region and the networks it "
                                           "optimizes on.");
  aero::trust_region_keys().declare(region, aero::design_trust_region_options());
  aero::ensemble_keys().declare(region);
  auto& sample = s.section("sample", "camber sample: flows over a Latin-hypercube design of Mach number, "
                      "angle of attack and, with shape, the design section's shape variables, "
                      "written as a data set (inputs mach, alpha_deg[, shape_0 ..]; outputs CL, "
                      "CD, CM[, t_max]; with gradients, their derivatives in every input) for "
                      "camber train.");
  nn::io::sample_campaign_keys().declare(sample);
  aero::airfoil_sample_space_keys().declare(sample);
  nn::io::sample_group_keys().declare(sample);
}

void validate_euler(const deck::Deck& d) {
  mesh::validate_mesh_source_keys(d, "mesh");
  eu::read_boundary_conditions(d, "boundaries");  // a marker given two conditions
  eu::validate_flow_condition_keys(d, "flow");
  aero::validate_design_keys(d);
  eu::validate_steady_option_keys(d, "solver");
}

}  // namespace camber::app::euler_app
