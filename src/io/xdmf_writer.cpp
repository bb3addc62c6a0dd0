#include <camber/io/xdmf_writer.hpp>

#include <cstdint>
#include <filesystem>
#include <set>
#include <sstream>
#include <vector>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include "detail/files.hpp"
#include <camber/io/hdf5_file.hpp>
#include <camber/core/runtime.hpp>
#include <camber/core/tensor.hpp>

namespace camber::io {

namespace fs = std::filesystem;

namespace {

// XDMF topology code of a VTK cell type, and whether the node count follows
// it in a Mixed topology (the variable-size types); -1 if XDMF has none.
int xdmf_type(std::uint8_t vtk_type, bool& with_count) {
  with_count = false;
  switch (vtk_type) {
    case vtk_cell::vertex: with_count = true; return 1;   // Polyvertex
    case vtk_cell::line: with_count = true; return 2;     // Polyline
    case vtk_cell::polygon: with_count = true; return 3;  // Polygon
    case vtk_cell::triangle: return 4;
    case vtk_cell::quad: return 5;
    case vtk_cell::tetra: return 6;
    case vtk_cell::pyramid: return 7;
    case vtk_cell::wedge: return 8;
    case vtk_cell::hexahedron: return 9;
    default: return -1;
  }
}


std::int64_t sum_over_ranks(std::int64_t value, MPI_Comm comm) {
  std::int64_t total = 0;
  CAMBER_CHECK_MPI(MPI_Allreduce(&value, &total, 1, MPI_INT64_T, MPI_SUM, comm));
  return total;
}

// {rows, components}, or {rows} for a scalar field.
Tensor field_rows(const Field& field, std::int64_t rows) {
  if (field.components == 1) return Tensor::from_host({rows}, field.values);
  return Tensor::from_host({rows, field.components}, field.values);
}

// One <Attribute> element referring to dataset `dataset` of `h5`.
void attribute_xml(std::ostringstream& xml, const Field& field, const char* center,
                   std::int64_t rows, const std::string& h5, const std::string& dataset) {
  const bool scalar = field.components == 1;
  const char* type = scalar ? "Scalar" : field.components == 3 ? "Vector" : "Matrix";
  xml << "      <Attribute Name=\"" << detail::xml_escape(field.name) << "\" AttributeType=\"" << type
      << "\" Center=\"" << center << "\">\n"
      << "        <DataItem Dimensions=\"" << rows;
  if (!scalar) xml << " " << field.components;
  xml << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << detail::xml_escape(h5) << ":"
      << dataset << "</DataItem>\n"
      << "      </Attribute>\n";
}

}  // namespace

std::string write_xdmf_mesh(const std::string& h5_path, const std::string& xdmf_path,
                            const UnstructuredPiece& block, MPI_Comm comm) {
  const std::int64_t n_points = sum_over_ranks(block.n_points(), comm);
  const std::int64_t n_cells = sum_over_ranks(block.n_cells(), comm);

  // Checks that need no other rank; an error on one rank is raised on all.
  std::vector<double> topology;
  collective_guard(comm, [&] {
    CAMBER_REQUIRE(!h5_path.empty() && !xdmf_path.empty(),
                   "write_xdmf_mesh: the HDF5 or XDMF path is empty");
    CAMBER_REQUIRE(block.points_xyz.size() % 3 == 0,
                   "write_xdmf_mesh: points_xyz has " << block.points_xyz.size()
                                                      << " values, not 3 per point");
    CAMBER_REQUIRE(block.offsets.size() == block.cell_types.size(),
                   "write_xdmf_mesh: " << block.cell_types.size() << " cell types but "
                                       << block.offsets.size() << " offsets");
    std::int64_t begin = 0;
    for (std::size_t c = 0; c < block.cell_types.size(); ++c) {
      const std::int64_t end = block.offsets[c];
      CAMBER_REQUIRE(end > begin && end <= static_cast<std::int64_t>(block.connectivity.size()),
                     "write_xdmf_mesh: offsets[" << c << "] = " << end << " is not in ("
                                                 << begin << ", "
                                                 << block.connectivity.size() << "]");
      bool with_count = false;
      const int type = xdmf_type(block.cell_types[c], with_count);
      CAMBER_REQUIRE(type >= 0, "write_xdmf_mesh: cell " << c << " has VTK type "
                                                         << int(block.cell_types[c])
                                                         << ", which XDMF cannot hold");
      topology.push_back(type);
      if (with_count) topology.push_back(static_cast<double>(end - begin));
      for (std::int64_t k = begin; k < end; ++k) {
        const std::int64_t id = block.connectivity[static_cast<std::size_t>(k)];
        CAMBER_REQUIRE(id >= 0 && id < n_points,
                       "write_xdmf_mesh: cell " << c << " uses point " << id
                                                << ", outside the " << n_points
                                                << " global points (connectivity holds global "
                                                   "point ids)");
        topology.push_back(static_cast<double>(id));
      }
      begin = end;
    }
    CAMBER_REQUIRE(begin == static_cast<std::int64_t>(block.connectivity.size()),
                   "write_xdmf_mesh: the last offset is " << begin << " but connectivity has "
                                                         << block.connectivity.size()
                                                         << " entries");
    const auto check_fields = [](const std::vector<Field>& fields, std::int64_t rows,
                                 const char* kind) {
      for (const Field& f : fields)
        CAMBER_REQUIRE(!f.name.empty() && f.components >= 1 &&
                           static_cast<std::int64_t>(f.values.size()) == rows * f.components,
                       "write_xdmf_mesh: " << kind << " field '" << f.name << "' has "
                                           << f.values.size() << " values for " << rows << " "
                                           << kind << "s x " << f.components
                                           << " components");
    };
    check_fields(block.cell_data, block.n_cells(), "cell");
    check_fields(block.point_data, block.n_points(), "point");
  });
  const std::int64_t topology_size =
      sum_over_ranks(static_cast<std::int64_t>(topology.size()), comm);

  // H5File checks that ranks agree on dataset names and shapes beyond the
  // rows, so fields that differ between ranks are an error there.
  H5File h5(h5_path, Mode::create, comm);
  h5.write("mesh/points", Tensor::from_host({block.n_points(), 3}, block.points_xyz));
  h5.write("mesh/topology",
           Tensor::from_host({static_cast<index_t>(topology.size())}, topology));
  for (std::size_t i = 0; i < block.cell_data.size(); ++i)
    h5.write("cell_data/field_" + std::to_string(i),
             field_rows(block.cell_data[i], block.n_cells()));
  for (std::size_t i = 0; i < block.point_data.size(); ++i)
    h5.write("point_data/field_" + std::to_string(i),
             field_rows(block.point_data[i], block.n_points()));
  h5.close();

  // The .xdmf names the HDF5 file relative to itself, so the pair can move.
  const fs::path xdmf(xdmf_path);
  const fs::path h5_relative =
      fs::absolute(h5_path).lexically_proximate(fs::absolute(xdmf).parent_path());
  const std::string h5_name = h5_relative.generic_string();
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" ?>\n"
      << "<Xdmf Version=\"3.0\">\n"
      << "  <Domain>\n"
      << "    <Grid Name=\"mesh\" GridType=\"Uniform\">\n"
      << "      <Topology TopologyType=\"Mixed\" NumberOfElements=\"" << n_cells << "\">\n"
      << "        <DataItem Dimensions=\"" << topology_size
      << "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << detail::xml_escape(h5_name)
      << ":/mesh/topology</DataItem>\n"
      << "      </Topology>\n"
      << "      <Geometry GeometryType=\"XYZ\">\n"
      << "        <DataItem Dimensions=\"" << n_points
      << " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" << detail::xml_escape(h5_name)
      << ":/mesh/points</DataItem>\n"
      << "      </Geometry>\n";
  for (std::size_t i = 0; i < block.cell_data.size(); ++i)
    attribute_xml(xml, block.cell_data[i], "Cell", n_cells, h5_name,
                  "/cell_data/field_" + std::to_string(i));
  for (std::size_t i = 0; i < block.point_data.size(); ++i)
    attribute_xml(xml, block.point_data[i], "Node", n_points, h5_name,
                  "/point_data/field_" + std::to_string(i));
  xml << "    </Grid>\n"
      << "  </Domain>\n"
      << "</Xdmf>\n";
  detail::on_rank0(comm, [&] {
    write_file_atomically(xdmf, xml.str());
  });
  return xdmf_path;
}

}  // namespace camber::io
