#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/reorder.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/mesh/cell_faces.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>
#include <camber/core/timer.hpp>

namespace camber::mesh {

namespace {

template <class View>
auto host_copy(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

#if CAMBER_WITH_IO
// The z coordinate of node n for output (0 on a 2-D mesh).
template <class View>
double z_of(const View& coords, index_t n) {
  return coords.extent(1) == 3 ? coords(n, 2) : 0.0;
}

// The first n_owned rows of a field given with n_owned or n_local rows.
io::Field owned_rows(const io::Field& field, index_t n_owned, index_t n_local) {
  const auto n_values = static_cast<index_t>(field.values.size());
  const index_t per_row = field.components;
  CAMBER_REQUIRE(per_row >= 1 && (n_values == n_owned * per_row || n_values == n_local * per_row),
                 "DistributedMesh: cell field '"
                     << field.name << "' has " << field.values.size() << " values; expected "
                     << per_row << " per owned cell (" << n_owned * per_row
                     << ") or per local cell (" << n_local * per_row << ")");
  io::Field owned{field.name, field.components, {}};
  owned.values.assign(field.values.begin(), field.values.begin() + n_owned * per_row);
  return owned;
}
#endif

}  // namespace

void cell_graph(const Mesh& mesh, std::vector<std::int64_t>& xadj,
                std::vector<std::int64_t>& adjncy) {
  const index_t n_cells = mesh.n_cells();
  const auto left = host_copy(mesh.face_left());
  const auto right = host_copy(mesh.face_right());
  std::vector<std::vector<std::int64_t>> neighbours(static_cast<std::size_t>(n_cells));
  for (index_t f = 0; f < mesh.n_faces(); ++f) {
    const index_t l = left(f), r = right(f);
    if (r < 0 || r == l) continue;
    neighbours[static_cast<std::size_t>(l)].push_back(r);
    neighbours[static_cast<std::size_t>(r)].push_back(l);
  }
  xadj.assign(1, 0);
  xadj.reserve(static_cast<std::size_t>(n_cells) + 1);
  adjncy.clear();
  for (auto& list : neighbours) {
    // Two cells may share more than one face (a cell wrapped around
    // another); METIS wants each edge once.
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    adjncy.insert(adjncy.end(), list.begin(), list.end());
    xadj.push_back(static_cast<std::int64_t>(adjncy.size()));
  }
}

void node_graph(const Mesh& mesh, std::vector<std::int64_t>& xadj,
                std::vector<std::int64_t>& adjncy) {
  const index_t n_cells = mesh.n_cells();
  const auto offsets = host_copy(mesh.cell_offsets());
  const auto nodes = host_copy(mesh.cell_nodes());
  // Cells of every node (CSR), then each cell's union over its nodes.
  std::vector<std::int64_t> nc_off(static_cast<std::size_t>(mesh.n_nodes()) + 1, 0), nc;
  for (index_t k = 0; k < offsets(n_cells); ++k) ++nc_off[static_cast<std::size_t>(nodes(k)) + 1];
  for (std::size_t n = 1; n < nc_off.size(); ++n) nc_off[n] += nc_off[n - 1];
  nc.resize(static_cast<std::size_t>(nc_off.back()));
  {
    std::vector<std::int64_t> fill(nc_off.begin(), nc_off.end() - 1);
    for (index_t c = 0; c < n_cells; ++c)
      for (index_t k = offsets(c); k < offsets(c + 1); ++k)
        nc[static_cast<std::size_t>(fill[static_cast<std::size_t>(nodes(k))]++)] = c;
  }
  xadj.assign(1, 0);
  xadj.reserve(static_cast<std::size_t>(n_cells) + 1);
  adjncy.clear();
  std::vector<std::int64_t> list;
  for (index_t c = 0; c < n_cells; ++c) {
    list.clear();
    for (index_t k = offsets(c); k < offsets(c + 1); ++k) {
      const std::size_t n = static_cast<std::size_t>(nodes(k));
      for (std::int64_t a = nc_off[n]; a < nc_off[n + 1]; ++a)
        if (nc[static_cast<std::size_t>(a)] != c) list.push_back(nc[static_cast<std::size_t>(a)]);
    }
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    adjncy.insert(adjncy.end(), list.begin(), list.end());
    xadj.push_back(static_cast<std::int64_t>(adjncy.size()));
  }
}

namespace {

using Lists = std::vector<std::vector<std::int64_t>>;

// The last global id + 1 of every rank's contiguous range (rank order).
std::vector<std::int64_t> range_ends(std::int64_t end, MPI_Comm comm) {
  std::vector<std::int64_t> ends(static_cast<size_t>(comm_size(comm)));
  CAMBER_CHECK_MPI(MPI_Allgather(&end, 1, MPI_INT64_T, ends.data(), 1, MPI_INT64_T, comm));
  return ends;
}

// The rank whose range (from range_ends) holds global id g.
int home_of(const std::vector<std::int64_t>& ends, std::int64_t g) {
  return static_cast<int>(std::upper_bound(ends.begin(), ends.end(), g) - ends.begin());
}

// A face as its sorted global node ids, padded with -1.
using FaceKey = std::array<std::int64_t, 4>;

FaceKey face_key(const std::int64_t* nodes, int n) {
  FaceKey k{-1, -1, -1, -1};
  const int m = std::min(n, 4);
  for (int i = 0; i < m; ++i) {  // insertion sort of at most 4
    int j = i;
    for (; j > 0 && k[static_cast<size_t>(j - 1)] > nodes[i]; --j)
      k[static_cast<size_t>(j)] = k[static_cast<size_t>(j - 1)];
    k[static_cast<size_t>(j)] = nodes[i];
  }
  return k;
}

// The rank that matches the two sides of a face (a hash of its key).
int face_home(const FaceKey& k, int n_ranks) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::int64_t v : k) {
    h ^= static_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  return static_cast<int>(h % static_cast<std::uint64_t>(n_ranks));
}

std::string node_list(const FaceKey& k) {
  std::ostringstream out;
  for (std::int64_t v : k)
    if (v >= 0) out << (out.tellp() > 0 ? " " : "") << v;
  return out.str();
}

// Cells with their nodes (global ids), source lines and marked faces, as
// they travel between ranks: a record is
//   gid, type, line, n_nodes, nodes..., n_marks, (face, marker)...
struct CellSet {
  std::vector<std::int64_t> gid;
  std::vector<CellType> type;
  std::vector<long> line;
  std::vector<index_t> node_offset{0};
  std::vector<std::int64_t> nodes;
  std::vector<index_t> mark_offset{0};
  std::vector<int> mark_face, mark_id;

  index_t size() const { return static_cast<index_t>(gid.size()); }
  void write(index_t c, std::vector<std::int64_t>& out) const {
    const auto cs = static_cast<size_t>(c);
    out.insert(out.end(), {gid[cs], static_cast<std::int64_t>(type[cs]), line[cs],
                           node_offset[cs + 1] - node_offset[cs]});
    out.insert(out.end(), nodes.begin() + node_offset[cs], nodes.begin() + node_offset[cs + 1]);
    out.push_back(mark_offset[cs + 1] - mark_offset[cs]);
    for (index_t k = mark_offset[cs]; k < mark_offset[cs + 1]; ++k)
      out.insert(out.end(), {mark_face[static_cast<size_t>(k)], mark_id[static_cast<size_t>(k)]});
  }
  // Reads the records of [at, end); returns nothing.
  void read(const std::vector<std::int64_t>& in, size_t at, size_t end) {
    while (at < end) {
      gid.push_back(in[at]);
      type.push_back(static_cast<CellType>(in[at + 1]));
      line.push_back(static_cast<long>(in[at + 2]));
      const auto n = static_cast<size_t>(in[at + 3]);
      at += 4;
      nodes.insert(nodes.end(), in.begin() + static_cast<std::ptrdiff_t>(at),
                   in.begin() + static_cast<std::ptrdiff_t>(at + n));
      node_offset.push_back(static_cast<index_t>(nodes.size()));
      at += n;
      const auto m = static_cast<size_t>(in[at++]);
      for (size_t k = 0; k < m; ++k, at += 2) {
        mark_face.push_back(static_cast<int>(in[at]));
        mark_id.push_back(static_cast<int>(in[at + 1]));
      }
      mark_offset.push_back(static_cast<index_t>(mark_face.size()));
    }
  }
  // The same cells in the order of `order`.
  CellSet permuted(const std::vector<index_t>& order) const {
    CellSet out;
    std::vector<std::int64_t> record;
    for (index_t c : order) {
      record.clear();
      write(c, record);
      out.read(record, 0, record.size());
    }
    return out;
  }
};

}  // namespace

DistributedMesh::DistributedMesh(const Mesh& global, MPI_Comm comm,
                                 const par::PartitionOptions& options)
    : DistributedMesh(chunk_of(global, comm_rank(comm), comm_size(comm)), comm, options) {}

DistributedMesh::DistributedMesh(MeshChunk chunk, MPI_Comm comm,
                                 const par::PartitionOptions& options) {
  const int n_ranks = comm_size(comm), me = comm_rank(comm);
  const std::string source = chunk.source.empty() ? std::string("the mesh") : chunk.source;
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(chunk.n_global_cells >= n_ranks,
                         "DistributedMesh: " << source << " has " << chunk.n_global_cells
                                             << " cells, fewer than the " << n_ranks
                                             << " ranks; every rank needs a cell");
    CAMBER_REQUIRE(options.vertex_weights.empty() && options.edge_weights.empty(),
                   "DistributedMesh: partition weights are not supported (cells weigh 1)");
  });
  // Phases timed under the caller's timer (core/timer.hpp).
  std::unique_ptr<ScopedTimer> phase;
  const auto next_phase = [&](const char* name) {
    phase.reset();
    phase = std::make_unique<ScopedTimer>(name);
  };
  next_phase("match_faces");
  const std::vector<std::int64_t> cell_ends = range_ends(chunk.cell_begin + chunk.n_cells(), comm);
  const std::vector<std::int64_t> node_ends = range_ends(chunk.node_begin + chunk.n_nodes(), comm);

  // 1. Faces meet at a rank chosen by their nodes: two cells make an edge
  //    of the cell graph; one cell and a marker element a marked boundary
  //    face. Records: key (4), then the cell and its face, or -(marker + 1)
  //    and the element's line.
  std::vector<std::int64_t> graph_xadj(1, 0), graph_adjncy;
  std::vector<std::vector<std::pair<int, int>>> chunk_marks(static_cast<size_t>(chunk.n_cells()));
  {
    Lists out(static_cast<size_t>(n_ranks));
    int local[4];
    std::int64_t face_nodes[4];
    for (index_t c = 0; c < chunk.n_cells(); ++c) {
      const CellType t = chunk.cell_types[static_cast<size_t>(c)];
      const std::int64_t* cn = chunk.cell_nodes.data() + chunk.cell_offsets[static_cast<size_t>(c)];
      for (int j = 0; j < n_cell_faces(t); ++j) {
        const int m = cell_face(t, j, local);
        for (int i = 0; i < m; ++i) face_nodes[i] = cn[local[i]];
        const FaceKey k = face_key(face_nodes, m);
        auto& o = out[static_cast<size_t>(face_home(k, n_ranks))];
        o.insert(o.end(), k.begin(), k.end());
        o.insert(o.end(), {chunk.cell_begin + c, j});
      }
    }
    for (index_t e = 0; e < chunk.n_faces(); ++e) {
      const auto es = static_cast<size_t>(e);
      const index_t n = chunk.face_offsets[es + 1] - chunk.face_offsets[es];
      const FaceKey k = face_key(chunk.face_nodes.data() + chunk.face_offsets[es], static_cast<int>(n));
      auto& o = out[static_cast<size_t>(face_home(k, n_ranks))];
      o.insert(o.end(), k.begin(), k.end());
      o.insert(o.end(), {-1 - chunk.face_marker[es],
                         chunk.face_lines.empty() ? 0 : chunk.face_lines[es]});
    }
    const std::vector<std::int64_t> in = par::exchange(out, comm);
    out.assign(static_cast<size_t>(n_ranks), {});
    const size_t n_in = in.size() / 6;
    std::vector<size_t> order(n_in);
    for (size_t i = 0; i < n_in; ++i) order[i] = i;
    // By key, cells (field 4 >= 0) before marker elements, then by cell or marker.
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::lexicographical_compare(in.begin() + 6 * a, in.begin() + 6 * a + 4,
                                          in.begin() + 6 * b, in.begin() + 6 * b + 4) ||
             (std::equal(in.begin() + 6 * a, in.begin() + 6 * a + 4, in.begin() + 6 * b) &&
              std::make_pair(in[6 * a + 4] < 0, std::abs(in[6 * a + 4])) <
                  std::make_pair(in[6 * b + 4] < 0, std::abs(in[6 * b + 4])));
    });
    const auto where = [&](std::int64_t line) {
      return source + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": ";
    };
    const auto marker_name = [&](std::int64_t field) {
      return chunk.marker_names.at(static_cast<size_t>(-1 - field));
    };
    collective_guard(comm, [&] {
      for (size_t a = 0; a < n_in;) {
        size_t b = a;
        while (b < n_in && std::equal(in.begin() + 6 * order[a], in.begin() + 6 * order[a] + 4,
                                      in.begin() + 6 * order[b]))
          ++b;
        FaceKey k;
        std::copy(in.begin() + 6 * order[a], in.begin() + 6 * order[a] + 4, k.begin());
        size_t n_cells = 0;
        while (a + n_cells < b && in[6 * order[a + n_cells] + 4] >= 0) ++n_cells;
        const auto rec = [&](size_t i, int field) { return in[6 * order[i] + field]; };
        CAMBER_INPUT_REQUIRE(n_cells <= 2, source << ": the face with nodes " << node_list(k)
                                                  << " is shared by " << n_cells
                                                  << " cells (" << rec(a, 4) << ", "
                                                  << rec(a + 1, 4) << ", " << rec(a + 2, 4)
                                                  << ", ...); a face joins at most two cells");
        if (b - a > n_cells) {  // marker elements on this face
          const size_t e = a + n_cells;
          const std::string elem = "marker '" + marker_name(rec(e, 4)) + "' element (nodes " +
                                   node_list(k) + ")";
          CAMBER_INPUT_REQUIRE(n_cells > 0, where(rec(e, 5)) << elem << " is not a face of any cell");
          CAMBER_INPUT_REQUIRE(n_cells == 1, where(rec(e, 5))
                                                 << elem
                                                 << " is an interior face, not on the boundary");
          CAMBER_INPUT_REQUIRE(b - a == 2, where(rec(e + 1, 5))
                                               << "marker '" << marker_name(rec(e + 1, 4))
                                               << "' element (nodes " << node_list(k)
                                               << ") is already in marker '"
                                               << marker_name(rec(e, 4)) << "'");
          auto& o = out[static_cast<size_t>(home_of(cell_ends, rec(a, 4)))];
          o.insert(o.end(), {rec(a, 4), rec(a, 5), -1 - rec(e, 4), 1});
        } else if (n_cells == 2 && rec(a, 4) != rec(a + 1, 4)) {
          auto& o = out[static_cast<size_t>(home_of(cell_ends, rec(a, 4)))];
          o.insert(o.end(), {rec(a, 4), rec(a + 1, 4), 0, 0});
          auto& p = out[static_cast<size_t>(home_of(cell_ends, rec(a + 1, 4)))];
          p.insert(p.end(), {rec(a + 1, 4), rec(a, 4), 0, 0});
        }
        a = b;
      }
    });
    // At the cells' reading rank: (cell, neighbour, 0, 0) or (cell, face,
    // marker, 1).
    const std::vector<std::int64_t> back = par::exchange(out, comm);
    std::vector<std::vector<std::int64_t>> neighbours(static_cast<size_t>(chunk.n_cells()));
    for (size_t i = 0; i < back.size(); i += 4) {
      const auto c = static_cast<size_t>(back[i] - chunk.cell_begin);
      if (back[i + 3] == 1)
        chunk_marks[c].emplace_back(static_cast<int>(back[i + 1]), static_cast<int>(back[i + 2]));
      else
        neighbours[c].push_back(back[i + 1]);
    }
    for (auto& list : neighbours) {
      // Two cells may share more than one face; the graph has each edge once.
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      graph_adjncy.insert(graph_adjncy.end(), list.begin(), list.end());
      graph_xadj.push_back(static_cast<std::int64_t>(graph_adjncy.size()));
      std::vector<std::int64_t>().swap(list);
    }
  }

  // 2. Partition the face graph where it lies (PT-Scotch), then send each
  //    cell to its owner.
  next_phase("pt_scotch");
  const std::vector<int> part = par::partition_distributed(comm, graph_xadj, graph_adjncy, options);
  quality_ = par::partition_quality(comm, graph_xadj, graph_adjncy, part);
  std::vector<std::int64_t>().swap(graph_xadj);
  std::vector<std::int64_t>().swap(graph_adjncy);
  next_phase("migrate_cells");
  CellSet owned;
  {
    CellSet mine;
    for (index_t c = 0; c < chunk.n_cells(); ++c) {
      const auto cs = static_cast<size_t>(c);
      mine.gid.push_back(chunk.cell_begin + c);
      mine.type.push_back(chunk.cell_types[cs]);
      mine.line.push_back(chunk.cell_lines.empty() ? 0 : chunk.cell_lines[cs]);
      mine.nodes.insert(mine.nodes.end(), chunk.cell_nodes.begin() + chunk.cell_offsets[cs],
                        chunk.cell_nodes.begin() + chunk.cell_offsets[cs + 1]);
      mine.node_offset.push_back(static_cast<index_t>(mine.nodes.size()));
      for (const auto& [face, marker] : chunk_marks[cs]) {
        mine.mark_face.push_back(face);
        mine.mark_id.push_back(marker);
      }
      mine.mark_offset.push_back(static_cast<index_t>(mine.mark_face.size()));
    }
    chunk_marks.clear();
    Lists out(static_cast<size_t>(n_ranks));
    for (index_t c = 0; c < mine.size(); ++c)
      mine.write(c, out[static_cast<size_t>(part[static_cast<size_t>(c)])]);
    const std::vector<std::int64_t> in = par::exchange(out, comm);
    CellSet arrived;
    arrived.read(in, 0, in.size());
    std::vector<index_t> order(static_cast<size_t>(arrived.size()));
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<index_t>(i);
    std::sort(order.begin(), order.end(), [&](index_t a, index_t b) {
      return arrived.gid[static_cast<size_t>(a)] < arrived.gid[static_cast<size_t>(b)];
    });
    owned = arrived.permuted(order);
  }
  const index_t n_owned = owned.size();

  // 3. The ghost layer: every cell sharing a node with an owned cell. Each
  //    node's reading rank learns the cells around it (and their owners)
  //    and tells every owner among them.
  next_phase("ghost_layer");
  std::vector<std::int64_t> owned_nodes(owned.nodes);
  std::sort(owned_nodes.begin(), owned_nodes.end());
  owned_nodes.erase(std::unique(owned_nodes.begin(), owned_nodes.end()), owned_nodes.end());
  // (node, offset, count) of each owned-cell node's (cell, owner) list.
  std::vector<std::int64_t> around;
  std::vector<index_t> around_offset;
  {
    Lists out(static_cast<size_t>(n_ranks));
    for (index_t c = 0; c < n_owned; ++c)
      for (index_t k = owned.node_offset[static_cast<size_t>(c)];
           k < owned.node_offset[static_cast<size_t>(c) + 1]; ++k) {
        const std::int64_t n = owned.nodes[static_cast<size_t>(k)];
        auto& o = out[static_cast<size_t>(home_of(node_ends, n))];
        o.insert(o.end(), {n, owned.gid[static_cast<size_t>(c)]});
      }
    std::vector<std::int64_t> from;
    const std::vector<std::int64_t> in = par::exchange(out, comm, &from);
    out.assign(static_cast<size_t>(n_ranks), {});
    // (node, cell, owner) sorted.
    std::vector<std::array<std::int64_t, 3>> entries;
    entries.reserve(in.size() / 2);
    for (int r = 0; r < n_ranks; ++r)
      for (std::int64_t i = from[static_cast<size_t>(r)]; i < from[static_cast<size_t>(r) + 1]; i += 2)
        entries.push_back({in[static_cast<size_t>(i)], in[static_cast<size_t>(i) + 1], r});
    std::sort(entries.begin(), entries.end());
    std::vector<int> ranks;
    for (size_t a = 0; a < entries.size();) {
      size_t b = a;
      while (b < entries.size() && entries[b][0] == entries[a][0]) ++b;
      ranks.clear();
      for (size_t i = a; i < b; ++i) ranks.push_back(static_cast<int>(entries[i][2]));
      std::sort(ranks.begin(), ranks.end());
      ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
      for (int r : ranks) {
        auto& o = out[static_cast<size_t>(r)];
        o.insert(o.end(), {entries[a][0], static_cast<std::int64_t>(b - a)});
        for (size_t i = a; i < b; ++i) o.insert(o.end(), {entries[i][1], entries[i][2]});
      }
      a = b;
    }
    const std::vector<std::int64_t> lists = par::exchange(out, comm);
    // Index the lists by node.
    std::vector<std::pair<std::int64_t, size_t>> at;
    for (size_t i = 0; i < lists.size(); i += 2 + 2 * static_cast<size_t>(lists[i + 1]))
      at.emplace_back(lists[i], i);
    std::sort(at.begin(), at.end());
    around_offset.assign(1, 0);
    for (const auto& [node, i] : at) {
      around.insert(around.end(), lists.begin() + static_cast<std::ptrdiff_t>(i + 2),
                    lists.begin() + static_cast<std::ptrdiff_t>(i + 2 + 2 * lists[i + 1]));
      around_offset.push_back(static_cast<index_t>(around.size()));
    }
    CAMBER_REQUIRE(at.size() == owned_nodes.size(),
                   "DistributedMesh: internal error: " << at.size() << " node lists for "
                                                       << owned_nodes.size() << " nodes");
  }
  const auto around_of = [&](std::int64_t node) {
    const auto i = static_cast<size_t>(
        std::lower_bound(owned_nodes.begin(), owned_nodes.end(), node) - owned_nodes.begin());
    return std::make_pair(around_offset[i], around_offset[i + 1]);
  };
  // Owned cells' node neighbours on other ranks (global ids, sorted) with
  // their owners: the rows the distribution's ghosts and sends come from.
  // Neighbours on this rank are left out (a tetrahedron has about a
  // hundred node neighbours; the solver's stencils come from the local
  // mesh, not from these rows).
  std::vector<std::int64_t> adj_xadj(1, 0), adj;
  std::vector<int> adj_owner;
  {
    std::vector<std::pair<std::int64_t, int>> list;
    for (index_t c = 0; c < n_owned; ++c) {
      list.clear();
      for (index_t k = owned.node_offset[static_cast<size_t>(c)];
           k < owned.node_offset[static_cast<size_t>(c) + 1]; ++k) {
        const auto [a, b] = around_of(owned.nodes[static_cast<size_t>(k)]);
        for (index_t i = a; i < b; i += 2)
          if (around[static_cast<size_t>(i) + 1] != me)
            list.emplace_back(around[static_cast<size_t>(i)],
                              static_cast<int>(around[static_cast<size_t>(i) + 1]));
      }
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      for (const auto& [g, r] : list) {
        adj.push_back(g);
        adj_owner.push_back(r);
      }
      adj_xadj.push_back(static_cast<std::int64_t>(adj.size()));
    }
  }
  dist_ = par::CellDistribution(comm, owned.gid, adj_xadj, adj, adj_owner);
  halo_ = par::HaloExchange(dist_);
  n_global_nodes_ = chunk.n_global_nodes;

  // 4. Ghost cells from their owners, in the distribution's order (by
  //    owner, then global id: the order the requests are made in).
  CellSet ghosts;
  {
    Lists ask(static_cast<size_t>(n_ranks));
    const auto& l2g = dist_.local_to_global();
    for (index_t l = n_owned; l < dist_.n_local(); ++l)
      ask[static_cast<size_t>(dist_.ghost_owner()[static_cast<size_t>(l - n_owned)])].push_back(
          l2g[static_cast<size_t>(l)]);
    std::vector<std::int64_t> from;
    const std::vector<std::int64_t> asked = par::exchange(ask, comm, &from);
    Lists answer(static_cast<size_t>(n_ranks));
    for (int r = 0; r < n_ranks; ++r)
      for (std::int64_t i = from[static_cast<size_t>(r)]; i < from[static_cast<size_t>(r) + 1]; ++i)
        owned.write(dist_.local_id(asked[static_cast<size_t>(i)]), answer[static_cast<size_t>(r)]);
    const std::vector<std::int64_t> in = par::exchange(answer, comm);
    ghosts.read(in, 0, in.size());
  }

  // 5. Local nodes: those of owned cells, then those only ghosts use. The
  //    shared numbering of file_block(): a node belongs to the lowest rank
  //    owning one of its cells; rank r's nodes follow those of ranks < r,
  //    by global id within a rank. Each rank numbers its own and tells the
  //    nodes' reading ranks, which answer everyone's questions.
  next_phase("nodes");
  node_global_ = owned_nodes;
  n_owned_nodes_ = static_cast<index_t>(node_global_.size());
  {
    std::vector<std::int64_t> ghost_nodes(ghosts.nodes);
    std::sort(ghost_nodes.begin(), ghost_nodes.end());
    ghost_nodes.erase(std::unique(ghost_nodes.begin(), ghost_nodes.end()), ghost_nodes.end());
    for (std::int64_t g : ghost_nodes)
      if (!std::binary_search(owned_nodes.begin(), owned_nodes.end(), g)) node_global_.push_back(g);
  }
  std::vector<std::int64_t> mine;
  for (std::int64_t n : owned_nodes) {
    const auto [a, b] = around_of(n);
    int lowest = n_ranks;
    for (index_t i = a; i < b; i += 2)
      lowest = std::min(lowest, static_cast<int>(around[static_cast<size_t>(i) + 1]));
    if (lowest == me) mine.push_back(n);
  }
  n_file_nodes_ = static_cast<index_t>(mine.size());
  {
    std::int64_t count = n_file_nodes_;
    file_node_offset_ = 0;
    CAMBER_CHECK_MPI(MPI_Exscan(&count, &file_node_offset_, 1, MPI_INT64_T, MPI_SUM, comm));
    if (me == 0) file_node_offset_ = 0;
  }
  std::vector<std::int64_t> file_id_at_home(static_cast<size_t>(chunk.n_nodes()), -1);
  {
    Lists out(static_cast<size_t>(n_ranks));
    for (size_t i = 0; i < mine.size(); ++i) {
      auto& o = out[static_cast<size_t>(home_of(node_ends, mine[i]))];
      o.insert(o.end(), {mine[i], file_node_offset_ + static_cast<std::int64_t>(i)});
    }
    const std::vector<std::int64_t> in = par::exchange(out, comm);
    for (size_t i = 0; i < in.size(); i += 2)
      file_id_at_home[static_cast<size_t>(in[i] - chunk.node_begin)] = in[i + 1];
  }
  std::vector<double> local_coords(node_global_.size() * static_cast<size_t>(chunk.dim));
  node_file_id_.assign(node_global_.size(), -1);
  {
    Lists ask(static_cast<size_t>(n_ranks));
    std::vector<size_t> asked_at(node_global_.size());
    for (size_t i = 0; i < node_global_.size(); ++i)
      ask[static_cast<size_t>(home_of(node_ends, node_global_[i]))].push_back(node_global_[i]);
    std::vector<std::int64_t> from;
    const std::vector<std::int64_t> asked = par::exchange(ask, comm, &from);
    Lists ids(static_cast<size_t>(n_ranks));
    std::vector<std::vector<double>> xyz(static_cast<size_t>(n_ranks));
    for (int r = 0; r < n_ranks; ++r)
      for (std::int64_t i = from[static_cast<size_t>(r)]; i < from[static_cast<size_t>(r) + 1]; ++i) {
        const auto n = static_cast<size_t>(asked[static_cast<size_t>(i)] - chunk.node_begin);
        ids[static_cast<size_t>(r)].push_back(file_id_at_home[n]);
        const auto x = chunk.coords.begin() + static_cast<std::ptrdiff_t>(n * static_cast<size_t>(chunk.dim));
        xyz[static_cast<size_t>(r)].insert(xyz[static_cast<size_t>(r)].end(), x, x + chunk.dim);
      }
    std::vector<std::int64_t> got_from;
    const std::vector<std::int64_t> got_ids = par::exchange(ids, comm, &got_from);
    const std::vector<double> got_xyz = par::exchange(xyz, comm);
    // Answers come grouped by home rank, in the order asked.
    std::vector<std::int64_t> next(got_from.begin(), got_from.end() - 1);
    for (size_t i = 0; i < node_global_.size(); ++i) {
      const auto k = static_cast<size_t>(next[static_cast<size_t>(home_of(node_ends, node_global_[i]))]++);
      node_file_id_[i] = got_ids[k];
      for (int d = 0; d < chunk.dim; ++d)
        local_coords[i * static_cast<size_t>(chunk.dim) + static_cast<size_t>(d)] =
            got_xyz[k * static_cast<size_t>(chunk.dim) + static_cast<size_t>(d)];
    }
  }

  const auto local_node = [&](std::int64_t g) {
    const auto owned_end = node_global_.begin() + n_owned_nodes_;
    auto it = std::lower_bound(node_global_.begin(), owned_end, g);
    if (it == owned_end || *it != g) it = std::lower_bound(owned_end, node_global_.end(), g);
    return static_cast<index_t>(it - node_global_.begin());
  };

  // 6. Owned cells along Morton's curve through their centroids
  //    (mesh/reorder.hpp), whatever the file's order: a solver's stencil
  //    gathers then stay in cache. The distribution is rebuilt over the new
  //    order; its ghosts are the same cells in the same order (by owner,
  //    then global id), so the ghost set fetched above stands.
  next_phase("cell_order");
  {
    const int dim = chunk.dim;
    std::vector<double> centroid(static_cast<size_t>(n_owned) * static_cast<size_t>(dim), 0.0);
    for (index_t c = 0; c < n_owned; ++c) {
      const index_t a = owned.node_offset[static_cast<size_t>(c)];
      const index_t b = owned.node_offset[static_cast<size_t>(c) + 1];
      for (index_t k = a; k < b; ++k) {
        const auto v = static_cast<size_t>(local_node(owned.nodes[static_cast<size_t>(k)]));
        for (int d = 0; d < dim; ++d)
          centroid[static_cast<size_t>(c * dim + d)] +=
              local_coords[v * static_cast<size_t>(dim) + static_cast<size_t>(d)] /
              static_cast<double>(b - a);
      }
    }
    const std::vector<index_t> order = morton_order(centroid, dim);
    owned = owned.permuted(order);
    std::vector<std::int64_t> xadj2(1, 0), adj2;
    std::vector<int> owner2;
    for (const index_t c : order) {
      for (std::int64_t k = adj_xadj[static_cast<size_t>(c)]; k < adj_xadj[static_cast<size_t>(c) + 1];
           ++k) {
        adj2.push_back(adj[static_cast<size_t>(k)]);
        owner2.push_back(adj_owner[static_cast<size_t>(k)]);
      }
      xadj2.push_back(static_cast<std::int64_t>(adj2.size()));
    }
    dist_ = par::CellDistribution(comm, owned.gid, xadj2, adj2, owner2);
    halo_ = par::HaloExchange(dist_);
  }

  // 7. The local Mesh: owned cells, then ghosts; every marker (empty ones
  //    too), so marker indices are the file's; marked faces of local cells.
  next_phase("local_mesh");
  MeshData data;
  data.dim = chunk.dim;
  data.source = chunk.source;
  data.coords = std::move(local_coords);
  for (const std::string& name : chunk.marker_names) data.add_marker(name);
  bool any_line = false;
  std::vector<index_t> ln;
  int face_local[4];
  index_t face_nodes[4];
  for (const CellSet* set : {&owned, &ghosts})
    for (index_t c = 0; c < set->size(); ++c) {
      const auto cs = static_cast<size_t>(c);
      ln.clear();
      for (index_t k = set->node_offset[cs]; k < set->node_offset[cs + 1]; ++k)
        ln.push_back(local_node(set->nodes[static_cast<size_t>(k)]));
      data.add_cell(set->type[cs], ln.data(), static_cast<int>(ln.size()), set->line[cs]);
      any_line = any_line || set->line[cs] != 0;
      for (index_t k = set->mark_offset[cs]; k < set->mark_offset[cs + 1]; ++k) {
        const int m = cell_face(set->type[cs], set->mark_face[static_cast<size_t>(k)], face_local);
        for (int i = 0; i < m; ++i) face_nodes[i] = ln[static_cast<size_t>(face_local[i])];
        data.markers[static_cast<size_t>(set->mark_id[static_cast<size_t>(k)])].add_element(face_nodes, m);
      }
    }
  if (!any_line) data.cell_lines.clear();
  std::vector<double>().swap(chunk.coords);
  // Orientation is checked here, where the cells first meet their nodes'
  // coordinates: an inside-out cell of a file is mirrored back (as the
  // serial readers do); a zero-volume one is an error at its line.
  collective_guard(comm, [&] { local_ = Mesh::from_cells(std::move(data), Orientation::fix); });

  // from_cells numbers faces as it meets them, cell by cell, and makes the
  // first cell met the left one: owned cells come first, so the faces of
  // owned cells are a prefix, each with an owned left cell.
  const auto local_left = host_copy(local_.face_left());
  n_owned_faces_ = 0;
  while (n_owned_faces_ < local_.n_faces() && local_left(n_owned_faces_) < n_owned)
    ++n_owned_faces_;
  for (index_t f = n_owned_faces_; f < local_.n_faces(); ++f)
    CAMBER_REQUIRE(local_left(f) >= n_owned,
                   "DistributedMesh: internal error: face " << f << " of an owned cell after "
                                                            << "the owned-face prefix");
  phase.reset();
}

DistributedMesh DistributedMesh::read(const std::string& path, MPI_Comm comm,
                                      const par::PartitionOptions& options) {
  return DistributedMesh(read_mesh_chunk(path, comm), comm, options);
}

std::vector<index_t> DistributedMesh::owned_marker_faces(const std::string& name) const {
  const int mk = local_.marker_index(name);
  if (mk < 0) {
    std::ostringstream names;
    for (const Marker& m : local_.markers()) names << " '" << m.name << "'";
    throw_bad_input("DistributedMesh: no marker named '" + name + "'; the mesh has" +
                    names.str());
  }
  const auto marker = host_copy(local_.face_marker());
  std::vector<index_t> faces;
  for (index_t f = 0; f < n_owned_faces_; ++f)
    if (marker(f) == mk) faces.push_back(f);
  return faces;
}

#if CAMBER_WITH_IO

io::UnstructuredPiece DistributedMesh::owned_piece(const std::vector<io::Field>& cell_fields) const {
  const auto coords = host_copy(local_.coords());
  const auto offsets = host_copy(local_.cell_offsets());
  const auto nodes = host_copy(local_.cell_nodes());
  const auto types = host_copy(local_.cell_types());
  const index_t n_owned = n_owned_cells();
  io::UnstructuredPiece piece;
  piece.points_xyz.reserve(3 * static_cast<std::size_t>(n_owned_nodes_));
  for (index_t n = 0; n < n_owned_nodes_; ++n)
    piece.points_xyz.insert(piece.points_xyz.end(), {coords(n, 0), coords(n, 1), z_of(coords, n)});
  for (index_t c = 0; c < n_owned; ++c) {
    for (index_t k = offsets(c); k < offsets(c + 1); ++k) piece.connectivity.push_back(nodes(k));
    piece.offsets.push_back(static_cast<std::int64_t>(piece.connectivity.size()));
    // CellType values are VTK's cell type ids.
    piece.cell_types.push_back(static_cast<std::uint8_t>(types(c)));
  }
  for (const io::Field& f : cell_fields)
    piece.cell_data.push_back(owned_rows(f, n_owned, n_local_cells()));
  return piece;
}

io::SurfacePiece DistributedMesh::marker_surface(const std::string& name,
                                                 const std::vector<io::Field>& cell_fields) const {
  const std::vector<index_t> faces = owned_marker_faces(name);
  const auto coords = host_copy(local_.coords());
  const auto f_offsets = host_copy(local_.face_offsets());
  const auto f_nodes = host_copy(local_.face_nodes());
  const auto left = host_copy(local_.face_left());
  io::SurfacePiece surface;
  std::vector<index_t> point_of(static_cast<std::size_t>(n_local_nodes()), -1);
  for (index_t f : faces) {
    for (index_t k = f_offsets(f); k < f_offsets(f + 1); ++k) {
      const index_t n = f_nodes(k);
      index_t& p = point_of[static_cast<std::size_t>(n)];
      if (p < 0) {
        p = static_cast<index_t>(surface.points_xyz.size() / 3);
        surface.points_xyz.insert(surface.points_xyz.end(),
                                  {coords(n, 0), coords(n, 1), z_of(coords, n)});
      }
      surface.connectivity.push_back(p);
    }
    surface.offsets.push_back(static_cast<std::int64_t>(surface.connectivity.size()));
    const index_t size = f_offsets(f + 1) - f_offsets(f);
    surface.cell_types.push_back(size == 2   ? io::vtk_cell::line
                                 : size == 3 ? io::vtk_cell::triangle
                                             : io::vtk_cell::quad);
  }
  for (const io::Field& f : cell_fields) {
    const io::Field owned = owned_rows(f, n_owned_cells(), n_local_cells());
    io::Field on_faces{f.name, f.components, {}};
    on_faces.values.reserve(faces.size() * static_cast<std::size_t>(f.components));
    for (index_t face : faces) {
      const auto begin = owned.values.begin() + left(face) * f.components;
      on_faces.values.insert(on_faces.values.end(), begin, begin + f.components);
    }
    surface.cell_data.push_back(std::move(on_faces));
  }
  return surface;
}

io::UnstructuredPiece DistributedMesh::file_block(const std::vector<io::Field>& cell_fields) const {
  const auto coords = host_copy(local_.coords());
  const auto offsets = host_copy(local_.cell_offsets());
  const auto nodes = host_copy(local_.cell_nodes());
  const auto types = host_copy(local_.cell_types());
  const index_t n_owned = n_owned_cells();
  io::UnstructuredPiece block;
  block.points_xyz.resize(3 * static_cast<std::size_t>(n_file_nodes_));
  // This rank's file nodes are among its owned-cell nodes.
  for (index_t n = 0; n < n_owned_nodes_; ++n) {
    const std::int64_t row = node_file_id_[static_cast<std::size_t>(n)] - file_node_offset_;
    if (row < 0 || row >= n_file_nodes_) continue;
    block.points_xyz[3 * static_cast<std::size_t>(row)] = coords(n, 0);
    block.points_xyz[3 * static_cast<std::size_t>(row) + 1] = coords(n, 1);
    block.points_xyz[3 * static_cast<std::size_t>(row) + 2] = z_of(coords, n);
  }
  for (index_t c = 0; c < n_owned; ++c) {
    for (index_t k = offsets(c); k < offsets(c + 1); ++k)
      block.connectivity.push_back(node_file_id_[static_cast<std::size_t>(nodes(k))]);
    block.offsets.push_back(static_cast<std::int64_t>(block.connectivity.size()));
    block.cell_types.push_back(static_cast<std::uint8_t>(types(c)));
  }
  for (const io::Field& f : cell_fields)
    block.cell_data.push_back(owned_rows(f, n_owned, n_local_cells()));
  return block;
}

#endif

DistributedMesh DistributedMesh::with_coordinates(const Tensor& global_coords) const {
  const index_t dim = local_.dim();
  CAMBER_REQUIRE(global_coords.shape() == (Shape{static_cast<index_t>(n_global_nodes_), dim}),
                 "DistributedMesh::with_coordinates: coords has shape "
                     << shape_string(global_coords.shape()) << ", expected {" << n_global_nodes_
                     << ", " << dim << "}");
  const auto x = global_coords.host();
  std::vector<double> local(node_global_.size() * static_cast<size_t>(dim));
  for (size_t i = 0; i < node_global_.size(); ++i)
    for (index_t d = 0; d < dim; ++d)
      local[i * static_cast<size_t>(dim) + static_cast<size_t>(d)] = x(node_global_[i] * dim + d);
  DistributedMesh moved(*this);
  moved.local_ = local_.with_coordinates(
      Tensor::from_host({static_cast<index_t>(node_global_.size()), dim}, local));
  return moved;
}

DistributedMesh DistributedMesh::with_local_coordinates(const Tensor& local_coords) const {
  const index_t dim = local_.dim();
  CAMBER_REQUIRE(local_coords.shape() == (Shape{n_local_nodes(), dim}),
                 "DistributedMesh::with_local_coordinates: coords has shape "
                     << shape_string(local_coords.shape()) << ", expected {" << n_local_nodes()
                     << ", " << dim << "}");
  DistributedMesh moved(*this);
  moved.local_ = local_.with_coordinates(local_coords);
  return moved;
}

OwnedCellFaces owned_cell_faces(const DistributedMesh& dm) {
  const Mesh& local = dm.local();
  const index_t n_owned = dm.n_owned_cells(), n_faces = dm.n_owned_faces();
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_right());
  std::vector<index_t> count(static_cast<size_t>(n_owned) + 1, 0);
  for (index_t f = 0; f < n_faces; ++f) {
    if (left(f) < n_owned) ++count[static_cast<size_t>(left(f)) + 1];
    if (right(f) >= 0 && right(f) < n_owned) ++count[static_cast<size_t>(right(f)) + 1];
  }
  for (size_t i = 1; i < count.size(); ++i) count[i] += count[i - 1];
  OwnedCellFaces out;
  out.offset = Kokkos::View<index_t*>("camber::mesh::cell_face_offset", count.size());
  out.face = Kokkos::View<index_t*>("camber::mesh::cell_face", static_cast<size_t>(count.back()));
  out.sign = Kokkos::View<double*>("camber::mesh::cell_face_sign", static_cast<size_t>(count.back()));
  auto off = Kokkos::create_mirror_view(out.offset);
  auto cf = Kokkos::create_mirror_view(out.face);
  auto cs = Kokkos::create_mirror_view(out.sign);
  std::vector<index_t> next(count.begin(), count.end() - 1);
  for (size_t i = 0; i < count.size(); ++i) off(i) = count[i];
  for (index_t f = 0; f < n_faces; ++f) {
    if (left(f) < n_owned) {
      const index_t k = next[static_cast<size_t>(left(f))]++;
      cf(k) = f;
      cs(k) = 1.0;
    }
    if (right(f) >= 0 && right(f) < n_owned) {
      const index_t k = next[static_cast<size_t>(right(f))]++;
      cf(k) = f;
      cs(k) = -1.0;
    }
  }
  // Within a cell, faces by the global ids of their nodes: the order (and
  // so the rounding of a cell's sum over its faces) is the same on every
  // partition.
  const auto face_offsets = host_copy(local.face_offsets());
  const auto face_nodes = host_copy(local.face_nodes());
  const auto& node_gid = dm.node_global_ids();
  const auto key = [&](index_t f) {
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
    for (index_t a = face_offsets(f); a < face_offsets(f + 1); ++a) {
      const std::int64_t g = node_gid[static_cast<size_t>(face_nodes(a))];
      lo = std::min(lo, g);
      hi = std::max(hi, g);
    }
    return std::make_pair(lo, hi);
  };
  std::vector<std::pair<index_t, double>> entries;
  for (index_t c = 0; c < n_owned; ++c) {
    entries.clear();
    for (index_t k = off(c); k < off(c + 1); ++k) entries.emplace_back(cf(k), cs(k));
    std::sort(entries.begin(), entries.end(),
              [&](const auto& a, const auto& b) { return key(a.first) < key(b.first); });
    for (index_t k = off(c); k < off(c + 1); ++k) {
      cf(k) = entries[static_cast<size_t>(k - off(c))].first;
      cs(k) = entries[static_cast<size_t>(k - off(c))].second;
    }
  }
  Kokkos::deep_copy(out.offset, off);
  Kokkos::deep_copy(out.face, cf);
  Kokkos::deep_copy(out.sign, cs);
  return out;
}

double total_volume(const DistributedMesh& dm) {
  const Geometry g = compute_geometry(dm.local());
  const auto volume = g.cell_volume;
  double owned = 0.0;
  Kokkos::parallel_reduce(
      "camber::mesh::total_volume_owned", Kokkos::RangePolicy<>(0, dm.n_owned_cells()),
      KOKKOS_LAMBDA(const index_t c, double& sum) { sum += volume(c); }, owned);
  return par::allreduce_sum(owned, dm.comm());
}

}  // namespace camber::mesh
