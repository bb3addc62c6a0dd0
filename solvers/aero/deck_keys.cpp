#include "deck_keys.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/aero/design_file.hpp>

namespace camber::solvers::aero {

using deck::IntRange;
using deck::Keys;
using deck::Length;
using deck::Range;

const Keys<design::DeformationOptions>& deformation_keys() {
  static const Keys<design::DeformationOptions> keys =
      Keys<design::DeformationOptions>()
          .choice("deformation", &design::DeformationOptions::method,
                  design::deformation_method_names,
                  "The volume mesh deformation: idw (inverse-distance weighting) or rbf (radial "
                  "basis functions, Wendland C2 kernel, interpolating the wall and the other "
                  "boundaries).")
          .real("idw_exponent", &design::DeformationOptions::exponent, Range(1.0, 10.0),
                "Exponent p of the deformation weights 1 / distance^p.")
          .real("rbf_support", &design::DeformationOptions::rbf_support, Range(0.1, 1000.0),
                "deformation: rbf: the kernel's support radius in chords (nodes farther from "
                "every boundary node stay put).");
  return keys;
}

const Keys<design::CstOptions>& cst_keys() {
  static const Keys<design::CstOptions> keys = Keys<design::CstOptions>().integer(
      "cst_order", &design::CstOptions::order, IntRange(1, 30), "cst: Bernstein order per surface.");
  return keys;
}

const Keys<design::FfdOptions>& ffd_keys() {
  static const Keys<design::FfdOptions> keys =
      Keys<design::FfdOptions>()
          .integer("ffd_degree_x", &design::FfdOptions::degree_x, IntRange(1, 30),
                   "ffd: control points along x minus 1.")
          .integer("ffd_degree_y", &design::FfdOptions::degree_y, IntRange(1, 10),
                   "ffd: control points along y minus 1.");
  return keys;
}

const Keys<design::ParametrizationSettings>& parametrization_keys() {
  using design::ParametrizationSettings;
  static const Keys<ParametrizationSettings> keys =
      Keys<ParametrizationSettings>()
          .choice("parametrization", &ParametrizationSettings::kind, design::parametrization_kind_names,
                  "2-D meshes: hicks_henne: bumps sin^3(pi x^(ln 0.5 / ln x_k)) normal to the "
                  "chord; cst: Kulfan class-shape perturbation; ffd: a Bernstein free-form "
                  "deformation box of the wall. 3-D meshes: ffd_volume: a trivariate Bernstein box "
                  "around the walls that moves every node inside it (the volume deformation too); "
                  "its free control points' moves are the design variables.")
          .string("wall", &ParametrizationSettings::wall,
                  "The marker of the wall being designed (3-D: comma-separated markers the box "
                  "surrounds).")
          .integer("bumps_per_surface", &ParametrizationSettings::bumps_per_surface, IntRange(1, 200),
                   "hicks_henne: bumps per surface, peaks at k / (n + 1) of the chord.")
          .nested(&ParametrizationSettings::cst, cst_keys())
          .nested(&ParametrizationSettings::ffd, ffd_keys());
  return keys;
}

const Keys<WingDesignSettings>& ffd_volume_keys() {
  static const Keys<WingDesignSettings> keys =
      Keys<WingDesignSettings>()
          .custom(
              "ffd_volume_degree",
              [](deck::Section& s, const WingDesignSettings& d) {
                s.integers("ffd_volume_degree", {d.ffd.degree[0], d.ffd.degree[1], d.ffd.degree[2]},
                           Length::exactly(3), IntRange(2, 20),
                           "ffd_volume: the box's degree along x, y and z (degree + 1 control points; "
                           "the faces' stay put, so degree - 1 free layers). Degree 2 in z moved in z "
                           "keeps a section symmetric about the box's mid-plane exactly as thick; 3 "
                           "or more changes thickness, which optimizer.thickness_fraction then holds.");
              },
              [](const deck::Deck& deck, const std::string& path, WingDesignSettings& w) {
                const std::vector<std::int64_t>& v = deck.integers(path);
                for (size_t k = 0; k < 3; ++k) w.ffd.degree[k] = static_cast<int>(v[k]);
              })
          .custom(
              "ffd_volume_move",
              [](deck::Section& s, const WingDesignSettings& d) {
                std::string move;
                for (size_t k = 0; k < 3; ++k)
                  if (d.ffd.move[k]) move += "xyz"[k];
                s.string("ffd_volume_move", move,
                         "ffd_volume: the directions the free control points move in, from x, y, z "
                         "(e.g. z, or xz); leave y out to keep a symmetry plane y = 0 plane.");
              },
              [](const deck::Deck& deck, const std::string& path, WingDesignSettings& w) {
                const std::string& move = deck.string(path);
                const bool valid = !move.empty() && move.size() <= 3 &&
                                   std::all_of(move.begin(), move.end(), [&](char c) {
                                     return (c == 'x' || c == 'y' || c == 'z') &&
                                            std::count(move.begin(), move.end(), c) == 1;
                                   });
                if (!valid)
                  deck.reject(path, "'" + move + "' is not a set of directions from x, y and z (e.g. z, or xz)");
                for (size_t k = 0; k < 3; ++k) w.ffd.move[k] = move.find("xyz"[k]) != std::string::npos;
              })
          .real("ffd_volume_margin", &WingDesignSettings::margin, Range::positive().and_at_most(10.0),
                "ffd_volume: the box is the walls' bounding box grown on every side by this "
                "fraction of its largest extent.");
  return keys;
}

const Keys<design::WingTwistOptions>& twist_option_keys() {
  using design::WingTwistOptions;
  static const Keys<WingTwistOptions> keys =
      Keys<WingTwistOptions>()
          .reals("twist_etas", &WingTwistOptions::stations, Length::between(1, 64),
                 Range::greater_than(0.0).and_at_most(1.0),
                 "wing_twist: the spanwise stations (fractions of the walls' span from the root, "
                 "increasing) whose twist angles (degrees) are the design variables; the root's "
                 "twist is held at 0 (the angle of attack sets the incidence), the twist is linear "
                 "between stations and constant beyond the last.")
          .real("twist_axis", &WingTwistOptions::axis_chord_fraction, Range(0.0, 1.0),
                "wing_twist: the spanwise axis the sections turn about, as a fraction of the "
                "walls' chordwise extent from the leading edge (1: the trailing edge).")
          .real("twist_blend", &WingTwistOptions::blend, Range::positive().and_at_most(100.0),
                "wing_twist: the mesh turns with the wing inside the walls' bounding box and "
                "comes to rest at this many chordwise extents from it (a C2 blend).");
  return keys;
}

const Keys<WingDesignSettings>& wing_twist_keys() {
  static const Keys<WingDesignSettings> keys =
      Keys<WingDesignSettings>().nested(&WingDesignSettings::twist, twist_option_keys());
  return keys;
}

const Keys<ShapeDesignSettings>& design_bound_keys() {
  static const Keys<ShapeDesignSettings> keys = Keys<ShapeDesignSettings>().real(
      "bound", &ShapeDesignSettings::bound, Range::positive(),
      "Each design variable stays in [-bound, bound] (chord units in 2-D; the mesh's length "
      "unit in 3-D with ffd_volume; degrees with wing_twist).");
  return keys;
}

const Keys<ShapeDesignSettings>& design_start_keys() {
  static const Keys<ShapeDesignSettings> keys = Keys<ShapeDesignSettings>().custom(
      "start",
      [](deck::Section& s, const ShapeDesignSettings&) {
        s.string("start", "",
                 "A design to start from instead of the undeformed shape: a "
                 "<case>_final_design.csv that camber optimize wrote (relative to the deck's "
                 "folder), with as many shape variables as this design section makes (its "
                 "alpha rows are not used). With optimizer.max_iterations: 1 it evaluates that "
                 "design, e.g. one optimized on a coarser grid solved on a finer one. The "
                 "baseline (the lift target, the scales) stays the undeformed shape.");
      },
      [](const deck::Deck& deck, const std::string& path, ShapeDesignSettings& s) {
        s.start.clear();
        if (deck.string(path).empty()) return;
        // A final design CSV of camber optimize (its alpha rows are not used).
        try {
          s.start = read_design_file(deck::deck_relative_path(deck, deck.string(path))).shape;
        } catch (const Error& e) {
          deck.reject(path, e.message());
        }
      });
  return keys;
}

namespace {

const Keys<opt::Options>& design_optimizer_keys() {
  static const Keys<opt::Options> keys =
      Keys<opt::Options>()
          .integer("max_iterations", &opt::Options::max_evaluations, IntRange(1, 10000),
                   "Most design evaluations (each a flow and adjoint solve).")
          .real("ftol_rel", &opt::Options::ftol_rel, Range::positive().and_less_than(1.0),
                "Stop when the objective changes by less than this fraction.");
  return keys;
}

// The lift key's names: each constraint's, and its _baseline variant.
std::vector<std::string> lift_names() {
  std::vector<std::string> names;
  for (const auto& [value, name] : lift_constraint_names) {
    if (value != LiftConstraint::none) names.push_back(std::string(name) + "_baseline");
    names.emplace_back(name);
  }
  return names;
}

}  // namespace

const Keys<ShapeDesignSettings>& shape_design_keys() {
  static const Keys<ShapeDesignSettings> keys =
      Keys<ShapeDesignSettings>()
          .choice("objective", &ShapeDesignSettings::objective, coefficient_names,
                  "The force coefficient minimized.")
          .nested(&ShapeDesignSettings::optimizer, design_optimizer_keys())
          .real("thickness_fraction", &ShapeDesignSettings::thickness_fraction, Range(0.0, 2.0),
                "The thickness at 49 chord stations (3-D: at thickness_etas x "
                "thickness_chords stations of the planform) stays at least this fraction of "
                "the baseline's. 0: no such constraint.")
          .custom(
              "lift",
              [](deck::Section& s, const ShapeDesignSettings& d) {
                s.choice("lift", std::string(enum_name(lift_constraint_names, d.lift)), lift_names(),
                         "How the lift is held. at_least_baseline / at_least: CL stays at least "
                         "the baseline's / lift_target (one more adjoint solve per design); "
                         "equal_baseline / equal: CL equals the baseline's / lift_target, the "
                         "angle of attack a design variable that the optimizer trims (within "
                         "alpha_range_deg of flow.alpha_deg); fixed_baseline / fixed: every "
                         "design's flow is trimmed to the baseline's / lift_target CL by secant "
                         "steps on the angle of attack (a few warm flow solves, one tangent "
                         "solve at the trimmed flow), and the optimizer minimizes the drag at "
                         "that lift with its derivative at constant lift (no lift constraint).");
              },
              [](const deck::Deck& deck, const std::string& path, ShapeDesignSettings& s) {
                std::string lift = deck.string(path);
                const std::string baseline = "_baseline";
                if (lift.size() > baseline.size() &&
                    lift.compare(lift.size() - baseline.size(), baseline.size(), baseline) == 0)
                  lift.resize(lift.size() - baseline.size());
                s.lift = enum_from_name(lift_constraint_names, lift, path);
              })
          .custom(
              "lift_target",
              [](deck::Section& s, const ShapeDesignSettings&) {
                s.real("lift_target", 0.0, Range(-5.0, 5.0),
                       "The CL held by lift: at_least, equal and fixed (required with them).");
              },
              [](const deck::Deck& deck, const std::string& path, ShapeDesignSettings& s) {
                if (deck.has(path)) s.lift_target = deck.real(path);
              })
          .real("alpha_range_deg", &ShapeDesignSettings::alpha_range_deg,
                Range::positive().and_at_most(20.0),
                "lift: equal, equal_baseline, fixed and fixed_baseline: the angle of attack "
                "stays within flow.alpha_deg +- this, in degrees.")
          .custom(
              "cm_min",
              [](deck::Section& s, const ShapeDesignSettings&) {
                s.real("cm_min", 0.0, Range(-5.0, 5.0),
                       "When given: the pitching moment stays CM >= cm_min (one more adjoint "
                       "solve per design); absent: CM is free.");
              },
              [](const deck::Deck& deck, const std::string& path, ShapeDesignSettings& s) {
                if (deck.has(path)) s.cm_min = deck.real(path);
              });
  return keys;
}

const Keys<AirfoilDesignSettings>& airfoil_constraint_keys() {
  static const Keys<AirfoilDesignSettings> keys =
      Keys<AirfoilDesignSettings>()
          .real("max_thickness_min", &AirfoilDesignSettings::max_thickness_min, Range(0.0, 1.0),
                "The largest thickness stays at least this (chord units). 0: no such "
                "constraint.")
          .real("area_fraction", &AirfoilDesignSettings::area_fraction, Range(0.0, 2.0),
                "The section's area stays at least this fraction of the baseline's. 0: no "
                "such constraint.")
          .real("le_radius_fraction", &AirfoilDesignSettings::le_radius_fraction, Range(0.0, 2.0),
                "The leading-edge radius (the circle through the nose node and the first wall "
                "node 0.005 chords behind it on each surface) stays at least this fraction of "
                "the baseline's. 0: no such constraint.");
  return keys;
}

const Keys<WingDesignSettings>& wing_station_keys() {
  static const Keys<WingDesignSettings> keys =
      Keys<WingDesignSettings>()
          .reals("thickness_etas", &WingDesignSettings::thickness_etas, Length::between(1, 64),
                 Range::greater_than(0.0).and_less_than(1.0),
                 "3-D: the spanwise sections (fractions of the semi-span, the root on y = 0) "
                 "whose thickness thickness_fraction holds.")
          .reals("thickness_chords", &WingDesignSettings::thickness_chord_fractions,
                 Length::between(1, 64), Range::greater_than(0.0).and_less_than(1.0),
                 "3-D: the chordwise stations x/c of each section in thickness_etas (the "
                 "vertical distance between the wing's upper and lower surface there).");
  return keys;
}

const Keys<ShapeDesignSettings>& operating_point_keys() {
  static const Keys<ShapeDesignSettings> keys =
      Keys<ShapeDesignSettings>()
          .custom(
              "mach_points",
              [](deck::Section& s, const ShapeDesignSettings&) {
                s.reals("mach_points", {}, Length::between(0, 16), Range(0.01, 5.0),
                        "A multi-point design: the Mach numbers of its operating points, flow.mach "
                        "among them (the design point, reported first and written for ParaView), "
                        "each at flow.alpha_deg. The objective is the weighted mean over the "
                        "points; the lift and moment constraints hold at each (lift: equal trims "
                        "each point's alpha). Empty: the one point flow.mach.");
              },
              // point_weights is read here too: the design point moves first, its
              // weight with it.
              [](const deck::Deck& deck, const std::string& path, ShapeDesignSettings& s) {
                const std::string weights_path =
                    path.substr(0, path.size() - std::string("mach_points").size()) + "point_weights";
                const std::vector<double>& mach = deck.reals(path);
                const std::vector<double>& weights = deck.reals(weights_path);
                s.points.clear();
                for (int pass = 0; pass < 2; ++pass)
                  for (size_t i = 0; i < mach.size(); ++i)
                    if ((mach[i] == s.flow.flow.mach) == (pass == 0))
                      s.points.push_back({mach[i], s.flow.flow.alpha_deg,
                                          i < weights.size() ? weights[i] : 1.0});
              })
          .custom(
              "point_weights",
              [](deck::Section& s, const ShapeDesignSettings&) {
                s.reals("point_weights", {}, Length::between(0, 16), Range::positive(),
                        "The weights of mach_points, one each (empty: equal weights).");
              },
              [](const deck::Deck&, const std::string&, ShapeDesignSettings&) {});
  return keys;
}

const Keys<opt::TrustRegionOptions>& trust_region_keys() {
  using opt::TrustRegionOptions;
  static const Keys<TrustRegionOptions> keys =
      Keys<TrustRegionOptions>()
          .real("initial_radius", &TrustRegionOptions::initial_radius,
                Range::positive().and_at_most(100.0),
                "The first radius, in units of design.bound (infinity norm over the shape "
                "variables).")
          .real("min_radius", &TrustRegionOptions::min_radius, Range::positive(),
                "The region collapsed below this radius: the run stops with an error (exit 1), "
                "keeping the last accepted design.")
          .real("max_radius", &TrustRegionOptions::max_radius, Range::positive().and_at_most(100.0),
                "The largest radius, in units of design.bound.")
          .real("penalty", &TrustRegionOptions::penalty, Range::positive(),
                "Weight of the scaled constraint violations in the merit function that decides "
                "acceptance (the objective scaled by the baseline's).")
          .custom(
              "subproblem_evaluations",
              [](deck::Section& s, const TrustRegionOptions& d) {
                s.integer("subproblem_evaluations", d.subproblem.max_evaluations, IntRange(10, 100000),
                          "Most network evaluations of SLSQP per trust-region step.");
              },
              [](const deck::Deck& deck, const std::string& path, TrustRegionOptions& o) {
                o.subproblem.max_evaluations = static_cast<int>(deck.integer(path));
              });
  return keys;
}

const Keys<nn::EnsembleOptions>& ensemble_keys() {
  static const Keys<nn::EnsembleOptions> keys =
      Keys<nn::EnsembleOptions>()
          .integer("members", &nn::EnsembleOptions::members, IntRange(1, 64),
                   "Networks in the ensemble (trained from different initialisations; their "
                   "spread is reported as the model's uncertainty).")
          .integers("hidden", &nn::EnsembleOptions::hidden, Length::between(1, 8),
                    IntRange(1, 4096), "Widths of each network's hidden layers (tanh).")
          .integer("epochs", &nn::EnsembleOptions::epochs, IntRange(1, 100000),
                   "Adam epochs of every fit (all samples in one batch; each fit after the "
                   "first fine-tunes from the last weights).")
          .real("learning_rate", &nn::EnsembleOptions::learning_rate,
                Range::positive().and_at_most(1.0), "Adam's learning rate (cosine to 1e-5 over each fit).")
          .real("gradient_weight", &nn::EnsembleOptions::gradient_weight, Range(0.0, 1.0e6),
                "Weight of the adjoint-gradient misfit in the training loss (0: values only).")
          .integer("seed", &nn::EnsembleOptions::seed, IntRange::non_negative(),
                   "Seed of the networks' initialisation.");
  return keys;
}

const Keys<FlowCaseSettings>& flow_case_station_keys() {
  static const Keys<FlowCaseSettings> keys =
      Keys<FlowCaseSettings>()
          .reals("stations", &FlowCaseSettings::stations, Length::any(),
                 Range::greater_than(0.0).and_less_than(1.0),
                 "Stations eta, fractions of the semi-span (the largest y of the slip walls' "
                 "nodes): the slip-wall faces the planes y = eta b cut, written as "
                 "<dir>/<case>_stations.csv (eta, x/c, x, z, Cp, side: 1 upper, -1 lower) and "
                 "plotted in <case>_stations.png. Empty: none.")
          .custom(
              "reference_cp",
              [](deck::Section& s, const FlowCaseSettings& d) {
                s.string("reference_cp", d.reference_file,
                         "A CSV file of measured (or other reference) pressures at stations, header "
                         "eta,x_over_c,cp,side (side 1 upper, -1 lower, 0 a leading-edge orifice; '#' "
                         "lines are comments), relative to the deck's folder: plotted beside the "
                         "computed Cp at the stations both have, and compared in "
                         "<case>_stations_reference.csv (per station the RMS and largest difference of "
                         "the computed Cp, linear between cut points, at the reference's x/c; "
                         "leading-edge orifices are plotted, not compared). Needs wing.stations. "
                         "examples/onera_m6/schmitt_charpin_test2308.csv is the ONERA M6 experiment.");
              },
              [](const deck::Deck& deck, const std::string& path, FlowCaseSettings& s) {
                const std::string& file = deck.string(path);
                s.reference_file = file.empty() ? file : deck::deck_relative_path(deck, file);
              });
  return keys;
}

namespace {

// A [low, high] pair of reals.
Keys<AirfoilSampleSpace>::DeclareFn range_declaration(const std::string& name,
                                                      std::array<double, 2> AirfoilSampleSpace::*member,
                                                      Range each, const std::string& doc) {
  return [=](deck::Section& s, const AirfoilSampleSpace& d) {
    s.reals(name, {(d.*member)[0], (d.*member)[1]}, Length::exactly(2), each, doc);
  };
}

Keys<AirfoilSampleSpace>::ReadFn range_reading(std::array<double, 2> AirfoilSampleSpace::*member) {
  return [=](const deck::Deck& deck, const std::string& path, AirfoilSampleSpace& s) {
    const std::vector<double>& v = deck.reals(path);
    s.*member = {v[0], v[1]};
  };
}

}  // namespace

const Keys<AirfoilSampleSpace>& airfoil_sample_space_keys() {
  using S = AirfoilSampleSpace;
  static const Keys<S> keys =
      Keys<S>()
          .custom("mach",
                  range_declaration("mach", &S::mach, Range(0.01, 10.0), "Mach number range [low, high]."),
                  range_reading(&S::mach))
          .custom("alpha_deg",
                  range_declaration("alpha_deg", &S::alpha_deg, Range(-90.0, 90.0),
                                    "Angle of attack range [low, high], in degrees."),
                  range_reading(&S::alpha_deg))
          .reals("shape", &S::shape, Length::between(0, 2), Range(-1.0, 1.0),
                 "[low, high]: also vary every shape variable of the design section (2-D meshes) "
                 "in this range, within [-design.bound, design.bound]; adds the output t_max "
                 "(the largest thickness) and implies gradients. Empty: Mach and alpha only.")
          .boolean("gradients", &S::gradients,
                   "Also write d(outputs)/d(inputs) for every sample, by adjoint solves (one per "
                   "force coefficient, all inputs at once) through the design problem of camber "
                   "optimize (second order as the deck sets, warm-started from the group's last "
                   "flow).");
  return keys;
}

void validate_design_keys(const deck::Deck& d, const DesignDeckSections& sections) {
  const std::string design = sections.design + ".", optimizer = sections.optimizer + ".",
                    region = sections.trust_region + ".";
  const std::string& lift = d.string(optimizer + "lift");
  const bool targeted = lift == "at_least" || lift == "equal" || lift == "fixed";
  if (targeted && !d.has(optimizer + "lift_target"))
    d.reject(optimizer + "lift",
             "'" + lift + "' holds CL at " + optimizer + "lift_target, which is not given");
  if (d.has(optimizer + "lift_target") && !targeted)
    d.reject(optimizer + "lift_target", "is used only with " + optimizer +
                                            "lift: at_least, equal or fixed (lift is '" + lift +
                                            "'), so it would be ignored");
  if (d.has(optimizer + "alpha_range_deg") && lift != "equal" && lift != "equal_baseline" &&
      lift != "fixed" && lift != "fixed_baseline")
    d.reject(optimizer + "alpha_range_deg",
             "is used only when " + optimizer +
                 "lift trims the angle of attack (equal, equal_baseline, fixed, "
                 "fixed_baseline), so it would be ignored");
  // The FFD volume box and the twist are the 3-D parametrizations; the
  // others are 2-D.
  const std::string& kind = d.string(design + "parametrization");
  const bool box_kind = kind == "ffd_volume", twist_kind = kind == "wing_twist";
  const bool volume = box_kind || twist_kind;
  const std::vector<std::string> volume_keys = {
      design + "ffd_volume_degree", design + "ffd_volume_move", design + "ffd_volume_margin",
      optimizer + "thickness_etas", optimizer + "thickness_chords"};
  for (const std::string& key : volume_keys)
    if (!box_kind && d.has(key))
      d.reject(key, "is used only with " + design + "parametrization: ffd_volume (3-D meshes)");
  for (const std::string& key :
       {design + "twist_etas", design + "twist_axis", design + "twist_blend"})
    if (!twist_kind && d.has(key))
      d.reject(key, "is used only with " + design + "parametrization: wing_twist (3-D meshes)");
  {
    const std::vector<double>& etas = d.reals(design + "twist_etas");
    for (size_t k = 1; k < etas.size(); ++k)
      if (!(etas[k] > etas[k - 1])) {
        std::ostringstream m;
        m << "must increase, but value " << k << " (" << etas[k] << ") follows " << etas[k - 1];
        d.reject(design + "twist_etas", m.str());
      }
  }
  if (twist_kind && d.has(optimizer + "thickness_fraction") &&
      d.real(optimizer + "thickness_fraction") > 0.0)
    d.reject(optimizer + "thickness_fraction",
             "must be 0 with " + design +
                 "parametrization: wing_twist (the twist turns the sections without changing "
                 "their thickness)");
  const std::vector<std::string> airfoil_keys = {
      design + "bumps_per_surface",    design + "cst_order",         design + "ffd_degree_x",
      design + "ffd_degree_y",         design + "deformation",       design + "idw_exponent",
      design + "rbf_support",          optimizer + "max_thickness_min",
      optimizer + "area_fraction",     optimizer + "le_radius_fraction"};
  for (const std::string& key : airfoil_keys)
    if (volume && d.has(key))
      d.reject(key, "is a 2-D airfoil setting; " + design + "parametrization: " + kind +
                        " (3-D) does not use it");
  {
    WingDesignSettings box;  // its move directions and stations are checked as they are read
    ffd_volume_keys().read(d, sections.design, box);
    wing_twist_keys().read(d, sections.design, box);
  }
  const std::string& deformation = d.string(design + "deformation");
  if (d.has(design + "rbf_support") && deformation != "rbf")
    d.reject(design + "rbf_support", "is used only with " + design + "deformation: rbf (it is '" +
                                         deformation + "'), so it would be ignored");
  if (d.has(design + "idw_exponent") && deformation != "idw")
    d.reject(design + "idw_exponent", "is used only with " + design + "deformation: idw (it is '" +
                                          deformation + "'), so it would be ignored");
  const std::vector<double>& mach_points = d.reals(optimizer + "mach_points");
  const std::vector<double>& point_weights = d.reals(optimizer + "point_weights");
  if (!point_weights.empty() && point_weights.size() != mach_points.size())
    d.reject(optimizer + "point_weights",
             "has " + std::to_string(point_weights.size()) + " values, " + optimizer +
                 "mach_points " + std::to_string(mach_points.size()) +
                 "; give one weight per operating point");
  const std::string mach = sections.flow + ".mach";
  if (!mach_points.empty() &&
      std::find(mach_points.begin(), mach_points.end(), d.real(mach)) == mach_points.end())
    d.reject(optimizer + "mach_points",
             "does not hold " + mach + " = " + d.text(mach) +
                 ", the design point (reported first and written for ParaView); add it");
  if (lift != "free" && d.string(optimizer + "objective") == "cl")
    d.reject(optimizer + "lift", "the objective is CL, so the lift cannot also be held; use "
                                 "lift: free");
  const double min_radius = d.real(region + "min_radius"),
               initial_radius = d.real(region + "initial_radius"),
               max_radius = d.real(region + "max_radius");
  if (min_radius > initial_radius || initial_radius > max_radius)
    d.reject(region + "initial_radius",
             CAMBER_MSG("needs min_radius <= initial_radius <= max_radius; they are "
                        << min_radius << ", " << initial_radius << ", " << max_radius));
}

namespace {

// The goal's key, then (after the constraint's name) the bound's and the
// evaluations': the order the design section lists them in.
const Keys<SurrogateOptimumSettings>& optimum_goal_keys() {
  static const Keys<SurrogateOptimumSettings> keys = Keys<SurrogateOptimumSettings>().custom(
      "goal",
      [](deck::Section& s, const SurrogateOptimumSettings& d) {
        s.choice("goal", d.maximize ? "maximize" : "minimize", {"minimize", "maximize"},
                 "Direction of the objective.");
      },
      [](const deck::Deck& deck, const std::string& path, SurrogateOptimumSettings& o) {
        o.maximize = deck.string(path) == "maximize";
      });
  return keys;
}

const Keys<SurrogateOptimumSettings>& optimum_bound_keys() {
  static const Keys<SurrogateOptimumSettings> keys =
      Keys<SurrogateOptimumSettings>()
          .real("constraint_min", &SurrogateOptimumSettings::constraint_min, Range::all(),
                "The constraint's lower bound.")
          .integer("max_iterations", &SurrogateOptimumSettings::max_evaluations, IntRange(1, 10000),
                   "Most evaluations of the network.");
  return keys;
}

}  // namespace

const Keys<SurrogateOptimumByName>& surrogate_optimum_keys() {
  static const Keys<SurrogateOptimumByName> keys =
      Keys<SurrogateOptimumByName>()
          .string("objective", &SurrogateOptimumByName::objective,
                  "The output minimized or maximized (a name of the data set).")
          .nested(&SurrogateOptimumByName::optimum, optimum_goal_keys())
          .string("constraint", &SurrogateOptimumByName::constraint,
                  "An output kept at or above constraint_min (\"\": none).")
          .nested(&SurrogateOptimumByName::optimum, optimum_bound_keys());
  return keys;
}

}  // namespace camber::solvers::aero
