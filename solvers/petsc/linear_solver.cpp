#include <camber/solvers/petsc/linear_solver.hpp>

#include <cstdio>

#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/core/error.hpp>
#include <camber/core/log.hpp>
#include <camber/core/progress.hpp>

namespace camber::solvers::petsc {

namespace {

void validate(const LinearSolverOptions& o) {
  CAMBER_INPUT_REQUIRE(!o.method.empty(), "linear solver method is empty; use a PETSc "
                                          "KSP type such as cg or gmres");
  CAMBER_INPUT_REQUIRE(!o.preconditioner.empty(),
                       "linear solver preconditioner is empty; use a PETSc PC "
                       "type such as hypre, gamg or none");
  CAMBER_INPUT_REQUIRE(o.rel_tolerance > 0.0 && o.rel_tolerance < 1.0,
                       "linear solver rel_tolerance must be in (0, 1), got "
                           << o.rel_tolerance);
  CAMBER_INPUT_REQUIRE(o.abs_tolerance >= 0.0,
                       "linear solver abs_tolerance must be >= 0, got " << o.abs_tolerance);
  CAMBER_INPUT_REQUIRE(o.max_iterations > 0, "linear solver max_iterations must be > 0, got "
                                                 << o.max_iterations);
}

// PETSc reports an unknown type name as a failure; for the user it is a
// mistake in the input, so we re-raise it as bad input naming the option.
template <typename SetType>
void set_type(SetType&& set, const char* what, const std::string& name,
              const char* examples) {
  try {
    set();
  } catch (const Error& e) {
    throw_bad_input(CAMBER_MSG("linear solver " << what << " '" << name
                                                << "' is not available in this PETSc ("
                                                << examples << "): " << e.message()));
  }
}

// Reports each Krylov iteration on the progress line (redrawn in place on a
// terminal, a plain line every few seconds otherwise).
PetscErrorCode progress_monitor(KSP, PetscInt iteration, PetscReal residual, void* context) {
  auto* progress = static_cast<Progress*>(context);
  char status[64];
  std::snprintf(status, sizeof status, "residual %.3e", static_cast<double>(residual));
  progress->update(static_cast<long>(iteration), status);
  return 0;
}

}  // namespace

LinearSolveReport solve_linear(Mat A, Vec b, Vec x, const LinearSolverOptions& options,
                               const std::string& options_prefix) {
  validate(options);
  MPI_Comm comm = MPI_COMM_NULL;
  CAMBER_CHECK_PETSC(PetscObjectGetComm(reinterpret_cast<PetscObject>(A), &comm));

  KspHandle ksp;
  CAMBER_CHECK_PETSC(KSPCreate(comm, ksp.out()));
  CAMBER_CHECK_PETSC(KSPSetOperators(ksp.get(), A, A));
  set_type([&] { CAMBER_CHECK_PETSC(KSPSetType(ksp.get(), options.method.c_str())); },
           "method", options.method, "e.g. cg, gmres, bcgs, minres, preonly");
  PC pc = nullptr;
  CAMBER_CHECK_PETSC(KSPGetPC(ksp.get(), &pc));
  set_type([&] { CAMBER_CHECK_PETSC(PCSetType(pc, options.preconditioner.c_str())); },
           "preconditioner", options.preconditioner,
           "e.g. hypre, gamg, bjacobi, ilu, lu, none");
  CAMBER_CHECK_PETSC(KSPSetTolerances(ksp.get(), options.rel_tolerance,
                                      options.abs_tolerance, PETSC_DEFAULT,
                                      static_cast<PetscInt>(options.max_iterations)));
  if (!options_prefix.empty())
    CAMBER_CHECK_PETSC(KSPSetOptionsPrefix(ksp.get(), options_prefix.c_str()));
  CAMBER_CHECK_PETSC(KSPSetFromOptions(ksp.get()));
  Progress progress(options_prefix.empty() ? "ksp" : options_prefix + "ksp", 0);
  CAMBER_CHECK_PETSC(KSPMonitorSet(ksp.get(), progress_monitor, &progress, nullptr));
  CAMBER_CHECK_PETSC(KSPSolve(ksp.get(), b, x));
  progress.finish();

  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;
  PetscInt iterations = 0;
  CAMBER_CHECK_PETSC(KSPGetConvergedReason(ksp.get(), &reason));
  CAMBER_CHECK_PETSC(KSPGetIterationNumber(ksp.get(), &iterations));

  // True residual r = b - A x, independent of the method's own norm.
  VecHandle r;
  CAMBER_CHECK_PETSC(VecDuplicate(b, r.out()));
  CAMBER_CHECK_PETSC(MatMult(A, x, r.get()));
  CAMBER_CHECK_PETSC(VecAYPX(r.get(), -1.0, b));
  PetscReal residual = 0.0;
  CAMBER_CHECK_PETSC(VecNorm(r.get(), NORM_2, &residual));

  LinearSolveReport report;
  report.iterations = static_cast<int>(iterations);
  report.residual_norm = static_cast<double>(residual);
  report.reason = KSPConvergedReasons[reason];
  // The types in effect, which command-line options may have changed.
  KSPType ksp_type = nullptr;
  PCType pc_type = nullptr;
  CAMBER_CHECK_PETSC(KSPGetType(ksp.get(), &ksp_type));
  CAMBER_CHECK_PETSC(PCGetType(pc, &pc_type));
  CAMBER_REQUIRE(reason > 0, "linear solve (" << ksp_type << " + " << pc_type
                                 << ", options prefix '"
                                 << options_prefix << "') did not converge: "
                                 << report.reason << " after " << report.iterations
                                 << " iterations, residual ||b - A x|| = "
                                 << report.residual_norm
                                 << "; try another preconditioner or more iterations");
  logging::debug(CAMBER_MSG("linear solve (" << options_prefix << "): " << report.reason
                                         << " in " << report.iterations
                                         << " iterations, ||b - A x|| = "
                                         << report.residual_norm));
  return report;
}

}  // namespace camber::solvers::petsc
