// The Jacobian building blocks of Discretization that only the library's
// own assemblers use: first-order face blocks (the Newton matrix of
// pseudo_transient_newton.cpp, the adjoint's optional preconditioner),
// compressed colouring columns of dR/dU, of the wall forces and of the
// node-coordinate derivatives (ExactJacobian::assemble_by_colouring and
// objective_gradient, ShapeDerivative), and the stencil assembly of the
// exact Jacobian (ExactJacobian::assemble). They are private members of
// Discretization; this class, its friend, forwards to them so that the
// public header lists what a user calls and this one what an assembler
// calls. A user wants ExactJacobian (solvers/euler/exact_jacobian.hpp),
// Discretization::residual_and_tangent, Adjoint or ShapeDerivative instead.
//
// All of them work on 2-D and 3-D meshes (n_vars = dim + 2) and at either
// order; with a frozen limiter the derivative holds phi fixed. At the kinks
// of |.|, min and max in the fluxes and the limiter the conventions of
// autodiff/dual.hpp apply.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <Kokkos_Core.hpp>

#include <camber/core/tensor.hpp>
#include <camber/solvers/euler/discretization.hpp>

namespace camber::solvers::euler::detail {

// Where the stencil assembly adds the blocks of the owned rows: a block
// matrix's local rows in two block-CSR parts, part 0 for the columns of
// owned cells and part 1 for the others (as PETSc's MPIBAIJ keeps them:
// ExactJacobian fills this from its matrix), each block n_vars x n_vars
// column-major (entry (a, e) at a + n_vars e).
struct StencilTarget {
  Kokkos::View<const index_t*> row;  // owned local cell -> its block row
  // Local cell -> its block column: k >= 0 in part 0, -1 - k for k in part
  // 1; columns no owned row reaches are never looked up.
  Kokkos::View<const index_t*> column;
  Kokkos::View<const index_t*> offset[2];   // block-row offsets of each part
  Kokkos::View<const index_t*> columns[2];  // the rows' block columns, ascending
  Kokkos::View<double*> value[2];           // n_vars^2 per block
  Kokkos::View<const double*> shift;        // added on the diagonal per owned cell, or empty
};

// A host vector's copy in the default memory space.
template <class T>
Kokkos::View<const T*> to_device(const std::vector<T>& v, const char* label) {
  Kokkos::View<T*> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), v.size());
  Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           v.data(), v.size()));
  return d;
}

class DiscretizationKernels {
 public:
  // dF/dU_L and dF/dU_R of every face flux of the first-order scheme (face
  // f of the local mesh in [0, n_owned_faces)), shape {n_faces, n_vars,
  // 2 n_vars}: [.., 0:n_vars] for U_L and [.., n_vars:2 n_vars] for U_R
  // (zero on boundary faces, whose flux depends on U_L only), from
  // ad::jacobian. Assembled (detail/first_order_matrix.hpp), they are the
  // exact Jacobian of the first-order residual: the Newton matrix of
  // solvers/euler/pseudo_transient_newton.hpp at order 1, its
  // preconditioner at order 2. U's ghost rows must be current.
  static Tensor face_jacobians(const Discretization& disc, const Tensor& U) {
    return disc.face_jacobians(U);
  }

  // Compressed block columns of dR/dU, the product of the exact Jacobian
  // with the seed matrix of a column colouring (what
  // ExactJacobian::assemble_by_colouring assembles from): with S the local
  // cells where seeded(c) != 0,
  //
  //   D[c, i, j] = sum over s in S of dR_{c,i} / dU_{s,j},   c owned,
  //
  // from one Dual<double, n_vars> evaluation of the residual (either order;
  // with a frozen limiter, phi fixed). R is the residual at U. Shapes
  // {n_local, n_vars} and {n_local, n_vars, n_vars}, ghost rows 0. Fills
  // U's ghost rows; `seeded` must mark a ghost cell exactly when its owner
  // marks it (a colouring of global cells), because derivatives arrive
  // through halo exchanges (collective).
  static void residual_block_columns(const Discretization& disc, Tensor& U,
                                     const Kokkos::View<const int*>& seeded, Tensor& R,
                                     Tensor& D) {
    disc.residual_block_columns(U, seeded, R, D);
  }

  // The same compression for the wall force of each owned cell: F[c, m, j]
  // = sum over s in S of dG_{c,m} / dU_{s,j}, with G_c the nondimensional
  // pitch-plane load of cell c's wall faces (the terms
  // Discretization::forces sums): (f_x, f_y, m_z) in 2-D, (f_x, f_z, m_y)
  // in 3-D, moments about moment_point; shape {n_owned, 3, n_vars}. The
  // objective gradient of the adjoint is a weighted sum of these
  // (collective: fills ghost rows of a copy of U).
  static Tensor force_block_columns(const Discretization& disc, const Tensor& U,
                                    const Kokkos::View<const int*>& seeded) {
    return disc.force_block_columns(U, seeded);
  }

  // Compressed columns of the derivatives with respect to node
  // coordinates (ShapeDerivative's building block): with S the local
  // nodes where seeded_nodes(n) != 0 (a colouring of global nodes: a ghost
  // node marked as its other copies are),
  //
  //   DR[c, i, d] = sum over s in S of dR_{c,i} / dx_{s,d}   ({n_local, n_vars, dim})
  //   DF[c, m, d] = sum over s in S of dG_{c,m} / dx_{s,d}   ({n_owned, 3, dim})
  //
  // at fixed U, G_c the wall force and moment of owned cell c as in
  // force_block_columns; from one Dual<double, dim> evaluation of the
  // geometry, the stencil, the residual and the wall forces. Fills U's
  // ghost rows (collective).
  static void shape_block_columns(const Discretization& disc, Tensor& U,
                                  const Kokkos::View<const int*>& seeded_nodes, Tensor& DR,
                                  Tensor& DF) {
    disc.shape_block_columns(U, seeded_nodes, DR, DF);
  }

  // (dR/dX) V ({n_local, n_vars}, owned rows) and (dG/dX) V (the wall's
  // pitch-plane load, summed over ranks) at fixed U for a displacement V of
  // the local nodes ({n_local_nodes, dim}, a node on several ranks moved
  // alike), from one Dual<double, 1> sweep of the geometry, the stencil,
  // the residual and the wall forces. Fills U's ghost rows (collective).
  static void shape_directional(const Discretization& disc, Tensor& U, const Tensor& V,
                                Tensor& DR, std::array<double, 3>& dG) {
    disc.shape_directional(U, V, DR, dG);
  }

  // The exact Jacobian dR/dU (either order; live, frozen or no limiter) by
  // the chain rule through the reconstruction, cell by cell ("stencil
  // assembly", defined in solvers/euler/stencil_jacobian.cpp, which
  // derives it): for every owned cell c and face f of c, the flux's
  // derivative through c's face state,
  //
  //   dF_f/dU_m = dF_f/dW_f,c  dW_f,c/dW_m  dW_m/dU_m,   m in M(c),
  //
  // with M(c) = c and its reconstruction neighbours (c alone at first
  // order), enters the rows of f's two cells. The terms of owned rows are
  // added into target's block rows (which must hold every column they
  // reach), one thread per row and in an order that does not depend on the
  // number of threads; the terms of a ghost cell's row go to
  // ghost_rows(row, n, cols, blocks) on the host (n columns M(c) as local
  // cell ids, n row-major n_vars x n_vars blocks, the terms of
  // dR_row/dU_cols[i]; its owner must receive them, e.g. by PETSc's
  // ADD_VALUES). Summed over all ranks, each owned row is the exact
  // Jacobian's, to round-off the blocks residual_block_columns gives. Fills
  // U's ghost rows (collective).
  using BlockVisitor = Discretization::BlockVisitor;
  static void jacobian_by_stencil(const Discretization& disc, Tensor& U,
                                  const StencilTarget& target, const BlockVisitor& ghost_rows);
};

}  // namespace camber::solvers::euler::detail
