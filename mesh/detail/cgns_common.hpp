// What the serial CGNS reader (cgns_reader.cpp) and the parallel one
// (cgns_chunk_reader.cpp) share, so that both accept the same files and say
// the same things about the others: the open file, the zone and section
// headers with their checks, the element walk (types, node range, PENTA_6
// renumbering, cell or boundary face) and the error texts.
//
// Only those two files include this header; the libcgns part exists only
// when Camber is built with CGNS.
#pragma once

#include <camber/core/config.hpp>

#include <string>

namespace camber::mesh::detail {

// The bad_input message for a .cgns file in a build without CGNS.
inline std::string cgns_not_built_message(const std::string& path) {
  return path + ": this Camber was built without CGNS (CAMBER_ENABLE_CGNS=OFF); "
                "reconfigure with libcgns-dev installed and CAMBER_ENABLE_CGNS=ON, or "
                "convert the mesh to SU2 (.su2) or Gmsh (.msh)";
}

}  // namespace camber::mesh::detail

#if CAMBER_WITH_CGNS
#include <cgns_io.h>
#include <cgnslib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <utility>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/mesh.hpp>

#ifndef CGNS_ENUMV
#define CGNS_ENUMV(e) e
#define CGNS_ENUMT(e) e
#endif

namespace camber::mesh::detail {

inline const char* cgns_supported_types() {
  return "BAR_2, TRI_3, QUAD_4, TETRA_4, PYRA_5, PENTA_6, HEXA_8 and MIXED sections of them";
}

// The open file (read-only), closed on every exit path.
class CgnsFile {
 public:
  explicit CgnsFile(const std::string& path) : path_(path) {
    if (!std::ifstream(path).good()) throw_bad_input(path + ": cannot open the mesh file");
    std::error_code ec;
    bytes_ = std::filesystem::file_size(path, ec);
    if (ec) throw_bad_input(path + ": cannot open the mesh file (" + ec.message() + ")");
    if (cg_open(path.c_str(), CG_MODE_READ, &fn_) != CG_OK) {
      const std::string why = cg_get_error();
      // libcgns 3.4 keeps an HDF5 file whose version node it refuses (e.g.
      // stored as an integer) in its table of open files, which holds 128,
      // and returns its number: closed here, or after 128 such files no
      // file would open in this process ("Too many files opened").
      if (fn_ >= 0) cg_close(fn_);
      throw_bad_input(path + ": not a CGNS file libcgns can read (" + why + ")");
    }
  }
  ~CgnsFile() {
    if (fn_ >= 0) cg_close(fn_);
  }
  CgnsFile(const CgnsFile&) = delete;
  CgnsFile& operator=(const CgnsFile&) = delete;

  const std::string& path() const { return path_; }
  int fn() const { return fn_; }
  // The file's size in bytes: every entry of an array the file declares
  // takes at least one of them, so no declared size may exceed it.
  std::uintmax_t bytes() const { return bytes_; }
  // Raises a bad_input error naming `where` when `n` declared entries of
  // `what` cannot fit in the file: checked before anything of that size is
  // allocated, so that a few bytes declaring billions of entries are an
  // error, not an exhausted memory.
  void require_fits(std::int64_t n, const std::string& where, const std::string& what) const {
    if (n < 0 || static_cast<std::uintmax_t>(n) > bytes_)
      throw_bad_input(where + ": " + what + " declares " + std::to_string(n) +
                      " entries, more than the file's " + std::to_string(bytes_) +
                      " bytes can hold");
  }
  // Raises a bad_input error naming the file (and what the call was for)
  // when a library call failed.
  void check(int status, const std::string& what) const {
    if (status != CG_OK) throw_bad_input(path_ + ": " + what + ": " + cg_get_error());
  }

 private:
  std::string path_;
  std::uintmax_t bytes_ = 0;
  int fn_ = -1;
};

// The linear element types and their VTK counterparts.
inline bool cgns_cell_type(CGNS_ENUMT(ElementType_t) et, CellType& t) {
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

inline std::string cgns_type_name(CGNS_ENUMT(ElementType_t) et) {
  const char* name = cg_ElementTypeName(et);
  return name != nullptr ? std::string(name) : "type " + std::to_string(static_cast<int>(et));
}

// A CGNS name without the blanks some writers pad it with.
inline std::string cgns_trimmed(const char* s) {
  std::string t(s);
  while (!t.empty() && t.back() == ' ') t.pop_back();
  return t;
}

// Where an element comes from, for messages.
struct CgnsPlace {
  const std::string* path;
  std::string zone;
  std::string section;
  std::string operator()() const {
    return *path + ": zone '" + zone + "', section '" + section + "'";
  }
};

// The file's one base and its one unstructured zone, checked.
struct CgnsZone {
  int cell_dim = 0;
  std::string name;
  std::string base_node, zone_node;  // the base's and the zone's names as stored
  std::int64_t n_nodes = 0;
  std::int64_t n_declared_cells = 0;
  std::array<bool, 3> has_axis{false, false, false};  // CoordinateX, Y, Z present
  int n_sections = 0;

  static constexpr int base = 1;
  static constexpr int zone = 1;
  static const char* axis_name(int k) {
    static const char* const axes[3] = {"CoordinateX", "CoordinateY", "CoordinateZ"};
    return axes[k];
  }
};

inline CgnsZone read_cgns_zone(const CgnsFile& file) {
  const std::string& path = file.path();
  const int fn = file.fn(), base = CgnsZone::base, zone = CgnsZone::zone;
  CgnsZone z;

  int n_bases = 0;
  file.check(cg_nbases(fn, &n_bases), "reading the number of bases");
  if (n_bases != 1)
    throw_bad_input(path + ": the file has " + std::to_string(n_bases) +
                    " bases; supported: one base with one unstructured zone");
  char name[33];
  int cell_dim = 0, phys_dim = 0;
  file.check(cg_base_read(fn, base, name, &cell_dim, &phys_dim), "reading the base");
  if (cell_dim != 2 && cell_dim != 3)
    throw_bad_input(path + ": base '" + cgns_trimmed(name) + "' has cell dimension " +
                    std::to_string(cell_dim) + "; supported: 2 or 3");
  if (phys_dim < cell_dim)
    throw_bad_input(path + ": base '" + cgns_trimmed(name) + "' has physical dimension " +
                    std::to_string(phys_dim) + " below its cell dimension " +
                    std::to_string(cell_dim));
  z.cell_dim = cell_dim;
  z.base_node = name;

  int n_zones = 0;
  file.check(cg_nzones(fn, base, &n_zones), "reading the number of zones");
  if (n_zones != 1)
    throw_bad_input(path + ": base '" + cgns_trimmed(name) + "' has " + std::to_string(n_zones) +
                    " zones; supported: one unstructured zone");
  CGNS_ENUMT(ZoneType_t) zone_type;
  file.check(cg_zone_type(fn, base, zone, &zone_type), "reading the zone type");
  char zone_name[33];
  cgsize_t sizes[9] = {0};
  file.check(cg_zone_read(fn, base, zone, zone_name, sizes), "reading the zone");
  z.zone_node = zone_name;
  z.name = cgns_trimmed(zone_name);
  if (zone_type != CGNS_ENUMV(Unstructured))
    throw_bad_input(path + ": zone '" + z.name + "' is " +
                    (zone_type == CGNS_ENUMV(Structured) ? "structured" : "of an unknown type") +
                    "; supported: unstructured zones (" + cgns_supported_types() + ")");
  z.n_nodes = sizes[0];
  z.n_declared_cells = sizes[1];
  if (z.n_nodes < 1) throw_bad_input(path + ": zone '" + z.name + "' has no nodes");

  // Coordinates: Cartesian, read as doubles.
  int n_coords = 0;
  file.check(cg_ncoords(fn, base, zone, &n_coords), "reading the number of coordinate arrays");
  for (int c = 1; c <= n_coords; ++c) {
    CGNS_ENUMT(DataType_t) type;
    char cname[33];
    file.check(cg_coord_info(fn, base, zone, c, &type, cname), "reading coordinate array");
    for (int k = 0; k < 3; ++k)
      if (cgns_trimmed(cname) == CgnsZone::axis_name(k))
        z.has_axis[static_cast<std::size_t>(k)] = true;
  }
  for (int k = 0; k < cell_dim; ++k)
    if (!z.has_axis[static_cast<std::size_t>(k)])
      throw_bad_input(path + ": zone '" + z.name + "' has no " + CgnsZone::axis_name(k) +
                      "; supported: Cartesian coordinates CoordinateX, CoordinateY" +
                      (cell_dim == 3 ? ", CoordinateZ" : ""));
  // The zone's node count is a declaration; each coordinate array's length
  // is what the file holds. They must agree before n_nodes values are read.
  file.require_fits(z.n_nodes, path + ": zone '" + z.name + "'", "the node count");
  if (n_coords > 0) {
    file.check(cg_goto(fn, base, "Zone_t", zone, "GridCoordinates_t", 1, "end"),
               "zone '" + z.name + "': finding its coordinates");
    for (int c = 1; c <= n_coords; ++c) {
      char cname[33];
      CGNS_ENUMT(DataType_t) type;
      int n_dims = 0;
      cgsize_t dims[12] = {0};
      file.check(cg_array_info(c, cname, &type, &n_dims, dims),
                 "zone '" + z.name + "': reading coordinate array " + std::to_string(c));
      std::int64_t n = n_dims > 0 ? 1 : 0;
      for (int d = 0; d < n_dims && d < 12; ++d) n *= dims[d];
      if (n != z.n_nodes)
        throw_bad_input(path + ": zone '" + z.name + "' declares " + std::to_string(z.n_nodes) +
                        " nodes but its " + cgns_trimmed(cname) + " holds " + std::to_string(n) +
                        " values");
    }
  }

  file.check(cg_nsections(fn, base, zone, &z.n_sections), "reading the number of sections");
  return z;
}

// Reads nodes [begin, end) (0-based) of coordinate axis k as doubles.
inline std::vector<double> read_cgns_coords(const CgnsFile& file, int k, std::int64_t begin,
                                            std::int64_t end) {
  std::vector<double> x(static_cast<std::size_t>(end - begin));
  if (end <= begin) return x;
  cgsize_t lo = static_cast<cgsize_t>(begin + 1), hi = static_cast<cgsize_t>(end);
  file.check(cg_coord_read(file.fn(), CgnsZone::base, CgnsZone::zone, CgnsZone::axis_name(k),
                           CGNS_ENUMV(RealDouble), &lo, &hi, x.data()),
             std::string("reading ") + CgnsZone::axis_name(k));
  return x;
}

// A coordinate that is not a finite number makes no geometry: named here
// by its node (1-based) rather than found later as a degenerate cell.
inline void require_cgns_finite(const std::string& path, const CgnsZone& zone, int k,
                                const std::vector<double>& x, std::int64_t first_node) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw_bad_input(path + ": zone '" + zone.name + "': node " +
                      std::to_string(first_node + static_cast<std::int64_t>(i) + 1) + " has " +
                      CgnsZone::axis_name(k) + " = " + std::to_string(x[i]) +
                      "; coordinates must be finite numbers");
}

// A 2-D zone must lie in the plane z = z of node 1: `z` holds the z of
// nodes first_node, first_node + 1, ... (0-based).
inline void require_cgns_plane(const std::string& path, const CgnsZone& zone,
                               const std::vector<double>& z, std::int64_t first_node, double z1) {
  for (std::size_t i = 0; i < z.size(); ++i)
    if (z[i] != z1)
      throw_bad_input(path + ": zone '" + zone.name + "' is 2-D but node " +
                      std::to_string(first_node + static_cast<std::int64_t>(i) + 1) +
                      " has z = " + std::to_string(z[i]) + " and node 1 z = " +
                      std::to_string(z1) + "; a 2-D mesh must lie in a plane z = const");
}

// One element section's header, checked: a supported type, a sane range
// and, for a typed section, as many node indices as its elements need.
struct CgnsSection {
  int index = 0;  // 1-based, as libcgns numbers sections
  CgnsPlace place;
  std::string node;  // the section's name as stored
  CGNS_ENUMT(ElementType_t) type;
  bool mixed = false;
  std::int64_t first = 0;       // the file's number of the first element
  std::int64_t n_elements = 0;  // elements first .. first + n_elements - 1
  std::int64_t data_size = 0;   // node indices (and MIXED type codes) of the section
  bool has_offsets = false;     // MIXED: the file stores ElementStartOffset
};

// The node-level handle of the file and the id of the node at `names`
// below the zone (e.g. {"ZoneBC", "wall"}); false when there is none.
inline bool find_cgns_zone_node(const CgnsFile& file, const CgnsZone& zone,
                                std::initializer_list<std::string> names, int& cgio,
                                double& node) {
  double root = 0, base = 0;
  if (cg_get_cgio(file.fn(), &cgio) != CG_OK || cg_root_id(file.fn(), &root) != CG_OK ||
      cgio_get_node_id(cgio, root, zone.base_node.c_str(), &base) != CGIO_ERR_NONE ||
      cgio_get_node_id(cgio, base, zone.zone_node.c_str(), &node) != CGIO_ERR_NONE)
    return false;
  for (const std::string& name : names)
    if (cgio_get_node_id(cgio, node, name.c_str(), &node) != CGIO_ERR_NONE) return false;
  return true;
}

// The number of entries of the array at `names` below the zone (the
// product of its dimensions), -1 when there is no such node. libcgns reads
// some arrays whole into the caller's buffer, sized by counts it derives
// elsewhere (ranges, headers): each such array is checked with this first.
inline std::int64_t cgns_zone_array_entries(const CgnsFile& file, const CgnsZone& zone,
                                            std::initializer_list<std::string> names) {
  int cgio = -1, n_dims = 0;
  double node = 0;
  cgsize_t dims[CGIO_MAX_DIMENSIONS] = {0};
  if (!find_cgns_zone_node(file, zone, names, cgio, node)) return -1;
  if (cgio_get_dimensions(cgio, node, &n_dims, dims) != CGIO_ERR_NONE || n_dims < 1) return -1;
  std::int64_t n = 1;
  for (int d = 0; d < n_dims && d < CGIO_MAX_DIMENSIONS; ++d) n *= dims[d];
  return n;
}

// A MIXED section's element offsets (CGNS 3.4's ElementStartOffset, when
// the file has them) must be one per element and one more, as libcgns
// reads them into an array of that length. False when the file has none.
inline bool require_cgns_offsets(const CgnsFile& file, const CgnsZone& zone,
                                 const CgnsSection& sec) {
  int cgio = -1;
  double section = 0, offsets = 0;
  if (!find_cgns_zone_node(file, zone, {sec.node}, cgio, section))
    throw_bad_input(sec.place() + ": cannot find the section's node");
  if (cgio_get_node_id(cgio, section, "ElementStartOffset", &offsets) != CGIO_ERR_NONE)
    return false;
  int n_dims = 0;
  cgsize_t dims[CGIO_MAX_DIMENSIONS] = {0};
  if (cgio_get_dimensions(cgio, offsets, &n_dims, dims) != CGIO_ERR_NONE || n_dims != 1 ||
      dims[0] != sec.n_elements + 1)
    throw_bad_input(sec.place() + ": ElementStartOffset holds " +
                    (n_dims == 1 ? std::to_string(dims[0]) : std::string("no list of")) +
                    " offsets, its " + std::to_string(sec.n_elements) + " elements need " +
                    std::to_string(sec.n_elements + 1));
  return true;
}

// The stored offsets of a MIXED section's elements first, first + 1, ...
// (offsets[i] to offsets[i + 1] the entries of the i-th, counted in the
// section) must put each element where the type code of the one before
// says it ends, from entry 0 when `starts` (the section's first element)
// to data_size when `ends` (its last); `conn` holds entries offsets[0] to
// offsets.back(). So both readers, the serial one walking the type codes
// and the chunk one splitting by the offsets, read the same elements. An
// element whose code has no size is left to the element walk, which
// refuses it.
template <class Offset>
void require_cgns_mixed_offsets(const std::vector<cgsize_t>& conn,
                                const std::vector<Offset>& offsets, const CgnsSection& sec,
                                std::int64_t first, bool starts, bool ends) {
  if (offsets.empty()) return;
  if ((starts && offsets.front() != 0) || (ends && offsets.back() != sec.data_size))
    throw_bad_input(sec.place() + ": ElementStartOffset runs from " +
                    std::to_string(offsets.front()) + " to " + std::to_string(offsets.back()) +
                    "; the section's " + std::to_string(sec.data_size) +
                    " connectivity entries run from 0 to " + std::to_string(sec.data_size));
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i) {
    const std::string element = std::to_string(first + static_cast<std::int64_t>(i));
    const std::int64_t a = std::int64_t{offsets[i]} - offsets[0];
    const std::int64_t b = std::int64_t{offsets[i + 1]} - offsets[0];
    if (a < 0 || b <= a || b > static_cast<std::int64_t>(conn.size()))
      throw_bad_input(sec.place() + ": the MIXED offsets of element " + element + " (" +
                      std::to_string(offsets[i]) + ".." + std::to_string(offsets[i + 1]) +
                      ") are not increasing within its connectivity");
    const auto type = static_cast<CGNS_ENUMT(ElementType_t)>(conn[static_cast<std::size_t>(a)]);
    int npe = 0;
    if (cg_npe(type, &npe) != CG_OK || npe <= 0) return;
    if (b - a != 1 + npe)
      throw_bad_input(sec.place() + ": the MIXED offsets give element " + element + " " +
                      std::to_string(b - a) + " entries, its type " + cgns_type_name(type) +
                      " takes " + std::to_string(1 + npe));
  }
}

inline CgnsSection read_cgns_section(const CgnsFile& file, const CgnsZone& zone, int s) {
  const int fn = file.fn(), base = CgnsZone::base, z = CgnsZone::zone;
  char sname[33];
  CGNS_ENUMT(ElementType_t) et;
  cgsize_t first = 0, last = 0;
  int n_boundary = 0, parent_flag = 0;
  file.check(cg_section_read(fn, base, z, s, sname, &et, &first, &last, &n_boundary, &parent_flag),
             "reading section " + std::to_string(s));
  CgnsSection sec;
  sec.index = s;
  sec.place = CgnsPlace{&file.path(), zone.name, cgns_trimmed(sname)};
  sec.node = sname;
  sec.type = et;
  sec.mixed = et == CGNS_ENUMV(MIXED);
  CellType t;
  if (!sec.mixed && !cgns_cell_type(et, t))
    throw_bad_input(sec.place() + " holds " + cgns_type_name(et) + " elements; supported: " +
                    cgns_supported_types());
  sec.first = first;
  sec.n_elements = static_cast<std::int64_t>(last) - first + 1;
  if (sec.n_elements < 0)
    throw_bad_input(sec.place() + ": element range " + std::to_string(first) + ".." +
                    std::to_string(last) + " is empty the wrong way round");
  if (first < 1)
    throw_bad_input(sec.place() + ": element range " + std::to_string(first) + ".." +
                    std::to_string(last) + " starts below element 1");
  cgsize_t data_size = 0;
  file.check(cg_ElementDataSize(fn, base, z, s, &data_size),
             sec.place() + ": reading the connectivity size");
  sec.data_size = data_size;
  file.require_fits(sec.data_size, sec.place(), "the connectivity");
  // libcgns reads the whole ElementConnectivity array into a buffer of the
  // size it reports, which for a typed section it derives from the range.
  const std::int64_t n_held = cgns_zone_array_entries(file, zone, {sec.node, "ElementConnectivity"});
  if (n_held != sec.data_size)
    throw_bad_input(sec.place() + ": its ElementConnectivity holds " +
                    (n_held < 0 ? std::string("no array") : std::to_string(n_held) + " entries") +
                    ", the section declares " + std::to_string(sec.data_size));
  if (sec.mixed) {
    // Every element takes its type code and at least two nodes.
    if (sec.n_elements > sec.data_size / 3)
      throw_bad_input(sec.place() + ": " + std::to_string(sec.n_elements) +
                      " MIXED elements need at least " + std::to_string(3 * sec.n_elements) +
                      " connectivity entries, the section holds " +
                      std::to_string(sec.data_size));
    sec.has_offsets = require_cgns_offsets(file, zone, sec);
  } else {
    int npe = 0;
    file.check(cg_npe(et, &npe), sec.place() + ": nodes per element");
    if (sec.data_size != sec.n_elements * npe)
      throw_bad_input(sec.place() + ": " + std::to_string(sec.n_elements) + " " +
                      cgns_type_name(et) + " elements need " +
                      std::to_string(sec.n_elements * npe) + " node indices, the section holds " +
                      std::to_string(sec.data_size));
  }
  return sec;
}

// The dimension of the elements of a typed section (not MIXED).
inline int cgns_section_dimension(const CgnsSection& sec) {
  CellType t = CellType::line;
  cgns_cell_type(sec.type, t);
  return cell_dimension(t);
}

// Walks one section's connectivity `conn` (per element: the type code when
// the section is MIXED, then its nodes, 1-based) for elements
// first_element, first_element + 1, ...: checks each element's type and
// node indices (in 1..n_nodes), renumbers a PENTA_6 to VTK's wedge order
// and calls visit(is_cell, type, nodes, n) with the 0-based nodes, where
// is_cell tells a cell (the zone's dimension) from a boundary face (one
// lower); an element of neither dimension is an error.
template <class Visit>
void for_each_cgns_element(const std::vector<cgsize_t>& conn, const CgnsSection& sec,
                           std::int64_t first_element, std::int64_t n_elements,
                           std::int64_t n_nodes, int dim, Visit&& visit) {
  const CgnsPlace& place = sec.place;
  std::size_t pos = 0;
  for (std::int64_t e = 0; e < n_elements; ++e) {
    const std::string element = std::to_string(first_element + e);
    CGNS_ENUMT(ElementType_t) type = sec.type;
    if (sec.mixed) {
      if (pos >= conn.size())
        throw_bad_input(place() + ": the MIXED connectivity ends before element " + element);
      type = static_cast<CGNS_ENUMT(ElementType_t)>(conn[pos++]);
    }
    CellType t;
    if (!cgns_cell_type(type, t))
      throw_bad_input(place() + ": element " + element + " is " + cgns_type_name(type) +
                      "; supported: " + cgns_supported_types());
    const int n = n_cell_nodes(t);
    if (pos + static_cast<std::size_t>(n) > conn.size())
      throw_bad_input(place() + ": the connectivity ends inside element " + element);
    index_t nodes[8];
    for (int i = 0; i < n; ++i) {
      const std::int64_t node = conn[pos + static_cast<std::size_t>(i)];
      if (node < 1 || node > n_nodes)
        throw_bad_input(place() + ": element " + element + " has node " + std::to_string(node) +
                        ", outside the zone's 1.." + std::to_string(n_nodes));
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
    if (element_dim != dim && element_dim != dim - 1)
      throw_bad_input(place() + ": element " + element + " is " + cgns_type_name(type) +
                      ", neither a cell nor a boundary face of a " + std::to_string(dim) +
                      "-D zone");
    visit(element_dim == dim, t, static_cast<const index_t*>(nodes), n);
  }
  if (pos != conn.size())
    throw_bad_input(place() + ": the connectivity holds more than its " +
                    std::to_string(n_elements) + " elements");
}

// The number of entries of a boundary condition's point set array (its
// PointRange, PointList, ElementRange or ElementList node), -1 when it has
// none; `bc` is its name as stored.
inline std::int64_t cgns_point_set_entries(const CgnsFile& file, const CgnsZone& zone,
                                           const char* bc) {
  for (const char* set : {"PointRange", "PointList", "ElementRange", "ElementList"}) {
    const std::int64_t n = cgns_zone_array_entries(file, zone, {"ZoneBC", bc, set});
    if (n >= 0) return n;
  }
  return -1;
}

// The zone's boundary conditions (ZoneBC) name points that must exist:
// nodes (a Vertex point set) in 1..n_nodes, elements (ElementRange,
// ElementList, or a point set at a face, edge or cell centre) among the
// sections' element ranges. The conditions themselves are not read (see
// cgns_reader.hpp); their lists are read whole, each size first checked
// against the file's.
inline void require_cgns_boundary_conditions(const CgnsFile& file, const CgnsZone& zone,
                                             const std::vector<CgnsSection>& sections) {
  const int fn = file.fn(), base = CgnsZone::base, z = CgnsZone::zone;
  int n_bcs = 0;
  file.check(cg_nbocos(fn, base, z, &n_bcs), "zone '" + zone.name + "': reading its ZoneBC");
  // The sections' element ranges, sorted and merged where they touch.
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  for (const CgnsSection& sec : sections)
    if (sec.n_elements > 0) ranges.emplace_back(sec.first, sec.first + sec.n_elements - 1);
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> merged;
  for (const auto& r : ranges)
    if (!merged.empty() && r.first <= merged.back().second + 1)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  std::string held;
  for (const auto& r : merged)
    held += (held.empty() ? "" : ", ") + std::to_string(r.first) + ".." + std::to_string(r.second);
  // The merged range holding element e, or none.
  auto range_of = [&](std::int64_t e) {
    auto it = std::upper_bound(merged.begin(), merged.end(), e,
                               [](std::int64_t v, const auto& r) { return v < r.first; });
    if (it == merged.begin() || (it - 1)->second < e) return merged.end();
    return it - 1;
  };
  for (int bc = 1; bc <= n_bcs; ++bc) {
    char name[33];
    CGNS_ENUMT(BCType_t) type;
    CGNS_ENUMT(PointSetType_t) set;
    CGNS_ENUMT(DataType_t) normal_type;
    CGNS_ENUMT(GridLocation_t) location = CGNS_ENUMV(Vertex);
    cgsize_t n_points = 0, normal_size = 0;
    int normal_index[3] = {0, 0, 0}, n_datasets = 0;
    const std::string what = "zone '" + zone.name + "': boundary condition " + std::to_string(bc);
    file.check(cg_boco_info(fn, base, z, bc, name, &type, &set, &n_points, normal_index,
                            &normal_size, &normal_type, &n_datasets),
               "reading " + what);
    file.check(cg_boco_gridlocation_read(fn, base, z, bc, &location), "reading " + what);
    const std::string place = file.path() + ": zone '" + zone.name + "', boundary condition '" +
                              cgns_trimmed(name) + "'";
    const bool is_range =
        set == CGNS_ENUMV(PointRange) || set == CGNS_ENUMV(ElementRange);
    const bool is_list = set == CGNS_ENUMV(PointList) || set == CGNS_ENUMV(ElementList);
    if (!is_range && !is_list)
      throw_bad_input(place + ": point set type " + std::to_string(static_cast<int>(set)) +
                      "; supported: PointRange, PointList, ElementRange, ElementList");
    file.require_fits(n_points, place, "the point set");
    file.require_fits(normal_size, place, "the normal list");
    if (is_range && n_points != 2)
      throw_bad_input(place + ": a range of " + std::to_string(n_points) +
                      " entries; a range has 2 (first, last)");
    // libcgns reads the point set's whole array, whatever the count it
    // reports: the array must hold that count (a range stored as 2 x 2
    // entries overran a buffer of 2).
    const std::int64_t n_held = cgns_point_set_entries(file, zone, name);
    if (n_held != n_points)
      throw_bad_input(place + ": its point set holds " +
                      (n_held < 0 ? std::string("no array") : std::to_string(n_held) + " entries") +
                      ", its header declares " + std::to_string(n_points));
    std::vector<cgsize_t> points(static_cast<std::size_t>(n_points));
    // NormalList, when present, is read too (libcgns reads both at once).
    std::vector<double> normals(static_cast<std::size_t>(normal_size) + 1);
    file.check(cg_boco_read(fn, base, z, bc, points.data(), normals.data()),
               "reading the points of " + what);
    const bool nodes = set != CGNS_ENUMV(ElementRange) && set != CGNS_ENUMV(ElementList) &&
                       (location == CGNS_ENUMV(Vertex) || location == CGNS_ENUMV(GridLocationNull));
    if (is_range && points[0] > points[1])
      throw_bad_input(place + ": range " + std::to_string(points[0]) + ".." +
                      std::to_string(points[1]) + " is empty the wrong way round");
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::int64_t p = points[i];
      if (nodes) {
        if (p < 1 || p > zone.n_nodes)
          throw_bad_input(place + ": names node " + std::to_string(p) + ", outside the zone's 1.." +
                          std::to_string(zone.n_nodes));
        continue;
      }
      const auto r = range_of(p);
      if (r == merged.end())
        throw_bad_input(place + ": names element " + std::to_string(p) +
                        ", which no section holds (the sections hold " +
                        (held.empty() ? std::string("none") : held) + ")");
      if (is_range && i == 0 && r->second < points[1])
        throw_bad_input(place + ": range " + std::to_string(p) + ".." +
                        std::to_string(points[1]) + " names element " +
                        std::to_string(r->second + 1) + ", which no section holds (the " +
                        "sections hold " + held + ")");
    }
  }
}

// The zone's declared cell count must be what its sections hold.
inline void require_cgns_cell_count(const std::string& path, const CgnsZone& zone,
                                    std::int64_t n_cells) {
  if (n_cells != zone.n_declared_cells)
    throw_bad_input(path + ": zone '" + zone.name + "' declares " +
                    std::to_string(zone.n_declared_cells) + " cells but its sections hold " +
                    std::to_string(n_cells) + " " + std::to_string(zone.cell_dim) +
                    "-D elements");
}

}  // namespace camber::mesh::detail

#endif  // CAMBER_WITH_CGNS
