// Euler solver benchmarks on SU2's QuickStart NACA 0012 mesh (10,216
// triangles; read from ../shared/data, never copied), M = 0.8, alpha = 1.25
// deg, Roe flux, one rank:
//
//   BM_stream_triad     a = b + s c on 3 x 32 MiB arrays: the machine's
//                       sustainable bandwidth in this process (bytes/s)
//   BM_residual         one residual evaluation R(U) at the converged state
//                       (cells/s, and bytes/s under the byte model below)
//   BM_face_jacobians   the exact Dual face blocks of the Jacobian
//   BM_residual_order2  one second-order residual (Venkatakrishnan-Wang
//                       limiter, the deck's defaults) at the same state
//   BM_tangent_order2   R and (dR/dU) V at second order: the matrix-free
//                       Newton operator's cost per Krylov iteration
//   BM_jacobian_order2/0, /1  the exact second-order Jacobian assembled
//                       into PETSc's matrix by the stencil chain rule (0)
//                       and by column colouring (1)
//   BM_steady_solve     the whole solve from the free stream to a 10-order
//                       drop of the density residual
//   BM_residual_3d      one first-order residual on a 3-D mesh: SU2's
//                       cylinder case (CGNS, 27,591 tetrahedra), M = 0.3,
//                       at the state after 8 Newton steps from the free
//                       stream (cells/s, bytes/s under the 3-D byte model)
//   BM_face_jacobians_3d  the exact Dual face blocks there (5 x 10 each)
//
// Byte model of one residual evaluation (first order): per face, read two
// states (2 x 32 B), two cell ids (16 B), the normal (16 B), the kind (4 B)
// and write the flux (32 B); per owned cell, read its CSR offsets (16 B) and,
// per incident face, the face id, the sign and the flux (8 + 8 + 32 B), and
// write the residual (32 B); plus the halo-exchange copy of U (0 on one
// rank). In 3-D a state, a flux and a residual row are 40 B and a normal
// 24 B. The residual's bandwidth is that byte count over its time;
// benchmarks/run-euler.sh divides it by the triad's to give the fraction of
// STREAM the residual reaches.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/euler/exact_jacobian.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include "solvers/euler/detail/discretization_kernels.hpp"

namespace eu = camber::solvers::euler;
using camber::index_t;
using camber::Tensor;

namespace {

struct Case {
  // Heap-held: the Discretization keeps a pointer to the mesh.
  std::unique_ptr<camber::mesh::DistributedMesh> dm;
  std::unique_ptr<eu::Discretization> disc;
  std::unique_ptr<eu::Discretization> second;  // order 2, same mesh and flow
  Tensor converged;
  double residual_bytes = 0.0;
};

// The cases, built on first use and released before Kokkos is finalized.
std::unique_ptr<Case>& quickstart_case() {
  static std::unique_ptr<Case> c;
  return c;
}
std::unique_ptr<Case>& cylinder_case() {
  static std::unique_ptr<Case> c;
  return c;
}

Case& quickstart() {
  if (!quickstart_case()) quickstart_case() = std::make_unique<Case>([] {
    Case k;
    const std::string path =
        std::string(CAMBER_SHARED_MESH_DIR) + "/naca0012_inviscid_su2_quickstart.su2";
    if (!std::ifstream(path).good()) {
      std::fprintf(stderr, "bench_euler: %s not found\n", path.c_str());
      std::exit(2);
    }
    k.dm = std::make_unique<camber::mesh::DistributedMesh>(
        camber::mesh::DistributedMesh::read(path, MPI_COMM_WORLD));
    eu::FlowConditions flow;
    flow.mach = 0.8;
    flow.alpha_deg = 1.25;
    k.disc = std::make_unique<eu::Discretization>(
        *k.dm, flow,
        std::vector<eu::BoundaryCondition>{{"airfoil", eu::BoundaryKind::slip_wall},
                                           {"farfield", eu::BoundaryKind::far_field}});
    eu::SpatialOptions order2;
    order2.order = 2;
    order2.limiter = eu::LimiterKind::venkatakrishnan_wang;
    k.second = std::make_unique<eu::Discretization>(
        *k.dm, flow,
        std::vector<eu::BoundaryCondition>{{"airfoil", eu::BoundaryKind::slip_wall},
                                           {"farfield", eu::BoundaryKind::far_field}},
        eu::FluxScheme::roe, order2);
    k.converged = k.disc->free_stream_field();
    const eu::SteadyResult r = eu::solve_steady(*k.disc, k.converged, {});
    if (!r.converged) {
      std::fprintf(stderr, "bench_euler: the set-up solve did not converge\n");
      std::exit(1);
    }
    const double faces = static_cast<double>(k.disc->n_faces());
    const double cells = static_cast<double>(k.disc->n_owned());
    // Each interior face appears in two cells' lists, a boundary face in one.
    const double incidences = 2.0 * faces - static_cast<double>(k.dm->local().n_boundary_faces());
    k.residual_bytes = faces * (64 + 16 + 16 + 4 + 32) + cells * (16 + 32) + incidences * 48;
    return k;
  }());
  return *quickstart_case();
}

// SU2's 3-D cylinder case (CGNS), first order.
Case& cylinder() {
  if (!cylinder_case()) cylinder_case() = std::make_unique<Case>([] {
    Case k;
    const std::string path =
        std::string(CAMBER_SHARED_MESH_DIR) + "/cylinder3d_su2_testcases.cgns";
    if (!std::ifstream(path).good()) {
      std::fprintf(stderr, "bench_euler: %s not found\n", path.c_str());
      std::exit(2);
    }
    k.dm = std::make_unique<camber::mesh::DistributedMesh>(
        camber::mesh::DistributedMesh::read(path, MPI_COMM_WORLD));
    eu::FlowConditions flow;
    flow.mach = 0.3;
    k.disc = std::make_unique<eu::Discretization>(
        *k.dm, flow,
        std::vector<eu::BoundaryCondition>{{"CYLINDER_UP", eu::BoundaryKind::slip_wall},
                                           {"CYLINDER_DOWN", eu::BoundaryKind::slip_wall},
                                           {"WALL", eu::BoundaryKind::symmetry},
                                           {"SIDE", eu::BoundaryKind::symmetry},
                                           {"IN", eu::BoundaryKind::far_field},
                                           {"OUT", eu::BoundaryKind::far_field}});
    k.converged = k.disc->free_stream_field();
    eu::SteadyOptions few;
    few.max_iterations = 8;
    (void)eu::solve_steady(*k.disc, k.converged, few);
    const double faces = static_cast<double>(k.disc->n_faces());
    const double cells = static_cast<double>(k.disc->n_owned());
    const double incidences = 2.0 * faces - static_cast<double>(k.dm->local().n_boundary_faces());
    k.residual_bytes = faces * (80 + 16 + 24 + 4 + 40) + cells * (16 + 40) + incidences * 56;
    return k;
  }());
  return *cylinder_case();
}

void BM_stream_triad(benchmark::State& state) {
  const size_t n = size_t(1) << 22;  // 32 MiB per array
  Kokkos::View<double*> a("a", n), b("b", n), c("c", n);
  Kokkos::deep_copy(b, 1.0);
  Kokkos::deep_copy(c, 2.0);
  const double s = 3.0;
  for (auto _ : state) {
    Kokkos::parallel_for(
        "triad", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const size_t i) { a(i) = b(i) + s * c(i); });
    Kokkos::fence();
    benchmark::DoNotOptimize(a.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 3 * 8 * static_cast<int64_t>(n));
}

// One residual evaluation of case k per iteration (cells/s, bytes/s).
void time_residual(benchmark::State& state, Case& k) {
  Tensor U = k.converged.clone();
  for (auto _ : state) {
    Tensor R = k.disc->residual(U);
    benchmark::DoNotOptimize(R.data());
  }
  state.counters["cells/s"] = benchmark::Counter(
      static_cast<double>(k.disc->n_owned()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.SetBytesProcessed(static_cast<int64_t>(k.residual_bytes * static_cast<double>(state.iterations())));
}

// The first-order face blocks of case k per iteration.
void time_face_jacobians(benchmark::State& state, Case& k) {
  const Tensor U = k.converged.clone();
  for (auto _ : state) {
    Tensor J = eu::detail::DiscretizationKernels::face_jacobians(*k.disc, U);
    benchmark::DoNotOptimize(J.data());
  }
}

void BM_residual(benchmark::State& state) { time_residual(state, quickstart()); }

void BM_face_jacobians(benchmark::State& state) { time_face_jacobians(state, quickstart()); }

void BM_residual_order2(benchmark::State& state) {
  Case& k = quickstart();
  Tensor U = k.converged.clone();
  for (auto _ : state) {
    Tensor R = k.second->residual(U);
    benchmark::DoNotOptimize(R.data());
  }
  state.counters["cells/s"] = benchmark::Counter(
      static_cast<double>(k.second->n_owned()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void BM_tangent_order2(benchmark::State& state) {
  Case& k = quickstart();
  Tensor U = k.converged.clone();
  Tensor V = k.converged.clone();  // any direction: the cost does not depend on it
  Tensor R, dR;
  for (auto _ : state) {
    k.second->residual_and_tangent(U, V, R, dR);
    benchmark::DoNotOptimize(dR.data());
  }
  state.counters["cells/s"] = benchmark::Counter(
      static_cast<double>(k.second->n_owned()) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
}

void BM_jacobian_order2(benchmark::State& state) {
  Case& k = quickstart();
  Tensor U = k.converged.clone();
  eu::ExactJacobian jac(*k.second);
  for (auto _ : state) {
    if (state.range(0) == 0)
      jac.assemble(*k.second, U);
    else
      jac.assemble_by_colouring(*k.second, U);
  }
  state.counters["colours"] = jac.n_colors();
  state.counters["blocks"] = static_cast<double>(jac.n_blocks());
}

void BM_steady_solve(benchmark::State& state) {
  Case& k = quickstart();
  int steps = 0;
  for (auto _ : state) {
    Tensor U = k.disc->free_stream_field();
    const eu::SteadyResult r = eu::solve_steady(*k.disc, U, {});
    if (!r.converged) state.SkipWithError("not converged");
    steps = r.iterations;
  }
  state.counters["newton_steps"] = steps;
}

void BM_residual_3d(benchmark::State& state) { time_residual(state, cylinder()); }

void BM_face_jacobians_3d(benchmark::State& state) { time_face_jacobians(state, cylinder()); }

}  // namespace

BENCHMARK(BM_stream_triad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_residual)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_face_jacobians)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_residual_order2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_tangent_order2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_jacobian_order2)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_steady_solve)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_residual_3d)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_face_jacobians_3d)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  int rc = 0;
  {
    camber::solvers::petsc::PetscSession petsc;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    // Views go before Kokkos: the solvers first, then their meshes.
    for (std::unique_ptr<Case>* c : {&quickstart_case(), &cylinder_case()}) {
      if (!*c) continue;
      (*c)->second.reset();
      (*c)->disc.reset();
      c->reset();
    }
  }
  return rc;
}
