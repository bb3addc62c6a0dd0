// The euler problem's deck: its sections (declared from the library's
// key tables where a library settings struct owns the keys), the checks
// that span keys, and the comma-separated marker lists.
#include "euler_common.hpp"
#include "mesh_source.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/enum_names.hpp>
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
  auto& mesh_section = s.section("mesh", "The computational mesh: an airfoil O-grid generated here, or a file.");
  mesh_section
      .choice("generate", "airfoil_ogrid",
              {"airfoil_ogrid", "conformal_ogrid", "karman_trefftz_ogrid", "file"},
              "airfoil_ogrid: a structured O-grid around a NACA 4-digit airfoil, chord 1 "
              "(markers airfoil, farfield), layers extruded from the wall. conformal_ogrid: "
              "the Karman-Trefftz construction around any airfoil with a sharp trailing edge "
              "(mesh.naca or mesh.airfoil_file; near-square cells when cells_normal = "
              "cells_around at about 150 chords; same markers). karman_trefftz_ogrid: "
              "Vassberg and Jameson's cells x cells O-grid around the NACA 0012 closed at x = "
              "1.0089 (the paper's constants, far field ~150 chords). file: read mesh.file.")
      .string("file", "",
              "Mesh file (.su2, .msh or .cgns, by extension) when generate is file; a relative path "
              "is relative to the deck's folder.");
  mesh::airfoil_grid_keys().declare(mesh_section);
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
  optimizer
      .reals("mach_points", {}, deck::Length::between(0, 16), deck::Range(0.01, 5.0),
             "A multi-point design: the Mach numbers of its operating points, flow.mach "
             "among them (the design point, reported first and written for ParaView), each "
             "at flow.alpha_deg. The objective is the weighted mean over the points; the "
             "lift and moment constraints hold at each (lift: equal trims each point's "
             "alpha). Empty: the one point flow.mach.")
      .reals("point_weights", {}, deck::Length::between(0, 16), deck::Range::positive(),
             "The weights of mach_points, one each (empty: equal weights).");
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

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b != std::string::npos) names.push_back(item.substr(b, e - b + 1));
  }
  return names;
}

void validate_euler(const deck::Deck& d) {
  const std::vector<std::string> ogrid_keys = {"naca", "airfoil_file", "sharp_trailing_edge",
                                               "cells_around", "cells_normal",
                                               "first_cell_height", "farfield_chords"};
  const std::vector<std::string> kt_keys = {"cells"};
  std::vector<std::string> all = ogrid_keys;
  all.insert(all.end(), kt_keys.begin(), kt_keys.end());
  all.push_back("cell_shape");
  // Keys the generator would ignore.
  std::vector<std::string> foreign;
  const std::string& gen = d.string("mesh.generate");
  if (gen == "karman_trefftz_ogrid") foreign = ogrid_keys;
  if (gen == "airfoil_ogrid") foreign = kt_keys;
  if (gen == "conformal_ogrid") foreign = {"cells", "first_cell_height"};
  if (d.has("mesh.airfoil_file") && (d.has("mesh.naca") || d.has("mesh.sharp_trailing_edge")))
    d.reject(d.has("mesh.naca") ? "mesh.naca" : "mesh.sharp_trailing_edge",
             "the airfoil comes from mesh.airfoil_file, so this would be ignored; remove it");
  validate_mesh_source(d, all);
  if (gen != "file")
    for (const std::string& key : foreign)
      if (d.has("mesh." + key))
        d.reject("mesh." + key, "does not shape a '" + gen + "' mesh, so it would be ignored; "
                                "remove it");
  if (gen != "file")
    mesh::validate_airfoil_grid(airfoil_grid_settings(d), [&d](const std::string& member, const std::string& what) {
      d.reject("mesh." + member, what);
    });
  std::set<std::string> seen;
  for (const auto& [kind, key] : eu::boundary_kind_names)
    for (const std::string& name : split_names(d.string("boundaries." + std::string(key))))
      if (!seen.insert(name).second)
        d.reject("boundaries." + std::string(key),
                 "marker '" + name + "' is given two boundary conditions");
  if (d.boolean("flow.far_field_vortex") && d.real("flow.mach") >= 1.0)
    d.reject("flow.far_field_vortex", "needs a subsonic free stream (flow.mach < 1)");
  const std::string& lift = d.string("optimizer.lift");
  const bool targeted = lift == "at_least" || lift == "equal" || lift == "fixed";
  if (targeted && !d.has("optimizer.lift_target"))
    d.reject("optimizer.lift", "'" + lift + "' holds CL at optimizer.lift_target, which is not given");
  if (d.has("optimizer.lift_target") && !targeted)
    d.reject("optimizer.lift_target",
             "is used only with optimizer.lift: at_least, equal or fixed (lift is '" + lift +
                 "'), so it would be ignored");
  if (d.has("optimizer.alpha_range_deg") && lift != "equal" && lift != "equal_baseline" &&
      lift != "fixed" && lift != "fixed_baseline")
    d.reject("optimizer.alpha_range_deg",
             "is used only when optimizer.lift trims the angle of attack (equal, "
             "equal_baseline, fixed, fixed_baseline), so it would be ignored");
  // The FFD volume box is the 3-D parametrization; the others are 2-D.
  const bool volume = d.string("design.parametrization") == "ffd_volume";
  for (const char* key : {"design.ffd_volume_degree", "design.ffd_volume_move",
                          "design.ffd_volume_margin", "optimizer.thickness_etas",
                          "optimizer.thickness_chords"})
    if (!volume && d.has(key))
      d.reject(key, "is used only with design.parametrization: ffd_volume (3-D meshes)");
  for (const char* key : {"design.bumps_per_surface", "design.cst_order", "design.ffd_degree_x",
                          "design.ffd_degree_y", "design.deformation", "design.idw_exponent",
                          "design.rbf_support", "optimizer.max_thickness_min",
                          "optimizer.area_fraction", "optimizer.le_radius_fraction"})
    if (volume && d.has(key))
      d.reject(key, "is a 2-D airfoil setting; design.parametrization: ffd_volume (3-D) does "
                    "not use it");
  {
    aero::WingDesignSettings box;  // its move directions are checked as they are read
    aero::ffd_volume_keys().read(d, "design", box);
  }
  const std::string& deformation = d.string("design.deformation");
  if (d.has("design.rbf_support") && deformation != "rbf")
    d.reject("design.rbf_support", "is used only with design.deformation: rbf (it is '" +
                                       deformation + "'), so it would be ignored");
  if (d.has("design.idw_exponent") && deformation != "idw")
    d.reject("design.idw_exponent", "is used only with design.deformation: idw (it is '" +
                                        deformation + "'), so it would be ignored");
  const std::vector<double>& mach_points = d.reals("optimizer.mach_points");
  const std::vector<double>& point_weights = d.reals("optimizer.point_weights");
  if (!point_weights.empty() && point_weights.size() != mach_points.size())
    d.reject("optimizer.point_weights",
             "has " + std::to_string(point_weights.size()) + " values, optimizer.mach_points " +
                 std::to_string(mach_points.size()) + "; give one weight per operating point");
  if (!mach_points.empty() &&
      std::find(mach_points.begin(), mach_points.end(), d.real("flow.mach")) == mach_points.end())
    d.reject("optimizer.mach_points",
             "does not hold flow.mach = " + d.text("flow.mach") +
                 ", the design point (reported first and written for ParaView); add it");
  if (lift != "free" && d.string("optimizer.objective") == "cl")
    d.reject("optimizer.lift", "the objective is CL, so the lift cannot also be held; use "
                               "lift: free");
  if (d.real("trust_region.min_radius") > d.real("trust_region.initial_radius") ||
      d.real("trust_region.initial_radius") > d.real("trust_region.max_radius"))
    d.reject("trust_region.initial_radius",
             CAMBER_MSG("needs min_radius <= initial_radius <= max_radius; they are "
                        << d.real("trust_region.min_radius") << ", " << d.real("trust_region.initial_radius")
                        << ", " << d.real("trust_region.max_radius")));
  if (d.real("solver.cfl_max") < d.real("solver.cfl_start"))
    d.reject("solver.cfl_max", "must be at least solver.cfl_start");
}

}  // namespace camber::app::euler_app
