#include <camber/solvers/linear/gmres.hpp>

#include <algorithm>
#include <cmath>

#include <camber/core/error.hpp>

namespace camber::solvers::linear {

std::string to_string(GmresReason reason) {
  switch (reason) {
    case GmresReason::converged_relative: return "converged: relative tolerance";
    case GmresReason::converged_absolute: return "converged: absolute tolerance";
    case GmresReason::diverged_breakdown: return "diverged: invariant Krylov space short of the tolerance";
    case GmresReason::diverged_iterations: return "diverged: iteration limit";
    case GmresReason::diverged_tolerance: return "diverged: residual above the divergence tolerance";
    case GmresReason::diverged_not_finite: return "diverged: residual not finite";
  }
  return "unknown";
}

GmresSolver::GmresSolver(index_t n, GmresOptions options) : n_(n), options_(options) {
  CAMBER_REQUIRE(n >= 0, "linear::GmresSolver: " + std::to_string(n) + " rows");
  CAMBER_REQUIRE(options.restart >= 1, "linear::GmresSolver: restart " +
                                           std::to_string(options.restart) + " (at least 1)");
  CAMBER_REQUIRE(options.max_iterations >= 0 && options.rel_tolerance >= 0.0 &&
                     options.abs_tolerance >= 0.0 && options.div_tolerance > 0.0,
                 "linear::GmresSolver: negative tolerance or iteration limit");
  w_ = Vector("camber::linear::gmres_w", static_cast<size_t>(n));
  t_ = Vector("camber::linear::gmres_t", static_cast<size_t>(n));
}

int GmresSolver::allocated_columns() const noexcept {
  int c = 0;
  for (const Basis& b : V_) c += static_cast<int>(b.extent(1));
  return c;
}

Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::MemoryTraits<Kokkos::Unmanaged>> GmresSolver::column(
    int j) {
  while (allocated_columns() <= j) {
    const int columns = std::min(basis_chunk, options_.restart + 1 - allocated_columns());
    V_.emplace_back("camber::linear::gmres_basis", static_cast<size_t>(n_), static_cast<size_t>(columns));
  }
  const Basis& chunk = V_[static_cast<size_t>(j / basis_chunk)];
  return Kokkos::View<double*, Kokkos::LayoutLeft, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
      chunk.data() + static_cast<size_t>(j % basis_chunk) * static_cast<size_t>(n_), static_cast<size_t>(n_));
}

void GmresSolver::basis_dots(int k, ConstVector w, MPI_Comm comm, double* out) {
  for (size_t c = 0; c < V_.size() && static_cast<int>(c) * basis_chunk < k; ++c)
    dots(V_[c], std::min(basis_chunk, k - static_cast<int>(c) * basis_chunk), w, comm,
         out + c * basis_chunk);
}

void GmresSolver::basis_subtract(int k, const double* h, Vector w) {
  for (size_t c = 0; c < V_.size() && static_cast<int>(c) * basis_chunk < k; ++c)
    subtract_combination(V_[c], std::min(basis_chunk, k - static_cast<int>(c) * basis_chunk),
                         h + c * basis_chunk, w);
}

GmresResult GmresSolver::solve(const LinearOperator& A, const Preconditioner& M, ConstVector b,
                               Vector x, MPI_Comm comm) {
  CAMBER_REQUIRE(static_cast<index_t>(b.extent(0)) == n_ && static_cast<index_t>(x.extent(0)) == n_ &&
                     A.local_size() == n_,
                 "linear::GmresSolver::solve: right-hand side of " + std::to_string(b.extent(0)) +
                     " rows, solution of " + std::to_string(x.extent(0)) + ", operator of " +
                     std::to_string(A.local_size()) + " for a solver of " + std::to_string(n_));
  const int m = options_.restart;
  const bool left = options_.side == PreconditionerSide::left;
  // H (m+1) x m by columns, the rotations and the rotated right-hand side.
  std::vector<double> H(static_cast<size_t>((m + 1) * m), 0.0), cs(static_cast<size_t>(m)),
      sn(static_cast<size_t>(m)), g(static_cast<size_t>(m) + 1), h(static_cast<size_t>(m) + 1),
      y(static_cast<size_t>(m));
  const auto Hij = [&](int i, int j) -> double& { return H[static_cast<size_t>(j * (m + 1) + i)]; };

  GmresResult result;
  history_.clear();
  if (!options_.nonzero_initial_guess) Kokkos::deep_copy(x, 0.0);
  bool first = true;
  double tolerance = 0.0;
  // Classifies the norm r; true when the solve stops.
  const auto stop = [&](double r, bool record) {
    if (record) history_.push_back(r);
    result.residual_norm = r;
    if (!std::isfinite(r)) {
      result.reason = GmresReason::diverged_not_finite;
      return true;
    }
    if (first) {
      first = false;
      result.initial_residual_norm = r;
      tolerance = std::max(options_.rel_tolerance * r, options_.abs_tolerance);
      if (r <= options_.abs_tolerance) {
        result.reason = GmresReason::converged_absolute;
        return true;
      }
      return false;
    }
    if (r <= tolerance) {
      result.reason = r <= options_.abs_tolerance ? GmresReason::converged_absolute
                                                  : GmresReason::converged_relative;
      return true;
    }
    if (r > options_.div_tolerance * result.initial_residual_norm) {
      result.reason = GmresReason::diverged_tolerance;
      return true;
    }
    return false;
  };

  while (true) {
    // r = b - A x (b itself for a zero first guess), preconditioned on the left.
    const auto v0 = column(0);
    if (first && !options_.nonzero_initial_guess) {
      Kokkos::deep_copy(w_, b);
    } else {
      A.apply(x, w_);
      scale_into(-1.0, w_, w_);
      axpy(1.0, b, w_);
    }
    if (left)
      M.apply(w_, v0);
    else
      Kokkos::deep_copy(v0, w_);
    const double beta = norm2(v0, comm);
    // At a restart too, as PETSc's cycle does (which keeps it out of the
    // residual history).
    if (stop(beta, result.iterations == 0)) return result;
    if (result.iterations >= options_.max_iterations) {
      result.reason = GmresReason::diverged_iterations;
      return result;
    }
    scale_into(1.0 / beta, v0, v0);
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;

    int k = 0;  // columns of this cycle
    bool done = false, breakdown = false;
    while (k < m && result.iterations < options_.max_iterations) {
      const auto vk = column(k), vk1 = column(k + 1);
      if (left) {
        A.apply(vk, w_);
        M.apply(w_, vk1);
      } else {
        M.apply(vk, t_);
        A.apply(t_, vk1);
      }
      // Classical Gram-Schmidt against v_0 .. v_k (twice with refine).
      basis_dots(k + 1, vk1, comm, h.data());
      basis_subtract(k + 1, h.data(), vk1);
      for (int i = 0; i <= k; ++i) Hij(i, k) = h[static_cast<size_t>(i)];
      if (options_.refine) {
        basis_dots(k + 1, vk1, comm, h.data());
        basis_subtract(k + 1, h.data(), vk1);
        for (int i = 0; i <= k; ++i) Hij(i, k) += h[static_cast<size_t>(i)];
      }
      const double hnext = norm2(vk1, comm);
      Hij(k + 1, k) = hnext;
      // The earlier rotations on the new column, then its own.
      for (int i = 0; i < k; ++i) {
        const double a = Hij(i, k), c = Hij(i + 1, k);
        Hij(i, k) = cs[static_cast<size_t>(i)] * a + sn[static_cast<size_t>(i)] * c;
        Hij(i + 1, k) = -sn[static_cast<size_t>(i)] * a + cs[static_cast<size_t>(i)] * c;
      }
      const double a = Hij(k, k), c = Hij(k + 1, k);
      const double r = std::hypot(a, c);
      if (r == 0.0) {
        cs[static_cast<size_t>(k)] = 1.0;
        sn[static_cast<size_t>(k)] = 0.0;
      } else {
        cs[static_cast<size_t>(k)] = a / r;
        sn[static_cast<size_t>(k)] = c / r;
      }
      Hij(k, k) = r;
      Hij(k + 1, k) = 0.0;
      g[static_cast<size_t>(k) + 1] = -sn[static_cast<size_t>(k)] * g[static_cast<size_t>(k)];
      g[static_cast<size_t>(k)] = cs[static_cast<size_t>(k)] * g[static_cast<size_t>(k)];
      ++k;
      ++result.iterations;
      const double rnorm = std::abs(g[static_cast<size_t>(k)]);
      // An invariant subspace (PETSc's happy breakdown, haptol 1e-30):
      // the residual above is then exact; if it has not met the tolerance
      // the operator is singular on that subspace.
      breakdown = !(hnext > 1e-30);
      if (stop(rnorm, true)) {
        done = true;
        break;
      }
      if (breakdown) break;
      scale_into(1.0 / hnext, vk1, vk1);
    }
    // y = H^-1 g (upper triangular k x k), x += V y (left) or M^-1 V y (right).
    for (int i = k - 1; i >= 0; --i) {
      double s = g[static_cast<size_t>(i)];
      for (int j = i + 1; j < k; ++j) s -= Hij(i, j) * y[static_cast<size_t>(j)];
      y[static_cast<size_t>(i)] = Hij(i, i) != 0.0 ? s / Hij(i, i) : 0.0;
    }
    Kokkos::deep_copy(w_, 0.0);
    for (int i = 0; i < k; ++i) h[static_cast<size_t>(i)] = -y[static_cast<size_t>(i)];
    basis_subtract(k, h.data(), w_);  // w = V y
    if (left) {
      axpy(1.0, w_, x);
    } else {
      M.apply(w_, t_);
      axpy(1.0, t_, x);
    }
    if (done) return result;
    if (breakdown) {
      result.reason = GmresReason::diverged_breakdown;
      return result;
    }
    if (result.iterations >= options_.max_iterations) {
      result.reason = GmresReason::diverged_iterations;
      return result;
    }
  }
}

}  // namespace camber::solvers::linear
