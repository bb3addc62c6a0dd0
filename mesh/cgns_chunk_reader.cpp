// read_cgns_chunk: every rank opens the file read-only with the serial
// libcgns and reads only its share with partial reads.
//
// Numbering, as the serial reader (cgns_reader.cpp) orders the mesh: nodes
// as the zone stores them; cells are the elements of the base's dimension
// in section order, then element order within a section; a section's
// boundary faces are the marker named after it, markers in section order.
//
// The split: rank r of P holds nodes [n r / P, n (r + 1) / P) and cells
// [c r / P, c (r + 1) / P), and of every section that is not all cells the
// elements [m r / P, m (r + 1) / P) of its m elements, keeping the faces
// among them. A typed section is all cells or all faces, so c and the
// cells' places are known from the headers. A MIXED section may hold both:
// first each rank reads its element share of it, counts its cells and keeps
// its faces; the counts are gathered (c is then known), each rank finds the
// element numbers of the cell-range ends that fall in its share, and a
// reduction tells every rank the element range from its first to its last
// cell, which it then reads (faces between its cells are read and skipped).
//
// Memory: the rank's shares, plus per MIXED section two counts and two
// element numbers per rank, plus the ZoneBC point lists, which every rank
// reads whole to check them (no declared size is allocated before it is
// checked against the file's size and arrays). A MIXED section without
// element offsets (as files written before CGNS 3.4 store them) is read
// whole by every rank, which finds the offsets from the type codes.
//
// Errors: each phase runs under collective_guard, so a problem on any rank
// is one bad_input error on every rank with the lowest failing rank's
// message, and every rank reaches every collective.
#include <camber/mesh/mesh_chunk.hpp>

#include <camber/core/config.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

#include "detail/cgns_common.hpp"

#if CAMBER_WITH_CGNS
#include <cgns_io.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace camber::mesh {

namespace {

using detail::CgnsFile;
using detail::CgnsSection;
using detail::CgnsZone;

// [n r / p, n (r + 1) / p): rank r's share of n things.
std::pair<std::int64_t, std::int64_t> share(std::int64_t n, int r, int p) {
  return {n * r / p, n * (r + 1) / p};
}

// A MIXED section's elements by ranges, through libcgns's node-level I/O
// (cgns_io.h): libcgns 3.4.0's cg_ElementPartialSize and
// cg_poly_elements_partial_read index the offsets by the element's number
// as if the section started at element 1, so they read the wrong elements
// (or past the array) for any later section.
class MixedSectionReader {
 public:
  MixedSectionReader(const CgnsFile& file, const CgnsZone& zone, const CgnsSection& sec)
      : file_(file), sec_(sec) {
    file.check(cg_get_cgio(file.fn(), &cgio_), sec.place() + ": opening the file's nodes");
    double root = 0, base = 0, zone_id = 0, section = 0;
    file.check(cg_root_id(file.fn(), &root), sec.place() + ": opening the file's nodes");
    if (cgio_get_node_id(cgio_, root, zone.base_node.c_str(), &base) != CGIO_ERR_NONE ||
        cgio_get_node_id(cgio_, base, zone.zone_node.c_str(), &zone_id) != CGIO_ERR_NONE ||
        cgio_get_node_id(cgio_, zone_id, sec.node.c_str(), &section) != CGIO_ERR_NONE ||
        cgio_get_node_id(cgio_, section, "ElementConnectivity", &connectivity_) != CGIO_ERR_NONE)
      fail("finding the section's ElementConnectivity");
    // Files of CGNS before 3.4 store no offsets: the whole connectivity is
    // read, and the offsets found from its type codes.
    has_offsets_ =
        cgio_get_node_id(cgio_, section, "ElementStartOffset", &offsets_) == CGIO_ERR_NONE;
  }

  // The connectivity of elements [begin, end) of the section (0-based),
  // each element's type code, then its nodes.
  std::vector<cgsize_t> read(std::int64_t begin, std::int64_t end) const {
    std::vector<std::int64_t> offsets, conn;
    if (has_offsets_) {
      offsets = read_range(offsets_, begin, end + 1, "ElementStartOffset");
      if (offsets.front() < 0 || offsets.back() > sec_.data_size ||
          !std::is_sorted(offsets.begin(), offsets.end()))
        throw_bad_input(sec_.place() + ": the MIXED offsets of elements " +
                        std::to_string(sec_.first + begin) + ".." +
                        std::to_string(sec_.first + end - 1) +
                        " are not increasing within the section's " +
                        std::to_string(sec_.data_size) + " connectivity entries");
      conn = read_range(connectivity_, offsets.front(), offsets.back(), "ElementConnectivity");
      detail::require_cgns_mixed_offsets(std::vector<cgsize_t>(conn.begin(), conn.end()), offsets,
                                         sec_, sec_.first + begin, begin == 0,
                                         end == sec_.n_elements);
    } else {
      // The offsets from the type codes, as the serial reader's walk finds
      // them: libcgns 3.4 computes them only for a file that says it is
      // older than 3.4, and leaves them unset for one that says 3.4.
      std::vector<cgsize_t> all(static_cast<std::size_t>(sec_.data_size));
      std::vector<cgsize_t> unused(static_cast<std::size_t>(sec_.n_elements) + 1);
      file_.check(cg_poly_elements_read(file_.fn(), CgnsZone::base, CgnsZone::zone, sec_.index,
                                        all.data(), unused.data(), nullptr),
                  sec_.place() + ": reading the connectivity");
      std::size_t lo = 0, hi = all.size();
      std::size_t pos = 0;
      for (std::int64_t e = 0; e < end; ++e) {
        if (e == begin) lo = pos;
        if (pos >= all.size())
          throw_bad_input(sec_.place() + ": the MIXED connectivity ends before element " +
                          std::to_string(sec_.first + e));
        const auto type = static_cast<CGNS_ENUMT(ElementType_t)>(all[pos]);
        int npe = 0;
        if (cg_npe(type, &npe) != CG_OK || npe <= 0) {
          // An element whose size its code does not tell: the walk over
          // [begin, end) refuses it; before begin, it is refused here.
          if (e < begin)
            throw_bad_input(sec_.place() + ": element " + std::to_string(sec_.first + e) +
                            " is " + detail::cgns_type_name(type) + "; supported: " +
                            detail::cgns_supported_types());
          break;
        }
        pos = std::min(all.size(), pos + 1 + static_cast<std::size_t>(npe));
        if (e + 1 == end) hi = pos;
      }
      conn.assign(all.begin() + static_cast<std::ptrdiff_t>(lo),
                  all.begin() + static_cast<std::ptrdiff_t>(hi));
    }
    return std::vector<cgsize_t>(conn.begin(), conn.end());
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    char message[CGIO_MAX_ERROR_LENGTH + 1] = {0};
    cgio_error_message(message);
    throw_bad_input(sec_.place() + ": " + what + ": " + message);
  }

  // Entries [begin, end) (0-based) of a 1-D integer array node.
  std::vector<std::int64_t> read_range(double id, std::int64_t begin, std::int64_t end,
                                       const char* name) const {
    if (end <= begin) return {};
    std::vector<std::int64_t> values(static_cast<std::size_t>(end - begin));
    char type[CGIO_MAX_DATATYPE_LENGTH + 1] = {0};
    if (cgio_get_data_type(cgio_, id, type) != CGIO_ERR_NONE) fail(std::string("reading ") + name);
    const std::string t = cgns_type_code(type);
    cgsize_t s_start = static_cast<cgsize_t>(begin + 1), s_end = static_cast<cgsize_t>(end),
             stride = 1, m_dim = static_cast<cgsize_t>(values.size()), m_start = 1,
             m_end = m_dim;
    int status = CGIO_ERR_NONE;
    if (t == "I8") {
      status = cgio_read_data(cgio_, id, &s_start, &s_end, &stride, 1, &m_dim, &m_start, &m_end,
                              &stride, values.data());
    } else if (t == "I4") {
      std::vector<std::int32_t> narrow(values.size());
      status = cgio_read_data(cgio_, id, &s_start, &s_end, &stride, 1, &m_dim, &m_start, &m_end,
                              &stride, narrow.data());
      std::copy(narrow.begin(), narrow.end(), values.begin());
    } else {
      throw_bad_input(sec_.place() + ": " + name + " holds " + t + " data; supported: I4 or I8");
    }
    if (status != CGIO_ERR_NONE)
      fail(std::string("reading ") + name + " entries " + std::to_string(begin + 1) + ".." +
           std::to_string(end));
    return values;
  }

  static std::string cgns_type_code(const char* type) {
    std::string t(type);
    while (!t.empty() && t.back() == ' ') t.pop_back();
    return t;
  }

  const CgnsFile& file_;
  const CgnsSection& sec_;
  int cgio_ = -1;
  double connectivity_ = 0, offsets_ = 0;
  bool has_offsets_ = false;
};

// The connectivity of elements [begin, end) of a section (0-based within
// the section), as the serial reader's walk takes it.
std::vector<cgsize_t> read_elements(const CgnsFile& file, const CgnsZone& zone,
                                    const CgnsSection& sec, std::int64_t begin, std::int64_t end) {
  if (sec.mixed) return MixedSectionReader(file, zone, sec).read(begin, end);
  int npe = 0;
  file.check(cg_npe(sec.type, &npe), sec.place() + ": nodes per element");
  std::vector<cgsize_t> conn(static_cast<std::size_t>(end - begin) * static_cast<std::size_t>(npe));
  file.check(cg_elements_partial_read(file.fn(), CgnsZone::base, CgnsZone::zone, sec.index,
                                      static_cast<cgsize_t>(sec.first + begin),
                                      static_cast<cgsize_t>(sec.first + end - 1), conn.data(),
                                      nullptr),
             sec.place() + ": reading the connectivity");
  return conn;
}

void append(std::vector<std::int64_t>& nodes, std::vector<index_t>& offsets, const index_t* element,
            int n) {
  nodes.insert(nodes.end(), element, element + n);
  offsets.push_back(static_cast<index_t>(nodes.size()));
}

}  // namespace

MeshChunk read_cgns_chunk(const std::string& path, MPI_Comm comm) {
  const int rank = comm_rank(comm), n_ranks = comm_size(comm);
  std::unique_ptr<CgnsFile> file;
  CgnsZone zone;
  std::vector<CgnsSection> sections;
  MeshChunk chunk;

  // Headers: the same reads and checks on every rank.
  collective_guard(comm, [&] {
    file = std::make_unique<CgnsFile>(path);
    zone = detail::read_cgns_zone(*file);
    for (int s = 1; s <= zone.n_sections; ++s)
      sections.push_back(detail::read_cgns_section(*file, zone, s));
    detail::require_cgns_boundary_conditions(*file, zone, sections);
  });
  const int dim = zone.cell_dim;
  const std::int64_t n_nodes = zone.n_nodes;
  const auto n_sections = sections.size();
  auto is_cell_section = [&](const CgnsSection& sec) {
    return !sec.mixed && detail::cgns_section_dimension(sec) == dim;
  };
  // MIXED sections, by their index into `sections`.
  std::vector<std::size_t> mixed;
  for (std::size_t s = 0; s < n_sections; ++s)
    if (sections[s].mixed) mixed.push_back(s);
  const std::size_t n_mixed = mixed.size();

  chunk.dim = dim;
  chunk.source = path;
  chunk.n_global_nodes = n_nodes;
  std::vector<std::size_t> face_section;  // per face of this chunk: its section
  auto add_face = [&](std::size_t s, const index_t* nodes, int n) {
    face_section.push_back(s);
    append(chunk.face_nodes, chunk.face_offsets, nodes, n);
  };

  // Nodes, and this rank's element share of each MIXED section: its faces
  // kept, its cells counted (with their element numbers in the section).
  std::vector<std::int64_t> my_counts(2 * n_mixed, 0);  // per MIXED section: cells, faces
  std::vector<std::vector<std::int64_t>> my_cell_elements(n_mixed);
  collective_guard(comm, [&] {
    const auto [begin, end] = share(n_nodes, rank, n_ranks);
    chunk.node_begin = begin;
    chunk.coords.resize(static_cast<std::size_t>(end - begin) * static_cast<std::size_t>(dim));
    for (int k = 0; k < dim; ++k) {
      const std::vector<double> x = detail::read_cgns_coords(*file, k, begin, end);
      detail::require_cgns_finite(path, zone, k, x, begin);
      for (std::size_t i = 0; i < x.size(); ++i) chunk.coords[i * dim + k] = x[i];
    }
    if (dim == 2 && zone.has_axis[2]) {
      const std::vector<double> z1 = detail::read_cgns_coords(*file, 2, 0, 1);
      detail::require_cgns_finite(path, zone, 2, z1, 0);
      const std::vector<double> z = detail::read_cgns_coords(*file, 2, begin, end);
      detail::require_cgns_finite(path, zone, 2, z, begin);
      detail::require_cgns_plane(path, zone, z, begin, z1[0]);
    }
    for (std::size_t m = 0; m < n_mixed; ++m) {
      const CgnsSection& sec = sections[mixed[m]];
      const auto [e0, e1] = share(sec.n_elements, rank, n_ranks);
      if (e1 <= e0) continue;
      std::int64_t e = e0;
      detail::for_each_cgns_element(
          read_elements(*file, zone, sec, e0, e1), sec, sec.first + e0, e1 - e0, n_nodes, dim,
          [&](bool is_cell, CellType, const index_t* nodes, int n) {
            if (is_cell) {
              ++my_counts[2 * m];
              my_cell_elements[m].push_back(e);
            } else {
              ++my_counts[2 * m + 1];
              add_face(mixed[m], nodes, n);
            }
            ++e;
          });
    }
  });

  // Every rank's counts of every MIXED section.
  std::vector<std::int64_t> counts(2 * n_mixed * static_cast<std::size_t>(n_ranks), 0);
  if (n_mixed > 0)
    CAMBER_CHECK_MPI(MPI_Allgather(my_counts.data(), static_cast<int>(2 * n_mixed), MPI_INT64_T,
                                   counts.data(), static_cast<int>(2 * n_mixed), MPI_INT64_T,
                                   comm));
  auto count_of = [&](int q, std::size_t m, int what) {
    return counts[(static_cast<std::size_t>(q) * n_mixed + m) * 2 + static_cast<std::size_t>(what)];
  };

  // Cells and faces per section; the global cell numbering.
  std::vector<std::int64_t> section_cells(n_sections, 0), section_faces(n_sections, 0);
  for (std::size_t s = 0; s < n_sections; ++s)
    if (!sections[s].mixed)
      (is_cell_section(sections[s]) ? section_cells : section_faces)[s] = sections[s].n_elements;
  for (std::size_t m = 0; m < n_mixed; ++m)
    for (int q = 0; q < n_ranks; ++q) {
      section_cells[mixed[m]] += count_of(q, m, 0);
      section_faces[mixed[m]] += count_of(q, m, 1);
    }
  std::vector<std::int64_t> section_cell_begin(n_sections + 1, 0);
  for (std::size_t s = 0; s < n_sections; ++s)
    section_cell_begin[s + 1] = section_cell_begin[s] + section_cells[s];
  const std::int64_t n_cells = section_cell_begin[n_sections];
  // Rank q's cells of section s, numbered within the section.
  auto cells_of = [&](int q, std::size_t s) {
    const auto [c0, c1] = share(n_cells, q, n_ranks);
    const std::int64_t lo = section_cell_begin[s], hi = section_cell_begin[s + 1];
    return std::pair<std::int64_t, std::int64_t>{std::clamp(c0, lo, hi) - lo,
                                                 std::clamp(c1, lo, hi) - lo};
  };

  // The element numbers (within the section) of the first and the last
  // cell of every rank's cells in each MIXED section, from the ranks whose
  // element shares hold them.
  std::vector<std::int64_t> ends(2 * n_mixed * static_cast<std::size_t>(n_ranks), -1);
  auto end_slot = [&](std::size_t m, int q) {
    return (m * static_cast<std::size_t>(n_ranks) + static_cast<std::size_t>(q)) * 2;
  };
  collective_guard(comm, [&] {
    detail::require_cgns_cell_count(path, zone, n_cells);
    for (std::size_t m = 0; m < n_mixed; ++m) {
      std::int64_t mine = 0;  // cells of the section in the shares of lower ranks
      for (int q = 0; q < rank; ++q) mine += count_of(q, m, 0);
      const auto& elements = my_cell_elements[m];
      const std::int64_t n_mine = static_cast<std::int64_t>(elements.size());
      auto element_of = [&](std::int64_t cell) {
        if (cell < mine || cell >= mine + n_mine) return std::int64_t{-1};
        return elements[static_cast<std::size_t>(cell - mine)];
      };
      for (int q = 0; q < n_ranks; ++q) {
        const auto [a, b] = cells_of(q, mixed[m]);
        if (a >= b) continue;
        const std::size_t at = end_slot(m, q);
        ends[at] = element_of(a);
        ends[at + 1] = element_of(b - 1);
      }
    }
  });
  if (n_mixed > 0)
    CAMBER_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, ends.data(), static_cast<int>(ends.size()),
                                   MPI_INT64_T, MPI_MAX, comm));

  // This rank's cells, in order, and its share of the typed face sections.
  collective_guard(comm, [&] {
    const auto [c0, c1] = share(n_cells, rank, n_ranks);
    chunk.n_global_cells = n_cells;
    chunk.cell_begin = c0;
    auto add_cell = [&](CellType t, const index_t* nodes, int n) {
      chunk.cell_types.push_back(t);
      append(chunk.cell_nodes, chunk.cell_offsets, nodes, n);
    };
    std::size_t m = 0;  // index of the next MIXED section
    for (std::size_t s = 0; s < n_sections; ++s) {
      const CgnsSection& sec = sections[s];
      const std::pair<std::int64_t, std::int64_t> mine = cells_of(rank, s);
      const std::int64_t a = mine.first, b = mine.second;
      if (sec.mixed) {
        const std::size_t at = end_slot(m++, rank);
        if (a >= b) continue;
        const std::int64_t e0 = ends[at], e1 = ends[at + 1] + 1;
        CAMBER_REQUIRE(e0 >= 0 && e1 > e0, sec.place() << ": no element range for cells " << a
                                                        << ".." << b - 1 << " of the section");
        const std::size_t before = chunk.cell_types.size();
        detail::for_each_cgns_element(read_elements(*file, zone, sec, e0, e1), sec, sec.first + e0,
                                      e1 - e0, n_nodes, dim,
                                      [&](bool is_cell, CellType t, const index_t* nodes, int n) {
                                        if (is_cell) add_cell(t, nodes, n);
                                      });
        CAMBER_REQUIRE(static_cast<std::int64_t>(chunk.cell_types.size() - before) == b - a,
                       sec.place() << ": elements " << sec.first + e0 << ".." << sec.first + e1 - 1
                                   << " hold " << chunk.cell_types.size() - before
                                   << " cells, expected " << b - a);
        continue;
      }
      // A typed section: cells (this rank's cell range of it) or else
      // faces (this rank's share of its elements; the walk refuses an
      // element of neither dimension).
      const bool cells = is_cell_section(sec);
      const std::pair<std::int64_t, std::int64_t> range =
          cells ? mine : share(sec.n_elements, rank, n_ranks);
      const std::int64_t e0 = range.first, e1 = range.second;
      if (e1 <= e0) continue;
      detail::for_each_cgns_element(read_elements(*file, zone, sec, e0, e1), sec, sec.first + e0,
                                    e1 - e0, n_nodes, dim,
                                    [&](bool is_cell, CellType t, const index_t* nodes, int n) {
                                      if (is_cell)
                                        add_cell(t, nodes, n);
                                      else
                                        add_face(s, nodes, n);
                                    });
    }
  });

  // Markers: the sections that hold faces, in section order, as the
  // serial reader adds them.
  std::vector<int> marker_of(n_sections, -1);
  for (std::size_t s = 0; s < n_sections; ++s)
    if (section_faces[s] > 0) {
      marker_of[s] = static_cast<int>(chunk.marker_names.size());
      chunk.marker_names.push_back(sections[s].place.section);
    }
  chunk.face_marker.reserve(face_section.size());
  for (std::size_t s : face_section) chunk.face_marker.push_back(marker_of[s]);
  return chunk;
}

}  // namespace camber::mesh

#else

namespace camber::mesh {

MeshChunk read_cgns_chunk(const std::string& path, MPI_Comm comm) {
  collective_guard(comm, [&] { throw_bad_input(detail::cgns_not_built_message(path)); });
  return {};  // not reached: the guard throws on every rank
}

}  // namespace camber::mesh

#endif  // CAMBER_WITH_CGNS
