#include <camber/mesh/gmsh_reader.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "detail/text_reader.hpp"
#include <camber/mesh/su2_reader.hpp>
#include <camber/core/error.hpp>

namespace camber::mesh {

namespace {

using detail::quote;
using detail::TextReader;

struct RawElement {
  CellType type;
  int entity_tag;
  long line;
  long long tags[8];
};

// Gmsh element type -> (CellType, node count); false for unsupported types.
// Type 15 (a point) is reported with n = 1 and is skipped by the caller.
bool gmsh_type(long long id, CellType& type, int& n) {
  switch (id) {
    case 1: type = CellType::line; n = 2; return true;
    case 2: type = CellType::triangle; n = 3; return true;
    case 3: type = CellType::quad; n = 4; return true;
    case 4: type = CellType::tetrahedron; n = 4; return true;
    case 5: type = CellType::hexahedron; n = 8; return true;
    case 6: type = CellType::prism; n = 6; return true;
    case 7: type = CellType::pyramid; n = 5; return true;
    case 15: type = CellType::line; n = 1; return true;
    default: return false;
  }
}

// `n` entries of `lines_each` lines must fit in the rest of the file
// (compared without forming n * lines_each, which a lying header could
// overflow).
void check_fits(const TextReader& r, const std::string& what, long long n, long lines_each = 1) {
  if (n < 0) r.fail("expected a non-negative " + what + ", found " + std::to_string(n));
  if (n > r.lines_left() / lines_each)
    r.fail(what + " = " + std::to_string(n) + " but only " + std::to_string(r.lines_left()) +
           " lines follow" + (lines_each > 1 ? " (" + std::to_string(lines_each) + " per entry)" : "") +
           "; the file is truncated or the count is wrong");
}

void expect_end(TextReader& r, const std::string& section) {
  r.require_line("$End" + section);
  if (r.line() != "$End" + section) r.fail("expected $End" + section + ", found " + quote(r.line()));
}

}  // namespace

MeshData read_gmsh_data(const std::string& path) {
  TextReader r(path);
  bool have_format = false, have_nodes = false, have_elements = false;
  std::map<std::pair<int, int>, std::string> physical_name;  // (dim, tag) -> name
  std::unordered_map<int, int> entity_physical[4];           // entity tag -> physical tag
  std::unordered_map<long long, index_t> node_of_tag;
  std::vector<double> xyz;
  std::vector<RawElement> cells[4];  // by element dimension
  std::vector<int> cell_entity_dim[4];

  while (r.next_line()) {
    const std::string_view header = r.line();
    if (header.empty() || header[0] != '$')
      r.fail("expected a section header such as $Nodes, found " + quote(header));
    const std::string name(header.substr(1));
    if (!have_format && name != "MeshFormat")
      r.fail("expected $MeshFormat as the first section, found " + quote(header));

    if (name == "MeshFormat") {
      if (have_format) r.fail("$MeshFormat given twice");
      have_format = true;
      r.require_line("the format line '4.1 0 8'");
      r.require_fields(3, 3, "the format line 'version file-type data-size' (4.1 0 8)");
      if (r.tokens()[0] != "4.1")
        r.fail("expected Gmsh format version 4.1, found " + quote(r.tokens()[0]) +
               "; export with Mesh.MshFileVersion = 4.1 (gmsh -format msh41)");
      const long long file_type = r.integer(1, "the file type (0 for ASCII)");
      if (file_type != 0)
        r.fail("expected file type 0 (ASCII), found " + quote(r.tokens()[1]) +
               "; binary .msh files are not supported, export with Mesh.Binary = 0");
      (void)r.integer(2, "the data size");
      expect_end(r, name);
    } else if (name == "PhysicalNames") {
      r.require_line("the number of physical names");
      r.require_fields(1, 1, "the number of physical names");
      const long long n = r.integer(0, "the number of physical names");
      check_fits(r, "number of physical names", n);
      for (long long i = 0; i < n; ++i) {
        r.require_line("a physical name 'dimension tag \"name\"'");
        if (r.tokens().size() < 3)
          r.fail("expected 'dimension tag \"name\"', found " + quote(r.line()));
        const long long dim = r.integer(0, "the dimension of a physical group");
        const long long tag = r.integer(1, "the tag of a physical group");
        if (dim < 0 || dim > 3) r.fail("expected a dimension 0 to 3, found " + quote(r.tokens()[0]));
        const std::string_view l = r.line();
        const std::size_t open = l.find('"'), close = l.rfind('"');
        if (open == std::string_view::npos || close == open)
          r.fail("expected a quoted name (\"...\") after the tag, found " + quote(l));
        physical_name[{static_cast<int>(dim), static_cast<int>(tag)}] =
            std::string(l.substr(open + 1, close - open - 1));
      }
      expect_end(r, name);
    } else if (name == "Entities") {
      r.require_line("the entity counts 'numPoints numCurves numSurfaces numVolumes'");
      r.require_fields(4, 4, "the entity counts 'numPoints numCurves numSurfaces numVolumes'");
      long long count[4];
      long long total = 0;
      for (int k = 0; k < 4; ++k) {
        count[k] = r.integer(k, "an entity count");
        check_fits(r, "entity count", count[k]);
        total += count[k];
      }
      check_fits(r, "number of entities", total);
      for (int dim = 0; dim < 4; ++dim) {
        for (long long i = 0; i < count[dim]; ++i) {
          r.require_line("entity " + std::to_string(i) + " of dimension " + std::to_string(dim));
          const std::size_t np_at = dim == 0 ? 4 : 7;
          const long long tag = r.integer(0, "an entity tag");
          for (std::size_t k = 1; k < np_at; ++k) (void)r.real(k, "a coordinate of the entity");
          const long long n_phys = r.integer(np_at, "the number of physical tags");
          if (n_phys < 0 || np_at + 1 + static_cast<std::size_t>(n_phys) > r.tokens().size())
            r.fail("expected " + std::to_string(n_phys) +
                   " physical tags after the count, found fewer fields");
          if (n_phys > 0)
            entity_physical[dim][static_cast<int>(tag)] =
                static_cast<int>(std::llabs(r.integer(np_at + 1, "a physical tag")));
          for (std::size_t k = np_at + 1; k < r.tokens().size(); ++k)
            (void)r.integer(k, "a tag");
        }
      }
      expect_end(r, name);
    } else if (name == "Nodes") {
      if (have_nodes) r.fail("$Nodes given twice");
      have_nodes = true;
      r.require_line("'numEntityBlocks numNodes minNodeTag maxNodeTag'");
      r.require_fields(4, 4, "'numEntityBlocks numNodes minNodeTag maxNodeTag'");
      const long long n_blocks = r.integer(0, "numEntityBlocks");
      const long long n_nodes = r.integer(1, "numNodes");
      check_fits(r, "numEntityBlocks", n_blocks);
      check_fits(r, "numNodes", n_nodes, 2);  // a tag line and a coordinate line each
      xyz.reserve(3 * static_cast<std::size_t>(n_nodes));
      node_of_tag.reserve(static_cast<std::size_t>(n_nodes));
      long long read = 0;
      for (long long b = 0; b < n_blocks; ++b) {
        r.require_line("node block " + std::to_string(b) +
                       ": 'entityDim entityTag parametric numNodesInBlock'");
        r.require_fields(4, 4, "'entityDim entityTag parametric numNodesInBlock'");
        const long long edim = r.integer(0, "entityDim");
        (void)r.integer(1, "entityTag");
        const long long parametric = r.integer(2, "parametric (0 or 1)");
        const long long n = r.integer(3, "numNodesInBlock");
        if (edim < 0 || edim > 3) r.fail("expected entityDim 0 to 3, found " + quote(r.tokens()[0]));
        if (parametric != 0 && parametric != 1)
          r.fail("expected parametric 0 or 1, found " + quote(r.tokens()[2]));
        check_fits(r, "numNodesInBlock", n, 2);
        if (read + n > n_nodes)
          r.fail("node blocks hold more than numNodes = " + std::to_string(n_nodes) + " nodes");
        const index_t first = static_cast<index_t>(xyz.size() / 3);
        for (long long i = 0; i < n; ++i) {
          r.require_line("a node tag (node " + std::to_string(i) + " of block " +
                         std::to_string(b) + ")");
          r.require_fields(1, 1, "one node tag per line");
          const long long tag = r.integer(0, "a node tag");
          if (!node_of_tag.emplace(tag, first + i).second)
            r.fail("node tag " + std::to_string(tag) + " is defined twice");
        }
        const std::size_t n_fields = 3 + (parametric ? static_cast<std::size_t>(edim) : 0);
        for (long long i = 0; i < n; ++i) {
          r.require_line("the coordinates 'x y z' of node " + std::to_string(i) + " of block " +
                         std::to_string(b));
          r.require_fields(n_fields, n_fields, "node coordinates 'x y z'");
          for (int k = 0; k < 3; ++k) xyz.push_back(r.real(k, "a coordinate"));
        }
        read += n;
      }
      if (read != n_nodes)
        r.fail("the node blocks hold " + std::to_string(read) + " nodes, but numNodes = " +
               std::to_string(n_nodes));
      expect_end(r, name);
    } else if (name == "Elements") {
      if (have_elements) r.fail("$Elements given twice");
      have_elements = true;
      r.require_line("'numEntityBlocks numElements minElementTag maxElementTag'");
      r.require_fields(4, 4, "'numEntityBlocks numElements minElementTag maxElementTag'");
      const long long n_blocks = r.integer(0, "numEntityBlocks");
      const long long n_elements = r.integer(1, "numElements");
      check_fits(r, "numEntityBlocks", n_blocks);
      check_fits(r, "numElements", n_elements);
      long long read = 0;
      for (long long b = 0; b < n_blocks; ++b) {
        r.require_line("element block " + std::to_string(b) +
                       ": 'entityDim entityTag elementType numElementsInBlock'");
        r.require_fields(4, 4, "'entityDim entityTag elementType numElementsInBlock'");
        const long long edim = r.integer(0, "entityDim");
        const long long etag = r.integer(1, "entityTag");
        const long long type_id = r.integer(2, "elementType");
        const long long n = r.integer(3, "numElementsInBlock");
        if (edim < 0 || edim > 3) r.fail("expected entityDim 0 to 3, found " + quote(r.tokens()[0]));
        CellType type{};
        int nn = 0;
        if (!gmsh_type(type_id, type, nn))
          r.fail("expected a linear element type (1 line, 2 triangle, 3 quadrangle, "
                 "4 tetrahedron, 5 hexahedron, 6 prism, 7 pyramid, 15 point), found " +
                 quote(r.tokens()[2]) + "; higher-order elements are not supported");
        check_fits(r, "numElementsInBlock", n);
        if (read + n > n_elements)
          r.fail("element blocks hold more than numElements = " + std::to_string(n_elements));
        const bool keep = type_id != 15;
        const int tdim = keep ? cell_dimension(type) : 0;
        if (keep) cells[tdim].reserve(cells[tdim].size() + static_cast<std::size_t>(n));
        for (long long i = 0; i < n; ++i) {
          r.require_line("element " + std::to_string(i) + " of block " + std::to_string(b) +
                         ": a tag and " + std::to_string(nn) + " node tags");
          r.require_fields(1 + nn, 1 + nn,
                           "an element tag and " + std::to_string(nn) + " node tags");
          (void)r.integer(0, "an element tag");
          RawElement e{type, static_cast<int>(etag), r.line_number(), {}};
          for (int k = 0; k < nn; ++k) e.tags[k] = r.integer(1 + k, "a node tag");
          if (keep) cells[tdim].push_back(e);
        }
        read += n;
      }
      if (read != n_elements)
        r.fail("the element blocks hold " + std::to_string(read) + " elements, but numElements = " +
               std::to_string(n_elements));
      expect_end(r, name);
    } else {
      // A section this reader does not need: skip to its end.
      const long start = r.line_number();
      bool ended = false;
      while (!ended && r.next_line()) ended = r.line() == "$End" + name;
      if (!ended)
        r.fail("expected $End" + name + " closing the section opened at line " +
               std::to_string(start) + ", found end of file");
    }
  }
  if (!have_format) r.fail("expected $MeshFormat, found end of file (is this a Gmsh file?)");
  if (!have_nodes) r.fail("expected a $Nodes section, found end of file");
  if (!have_elements) r.fail("expected an $Elements section, found end of file");

  const int dim = !cells[3].empty() ? 3 : (!cells[2].empty() ? 2 : 0);
  if (dim == 0)
    r.fail("expected triangles, quadrangles or 3-D elements in $Elements, found none");

  MeshData d;
  d.dim = dim;
  d.source = path;
  const index_t n_nodes = static_cast<index_t>(xyz.size() / 3);
  d.coords.reserve(static_cast<std::size_t>(n_nodes) * dim);
  double scale = 0;
  for (double v : xyz) scale = std::max(scale, std::abs(v));
  for (index_t n = 0; n < n_nodes; ++n) {
    for (int k = 0; k < dim; ++k) d.coords.push_back(xyz[3 * n + k]);
    if (dim == 2 && std::abs(xyz[3 * n + 2]) > 1e-12 * std::max(1.0, scale))
      throw_bad_input(path + ": a 2-D mesh must lie in the plane z = 0; node " +
                      std::to_string(n) + " has z = " + std::to_string(xyz[3 * n + 2]));
  }
  auto map_nodes = [&](const RawElement& e, index_t* out) {
    const int nn = n_cell_nodes(e.type);
    for (int k = 0; k < nn; ++k) {
      auto it = node_of_tag.find(e.tags[k]);
      if (it == node_of_tag.end())
        throw_bad_input(path + ":" + std::to_string(e.line) +
                        ": expected a node tag defined in $Nodes, found " +
                        std::to_string(e.tags[k]));
      out[k] = it->second;
    }
    return nn;
  };
  for (const RawElement& e : cells[dim]) {
    index_t nodes[8];
    const int nn = map_nodes(e, nodes);
    // Gmsh's prism has its first triangle counter-clockwise seen from the
    // second (as CGNS's); VTK's wedge the other way round.
    if (e.type == CellType::prism) {
      std::swap(nodes[1], nodes[2]);
      std::swap(nodes[4], nodes[5]);
    }
    d.add_cell(e.type, nodes, nn, e.line);
  }
  std::map<int, std::size_t> marker_of_physical;
  for (const RawElement& e : cells[dim - 1]) {
    auto ph = entity_physical[dim - 1].find(e.entity_tag);
    if (ph == entity_physical[dim - 1].end()) continue;
    auto mk = marker_of_physical.find(ph->second);
    if (mk == marker_of_physical.end()) {
      auto nm = physical_name.find({dim - 1, ph->second});
      d.add_marker(nm != physical_name.end() ? nm->second
                                             : "physical_" + std::to_string(ph->second));
      mk = marker_of_physical.emplace(ph->second, d.markers.size() - 1).first;
    }
    index_t nodes[8];
    const int nn = map_nodes(e, nodes);
    d.markers[mk->second].add_element(nodes, nn, e.line);
  }
  return d;
}

Mesh read_gmsh(const std::string& path) {
  return Mesh::from_cells(read_gmsh_data(path), Orientation::fix);
}

}  // namespace camber::mesh
