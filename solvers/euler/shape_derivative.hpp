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
/// the limiter (its face offsets, and the classic form's eps^2). Two ways to
/// the same numbers (ShapeMethod):
/// - reverse (the default): one reverse sweep of the residual, the
///   reconstruction and the geometry per objective
///   (detail/shape_transpose.hpp), whose cost is a few residual evaluations
///   whatever the mesh's connectivity; the rows are the rank's local nodes.
///   Directional derivatives (rank_directional) are one forward sweep in
///   Dual<double, 1> coordinates.
/// - colouring: forward mode with Dual<double, dim> coordinates, compressed
///   by a colouring of the global nodes (nodes that no residual row shares
///   get one colour: one evaluation of the geometry, the stencil and the
///   residual per colour), built where the mesh lies by PETSc's parallel
///   greedy colouring (solvers/euler/detail/owned_stencils.hpp: no rank holds
///   more than its rows), the partials kept for every further objective at
///   the same U. Its cost grows with the number of colours (137 on the M6's
///   coarse tetrahedra); kept as the reverse sweep's test oracle.
/// Either way the cost is independent of how many design variables later
/// chain onto X (a parametrization and a mesh deformation, design/, apply
/// their transposes to dJ/dX).
///
/// @code
///   euler::Adjoint adjoint(disc);
///   euler::AdjointSolution a = adjoint.solve(U, euler::ForceCoefficient::cd);
///   euler::ShapeDerivative shape(disc);
///   Tensor dJdX = shape.total_derivative(U, a);   // {n_global_nodes, dim}, on every rank
///   Tensor share = shape.rank_derivative(U, a.psi, a.weights);  // {rows().size(), dim}
/// @endcode
///
/// The pattern (the rows and, for colouring, the colours and which owned
/// residual rows depend on which nodes) depends only on the connectivity
/// and the reconstruction stencil, so a shape optimization builds it once
/// (pattern()) and every design's ShapeDerivative shares it.
///
/// Two numberings of the result:
/// - rank_derivative(): this rank's share of dJ/dX, {n_rows, dim} at the
///   rows() of the pattern: the rank's local nodes (DistributedMesh order),
///   then (colouring only) the further nodes its owned residuals depend on
///   through the ghost cells' gradients (sorted by global id). The shares of
///   all ranks summed (by global id) are dJ/dX; the two methods split them
///   between ranks differently. No communication and no global array: what
///   a distributed mesh deformation chains onto (design::MeshDeformation
///   with rows).
/// - total_derivative(): dJ/dX indexed by the global node ids of the mesh
///   the DistributedMesh was built from, the same on every rank (summed
///   over ranks): O(global nodes) per rank, for tests and output.
///
/// A frozen limiter phi is a constant here (its dependence on X is not
/// differentiated): exact for the frozen-limiter residual the adjoint is
/// for; a live one is differentiated through.
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

/// How ShapeDerivative evaluates the node-coordinate partials (file
/// comment): a reverse sweep per objective (the default), or forward mode
/// compressed by a node colouring (the reverse sweep's test oracle).
enum class ShapeMethod : int { reverse = 0, colouring = 1 };

class ShapeDerivative {
 public:
  /// What depends only on the mesh's connectivity and the reconstruction
  /// stencil: the rows and, for the colouring method, the node colouring
  /// and per colour the (owned cell, node row) pairs of the derivative's
  /// nonzero blocks (empty for the reverse method).
  struct Pattern {
    ShapeMethod method = ShapeMethod::reverse;
    std::vector<std::int64_t> rows;  ///< global node id of every row
    index_t n_local_nodes = 0;       ///< rows [0, n_local_nodes) are the local nodes
    std::int64_t n_global_nodes = 0;
    int n_colors = 0;
    std::vector<int> color;  ///< colour of every local node
    std::vector<std::vector<std::pair<index_t, index_t>>> entries;  ///< per colour: (owned cell, row)
  };
  /// Builds the pattern of disc's mesh and stencil for `method`: the
  /// reverse method's rows are the local nodes (no communication); the
  /// colouring's take O(owned cells) per rank and a parallel colouring,
  /// once. Collective.
  static std::shared_ptr<const Pattern> pattern(const Discretization& disc,
                                                ShapeMethod method = ShapeMethod::reverse);

  /// Builds the pattern (collective; the reverse method's) or, given one
  /// built for a discretization of the same distributed mesh and spatial
  /// options (e.g. the undeformed design's), shares it and its method.
  /// disc must outlive this object.
  explicit ShapeDerivative(const Discretization& disc,
                           std::shared_ptr<const Pattern> pattern = nullptr);

  /// Colouring: evaluates the partials dR/dX|_U and dG/dX|_U (one Dual
  /// residual sweep per node colour) and keeps them, so that every further
  /// derivative at this U is a sparse product: the derivatives below do
  /// this at their first call and reuse it after (several objectives'
  /// adjoints, tangents); call linearize again when U has changed.
  /// Reverse: nothing to keep (each derivative is its own sweep).
  /// Collective.
  void linearize(Tensor& U);

  /// This rank's share of dJ/dX = w . dG/dX|_U - psi^T dR/dX|_U for the
  /// objective J = w . G (G the pitch-plane load, Adjoint), psi {n_local,
  /// n_vars} (owned rows): {rows().size(), dim}. Colouring: not collective
  /// after the first linearization; reverse: collective (halo exchanges).
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

  int n_colors() const noexcept { return pattern_->n_colors; }  ///< 0 for the reverse method
  ShapeMethod method() const noexcept { return pattern_->method; }
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
