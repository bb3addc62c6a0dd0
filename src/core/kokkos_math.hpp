/// @file
/// Math functions callable inside Kokkos kernels on every backend.
///
/// Kokkos 3.4 (Debian's) provides them as Kokkos::Experimental::sqrt etc.;
/// Kokkos 4 moved them to Kokkos::sqrt. Kernels use camber::kmath::sqrt so the
/// same source compiles against both.
#pragma once

#include <Kokkos_Core.hpp>

namespace camber::kmath {
#if KOKKOS_VERSION >= 40000
#define CAMBER_KOKKOS_MATH_NS Kokkos
#else
#define CAMBER_KOKKOS_MATH_NS Kokkos::Experimental
#endif
using CAMBER_KOKKOS_MATH_NS::atan2;
using CAMBER_KOKKOS_MATH_NS::cbrt;
using CAMBER_KOKKOS_MATH_NS::cos;
using CAMBER_KOKKOS_MATH_NS::cosh;
using CAMBER_KOKKOS_MATH_NS::exp;
using CAMBER_KOKKOS_MATH_NS::fabs;
using CAMBER_KOKKOS_MATH_NS::hypot;
using CAMBER_KOKKOS_MATH_NS::log;
using CAMBER_KOKKOS_MATH_NS::pow;
using CAMBER_KOKKOS_MATH_NS::sin;
using CAMBER_KOKKOS_MATH_NS::sinh;
using CAMBER_KOKKOS_MATH_NS::sqrt;
using CAMBER_KOKKOS_MATH_NS::tan;
using CAMBER_KOKKOS_MATH_NS::tanh;
#undef CAMBER_KOKKOS_MATH_NS
}  // namespace camber::kmath
