/// @file
/// PETSc's global numbering of the cells of a DistributedMesh.
///
/// PETSc distributes the rows of a matrix (and the entries of a vector) in
/// contiguous ranges, one per rank in rank order, while a DistributedMesh
/// numbers its cells locally (owned cells, then ghosts). petsc_cell_numbers()
/// maps every local cell to its PETSc index: rank r's owned cells are
/// offset_r .. offset_r + n_owned_r - 1 in local order (offset_r the
/// exclusive scan of the owned counts), and a ghost gets its owner's number
/// through the halo exchange. With block size b the PETSc rows of cell c are
/// b * number[c] .. b * number[c] + b - 1.
///
/// @code
///   const std::vector<PetscInt> number = camber::solvers::petsc::petsc_cell_numbers(dm);
///   // MatSetValuesBlocked(A, 1, &number[row_cell], 1, &number[col_cell], block, ADD_VALUES);
/// @endcode
///
/// Collective over dm.comm(). Indices are exchanged as doubles (exact below
/// 2^53, beyond any 64-bit PETSc matrix that fits in memory).
#pragma once

#include <petscsys.h>

#include <vector>

#include <camber/mesh/distributed_mesh.hpp>

namespace camber::solvers::petsc {

/// The PETSc index of every local cell (owned, then ghosts) of `dm`.
std::vector<PetscInt> petsc_cell_numbers(const mesh::DistributedMesh& dm);

}  // namespace camber::solvers::petsc
