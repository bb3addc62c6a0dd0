// The device path's Newton system (newton_linear_system.hpp): camber's own
// GMRES on Kokkos views (solvers/linear), no PETSc. The first-order matrix
// (a block per owned cell and face neighbour, plus the pseudo-time shift)
// is assembled in a solvers::linear::BlockSparseMatrix by one kernel, one
// thread per owned row adding its faces' blocks in face order (no atomics;
// the same bits on any thread count), and preconditions GMRES by ILU(1) in
// graph-partitioned blocks, one thread each (solvers::linear::
// PartitionedIlu; SteadyOptions::ilu_blocks per rank, 0: the default
// execution space's concurrency, in blocks of at least 16 rows). At second
// order the exact Newton operator is applied
// matrix-free (one Dual residual evaluation per product), as the PETSc
// path does on 3-D meshes; defect correction uses the first-order matrix
// as the operator.
#include "newton_linear_system.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/solvers/linear/block_sparse_matrix.hpp>
#include <camber/solvers/linear/gmres.hpp>
#include <camber/solvers/linear/partitioned_ilu.hpp>

#include "device_operators.hpp"
#include "discretization_kernels.hpp"

namespace camber::solvers::euler::detail {

namespace {

namespace lin = camber::solvers::linear;
using Range = Kokkos::RangePolicy<>;

class DeviceNewtonSystem final : public NewtonLinearSystem {
 public:
  DeviceNewtonSystem(const Discretization& disc, Tensor& U, const SteadyOptions& options);
  LinearStep solve(const Discretization& active, Tensor& U, const std::vector<double>& shift,
                   int step, int attempt, Tensor& minus_R, Tensor& dU) override;

 private:
  MPI_Comm comm_;
  DeviceFirstOrderMatrix A_;
  lin::PartitionedIlu ilu_;
  Kokkos::View<double*> shift_;
  std::unique_ptr<MatrixFreeNewton> matrix_free_;
  lin::GmresSolver gmres_;
  Tensor face_blocks_;
  int face_blocks_step_ = -1;
};

lin::GmresOptions gmres_options(const SteadyOptions& options, bool exact_operator) {
  lin::GmresOptions o;
  o.restart = krylov_restart(options, exact_operator);
  o.rel_tolerance = options.linear_rel_tolerance;
  o.abs_tolerance = 1e-50;
  o.max_iterations = options.linear_max_iterations;
  o.side = lin::PreconditionerSide::left;
  return o;
}

DeviceNewtonSystem::DeviceNewtonSystem(const Discretization& disc, Tensor& U,
                                       const SteadyOptions& options)
    : comm_(disc.mesh().comm()), A_(disc),
      ilu_(A_.matrix(),
           options.ilu_blocks > 0 ? options.ilu_blocks
                                  : lin::PartitionedIlu::default_blocks(disc.n_owned()),
           first_order_ilu_levels),
      shift_("camber::euler::ptc_shift", static_cast<size_t>(disc.n_owned())),
      gmres_(disc.n_owned() * disc.n_vars(),
             gmres_options(options, disc.spatial().order == 2 && !options.defect_correction)) {
  const bool exact_operator = disc.spatial().order == 2 && !options.defect_correction;
  if (exact_operator) matrix_free_ = std::make_unique<MatrixFreeNewton>(disc, U);
}

LinearStep DeviceNewtonSystem::solve(const Discretization& active, Tensor& U,
                                     const std::vector<double>& shift, int step, int /*attempt*/,
                                     Tensor& minus_R, Tensor& dU) {
  {
    const auto h = Kokkos::create_mirror_view(shift_);
    for (size_t c = 0; c < shift.size(); ++c) h(c) = shift[c];
    Kokkos::deep_copy(shift_, h);
  }
  if (face_blocks_step_ != step) {
    face_blocks_ = DiscretizationKernels::face_jacobians(active, U);
    face_blocks_step_ = step;
  }
  A_.assemble(face_blocks_, shift_, /*transpose=*/false);
  if (!ilu_.factor()) return {0, false};  // as PETSc's zero pivot: no step
  const index_t n = A_.matrix().local_size();
  const auto owned = std::make_pair(index_t{0}, n);
  const lin::ConstVector b = Kokkos::subview(minus_R.view(), owned);
  const lin::Vector x = Kokkos::subview(dU.view(), owned);
  lin::GmresResult r;
  if (matrix_free_) {
    matrix_free_->set(active, shift_);
    r = gmres_.solve(*matrix_free_, ilu_, b, x, comm_);
  } else {
    r = gmres_.solve(A_.matrix(), ilu_, b, x, comm_);
  }
  dU.mark_modified();
  return {r.iterations, r.converged()};
}

}  // namespace

void check_linear_solver(const Discretization& disc, const SteadyOptions& options) {
  CAMBER_INPUT_REQUIRE(CAMBER_WITH_PETSC || options.linear_solver == SteadyOptions::LinearSolver::kokkos,
                       "solver.linear_solver petsc: this build of Camber has no PETSc; use "
                       "solver.linear_solver kokkos");
  if (options.linear_solver != SteadyOptions::LinearSolver::kokkos || disc.spatial().order != 2 ||
      options.defect_correction)
    return;
  CAMBER_INPUT_REQUIRE(options.newton_operator != SteadyOptions::NewtonOperator::assembled,
                 "solver.linear_solver kokkos applies the second-order Newton operator "
                 "matrix-free; solver.newton_operator assembled needs solver.linear_solver petsc");
  CAMBER_INPUT_REQUIRE(options.preconditioner == SteadyOptions::Preconditioner::first_order,
                 "solver.linear_solver kokkos preconditions with the first-order matrix; "
                 "solver.preconditioner second_order needs solver.linear_solver petsc");
}

std::unique_ptr<NewtonLinearSystem> device_newton_system(const Discretization& disc, Tensor& U,
                                                         const SteadyOptions& options) {
  return std::make_unique<DeviceNewtonSystem>(disc, U, options);
}

}  // namespace camber::solvers::euler::detail
