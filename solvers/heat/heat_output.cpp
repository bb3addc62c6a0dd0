#include "heat_output.hpp"

#include <filesystem>
#include <vector>

#include <camber/core/timer.hpp>
#include <camber/io/hdf5_file.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_writer.hpp>

namespace camber::solvers::heat {

namespace {

// The owned rows of a cell field of shape {n_local_cells}.
Tensor owned_rows(const Tensor& field, index_t n_owned) {
  std::vector<double> values = field.to_vector();
  values.resize(static_cast<size_t>(n_owned));
  return Tensor::from_host({n_owned}, values);
}

}  // namespace

std::string write_heat_paraview(const std::string& dir, const std::string& name,
                                const mesh::DistributedMesh& dm, const HeatResult& r) {
  ScopedTimer timer("write_vtk");
  const auto t = r.temperature.to_vector();
  const auto e = r.exact.to_vector();
  std::vector<double> err(t.size());
  for (size_t i = 0; i < t.size(); ++i) err[i] = t[i] - e[i];
  const io::UnstructuredPiece piece = dm.owned_piece(
      {{"Temperature [K]", 1, t}, {"Exact temperature [K]", 1, e}, {"Error [K]", 1, err}});
  const std::string pvtu = io::write_pvtu(dir + "/" + io::series_file_name(name, 0), piece, dm.comm());
  io::PvdSeries series(dir + "/" + name + ".pvd", dm.comm());
  series.add(0.0, std::filesystem::path(pvtu).filename().string());
  return series.path();
}

std::string write_heat_hdf5(const std::string& dir, const std::string& name,
                            const mesh::DistributedMesh& dm, const HeatResult& r,
                            const HeatFileAttributes& a) {
  ScopedTimer timer("write_hdf5");
  const std::string path = dir + "/" + name + ".h5";
  const index_t n_owned = dm.n_owned_cells();
  io::H5File file(path, io::Mode::create, dm.comm());
  // Rows are the owned cells of rank 0, then rank 1, ...; cell_id gives
  // each row's cell in the mesh's own numbering.
  file.write("fields/temperature_K", owned_rows(r.temperature, n_owned));
  file.write("fields/exact_temperature_K", owned_rows(r.exact, n_owned));
  std::vector<double> ids(dm.cell_global_ids().begin(), dm.cell_global_ids().begin() + n_owned);
  file.write("fields/cell_id", Tensor::from_host({n_owned}, ids));
  file.set_attribute("", "case", name);
  file.set_attribute("", "deck", a.deck);
  file.set_attribute("", "cells", static_cast<std::int64_t>(dm.n_global_cells()));
  if (!a.mesh_file.empty()) {
    file.set_attribute("", "mesh_file", a.mesh_file);
  } else {
    file.set_attribute("", "cells_x", a.cells_x);
    file.set_attribute("", "cells_y", a.cells_y);
  }
  file.set_attribute("", "l2_error_K", r.l2_error);
  file.set_attribute("", "max_error_K", r.max_error);
  file.close();
  return path;
}

}  // namespace camber::solvers::heat
