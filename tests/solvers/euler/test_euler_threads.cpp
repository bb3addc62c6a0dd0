// The flagship's answers do not depend on the number of threads: a
// second-order transonic solve (the design tests' 48 x 24 NACA 0012 O-grid,
// M 0.8, alpha 1.25 deg, smooth limiter live) from the free stream to ten
// orders, preconditioned by the threaded ILU (SteadyOptions::factorization
// threaded) with two blocks whatever the thread count, then the exact
// Jacobian at the converged state by the stencil
// assembly times a fixed vector, all written bit for bit (hexadecimal
// doubles) to the file CAMBER_THREADS_RECORD names: every Newton step's
// density residual, CFL number, Krylov iterations and forces, the converged
// state and the product; then the same solve on the device path
// (SteadyOptions::linear_solver kokkos), its steps and state.
//
// tests/solvers/euler/CMakeLists.txt runs this program on one rank with 1
// and with 2 OpenMP threads (a threaded Kokkos backend only) and compares
// the two records byte for byte: a race, an atomic scatter-add or a
// reduction whose order follows the threads shows up as a differing bit.
// The program itself checks that it runs on the thread count
// CAMBER_THREADS_EXPECTED says and that the solve converges.
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/solvers/euler/euler_test_utils.hpp"
#include "tests/solvers/petsc_environment.hpp"

namespace camber::solvers::euler {
namespace {

using namespace test_utils;

std::string bits(double v) {
  std::uint64_t u = 0;
  std::memcpy(&u, &v, sizeof u);
  char s[20];
  std::snprintf(s, sizeof s, "%016" PRIx64, u);
  return s;
}

TEST(EulerThreads, ASecondOrderSolveAndItsJacobianAreRecordedBitForBit) {
  const char* record = std::getenv("CAMBER_THREADS_RECORD");
  const char* expected = std::getenv("CAMBER_THREADS_EXPECTED");
  ASSERT_NE(record, nullptr) << "CAMBER_THREADS_RECORD names the record file";
  ASSERT_NE(expected, nullptr) << "CAMBER_THREADS_EXPECTED gives the thread count";
  ASSERT_EQ(Kokkos::DefaultExecutionSpace().concurrency(), std::atoi(expected))
      << "OMP_NUM_THREADS did not reach Kokkos";
  std::remove(record);

  mesh::DistributedMesh dm(naca_ogrid_48x24(), world());
  const Discretization disc(dm, transonic_flow(), airfoil_conditions, FluxScheme::roe,
                            smooth_limited_second_order());
  SteadyOptions options;
  options.max_iterations = 200;
  options.rel_tolerance = 1e-10;
  options.factorization = SteadyOptions::Factorization::threaded;
  options.ilu_blocks = 2;  // the blocks fixed: one thread runs both, two run one each
  Tensor U = disc.free_stream_field();
  const SteadyResult result = solve_steady(disc, U, options);
  ASSERT_TRUE(result.converged) << result.iterations << " steps";

  std::string out;
  for (const IterationReport& r : result.history)
    out += bits(r.residual_density) + ' ' + bits(r.cfl) + ' ' +
           std::to_string(r.linear_iterations) + ' ' + bits(r.forces.cl) + ' ' +
           bits(r.forces.cd) + '\n';
  for (const double v : U.to_vector()) out += bits(v) + '\n';

  // J x at the converged state, x a hashed field.
  ExactJacobian jac(disc);
  jac.assemble(disc, U);
  petsc::VecHandle x, y;
  CAMBER_CHECK_PETSC(MatCreateVecs(jac.matrix(), x.out(), y.out()));
  PetscInt first = 0, last = 0;
  CAMBER_CHECK_PETSC(VecGetOwnershipRange(x.get(), &first, &last));
  for (PetscInt i = first; i < last; ++i)
    CAMBER_CHECK_PETSC(VecSetValue(x.get(), i, hashed_uniform(17, i / nv, i % nv), INSERT_VALUES));
  CAMBER_CHECK_PETSC(VecAssemblyBegin(x.get()));
  CAMBER_CHECK_PETSC(VecAssemblyEnd(x.get()));
  CAMBER_CHECK_PETSC(MatMult(jac.matrix(), x.get(), y.get()));
  const PetscScalar* a = nullptr;
  CAMBER_CHECK_PETSC(VecGetArrayRead(y.get(), &a));
  for (PetscInt i = 0; i < last - first; ++i) out += bits(a[i]) + '\n';
  CAMBER_CHECK_PETSC(VecRestoreArrayRead(y.get(), &a));

  // The device path (linear_solver kokkos: camber's GMRES, its chunked
  // dot products, ILU(1) in ilu_blocks = 2 blocks, the first-order matrix
  // assembled one thread per row) on the same case: every reduction in an
  // order the threads do not choose.
  options.linear_solver = SteadyOptions::LinearSolver::kokkos;
  Tensor V = disc.free_stream_field();
  const SteadyResult device = solve_steady(disc, V, options);
  ASSERT_TRUE(device.converged) << device.iterations << " steps (kokkos)";
  for (const IterationReport& r : device.history)
    out += bits(r.residual_density) + ' ' + bits(r.cfl) + ' ' +
           std::to_string(r.linear_iterations) + ' ' + bits(r.forces.cl) + '\n';
  for (const double v : V.to_vector()) out += bits(v) + '\n';

  std::FILE* f = std::fopen(record, "w");
  ASSERT_NE(f, nullptr) << "cannot write " << record;
  ASSERT_EQ(std::fwrite(out.data(), 1, out.size(), f), out.size());
  ASSERT_EQ(std::fclose(f), 0);
  say("[euler] threads %s: %d Newton steps, CL %.10f; kokkos linear solver %d steps, %d Krylov "
      "iterations, CL %.10f; %zu bytes recorded\n",
      expected, result.iterations, result.forces.cl, device.iterations, device.linear_iterations,
      device.forces.cl, out.size());
}

}  // namespace
}  // namespace camber::solvers::euler
