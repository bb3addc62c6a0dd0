/// @file
/// The exact Jacobian dR/dU of the Euler residual, at either order,
/// assembled into a PETSc block matrix (by the chain rule through each
/// cell's reconstruction, or by column colouring).
///
/// At second order the residual of cell c depends on the states of the
/// cells within two face-neighbour steps of c (its neighbours' reconstructed
/// states use their own neighbours' gradients and limiter), so row c of the
/// Jacobian has one n_vars x n_vars block (4 x 4 in 2-D, 5 x 5 in 3-D) per
/// cell of that distance-2 stencil S(c).
/// Columns j and k may share a colour when no row depends on both (no c
/// with j, k in S(c)); then one forward-mode evaluation of the residual,
/// with Dual<double, n_vars> states seeded with the identity in every cell
/// of one colour, gives every block of that colour at once:
///
/// @code
///   D = sum over j of colour k of  dR/dU_j        (one Dual residual evaluation)
///   J(c, j) = D(c)   for the one j of colour k in S(c)
/// @endcode
///
/// assemble() builds the same matrix without the colouring's residual
/// sweeps: the chain rule through each cell's reconstruction
/// (solvers/euler/stencil_jacobian.cpp); assemble_by_colouring() keeps the
/// colouring, which the tests compare it with. Both assemble from building
/// blocks of Discretization that are not public
/// (solvers/euler/detail/discretization_kernels.hpp).
///
/// The sparsity is built where the mesh lies (each rank sends the blocks
/// its owned cells' reconstructions put into other ranks' rows) and the
/// colouring is PETSc's parallel greedy distance-2 colouring of it
/// (detail/owned_stencils.hpp): no rank holds more than its rows. The
/// colours depend on the partition, the assembled matrix does not: it is
/// the exact Jacobian of the discrete residual, entry for entry, whatever
/// the partition. One Dual<double, n_vars> residual evaluation per colour.
/// The same colouring compresses the gradient of the wall forces with
/// respect to U (objective_gradient): the adjoint's right-hand side.
///
/// @code
///   euler::ExactJacobian jac(disc);              // stencil, colouring (collective)
///   jac.assemble(disc, U);                       // dR/dU at U, exact
///   MatMult(jac.matrix(), x, y);                 // y = (dR/dU) x
///   Tensor g = jac.objective_gradient(disc, U, disc.force_coefficient_weights()[1]);  // dCD/dU
/// @endcode
///
/// The derivative at the kinks of the limiter and the fluxes follows the
/// conventions of autodiff/dual.hpp; with a frozen limiter
/// (Discretization::freeze_limiter) the residual is smooth in U and the
/// matrix is its exact Jacobian, what the adjoint needs.
///
/// Any mix of 2-D or 3-D cells.
#pragma once

#include <petscmat.h>

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::euler {

/// What depends only on the mesh's connectivity and the reconstruction
/// stencil: the column colouring, the PETSc block of every local cell, the
/// (owned row, block column) pairs per colour and the preallocation. A
/// design loop builds it once and every design's Jacobians share it.
/// (Declared in pseudo_transient_newton.hpp too, which needs no PETSc.)
struct ExactJacobianPattern {
  GradientStencil stencil = GradientStencil::faces;  ///< faces at first order
  index_t n_owned = 0, n_local = 0;
  int n_colors = 0;
  long long n_blocks = 0;          ///< in the owned rows, all ranks
  std::vector<int> color;          ///< per local cell
  std::vector<PetscInt> block;     ///< per local cell
  std::vector<std::vector<std::pair<index_t, PetscInt>>> entries;  ///< per colour
  std::vector<PetscInt> d_nnz, o_nnz;  ///< blocks per owned row, diagonal / off-diagonal part
  /// Whether disc (its stencil and cell counts) is the one this was built for.
  bool fits(const Discretization& disc) const;
};

class ExactJacobian {
 public:
  using Pattern = ExactJacobianPattern;
  /// Builds the distance-2 stencil of every owned cell and the column
  /// colouring (O(owned cells) per rank). Collective.
  static std::shared_ptr<const Pattern> pattern(const Discretization& disc);

  /// Builds the pattern for disc's mesh (or shares `pattern` when it
  /// fits(disc): the same distributed mesh and stencil, e.g. another design
  /// of a shape optimization) and the preallocated block matrix.
  /// Collective.
  explicit ExactJacobian(const Discretization& disc,
                         std::shared_ptr<const Pattern> pattern = nullptr);
  /// The pattern this matrix was built with.
  const std::shared_ptr<const Pattern>& shared_pattern() const noexcept { return pattern_; }

  /// Assembles dR/dU of disc's residual at U (either order; disc must be the
  /// discretization this was built for, or a copy of it such as one with a
  /// frozen limiter) by the chain rule through the reconstruction, cell by
  /// cell (the stencil assembly). With `shift` (one value per
  /// owned cell), adds shift[c] to the n_vars diagonal entries of cell c (a
  /// pseudo-time term). Fills U's ghost rows. Collective.
  void assemble(const Discretization& disc, Tensor& U, const std::vector<double>* shift = nullptr);
  /// The same matrix by the column colouring (one Dual<double, n_vars>
  /// residual per colour): equal to assemble's to round-off, and the check
  /// of it.
  void assemble_by_colouring(const Discretization& disc, Tensor& U,
                             const std::vector<double>* shift = nullptr);

  /// The assembled matrix (rows and columns in PETSc's cell numbering,
  /// solvers/petsc/petsc_numbering.hpp, n_vars unknowns per cell).
  Mat matrix() const noexcept { return matrix_.get(); }

  /// d(w . G)/dU, the gradient of a weighted sum of the wall's pitch-plane
  /// load G ((f_x, f_y, m_z) in 2-D, (f_x, f_z, m_y) in 3-D; e.g. w =
  /// force_coefficient_weights()[1] for CD), shape {n_local, n_vars} with
  /// the owned rows filled (ghost rows 0).
  /// Collective.
  Tensor objective_gradient(const Discretization& disc, const Tensor& U,
                            const std::array<double, 3>& weights) const;

  /// The same for several weight vectors at once (one colour sweep).
  std::vector<Tensor> objective_gradients(const Discretization& disc, const Tensor& U,
                                          const std::vector<std::array<double, 3>>& weights) const;

  /// dG/dU at U for the pitch-plane load G: its nonzero blocks, each 3 x
  /// n_vars (row-major), of owned rows c against PETSc block columns. One colour
  /// sweep; every gradient at that U is then a sparse product
  /// (objective_gradients below), as Adjoint keeps it for the objectives'
  /// and constraints' several adjoints of one design.
  struct ForcePartials {
    std::vector<std::pair<index_t, PetscInt>> blocks;
    std::vector<double> values;  ///< 3 n_vars per block
  };
  ForcePartials force_partials(const Discretization& disc, const Tensor& U) const;
  /// d(w . G)/dU for each weight vector from ForcePartials (collective).
  std::vector<Tensor> objective_gradients(const ForcePartials& partials,
                                          const std::vector<std::array<double, 3>>& weights) const;

  int n_colors() const noexcept { return n_colors_; }
  /// Blocks in the owned rows (all ranks).
  long long n_blocks() const noexcept { return n_blocks_; }

 private:
  // disc is the one this was built for, shift (if given) has n_owned values.
  void check_assembly(const Discretization& disc, const std::vector<double>* shift,
                      const char* who) const;

  MPI_Comm comm_;
  int nv_ = 4;  // conserved variables per cell, the block size
  index_t n_owned_ = 0, n_local_ = 0;
  int n_colors_ = 0;
  long long n_blocks_ = 0;
  std::shared_ptr<const Pattern> pattern_;
  Kokkos::View<int*> color_;  // colour of every local cell
  petsc::MatHandle matrix_;
  // Where assemble() adds each block in the matrix's arrays (its values
  // are set at each assembly).
  std::shared_ptr<detail::StencilTarget> target_;
};

}  // namespace camber::solvers::euler
