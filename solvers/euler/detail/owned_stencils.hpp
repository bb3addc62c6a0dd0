// The exact Jacobian's sparsity and a column colouring of it, built where
// the mesh lies: no rank holds more than its own rows (what the colourings
// of solvers/euler/exact_jacobian.cpp are computed from).
//
// The residual of cell r depends on the states of S(r), the cells M(q) of
// the reconstructions of r and of its face neighbours q (M(q) = q and its
// reconstruction neighbours at second order, q alone at first). Each rank
// knows M(c) for its owned cells c, so it sends (r, m) for r in {c} and
// c's face neighbours and m in M(c) to the owner of r; each owner then
// holds S(r) of its rows. The colouring is PETSc's parallel greedy
// distance-2 colouring (MatColoring) of the symmetrized pattern: two
// columns of one row are within distance 2, so they get different colours.
// The colours depend on the partition; the matrices assembled with them do
// not (every entry is the exact derivative).
#pragma once

#include <petscsys.h>

#include <cstdint>
#include <vector>

#include <camber/solvers/euler/discretization.hpp>

namespace camber::solvers::euler::detail {

// The cells' PETSc numbering (solvers/petsc/petsc_numbering.hpp) and its
// ranks' ranges. Collective.
struct CellLayout {
  std::vector<PetscInt> block;   // PETSc block of every local cell
  std::vector<PetscInt> ranges;  // first block of every rank, then the total
};
CellLayout cell_layout(const Discretization& disc);

struct OwnedStencils : CellLayout {
  std::vector<std::int64_t> offset;  // CSR over the owned cells
  std::vector<PetscInt> column;      // S(c) as PETSc blocks, sorted
};

// Collective over disc's communicator.
OwnedStencils owned_stencils(const Discretization& disc);

// The colour of every local cell (ghosts as their owners have them) and of
// every column of the owned stencils (in `column` order), and the number of
// colours. Collective.
struct ColumnColouring {
  int n_colors = 0;
  std::vector<int> local;   // per local cell
  std::vector<int> column;  // per entry of OwnedStencils::column
};
ColumnColouring colour_columns(const OwnedStencils& s, MPI_Comm comm);

// The node colouring of the shape derivative (solvers/euler/
// shape_derivative.cpp): NS(c), the nodes of the cells of S(c), on which
// R_c depends through the geometry, for every owned cell (built as S is:
// the nodes of M(c) sent to the owners of c's and its face neighbours'
// rows), and a colouring of the global nodes in which no NS(c) holds two
// nodes of one colour: PETSc's greedy colouring of B^T B, B the cell-node
// incidence of the NS (nodes laid out in equal ranges of global ids).
// Collective.
struct NodeColouring {
  int n_colors = 0;
  std::vector<std::int64_t> offset;  // CSR over the owned cells
  std::vector<std::int64_t> node;    // NS(c): global node ids, sorted
  std::vector<int> column;           // colour of every entry of node
  std::vector<int> local;            // colour of every local node
};
NodeColouring colour_nodes(const Discretization& disc, const CellLayout& s);

}  // namespace camber::solvers::euler::detail
