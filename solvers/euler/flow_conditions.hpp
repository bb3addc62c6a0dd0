/// @file
/// What a flow problem is made of before any mesh: the free stream and the
/// reference quantities (FlowConditions, in physical units), the boundary
/// condition of each mesh marker (BoundaryKind, BoundaryCondition), the
/// numerical flux (FluxScheme) and the force coefficients a solution gives
/// (Forces). Each enum's names, the deck's values, sit beside it.
///
/// @code
///   euler::FlowConditions flow;  flow.mach = 0.8;  flow.alpha_deg = 1.25;
///   std::vector<euler::BoundaryCondition> conditions = {
///       {"airfoil", euler::BoundaryKind::slip_wall},
///       {"farfield", euler::BoundaryKind::far_field}};
///   euler::Conserved<double, 2> u = flow.free_stream();   // rho 1, |u| = M, p = 1 / gamma
///   double rho = flow.density_scale();                     // p / (R T), kg/m^3
/// @endcode
///
/// The solver works in nondimensional variables (free-stream density 1,
/// speed of sound 1, pressure 1/gamma, speed = Mach); FlowConditions'
/// scales turn them into physical units. Most users pass these to
/// euler::Discretization (discretization.hpp) or euler::SteadyFlow
/// (steady_flow.hpp).
#pragma once

#include <array>
#include <string>
#include <vector>

#include <camber/core/enum_names.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>

namespace camber::solvers::euler {

enum class BoundaryKind : int {
  slip_wall = 0,
  symmetry = 1,
  far_field = 2,
  supersonic_inflow = 3,
  supersonic_outflow = 4,
};
// "slip_wall", "symmetry", ...
const char* boundary_kind_name(BoundaryKind kind);
// The boundary kinds' names (the keys of a deck's boundaries section).
inline constexpr std::array<EnumName<BoundaryKind>, 5> boundary_kind_names{
    {{BoundaryKind::slip_wall, "slip_wall"},
     {BoundaryKind::symmetry, "symmetry"},
     {BoundaryKind::far_field, "far_field"},
     {BoundaryKind::supersonic_inflow, "supersonic_inflow"},
     {BoundaryKind::supersonic_outflow, "supersonic_outflow"}}};

enum class FluxScheme : int { roe = 0, hllc = 1 };
// The fluxes' names (the deck's flow.flux values), the default first.
inline constexpr std::array<EnumName<FluxScheme>, 2> flux_scheme_names{
    {{FluxScheme::roe, "roe"}, {FluxScheme::hllc, "hllc"}}};

struct BoundaryCondition {
  std::string marker;
  BoundaryKind kind = BoundaryKind::slip_wall;
};

// What is wrong with the boundary conditions `conditions` of a mesh whose
// markers are `mesh_markers`: the first condition naming a marker the
// mesh lacks (unknown_marker) or a marker named twice (duplicate), else
// the first marker without a condition (missing); kind none when every
// marker has exactly one. `marker` is the marker concerned, `message` says
// what to change. Discretization throws bad input with the message; a deck
// reader rejects the key of the condition (or the boundaries section).
struct BoundaryProblem {
  enum class Kind { none, unknown_marker, duplicate, missing };
  Kind kind = Kind::none;
  std::string marker;
  BoundaryKind condition = BoundaryKind::slip_wall;  ///< the condition concerned (not for missing)
  std::string message;
};
BoundaryProblem check_boundary_conditions(const std::vector<std::string>& mesh_markers,
                                          const std::vector<BoundaryCondition>& conditions);

// Free stream and reference quantities, in the deck's physical units.
struct FlowConditions {
  double mach = 0.5;
  double alpha_deg = 0.0;
  double gamma = 1.4;
  double gas_constant = 287.058;  // J/(kg K)
  double pressure = 101325.0;     // Pa
  double temperature = 288.15;    // K
  double reference_length = 1.0;  // chord, in mesh units (m)
  // The point moments are taken about, (x, y) in 2-D, (x, y, z) in 3-D.
  std::array<double, 3> moment_point = {0.25, 0.0, 0.0};
  // 3-D: the reference area of the coefficients (the wing's planform or
  // half-span area), in mesh units squared; 2-D uses reference_length.
  double reference_area = 1.0;
  // Far-field point vortex (Usab and Murman; Thomas and Salas, AIAA J.
  // 24(7), 1986): the far-field state of each face is the free stream plus
  // the compressible velocity of a vortex at moment_point whose circulation
  // gives the current lift, Gamma = CL reference_length |u_inf| / 2,
  //
  //   (u, v) = u_inf + Gamma beta / (2 pi r (1 - M^2 sin^2(theta - alpha)))
  //                    (sin theta, -cos theta),   beta = sqrt(1 - M^2),
  //
  // (r, theta) the face midpoint's polar position about moment_point, with
  // the free stream's total enthalpy and entropy. So a domain of a few
  // chords behaves as one of many: the lift's 1/r far field is put at the
  // boundary instead of being cut off. Subsonic free streams only; the
  // circulation follows the solution (Discretization::set_far_field_lift,
  // which the steady solver calls with each state's CL).
  bool far_field_vortex = false;

  // Physical scales of the nondimensional variables.
  double density_scale() const { return pressure / (gas_constant * temperature); }
  double velocity_scale() const;  // free-stream speed of sound, m/s
  double pressure_scale() const { return density_scale() * velocity_scale() * velocity_scale(); }
  // The nondimensional free-stream state (rho = 1, c = 1, |u| = mach): in
  // 2-D the velocity mach (cos alpha, sin alpha); in 3-D it lies in the x-z
  // plane, mach (cos alpha, 0, sin alpha) (alpha about the y axis, lift
  // along z, as SU2 has it).
  template <int Dim = 2>
  Conserved<double, Dim> free_stream() const;
};

// Pressure forces on the wall markers, as coefficients (all ranks).
// In 3-D lift is along z and drag along the free stream in the x-z plane;
// cm is the pitching moment about the y axis through moment_point (nose up
// positive) over q reference_area reference_length.
struct Forces {
  double cl = 0.0, cd = 0.0, cm = 0.0;  // cm about moment_point, nose up positive
  double fx = 0.0, fy = 0.0, fz = 0.0;  // nondimensional force components (fz: 3-D)
};

}  // namespace camber::solvers::euler
