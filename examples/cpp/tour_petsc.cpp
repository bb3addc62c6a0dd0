// C++ API tour 4: a parallel linear solve with PETSc (component: solvers_petsc).
//
// Shows: solvers::petsc::PetscSession (PETSc started after MPI and Kokkos), RAII
// handles for Mat and Vec, CAMBER_CHECK_PETSC on every call, and
// solvers::petsc::solve_linear (conjugate gradients + BoomerAMG). The problem:
// -u'' = 2 on (0, 1), u(0) = u(1) = 0, by central differences on n interior
// points. Its exact solution u = x (1 - x) is quadratic, for which central
// differences are exact, so the discrete solution must equal it to the
// solver tolerance at every point.
//
//   mpirun -n 2 build-tour/tour_petsc
#include <petscksp.h>

#include <cmath>
#include <cstdio>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/petsc/linear_solver.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>

namespace solvers = camber::solvers;

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    solvers::petsc::PetscSession petsc;  // after Runtime; finalized before it
    const PetscInt n = 999;       // interior points, h = 1 / (n + 1)
    const double h = 1.0 / static_cast<double>(n + 1);

    solvers::petsc::MatHandle A;
    CAMBER_CHECK_PETSC(MatCreateAIJ(runtime.comm(), PETSC_DECIDE, PETSC_DECIDE, n, n, 3,
                                    nullptr, 1, nullptr, A.out()));
    PetscInt first = 0, last = 0;
    CAMBER_CHECK_PETSC(MatGetOwnershipRange(A.get(), &first, &last));
    for (PetscInt i = first; i < last; ++i) {  // this rank's rows of (1/h^2) tridiag(-1, 2, -1)
      const PetscInt cols[3] = {i - 1, i, i + 1};
      const PetscScalar vals[3] = {-1.0 / (h * h), 2.0 / (h * h), -1.0 / (h * h)};
      const int k0 = i == 0 ? 1 : 0, k1 = i == n - 1 ? 2 : 3;
      CAMBER_CHECK_PETSC(
          MatSetValues(A.get(), 1, &i, k1 - k0, cols + k0, vals + k0, INSERT_VALUES));
    }
    CAMBER_CHECK_PETSC(MatAssemblyBegin(A.get(), MAT_FINAL_ASSEMBLY));
    CAMBER_CHECK_PETSC(MatAssemblyEnd(A.get(), MAT_FINAL_ASSEMBLY));

    solvers::petsc::VecHandle u, b;
    CAMBER_CHECK_PETSC(MatCreateVecs(A.get(), u.out(), b.out()));
    CAMBER_CHECK_PETSC(VecSet(b.get(), 2.0));

    solvers::petsc::LinearSolverOptions options;  // cg + hypre BoomerAMG
    options.rel_tolerance = 1e-12;
    const solvers::petsc::LinearSolveReport report =
        solve_linear(A.get(), b.get(), u.get(), options, "tour_");

    // Largest error against x (1 - x) on this rank, then over all ranks.
    const PetscScalar* values = nullptr;
    CAMBER_CHECK_PETSC(VecGetArrayRead(u.get(), &values));
    double error = 0.0;
    for (PetscInt i = first; i < last; ++i) {
      const double x = static_cast<double>(i + 1) * h;
      error = std::max(error, std::abs(values[i - first] - x * (1.0 - x)));
    }
    CAMBER_CHECK_PETSC(VecRestoreArrayRead(u.get(), &values));
    double max_error = 0.0;
    CAMBER_CHECK_MPI(
        MPI_Allreduce(&error, &max_error, 1, MPI_DOUBLE, MPI_MAX, runtime.comm()));
    if (runtime.rank() == 0)
      std::printf("-u'' = 2 on %d points, %d ranks: %d CG iterations (%s), max error %.2e\n",
                  static_cast<int>(n), runtime.size(), report.iterations,
                  report.reason.c_str(), max_error);
    CAMBER_REQUIRE(max_error < 1e-8, "max error " << max_error << " against x (1 - x)");
    return 0;
  });
}
