// What the serial SU2 reader (su2_reader.cpp) and the parallel one
// (su2_chunk_reader.cpp) share, so that both accept the same files and say
// the same things about the others: the header lines "KEY= value ...", the
// count checks, the element, point and periodic lines, and their messages.
//
// A data line is read from a TextReader standing on it, and a bad one
// throws from there. A header's check returns its message instead (without
// "path:line: "): the parallel reader checks every header on every rank and
// reports the first error only from the rank that holds its line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "text_reader.hpp"
#include <camber/mesh/mesh.hpp>

namespace camber::mesh::detail {

// The sections of a single-zone SU2 file, as messages list them.
inline constexpr const char* su2_sections =
    "NDIME=, NELEM=, NPOIN=, NMARK=, NPERIODIC= or FFD_NBOX=";

// "KEY= value ..." -> key and the value fields (empty key if no '=').
struct Su2Header {
  std::string key;
  std::vector<std::string> values;
};

Su2Header parse_header(std::string_view line);

// The value of the count header `h`, read from `line`: one non-negative
// integer (or up to `max_values` of them, the first counting). Anything
// else returns -1 and sets `error`.
long long header_count(const Su2Header& h, std::string_view line, std::string& error,
                       std::size_t max_values = 1);

// Whether the count `n` of the header `key`= fits in the `lines_left`
// lines that follow it, `lines_each` lines per entry (compared without
// forming n * lines_each, which could overflow). If not, sets `error`.
bool check_fits(const std::string& key, long long n, long lines_left, long lines_each,
                std::string& error);

// Reads "type n0 n1 ... [index]" for an element of a `mesh_dim`-D mesh, or
// with `boundary` for a marker's element (one dimension less, no index),
// and returns its type; its nodes go to `out` (room for 8, or 4 for a
// boundary). With `n_points` >= 0 a node index from n_points up is an
// error too, naming `in_what` as node_range_error() does.
CellType read_element(const TextReader& r, int mesh_dim, bool boundary, index_t* out,
                      long long n_points = -1, const std::string& in_what = "");

// The message for the node index `node` outside [0, n_points) in `in_what`
// ("an element", "marker 'wall'").
std::string node_range_error(long long n_points, const std::string& in_what, long long node);

// Reads a point of NPOIN=: `dim` coordinates, appended to `coords`, and an
// optional point index.
void read_point(const TextReader& r, int dim, std::vector<double>& coords);

// Reads a row of the periodic transformation `entry` ("PERIODIC_INDEX= 1"):
// `dim` to 3 numbers, which must be zero (the identity SU2 writes; periodic
// boundaries are not supported).
void read_periodic_row(const TextReader& r, int dim, const std::string& entry);

}  // namespace camber::mesh::detail
