/// @file
/// camber::solvers::heat heat output — a steady heat solution's files, what
/// `camber run` writes for a `problem: heat` deck: a ParaView series and an
/// HDF5 file of the cell temperatures.
///
/// ParaView: `<dir>/<name>.pvd`, a series of one step (time 0) over
/// `<dir>/<name>_0000.pvtu` and one .vtu piece per rank, with the cell
/// fields "Temperature [K]", "Exact temperature [K]" and "Error [K]" (the
/// first minus the second) of the owned cells. HDF5: `<dir>/<name>.h5`,
/// whose rows are the owned cells of rank 0, then rank 1, ...:
///
/// @code
///   /fields/temperature_K        {n_global_cells}  HeatResult::temperature
///   /fields/exact_temperature_K  {n_global_cells}  HeatResult::exact
///   /fields/cell_id              {n_global_cells}  each row's cell in the mesh's numbering
///   root attributes: case, deck, cells (n_global_cells), mesh_file or
///                    cells_x and cells_y, l2_error_K, max_error_K
/// @endcode
///
/// @code
///   const heat::HeatResult r = heat::solve_heat(dm, problem);
///   heat::write_heat_paraview("out", "plate", dm, r);       // out/plate.pvd
///   heat::HeatFileAttributes a;
///   a.cells_x = 64; a.cells_y = 32;
///   heat::write_heat_hdf5("out", "plate", dm, r, a);        // out/plate.h5
/// @endcode
///
/// Both are collective over dm.comm(), write their files atomically
/// (io::H5File, io::write_pvtu, io::PvdSeries) and return the path of the
/// file a user opens. Built with HDF5 and VTK (CAMBER_ENABLE_IO).
#pragma once

#include <cstdint>
#include <string>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/solvers/heat/heat_conduction.hpp>

namespace camber::solvers::heat {

/// Where a solution came from, as the HDF5 file's root attributes.
struct HeatFileAttributes {
  std::string deck;       ///< attribute deck: the deck's file ("" from a C++ program)
  std::string mesh_file;  ///< attribute mesh_file, for a mesh read from a file ("": generated)
  /// Attributes cells_x and cells_y, of a generated rectangle (written when
  /// mesh_file is "").
  std::int64_t cells_x = 0, cells_y = 0;
};

/// Writes the ParaView series `<dir>/<name>.pvd` of `r` on `dm` (see the
/// file comment) and returns its path. Collective over dm.comm().
std::string write_heat_paraview(const std::string& dir, const std::string& name,
                                const mesh::DistributedMesh& dm, const HeatResult& r);

/// Writes `<dir>/<name>.h5` of `r` on `dm` (attribute case = `name`; see
/// the file comment) and returns its path. Collective over dm.comm().
std::string write_heat_hdf5(const std::string& dir, const std::string& name,
                            const mesh::DistributedMesh& dm, const HeatResult& r,
                            const HeatFileAttributes& attributes);

}  // namespace camber::solvers::heat
