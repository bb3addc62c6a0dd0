// Tests of solvers/euler/flux.hpp: the physical, Roe and HLLC fluxes
// (consistency, antisymmetry, rotational invariance, upwinding, exact
// contact and shock), their derivatives through Duals against central
// differences (the boundary fluxes' too), checks that can fail, and the
// header's example.
// Shared helpers and the units of every tolerance: flux_test_utils.hpp.
#include "flux_test_utils.hpp"

namespace camber_test_euler_flux {

// ------------------------------------------------------------------ fluxes

TEST(EulerFlux, PhysicalFluxMatchesCartesianFluxes) {
  Rng rng(2);
  Worst worst{"F(U).n vs Cartesian F n_x + G n_y (scaled)", 1e-15};
  for (int s = 0; s < 1000; ++s) {
    const State u = random_state(rng, 3.0);
    double n[2];
    random_normal(rng, n);
    worst.add(scaled_error(eu::physical_flux(air, u, n), cartesian_flux(u, n), flux_scale(u, n)));
  }
  worst.check();
}

TEST(EulerFlux, ConsistentWithThePhysicalFlux) {
  Worst roe_worst{"Roe F(U, U, n) vs F(U).n (scaled)", 1e-14};
  Worst hllc_worst{"HLLC F(U, U, n) vs F(U).n (scaled)", 1e-14};
  roe_worst.add(consistency_error(roe, 2000, 3), 2000);
  hllc_worst.add(consistency_error(hllc, 2000, 3), 2000);
  roe_worst.check();
  hllc_worst.check();
}

TEST(EulerFlux, ConservativeAntisymmetry) {
  Rng rng(4);
  Worst roe_worst{"Roe F(L, R, n) + F(R, L, -n) (scaled)", 1e-14};
  Worst hllc_worst{"HLLC F(L, R, n) + F(R, L, -n) (scaled)", 1e-14};
  for (int s = 0; s < 2000; ++s) {
    const State ul = random_state(rng, 2.0), ur = random_state(rng, 2.0);
    double n[2];
    random_normal(rng, n);
    const double minus_n[2] = {-n[0], -n[1]};
    const State scale = flux_scale(ul, ur, n);
    State neg_roe = roe(ur, ul, minus_n), neg_hllc = hllc(ur, ul, minus_n);
    for (int i = 0; i < 4; ++i) {
      neg_roe[i] = -neg_roe[i];
      neg_hllc[i] = -neg_hllc[i];
    }
    roe_worst.add(scaled_error(roe(ul, ur, n), neg_roe, scale));
    hllc_worst.add(scaled_error(hllc(ul, ur, n), neg_hllc, scale));
  }
  roe_worst.check();
  hllc_worst.check();
}

// F(Q U_L, Q U_R, Q n) = Q F(U_L, U_R, n) for a rotation Q acting on the
// momentum components and the normal.
TEST(EulerFlux, RotationalInvariance) {
  Rng rng(5);
  Worst roe_worst{"Roe rotated vs rotated flux (scaled)", 1e-14};
  Worst hllc_worst{"HLLC rotated vs rotated flux (scaled)", 1e-14};
  auto rotate = [](const State& f, double cs, double sn) {
    return State{{f[0], cs * f[1] - sn * f[2], sn * f[1] + cs * f[2], f[3]}};
  };
  for (int s = 0; s < 2000; ++s) {
    const State ul = random_state(rng, 2.0), ur = random_state(rng, 2.0);
    double n[2];
    random_normal(rng, n);
    const double theta = rng.uniform(0.0, 2.0 * pi), cs = std::cos(theta), sn = std::sin(theta);
    const double qn[2] = {cs * n[0] - sn * n[1], sn * n[0] + cs * n[1]};
    const State qul = rotate(ul, cs, sn), qur = rotate(ur, cs, sn);
    const State scale = flux_scale(ul, ur, n);
    roe_worst.add(scaled_error(roe(qul, qur, qn), rotate(roe(ul, ur, n), cs, sn), scale));
    hllc_worst.add(scaled_error(hllc(qul, qur, qn), rotate(hllc(ul, ur, n), cs, sn), scale));
  }
  roe_worst.check();
  hllc_worst.check();
}

// With every wave moving one way, an upwind flux is the upstream physical
// flux. Normal Mach number in [1.3, 3] on both sides, tangential speed up to
// 0.5 c; the precondition that Roe's averaged q~ - c~ is positive too (the
// schemes see U~'s waves) is asserted, not assumed.
TEST(EulerFlux, SupersonicUpwinding) {
  Rng rng(6);
  Worst roe_worst{"Roe vs upstream F(U).n (scaled)", 1e-14};
  Worst hllc_worst{"HLLC vs upstream F(U).n (scaled)", 1e-14};
  auto supersonic = [&](double sign, const double(&n_hat)[2]) {
    const double rho = rng.uniform(0.5, 2.0), p = rng.uniform(0.5, 2.0);
    const double c = std::sqrt(gam * p / rho);
    const double q = sign * rng.uniform(1.3, 3.0) * c, t = rng.uniform(-0.5, 0.5) * c;
    return conserved(rho, q * n_hat[0] - t * n_hat[1], q * n_hat[1] + t * n_hat[0], p);
  };
  for (int s = 0; s < 2000; ++s) {
    double n[2];
    random_normal(rng, n);
    const double a = norm2(n), n_hat[2] = {n[0] / a, n[1] / a};
    const double sign = s % 2 == 0 ? 1.0 : -1.0;  // flow along n, then against it
    const State ul = supersonic(sign, n_hat), ur = supersonic(sign, n_hat);
    const Speeds sp = wave_speeds(ul, ur, n);
    ASSERT_GT(sign * sp.qa - sp.ca, 0.0) << "sample " << s << " is not supersonic for U~";
    const State& upstream = sign > 0 ? ul : ur;
    const State expected = eu::physical_flux(air, upstream, n);
    const State scale = flux_scale(ul, ur, n);
    roe_worst.add(scaled_error(roe(ul, ur, n), expected, scale));
    hllc_worst.add(scaled_error(hllc(ul, ur, n), expected, scale));
  }
  roe_worst.check();
  hllc_worst.check();
}

// Equal pressure, no normal velocity, different density (and tangential
// velocity: a slip line): the exact Riemann solution is stationary, so the
// flux is (0, p n, 0).
TEST(EulerFlux, StationaryContactIsExact) {
  Rng rng(7);
  Worst roe_worst{"Roe vs (0, p n, 0) (scaled)", 1e-14};
  Worst hllc_worst{"HLLC vs (0, p n, 0) (scaled)", 1e-14};
  for (int s = 0; s < 1000; ++s) {
    double n[2];
    random_normal(rng, n);
    const double a = norm2(n), t_hat[2] = {-n[1] / a, n[0] / a};
    const double p = rng.uniform(0.5, 2.0);
    const double tl = rng.uniform(-1.0, 1.0), tr = s % 2 == 0 ? tl : rng.uniform(-1.0, 1.0);
    const State ul = conserved(rng.uniform(0.5, 2.0), tl * t_hat[0], tl * t_hat[1], p);
    const State ur = conserved(rng.uniform(0.5, 2.0), tr * t_hat[0], tr * t_hat[1], p);
    const State expected{{0.0, p * n[0], p * n[1], 0.0}};
    const State scale = flux_scale(ul, ur, n);
    roe_worst.add(scaled_error(roe(ul, ur, n), expected, scale));
    hllc_worst.add(scaled_error(hllc(ul, ur, n), expected, scale));
  }
  roe_worst.check();
  hllc_worst.check();
}

// Normal shock at M1 = 2, gamma = 1.4 (Rankine-Hugoniot):
//   rho2/rho1 = (gamma+1) M^2 / ((gamma-1) M^2 + 2) = 8/3,
//   p2/p1 = 1 + 2 gamma (M^2 - 1) / (gamma+1) = 4.5,   q2 = q1 rho1/rho2,
// tangential velocity continuous. Roe's linearization satisfies
// A~ (U_R - U_L) = F_R - F_L, so the jump is one eigenvector with
// eigenvalue q~ - c~ = 0 and the flux is F(U_L).n = F(U_R).n; HLLC with
// Einfeldt's S_L = min(q_L - c_L, q~ - c~) = 0 reproduces it as well.
TEST(EulerFlux, StationaryNormalShockIsExact) {
  Rng rng(8);
  Worst rh_worst{"F(U_L).n vs F(U_R).n (the setup) (scaled)", 1e-14};
  Worst roe_worst{"Roe vs F(U_L).n (scaled)", 1e-14};
  Worst hllc_worst{"HLLC vs F(U_L).n (scaled)", 1e-14};
  const double mach = 2.0;
  const double density_ratio = (gam + 1.0) * mach * mach / ((gam - 1.0) * mach * mach + 2.0);
  const double pressure_ratio = 1.0 + 2.0 * gam / (gam + 1.0) * (mach * mach - 1.0);
  EXPECT_NEAR(density_ratio, 8.0 / 3.0, 1e-15);
  EXPECT_NEAR(pressure_ratio, 4.5, 1e-15);
  for (int s = 0; s < 1000; ++s) {
    double n[2];
    random_normal(rng, n);
    const double a = norm2(n), n_hat[2] = {n[0] / a, n[1] / a};
    const double rho1 = rng.uniform(0.5, 2.0), p1 = rng.uniform(0.5, 2.0);
    const double q1 = mach * std::sqrt(gam * p1 / rho1), q2 = q1 / density_ratio;
    const double t = rng.uniform(-1.0, 1.0);
    const State ul =
        conserved(rho1, q1 * n_hat[0] - t * n_hat[1], q1 * n_hat[1] + t * n_hat[0], p1);
    const State ur = conserved(rho1 * density_ratio, q2 * n_hat[0] - t * n_hat[1],
                               q2 * n_hat[1] + t * n_hat[0], p1 * pressure_ratio);
    const State fl = eu::physical_flux(air, ul, n);
    const State scale = flux_scale(ul, ur, n);
    rh_worst.add(scaled_error(fl, eu::physical_flux(air, ur, n), scale));
    roe_worst.add(scaled_error(roe(ul, ur, n), fl, scale));
    hllc_worst.add(scaled_error(hllc(ul, ur, n), fl, scale));
  }
  rh_worst.check();
  roe_worst.check();
  hllc_worst.check();
}

// The entropy fix switches on where lambda_L = q_L - c_L crosses 0 below a
// right-going expansion; the flux must not jump there. Moving q_L by 2 eps
// changes a continuous flux by about |dF/dU| 2 eps, ~1e-8 of the scale for
// eps = 1e-8; a fix that switched on with a finite width (a Harten
// parabola gated on lambda_L < 0 < lambda_R, say) would jump by its
// dissipation, O(lambda alpha), many orders above the tolerance 1e-6.
TEST(EulerFlux, RoeEntropyFixIsContinuousWhereItSwitchesOn) {
  Worst worst{"Roe |F(lambda_L = +eps) - F(-eps)| (scaled)", 1e-6};
  const double n[2] = {0.6, 0.8};
  const double eps = 1e-8;
  for (double q_right : {1.5, 2.0, 3.0}) {
    const State ur = conserved(0.5, q_right * 0.6, q_right * 0.8, 0.3);
    const State plus = conserved(1.0, (1.0 + eps) * 0.6, (1.0 + eps) * 0.8, 1.0 / gam);
    const State minus = conserved(1.0, (1.0 - eps) * 0.6, (1.0 - eps) * 0.8, 1.0 / gam);
    const Speeds sp = wave_speeds(minus, ur, n);
    ASSERT_LT(sp.ql - sp.cl, 0.0);  // the fix's gate is open on this side
    ASSERT_GT(sp.qr - sp.cr, 0.0);
    worst.add(scaled_error(roe(plus, ur, n), roe(minus, ur, n), flux_scale(plus, ur, n)));
  }
  worst.check();
}

// A 2-D flow in 3-D (w = 0, n_z = 0) gives the 2-D flux and no z-momentum
// flux; the 3-D fluxes are consistent too.
TEST(EulerFlux, ThreeDimensionalLayout) {
  using State3 = eu::Conserved<double, 3>;
  Rng rng(9);
  Worst reduce_worst{"3-D flux of a 2-D flow vs 2-D flux (scaled)", 1e-15};
  Worst consistency_worst{"3-D Roe/HLLC F(U, U, n) vs F(U).n (scaled)", 1e-14};
  for (int s = 0; s < 500; ++s) {
    const State ul = random_state(rng, 2.0), ur = random_state(rng, 2.0);
    double n[2];
    random_normal(rng, n);
    const State3 ul3{{ul[0], ul[1], ul[2], 0.0, ul[3]}}, ur3{{ur[0], ur[1], ur[2], 0.0, ur[3]}};
    const double n3[3] = {n[0], n[1], 0.0};
    const State scale = flux_scale(ul, ur, n);
    const State3 f3[3] = {eu::physical_flux(air, ul3, n3), eu::roe_flux(air, ul3, ur3, n3),
                          eu::hllc_flux(air, ul3, ur3, n3)};
    const State f2[3] = {eu::physical_flux(air, ul, n), roe(ul, ur, n), hllc(ul, ur, n)};
    for (int k = 0; k < 3; ++k) {
      reduce_worst.add(scaled_error(State{{f3[k][0], f3[k][1], f3[k][2], f3[k][4]}}, f2[k], scale));
      reduce_worst.add(std::abs(f3[k][3]) / scale[1]);
    }

    // A genuinely 3-D state: w and n_z nonzero.
    State3 u3 = ul3;
    const double w = rng.uniform(-1.0, 1.0);
    u3[3] = u3[0] * w;
    u3[4] += 0.5 * u3[0] * w * w;
    const double m3[3] = {n[0], n[1], rng.uniform(-1.0, 1.0)};
    const State3 exact = eu::physical_flux(air, u3, m3);
    const State3 numeric[2] = {eu::roe_flux(air, u3, u3, m3), eu::hllc_flux(air, u3, u3, m3)};
    const double a3 = std::sqrt(m3[0] * m3[0] + m3[1] * m3[1] + m3[2] * m3[2]);
    const double vel = std::sqrt((u3[1] * u3[1] + u3[2] * u3[2] + u3[3] * u3[3])) / u3[0];
    const double speed = vel + eu::sound_speed(air, u3);
    const double scale3[5] = {a3 * u3[0] * speed, a3 * u3[0] * speed * speed,
                              a3 * u3[0] * speed * speed, a3 * u3[0] * speed * speed,
                              a3 * (u3[4] + eu::pressure(air, u3)) * speed};
    for (const State3& f : numeric)
      for (int i = 0; i < 5; ++i) consistency_worst.add(std::abs(f[i] - exact[i]) / scale3[i]);
  }
  reduce_worst.check();
  consistency_worst.check();
}


// ------------------------------------------------------------------ derivatives

// The Dual Jacobians of every flux against central differences, at random
// states away from the kinks (see away_from_kinks), with the Dual values
// equal to the double ones; and, where U_L = U_R, dF/dU_L + dF/dU_R = the
// Jacobian of F(U).n (d/dU of the consistency F(U, U, n) = F(U).n).
TEST(EulerDerivatives, JacobiansMatchFiniteDifferences) {
  Rng rng(13);
  const auto physical = [](const auto& ul, const auto& ur, const double(&n)[2]) {
    return eu::physical_flux(air, ul, n);
  };
  const auto wall = [](const auto& ul, const auto& ur, const double(&n)[2]) {
    return eu::slip_wall_flux(air, ul, n);
  };
  const auto far_field = [](const auto& ui, const auto& uf, const double(&n)[2]) {
    return eu::far_field_state(air, ui, uf, n);
  };
  Worst w_physical{"dF/dU physical vs FD (scaled)", 1e-7};
  Worst w_roe{"dF/dU Roe vs FD (scaled)", 1e-7};
  Worst w_hllc{"dF/dU HLLC vs FD (scaled)", 1e-7};
  Worst w_wall{"dF/dU slip wall vs FD (scaled)", 1e-7};
  Worst w_far{"dU_b/dU far field vs FD (scaled)", 1e-7};
  Worst w_values{"Dual value vs double (scaled)", 1e-15};
  int transonic = 0;
  while (w_roe.n < 300) {
    const State ul = random_state(rng, 2.0), ur = random_state(rng, 2.0);
    double n[2];
    random_normal(rng, n);
    if (!away_from_kinks(ul, ur, n, 1e-3)) continue;
    const Speeds sp = wave_speeds(ul, ur, n);
    if ((sp.ql - sp.cl < 0 && sp.qr - sp.cr > 0) || (sp.ql + sp.cl < 0 && sp.qr + sp.cr > 0))
      ++transonic;  // the entropy fix is active
    const State scale = flux_scale(ul, ur, n);
    w_physical.add(jacobian_error(physical, ul, ur, n, scale));
    w_roe.add(jacobian_error(roe, ul, ur, n, scale));
    w_hllc.add(jacobian_error(hllc, ul, ur, n, scale));
    w_wall.add(jacobian_error(wall, ul, ur, n, scale));
    const auto fd = roe(eu::make_variable_state(ul), eu::state_cast<D4>(ur), n);
    const auto gd = hllc(eu::make_variable_state(ul), eu::state_cast<D4>(ur), n);
    const State f = roe(ul, ur, n), g = hllc(ul, ur, n);
    w_values.add(
        scaled_error(State{{fd[0].val(), fd[1].val(), fd[2].val(), fd[3].val()}}, f, scale));
    w_values.add(
        scaled_error(State{{gd[0].val(), gd[1].val(), gd[2].val(), gd[3].val()}}, g, scale));

    // The far field at an interior near the free stream, away from its
    // supersonic switches (|q_i| = c_i; it is C1 across q_b = 0).
    State in = ur;
    for (int i = 0; i < 4; ++i) in[i] *= 1.0 + rng.uniform(-0.05, 0.05);
    const Speeds fs = wave_speeds(in, ur, n);
    if (std::abs(std::abs(fs.ql) - fs.cl) > 1e-3 * fs.cl)
      w_far.add(
          jacobian_error(far_field, in, ur, n, state_scale(eu::far_field_state(air, in, ur, n))));
  }
  std::printf("  %d of %d samples have an active entropy fix\n", transonic, w_roe.n);
  EXPECT_GT(transonic, 10) << "too few samples exercise the entropy fix";

  // Consistency, differentiated: J_L + J_R = dF(U).n/dU at U_L = U_R = U.
  // Every branch of both fluxes satisfies F(V, V, n) = F(V).n for all V, so
  // this holds at any state, kinks included.
  Worst w_sum{"dF/dU_L + dF/dU_R at U_L = U_R vs dF(U).n/dU (scaled)", 1e-14};
  for (int s = 0; s < 300; ++s) {
    const State u = random_state(rng, 3.0);
    double n[2];
    random_normal(rng, n);
    const auto a = eu::physical_flux(air, eu::make_variable_state(u), n);
    const State f_scale = flux_scale(u, n), u_scale = state_scale(u);
    for (const int flux : {0, 1}) {
      const auto jl = flux == 0 ? roe(eu::make_variable_state(u), eu::state_cast<D4>(u), n)
                                : hllc(eu::make_variable_state(u), eu::state_cast<D4>(u), n);
      const auto jr = flux == 0 ? roe(eu::state_cast<D4>(u), eu::make_variable_state(u), n)
                                : hllc(eu::state_cast<D4>(u), eu::make_variable_state(u), n);
      for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k)
          w_sum.add(std::abs(jl[i].der(k) + jr[i].der(k) - a[i].der(k)) * u_scale[k] / f_scale[i]);
    }
  }

  w_physical.check();
  w_roe.check();
  w_hllc.check();
  w_wall.check();
  w_far.check();
  w_values.check();
  w_sum.check();
}

// ad::jacobian over both states at once (Dual<double, 8>) gives the same
// two blocks as seeding one side at a time (Dual<double, 4>): the same
// operations on the same values, so equal to rounding.
struct RoeOfEight {
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(const T (&x)[8], T (&f)[4]) const {
    const double n[2] = {0.3, -1.1};
    const eu::Conserved<T, 2> ul{{x[0], x[1], x[2], x[3]}}, ur{{x[4], x[5], x[6], x[7]}};
    const eu::Conserved<T, 2> r = eu::roe_flux(air, ul, ur, n);
    for (int i = 0; i < 4; ++i) f[i] = r[i];
  }
};

TEST(EulerDerivatives, JacobianHelperOverBothStates) {
  const State ul = conserved(1.2, 0.4, -0.2, 0.9), ur = conserved(0.8, 0.1, 0.3, 0.7);
  const double x[8] = {ul[0], ul[1], ul[2], ul[3], ur[0], ur[1], ur[2], ur[3]};
  double f[4], j[4][8];
  ad::jacobian(RoeOfEight{}, x, f, j);
  const double n[2] = {0.3, -1.1};
  const auto jl = roe(eu::make_variable_state(ul), eu::state_cast<D4>(ur), n);
  const auto jr = roe(eu::state_cast<D4>(ul), eu::make_variable_state(ur), n);
  Worst worst{"ad::jacobian (N = 8) vs two N = 4 passes (scaled)", 1e-15};
  const State f_scale = flux_scale(ul, ur, n), sl = state_scale(ul), sr = state_scale(ur);
  for (int i = 0; i < 4; ++i) {
    worst.add(std::abs(f[i] - jl[i].val()) / f_scale[i]);
    for (int k = 0; k < 4; ++k) {
      worst.add(std::abs(j[i][k] - jl[i].der(k)) * sl[k] / f_scale[i]);
      worst.add(std::abs(j[i][4 + k] - jr[i].der(k)) * sr[k] / f_scale[i]);
    }
  }
  worst.check();
}

// Second derivatives of Roe's flux with respect to U_L (nested Duals,
// Dual<Dual<double, 4>, 4>) against central differences of the Dual
// Jacobian with step h_l = 1e-5 * state_scale_l (truncation ~1e-10,
// rounding ~1e-11 relative), and their symmetry d2F/dU_k dU_l =
// d2F/dU_l dU_k; in the units of the file comment,
// |d2F_i/dU_k dU_l| * state_scale_k * state_scale_l / flux_scale_i.
TEST(EulerDerivatives, RoeSecondDerivativesMatchFiniteDifferences) {
  Rng rng(14);
  Worst w_fd{"d2F/dU_L2 Roe vs FD of the Dual Jacobian (scaled)", 1e-6};
  Worst w_sym{"d2F/dU_L2 Roe symmetry (scaled)", 1e-14};
  Worst w_first{"first derivatives of the nested Dual vs Dual<4> (scaled)", 1e-15};
  int tested = 0;
  while (tested < 100) {
    const State ul = random_state(rng, 2.0), ur = random_state(rng, 2.0);
    double n[2];
    random_normal(rng, n);
    if (!away_from_kinks(ul, ur, n, 1e-2)) continue;
    ++tested;
    eu::Conserved<DD4, 2> ul_dd;
    for (int k = 0; k < 4; ++k) ul_dd[k] = ad::make_nested_variable<DD4>(ul[k], k);
    const auto h = eu::roe_flux(air, ul_dd, eu::state_cast<DD4>(ur), n);
    const auto j = roe(eu::make_variable_state(ul), eu::state_cast<D4>(ur), n);
    const State u_scale = state_scale(ul), f_scale = flux_scale(ul, ur, n);
    double fd[4][4][4];
    for (int l = 0; l < 4; ++l) {
      State up = ul, dn = ul;
      up[l] += 1e-5 * u_scale[l];
      dn[l] -= 1e-5 * u_scale[l];
      const auto jp = roe(eu::make_variable_state(up), eu::state_cast<D4>(ur), n);
      const auto jm = roe(eu::make_variable_state(dn), eu::state_cast<D4>(ur), n);
      for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k) fd[i][k][l] = (jp[i].der(k) - jm[i].der(k)) / (up[l] - dn[l]);
    }
    for (int i = 0; i < 4; ++i)
      for (int k = 0; k < 4; ++k) {
        const double first = u_scale[k] / f_scale[i];
        w_first.add(std::abs(h[i].val().der(k) - j[i].der(k)) * first);
        w_first.add(std::abs(h[i].der(k).val() - j[i].der(k)) * first);
        for (int l = 0; l < 4; ++l) {
          const double second = first * u_scale[l];
          w_fd.add(std::abs(h[i].der(k).der(l) - fd[i][k][l]) * second);
          w_sym.add(std::abs(h[i].der(k).der(l) - h[i].der(l).der(k)) * second);
        }
      }
  }
  w_fd.check();
  w_sym.check();
  w_first.check();
}

// Derivatives with respect to the face normal (what shape derivatives need):
// a Dual normal with constant states, against central differences in n.
TEST(EulerDerivatives, DerivativesWithRespectToTheNormal) {
  Rng rng(15);
  Worst worst{"dF/dn Roe and HLLC vs FD (scaled)", 1e-7};
  int tested = 0;
  while (tested < 200) {
    const State ul = random_state(rng, 2.0), ur = random_state(rng, 2.0);
    double n[2];
    random_normal(rng, n);
    if (!away_from_kinks(ul, ur, n, 1e-3)) continue;
    ++tested;
    const D4 nd[2] = {ad::make_variable<4>(n[0], 0), ad::make_variable<4>(n[1], 1)};
    const auto ul_d = eu::state_cast<D4>(ul), ur_d = eu::state_cast<D4>(ur);
    for (int flux = 0; flux < 2; ++flux) {
      const auto fd =
          flux == 0 ? eu::roe_flux(air, ul_d, ur_d, nd) : eu::hllc_flux(air, ul_d, ur_d, nd);
      double j_fd[4][2];
      for (int k = 0; k < 2; ++k) {
        const double h = 1e-6 * norm2(n);
        double np[2] = {n[0], n[1]}, nm[2] = {n[0], n[1]};
        np[k] += h;
        nm[k] -= h;
        const State fp = flux == 0 ? roe(ul, ur, np) : hllc(ul, ur, np);
        const State fm = flux == 0 ? roe(ul, ur, nm) : hllc(ul, ur, nm);
        for (int i = 0; i < 4; ++i) j_fd[i][k] = (fp[i] - fm[i]) / (np[k] - nm[k]);
      }
      const State scale = flux_scale(ul, ur, n);
      for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 2; ++k)
          worst.add(std::abs(fd[i].der(k) - j_fd[i][k]) * norm2(n) / scale[i]);
    }
  }
  worst.check();
}


// ------------------------------------------------------------------ the checks can fail

// A Roe flux with the sign of its pressure term flipped: F - 2 p_avg n in
// the momentum. Its value at U_L = U_R is off by 2 p n, which the
// consistency check must report far above its tolerance.
TEST(EulerChecks, ConsistencyCatchesAWrongPressureSign) {
  const auto wrong_pressure = [](const auto& ul, const auto& ur, const double(&n)[2]) {
    auto f = eu::roe_flux(air, ul, ur, n);
    const double p_avg = 0.5 * (pressure_of(ul) + pressure_of(ur));
    for (int d = 0; d < 2; ++d) f[1 + d] -= 2.0 * p_avg * n[d];
    return f;
  };
  const double right = consistency_error(roe, 200, 16);
  const double wrong = consistency_error(wrong_pressure, 200, 16);
  std::printf("  consistency error: Roe %.2e, Roe with -p %.2e (tol 1e-14)\n", right, wrong);
  EXPECT_LE(right, 1e-14);
  EXPECT_GT(wrong, 1e-2);
}

// Roe's flux with the dissipation frozen (evaluated on the values, a
// constant for Duals): the usual approximate Jacobian of implicit solvers.
// The values are Roe's, the derivatives miss d(|A| dU)/dU, and the
// finite-difference check must report it.
TEST(EulerChecks, JacobianCheckCatchesAFrozenDissipation) {
  const auto frozen = [](const auto& ul, const auto& ur, const double(&n)[2]) {
    using T = std::decay_t<decltype(ul[0])>;
    State vl, vr;
    for (int i = 0; i < 4; ++i) {
      vl[i] = ad::value(ul[i]);
      vr[i] = ad::value(ur[i]);
    }
    const State exact = eu::roe_flux(air, vl, vr, n);
    const State fl_v = eu::physical_flux(air, vl, n), fr_v = eu::physical_flux(air, vr, n);
    const auto fl = eu::physical_flux(air, ul, n), fr = eu::physical_flux(air, ur, n);
    eu::Conserved<T, 2> f;
    for (int i = 0; i < 4; ++i)
      f[i] = 0.5 * (fl[i] + fr[i]) + (exact[i] - 0.5 * (fl_v[i] + fr_v[i]));
    return f;
  };
  Rng rng(17);
  double right = 0.0, wrong = 0.0;
  int tested = 0;
  while (tested < 20) {
    const State ul = random_state(rng, 2.0), ur = random_state(rng, 2.0);
    double n[2];
    random_normal(rng, n);
    if (!away_from_kinks(ul, ur, n, 1e-3)) continue;
    ++tested;
    right = std::max(right, jacobian_error(roe, ul, ur, n, flux_scale(ul, ur, n)));
    wrong = std::max(wrong, jacobian_error(frozen, ul, ur, n, flux_scale(ul, ur, n)));
  }
  std::printf("  Jacobian error: Roe %.2e, frozen dissipation %.2e (tol 1e-7)\n", right, wrong);
  EXPECT_LE(right, 1e-7);
  EXPECT_GT(wrong, 1e-2);
}

}  // namespace camber_test_euler_flux

// ------------------------------------------------------------------ the header's example

// The usage lines of flux.hpp and boundary.hpp, as written there (in their
// own namespace, so that their declarations shadow nothing).
namespace camber_test_euler_flux_example {

using State = camber::solvers::euler::Conserved<double, 2>;

State conserved(double rho, double u, double v, double p) {
  return State{{rho, rho * u, rho * v, p / 0.4 + 0.5 * rho * (u * u + v * v)}};
}

TEST(EulerFlux, HeaderExamplesCompileAndAgree) {
  const State ul = conserved(1.0, 0.5, 0.1, 1.0 / 1.4), ur = conserved(0.9, 0.45, 0.0, 0.65);
  {
    namespace eu = camber::solvers::euler;
    const eu::IdealGas air{1.4};
    const double n[2] = {0.0, 0.1};                             // from mesh geometry
    eu::Conserved<double, 2> f = eu::roe_flux(air, ul, ur, n);  // or hllc_flux
    using D = camber::ad::Dual<double, 4>;                      // d/dU_L, U_R constant
    auto fd = eu::roe_flux(air, eu::make_variable_state(ul), eu::state_cast<D>(ur), n);
    // fd[i].val() == f[i], fd[i].der(k) == dF_i / dU_L[k]
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(fd[i].val(), f[i], 1e-15 * (1.0 + std::abs(f[i])));
  }
  {
    namespace eu = camber::solvers::euler;
    const eu::IdealGas air{1.4};
    const State& u_interior = ul;
    const double n[2] = {0.1, 0.0};
    const auto u_inf = eu::to_conserved(air, eu::Primitive<double, 2>{1.0, {0.5, 0.0}, 1 / 1.4});
    const auto u_b = eu::far_field_state(air, u_interior, u_inf, n);  // ghost state
    const auto f_far = eu::roe_flux(air, u_interior, u_b, n);         // far-field face
    const auto f_wall = eu::slip_wall_flux(air, u_interior, n);       // wall face
    // Subsonic outflow (q = 0.5, c = 1): R+ = 5.5, R- = -4.5 give q_b = 0.5,
    // so mass leaves; the wall carries the pressure 1/1.4 only.
    EXPECT_NEAR(u_b[1] / u_b[0], 0.5, 1e-15);
    EXPECT_GT(f_far[0], 0.0);
    EXPECT_EQ(f_wall[0], 0.0);
    EXPECT_EQ(f_wall[2], 0.0);
    EXPECT_EQ(f_wall[3], 0.0);
    EXPECT_NEAR(f_wall[1], 0.1 / 1.4, 1e-16);
  }
}

}  // namespace camber_test_euler_flux_example
