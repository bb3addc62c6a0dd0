// The global cell graph of a distributed Euler discretization, gathered on
// every rank: face neighbours, nodes and PETSc block of every global cell,
// and the distance-2 stencils S(c) (c, its face neighbours and theirs) on
// which the second-order residual of c depends. What the column colourings
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
};

// Collective over disc's communicator.
GlobalCells gather_global_cells(const Discretization& disc);

// S(c) for every global cell, sorted (CSR).
void distance_two_stencils(const GlobalCells& g, std::vector<std::int64_t>& offset,
                           std::vector<std::int64_t>& stencil);

}  // namespace camber::solvers::euler::detail
