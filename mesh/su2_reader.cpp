#include <camber/mesh/su2_reader.hpp>

#include "detail/su2_common.hpp"
#include <camber/core/error.hpp>

namespace camber::mesh {

namespace {

using detail::quote;
using detail::TextReader;
using Header = detail::Su2Header;

Header parse_header(const TextReader& r) { return detail::parse_header(r.line()); }

long long header_count(const TextReader& r, const Header& h, std::size_t max_values = 1) {
  std::string error;
  const long long n = detail::header_count(h, r.line(), error, max_values);
  if (n < 0) r.fail(error);
  return n;
}

// The count must fit in the rest of the file: `lines_each` lines per entry.
void check_fits(const TextReader& r, const std::string& key, long long n, long lines_each = 1) {
  std::string error;
  if (!detail::check_fits(key, n, r.lines_left(), lines_each, error)) r.fail(error);
}

// NPERIODIC= n, then per entry PERIODIC_INDEX= i and three lines (the
// rotation centre, the rotation angles, the translation). SU2 writes the
// identity as entry 0 of every mesh it saves; any other transformation is
// a periodic boundary, which Camber does not support.
void read_periodic(TextReader& r, const Header& h, int dim) {
  const long long n = header_count(r, h);
  check_fits(r, "NPERIODIC", n, 4);
  for (long long i = 0; i < n; ++i) {
    r.require_line("PERIODIC_INDEX= " + std::to_string(i) + " of NPERIODIC= " + std::to_string(n));
    const Header index = parse_header(r);
    if (index.key != "PERIODIC_INDEX" || header_count(r, index) != i)
      r.fail("expected PERIODIC_INDEX= " + std::to_string(i) + ", found " + quote(r.line()));
    for (int row = 0; row < 3; ++row) {
      r.require_line("line " + std::to_string(row + 1) + " of 3 of PERIODIC_INDEX= " +
                     std::to_string(i));
      detail::read_periodic_row(r, dim, "PERIODIC_INDEX= " + std::to_string(i));
    }
  }
}

// A count header whose value's lines follow, each with at least
// `min_fields` fields (and exactly `exact` when > 0).
void skip_counted(TextReader& r, const Header& h, const std::string& what, int min_fields,
                  int exact = 0) {
  const long long n = header_count(r, h);
  check_fits(r, h.key, n);
  for (long long i = 0; i < n; ++i) {
    r.require_line(what + " " + std::to_string(i) + " of " + h.key + "= " + std::to_string(n));
    r.require_fields(exact > 0 ? exact : min_fields, exact > 0 ? exact : 1 << 20,
                     exact > 0 ? std::to_string(exact) + " fields" : what);
  }
}

// SU2's free-form deformation boxes (FFD_NBOX= n, FFD_NLEVEL= m, then per
// box its tag, level, degrees, blending, parents, children, corner,
// control and surface points): checked for their structure and not kept.
// They are SU2's optimizer's parametrization, stored in the mesh file;
// Camber's design parametrization comes from the deck's design section.
void read_ffd_boxes(TextReader& r, const Header& h, int dim) {
  const long long n_boxes = header_count(r, h);
  r.require_line("FFD_NLEVEL= after FFD_NBOX=");
  const Header levels = parse_header(r);
  if (levels.key != "FFD_NLEVEL") r.fail("expected FFD_NLEVEL=, found " + quote(r.line()));
  (void)header_count(r, levels);
  long long tags = 0;
  // The keys of the boxes' definitions, until the last box's surface points.
  long long surface_sections = 0;
  while (surface_sections < n_boxes) {
    r.require_line("the definition of FFD box " + std::to_string(surface_sections) + " of FFD_NBOX= " +
                   std::to_string(n_boxes));
    const Header k = parse_header(r);
    if (k.key == "FFD_TAG") {
      if (k.values.size() != 1) r.fail("expected FFD_TAG= name, found " + quote(r.line()));
      ++tags;
    } else if (k.key == "FFD_LEVEL" || k.key == "FFD_DEGREE_I" || k.key == "FFD_DEGREE_J" ||
               k.key == "FFD_DEGREE_K") {
      (void)header_count(r, k);
    } else if (k.key == "FFD_BLENDING" || k.key == "FFD_BSPLINE_ORDER") {
      if (k.values.empty()) r.fail("expected a value after " + k.key + "=, found " + quote(r.line()));
    } else if (k.key == "FFD_PARENTS" || k.key == "FFD_CHILDREN") {
      skip_counted(r, k, "a box tag", 1);
    } else if (k.key == "FFD_CORNER_POINTS") {
      skip_counted(r, k, "corner point", 0, dim);
    } else if (k.key == "FFD_CONTROL_POINTS") {
      skip_counted(r, k, "control point", 2 * dim);
    } else if (k.key == "FFD_SURFACE_POINTS") {
      skip_counted(r, k, "surface point", 2 + dim);
      ++surface_sections;
    } else {
      r.fail("expected an FFD box key (FFD_TAG=, FFD_DEGREE_I=, FFD_CORNER_POINTS=, ...) in box " +
             std::to_string(surface_sections) + " of FFD_NBOX= " + std::to_string(n_boxes) +
             ", found " + quote(r.line()));
    }
  }
  if (tags != n_boxes)
    r.fail("FFD_NBOX= " + std::to_string(n_boxes) + " but " + std::to_string(tags) +
           " FFD_TAG= lines were read");
}

}  // namespace

MeshData read_su2_data(const std::string& path) {
  TextReader r(path, '%');
  MeshData d;
  d.source = path;
  int dim = 0;
  bool have_elem = false, have_poin = false, have_mark = false;
  long long n_points = 0;

  while (r.next_line()) {
    const Header h = parse_header(r);
    if (h.key == "NDIME") {
      if (dim != 0) r.fail("NDIME= given twice");
      const long long v = header_count(r, h);
      if (v != 2 && v != 3) r.fail("expected NDIME= 2 or 3, found " + quote(h.values[0]));
      dim = static_cast<int>(v);
      d.dim = dim;
      continue;
    }
    if (h.key == "NZONE" || h.key == "IZONE")
      r.fail("multi-zone SU2 files are not supported; expected a single-zone mesh, found " +
             quote(r.line()));
    if (h.key == "NELEM" || h.key == "NPOIN" || h.key == "NMARK") {
      if (dim == 0) r.fail("expected NDIME= before " + h.key + "=, found " + quote(r.line()));
    }
    if (h.key == "NELEM") {
      if (have_elem) r.fail("NELEM= given twice");
      have_elem = true;
      const long long n = header_count(r, h);
      check_fits(r, "NELEM", n);
      const long header_line = r.line_number();
      d.cell_types.reserve(n);
      d.cell_offsets.reserve(n + 1);
      d.cell_lines.reserve(n);
      for (long long e = 0; e < n; ++e) {
        r.require_line("element " + std::to_string(e) + " of NELEM= " + std::to_string(n) +
                       " (line " + std::to_string(header_line) + ")");
        index_t nodes[8];
        const CellType t = detail::read_element(r, dim, false, nodes);
        d.add_cell(t, nodes, n_cell_nodes(t), r.line_number());
      }
    } else if (h.key == "NPOIN") {
      if (have_poin) r.fail("NPOIN= given twice");
      have_poin = true;
      n_points = header_count(r, h, 2);
      check_fits(r, "NPOIN", n_points);
      const long header_line = r.line_number();
      d.coords.reserve(static_cast<std::size_t>(n_points) * dim);
      for (long long p = 0; p < n_points; ++p) {
        r.require_line("point " + std::to_string(p) + " of NPOIN= " + std::to_string(n_points) +
                       " (line " + std::to_string(header_line) + ")");
        detail::read_point(r, dim, d.coords);
      }
    } else if (h.key == "NMARK") {
      if (have_mark) r.fail("NMARK= given twice");
      have_mark = true;
      const long long n = header_count(r, h);
      check_fits(r, "NMARK", n, 2);  // MARKER_TAG and MARKER_ELEMS each
      for (long long m = 0; m < n; ++m) {
        r.require_line("MARKER_TAG= name of marker " + std::to_string(m) + " of NMARK= " +
                       std::to_string(n));
        const Header tag = parse_header(r);
        if (tag.key != "MARKER_TAG" || tag.values.size() != 1)
          r.fail("expected MARKER_TAG= name (marker " + std::to_string(m) + " of NMARK= " +
                 std::to_string(n) + "), found " + quote(r.line()));
        MeshData::Marker& marker = d.add_marker(tag.values[0]);
        r.require_line("MARKER_ELEMS= count for marker '" + tag.values[0] + "'");
        const Header elems = parse_header(r);
        if (elems.key != "MARKER_ELEMS")
          r.fail("expected MARKER_ELEMS= count for marker '" + tag.values[0] + "', found " +
                 quote(r.line()));
        const long long k = header_count(r, elems);
        check_fits(r, "MARKER_ELEMS", k);
        marker.offsets.reserve(k + 1);
        for (long long e = 0; e < k; ++e) {
          r.require_line("element " + std::to_string(e) + " of MARKER_ELEMS= " +
                         std::to_string(k) + " of marker '" + tag.values[0] + "'");
          index_t nodes[4];
          const CellType t = detail::read_element(r, dim, true, nodes);
          marker.add_element(nodes, n_cell_nodes(t), r.line_number());
        }
      }
    } else if (h.key == "MARKER_TAG" || h.key == "MARKER_ELEMS") {
      r.fail(h.key + "= outside an NMARK= section (or more markers than NMARK= says)");
    } else if (h.key == "NPERIODIC") {
      if (dim == 0) r.fail("expected NDIME= before NPERIODIC=, found " + quote(r.line()));
      read_periodic(r, h, dim);
    } else if (h.key == "FFD_NBOX") {
      if (dim == 0) r.fail("expected NDIME= before FFD_NBOX=, found " + quote(r.line()));
      read_ffd_boxes(r, h, dim);
    } else {
      r.fail(std::string("expected ") + detail::su2_sections + ", found " + quote(r.line()));
    }
  }
  if (dim == 0) r.fail("expected NDIME= 2 or 3, found end of file");
  if (!have_elem) r.fail("expected an NELEM= section, found end of file");
  if (!have_poin) r.fail("expected an NPOIN= section, found end of file");
  if (!have_mark) r.fail("expected an NMARK= section, found end of file");

  // Node indices against NPOIN, reported at the element's line.
  auto check_range = [&](const index_t* nodes, index_t n, long line, const std::string& what) {
    for (index_t i = 0; i < n; ++i)
      if (nodes[i] >= n_points)
        throw_bad_input(path + ":" + std::to_string(line) + ": " +
                        detail::node_range_error(n_points, what, nodes[i]));
  };
  for (index_t c = 0; c < d.n_cells(); ++c)
    check_range(d.cell_nodes.data() + d.cell_offsets[c], d.cell_offsets[c + 1] - d.cell_offsets[c],
                d.cell_lines[c], "an element");
  for (const MeshData::Marker& m : d.markers)
    for (index_t e = 0; e < m.n_elements(); ++e)
      check_range(m.nodes.data() + m.offsets[e], m.offsets[e + 1] - m.offsets[e], m.lines[e],
                  "marker '" + m.name + "'");
  return d;
}

Mesh read_su2(const std::string& path) {
  return Mesh::from_cells(read_su2_data(path), Orientation::fix);
}

}  // namespace camber::mesh
