// Tests of solvers/euler/ideal_gas.hpp: conversions between conserved and
// primitive variables and the derived quantities, against their formulas.
// Shared helpers and the units of every tolerance: flux_test_utils.hpp.
#include "flux_test_utils.hpp"

namespace camber_test_euler_flux {

// ------------------------------------------------------------------ gas model

TEST(EulerGas, ConversionsRoundTripAndDerivedQuantities) {
  Rng rng(1);
  Worst round_trip{"W -> U -> W and U -> W -> U (relative)", 1e-14};
  Worst derived{"c, H, M, s of W against their formulas (relative)", 1e-14};
  Worst derived_u{"c, H, M, s of U against their formulas (relative/kappa)", 1e-14};
  for (int s = 0; s < 1000; ++s) {
    const double rho = rng.uniform(0.1, 10.0), p = rng.uniform(0.1, 10.0);
    const double u = rng.uniform(-3.0, 3.0), v = rng.uniform(-3.0, 3.0);
    const Prim w{rho, {u, v}, p};
    const State q = eu::to_conserved(air, w);
    const State expected = conserved(rho, u, v, p);
    const State scale = state_scale(expected);
    round_trip.add(scaled_error(q, expected, scale));
    const Prim back = eu::to_primitive(air, q);
    const double c = std::sqrt(gam * p / rho);
    round_trip.add(std::max({std::abs(back.rho - rho) / rho, std::abs(back.vel[0] - u) / c,
                             std::abs(back.vel[1] - v) / c,
                             std::abs(back.p - p) / (p + rho * (u * u + v * v))}));
    round_trip.add(scaled_error(eu::to_conserved(air, back), q, scale));
    round_trip.add(std::abs(eu::pressure(air, q) - p) / (p + rho * (u * u + v * v)));

    const double h = gam / (gam - 1.0) * p / rho + 0.5 * (u * u + v * v);
    const double mach = std::hypot(u, v) / c, entropy = p / std::pow(rho, gam);
    // From W: a few roundings. From U the pressure comes out of
    // rho E - rho |u|^2 / 2, which loses kappa = (p + rho |u|^2) / p in
    // relative accuracy (cancellation, the conditioning of p(U)), so those
    // errors are divided by kappa.
    const double kappa = (p + rho * (u * u + v * v)) / p;
    derived.add(std::abs(eu::sound_speed(air, w) - c) / c);
    derived.add(std::abs(eu::total_enthalpy(air, w) - h) / h);
    derived.add(std::abs(eu::mach_number(air, w) - mach) / (mach + 1.0));
    derived.add(std::abs(eu::entropy_measure(air, w) - entropy) / entropy);
    derived_u.add(std::abs(eu::sound_speed(air, q) - c) / c / kappa);
    derived_u.add(std::abs(eu::total_enthalpy(air, q) - h) / h / kappa);
    derived_u.add(std::abs(eu::mach_number(air, q) - mach) / (mach + 1.0) / kappa);
    derived_u.add(std::abs(eu::entropy_measure(air, q) - entropy) / entropy / kappa);
  }
  round_trip.check();
  derived.check();
  derived_u.check();

  // Air at rest with p = 1/gamma has c = 1; moving at u = 0.5 it has M = 0.5
  // and H = c^2 / (gamma - 1) + u^2 / 2 = 2.5 + 0.125.
  const Prim w{1.0, {0.3, -0.4}, 1.0 / gam};
  EXPECT_NEAR(eu::sound_speed(air, w), 1.0, 1e-15);
  EXPECT_NEAR(eu::mach_number(air, w), 0.5, 1e-15);
  EXPECT_NEAR(eu::total_enthalpy(air, w), 2.625, 4e-15);
}

}  // namespace camber_test_euler_flux
