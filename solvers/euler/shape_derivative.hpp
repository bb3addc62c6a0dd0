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
/// Dual<double, dim> coordinates, compressed by a colouring of the global
/// nodes (nodes that no residual row shares get one colour: one evaluation
/// of the geometry, the stencil and the residual per colour), built where
/// the mesh lies by PETSc's parallel greedy colouring (solvers/euler/
/// detail/owned_stencils.hpp: no rank holds more than its rows). The cost is
/// independent of how many design variables later chain onto X (a
/// parametrization and a mesh deformation, design/, apply their transposes
/// to dJ/dX).
///
/// @code
///   euler::Adjoint adjoint(disc);
///   euler::AdjointSolution a = adjoint.solve(U, euler::ForceCoefficient::cd);
///   euler::ShapeDerivative shape(disc);
///   Tensor dJdX = shape.total_derivative(U, a);   // {n_global_nodes, dim}, on every rank
///   Tensor share = shape.rank_derivative(U, a.psi, a.weights);  // {rows().size(), dim}
/// @endcode
///
/// The pattern (the colouring, and which owned residual rows depend on
/// which nodes) depends only on the connectivity and the reconstruction
/// stencil, so a shape optimization builds it once (pattern()) and every
/// design's ShapeDerivative shares it.
///
/// Two numberings of the result:
/// - rank_derivative(): this rank's share of dJ/dX, {n_rows, dim} at the
///   rows() of the pattern: the rank's local nodes (DistributedMesh order),
///   then the further nodes its owned residuals depend on (sorted by global
///   id). The shares of all ranks summed (by global id) are dJ/dX. No
///   communication and no global array: what a distributed mesh
///   deformation chains onto (design::MeshDeformation with rows).
/// - total_derivative(): dJ/dX indexed by the global node ids of the mesh
///   the DistributedMesh was built from, the same on every rank (summed
///   over ranks): O(global nodes) per rank, for tests and output.
///
/// The frozen limiter phi is a constant here (its dependence on X is not
/// differentiated): exact for the frozen-limiter residual the adjoint is
/// for.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::euler {

class ShapeDerivative {
 public:
  /// What depends only on the mesh's connectivity and the reconstruction
  /// stencil: the node colouring and, per colour, the (owned cell, node
  /// row) pairs of the derivative's nonzero blocks.
  struct Pattern {
    std::vector<std::int64_t> rows;  ///< global node id of every row
    index_t n_local_nodes = 0;       ///< rows [0, n_local_nodes) are the local nodes
    std::int64_t n_global_nodes = 0;
    int n_colors = 0;
    std::vector<int> color;  ///< colour of every local node
    std::vector<std::vector<std::pair<index_t, index_t>>> entries;  ///< per colour: (owned cell, row)
  };
  /// Builds the pattern of disc's mesh and stencil (O(owned cells) per
  /// rank, once). Collective.
  static std::shared_ptr<const Pattern> pattern(const Discretization& disc);

  /// Builds the pattern (collective) or, given one built for a
  /// discretization of the same distributed mesh and spatial options (e.g.
  /// the undeformed design's), shares it. disc must outlive this object.
  explicit ShapeDerivative(const Discretization& disc,
                           std::shared_ptr<const Pattern> pattern = nullptr);

  /// Evaluates the partials dR/dX|_U and dG/dX|_U (one Dual residual sweep
  /// per node colour) and keeps them, so that every further derivative at
  /// this U is a sparse product: the derivatives below do this at their
  /// first call and reuse it after (several objectives' adjoints,
  /// tangents); call linearize again when U has changed. Collective.
  void linearize(Tensor& U);

  /// This rank's share of dJ/dX = w . dG/dX|_U - psi^T dR/dX|_U for the
  /// objective J = w . G (G the pitch-plane load, Adjoint), psi {n_local,
  /// n_vars} (owned rows): {rows().size(), dim}. Not collective after the
  /// first linearization.
  Tensor rank_derivative(Tensor& U, const Tensor& psi, const std::array<double, 3>& weights);
  /// dJ/dX of the adjoint solution's objective; {n_global_nodes, dim} on
  /// every rank. Collective.
  Tensor total_derivative(Tensor& U, const AdjointSolution& adjoint);
  /// The same with psi and the weights given (psi {n_local, n_vars}, owned
  /// rows).
  Tensor total_derivative(Tensor& U, const Tensor& psi, const std::array<double, 3>& weights);

  /// (dR/dX|_U) V for a node displacement V {n_global_nodes, dim} (the same
  /// on every rank): {n_local, n_vars}, owned rows. For tests and tangents.
  Tensor residual_directional(Tensor& U, const Tensor& V);
  /// The same and (dG/dX|_U) V, the change of the wall's pitch-plane load
  /// summed over ranks. Collective.
  Tensor directional(Tensor& U, const Tensor& V, std::array<double, 3>& dG);
  /// The same for V at this rank's rows() ({rows().size(), dim}; a node
  /// held by several ranks must have the same V on each).
  Tensor rank_directional(Tensor& U, const Tensor& V, std::array<double, 3>& dG);

  /// The coordinates of this rank's rows() in disc's mesh, {rows().size(),
  /// dim}: the local nodes' from the local mesh, the further rows' from
  /// ranks that hold them (one personalized exchange through a rank chosen
  /// by global id: O(local nodes) messages, no global array). What a
  /// pointwise map of the nodes (design::FfdVolume) is evaluated at to
  /// chain onto rank_derivative(). Collective.
  Tensor row_coordinates() const;

  int n_colors() const noexcept { return pattern_->n_colors; }
  /// Global node ids of this rank's rows (Pattern::rows).
  const std::vector<std::int64_t>& rows() const noexcept { return pattern_->rows; }

 private:
  const Discretization* disc_;
  std::shared_ptr<const Pattern> pattern_;
  Kokkos::View<int*> color_;  // colour of every local node
  // The partials at the linearized U: for every (row c, node row a) pair
  // of the pattern's entries, colour after colour, dR_c/dX_a (n_vars x
  // dim, row-major) in dr_; the pairs whose dG_c/dX_a (the wall load of
  // cell c's faces, 3 x dim) is not zero, with it, in
  // force_entries_ and df_.
  bool linearized_ = false;
  std::vector<double> dr_;
  std::vector<std::pair<index_t, index_t>> force_entries_;
  std::vector<double> df_;
};

}  // namespace camber::solvers::euler
