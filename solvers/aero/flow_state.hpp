/// @file
/// The Euler state in an HDF5 file, readable at any rank count: the
/// conserved variables (nondimensional) of every owned cell with its global
/// cell id, and the attribute n_cells. What `camber run` writes for
/// --restart and what an airfoil design checkpoints after every design.
///
/// @code
///   io::H5File file("state.h5", io::Mode::create, dm.comm());
///   aero::write_flow_state(file, dm, U);              // collective
///   file.close();
///   Tensor U2 = aero::read_flow_state("state.h5", dm2);  // any partition of the same mesh
/// @endcode
#pragma once

#include <functional>
#include <string>

#include <camber/core/tensor.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/mesh/distributed_mesh.hpp>

namespace camber::solvers::aero {

/// The owned rows of U ({n_local, dim + 2}) and their global cell ids into an
/// open file. Collective.
void write_flow_state(io::H5File& file, const mesh::DistributedMesh& dm, const Tensor& U);

/// Back into the {n_local, dim + 2} layout of `dm` (ghost rows 0), calling
/// `attributes` on the open file. Collective; bad_input (on every rank) for
/// a missing file, another mesh's cell count or dimension, or a missing cell.
Tensor read_flow_state(const std::string& path, const mesh::DistributedMesh& dm,
                       const std::function<void(io::H5File&)>& attributes = {});

}  // namespace camber::solvers::aero
