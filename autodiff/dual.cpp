// Explicit instantiations of the Dual types Camber's kernels use: every
// member function is compiled here once, so a change that breaks one of
// them fails the library build, not only the code that happens to call it.
#include <camber/autodiff/dual.hpp>

#include <type_traits>

namespace camber::ad {

template struct Dual<double, 1>;
template struct Dual<double, 2>;
template struct Dual<double, 3>;
template struct Dual<double, 4>;
template struct Dual<Dual<double, 1>, 1>;
template struct Dual<Dual<double, 2>, 2>;
template struct Dual<Dual<double, 3>, 3>;
template struct Dual<Dual<Dual<double, 1>, 1>, 1>;

// Views, deep_copy and device transfers rely on these.
static_assert(std::is_trivially_copyable<Dual<double, 3>>::value);
static_assert(std::is_trivially_copyable<Dual<Dual<double, 2>, 2>>::value);
static_assert(std::is_trivially_destructible<Dual<Dual<double, 2>, 2>>::value);
static_assert(sizeof(Dual<double, 3>) == 4 * sizeof(double));
static_assert(sizeof(Dual<Dual<double, 2>, 2>) == 9 * sizeof(double));

}  // namespace camber::ad
