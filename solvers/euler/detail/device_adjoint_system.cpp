// The adjoint's linear algebra on the device path (adjoint_system.hpp), no
// PETSc: (dR/dU)^T applied matrix-free by the reverse sweep of
// residual_transpose.hpp, dR/dU by the Dual tangent, each
// right-preconditioned (GMRES stops on the true residual, as PETSc's
// adjoint does) by ILU(1) in blocks of the first-order matrix, transposed
// for the transposed solves (an ILU of A^T: the same pattern, the blocks
// of A's transpose), and the objectives' gradients from the same sweep.
#include <memory>

#include <camber/core/error.hpp>
#include <camber/solvers/linear/gmres.hpp>
#include <camber/solvers/linear/partitioned_ilu.hpp>

#include "adjoint_system.hpp"
#include "device_operators.hpp"
#include "discretization_kernels.hpp"
#include "newton_linear_system.hpp"
#include "residual_transpose.hpp"

namespace camber::solvers::euler::detail {

namespace {

namespace lin = camber::solvers::linear;

lin::GmresOptions gmres_options(const AdjointOptions& options) {
  lin::GmresOptions o;
  o.restart = options.restart;
  o.rel_tolerance = options.rel_tolerance;
  o.abs_tolerance = 1e-50;
  o.max_iterations = options.max_iterations;
  o.side = lin::PreconditionerSide::right;
  return o;
}

class DeviceAdjointSystem final : public AdjointSystem {
 public:
  DeviceAdjointSystem(const Discretization& disc, const AdjointOptions& options)
      : disc_(&disc),
        blocks_(options.ilu_blocks > 0 ? options.ilu_blocks
                                       : lin::PartitionedIlu::default_blocks(disc.n_owned())),
        transpose_(disc),
        gmres_(disc.n_owned() * disc.n_vars(), gmres_options(options)) {}

  void linearize(Tensor& U) override {
    state_ = U.clone();
    transpose_.linearize(state_);
    face_blocks_ = DiscretizationKernels::face_jacobians(*disc_, state_);
    for (Side& s : sides_) s.factored = false;
    forward_.reset();
    backward_.reset();
  }

  std::vector<Tensor> objective_gradients(
      const std::vector<std::array<double, 3>>& weights) override {
    std::vector<Tensor> g;
    for (const auto& w : weights) g.push_back(transpose_.force_gradient(w));
    return g;
  }

  Solve solve(const Tensor& b, Tensor& x, bool transpose) override {
    Side& s = sides_[transpose ? 1 : 0];
    if (!s.matrix) {
      s.matrix = std::make_unique<DeviceFirstOrderMatrix>(*disc_);
      s.ilu = std::make_unique<lin::PartitionedIlu>(s.matrix->matrix(), blocks_,
                                                    first_order_ilu_levels);
    }
    if (!s.factored) {
      s.matrix->assemble(face_blocks_, {}, transpose);
      // A zero pivot: no solve, as a Krylov solver that did not converge.
      if (!s.ilu->factor()) return {0, false, false};
      s.factored = true;
    }
    const lin::LinearOperator* A = nullptr;
    if (transpose) {
      if (!backward_) backward_ = std::make_unique<MatrixFreeTranspose>(transpose_, *disc_);
      A = backward_.get();
    } else {
      if (!forward_) forward_ = std::make_unique<MatrixFreeNewton>(*disc_, state_);
      A = forward_.get();
    }
    const index_t n = disc_->n_owned() * disc_->n_vars();
    const auto owned = std::make_pair(index_t{0}, n);
    x.fill(0.0);
    const lin::GmresResult r = gmres_.solve(*A, *s.ilu, Kokkos::subview(b.view(), owned),
                                            Kokkos::subview(x.view(), owned),
                                            disc_->mesh().comm());
    x.mark_modified();
    return {r.iterations, r.converged(), false};
  }

 private:
  const Discretization* disc_;
  int blocks_;
  ResidualTranspose transpose_;
  lin::GmresSolver gmres_;
  Tensor state_, face_blocks_;
  // The first-order matrix and its ILU for the forward (0) and the
  // transposed (1) solves, built at the first solve of each kind.
  struct Side {
    std::unique_ptr<DeviceFirstOrderMatrix> matrix;
    std::unique_ptr<lin::PartitionedIlu> ilu;
    bool factored = false;
  };
  Side sides_[2];
  std::unique_ptr<MatrixFreeNewton> forward_;
  std::unique_ptr<MatrixFreeTranspose> backward_;
};

}  // namespace

std::unique_ptr<AdjointSystem> device_adjoint_system(const Discretization& disc,
                                                     const AdjointOptions& options) {
  CAMBER_REQUIRE(!options.direct,
                 "AdjointOptions::direct (a sparse LU) needs the PETSc linear solver; the "
                 "device path (linear_solver kokkos) solves iteratively only");
  CAMBER_REQUIRE(options.preconditioner != AdjointOptions::Preconditioner::exact,
                 "AdjointOptions::preconditioner exact (the assembled exact Jacobian's ILU) "
                 "needs the PETSc linear solver; the device path preconditions with the "
                 "first-order matrix");
  return std::make_unique<DeviceAdjointSystem>(disc, options);
}

}  // namespace camber::solvers::euler::detail
