// Transient heat by the method of lines on a distributed mesh, run at 1, 2
// and 4 ranks: the exact solution of the heat equation and its
// second-order convergence, the same result on every rank count as on one
// rank (COMM_SELF), bit for bit, the discrete operator's products against
// finite differences and each other, the adjoint gradient of the inverse
// problem's objective against finite differences, and the inverse problem
// recovering a conductivity field it did not see.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/shard/sharded_var.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/heat/conductivity_inverse.hpp>
#include <camber/solvers/heat/transient_heat.hpp>

#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"

namespace camber {
namespace {

using solvers::heat::HeatBoundary;

const double pi = 3.14159265358979323846;

solvers::heat::TransientHeatModel all_held_at(double t) {
  solvers::heat::TransientHeatModel model;
  for (const char* name : {"left", "right", "bottom", "top"}) model.boundary[name] = HeatBoundary::temperature(t);
  return model;
}

// A smooth conductivity with a bump, log k.
double bump(double x, double y) { return 0.7 * std::exp(-20.0 * ((x - 0.6) * (x - 0.6) + (y - 0.4) * (y - 0.4))); }

double sum_over_ranks(double v, MPI_Comm comm) { return par::allreduce_sum(v, comm); }

double dot(const std::vector<double>& a, const std::vector<double>& b, MPI_Comm comm) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return sum_over_ranks(s, comm);
}

// The whole owned field, ordered by global cell id, on every rank.
std::vector<double> gather(const mesh::DistributedMesh& dm, const std::vector<double>& owned) {
  std::vector<double> local(static_cast<size_t>(dm.n_local_cells()), 0.0);
  std::copy(owned.begin(), owned.end(), local.begin());
  return par::gather_owned(Tensor::from_host({dm.n_local_cells()}, local), dm.distribution()).to_vector();
}

// Max error against T = exp(-2 pi^2 k t) sin(pi x) sin(pi y) on the unit
// square held at 0 (k = rho_c = 1), at t = 0.05.
double decay_error(index_t n, MPI_Comm comm) {
  mesh::DistributedMesh dm(mesh::rectangle(n, n, 1.0, 1.0), comm);
  solvers::heat::TransientHeat heat(dm, all_held_at(0.0));
  heat.set_log_conductivity(std::vector<double>(static_cast<size_t>(heat.n_owned()), 0.0));
  solvers::ode::DistributedCvodesOptions o;
  o.rtol = 1e-9;
  o.atol = 1e-12;
  solvers::ode::DistributedCvodes cv(heat.system(), o);
  cv.reset(0.0, heat.at_centroids([](double x, double y) { return std::sin(pi * x) * std::sin(pi * y); }));
  const double t = 0.05;
  std::vector<double> T;
  cv.advance(t, T);
  const auto exact = heat.at_centroids(
      [t](double x, double y) { return std::exp(-2.0 * pi * pi * t) * std::sin(pi * x) * std::sin(pi * y); });
  double e = 0.0;
  for (size_t c = 0; c < T.size(); ++c) e = std::max(e, std::abs(T[c] - exact[c]));
  return par::allreduce_max(e, comm);
}

TEST(TransientHeat, ConvergesToTheExactDecayAtSecondOrder) {
  const double e16 = decay_error(16, test::world());
  const double e32 = decay_error(32, test::world());
  const double amplitude = std::exp(-2.0 * pi * pi * 0.05);
  const double order = std::log2(e16 / e32);
  test::say("heat decay: max error %.3e (16^2), %.3e (32^2), order %.3f, amplitude %.3f\n", e16, e32, order,
            amplitude);
  // The 5-point operator's decay rate is 2 pi^2 (1 - pi^2 h^2 / 12 + ...):
  // about 0.8% of the amplitude at h = 1/32, quartered per halving of h.
  EXPECT_LT(e32, 0.015 * amplitude);
  EXPECT_NEAR(order, 2.0, 0.15);
}

// A varying conductivity, a source and mixed boundaries: the distributed
// run equals the same problem on one rank.
std::vector<double> varied_run(MPI_Comm comm, solvers::ode::DistributedOdeStats* stats) {
  mesh::DistributedMesh dm(mesh::rectangle(24, 20, 1.2, 1.0), comm);
  solvers::heat::TransientHeatModel model;
  model.heat_capacity = 2.0;
  model.boundary["left"] = HeatBoundary::temperature(1.0);
  model.boundary["right"] = HeatBoundary::temperature(-0.5);
  model.boundary["bottom"] = HeatBoundary::insulated();
  model.boundary["top"] = HeatBoundary::insulated();
  model.source = [](double x, double y) { return 5.0 * std::exp(-30.0 * ((x - 0.3) * (x - 0.3) + (y - 0.7) * (y - 0.7))); };
  solvers::heat::TransientHeat heat(dm, model);
  heat.set_log_conductivity(heat.at_centroids(bump));
  solvers::ode::DistributedCvodesOptions o;
  o.rtol = 1e-8;
  o.atol = 1e-11;
  solvers::ode::DistributedCvodes cv(heat.system(), o);
  cv.reset(0.0, std::vector<double>(static_cast<size_t>(heat.n_owned()), 0.0));
  std::vector<double> T;
  cv.advance(0.2, T);
  if (stats != nullptr) *stats = cv.stats();
  return gather(dm, T);
}

TEST(TransientHeat, EveryRankCountGivesTheOneRankResult) {
  solvers::ode::DistributedOdeStats many, one;
  const std::vector<double> distributed = varied_run(test::world(), &many);
  const std::vector<double> serial = varied_run(MPI_COMM_SELF, &one);
  ASSERT_EQ(distributed.size(), serial.size());
  double diff = 0.0, scale = 0.0;
  for (size_t i = 0; i < serial.size(); ++i) {
    diff = std::max(diff, std::abs(distributed[i] - serial[i]));
    scale = std::max(scale, std::abs(serial[i]));
  }
  test::say("heat at %d ranks against 1: max difference %.3e of max |T| %.3f; steps %ld / %ld, GMRES %ld / %ld\n",
            test::size(), diff, scale, many.ode.steps, one.ode.steps, many.linear_iters, one.linear_iters);
  // Each cell sums its faces in an order fixed by global node ids, and the
  // integrator's reductions (WRMS norms, GMRES's inner products) are
  // summed in double-double and rounded once: no rounding depends on the
  // partition, so every step, every Krylov iteration and the result are
  // the same bits. (With SUNDIALS' plain reductions the step counts
  // differed between 1, 2 and 4 ranks and T by ~1e-9.)
  EXPECT_EQ(diff, 0.0);
  EXPECT_EQ(many.ode.steps, one.ode.steps);
  EXPECT_EQ(many.linear_iters, one.linear_iters);
}

TEST(TransientHeat, ProductsMatchFiniteDifferencesAndEachOther) {
  const MPI_Comm comm = test::world();
  mesh::DistributedMesh dm(mesh::rectangle(10, 8, 1.0, 0.8), comm);
  solvers::heat::TransientHeatModel model = all_held_at(0.3);
  model.boundary["top"] = HeatBoundary::insulated();
  model.source = [](double x, double y) { return 1.0 + x * y; };
  solvers::heat::TransientHeat heat(dm, model);
  const std::vector<double> m = heat.at_centroids(bump);
  heat.set_log_conductivity(m);
  const auto T = heat.at_centroids([](double x, double y) { return std::sin(3 * x) + y * y; });
  const auto v = heat.at_centroids([](double x, double y) { return std::cos(2 * x + y); });
  const auto w = heat.at_centroids([](double x, double y) { return x - 2 * y * y + 0.5; });
  const auto dm_dir = heat.at_centroids([](double x, double y) { return std::sin(5 * x * y) + 0.2; });
  const size_t n = T.size();
  std::vector<double> jv(n), jtw(n), mtw(n), diag(n);
  heat.jvp(T.data(), v.data(), jv.data());
  heat.vjp_T(T.data(), w.data(), jtw.data());
  heat.vjp_m(T.data(), w.data(), mtw.data());
  heat.jacobian_diagonal(T.data(), diag.data());

  // J v against a central difference (f is linear in T: exact but for round-off).
  const double eps = 1e-3;
  const std::vector<double> jv_fd = test::directional_difference(
      [&](const std::vector<double>& Tt) {
        std::vector<double> f(n);
        heat.rhs(Tt.data(), f.data());
        return f;
      },
      T, v, eps);
  double err = 0.0, big = 0.0;
  for (size_t i = 0; i < n; ++i) {
    err = std::max(err, std::abs(jv_fd[i] - jv[i]));
    big = std::max(big, std::abs(jv[i]));
  }
  err = par::allreduce_max(err, comm);
  big = par::allreduce_max(big, comm);
  EXPECT_LT(err, 1e-9 * big) << "J v";

  // Dot-product test: <J v, w> = <v, J^T w>.
  const double a = dot(jv, w, comm), b = dot(v, jtw, comm);
  EXPECT_NEAR(a, b, 1e-12 * std::abs(a));

  // (df/dm)^T w against the central difference of <f(m), w> along dm_dir.
  const double h = 1e-5;
  const double fd = test::directional_difference(
      [&](const std::vector<double>& mt) {
        std::vector<double> f(n);
        heat.set_log_conductivity(mt);
        heat.rhs(T.data(), f.data());
        return dot(f, w, comm);
      },
      m, dm_dir, h);
  heat.set_log_conductivity(m);
  const double ad = dot(mtw, dm_dir, comm);
  test::say("heat products: <Jv,w> %.15e <v,J^T w> %.15e; d<f,w>/dm: adjoint %.12e, FD %.12e\n", a, b, ad, fd);
  EXPECT_NEAR(ad, fd, 1e-7 * std::abs(ad));

  // The diagonal: J e_c for every cell (global ids in turn; one rank owns each).
  const auto& gid = dm.cell_global_ids();
  double derr = 0.0;
  std::vector<double> e(n), je(n);
  for (std::int64_t g = 0; g < dm.n_global_cells(); ++g) {
    for (size_t i = 0; i < n; ++i) e[i] = gid[i] == g ? 1.0 : 0.0;
    heat.jvp(T.data(), e.data(), je.data());
    for (size_t i = 0; i < n; ++i)
      if (gid[i] == g) derr = std::max(derr, std::abs(je[i] - diag[i]) / std::abs(diag[i]));
  }
  EXPECT_LT(par::allreduce_max(derr, comm), 1e-14);
}

// One scheme, not two: the same residual written with the engine's ops on
// sharded cell fields (shard::cell_field, whose communication op is the
// halo exchange) equals TransientHeat's kernel, and its reverse-mode
// gradient with respect to the conductivity field equals the kernel's
// (df/dm)^T w, at 1, 2 and 4 ranks.
TEST(TransientHeat, TheResidualOnShardedCellFieldsMatchesTheKernel) {
  const MPI_Comm comm = test::world();
  mesh::DistributedMesh dm(mesh::rectangle(12, 10, 1.2, 1.0), comm);
  solvers::heat::TransientHeatModel model = all_held_at(0.3);
  model.boundary["top"] = HeatBoundary::insulated();
  model.heat_capacity = 1.5;
  model.source = [](double x, double y) { return 2.0 + std::sin(3 * x) * y; };
  solvers::heat::TransientHeat heat(dm, model);
  const std::vector<double> m = heat.at_centroids(bump);
  const std::vector<double> T = heat.at_centroids([](double x, double y) { return std::cos(2 * x) + y * y; });
  const std::vector<double> w = heat.at_centroids([](double x, double y) { return 1.0 + x * y; });
  heat.set_log_conductivity(m);
  const size_t n = m.size();
  std::vector<double> f_kernel(n), g_kernel(n);
  heat.rhs(T.data(), f_kernel.data());
  heat.vjp_m(T.data(), w.data(), g_kernel.data());

  // Face data of the owned cells, from the mesh's geometry.
  const index_t n_local = dm.n_local_cells(), n_faces = dm.n_owned_faces();
  const mesh::Geometry geo = mesh::compute_geometry(dm.local());
  const auto host = [](const auto& v) { return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v); };
  const auto left = host(dm.local().face_left());
  const auto right = host(dm.local().face_right());
  const auto marker = host(dm.local().face_marker());
  const auto c = host(geo.cell_centroid);
  const auto nrm = host(geo.face_normal);
  const auto area = host(geo.face_area);
  const auto fc = host(geo.face_center);
  const auto vol = host(geo.cell_volume);
  std::vector<std::int64_t> li, ri;
  std::vector<double> interior, held, weight;
  for (index_t f = 0; f < n_faces; ++f) {
    const index_t l = left(f), r = right(f);
    const double ex = (r >= 0 ? c(r, 0) : fc(f, 0)) - c(l, 0), ey = (r >= 0 ? c(r, 1) : fc(f, 1)) - c(l, 1);
    weight.push_back(area(f) / ((ex * nrm(f, 0) + ey * nrm(f, 1)) / area(f)));
    li.push_back(l);
    ri.push_back(r >= 0 ? r : l);
    interior.push_back(r >= 0 ? 1.0 : 0.0);
    held.push_back(r < 0 && dm.local().markers()[static_cast<size_t>(marker(f))].name != "top" ? 1.0 : 0.0);
  }
  std::vector<double> inv_cap(static_cast<size_t>(n_local)), q(static_cast<size_t>(n_local));
  for (index_t i = 0; i < n_local; ++i) {
    inv_cap[static_cast<size_t>(i)] = 1.0 / (1.5 * vol(i));
    q[static_cast<size_t>(i)] = 2.0 + std::sin(3 * c(i, 0)) * c(i, 1);
  }
  const auto column = [](const std::vector<double>& v) { return ad::constant(Tensor::from_host({static_cast<index_t>(v.size())}, v)); };
  const auto local_block = [&](const std::vector<double>& owned) {
    std::vector<double> v(static_cast<size_t>(n_local), 0.0);
    std::copy(owned.begin(), owned.end(), v.begin());
    return Tensor::from_host({n_local}, v);
  };
  const Tensor L = Tensor::from_host_int64({n_faces}, li), Rr = Tensor::from_host_int64({n_faces}, ri);

  const shard::MeshPtr cells = shard::DeviceMesh::create(comm, {{"cells", test::size()}});
  const ad::Var mv = ad::variable(local_block(m));
  const shard::ShardedVar M = shard::with_ghosts(shard::cell_field(mv, cells, dm.distribution(), dm.halo()));
  const shard::ShardedVar Tf = shard::with_ghosts(shard::cell_field_like(ad::constant(local_block(T)), M));
  const ad::Var Tl = ad::index_select(Tf.local, 0, L), Tr = ad::index_select(Tf.local, 0, Rr);
  const ad::Var ml = ad::index_select(M.local, 0, L), mr = ad::index_select(M.local, 0, Rr);
  const ad::Var kf = ad::div(ad::scalar(2.0), ad::add(ad::exp(ad::neg(ml)), ad::exp(ad::neg(mr))));
  const ad::Var F = ad::add(ad::mul(column(interior), ad::mul(ad::mul(kf, column(weight)), ad::sub(Tl, Tr))),
                            ad::mul(column(held), ad::mul(ad::mul(ad::exp(ml), column(weight)), ad::add_scalar(Tl, -0.3))));
  const ad::Var zero = ad::constant(Tensor::zeros({n_local}));
  const ad::Var net = ad::sub(ad::scatter_add(zero, 0, L, F), ad::scatter_add(zero, 0, Rr, ad::mul(column(interior), F)));
  const shard::ShardedVar f = shard::cell_field_like(ad::sub(column(q), ad::mul(column(inv_cap), net)), M);

  const std::vector<double> f_cells = f.local.value().to_vector();
  double err = 0.0, big = 0.0;
  for (size_t i = 0; i < n; ++i) {
    err = std::max(err, std::abs(f_cells[i] - f_kernel[i]));
    big = std::max(big, std::abs(f_kernel[i]));
  }
  EXPECT_LT(par::allreduce_max(err, comm), 1e-12 * par::allreduce_max(big, comm));

  // <f, w> over the cells (owned rows, summed over ranks) and its gradient.
  const shard::ShardedVar W = shard::cell_field_like(ad::constant(local_block(w)), M);
  const ad::Var loss = shard::full(shard::sum(shard::mul(f, W)));
  const std::vector<double> g = ad::grad(loss, {mv})[0].value().to_vector();
  double gerr = 0.0, gbig = 0.0;
  for (size_t i = 0; i < n; ++i) {
    gerr = std::max(gerr, std::abs(g[i] - g_kernel[i]));
    gbig = std::max(gbig, std::abs(g_kernel[i]));
  }
  gerr = par::allreduce_max(gerr, comm);
  gbig = par::allreduce_max(gbig, comm);
  test::say("cell-field residual: max |f - kernel| %.2e, gradient %.2e of %.3e\n", par::allreduce_max(err, comm), gerr, gbig);
  EXPECT_LT(gerr, 1e-12 * gbig);
  // The whole field gathered from the cells equals the kernel's, row by global id.
  const std::vector<double> whole = shard::full(f).value().to_vector();
  const std::vector<double> expect = gather(dm, f_kernel);
  double werr = 0.0;
  for (size_t i = 0; i < whole.size(); ++i) werr = std::max(werr, std::abs(whole[i] - expect[i]));
  EXPECT_LT(werr, 1e-12 * par::allreduce_max(big, comm));
}

// A wrong initial state on one rank is an error on every rank (agreed
// before any collective call), not a hang.
TEST(TransientHeat, BadInputOnOneRankIsAnErrorOnEveryRank) {
  mesh::DistributedMesh dm(mesh::rectangle(6, 6, 1.0, 1.0), test::world());
  solvers::heat::TransientHeat heat(dm, all_held_at(0.0));
  heat.set_log_conductivity(std::vector<double>(static_cast<size_t>(heat.n_owned()), 0.0));
  solvers::ode::DistributedCvodes cv(heat.system(), {});
  std::vector<double> y0(static_cast<size_t>(heat.n_owned()), 0.0);
  if (test::rank() == test::size() - 1) y0.push_back(1.0);
  EXPECT_THROW(cv.reset(0.0, y0), Error);
  std::vector<double> m(static_cast<size_t>(heat.n_owned()), 0.0);
  if (test::rank() == 0) m[0] = std::nan("");
  EXPECT_THROW(heat.set_log_conductivity(m), Error);
}

solvers::heat::ConductivityInverseProblem small_inverse() {
  solvers::heat::ConductivityInverseProblem p;
  p.model = all_held_at(0.0);
  p.model.source = [](double x, double y) { return 20.0 * std::exp(-10.0 * ((x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5))); };
  for (double x : {0.2, 0.4, 0.6, 0.8})
    for (double y : {0.2, 0.4, 0.6, 0.8}) p.sensors.push_back({x, y});
  p.times = {0.02, 0.05, 0.1, 0.2};
  p.true_log_conductivity = bump;
  // Misfit terms are scaled by 1/sigma^2 (1e6 at 1 mK): a weight of this
  // size brings the fitted misfit near the noise level (n_data / 2).
  p.regularization = 100.0;
  return p;
}

solvers::heat::ConductivityInverseProblem gradient_problem() {
  solvers::heat::ConductivityInverseProblem p = small_inverse();
  p.noise_std = 0.01;
  p.ode.rtol = 1e-10;
  p.ode.atol = 1e-13;
  p.adjoint.rtol = 1e-10;
  p.adjoint.atol = 1e-13;
  p.adjoint.quad_rtol = 1e-10;
  p.adjoint.quad_atol = 1e-13;
  p.adjoint.checkpoint_steps = 20;  // several checkpoints
  return p;
}

// Data from the bump, perturbed, and an objective at a different field
// (so the misfit is large).
struct GradientCase {
  mesh::DistributedMesh dm;
  solvers::heat::ConductivityInverseProblem p = gradient_problem();
  solvers::heat::TransientHeat heat;
  solvers::heat::ConductivityObjective objective;
  std::vector<double> m, dir;
  static std::vector<double> data(solvers::heat::TransientHeat& heat, const solvers::heat::ConductivityInverseProblem& p) {
    solvers::heat::ConductivityObjective clean(heat, p, {});
    std::vector<double> d = clean.simulate(heat.at_centroids(bump));
    for (size_t i = 0; i < d.size(); ++i) d[i] += 0.01 * std::sin(static_cast<double>(i));
    return d;
  }
  explicit GradientCase(MPI_Comm comm)
      : dm(mesh::rectangle(12, 12, 1.0, 1.0), comm), heat(dm, p.model), objective(heat, p, data(heat, p)) {
    m = heat.at_centroids([](double x, double y) { return 0.3 * x - 0.2 * y; });
    dir = heat.at_centroids([](double x, double y) { return std::cos(4 * x) * std::sin(3 * y + 0.5); });
  }
};

TEST(ConductivityInverse, AdjointGradientMatchesFiniteDifferences) {
  const MPI_Comm comm = test::world();
  GradientCase g(comm);
  auto& objective = g.objective;
  const auto& m = g.m;
  const auto& dir = g.dir;
  const solvers::heat::ConductivityObjective::Value v = objective.evaluate(m);
  const double ad = dot(v.gradient, dir, comm);
  // Central differences at two steps: their error against the adjoint
  // must fall as h^2 (a factor (10/3)^2 = 11), which a wrong gradient's
  // would not.
  const auto central = [&](double h) {
    return test::directional_difference(
        [&](const std::vector<double>& mt) { return objective.evaluate(mt).total(); }, m, dir, h);
  };
  const double fd_coarse = central(1e-3), fd = central(3e-4);
  test::say("inverse gradient: J %.6e (misfit %.6e, regularization %.3e), adjoint %.10e, FD %.10e (h 1e-3), "
            "%.10e (h 3e-4), %d checkpoints, forward %ld steps, backward %ld\n",
            v.total(), v.misfit, v.regularization, ad, fd_coarse, fd, v.checkpoints, v.forward.ode.steps,
            v.backward.ode.steps);
  EXPECT_GT(v.checkpoints, 2);
  EXPECT_GT(v.regularization, 0.0);
  EXPECT_NEAR(ad, fd, 5e-7 * std::abs(ad));
  EXPECT_LT(std::abs(fd - ad), 0.2 * std::abs(fd_coarse - ad));

  // The same gradient, bit for bit, as one rank's.
  GradientCase serial(MPI_COMM_SELF);
  const std::vector<double> one = gather(serial.dm, serial.objective.evaluate(serial.m).gradient);
  const std::vector<double> all = gather(g.dm, v.gradient);
  EXPECT_EQ(all, one);
}

// A sensor equidistant from four centroids reads the same cell at every
// rank count (the smallest global id), on exactly one rank.
TEST(ConductivityInverse, SensorTiesAreBrokenTheSameOnEveryPartition) {
  const auto chosen = [](MPI_Comm comm) {
    mesh::DistributedMesh dm(mesh::rectangle(4, 4, 1.0, 1.0), comm);
    solvers::heat::TransientHeat heat(dm, all_held_at(0.0));
    const solvers::heat::SensorCells cells = solvers::heat::locate_sensors(heat, {{0.5, 0.5}, {0.25, 0.25}, {0.9, 0.1}});
    std::vector<double> gid(3, 0.0), count(3, 0.0);
    for (size_t i = 0; i < cells.sensor.size(); ++i) {
      gid[static_cast<size_t>(cells.sensor[i])] = static_cast<double>(dm.cell_global_ids()[static_cast<size_t>(cells.cell[i])]);
      count[static_cast<size_t>(cells.sensor[i])] = 1.0;
    }
    for (size_t i = 0; i < 3; ++i) {
      gid[i] = par::allreduce_sum(gid[i], comm);
      count[i] = par::allreduce_sum(count[i], comm);
    }
    gid.insert(gid.end(), count.begin(), count.end());
    return gid;
  };
  const std::vector<double> all = chosen(test::world()), one = chosen(MPI_COMM_SELF);
  EXPECT_EQ(all, one);
  EXPECT_EQ(std::vector<double>(all.begin() + 3, all.end()), std::vector<double>(3, 1.0));
}

TEST(ConductivityInverse, RecoversTheFieldFromNoisySensors) {
  mesh::DistributedMesh dm(mesh::rectangle(12, 12, 1.0, 1.0), test::world());
  solvers::heat::ConductivityInverseProblem p = small_inverse();
  p.noise_std = 1e-3;
  p.optimizer.max_evaluations = 40;
  const solvers::heat::ConductivityInverseResult r = solvers::heat::run_conductivity_inverse(dm, p);
  test::say("inverse: %d data (rms %.3f K), misfit %.3e -> %.3e, k error %.4f -> %.4f in %d evaluations (%s)\n",
            r.n_data, r.data_rms, r.misfit_initial, r.misfit_final, r.error_initial, r.error_final,
            r.optimizer.n_evaluations, r.optimizer.message.c_str());
  // The misfit falls to the noise level (n_data / 2 for an unbiased fit)
  // within a factor of two, and the field error at least halves.
  EXPECT_LT(r.misfit_final, r.n_data);
  EXPECT_LT(r.error_final, 0.5 * r.error_initial);
}

}  // namespace
}  // namespace camber
