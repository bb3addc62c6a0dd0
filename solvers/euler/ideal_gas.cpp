// Explicit instantiations of the ideal-gas functions for the scalar types
// the Euler solver uses, so that every template is compiled with the
// library: values (double), first derivatives with respect to one 2-D or 3-D
// state (Dual<double, 4>, Dual<double, 5>) and second derivatives
// (Dual<Dual<double, 4>, 4>).
#include <camber/solvers/euler/ideal_gas.hpp>

namespace camber::solvers::euler {

namespace {
using D4 = ad::Dual<double, 4>;
using DD4 = ad::Dual<D4, 4>;
using D5 = ad::Dual<double, 5>;
}  // namespace

#define CAMBER_EULER_INSTANTIATE_GAS(T, DIM)                                                  \
  template T pressure<T, DIM>(const IdealGas&, const Conserved<T, DIM>&);                     \
  template Primitive<T, DIM> to_primitive<T, DIM>(const IdealGas&, const Conserved<T, DIM>&); \
  template Conserved<T, DIM> to_conserved<T, DIM>(const IdealGas&, const Primitive<T, DIM>&); \
  template T sound_speed<T, DIM>(const IdealGas&, const Primitive<T, DIM>&);                  \
  template T sound_speed<T, DIM>(const IdealGas&, const Conserved<T, DIM>&);                  \
  template T mach_number<T, DIM>(const IdealGas&, const Primitive<T, DIM>&);                  \
  template T mach_number<T, DIM>(const IdealGas&, const Conserved<T, DIM>&);                  \
  template T total_enthalpy<T, DIM>(const IdealGas&, const Primitive<T, DIM>&);               \
  template T total_enthalpy<T, DIM>(const IdealGas&, const Conserved<T, DIM>&);               \
  template T entropy_measure<T, DIM>(const IdealGas&, const Primitive<T, DIM>&);              \
  template T entropy_measure<T, DIM>(const IdealGas&, const Conserved<T, DIM>&);              \
  template struct Conserved<T, DIM>;                                                          \
  template struct Primitive<T, DIM>;

CAMBER_EULER_INSTANTIATE_GAS(double, 2)
CAMBER_EULER_INSTANTIATE_GAS(D4, 2)
CAMBER_EULER_INSTANTIATE_GAS(DD4, 2)
CAMBER_EULER_INSTANTIATE_GAS(double, 3)
CAMBER_EULER_INSTANTIATE_GAS(D5, 3)
#undef CAMBER_EULER_INSTANTIATE_GAS

template Conserved<D4, 2> state_cast<D4, double, 2>(const Conserved<double, 2>&);
template Conserved<DD4, 2> state_cast<DD4, D4, 2>(const Conserved<D4, 2>&);
template Conserved<D5, 3> state_cast<D5, double, 3>(const Conserved<double, 3>&);
template Conserved<D4, 2> make_variable_state<double, 2>(const Conserved<double, 2>&);
template Conserved<DD4, 2> make_variable_state<D4, 2>(const Conserved<D4, 2>&);
template Conserved<D5, 3> make_variable_state<double, 3>(const Conserved<double, 3>&);

// Views, deep_copy and device transfers copy states bytewise.
static_assert(std::is_trivially_copyable<Conserved<D4, 2>>::value);
static_assert(std::is_trivially_copyable<Primitive<DD4, 2>>::value);
static_assert(sizeof(Conserved<double, 2>) == 4 * sizeof(double));
static_assert(sizeof(Conserved<double, 3>) == 5 * sizeof(double));

}  // namespace camber::solvers::euler
