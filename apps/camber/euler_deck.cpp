// The euler problem's deck: its sections (declared from the library's
// key tables where a library settings struct owns the keys) and the
// library's checks that span keys, called on them.
#include "euler_common.hpp"
#include "mesh_source.hpp"

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
  auto& b = s.section("boundaries",
                      "Boundary condition of each mesh marker: comma-separated marker names per "
                      "kind. Every marker of the mesh needs exactly one.");
  b.string("slip_wall", "airfoil", "Inviscid walls (no flow through; pressure force).")
      .string("symmetry", "", "Symmetry planes (treated as slip walls; no forces).")
      .string("far_field", "farfield",
              "Characteristic far field from Riemann invariants (subsonic or supersonic).")
      .string("supersonic_inflow", "", "Supersonic inflow: the free stream's flux.")
      .string("supersonic_outflow", "", "Supersonic outflow: the interior's flux.");
  s.section("wing", "3-D meshes: the wall pressure along spanwise stations of a wing whose root "
                    "lies on the plane y = 0.")
      .reals("stations", {}, deck::Length::any(), deck::Range::greater_than(0.0).and_less_than(1.0),
             "Stations eta, fractions of the semi-span (the largest y of the slip walls' "
             "nodes): the slip-wall faces the planes y = eta b cut, written as "
             "<dir>/<case>_stations.csv (eta, x/c, x, z, Cp, side: 1 upper, -1 lower) and "
             "plotted in <case>_stations.png. Empty: none.")
      .string("reference_cp", "",
              "A CSV file of measured (or other reference) pressures at stations, header "
              "eta,x_over_c,cp,side (side 1 upper, -1 lower, 0 a leading-edge orifice; '#' "
              "lines are comments), relative to the deck's folder: plotted beside the "
              "computed Cp at the stations both have, and compared in "
              "<case>_stations_reference.csv (per station the RMS and largest difference of "
              "the computed Cp, linear between cut points, at the reference's x/c; "
              "leading-edge orifices are plotted, not compared). Needs wing.stations. "
              "examples/onera_m6/schmitt_charpin_test2308.csv is the ONERA M6 experiment.");
  auto& solver = s.section("solver", "Pseudo-transient Newton (PETSc GMRES, block-Jacobi/ILU(1)); "
                                    "-flow_ksp_* and -flow_pc_* options override the linear solver.");
  eu::steady_option_keys().declare(solver);
  eu::warm_start_keys().declare(solver);
  auto& design = s.section("design", "camber optimize: the shape parametrization of the wall and "
                                    "the volume mesh deformation (inverse-distance weighting or "
                                    "radial basis functions).");
  aero::parametrization_keys().declare(design);
  aero::ffd_volume_keys().declare(design);
  aero::design_bound_keys().declare(design);
  design.string("start", "",
                "A design to start from instead of the undeformed shape: a "
                "<case>_final_design.csv that camber optimize wrote (relative to the deck's "
                "folder), with as many shape variables as this design section makes (its "
                "alpha rows are not used). With optimizer.max_iterations: 1 it evaluates that "
                "design, e.g. one optimized on a coarser grid solved on a finer one. The "
                "baseline (the lift target, the scales) stays the undeformed shape.");
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
  aero::wing_station_keys().declare(optimizer);
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
  sample.reals("mach", {0.3, 0.6}, deck::Length::exactly(2), deck::Range(0.01, 10.0),
             "Mach number range [low, high].")
      .reals("alpha_deg", {-2.0, 4.0}, deck::Length::exactly(2), deck::Range(-90.0, 90.0),
             "Angle of attack range [low, high], in degrees.")
      .reals("shape", {}, deck::Length::between(0, 2), deck::Range(-1.0, 1.0),
             "[low, high]: also vary every shape variable of the design section (2-D meshes) "
             "in this range, within [-design.bound, design.bound]; adds the output t_max "
             "(the largest thickness) and implies gradients. Empty: Mach and alpha only.")
      .boolean("gradients", false,
               "Also write d(outputs)/d(inputs) for every sample, by adjoint solves (one per "
               "force coefficient, all inputs at once) through the design problem of camber "
               "optimize (second order as the deck sets, warm-started from the group's last "
               "flow).")
      .integer("ranks_per_sample", 1, deck::IntRange::positive(),
               "Ranks that solve one flow together; the rank count must be a multiple, and "
               "the groups solve different flows at once.");
}

void validate_euler(const deck::Deck& d) {
  mesh::validate_mesh_source_keys(d, "mesh");
  eu::read_boundary_conditions(d, "boundaries");  // a marker given two conditions
  eu::validate_flow_condition_keys(d, "flow");
  aero::validate_design_keys(d);
  eu::validate_steady_option_keys(d, "solver");
}

}  // namespace camber::app::euler_app
