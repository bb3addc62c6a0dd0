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

#include "discretization_kernels.hpp"

namespace camber::solvers::euler::detail {

namespace {

namespace lin = camber::solvers::linear;
using Range = Kokkos::RangePolicy<>;

// The first-order matrix's pattern on disc's mesh: owned row i holds i and
// its face neighbours (owned or ghost), ascending.
lin::BlockSparseMatrix first_order_pattern(const Discretization& disc) {
  const index_t n_owned = disc.n_owned();
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  std::vector<std::vector<index_t>> rows(static_cast<size_t>(n_owned));
  for (index_t i = 0; i < n_owned; ++i) rows[static_cast<size_t>(i)].push_back(i);
  for (index_t f = 0; f < disc.n_faces(); ++f) {
    const index_t l = left(f), r = right(f);
    if (r < 0) continue;
    if (l < n_owned) rows[static_cast<size_t>(l)].push_back(r);
    if (r < n_owned) rows[static_cast<size_t>(r)].push_back(l);
  }
  std::vector<index_t> ptr(1, 0), cols;
  for (auto& row : rows) {
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    cols.insert(cols.end(), row.begin(), row.end());
    ptr.push_back(static_cast<index_t>(cols.size()));
  }
  return lin::BlockSparseMatrix(disc.mesh().distribution(), disc.n_vars(), ptr, cols);
}

// y = diag(shift_c) x + (dR/dU) x at *state, matrix-free.
class MatrixFreeNewton final : public lin::LinearOperator {
 public:
  MatrixFreeNewton(const Discretization& disc, Tensor& state)
      : disc_(&disc), state_(&state), direction_({disc.n_local(), disc.n_vars()}),
        shift_("camber::euler::ptc_shift", static_cast<size_t>(disc.n_owned())) {}
  void set(const Discretization& active, const Kokkos::View<double*>& shift) {
    disc_ = &active;
    Kokkos::deep_copy(shift_, shift);
  }
  index_t local_size() const override { return disc_->n_owned() * disc_->n_vars(); }
  void apply(lin::ConstVector x, lin::Vector y) const override {
    const index_t n = local_size();
    Kokkos::deep_copy(Kokkos::subview(direction_.view(), std::make_pair(index_t{0}, n)), x);
    direction_.mark_modified();
    disc_->residual_and_tangent(*state_, direction_, residual_, tangent_);
    const Kokkos::View<double*> t = tangent_.view();
    const Kokkos::View<double*> s = shift_;
    const int nv = disc_->n_vars();
    Kokkos::parallel_for(
        "camber::euler::matrix_free_newton", Range(0, n),
        KOKKOS_LAMBDA(const index_t e) { y(e) = t(e) + s(e / nv) * x(e); });
  }

 private:
  const Discretization* disc_;
  Tensor* state_;
  mutable Tensor direction_, residual_, tangent_;
  Kokkos::View<double*> shift_;
};

class DeviceNewtonSystem final : public NewtonLinearSystem {
 public:
  DeviceNewtonSystem(const Discretization& disc, Tensor& U, const SteadyOptions& options);
  LinearStep solve(const Discretization& active, Tensor& U, const std::vector<double>& shift,
                   int step, int attempt, Tensor& minus_R, Tensor& dU) override;
  // A = diag(shift) + the first-order face blocks, in place in A_ (public:
  // nvcc refuses a device lambda in a private member function).
  void assemble(const Tensor& face_blocks);

 private:

  MPI_Comm comm_;
  int nv_;
  lin::BlockSparseMatrix A_;
  lin::PartitionedIlu ilu_;
  // Each owned row's faces, in face order: the face, the side the row's
  // cell is on (0 left, 1 right), and the row's block for the cell across
  // (-1 on a boundary face).
  Kokkos::View<index_t*> row_faces_ptr_, row_face_, row_face_side_, row_face_other_;
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
    : comm_(disc.mesh().comm()), nv_(disc.n_vars()), A_(first_order_pattern(disc)),
      ilu_(A_,
           options.ilu_blocks > 0 ? options.ilu_blocks
                                  : lin::PartitionedIlu::default_blocks(disc.n_owned()),
           first_order_ilu_levels),
      shift_("camber::euler::ptc_shift", static_cast<size_t>(disc.n_owned())),
      gmres_(disc.n_owned() * disc.n_vars(),
             gmres_options(options, disc.spatial().order == 2 && !options.defect_correction)) {
  const bool exact_operator = disc.spatial().order == 2 && !options.defect_correction;
  if (exact_operator) matrix_free_ = std::make_unique<MatrixFreeNewton>(disc, U);
  // Each owned row's faces.
  const index_t n_owned = disc.n_owned();
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  std::vector<std::vector<index_t>> faces(static_cast<size_t>(n_owned));
  for (index_t f = 0; f < disc.n_faces(); ++f) {
    if (left(f) < n_owned) faces[static_cast<size_t>(left(f))].push_back(f);
    if (right(f) >= 0 && right(f) < n_owned) faces[static_cast<size_t>(right(f))].push_back(f);
  }
  std::vector<index_t> ptr(1, 0), face, side, other;
  for (index_t i = 0; i < n_owned; ++i) {
    for (const index_t f : faces[static_cast<size_t>(i)]) {
      const bool is_left = left(f) == i;
      const index_t across = is_left ? right(f) : left(f);
      face.push_back(f);
      side.push_back(is_left ? 0 : 1);
      other.push_back(across >= 0 ? A_.block_index(i, across) : -1);
    }
    ptr.push_back(static_cast<index_t>(face.size()));
  }
  const auto to_view = [](const std::vector<index_t>& v, const char* name) {
    Kokkos::View<index_t*> d(std::string(name), v.size());
    const auto h = Kokkos::create_mirror_view(d);
    for (size_t k = 0; k < v.size(); ++k) h(k) = v[k];
    Kokkos::deep_copy(d, h);
    return d;
  };
  row_faces_ptr_ = to_view(ptr, "camber::euler::row_faces_ptr");
  row_face_ = to_view(face, "camber::euler::row_face");
  row_face_side_ = to_view(side, "camber::euler::row_face_side");
  row_face_other_ = to_view(other, "camber::euler::row_face_other");
}

void DeviceNewtonSystem::assemble(const Tensor& face_blocks) {
  const auto ptr = A_.row_ptr();
  const auto diag = A_.diagonal();
  const auto values = A_.values();
  const auto fptr = row_faces_ptr_;
  const auto fface = row_face_;
  const auto fside = row_face_side_;
  const auto fother = row_face_other_;
  const auto shift = shift_;
  const Kokkos::View<double*> J = face_blocks.view();
  const int nv = nv_;
  Kokkos::parallel_for(
      "camber::euler::first_order_matrix", Range(0, A_.n_rows()), KOKKOS_LAMBDA(const index_t i) {
        const int bb = nv * nv;
        for (index_t e = ptr(i) * bb; e < ptr(i + 1) * bb; ++e) values(e) = 0.0;
        double* d = &values(diag(i) * bb);
        for (int k = 0; k < nv; ++k) d[k * nv + k] = shift(i);
        for (index_t q = fptr(i); q < fptr(i + 1); ++q) {
          const index_t f = fface(q);
          const index_t o = fother(q);
          // J(f) is nv x 2 nv, row-major: dF/dU_left then dF/dU_right. The
          // flux leaves the left cell and enters the right one.
          const double sign = fside(q) == 0 ? 1.0 : -1.0;
          double* own = d;
          double* across = o >= 0 ? &values(o * bb) : nullptr;
          for (int r = 0; r < nv; ++r)
            for (int c = 0; c < nv; ++c) {
              const double jl = J((f * nv + r) * 2 * nv + c);
              const double jr = J((f * nv + r) * 2 * nv + nv + c);
              // Left side: (own, own) += dF/dU_l, (own, right) += dF/dU_r;
              // right side: (own, left) -= dF/dU_l, (own, own) -= dF/dU_r.
              const double to_own = fside(q) == 0 ? jl : jr;
              const double to_across = fside(q) == 0 ? jr : jl;
              own[c * nv + r] += sign * to_own;
              if (across != nullptr) across[c * nv + r] += sign * to_across;
            }
        }
      });
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
  assemble(face_blocks_);
  if (!ilu_.factor()) return {0, false};  // as PETSc's zero pivot: no step
  const index_t n = A_.local_size();
  const auto owned = std::make_pair(index_t{0}, n);
  const lin::ConstVector b = Kokkos::subview(minus_R.view(), owned);
  const lin::Vector x = Kokkos::subview(dU.view(), owned);
  lin::GmresResult r;
  if (matrix_free_) {
    matrix_free_->set(active, shift_);
    r = gmres_.solve(*matrix_free_, ilu_, b, x, comm_);
  } else {
    r = gmres_.solve(A_, ilu_, b, x, comm_);
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
