// Tests of solvers/euler/boundary.hpp: the slip-wall flux and the
// characteristic far field (Riemann invariants, supersonic upwinding).
// Shared helpers and the units of every tolerance: flux_test_utils.hpp.
#include "flux_test_utils.hpp"

namespace camber_test_euler_flux {

// ------------------------------------------------------------------ boundaries

TEST(EulerBoundary, SlipWallFluxIsPressureOnly) {
  Rng rng(10);
  Worst worst{"wall flux vs (0, p n, 0) (scaled)", 1e-15};
  Worst tangential{"wall flux vs F(U).n for u.n = 0 (scaled)", 1e-15};
  for (int s = 0; s < 1000; ++s) {
    const State u = random_state(rng, 2.0);
    double n[2];
    random_normal(rng, n);
    const double p = pressure_of(u);
    const State scale = flux_scale(u, n);
    worst.add(
        scaled_error(eu::slip_wall_flux(air, u, n), State{{0.0, p * n[0], p * n[1], 0.0}}, scale));
    // A state moving along the wall: the wall flux is its physical flux.
    const double a = norm2(n), t = rng.uniform(-1.0, 1.0);
    const State ut = conserved(u[0], -t * n[1] / a, t * n[0] / a, p);
    tangential.add(scaled_error(eu::slip_wall_flux(air, ut, n), eu::physical_flux(air, ut, n),
                                flux_scale(ut, n)));
  }
  worst.check();
  tangential.check();
}

TEST(EulerBoundary, FarFieldStateFromRiemannInvariants) {
  Rng rng(11);
  Worst same{"interior = free stream: U_b vs U_inf (scaled)", 1e-14};
  Worst invariants{"subsonic: R+, R-, s, u_t vs their sources (relative)", 1e-13};
  int inflow = 0, outflow = 0, blended = 0;
  for (int s = 0; s < 2000; ++s) {
    double n[2];
    random_normal(rng, n);
    const double a = norm2(n), n_hat[2] = {n[0] / a, n[1] / a};
    const State u_inf = random_state(rng, 3.0);
    same.add(scaled_error(eu::far_field_state(air, u_inf, u_inf, n), u_inf, state_scale(u_inf)));

    // Subsonic, the interior a perturbation of the free stream: the boundary
    // state carries R+ = q + 2c/(gamma-1) of the interior, R- = q - 2c/(gamma-1)
    // of the free stream, and s = p/rho^gamma and the tangential velocity
    // of the upstream side.
    const State far = random_state(rng, 0.8);
    State in = far;
    for (int i = 0; i < 4; ++i) in[i] *= 1.0 + rng.uniform(-0.05, 0.05);
    const Speeds sp = wave_speeds(in, far, n);  // ql: interior, qr: free stream
    if (std::abs(sp.ql) >= 0.95 * sp.cl) continue;
    const State ub = eu::far_field_state(air, in, far, n);
    const double qb = (ub[1] * n_hat[0] + ub[2] * n_hat[1]) / ub[0], cb = sound_of(ub);
    const double g1 = gam - 1.0;
    const double r_plus = sp.ql + 2.0 * sp.cl / g1, r_minus = sp.qr - 2.0 * sp.cr / g1;
    invariants.add(std::abs(qb + 2.0 * cb / g1 - r_plus) / r_plus);
    invariants.add(std::abs(qb - 2.0 * cb / g1 - r_minus) / std::abs(r_minus));
    auto entropy = [](const State& u) { return pressure_of(u) / std::pow(u[0], gam); };
    auto tangent = [&](const State& u) { return (-u[1] * n_hat[1] + u[2] * n_hat[0]) / u[0]; };
    // Upstream side's share: 1 (interior) for q_b >= w c_b, 0 (free
    // stream) for q_b <= -w c_b, the cubic 1/2 + x (3 - x^2) / 4 of
    // x = q_b / (w c_b) in between.
    const double x = qb / (eu::far_field_blend_width * cb);
    const double w = x >= 1.0 ? 1.0 : x <= -1.0 ? 0.0 : 0.5 + 0.25 * x * (3.0 - x * x);
    (x >= 1.0 ? outflow : x <= -1.0 ? inflow : blended) += 1;
    const double s_b = w * entropy(in) + (1.0 - w) * entropy(far);
    const double t_b = w * tangent(in) + (1.0 - w) * tangent(far);
    invariants.add(std::abs(entropy(ub) - s_b) / s_b);
    invariants.add(std::abs(tangent(ub) - t_b) / (std::abs(qb) + cb));
  }
  same.check();
  invariants.check();
  EXPECT_GT(inflow, 100);
  EXPECT_GT(outflow, 100);
  EXPECT_GT(blended, 10);
}

// The boundary state is continuous, and its derivative too, across the
// change from inflow to outflow (q_b = 0, and the blend's ends at q_b =
// +-w c_b): walking the interior's normal velocity through them in steps of
// h, consecutive states differ by O(h) and consecutive difference quotients
// by O(h) (a switch would jump by the two sides' difference in entropy and
// tangential velocity, here 5-10% of the state).
TEST(EulerBoundary, FarFieldStateIsSmoothAcrossTheInflowOutflowChange) {
  Rng rng(14);
  const double n[2] = {0.6, 0.8}, t_hat[2] = {-0.8, 0.6};
  Worst step{"|U_b(k+1) - U_b(k)| / h (scaled)", 10.0};
  Worst curvature{"|dU_b(k+1) - dU_b(k)| / h (scaled)", 100.0};
  for (int sample = 0; sample < 20; ++sample) {
    const double rho = rng.uniform(0.8, 1.2), p = rng.uniform(0.8, 1.2) / gam;
    const double c = std::sqrt(gam * p / rho), t = rng.uniform(-0.8, 0.8) * c;
    const State far = conserved(1.0, 0.5 * t_hat[0], 0.5 * t_hat[1], 1.0 / gam);
    const double h = 1e-4 * c;
    State previous{}, previous_slope{};
    for (int k = 0; k <= 4000; ++k) {
      // Interior normal velocity from -0.2 c to 0.2 c, so that q_b runs
      // through -w c_b .. w c_b.
      const double q = -0.2 * c + k * h;
      const State in = conserved(rho * 1.05, q * n[0] + t * t_hat[0], q * n[1] + t * t_hat[1],
                                 p * 0.95);
      const State ub = eu::far_field_state(air, in, far, n);
      const State scale = state_scale(ub);
      if (k > 0) {
        State slope;
        for (int i = 0; i < 4; ++i) slope[i] = (ub[i] - previous[i]) / h;
        double jump = 0.0, bend = 0.0;
        for (int i = 0; i < 4; ++i) {
          jump = std::max(jump, std::abs(slope[i]) / scale[i]);
          if (k > 1) bend = std::max(bend, std::abs(slope[i] - previous_slope[i]) / h / scale[i]);
        }
        step.add(jump);
        if (k > 1) curvature.add(bend);
        previous_slope = slope;
      }
      previous = ub;
    }
  }
  step.check();
  curvature.check();
}

// Supersonic normal flow: every characteristic comes from upstream, so the
// boundary state is the free stream (inflow) or the interior (outflow),
// exactly.
TEST(EulerBoundary, FarFieldSupersonicTakesTheUpstreamState) {
  Rng rng(12);
  for (int s = 0; s < 500; ++s) {
    double n[2];
    random_normal(rng, n);
    const double a = norm2(n), n_hat[2] = {n[0] / a, n[1] / a};
    const double rho = rng.uniform(0.5, 2.0), p = rng.uniform(0.5, 2.0);
    const double c = std::sqrt(gam * p / rho), t = rng.uniform(-0.5, 0.5) * c;
    const double q = rng.uniform(1.2, 3.0) * c;
    // Outflow: the interior leaves through the face (q > c along n).
    const State out = conserved(rho, q * n_hat[0] - t * n_hat[1], q * n_hat[1] + t * n_hat[0], p);
    // Inflow: free stream and interior enter against n.
    const State far = conserved(rho, -q * n_hat[0] - t * n_hat[1], -q * n_hat[1] + t * n_hat[0], p);
    State in = far;
    in[0] *= 1.01;
    in[3] *= 1.02;
    const State u_out = eu::far_field_state(air, out, far, n);
    const State u_in = eu::far_field_state(air, in, far, n);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(u_out[i], out[i]) << "sample " << s << ", component " << i;
      EXPECT_EQ(u_in[i], far[i]) << "sample " << s << ", component " << i;
    }
  }
}

}  // namespace camber_test_euler_flux
