// bench_euler_device: the Euler solver's kernels and a whole steady solve
// on the device path (SteadyOptions::linear_solver kokkos: no PETSc), on
// whatever Kokkos' default execution space is (Serial, OpenMP threads, a
// GPU). Needs neither PETSc nor Google Benchmark, so that a GPU machine's
// build runs it (scripts/gpu-check); here it measures the device path on
// threads.
//
//   bench_euler_device quickstart MESH.su2 [--solve] [--repeat N]
//   bench_euler_device onera_m6 MESH.su2 [--solve] [--repeat N] [--max-iterations N]
//
// quickstart: SU2's NACA 0012 (M 0.8, alpha 1.25, markers airfoil and
// farfield), solved to 10 orders; onera_m6: the flow and markers of
// examples/onera_m6/onera_m6.yaml (M 0.8395, alpha 3.06; max_update 0.5, as
// the deck), solved to 8 orders. Prints one line per figure, `name value
// unit`, on rank 0:
//
//   triad          a = b + s c over 3 arrays of 2^24 doubles (128 MiB
//                  each), best of 20: the bandwidth this process sustains
//   residual1      one first-order residual at the free stream (best of
//                  --repeat, default 20): cells/s and, under the byte model
//                  of bench_euler.cpp (per face two states, two cell ids,
//                  the normal, the kind and the flux; per owned cell its
//                  offsets, per incidence the face id, sign and flux, and
//                  the residual), bytes/s and its fraction of the triad's
//   face_blocks    the exact first-order face Jacobians (Dual), what the
//                  device path's preconditioning matrix is assembled from
//   residual2      one second-order residual (Venkatakrishnan-Wang limiter)
//   tangent2       R and (dR/dU) V at second order: one matrix-free Newton
//                  product
//   transpose2     (dR/dU)^T V at second order by the reverse sweep (one
//                  product of the adjoint's operator), and the sweep's
//                  linearization (linearize2: once per state)
//   solve          with --solve: the whole second-order solve from the
//                  free stream (seconds, Newton steps, Krylov iterations,
//                  CL, CD, converged)
//   adjoint        with --solve: the CD adjoint at the solution on the
//                  device path (seconds, GMRES iterations, converged), and
//                  dCD/dalpha from it against the tangent's (one forward
//                  solve): their relative difference, which the solves'
//                  tolerance bounds (~1e-8; above 1e-6, or an adjoint
//                  that did not converge, exits 1)
//   shape          with --solve: the node-coordinate part of that gradient
//                  by the reverse sweep (ShapeDerivative), and its
//                  dot-product test against one forward sweep along a
//                  node displacement (shape_vs_tangent, relative to the
//                  terms' magnitudes; above 1e-10 exits 1)
//
// Times are the best of the repetitions (each fenced); one rank unless
// launched by mpirun (the figures are then rank 0's clock, cells summed).
#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/euler/shape_derivative.hpp>
#include "benchmarks/common/onera_m6.hpp"
#include "solvers/euler/detail/discretization_kernels.hpp"
#include "solvers/euler/detail/residual_transpose.hpp"

namespace eu = camber::solvers::euler;
using camber::index_t;
using camber::Tensor;

namespace {

using Clock = std::chrono::steady_clock;

// The best time in seconds of `repeat` calls of f, each followed by a fence
// and a barrier.
template <typename F>
double best_of(int repeat, F&& f) {
  double best = 1e300;
  for (int i = 0; i < repeat; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = Clock::now();
    f();
    Kokkos::fence();
    MPI_Barrier(MPI_COMM_WORLD);
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

bool root() { return camber::comm_rank(MPI_COMM_WORLD) == 0; }

void say(const char* name, double value, const char* unit) {
  if (root()) std::printf("%-24s %.6g %s\n", name, value, unit);
}

int usage(const char* why) {
  if (root())
    std::fprintf(stderr,
                 "bench_euler_device: %s\nusage: bench_euler_device quickstart|onera_m6 MESH "
                 "[--solve] [--repeat N] [--max-iterations N]\n",
                 why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  if (argc < 3) return usage("a case and a mesh are needed");
  const std::string which = argv[1], path = argv[2];
  if (which != "quickstart" && which != "onera_m6") return usage(("unknown case '" + which + "'").c_str());
  bool solve = false;
  int repeat = 20, max_iterations = 200;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    const auto number = [&](int& out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > 100000) return false;
      out = static_cast<int>(v);
      return true;
    };
    if (a == "--solve")
      solve = true;
    else if (a == "--repeat") {
      if (!number(repeat)) return usage("--repeat needs a whole number from 1 to 100000");
    } else if (a == "--max-iterations") {
      if (!number(max_iterations)) return usage("--max-iterations needs a whole number from 1 to 100000");
    } else
      return usage(("unknown option '" + a + "'").c_str());
  }
  try {
    if (root())
      std::printf("backend                  %s, concurrency %d, %d ranks\n",
                  Kokkos::DefaultExecutionSpace::name(), Kokkos::DefaultExecutionSpace().concurrency(),
                  camber::comm_size(MPI_COMM_WORLD));
    double triad_bytes_per_s = 0.0;
    {
      const size_t n = size_t(1) << 24;
      Kokkos::View<double*> a("a", n), b("b", n), c("c", n);
      Kokkos::deep_copy(b, 1.0);
      Kokkos::deep_copy(c, 2.0);
      const double s = 3.0;
      const double t = best_of(20, [&] {
        Kokkos::parallel_for(
            "triad", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const size_t i) { a(i) = b(i) + s * c(i); });
      });
      // Every rank runs it at the same time: the sum is the machine's.
      triad_bytes_per_s =
          camber::par::allreduce_sum(3.0 * 8.0 * static_cast<double>(n) / t, MPI_COMM_WORLD);
      say("triad", triad_bytes_per_s / 1e9, "GB/s");
    }

    auto dm = std::make_unique<camber::mesh::DistributedMesh>(
        camber::mesh::DistributedMesh::read(path, MPI_COMM_WORLD));
    const bool m6 = which == "onera_m6";
    eu::FlowConditions flow;
    std::vector<eu::BoundaryCondition> conditions;
    if (m6) {
      flow = camber::bench::onera_m6_flow();
      conditions = camber::bench::onera_m6_conditions();
    } else {
      flow.mach = 0.8;
      flow.alpha_deg = 1.25;
      conditions = {{"airfoil", eu::BoundaryKind::slip_wall}, {"farfield", eu::BoundaryKind::far_field}};
    }
    const eu::Discretization first(*dm, flow, conditions);
    eu::SpatialOptions order2;
    order2.order = 2;
    order2.limiter = eu::LimiterKind::venkatakrishnan_wang;
    const eu::Discretization second(*dm, flow, conditions, eu::FluxScheme::roe, order2);

    const double cells = camber::par::allreduce_sum(static_cast<double>(first.n_owned()), MPI_COMM_WORLD);
    const double faces = camber::par::allreduce_sum(static_cast<double>(first.n_faces()), MPI_COMM_WORLD);
    const double boundary =
        camber::par::allreduce_sum(static_cast<double>(dm->local().n_boundary_faces()), MPI_COMM_WORLD);
    const double incidences = 2.0 * faces - boundary;
    const bool three_d = first.dim() == 3;
    const double bytes = three_d ? faces * (80 + 16 + 24 + 4 + 40) + cells * (16 + 40) + incidences * 56
                                 : faces * (64 + 16 + 16 + 4 + 32) + cells * (16 + 32) + incidences * 48;
    say("cells", cells, "");
    say("faces", faces, "(local, summed over ranks)");

    Tensor U = first.free_stream_field();
    const double t1 = best_of(repeat, [&] { Tensor R = first.residual(U); });
    say("residual1", t1 * 1e3, "ms");
    say("residual1_cells", cells / t1, "cells/s");
    say("residual1_bandwidth", bytes / t1 / 1e9, "GB/s (byte model)");
    say("residual1_of_triad", bytes / t1 / triad_bytes_per_s, "");
    const double tj = best_of(std::max(1, repeat / 4), [&] {
      Tensor J = eu::detail::DiscretizationKernels::face_jacobians(first, U);
    });
    say("face_blocks", tj * 1e3, "ms");
    say("face_blocks_cells", cells / tj, "cells/s");
    const double t2 = best_of(repeat, [&] { Tensor R = second.residual(U); });
    say("residual2", t2 * 1e3, "ms");
    say("residual2_cells", cells / t2, "cells/s");
    {
      Tensor V = first.free_stream_field(), R, dR;
      const double tt = best_of(repeat, [&] { second.residual_and_tangent(U, V, R, dR); });
      say("tangent2", tt * 1e3, "ms");
      say("tangent2_cells", cells / tt, "cells/s");
    }
    {
      eu::detail::ResidualTranspose transpose(second);
      const double tl = best_of(repeat, [&] { transpose.linearize(U); });
      say("linearize2", tl * 1e3, "ms");
      Tensor V = first.free_stream_field(), Y;
      const double tt = best_of(repeat, [&] { transpose.apply(V, Y); });
      say("transpose2", tt * 1e3, "ms");
      say("transpose2_cells", cells / tt, "cells/s");
    }
    if (solve) {
      eu::SteadyOptions o;
      o.linear_solver = eu::SteadyOptions::LinearSolver::kokkos;
      o.max_iterations = max_iterations;
      o.rel_tolerance = m6 ? 1e-8 : 1e-10;
      if (m6) o.max_update = 0.5;
      Tensor W = second.free_stream_field();
      const auto t0 = Clock::now();
      const eu::SteadyResult r = eu::solve_steady(second, W, o);
      const double ts = std::chrono::duration<double>(Clock::now() - t0).count();
      say("solve", ts, "s");
      say("solve_steps", r.iterations, "Newton steps");
      say("solve_krylov", r.linear_iterations, "Krylov iterations");
      say("solve_converged", r.converged ? 1 : 0, "");
      if (root()) std::printf("solve_forces             CL %.10f CD %.10f\n", r.forces.cl, r.forces.cd);
      eu::AdjointOptions ao;
      ao.linear_solver = eu::SteadyOptions::LinearSolver::kokkos;
      eu::Adjoint adjoint(second, ao);
      const auto ta = Clock::now();
      const eu::AdjointSolution a = adjoint.solve(W, eu::ForceCoefficient::cd);
      say("adjoint", std::chrono::duration<double>(Clock::now() - ta).count(), "s");
      say("adjoint_krylov", a.iterations, "GMRES iterations");
      say("adjoint_converged", a.converged ? 1 : 0, "");
      const double by_adjoint = adjoint.alpha_derivative(W, a);
      int tangent_iterations = 0;
      const double by_tangent =
          adjoint.alpha_derivative_tangent(W, eu::ForceCoefficient::cd, &tangent_iterations);
      if (root())
        std::printf("adjoint_dcd_dalpha       %.12e per degree (tangent %.12e, %d GMRES iterations)\n",
                    by_adjoint, by_tangent, tangent_iterations);
      const double gap = std::abs(by_adjoint - by_tangent) / std::abs(by_tangent);
      say("adjoint_vs_tangent", gap, "relative");
      // Both solves stop at 1e-10 of their right-hand sides: a gap above
      // 1e-6 (or no convergence) is a wrong transpose on this device.
      if (!a.converged || !(gap <= 1e-6)) {
        if (root())
          std::fprintf(stderr, "bench_euler_device: the adjoint %s\n",
                       a.converged ? "disagrees with the tangent" : "did not converge");
        return 1;
      }
      // The CD gradient's node-coordinate part by the reverse sweep
      // (ShapeDerivative's default), and its dot-product test against one
      // forward sweep along a node displacement V (hashed by global node
      // id): <xbar, V> = w . (dG/dX) V - psi^T (dR/dX) V to round-off.
      eu::ShapeDerivative shape(second);
      Tensor share;
      const double tx = best_of(std::min(repeat, 3), [&] {
        share = shape.rank_derivative(W, a.psi, a.weights);
      });
      say("shape", tx * 1e3, "ms");
      const int dim = second.dim();
      const auto& gid = second.mesh().node_global_ids();
      std::vector<double> v(gid.size() * static_cast<size_t>(dim));
      for (size_t n = 0; n < gid.size(); ++n)
        for (int d = 0; d < dim; ++d) {
          const std::uint64_t h = (static_cast<std::uint64_t>(gid[n]) * 3 + d + 1) * 0x9E3779B97F4A7C15ull;
          v[n * dim + d] = static_cast<double>((h >> 11) % 2001) / 1000.0 - 1.0;
        }
      const Tensor V = Tensor::from_host({static_cast<index_t>(gid.size()), static_cast<index_t>(dim)}, v);
      std::array<double, 3> dG{};
      const Tensor dRV = shape.rank_directional(W, V, dG);
      const std::vector<double> xs = share.to_vector(), ps = a.psi.to_vector(), rs = dRV.to_vector();
      double reverse = 0.0, scale = 0.0, psi_r = 0.0;
      for (size_t i = 0; i < xs.size(); ++i) {
        reverse += xs[i] * v[i];
        scale += std::abs(xs[i] * v[i]);
      }
      for (index_t i = 0; i < second.n_owned() * second.n_vars(); ++i)
        psi_r += ps[static_cast<size_t>(i)] * rs[static_cast<size_t>(i)];
      reverse = camber::par::allreduce_sum(reverse, MPI_COMM_WORLD);
      scale = camber::par::allreduce_sum(scale, MPI_COMM_WORLD);
      const double forward = a.weights[0] * dG[0] + a.weights[1] * dG[1] + a.weights[2] * dG[2] -
                             camber::par::allreduce_sum(psi_r, MPI_COMM_WORLD);
      const double shape_gap = std::abs(reverse - forward) / scale;
      say("shape_vs_tangent", shape_gap, "of the terms' magnitudes");
      if (!(shape_gap <= 1e-10)) {
        if (root())
          std::fprintf(stderr, "bench_euler_device: the reverse shape derivative disagrees with "
                               "the forward sweep\n");
        return 1;
      }
    }
  } catch (const camber::Error& e) {
    if (root()) std::fprintf(stderr, "bench_euler_device: %s\n", e.message().c_str());
    return e.exit_code();
  }
  return 0;
}
