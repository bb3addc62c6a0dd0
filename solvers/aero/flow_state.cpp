#include <camber/solvers/aero/flow_state.hpp>

#include <cstdint>
#include <filesystem>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::solvers::aero {

namespace fs = std::filesystem;

void write_flow_state(io::H5File& file, const mesh::DistributedMesh& dm, const Tensor& U) {
  const index_t n = dm.n_owned_cells();
  const index_t nv = U.dim(1);  // dim + 2 conserved variables
  Tensor owned({n, nv}), ids({n, 1});
  {
    const auto u = U.host();
    auto o = owned.host();
    auto g = ids.host();
    for (index_t c = 0; c < n; ++c) {
      for (index_t k = 0; k < nv; ++k) o(c * nv + k) = u(c * nv + k);
      g(c) = static_cast<double>(dm.cell_global_ids()[static_cast<size_t>(c)]);
    }
    Kokkos::deep_copy(owned.view(), o);
    Kokkos::deep_copy(ids.view(), g);
  }
  file.write("fields/conserved_nondimensional", owned);
  file.write("fields/cell_global_id", ids);
  file.set_attribute("", "n_cells", static_cast<std::int64_t>(dm.n_global_cells()));
}

Tensor read_flow_state(const std::string& path, const mesh::DistributedMesh& dm,
                      const std::function<void(io::H5File&)>& attributes) {
  collective_guard(dm.comm(), [&] {
    CAMBER_INPUT_REQUIRE(fs::exists(path), "no state file '" << path << "'");
  });
  Tensor state, ids;
  collective_guard(dm.comm(), [&] {
    io::H5File file(path, io::Mode::read, dm.comm());
    const auto n = file.attribute<std::int64_t>("", "n_cells");
    CAMBER_INPUT_REQUIRE(n == dm.n_global_cells(),
                         "'" << path << "' holds " << n << " cells, the mesh has "
                                        << dm.n_global_cells());
    if (attributes) attributes(file);
    state = file.read_all("fields/conserved_nondimensional");
    ids = file.read_all("fields/cell_global_id");
    CAMBER_INPUT_REQUIRE(state.rank() == 2 && state.dim(1) == dm.local().dim() + 2,
                         "'" << path << "' holds " << (state.rank() == 2 ? state.dim(1) : 0)
                             << " variables per cell; a " << dm.local().dim()
                             << "-D flow has " << dm.local().dim() + 2);
  });
  const index_t nv = state.dim(1);
  const auto s = state.host();
  const auto g = ids.host();
  std::vector<std::int64_t> row(static_cast<size_t>(dm.n_global_cells()), -1);
  for (index_t r = 0; r < ids.dim(0); ++r) row[static_cast<size_t>(g(r))] = r;
  std::vector<double> u(static_cast<size_t>(dm.n_local_cells() * nv), 0.0);
  for (index_t c = 0; c < dm.n_owned_cells(); ++c) {
    const std::int64_t r = row[static_cast<size_t>(dm.cell_global_ids()[static_cast<size_t>(c)])];
    CAMBER_REQUIRE(r >= 0, "'" << path << "' lacks a cell of this mesh");
    for (index_t k = 0; k < nv; ++k) u[static_cast<size_t>(c * nv + k)] = s(r * nv + k);
  }
  return Tensor::from_host({dm.n_local_cells(), nv}, u);
}

void write_steady_state(const std::string& path, const euler::Discretization& disc, const Tensor& U,
                        const euler::SteadyResult& result, double reference_residual,
                        const std::vector<std::pair<std::string, std::string>>& labels) {
  mesh::DistributedMesh& dm = disc.mesh();
  io::H5File file(path, io::Mode::create, dm.comm());
  write_flow_state(file, dm, U);
  file.set_attribute("", "mach", disc.flow().mach);
  file.set_attribute("", "alpha_deg", disc.flow().alpha_deg);
  file.set_attribute("", "newton_steps", static_cast<std::int64_t>(result.iterations));
  file.set_attribute("", "reference_residual", reference_residual);
  file.set_attribute("", "CL", result.forces.cl);
  file.set_attribute("", "CD", result.forces.cd);
  file.set_attribute("", "CM", result.forces.cm);
  for (const auto& [name, text] : labels) file.set_attribute("", name, text);
  file.close();
}

double read_steady_state(const std::string& path, const euler::Discretization& disc, Tensor& U) {
  double reference = 0.0;
  const Tensor state = read_flow_state(path, disc.mesh(), [&](io::H5File& file) {
    reference = file.attribute<double>("", "reference_residual");
  });
  Kokkos::deep_copy(U.view(), state.view());
  return reference;
}

}  // namespace camber::solvers::aero
