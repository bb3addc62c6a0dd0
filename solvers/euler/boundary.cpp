// Explicit instantiations of the Euler boundary conditions for the scalar
// types of solvers/euler/flux.cpp.
#include <camber/solvers/euler/boundary.hpp>

namespace camber::solvers::euler {

namespace {
using D4 = ad::Dual<double, 4>;
using DD4 = ad::Dual<D4, 4>;
using D5 = ad::Dual<double, 5>;
}  // namespace

#define CAMBER_EULER_INSTANTIATE_BOUNDARY(T, TN, DIM)                            \
  template Conserved<common_scalar_t<T, TN>, DIM> slip_wall_flux<T, TN, DIM>(    \
      const IdealGas&, const Conserved<T, DIM>&, const TN(&)[DIM]);              \
  template Conserved<common_scalar_t<common_scalar_t<T, double>, TN>, DIM>       \
  far_field_state<T, double, TN, DIM>(const IdealGas&, const Conserved<T, DIM>&, \
                                      const Conserved<double, DIM>&, const TN(&)[DIM]);

CAMBER_EULER_INSTANTIATE_BOUNDARY(double, double, 2)
CAMBER_EULER_INSTANTIATE_BOUNDARY(D4, double, 2)
CAMBER_EULER_INSTANTIATE_BOUNDARY(DD4, double, 2)
CAMBER_EULER_INSTANTIATE_BOUNDARY(D4, D4, 2)
CAMBER_EULER_INSTANTIATE_BOUNDARY(double, double, 3)
CAMBER_EULER_INSTANTIATE_BOUNDARY(D5, double, 3)
#undef CAMBER_EULER_INSTANTIATE_BOUNDARY

// A Dual free stream (derivatives with respect to Mach number or angle).
template Conserved<D4, 2> far_field_state<double, D4, double, 2>(const IdealGas&,
                                                                 const Conserved<double, 2>&,
                                                                 const Conserved<D4, 2>&,
                                                                 const double (&)[2]);

}  // namespace camber::solvers::euler
