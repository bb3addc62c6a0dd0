// A small design problem shared by the aero tests that run whole designs
// quickly: a NACA 0012 section on a 48 x 24 O-grid (30 chords), M 0.5,
// alpha 1 deg, first order, 3 Hicks-Henne bumps per surface within 0.002
// chords, the thickness held. Also the same section turned and scaled as a
// rigid body (RigidSectionDesign, whose coefficients are known from the
// undeformed section's), and central differences of a problem's
// evaluations for derivative tests.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <camber/autodiff/distributed_ops.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/solvers/aero/airfoil_design.hpp>

#include "tests/common/central_difference.hpp"

namespace camber::test {

inline mesh::Mesh small_section_mesh() {
  return mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 30.0);
}

inline solvers::aero::AirfoilDesignSettings small_section_settings(int max_evaluations) {
  namespace eu = solvers::euler;
  solvers::aero::AirfoilDesignSettings s;
  s.flow.flow.mach = 0.5;
  s.flow.flow.alpha_deg = 1.0;
  s.flow.conditions = {{"airfoil", eu::BoundaryKind::slip_wall}, {"farfield", eu::BoundaryKind::far_field}};
  s.flow.spatial.order = 1;
  s.flow.steady.rel_tolerance = 1e-10;
  s.optimizer.max_evaluations = max_evaluations;
  s.bound = 0.002;
  return s;
}

inline std::unique_ptr<solvers::aero::AirfoilDesign> small_section(const mesh::Mesh& m, MPI_Comm comm,
                                                                   int max_evaluations) {
  return std::make_unique<solvers::aero::AirfoilDesign>(
      m, comm,
      std::make_unique<design::HicksHenne>(m, std::vector<std::string>{"airfoil"},
                                           design::evenly_spaced_bumps(3)),
      small_section_settings(max_evaluations));
}

// The section turned and scaled as a rigid body about the moment point m:
// a = (theta, sigma), X = m + (1 + sigma) R(theta) (X0 - m), R the
// counter-clockwise rotation by theta radians (nose down). Its flow is the
// undeformed section's at alpha - 180 theta / pi degrees, with CL and CD
// times (1 + sigma) and CM times (1 + sigma)^2: the Euler equations have no
// length scale, the first-order scheme and its boundary conditions are
// invariant under rotation, and the reference length and moment point stay
// put. One geometric constraint, the chord (1) at least the baseline's:
// g = -sigma. `global` must outlive the design.
class RigidSectionDesign : public solvers::aero::ShapeDesign {
 public:
  RigidSectionDesign(const mesh::Mesh& global, MPI_Comm comm, solvers::aero::ShapeDesignSettings s)
      : ShapeDesign(comm, std::move(s), [&global, comm](const solvers::euler::SteadyFlowSettings& f) {
          return std::make_unique<solvers::euler::SteadyFlow>(global, comm, f);
        }) {
    attach(std::make_unique<Turn>(flow(0), comm, design_settings().flow.flow.moment_point));
  }

 private:
  class Turn : public solvers::aero::DesignGeometry {
   public:
    Turn(solvers::euler::SteadyFlow& flow, MPI_Comm comm, const std::array<double, 3>& m)
        : flow_(flow), comm_(comm), m_(Tensor::from_host({2}, {m[0], m[1]})) {
      const Tensor& rows = flow.row_coordinates();
      std::vector<double> p = rows.to_vector();
      for (size_t i = 0; i < p.size(); ++i) p[i] -= m[i % 2];
      p_ = Tensor::from_host(rows.shape(), p);
    }
    index_t n_shape() const override { return 2; }
    ad::Var rank_rows(const ad::Var& a) const override {
      // The ranks' shares of the backward pass are summed (every rank
      // deforms only its own rows).
      const ad::Var b = ad::grad_allreduce(a, comm_);
      const ad::Var theta = ad::slice(b, 0, 0, 1), scale = ad::slice(b, 0, 1, 2) + 1.0;
      const ad::Var c = ad::cos(theta) * scale, s = ad::sin(theta) * scale;
      // Row (x, y) times [[c, s], [-s, c]] is (c x - s y, s x + c y).
      const ad::Var r = ad::reshape(ad::concat({c, s, -s, c}, 0), {2, 2});
      return ad::matmul(ad::constant(p_), r) + ad::constant(m_);
    }
    void check(const Tensor& Xr) const override {
      design::check_cell_volumes(flow_.distributed_mesh(), Xr);
    }
    int n_constraints() const override { return 1; }
    void constraints(const ad::Var& a, std::vector<double>& g,
                     std::vector<std::vector<double>>& dg) const override {
      g.push_back(-a.value().to_vector()[1]);
      dg.push_back({0.0, -1.0});
    }

   private:
    solvers::euler::SteadyFlow& flow_;
    MPI_Comm comm_;
    Tensor m_, p_;
  };
};

// A lift target that means the baseline's CL (ShapeDesignSettings::lift_target).
inline constexpr double baseline_lift = std::numeric_limits<double>::quiet_NaN();

// The small section's flow (M 0.5, alpha 1 deg, first order, solved to
// 1e-12 so that central differences of 1e-4 see no solver noise), the
// objective CD, rigid motions within +-0.01; the lift held as given and
// CM >= cm_min.
inline solvers::aero::ShapeDesignSettings rigid_section_settings(
    solvers::aero::LiftConstraint lift = solvers::aero::LiftConstraint::none,
    double lift_target = baseline_lift,
    double cm_min = -std::numeric_limits<double>::infinity()) {
  solvers::aero::ShapeDesignSettings s;
  s.flow = small_section_settings(1).flow;
  s.flow.steady.rel_tolerance = 1e-12;
  s.flow.steady.linear_rel_tolerance = 1e-10;
  s.bound = 0.01;
  s.lift = lift;
  s.lift_target = lift_target;
  s.cm_min = cm_min;
  return s;
}

// The values of an evaluation, objective first, then the inequalities and
// the equalities; gradients() their gradients in the same order.
inline std::vector<double> values(const opt::Evaluation& e) {
  std::vector<double> v{e.objective};
  v.insert(v.end(), e.inequality.begin(), e.inequality.end());
  v.insert(v.end(), e.equality.begin(), e.equality.end());
  return v;
}

inline std::vector<std::vector<double>> gradients(const opt::Evaluation& e) {
  std::vector<std::vector<double>> g{e.objective_gradient};
  g.insert(g.end(), e.inequality_gradients.begin(), e.inequality_gradients.end());
  g.insert(g.end(), e.equality_gradients.begin(), e.equality_gradients.end());
  return g;
}

// Derivative test: every gradient of e = evaluate(x) against central
// differences of evaluate() itself (central_partials), in variable k with
// step h[k], each to rel_tol of its function's largest gradient component
// (an exactly flat function: to rel_tol). Returns the largest relative disagreement.
inline double check_central_differences(const std::function<opt::Evaluation(const std::vector<double>&)>& evaluate,
                                        const std::vector<double>& x, const opt::Evaluation& e,
                                        const std::vector<double>& h, double rel_tol,
                                        const std::string& what) {
  const std::vector<std::vector<double>> g = gradients(e);
  const std::vector<std::vector<double>> fd =
      central_partials([&](const std::vector<double>& y) { return values(evaluate(y)); }, x, h);
  double worst = 0.0;
  for (size_t k = 0; k < x.size(); ++k) {
    EXPECT_EQ(fd[k].size(), g.size());
    for (size_t j = 0; j < g.size() && j < fd[k].size(); ++j) {
      EXPECT_EQ(g[j].size(), x.size()) << what << " function " << j;
      double largest = 0.0;
      for (double v : g[j]) largest = std::max(largest, std::abs(v));
      if (largest == 0.0) largest = 1.0;
      worst = std::max(worst, std::abs(g[j][k] - fd[k][j]) / largest);
      EXPECT_NEAR(g[j][k], fd[k][j], rel_tol * largest) << what << ": function " << j << ", variable " << k;
    }
  }
  return worst;
}

}  // namespace camber::test
