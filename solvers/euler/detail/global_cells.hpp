// The global cell graph of a distributed Euler discretization, gathered on
// every rank: face neighbours, nodes and PETSc block of every global cell,
// and the stencils S(c) on which the residual of c depends (c, its face
// neighbours, and the reconstruction neighbours of all of them: face or
// node neighbours). What the column colourings
// of the exact Jacobian (exact_jacobian.cpp) and of the shape derivative
// (shape_derivative.cpp) are computed from: every rank computes the same
// colouring. O(global cells) memory per rank.
#pragma once

#include <petscsys.h>

#include <cstdint>
#include <vector>

#include <camber/solvers/euler/discretization.hpp>

namespace camber::solvers::euler::detail {

struct GlobalCells {
  std::vector<std::int64_t> offset, neighbor;    // face neighbours, CSR by global cell
  std::vector<std::int64_t> node_offset, node;   // global node ids, CSR by global cell
  std::vector<PetscInt> block;                   // PETSc block by global cell
  std::int64_t n_nodes = 0;                      // global nodes
  int dim = 2;                                   // the mesh's
  // Which cells' reconstruction takes the cells sharing a node, not the
  // face neighbours (uses_node_stencil; faces at first order).
  GradientStencil stencil = GradientStencil::faces;
};

// Collective over disc's communicator.
GlobalCells gather_global_cells(const Discretization& disc);

// The cells of every global node, in ascending order (CSR by node).
void node_cells(const GlobalCells& g, std::vector<std::int64_t>& offset,
                std::vector<std::int64_t>& cells);

// S(c) for every global cell, sorted (CSR): c, its face neighbours, and the
// reconstruction neighbours of c and of each face neighbour.
void distance_two_stencils(const GlobalCells& g, std::vector<std::int64_t>& offset,
                           std::vector<std::int64_t>& stencil);

// The transpose of a CSR stencil: the rows c with j in S(c), for every j,
// sorted. With node-neighbour reconstruction S is not symmetric (a face
// neighbour's node neighbour is in S(c), c need not be in its S).
void transpose_stencils(const std::vector<std::int64_t>& offset,
                        const std::vector<std::int64_t>& stencil,
                        std::vector<std::int64_t>& t_offset, std::vector<std::int64_t>& t_stencil);

}  // namespace camber::solvers::euler::detail
