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
///
///   // A steady solve's restart file (what `camber run` writes and
///   // `--restart` reads): the state and what its convergence is measured
///   // against, so that a restarted solve stops where one run would.
///   aero::write_steady_state("out/case.h5", disc, U, result, reference_residual);
///   so.reference_residual = aero::read_steady_state("out/case.h5", disc, U);
/// @endcode
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>

namespace camber::solvers::aero {

/// The owned rows of U ({n_local, dim + 2}) and their global cell ids into an
/// open file. Collective.
void write_flow_state(io::H5File& file, const mesh::DistributedMesh& dm, const Tensor& U);

/// Back into the {n_local, dim + 2} layout of `dm` (ghost rows 0), calling
/// `attributes` on the open file. Collective; bad_input (on every rank) for
/// a missing file, another mesh's cell count or dimension, or a missing cell.
Tensor read_flow_state(const std::string& path, const mesh::DistributedMesh& dm,
                       const std::function<void(io::H5File&)>& attributes = {});

/// A steady solve's state file at `path` (written atomically): the owned
/// rows of U (write_flow_state) and the attributes mach, alpha_deg,
/// newton_steps, reference_residual (the residual the solve's convergence
/// is measured against), CL, CD and CM, then each (name, text) of
/// `labels` (e.g. the case and the deck it came from). Collective.
void write_steady_state(const std::string& path, const euler::Discretization& disc, const Tensor& U,
                        const euler::SteadyResult& result, double reference_residual,
                        const std::vector<std::pair<std::string, std::string>>& labels = {});

/// Fills the owned rows of U ({n_local, dim + 2}) from a state file that
/// write_steady_state wrote for the same mesh (at any rank count) and
/// returns its reference_residual, for SteadyOptions::reference_residual.
/// Collective; bad_input on every rank for a missing file or another
/// mesh's.
double read_steady_state(const std::string& path, const euler::Discretization& disc, Tensor& U);

}  // namespace camber::solvers::aero
