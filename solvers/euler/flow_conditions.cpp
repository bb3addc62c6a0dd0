#include <camber/solvers/euler/flow_conditions.hpp>

#include <cmath>

namespace camber::solvers::euler {

// The table's names are string literals: null-terminated.
const char* boundary_kind_name(BoundaryKind kind) {
  return enum_name(boundary_kind_names, kind).data();
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
