#include "su2_common.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace camber::mesh::detail {

namespace {

std::string type_list(int dim, bool boundary) {
  if (dim == 2) return boundary ? "3 (line)" : "5 (triangle) or 9 (quadrilateral)";
  return boundary ? "5 (triangle) or 9 (quadrilateral)"
                  : "10 (tetrahedron), 12 (hexahedron), 13 (prism) or 14 (pyramid)";
}

}  // namespace

Su2Header parse_header(std::string_view line) {
  Su2Header h;
  const std::size_t eq = line.find('=');
  if (eq == std::string_view::npos) return h;
  std::string_view k = line.substr(0, eq);
  while (!k.empty() && std::isspace(static_cast<unsigned char>(k.back()))) k.remove_suffix(1);
  h.key = std::string(k);
  std::istringstream rest{std::string(line.substr(eq + 1))};
  for (std::string v; rest >> v;) h.values.push_back(v);
  return h;
}

long long header_count(const Su2Header& h, std::string_view line, std::string& error,
                       std::size_t max_values) {
  if (h.values.empty() || h.values.size() > max_values) {
    error = "expected " + h.key + "= followed by one non-negative integer, found " + quote(line);
    return -1;
  }
  for (const std::string& v : h.values) {
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(v.c_str(), &end, 10);
    if (end != v.c_str() + v.size() || errno == ERANGE || n < 0) {
      error = "expected a non-negative integer after " + h.key + "=, found " + quote(v);
      return -1;
    }
  }
  return std::strtoll(h.values[0].c_str(), nullptr, 10);
}

bool check_fits(const std::string& key, long long n, long lines_left, long lines_each,
                std::string& error) {
  if (n <= lines_left / lines_each) return true;
  error = key + "= " + std::to_string(n) + " but only " + std::to_string(lines_left) +
          " lines follow; the file is truncated or the count is wrong";
  return false;
}

CellType read_element(const TextReader& r, int mesh_dim, bool boundary, index_t* out,
                      long long n_points, const std::string& in_what) {
  const long long id = r.integer(0, "an element type id");
  CellType t{};
  const int want_dim = boundary ? mesh_dim - 1 : mesh_dim;
  if (!cell_type_from_id(static_cast<int>(id), t) || cell_dimension(t) != want_dim)
    r.fail("expected element type " + type_list(mesh_dim, boundary) + " in a " +
           std::to_string(mesh_dim) + "-D mesh, found " + quote(r.tokens()[0]));
  const int nn = n_cell_nodes(t);
  r.require_fields(1 + nn, boundary ? 1 + nn : 2 + nn,
                   std::string("a ") + cell_type_name(t) + ": type id, " + std::to_string(nn) +
                       " node indices" + (boundary ? "" : " and an optional element index"));
  for (int i = 0; i < nn; ++i) {
    const long long v = r.integer(1 + i, "a node index");
    if (v < 0) r.fail("expected a node index >= 0, found " + quote(r.tokens()[1 + i]));
    if (n_points >= 0 && v >= n_points) r.fail(node_range_error(n_points, in_what, v));
    out[i] = static_cast<index_t>(v);
  }
  if (!boundary && r.tokens().size() == static_cast<std::size_t>(2 + nn))
    (void)r.integer(1 + nn, "an element index");
  return t;
}

std::string node_range_error(long long n_points, const std::string& in_what, long long node) {
  return "expected node indices in [0, " + std::to_string(n_points) + ") (NPOIN= " +
         std::to_string(n_points) + ") in " + in_what + ", found " + std::to_string(node);
}

void read_point(const TextReader& r, int dim, std::vector<double>& coords) {
  r.require_fields(dim, dim + 1, std::to_string(dim) + " coordinates and an optional point index");
  for (int k = 0; k < dim; ++k) coords.push_back(r.real(k, "a coordinate"));
  if (r.tokens().size() == static_cast<std::size_t>(dim + 1)) (void)r.integer(dim, "a point index");
}

void read_periodic_row(const TextReader& r, int dim, const std::string& entry) {
  r.require_fields(dim, 3, std::to_string(dim) + " to 3 numbers");
  for (std::size_t k = 0; k < r.tokens().size(); ++k)
    if (r.real(k, "a periodic transformation value") != 0.0)
      r.fail("periodic boundaries are not supported: " + entry + " is not the identity");
}

}  // namespace camber::mesh::detail
