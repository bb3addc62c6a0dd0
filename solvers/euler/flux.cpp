// Explicit instantiations of the Euler fluxes: values (double), Jacobians
// with respect to one 2-D or 3-D state (Dual<double, 4>, Dual<double, 5>),
// second derivatives (Dual<Dual<double, 4>, 4>) and derivatives with
// respect to states and normal together (Dual state, Dual normal).
#include <camber/solvers/euler/flux.hpp>

namespace camber::solvers::euler {

namespace {
using D4 = ad::Dual<double, 4>;
using DD4 = ad::Dual<D4, 4>;
using D5 = ad::Dual<double, 5>;
}  // namespace

#define CAMBER_EULER_INSTANTIATE_FLUXES(T, TN, DIM)                                           \
  template Conserved<common_scalar_t<T, TN>, DIM> physical_flux<T, TN, DIM>(                  \
      const IdealGas&, const Conserved<T, DIM>&, const TN(&)[DIM]);                           \
  template Conserved<common_scalar_t<T, TN>, DIM> roe_flux<T, TN, DIM>(                       \
      const IdealGas&, const Conserved<T, DIM>&, const Conserved<T, DIM>&, const TN(&)[DIM]); \
  template Conserved<common_scalar_t<T, TN>, DIM> hllc_flux<T, TN, DIM>(                      \
      const IdealGas&, const Conserved<T, DIM>&, const Conserved<T, DIM>&, const TN(&)[DIM]);

CAMBER_EULER_INSTANTIATE_FLUXES(double, double, 2)
CAMBER_EULER_INSTANTIATE_FLUXES(D4, double, 2)
CAMBER_EULER_INSTANTIATE_FLUXES(DD4, double, 2)
CAMBER_EULER_INSTANTIATE_FLUXES(D4, D4, 2)
CAMBER_EULER_INSTANTIATE_FLUXES(double, double, 3)
CAMBER_EULER_INSTANTIATE_FLUXES(D5, double, 3)
#undef CAMBER_EULER_INSTANTIATE_FLUXES

}  // namespace camber::solvers::euler
