// read_su2_chunk: each rank reads its byte range of an SU2 file.
//
// Three steps, each rank holding O(file / ranks) bytes throughout:
//
//  1. Scan. Rank r reads the bytes [size r / P, size (r + 1) / P) and the
//     rest of the line that crosses the end; a line belongs to the rank
//     where it starts. It counts its lines and keeps its header lines
//     ("KEY= ...", with the number of data lines after each). Every rank
//     then receives every rank's line count and headers (two allgathers),
//     so it knows the global number of each of its lines, the section it is
//     in and its index in that section: data lines of a section before this
//     rank are summed, so comment and blank lines never shift an index.
//  2. Check and parse. Every rank walks the headers as the serial reader
//     walks the file (su2_reader.cpp) and finds the same structural errors
//     (a count that does not match its section's lines, a missing section);
//     then it parses the data lines it holds up to the first structural
//     error. The error reported is the first one in the file: a rank's own
//     error comes before a structural one at a later line, and a rank
//     throws the structural error only if it holds that line.
//  3. Balance. Cells and nodes move to the ranges [n r / P, n (r + 1) / P)
//     (one alltoallv per array); the sections of a file are not evenly
//     spread over its bytes (a NACA 0012 file at 4 ranks leaves the last
//     rank no element line). Marker elements stay where they were read.
#include <camber/mesh/mesh_chunk.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detail/su2_common.hpp"
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>

namespace camber::mesh {

namespace {

using detail::quote;
using detail::su2_sections;
using detail::TextReader;

// ---------------------------------------------------------------------------
// Step 1: this rank's lines.

// The first element of [0, n) that rank r of p starts with when n items are
// split in near-equal contiguous ranges: floor(n r / p), without forming n r.
std::uint64_t split_point(std::uint64_t n, int r, int p) {
  const auto ur = static_cast<std::uint64_t>(r), up = static_cast<std::uint64_t>(p);
  return n / up * ur + n % up * ur / up;
}

// The whole lines that start in this rank's byte range, from the first
// line start to the end of the last line (its '\n' included, if any).
std::string read_own_lines(const std::string& path, int rank, int n_ranks) {
  std::ifstream in(path, std::ios::binary);
  CAMBER_INPUT_REQUIRE(in.good(), "cannot open mesh file '" << path
                                                            << "'; check the path and permissions");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  CAMBER_INPUT_REQUIRE(size >= 0, "cannot read mesh file '" << path << "'; is it a regular file?");
  const std::uint64_t begin = split_point(static_cast<std::uint64_t>(size), rank, n_ranks);
  const std::uint64_t end = split_point(static_cast<std::uint64_t>(size), rank + 1, n_ranks);
  if (begin == end) return {};

  // One byte before the range tells whether a line starts at `begin`.
  const std::uint64_t from = begin > 0 ? begin - 1 : 0;
  std::string text(end - from, '\0');
  in.seekg(static_cast<std::streamoff>(from));
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  CAMBER_INPUT_REQUIRE(static_cast<std::uint64_t>(in.gcount()) == text.size(),
                       "cannot read bytes " << from << " to " << end << " of mesh file '" << path
                                            << "'");
  std::size_t first = 0;
  if (begin > 0) {
    first = text.find('\n');  // the line at `from` belongs to a lower rank
    if (first == std::string::npos) return {};
    ++first;
  }
  text.erase(0, first);
  if (text.empty()) return {};

  // The last line may run past `end`: read on to its newline.
  if (text.back() != '\n' && end < static_cast<std::uint64_t>(size)) {
    std::string block(1 << 16, '\0');
    for (;;) {
      in.read(block.data(), static_cast<std::streamsize>(block.size()));
      const auto got = static_cast<std::size_t>(in.gcount());
      const std::size_t nl = block.find('\n');
      if (nl < got) {
        text.append(block, 0, nl + 1);
        break;
      }
      text.append(block, 0, got);
      if (got < block.size()) break;  // end of file
    }
  }
  return text;
}

bool is_header(std::string_view content) { return content.find('=') != std::string_view::npos; }

// What a rank learns from its own lines before any message.
struct LocalScan {
  long n_lines = 0;
  long leading_data = 0;  // data lines before this rank's first header
  std::vector<char> headers;  // per header: local line, data lines after it, text (serialized)
  long n_headers = 0;
};

void put_int(std::vector<char>& out, std::int64_t v) {
  const char* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

std::int64_t get_int(const char*& p) {
  std::int64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  p += sizeof v;
  return v;
}

LocalScan scan_lines(const std::string& path, const std::string& text) {
  LocalScan s;
  std::vector<long> line, data_after;
  std::vector<std::string_view> header_text;
  // Local lines count from 0; exchange_scans adds the rank's first line.
  TextReader r(text, path, 0, '%');
  s.n_lines = r.lines_left();  // before the first line, all of them
  while (r.next_line()) {
    if (is_header(r.line())) {
      line.push_back(r.line_number());
      data_after.push_back(0);
      header_text.push_back(r.line());
    } else if (data_after.empty()) {
      ++s.leading_data;
    } else {
      ++data_after.back();
    }
  }
  s.n_headers = static_cast<long>(line.size());
  for (std::size_t h = 0; h < line.size(); ++h) {
    put_int(s.headers, line[h]);
    put_int(s.headers, data_after[h]);
    put_int(s.headers, static_cast<std::int64_t>(header_text[h].size()));
    s.headers.insert(s.headers.end(), header_text[h].begin(), header_text[h].end());
  }
  return s;
}

// ---------------------------------------------------------------------------
// The file's layout, known to every rank after the scan.

enum class DataKind { none, cells, points, marker_elements, periodic_rows, ffd_rows };

// A header line (its key and values) and the data lines that follow it up
// to the next header.
struct Section : detail::Su2Header {
  long line = 0;  // 1-based line of the header in the file
  std::string text;
  long long n_data = 0;

  // Set by the structure check: what the data lines are, how many the
  // header allows, and what a further data line was expected to be.
  DataKind kind = DataKind::none;
  long long limit = 0;
  std::string beyond = su2_sections;
  int marker = -1;
  int min_fields = 0, max_fields = 0;  // ffd_rows
  std::string rows_what;               // ffd_rows; periodic_rows: the entry
};

struct Layout {
  std::vector<long> first_line;  // per rank, of its first line (1-based)
  std::vector<long> end_line;    // per rank, one past its last line
  long total_lines = 0;
  std::vector<Section> sections;
  long long n_preamble = 0;  // data lines before the first header
  // Per rank: the section its leading data lines belong to (-1: none, the
  // preamble), the index in that section of the first of them, and the
  // index of its first own header in `sections`.
  std::vector<int> leading_section;
  std::vector<long long> leading_index;
  std::vector<int> first_section;
};

Layout exchange_scans(const LocalScan& mine, MPI_Comm comm) {
  const int n_ranks = comm_size(comm);
  const std::int64_t summary[4] = {mine.n_lines, mine.leading_data, mine.n_headers,
                                   static_cast<std::int64_t>(mine.headers.size())};
  std::vector<std::int64_t> all(4 * static_cast<std::size_t>(n_ranks));
  CAMBER_CHECK_MPI(MPI_Allgather(summary, 4, MPI_INT64_T, all.data(), 4, MPI_INT64_T, comm));
  std::vector<int> bytes(n_ranks), displs(n_ranks);
  std::int64_t total_bytes = 0;
  for (int r = 0; r < n_ranks; ++r) {
    displs[r] = static_cast<int>(total_bytes);
    bytes[r] = static_cast<int>(all[4 * r + 3]);
    total_bytes += all[4 * r + 3];
    CAMBER_INPUT_REQUIRE(total_bytes <= INT_MAX,
                         "the header lines (KEY= ...) of the mesh file exceed 2 GiB");
  }
  std::vector<char> headers(static_cast<std::size_t>(total_bytes));
  CAMBER_CHECK_MPI(MPI_Allgatherv(mine.headers.data(), static_cast<int>(mine.headers.size()),
                                  MPI_CHAR, headers.data(), bytes.data(), displs.data(), MPI_CHAR,
                                  comm));

  Layout l;
  l.first_line.resize(n_ranks);
  l.end_line.resize(n_ranks);
  l.leading_section.resize(n_ranks);
  l.leading_index.resize(n_ranks);
  l.first_section.resize(n_ranks);
  long next = 1;
  const char* p = headers.data();
  for (int r = 0; r < n_ranks; ++r) {
    l.first_line[r] = next;
    next += static_cast<long>(all[4 * r]);
    l.end_line[r] = next;
    const long long leading = all[4 * r + 1];
    l.leading_section[r] = static_cast<int>(l.sections.size()) - 1;
    long long& open = l.sections.empty() ? l.n_preamble : l.sections.back().n_data;
    l.leading_index[r] = open;
    open += leading;
    l.first_section[r] = static_cast<int>(l.sections.size());
    for (std::int64_t h = 0; h < all[4 * r + 2]; ++h) {
      Section s;
      s.line = l.first_line[r] + static_cast<long>(get_int(p));
      s.n_data = get_int(p);
      const auto len = static_cast<std::size_t>(get_int(p));
      s.text.assign(p, len);
      p += len;
      static_cast<detail::Su2Header&>(s) = detail::parse_header(s.text);
      l.sections.push_back(std::move(s));
    }
  }
  l.total_lines = next - 1;
  return l;
}

// ---------------------------------------------------------------------------
// Step 2a: the structure, checked on every rank from the headers alone.

// The first structural error: its line and message.
struct StructureError {
  long line;
  std::string message;
};

class StructureCheck {
 public:
  explicit StructureCheck(Layout& layout) : l_(layout) {}

  int dim = 0;
  long long n_points = -1, n_cells = -1;
  std::vector<std::string> marker_names;

  // Walks the sections as read_su2_data walks the file; throws StructureError.
  void run() {
    bool have_elem = false, have_poin = false, have_mark = false;
    std::size_t i = 0;
    while (i < l_.sections.size()) {
      Section& h = l_.sections[i];
      if (h.key == "NDIME") {
        if (dim != 0) fail(h, "NDIME= given twice");
        const long long v = count(h);
        if (v != 2 && v != 3) fail(h, "expected NDIME= 2 or 3, found " + quote(h.values[0]));
        dim = static_cast<int>(v);
        ++i;
        continue;
      }
      if (h.key == "NZONE" || h.key == "IZONE")
        fail(h, "multi-zone SU2 files are not supported; expected a single-zone mesh, found " +
                    quote(h.text));
      if ((h.key == "NELEM" || h.key == "NPOIN" || h.key == "NMARK" || h.key == "NPERIODIC" ||
           h.key == "FFD_NBOX") &&
          dim == 0)
        fail(h, "expected NDIME= before " + h.key + "=, found " + quote(h.text));
      if (h.key == "NELEM") {
        if (have_elem) fail(h, "NELEM= given twice");
        have_elem = true;
        n_cells = count(h);
        fits(h, n_cells);
        const std::string of = " of NELEM= " + std::to_string(n_cells) + " (line " +
                               std::to_string(h.line) + ")";
        expect_rows(i, DataKind::cells, n_cells, [&](long long e) {
          return "element " + std::to_string(e) + of;
        });
        ++i;
      } else if (h.key == "NPOIN") {
        if (have_poin) fail(h, "NPOIN= given twice");
        have_poin = true;
        n_points = count(h, 2);
        fits(h, n_points);
        const std::string of = " of NPOIN= " + std::to_string(n_points) + " (line " +
                               std::to_string(h.line) + ")";
        expect_rows(i, DataKind::points, n_points, [&](long long p) {
          return "point " + std::to_string(p) + of;
        });
        ++i;
      } else if (h.key == "NMARK") {
        if (have_mark) fail(h, "NMARK= given twice");
        have_mark = true;
        i = markers(i);
      } else if (h.key == "MARKER_TAG" || h.key == "MARKER_ELEMS") {
        fail(h, h.key + "= outside an NMARK= section (or more markers than NMARK= says)");
      } else if (h.key == "NPERIODIC") {
        i = periodic(i);
      } else if (h.key == "FFD_NBOX") {
        i = ffd_boxes(i);
      } else {
        fail(h, std::string("expected ") + su2_sections + ", found " + quote(h.text));
      }
    }
    if (dim == 0) fail_at_end("expected NDIME= 2 or 3, found end of file");
    if (!have_elem) fail_at_end("expected an NELEM= section, found end of file");
    if (!have_poin) fail_at_end("expected an NPOIN= section, found end of file");
    if (!have_mark) fail_at_end("expected an NMARK= section, found end of file");
  }

 private:
  [[noreturn]] void fail(const Section& h, const std::string& message) const {
    throw StructureError{h.line, message};
  }
  [[noreturn]] void fail_at_end(const std::string& message) const {
    throw StructureError{l_.total_lines, message};
  }

  // The header's value: one non-negative integer (or up to `max_values`).
  long long count(const Section& h, std::size_t max_values = 1) const {
    std::string error;
    const long long n = detail::header_count(h, h.text, error, max_values);
    if (n < 0) fail(h, error);
    return n;
  }

  // As the serial reader: a count must fit in the rest of the file.
  void fits(const Section& h, long long n, long lines_each = 1) const {
    std::string error;
    if (!detail::check_fits(h.key, n, l_.total_lines - h.line, lines_each, error)) fail(h, error);
  }

  // Section i holds exactly n data lines of `kind`; `what(k)` names line k.
  template <class What>
  void expect_rows(std::size_t i, DataKind kind, long long n, What&& what) {
    Section& h = l_.sections[i];
    h.kind = kind;
    h.limit = n;
    if (h.n_data >= n) return;
    if (i + 1 < l_.sections.size())
      fail(l_.sections[i + 1],
           "expected " + what(h.n_data) + ", found " + quote(l_.sections[i + 1].text));
    fail_at_end("expected " + what(h.n_data) + ", found end of file");
  }

  // The header after section i, which must exist.
  Section& next(std::size_t i, const std::string& what) {
    if (i + 1 >= l_.sections.size()) fail_at_end("expected " + what + ", found end of file");
    return l_.sections[i + 1];
  }

  std::size_t markers(std::size_t i) {
    Section& h = l_.sections[i];
    const long long n = count(h);
    fits(h, n, 2);  // MARKER_TAG and MARKER_ELEMS each
    const std::string of = " of NMARK= " + std::to_string(n);
    auto tag_what = [&](long long m) {
      return "MARKER_TAG= name (marker " + std::to_string(m) + of + ")";
    };
    if (n > 0) h.beyond = tag_what(0);
    for (long long m = 0; m < n; ++m) {
      Section& tag = next(i, "MARKER_TAG= name of marker " + std::to_string(m) + of);
      ++i;
      if (tag.key != "MARKER_TAG" || tag.values.size() != 1)
        fail(tag, "expected " + tag_what(m) + ", found " + quote(tag.text));
      const std::string name = tag.values[0];
      marker_names.push_back(name);
      const std::string elems_what = "MARKER_ELEMS= count for marker '" + name + "'";
      tag.beyond = elems_what;
      Section& elems = next(i, elems_what);
      ++i;
      if (elems.key != "MARKER_ELEMS")
        fail(elems, "expected " + elems_what + ", found " + quote(elems.text));
      const long long k = count(elems);
      fits(elems, k);
      elems.marker = static_cast<int>(m);
      if (m + 1 < n) elems.beyond = tag_what(m + 1);
      const std::string elem_of =
          " of MARKER_ELEMS= " + std::to_string(k) + " of marker '" + name + "'";
      expect_rows(i, DataKind::marker_elements, k, [&](long long e) {
        return "element " + std::to_string(e) + elem_of;
      });
    }
    return i + 1;
  }

  // NPERIODIC= n, then per entry PERIODIC_INDEX= p and three rows, which
  // must be zero (the identity SU2 writes; periodic boundaries are refused).
  std::size_t periodic(std::size_t i) {
    Section& h = l_.sections[i];
    const long long n = count(h);
    fits(h, n, 4);
    const std::string of = " of NPERIODIC= " + std::to_string(n);
    if (n > 0) h.beyond = "PERIODIC_INDEX= 0";
    for (long long p = 0; p < n; ++p) {
      Section& index = next(i, "PERIODIC_INDEX= " + std::to_string(p) + of);
      ++i;
      if (index.key != "PERIODIC_INDEX" || count(index) != p)
        fail(index,
             "expected PERIODIC_INDEX= " + std::to_string(p) + ", found " + quote(index.text));
      index.rows_what = "PERIODIC_INDEX= " + std::to_string(p);
      if (p + 1 < n) index.beyond = "PERIODIC_INDEX= " + std::to_string(p + 1);
      const std::string rows_of = " of 3 of PERIODIC_INDEX= " + std::to_string(p);
      expect_rows(i, DataKind::periodic_rows, 3, [&](long long row) {
        return "line " + std::to_string(row + 1) + rows_of;
      });
    }
    return i + 1;
  }

  // A count header of FFD rows with `lo`..`hi` fields each.
  void ffd_rows(std::size_t i, const std::string& what, int lo, int hi, const std::string& fields) {
    Section& h = l_.sections[i];
    const long long n = count(h);
    fits(h, n);
    h.min_fields = lo;
    h.max_fields = hi;
    h.rows_what = fields;
    const std::string of = " of " + h.key + "= " + std::to_string(n);
    expect_rows(i, DataKind::ffd_rows, n, [&](long long e) {
      return what + " " + std::to_string(e) + of;
    });
  }

  // SU2's free-form deformation boxes, checked for their structure only, as
  // in su2_reader.cpp.
  std::size_t ffd_boxes(std::size_t i) {
    const long long n_boxes = count(l_.sections[i]);
    const std::string of_boxes = " of FFD_NBOX= " + std::to_string(n_boxes);
    l_.sections[i].beyond = "FFD_NLEVEL=";
    Section& levels = next(i, "FFD_NLEVEL= after FFD_NBOX=");
    ++i;
    if (levels.key != "FFD_NLEVEL")
      fail(levels, "expected FFD_NLEVEL=, found " + quote(levels.text));
    (void)count(levels);
    long long tags = 0, surface_sections = 0;
    auto key_what = [&] {
      return "an FFD box key (FFD_TAG=, FFD_DEGREE_I=, FFD_CORNER_POINTS=, ...) in box " +
             std::to_string(surface_sections) + of_boxes;
    };
    levels.beyond = key_what();
    while (surface_sections < n_boxes) {
      Section& k =
          next(i, "the definition of FFD box " + std::to_string(surface_sections) + of_boxes);
      ++i;
      k.beyond = key_what();
      if (k.key == "FFD_TAG") {
        if (k.values.size() != 1) fail(k, "expected FFD_TAG= name, found " + quote(k.text));
        ++tags;
      } else if (k.key == "FFD_LEVEL" || k.key == "FFD_DEGREE_I" || k.key == "FFD_DEGREE_J" ||
                 k.key == "FFD_DEGREE_K") {
        (void)count(k);
      } else if (k.key == "FFD_BLENDING" || k.key == "FFD_BSPLINE_ORDER") {
        if (k.values.empty())
          fail(k, "expected a value after " + k.key + "=, found " + quote(k.text));
      } else if (k.key == "FFD_PARENTS" || k.key == "FFD_CHILDREN") {
        ffd_rows(i, "a box tag", 1, 1 << 20, "a box tag");
      } else if (k.key == "FFD_CORNER_POINTS") {
        ffd_rows(i, "corner point", dim, dim, std::to_string(dim) + " fields");
      } else if (k.key == "FFD_CONTROL_POINTS") {
        ffd_rows(i, "control point", 2 * dim, 1 << 20, "control point");
      } else if (k.key == "FFD_SURFACE_POINTS") {
        ffd_rows(i, "surface point", 2 + dim, 1 << 20, "surface point");
        ++surface_sections;
        k.beyond = surface_sections < n_boxes ? key_what() : su2_sections;
      } else {
        fail(k, "expected " + key_what() + ", found " + quote(k.text));
      }
    }
    if (tags != n_boxes)
      fail(l_.sections[i], "FFD_NBOX= " + std::to_string(n_boxes) + " but " +
                               std::to_string(tags) + " FFD_TAG= lines were read");
    return i + 1;
  }

  Layout& l_;
};

// ---------------------------------------------------------------------------
// Step 2b: this rank's data lines.

// Parses this rank's data lines that come before line `stop` (inclusive)
// into `chunk`; throws at the first bad line.
void parse_own_lines(const std::string& path, const std::string& text, const Layout& l,
                     const StructureCheck& s, int rank, long stop, MeshChunk& chunk) {
  int section = l.leading_section[rank];
  long long index = l.leading_index[rank];
  const int first_section = l.first_section[rank];
  int own_headers = 0;
  const Section preamble;
  TextReader r(text, path, l.first_line[rank], '%');
  while (r.next_line() && r.line_number() <= stop) {
    if (is_header(r.line())) {
      section = first_section + own_headers++;
      index = 0;
      continue;
    }
    const Section& h = section < 0 ? preamble : l.sections[section];
    if (index++ >= h.limit) r.fail("expected " + h.beyond + ", found " + quote(r.line()));
    index_t nodes[8];
    switch (h.kind) {
      case DataKind::cells: {
        const CellType t =
            detail::read_element(r, s.dim, false, nodes, s.n_points, "an element");
        chunk.cell_nodes.insert(chunk.cell_nodes.end(), nodes, nodes + n_cell_nodes(t));
        chunk.cell_types.push_back(t);
        chunk.cell_offsets.push_back(static_cast<index_t>(chunk.cell_nodes.size()));
        chunk.cell_lines.push_back(r.line_number());
        break;
      }
      case DataKind::points:
        detail::read_point(r, s.dim, chunk.coords);
        break;
      case DataKind::marker_elements: {
        const CellType t = detail::read_element(r, s.dim, true, nodes, s.n_points,
                                                "marker '" + s.marker_names[h.marker] + "'");
        chunk.face_nodes.insert(chunk.face_nodes.end(), nodes, nodes + n_cell_nodes(t));
        chunk.face_marker.push_back(h.marker);
        chunk.face_offsets.push_back(static_cast<index_t>(chunk.face_nodes.size()));
        chunk.face_lines.push_back(r.line_number());
        break;
      }
      case DataKind::periodic_rows:
        detail::read_periodic_row(r, s.dim, h.rows_what);
        break;
      case DataKind::ffd_rows:
        r.require_fields(h.min_fields, h.max_fields, h.rows_what);
        break;
      case DataKind::none:
        break;
    }
  }
}

// ---------------------------------------------------------------------------
// Step 3: balance.

// Item counts to send to and receive from each rank so that the items,
// spread over the ranks contiguously in rank order (`mine` here), end in
// the ranges [n r / P, n (r + 1) / P).
struct Moves {
  std::vector<int> send, recv;
};

Moves balance(std::int64_t mine, MPI_Comm comm) {
  const int n_ranks = comm_size(comm), rank = comm_rank(comm);
  std::vector<std::int64_t> held(n_ranks);
  CAMBER_CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, held.data(), 1, MPI_INT64_T, comm));
  std::vector<std::int64_t> begin(n_ranks + 1, 0);
  for (int r = 0; r < n_ranks; ++r) begin[r + 1] = begin[r] + held[r];
  const auto n = static_cast<std::uint64_t>(begin[n_ranks]);
  auto target = [&](int r) { return static_cast<std::int64_t>(split_point(n, r, n_ranks)); };
  auto overlap = [](std::int64_t a0, std::int64_t a1, std::int64_t b0, std::int64_t b1) {
    const std::int64_t k = std::min(a1, b1) - std::max(a0, b0);
    CAMBER_REQUIRE(k <= INT_MAX, "more than 2^31 mesh entities to move between two ranks");
    return static_cast<int>(std::max<std::int64_t>(k, 0));
  };
  Moves m;
  m.send.resize(n_ranks);
  m.recv.resize(n_ranks);
  for (int r = 0; r < n_ranks; ++r) {
    m.send[r] = overlap(begin[rank], begin[rank + 1], target(r), target(r + 1));
    m.recv[r] = overlap(begin[r], begin[r + 1], target(rank), target(rank + 1));
  }
  return m;
}

std::vector<int> scaled(const std::vector<int>& counts, int factor) {
  std::vector<int> out(counts);
  for (int& c : out) c *= factor;
  return out;
}

template <class T>
std::vector<T> alltoallv(const std::vector<T>& data, const std::vector<int>& send,
                         const std::vector<int>& recv, MPI_Datatype type, MPI_Comm comm) {
  const std::size_t n_ranks = send.size();
  std::vector<int> send_at(n_ranks, 0), recv_at(n_ranks, 0);
  long long sent = 0, received = 0;
  for (std::size_t r = 0; r < n_ranks; ++r) {
    send_at[r] = static_cast<int>(sent);
    recv_at[r] = static_cast<int>(received);
    sent += send[r];
    received += recv[r];
    CAMBER_REQUIRE(sent <= INT_MAX && received <= INT_MAX,
                   "more than 2^31 mesh values to move from or to one rank");
  }
  std::vector<T> out(static_cast<std::size_t>(received));
  CAMBER_CHECK_MPI(MPI_Alltoallv(data.data(), send.data(), send_at.data(), type, out.data(),
                                 recv.data(), recv_at.data(), type, comm));
  return out;
}

void balance_nodes(MeshChunk& chunk, MPI_Comm comm) {
  const Moves m = balance(chunk.n_nodes(), comm);
  chunk.coords = alltoallv(chunk.coords, scaled(m.send, chunk.dim), scaled(m.recv, chunk.dim),
                           MPI_DOUBLE, comm);
}

void balance_cells(MeshChunk& chunk, MPI_Comm comm) {
  const int n_ranks = comm_size(comm);
  const Moves m = balance(chunk.n_cells(), comm);
  std::vector<int> n_nodes(chunk.cell_types.size());
  std::vector<std::int8_t> types(chunk.cell_types.size());
  std::vector<int> node_send(n_ranks, 0);
  std::size_t c = 0;
  for (int r = 0; r < n_ranks; ++r)
    for (int k = 0; k < m.send[r]; ++k, ++c) {
      n_nodes[c] = static_cast<int>(chunk.cell_offsets[c + 1] - chunk.cell_offsets[c]);
      types[c] = static_cast<std::int8_t>(chunk.cell_types[c]);
      node_send[r] += n_nodes[c];
    }
  std::vector<int> node_recv(n_ranks);
  CAMBER_CHECK_MPI(
      MPI_Alltoall(node_send.data(), 1, MPI_INT, node_recv.data(), 1, MPI_INT, comm));

  const std::vector<int> got_n_nodes = alltoallv(n_nodes, m.send, m.recv, MPI_INT, comm);
  const std::vector<std::int8_t> got_types = alltoallv(types, m.send, m.recv, MPI_INT8_T, comm);
  chunk.cell_lines = alltoallv(chunk.cell_lines, m.send, m.recv, MPI_LONG, comm);
  chunk.cell_nodes = alltoallv(chunk.cell_nodes, node_send, node_recv, MPI_INT64_T, comm);
  chunk.cell_types.assign(got_types.size(), CellType::triangle);
  chunk.cell_offsets.assign(1, 0);
  for (std::size_t k = 0; k < got_types.size(); ++k) {
    chunk.cell_types[k] = static_cast<CellType>(got_types[k]);
    chunk.cell_offsets.push_back(chunk.cell_offsets.back() + got_n_nodes[k]);
  }
}

}  // namespace

MeshChunk read_su2_chunk(const std::string& path, MPI_Comm comm) {
  const int rank = comm_rank(comm), n_ranks = comm_size(comm);
  std::string text;
  LocalScan scan;
  collective_guard(comm, [&] {
    text = read_own_lines(path, rank, n_ranks);
    scan = scan_lines(path, text);
  });
  Layout layout = exchange_scans(scan, comm);
  scan = LocalScan{};

  MeshChunk chunk;
  chunk.source = path;
  collective_guard(comm, [&] {
    StructureCheck structure(layout);
    std::optional<StructureError> error;
    try {
      structure.run();
    } catch (const StructureError& e) {
      error = e;
    }
    // Data lines after a structural error may be in the wrong section:
    // parse only up to it. Its line's owner reports it.
    const long stop = error ? error->line : layout.total_lines;
    chunk.dim = structure.dim != 0 ? structure.dim : 2;
    chunk.n_global_nodes = std::max(structure.n_points, 0LL);
    chunk.n_global_cells = std::max(structure.n_cells, 0LL);
    chunk.marker_names = structure.marker_names;
    parse_own_lines(path, text, layout, structure, rank, stop, chunk);
    if (error) {
      int owner = n_ranks - 1;
      for (int r = n_ranks - 1; r >= 0; --r)
        if (error->line < layout.end_line[r]) owner = r;
      if (owner == rank)
        throw_bad_input(path + ":" + std::to_string(error->line) + ": " + error->message);
    }
  });
  text = std::string();

  balance_nodes(chunk, comm);
  balance_cells(chunk, comm);
  chunk.node_begin = static_cast<std::int64_t>(
      split_point(static_cast<std::uint64_t>(chunk.n_global_nodes), rank, n_ranks));
  chunk.cell_begin = static_cast<std::int64_t>(
      split_point(static_cast<std::uint64_t>(chunk.n_global_cells), rank, n_ranks));
  return chunk;
}

}  // namespace camber::mesh
