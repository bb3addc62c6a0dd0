// The shape derivative of the Euler residual and wall load swept in
// reverse: this rank's share of
//
//   xbar = w . dG/dX|_U - psi^T dR/dX|_U
//
// at its local nodes, for one adjoint psi and one objective J = w . G (G
// the wall's pitch-plane load, Discretization::forces' sums), at a fixed
// state U, without colouring the nodes: its cost is a few residual
// evaluations whatever the mesh's connectivity. What ShapeDerivative
// (shape_derivative.hpp) computes by default; it needs no PETSc.
//
// The residual depends on the node coordinates X through the geometry
// (face normals n_f and centres x_f, cell centroids x_c and volumes V_c),
// the least-squares coefficients a_e (centroids), the face offsets x_f -
// x_c of the face states and of the limiter, and the classic limiter's
// eps^2 = (K V^(1/dim))^3. Reverse, each step the adjoint of one forward
// kernel:
//
//   1. each face: Fbar = -(psi_l - psi_r) (owned rows only) and the wall
//      load's weights; one Dual evaluation of the flux in (n, q_l, q_r)
//      gives nbar_f and qbar of both face states (a ghost side too: an
//      owned row's flux depends on it); the wall load's partials in p, n_f
//      and x_f (the moment's arm);
//   2. each face side (second order): q = W_c + L_c (x_f - x_c), so Lbar_c
//      += qbar (x_f - x_c)^T and (x_f - x_c)bar = L_c^T qbar, unless the
//      positivity fallback took W_c;
//   3. Lbar of ghost cells home to their owners (HaloExchange::reverse_add);
//   4. each owned cell: L = phi G gives phibar and Gbar; a live limiter's
//      partials in G, its faces' x_f - x_c and eps^2 (one Dual per variable);
//      abar_e = Gbar (W_m - W_c) for each stencil entry, and through the
//      weighted least-squares fit a_e = w_e M^-1 d_e (M = sum w_e d_e d_e^T,
//      w_e = 1 / |d_e|^2, d_e = x_m - x_c) in closed form:
//      dbar_e = w_e M^-1 abar_e + w_e (Mbar + Mbar^T) d_e - 2 wbar_e w_e^2 d_e,
//      Mbar = -M^-1 S M^-1, S = sum_e w_e abar_e d_e^T,
//      wbar_e = abar_e . M^-1 d_e + d_e^T Mbar d_e;
//   5. the geometry's bars to the nodes (mesh::geometry_transpose).
//
// Cell- and node-indexed sums are atomic (their last bits may change with
// the number of threads). The limiter's switches follow the values at U, as
// every derivative of the residual does.
#pragma once

#include <array>

#include <camber/core/tensor.hpp>
#include <camber/solvers/euler/discretization.hpp>

namespace camber::solvers::euler::detail {

struct ShapeTranspose {
  // This rank's share of xbar at its local nodes ({n_local_nodes, dim}, the
  // DistributedMesh's local node order); the shares of all ranks summed by
  // global node id are dJ/dX. psi {n_local, n_vars} (owned rows read).
  // Fills U's ghost rows (collective).
  static Tensor apply(const Discretization& disc, Tensor& U, const Tensor& psi,
                      const std::array<double, 3>& weights);
  // Kernel host (public: CUDA's extended lambdas refuse private members).
  template <int Dim>
  static Tensor apply_in(const Discretization& disc, Tensor& U, const Tensor& psi,
                         const std::array<double, 3>& weights);
};

}  // namespace camber::solvers::euler::detail
