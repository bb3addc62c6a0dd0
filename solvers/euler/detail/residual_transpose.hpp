// The transpose of the exact Jacobian of the Euler residual, applied
// without forming it: y = (dR/dU)^T v at a linearization state U, and the
// gradient d(w . G)/dU of the wall's pitch-plane load. What the device
// path's adjoint solves with (no PETSc, no assembled second-order matrix).
//
// The residual's dependence is the stencil assembly's (stencil_jacobian.cpp):
// the flux through face f depends on the two primitive face states q_f,c,
// q_f,c = W_c + phi_c (grad W_c . (x_f - x_c)) (or W_c where its density or
// pressure would not be positive), grad W_c = sum_e a_e (W_m(e) - W_c) over
// c's least-squares stencil, phi_c,k a function of (d_max, d_min, grad W_c,k)
// (constant when frozen, 1 with no limiter), and W = W(U) cell by cell. Its
// transpose is swept in reverse, each step a gather (no atomics; the same
// bits on any thread count):
//
//   1. each face: vbar_f = v_left - v_right (the residual adds F_f to its
//      left cell's row and subtracts it from its right one's), and for each
//      owned side c, qbar_f,c = (dF_f/dq_f,c)^T vbar_f;
//   2. each owned cell c: Wbar_c = sum_f qbar_f,c, Lbar_c = sum_f qbar_f,c
//      (x_f - x_c)^T over its reconstructed faces, phibar = Lbar . grad W_c,
//      Gbar_c = phi_c Lbar_c + phibar dphi/dgrad;
//   3. each local cell m: the sum over the stencils that hold it of
//      a_e . Gbar_c + phibar_c dphi_c/d(W_m - W_c), its own cell's terms
//      (Wbar_m and minus the sums of its stencil), then dW/dU at U_m
//      transposed;
//   4. ghost rows home to their owners (HaloExchange::reverse_add).
//
// The per-state pieces (the flux Jacobians of each owned face side, dW/dU,
// the limiter's partials per stencil entry) are computed once by
// linearize(); each product is then three kernels and two halo exchanges.
// The kinks (limiter min/max, positivity fallback) follow the values at U,
// as every other derivative of the residual does. The limiter's partials
// take one double per stencil entry and variable (a live limiter only).
#pragma once

#include <array>

#include <Kokkos_Core.hpp>

#include <camber/core/tensor.hpp>
#include <camber/solvers/euler/discretization.hpp>

namespace camber::solvers::euler::detail {

class ResidualTranspose {
 public:
  // Builds the transposed stencil of disc's owned cells (host, once).
  // disc must outlive this object.
  explicit ResidualTranspose(const Discretization& disc);

  // The linearization at U (fills U's ghost rows; collective).
  void linearize(Tensor& U);
  bool linearized() const noexcept { return linearized_; }

  // Y = (dR/dU)^T V at the linearized U: V, Y {n_local, n_vars}, the owned
  // rows meaningful; fills V's ghost rows (collective).
  void apply(Tensor& V, Tensor& Y) const;

  // d(w . G)/dU at the linearized U, G the pitch-plane load of the wall
  // (Discretization::forces' sums), {n_local, n_vars}, owned rows
  // (collective).
  Tensor force_gradient(const std::array<double, 3>& weights) const;

  // Kernel hosts (public: CUDA's extended lambdas refuse private members).
  template <int Dim>
  void linearize_in(Tensor& U);
  template <int Dim>
  void flux_adjoint(const Field<double>& v, const Kokkos::View<double**>& qbar) const;
  template <int Dim>
  void force_adjoint(const std::array<double, 3>& weights,
                     const Kokkos::View<double**>& qbar) const;
  template <int Dim>
  void reconstruction_adjoint(const Kokkos::View<double**>& qbar, Tensor& Y) const;

 private:
  const Discretization* disc_;
  int dim_ = 2, nv_ = 4;
  index_t n_owned_ = 0, n_local_ = 0, n_faces_ = 0, n_entries_ = 0;
  bool reconstruct_ = false, live_ = false, smooth_ = false;
  // The transposed stencil: local cell m is entry t_entry_(t) of the owned
  // cells' stencils for t in [t_offset_(m), t_offset_(m + 1)) (ascending),
  // the entry of owned cell t_cell_(t) with coefficients
  // t_coefficient_(t, .); and each owned cell's sum of its coefficients.
  Kokkos::View<const index_t*> t_offset_, t_entry_, t_cell_;
  Kokkos::View<double**> t_coefficient_, coefficient_sum_;
  // At the linearization: W (every local cell), the limited gradients L
  // (every local cell), the unlimited ones G and phi (owned), dW/dU
  // ({n_local, nv^2}, row-major), each owned face side's dF/dq
  // ({n_faces, 2 nv^2}: side 0 the left cell, row-major), and with a live
  // limiter its partials in the gradient ({n_owned, nv Dim}), in the
  // stencil entries' differences W_m - W_c, and their sums per owned cell
  // ({n_owned, nv}): the classic and Wang forms depend on two entries per
  // cell and variable (extreme_entry_, -1 for none, and extreme_partial_,
  // {n_owned, 2 nv}: the maximum's, then the minimum's), the smooth form
  // on every entry ({n_entries, nv} by transposed entry; t_position_(e) is
  // entry e's transposed position).
  Field<double> W_, L_, G_, phi_;
  Kokkos::View<double**> P_, A_, dphi_dgrad_, dphi_dentry_, dphi_dsum_, extreme_partial_;
  Kokkos::View<index_t**> extreme_entry_;
  Kokkos::View<index_t*> t_position_;
  // The products' work arrays: the face sides' adjoints ({n_faces, 2 nv}),
  // and per owned cell those of W, of the gradient and of phi.
  Kokkos::View<double**> qbar_, Wbar_, Gbar_, phibar_;
  bool linearized_ = false;
};

}  // namespace camber::solvers::euler::detail
