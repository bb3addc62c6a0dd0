/// @file
/// The shape derivative of a force coefficient: dJ/dX with respect to every
/// node coordinate of the mesh, from a converged state and its adjoint.
///
/// @code
///   dJ/dX = dJ/dX|_U - psi^T dR/dX|_U        (psi: the adjoint, solvers/euler/adjoint.hpp)
/// @endcode
///
/// The residual and the wall forces depend on the node coordinates through
/// the geometry (normals, centroids, volumes), the least-squares stencil and
/// the limiter's eps^2; the derivative is taken in forward mode with
/// Dual<double, 2> coordinates, compressed by a colouring of the global
/// nodes (nodes that no residual row shares get one colour: one evaluation
/// of the geometry, the stencil and the residual per colour). The cost is
/// independent of how many design variables later chain onto X (a
/// parametrization and a mesh deformation, design/, apply their transposes
/// to dJ/dX).
///
/// @code
///   euler::Adjoint adjoint(disc);
///   euler::AdjointSolution a = adjoint.solve(U, euler::ForceCoefficient::cd);
///   euler::ShapeDerivative shape(disc);
///   Tensor dJdX = shape.total_derivative(U, a);   // {n_global_nodes, 2}, on every rank
/// @endcode
///
/// dJdX is indexed by the global node ids of the mesh the DistributedMesh
/// was built from, and is the same on every rank (summed over ranks), what
/// the replicated global mesh of design/ expects. The frozen limiter phi is
/// a constant here (its dependence on X is not differentiated): exact for
/// the frozen-limiter residual the adjoint is for.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::euler {

class ShapeDerivative {
 public:
  /// Builds the node colouring for disc's mesh (collective). disc must
  /// outlive this object.
  explicit ShapeDerivative(const Discretization& disc);

  /// Evaluates the partials dR/dX|_U and dG/dX|_U (one Dual residual sweep
  /// per node colour) and keeps them, so that every further derivative at
  /// this U is a sparse product: total_derivative() and directional() do
  /// this at their first call and reuse it after (several objectives'
  /// adjoints, tangents); call linearize again when U has changed.
  /// Collective.
  void linearize(Tensor& U);

  /// dJ/dX = w . dG/dX|_U - psi^T dR/dX|_U for the objective J = w . (f_x,
  /// f_y, m_z) of the adjoint solution; {n_global_nodes, 2} on every rank.
  /// Collective.
  Tensor total_derivative(Tensor& U, const AdjointSolution& adjoint);
  /// The same with psi and the weights given (psi {n_local, 4}, owned rows).
  Tensor total_derivative(Tensor& U, const Tensor& psi, const std::array<double, 3>& weights);

  /// (dR/dX|_U) V for a node displacement V {n_global_nodes, 2} (the same
  /// on every rank): {n_local, 4}, owned rows. For tests and tangents.
  Tensor residual_directional(Tensor& U, const Tensor& V);
  /// The same and (dG/dX|_U) V, the change of the wall force and moment
  /// (f_x, f_y, m_z) summed over ranks. Collective.
  Tensor directional(Tensor& U, const Tensor& V, std::array<double, 3>& dG);

  int n_colors() const noexcept { return n_colors_; }

 private:

  const Discretization* disc_;
  std::int64_t n_global_nodes_ = 0;
  int n_colors_ = 0;
  Kokkos::View<int*> color_;  // colour of every local node
  // Per colour: (owned local row, global node) pairs.
  std::vector<std::vector<std::pair<index_t, std::int64_t>>> entries_;
  // The partials at the linearized U: for every (row c, node a) pair of
  // entries_, colour after colour, dR_c/dX_a (4 x 2, row-major) in dr_;
  // the pairs whose dG_c/dX_a (the wall force and moment of cell c's faces,
  // 3 x 2) is not zero, with it, in force_entries_ and df_.
  bool linearized_ = false;
  std::vector<double> dr_;
  std::vector<std::pair<index_t, std::int64_t>> force_entries_;
  std::vector<double> df_;
};

}  // namespace camber::solvers::euler
