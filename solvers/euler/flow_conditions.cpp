#include <camber/solvers/euler/flow_conditions.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace camber::solvers::euler {

// The table's names are string literals: null-terminated.
const char* boundary_kind_name(BoundaryKind kind) {
  return enum_name(boundary_kind_names, kind).data();
}

BoundaryProblem check_boundary_conditions(const std::vector<std::string>& mesh_markers,
                                          const std::vector<BoundaryCondition>& conditions) {
  std::string names;
  for (const std::string& m : mesh_markers) names += (names.empty() ? "" : ", ") + m;
  BoundaryProblem p;
  std::set<std::string> given;
  for (const BoundaryCondition& c : conditions) {
    p.marker = c.marker;
    p.condition = c.kind;
    if (std::find(mesh_markers.begin(), mesh_markers.end(), c.marker) == mesh_markers.end()) {
      p.kind = BoundaryProblem::Kind::unknown_marker;
      p.message = "the mesh has no marker '" + c.marker + "'; its markers are: " + names;
      return p;
    }
    if (!given.insert(c.marker).second) {
      p.kind = BoundaryProblem::Kind::duplicate;
      p.message = "marker '" + c.marker + "' is given two boundary conditions";
      return p;
    }
  }
  for (const std::string& m : mesh_markers)
    if (!given.count(m)) {
      p.kind = BoundaryProblem::Kind::missing;
      p.marker = m;
      p.message = "the mesh marker '" + m + "' has no boundary condition; give it one of " +
                  enum_name_list(boundary_kind_names);
      return p;
    }
  return {};
}

double FlowConditions::velocity_scale() const {
  return std::sqrt(gamma * gas_constant * temperature);
}

template <int Dim>
Conserved<double, Dim> FlowConditions::free_stream() const {
  const double a = alpha_deg * M_PI / 180.0;
  Primitive<double, Dim> w;
  w.rho = 1.0;
  for (int d = 0; d < Dim; ++d) w.vel[d] = 0.0;
  w.vel[0] = mach * std::cos(a);
  w.vel[Dim - 1] = mach * std::sin(a);  // y in 2-D, z in 3-D
  w.p = 1.0 / gamma;
  return to_conserved(IdealGas{gamma}, w);
}

template Conserved<double, 2> FlowConditions::free_stream<2>() const;
template Conserved<double, 3> FlowConditions::free_stream<3>() const;

}  // namespace camber::solvers::euler
