#include <camber/mesh/cgns_reader.hpp>

#include <camber/core/config.hpp>
#include <camber/core/error.hpp>

#if CAMBER_WITH_CGNS
#include <cgnslib.h>

#include <cmath>
#include <fstream>
#include <vector>

#ifndef CGNS_ENUMV
#define CGNS_ENUMV(e) e
#define CGNS_ENUMT(e) e
#endif

namespace camber::mesh {

namespace {

const char* supported_types() {
  return "BAR_2, TRI_3, QUAD_4, TETRA_4, PYRA_5, PENTA_6, HEXA_8 and MIXED sections of them";
}

// The open file, closed on every exit path.
class CgnsFile {
 public:
  explicit CgnsFile(const std::string& path) : path_(path) {
    if (!std::ifstream(path).good()) throw_bad_input(path + ": cannot open the mesh file");
    if (cg_open(path.c_str(), CG_MODE_READ, &fn_) != CG_OK)
      throw_bad_input(path + ": not a CGNS file libcgns can read (" + cg_get_error() + ")");
  }
  ~CgnsFile() {
    if (fn_ >= 0) cg_close(fn_);
  }
  CgnsFile(const CgnsFile&) = delete;
  CgnsFile& operator=(const CgnsFile&) = delete;

  int fn() const { return fn_; }
  // Raises a bad_input error naming the file (and what the call was for)
  // when a library call failed.
  void check(int status, const std::string& what) const {
    if (status != CG_OK) throw_bad_input(path_ + ": " + what + ": " + cg_get_error());
  }

 private:
  std::string path_;
  int fn_ = -1;
};

// The linear element types and their VTK counterparts.
bool cell_type_of(CGNS_ENUMT(ElementType_t) et, CellType& t) {
  switch (et) {
    case CGNS_ENUMV(BAR_2): t = CellType::line; return true;
    case CGNS_ENUMV(TRI_3): t = CellType::triangle; return true;
    case CGNS_ENUMV(QUAD_4): t = CellType::quad; return true;
    case CGNS_ENUMV(TETRA_4): t = CellType::tetrahedron; return true;
    case CGNS_ENUMV(PYRA_5): t = CellType::pyramid; return true;
    case CGNS_ENUMV(PENTA_6): t = CellType::prism; return true;
    case CGNS_ENUMV(HEXA_8): t = CellType::hexahedron; return true;
    default: return false;
  }
}

std::string type_name(CGNS_ENUMT(ElementType_t) et) {
  const char* name = cg_ElementTypeName(et);
  return name != nullptr ? std::string(name) : "type " + std::to_string(static_cast<int>(et));
}

// Where an element comes from, for messages.
struct Place {
  const std::string* path;
  std::string zone;
  std::string section;
  std::string operator()() const { return *path + ": zone '" + zone + "', section '" + section + "'"; }
};

// Adds the elements of one section's connectivity (per element: the type
// code when `mixed`, then its nodes, 1-based) to the cells or to the marker
// named after the section (CGNS names are unique within a zone).
void add_elements(const std::vector<cgsize_t>& conn, bool mixed, CGNS_ENUMT(ElementType_t) et,
                  cgsize_t n_elements, cgsize_t first_element, cgsize_t n_nodes, int dim,
                  const Place& place, MeshData& d) {
  MeshData::Marker* marker = nullptr;
  std::size_t pos = 0;
  for (cgsize_t e = 0; e < n_elements; ++e) {
    CGNS_ENUMT(ElementType_t) type = et;
    if (mixed) {
      if (pos >= conn.size())
        throw_bad_input(place() + ": the MIXED connectivity ends before element " +
                        std::to_string(first_element + e));
      type = static_cast<CGNS_ENUMT(ElementType_t)>(conn[pos++]);
    }
    CellType t;
    if (!cell_type_of(type, t))
      throw_bad_input(place() + ": element " + std::to_string(first_element + e) + " is " +
                      type_name(type) + "; supported: " + supported_types());
    const int n = n_cell_nodes(t);
    if (pos + static_cast<std::size_t>(n) > conn.size())
      throw_bad_input(place() + ": the connectivity ends inside element " +
                      std::to_string(first_element + e));
    index_t nodes[8];
    for (int i = 0; i < n; ++i) {
      const cgsize_t node = conn[pos + static_cast<std::size_t>(i)];
      if (node < 1 || node > n_nodes)
        throw_bad_input(place() + ": element " + std::to_string(first_element + e) +
                        " has node " + std::to_string(node) + ", outside the zone's 1.." +
                        std::to_string(n_nodes));
      nodes[i] = static_cast<index_t>(node - 1);
    }
    pos += static_cast<std::size_t>(n);
    // CGNS's PENTA_6 has its first triangle counter-clockwise seen from the
    // second; VTK's wedge the other way round.
    if (t == CellType::prism) {
      std::swap(nodes[1], nodes[2]);
      std::swap(nodes[4], nodes[5]);
    }
    const int element_dim = cell_dimension(t);
    if (element_dim == dim) {
      d.add_cell(t, nodes, n);
    } else if (element_dim == dim - 1) {
      if (marker == nullptr) marker = &d.add_marker(place.section);
      marker->add_element(nodes, n);
    } else {
      throw_bad_input(place() + ": element " + std::to_string(first_element + e) + " is " +
                      type_name(type) + ", neither a cell nor a boundary face of a " +
                      std::to_string(dim) + "-D zone");
    }
  }
  if (pos != conn.size())
    throw_bad_input(place() + ": the connectivity holds more than its " +
                    std::to_string(n_elements) + " elements");
}

std::string trimmed(const char* s) {
  std::string t(s);
  while (!t.empty() && t.back() == ' ') t.pop_back();
  return t;
}

}  // namespace

MeshData read_cgns_data(const std::string& path) {
  CgnsFile file(path);
  const int fn = file.fn();
  const int base = 1, zone = 1;

  int n_bases = 0;
  file.check(cg_nbases(fn, &n_bases), "reading the number of bases");
  if (n_bases != 1)
    throw_bad_input(path + ": the file has " + std::to_string(n_bases) +
                    " bases; supported: one base with one unstructured zone");
  char name[33];
  int cell_dim = 0, phys_dim = 0;
  file.check(cg_base_read(fn, base, name, &cell_dim, &phys_dim), "reading the base");
  if (cell_dim != 2 && cell_dim != 3)
    throw_bad_input(path + ": base '" + trimmed(name) + "' has cell dimension " +
                    std::to_string(cell_dim) + "; supported: 2 or 3");
  if (phys_dim < cell_dim)
    throw_bad_input(path + ": base '" + trimmed(name) + "' has physical dimension " +
                    std::to_string(phys_dim) + " below its cell dimension " +
                    std::to_string(cell_dim));

  int n_zones = 0;
  file.check(cg_nzones(fn, base, &n_zones), "reading the number of zones");
  if (n_zones != 1)
    throw_bad_input(path + ": base '" + trimmed(name) + "' has " + std::to_string(n_zones) +
                    " zones; supported: one unstructured zone");
  CGNS_ENUMT(ZoneType_t) zone_type;
  file.check(cg_zone_type(fn, base, zone, &zone_type), "reading the zone type");
  char zone_name[33];
  cgsize_t sizes[9] = {0};
  file.check(cg_zone_read(fn, base, zone, zone_name, sizes), "reading the zone");
  const std::string zname = trimmed(zone_name);
  if (zone_type != CGNS_ENUMV(Unstructured))
    throw_bad_input(path + ": zone '" + zname + "' is " +
                    (zone_type == CGNS_ENUMV(Structured) ? "structured" : "of an unknown type") +
                    "; supported: unstructured zones (" + supported_types() + ")");
  const cgsize_t n_nodes = sizes[0], n_zone_cells = sizes[1];
  if (n_nodes < 1) throw_bad_input(path + ": zone '" + zname + "' has no nodes");

  MeshData d;
  d.dim = cell_dim;
  d.source = path;

  // Coordinates: Cartesian, read as doubles.
  int n_coords = 0;
  file.check(cg_ncoords(fn, base, zone, &n_coords), "reading the number of coordinate arrays");
  std::vector<std::string> coord_names;
  for (int c = 1; c <= n_coords; ++c) {
    CGNS_ENUMT(DataType_t) type;
    char cname[33];
    file.check(cg_coord_info(fn, base, zone, c, &type, cname), "reading coordinate array");
    coord_names.push_back(trimmed(cname));
  }
  const char* axes[3] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
  auto has = [&](const char* a) {
    for (const std::string& s : coord_names)
      if (s == a) return true;
    return false;
  };
  std::vector<std::vector<double>> xyz(3);
  for (int k = 0; k < 3; ++k) {
    if (!has(axes[k])) {
      if (k < cell_dim)
        throw_bad_input(path + ": zone '" + zname + "' has no " + axes[k] +
                        "; supported: Cartesian coordinates CoordinateX, CoordinateY" +
                        (cell_dim == 3 ? ", CoordinateZ" : ""));
      continue;
    }
    xyz[k].resize(static_cast<std::size_t>(n_nodes));
    cgsize_t lo = 1, hi = n_nodes;
    file.check(cg_coord_read(fn, base, zone, axes[k], CGNS_ENUMV(RealDouble), &lo, &hi,
                             xyz[k].data()),
               std::string("reading ") + axes[k]);
  }
  if (cell_dim == 2 && !xyz[2].empty()) {
    for (cgsize_t i = 1; i < n_nodes; ++i)
      if (xyz[2][static_cast<std::size_t>(i)] != xyz[2][0])
        throw_bad_input(path + ": zone '" + zname + "' is 2-D but node " + std::to_string(i + 1) +
                        " has z = " + std::to_string(xyz[2][static_cast<std::size_t>(i)]) +
                        " and node 1 z = " + std::to_string(xyz[2][0]) +
                        "; a 2-D mesh must lie in a plane z = const");
  }
  d.coords.resize(static_cast<std::size_t>(n_nodes) * static_cast<std::size_t>(cell_dim));
  for (cgsize_t i = 0; i < n_nodes; ++i)
    for (int k = 0; k < cell_dim; ++k)
      d.coords[static_cast<std::size_t>(i) * cell_dim + k] = xyz[k][static_cast<std::size_t>(i)];

  // Element sections.
  int n_sections = 0;
  file.check(cg_nsections(fn, base, zone, &n_sections), "reading the number of sections");
  for (int s = 1; s <= n_sections; ++s) {
    char sname[33];
    CGNS_ENUMT(ElementType_t) et;
    cgsize_t first = 0, last = 0;
    int n_boundary = 0, parent_flag = 0;
    file.check(cg_section_read(fn, base, zone, s, sname, &et, &first, &last, &n_boundary,
                               &parent_flag),
               "reading section " + std::to_string(s));
    const Place place{&path, zname, trimmed(sname)};
    const bool mixed = et == CGNS_ENUMV(MIXED);
    CellType t;
    if (!mixed && !cell_type_of(et, t))
      throw_bad_input(place() + " holds " + type_name(et) + " elements; supported: " +
                      supported_types());
    const cgsize_t n_elements = last - first + 1;
    if (n_elements < 0)
      throw_bad_input(place() + ": element range " + std::to_string(first) + ".." +
                      std::to_string(last) + " is empty the wrong way round");
    cgsize_t data_size = 0;
    file.check(cg_ElementDataSize(fn, base, zone, s, &data_size),
               place() + ": reading the connectivity size");
    std::vector<cgsize_t> conn(static_cast<std::size_t>(data_size));
    if (mixed) {
      // Each element's type code, then its nodes; the offsets (CGNS 3.4's
      // ElementStartOffset) are implied by the types.
      std::vector<cgsize_t> offsets(static_cast<std::size_t>(n_elements) + 1);
      file.check(cg_poly_elements_read(fn, base, zone, s, conn.data(), offsets.data(), nullptr),
                 place() + ": reading the connectivity");
    } else {
      int npe = 0;
      file.check(cg_npe(et, &npe), place() + ": nodes per element");
      if (data_size != n_elements * npe)
        throw_bad_input(place() + ": " + std::to_string(n_elements) + " " + type_name(et) +
                        " elements need " + std::to_string(n_elements * npe) +
                        " node indices, the section holds " + std::to_string(data_size));
      file.check(cg_elements_read(fn, base, zone, s, conn.data(), nullptr),
                 place() + ": reading the connectivity");
    }
    add_elements(conn, mixed, et, n_elements, first, n_nodes, cell_dim, place, d);
  }
  if (d.n_cells() != n_zone_cells)
    throw_bad_input(path + ": zone '" + zname + "' declares " + std::to_string(n_zone_cells) +
                    " cells but its sections hold " + std::to_string(d.n_cells()) + " " +
                    std::to_string(cell_dim) + "-D elements");
  return d;
}

#else

namespace camber::mesh {

MeshData read_cgns_data(const std::string& path) {
  throw_bad_input(path + ": this Camber was built without CGNS (CAMBER_ENABLE_CGNS=OFF); "
                  "reconfigure with libcgns-dev installed and CAMBER_ENABLE_CGNS=ON, or "
                  "convert the mesh to SU2 (.su2) or Gmsh (.msh)");
}

#endif  // CAMBER_WITH_CGNS

Mesh read_cgns(const std::string& path) {
  return Mesh::from_cells(read_cgns_data(path), Orientation::fix);
}

}  // namespace camber::mesh
