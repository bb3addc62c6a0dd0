#include <camber/mesh/reorder.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/mesh/su2_writer.hpp>

namespace camber::mesh {

namespace {

// Bits of b spread to every third (Dim 3) or second (Dim 2) position.
std::uint64_t spread_bits(std::uint64_t b, int dim) {
  std::uint64_t out = 0;
  const int bits = dim == 3 ? 21 : 31;
  for (int i = 0; i < bits; ++i) out |= ((b >> i) & 1u) << (dim * i);
  return out;
}

}  // namespace

std::vector<index_t> morton_order(const std::vector<double>& centroid, int dim) {
  const auto n = static_cast<index_t>(centroid.size() / static_cast<size_t>(dim));
  double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
  for (index_t c = 0; c < n; ++c)
    for (int d = 0; d < dim; ++d) {
      const double x = centroid[static_cast<size_t>(c * dim + d)];
      lo[d] = std::min(lo[d], x);
      hi[d] = std::max(hi[d], x);
    }
  const double levels = dim == 3 ? 2097151.0 : 2147483647.0;  // 2^21 - 1, 2^31 - 1
  std::vector<std::uint64_t> key(static_cast<size_t>(n), 0);
  for (index_t c = 0; c < n; ++c) {
    std::uint64_t k = 0;
    for (int d = 0; d < dim; ++d) {
      const double span = hi[d] - lo[d];
      const double t = span > 0.0 ? (centroid[static_cast<size_t>(c * dim + d)] - lo[d]) / span : 0.0;
      const auto q = static_cast<std::uint64_t>(std::clamp(t, 0.0, 1.0) * levels);
      k |= spread_bits(q, dim) << d;
    }
    key[static_cast<size_t>(c)] = k;
  }
  std::vector<index_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), index_t{0});
  std::stable_sort(order.begin(), order.end(), [&](index_t a, index_t b) {
    return key[static_cast<size_t>(a)] < key[static_cast<size_t>(b)];
  });
  return order;
}

std::vector<index_t> locality_cell_order(const MeshData& data) {
  const int dim = data.dim;
  const index_t n = data.n_cells();
  std::vector<double> centroid(static_cast<size_t>(n) * static_cast<size_t>(dim), 0.0);
  for (index_t c = 0; c < n; ++c) {
    const index_t a = data.cell_offsets[static_cast<size_t>(c)];
    const index_t b = data.cell_offsets[static_cast<size_t>(c) + 1];
    for (int d = 0; d < dim; ++d) {
      double s = 0.0;
      for (index_t j = a; j < b; ++j)
        s += data.coords[static_cast<size_t>(data.cell_nodes[static_cast<size_t>(j)] * dim + d)];
      centroid[static_cast<size_t>(c * dim + d)] = b > a ? s / static_cast<double>(b - a) : 0.0;
    }
  }
  return morton_order(centroid, dim);
}

MeshData reorder_for_locality(const MeshData& data) {
  const std::vector<index_t> order = locality_cell_order(data);
  const index_t n_nodes = data.n_nodes();
  const int dim = data.dim;
  // New node numbers: first use in the new cell order, then the unused.
  std::vector<index_t> new_node(static_cast<size_t>(n_nodes), -1);
  index_t next = 0;
  for (const index_t c : order)
    for (index_t j = data.cell_offsets[static_cast<size_t>(c)];
         j < data.cell_offsets[static_cast<size_t>(c) + 1]; ++j) {
      const index_t v = data.cell_nodes[static_cast<size_t>(j)];
      if (new_node[static_cast<size_t>(v)] < 0) new_node[static_cast<size_t>(v)] = next++;
    }
  for (index_t v = 0; v < n_nodes; ++v)
    if (new_node[static_cast<size_t>(v)] < 0) new_node[static_cast<size_t>(v)] = next++;

  MeshData out;
  out.dim = dim;
  out.source = data.source;
  out.coords.resize(data.coords.size());
  for (index_t v = 0; v < n_nodes; ++v)
    for (int d = 0; d < dim; ++d)
      out.coords[static_cast<size_t>(new_node[static_cast<size_t>(v)] * dim + d)] =
          data.coords[static_cast<size_t>(v * dim + d)];
  out.cell_types.reserve(order.size());
  out.cell_nodes.reserve(data.cell_nodes.size());
  out.cell_offsets.reserve(order.size() + 1);
  const bool lines = !data.cell_lines.empty();
  for (const index_t c : order) {
    out.cell_types.push_back(data.cell_types[static_cast<size_t>(c)]);
    for (index_t j = data.cell_offsets[static_cast<size_t>(c)];
         j < data.cell_offsets[static_cast<size_t>(c) + 1]; ++j)
      out.cell_nodes.push_back(new_node[static_cast<size_t>(data.cell_nodes[static_cast<size_t>(j)])]);
    out.cell_offsets.push_back(static_cast<index_t>(out.cell_nodes.size()));
    if (lines) out.cell_lines.push_back(data.cell_lines[static_cast<size_t>(c)]);
  }
  out.markers = data.markers;
  for (auto& m : out.markers)
    for (auto& v : m.nodes) v = new_node[static_cast<size_t>(v)];
  return out;
}

ReorderedFile reorder_mesh_file(const std::string& in, const std::string& out, MPI_Comm comm) {
  ReorderedFile counts;
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(out.size() > 4 && out.compare(out.size() - 4, 4, ".su2") == 0,
                         "camber mesh-reorder: the output '" << out
                                                             << "' must be an SU2 file (.su2)");
    int rank = 0;
    CAMBER_CHECK_MPI(MPI_Comm_rank(comm, &rank));
    if (rank != 0) return;
    const Mesh m = Mesh::from_cells(reorder_for_locality(read_mesh_data(in)));
    write_su2(m, out);
    counts = {m.n_cells(), m.n_nodes()};
  });
  std::int64_t both[2] = {counts.n_cells, counts.n_nodes};
  CAMBER_CHECK_MPI(MPI_Bcast(both, 2, MPI_INT64_T, 0, comm));
  return {both[0], both[1]};
}

}  // namespace camber::mesh
