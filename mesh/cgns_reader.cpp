#include <camber/mesh/cgns_reader.hpp>

#include <camber/core/config.hpp>
#include <camber/core/error.hpp>

#include "detail/cgns_common.hpp"

#if CAMBER_WITH_CGNS

#include <cstdint>
#include <vector>

namespace camber::mesh {

MeshData read_cgns_data(const std::string& path) {
  using namespace detail;
  CgnsFile file(path);
  const CgnsZone zone = read_cgns_zone(file);
  const int cell_dim = zone.cell_dim;
  const std::int64_t n_nodes = zone.n_nodes;

  MeshData d;
  d.dim = cell_dim;
  d.source = path;

  std::vector<CgnsSection> sections;
  for (int s = 1; s <= zone.n_sections; ++s) sections.push_back(read_cgns_section(file, zone, s));
  require_cgns_boundary_conditions(file, zone, sections);

  std::vector<std::vector<double>> xyz(3);
  for (int k = 0; k < 3; ++k)
    if (zone.has_axis[static_cast<std::size_t>(k)]) {
      xyz[k] = read_cgns_coords(file, k, 0, n_nodes);
      require_cgns_finite(path, zone, k, xyz[k], 0);
    }
  if (cell_dim == 2 && !xyz[2].empty()) require_cgns_plane(path, zone, xyz[2], 0, xyz[2][0]);
  d.coords.resize(static_cast<std::size_t>(n_nodes) * static_cast<std::size_t>(cell_dim));
  for (std::int64_t i = 0; i < n_nodes; ++i)
    for (int k = 0; k < cell_dim; ++k)
      d.coords[static_cast<std::size_t>(i) * cell_dim + k] = xyz[k][static_cast<std::size_t>(i)];

  // Element sections: cells in file order, the boundary faces of each
  // section the marker named after it (CGNS names are unique within a zone).
  for (const CgnsSection& sec : sections) {
    const int s = sec.index;
    std::vector<cgsize_t> conn(static_cast<std::size_t>(sec.data_size));
    if (sec.mixed) {
      // Each element's type code, then its nodes; the offsets (CGNS 3.4's
      // ElementStartOffset), when stored, must be what the types imply.
      std::vector<cgsize_t> offsets(static_cast<std::size_t>(sec.n_elements) + 1);
      file.check(cg_poly_elements_read(file.fn(), CgnsZone::base, CgnsZone::zone, s, conn.data(),
                                       offsets.data(), nullptr),
                 sec.place() + ": reading the connectivity");
      if (sec.has_offsets) require_cgns_mixed_offsets(conn, offsets, sec, sec.first, true, true);
    } else {
      file.check(
          cg_elements_read(file.fn(), CgnsZone::base, CgnsZone::zone, s, conn.data(), nullptr),
          sec.place() + ": reading the connectivity");
    }
    MeshData::Marker* marker = nullptr;
    for_each_cgns_element(conn, sec, sec.first, sec.n_elements, n_nodes, cell_dim,
                          [&](bool is_cell, CellType t, const index_t* nodes, int n) {
                            if (is_cell) {
                              d.add_cell(t, nodes, n);
                              return;
                            }
                            if (marker == nullptr) marker = &d.add_marker(sec.place.section);
                            marker->add_element(nodes, n);
                          });
  }
  require_cgns_cell_count(path, zone, d.n_cells());
  return d;
}

#else

namespace camber::mesh {

MeshData read_cgns_data(const std::string& path) {
  throw_bad_input(detail::cgns_not_built_message(path));
}

#endif  // CAMBER_WITH_CGNS

Mesh read_cgns(const std::string& path) {
  return Mesh::from_cells(read_cgns_data(path), Orientation::fix);
}

}  // namespace camber::mesh
