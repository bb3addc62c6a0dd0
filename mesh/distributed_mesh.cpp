#include <camber/mesh/distributed_mesh.hpp>

#include <algorithm>
#include <limits>
#include <sstream>

#include <camber/core/error.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

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

DistributedMesh::DistributedMesh(const Mesh& global, MPI_Comm comm,
                                 const par::PartitionOptions& options) {
  // The same mesh on every rank, so every rank fails alike: agree, so the
  // message is printed once.
  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(global.n_cells() >= comm_size(comm),
                         "DistributedMesh: "
                             << (global.source().empty() ? std::string("the mesh")
                                                         : global.source())
                             << " has " << global.n_cells() << " cells, fewer than the "
                             << comm_size(comm) << " ranks; every rank needs a cell");
  });
  std::vector<std::int64_t> xadj, adjncy;
  cell_graph(global, xadj, adjncy);
  const std::vector<int> part = par::partition_over_ranks(comm, xadj, adjncy, options);
  // Partitioned by faces; the ghost layer is every cell that shares a node
  // with an owned cell (what node-neighbour stencils need).
  std::vector<std::int64_t> node_xadj, node_adjncy;
  node_graph(global, node_xadj, node_adjncy);
  dist_ = par::CellDistribution(comm, node_xadj, node_adjncy, part);
  halo_ = par::HaloExchange(dist_);
  quality_ = par::partition_quality(xadj, adjncy, part, dist_.size(), options);
  n_global_nodes_ = global.n_nodes();

  const auto coords = host_copy(global.coords());
  const auto cell_offsets = host_copy(global.cell_offsets());
  const auto cell_nodes = host_copy(global.cell_nodes());
  const auto cell_types = host_copy(global.cell_types());
  const auto face_offsets = host_copy(global.face_offsets());
  const auto face_nodes = host_copy(global.face_nodes());
  const auto face_left = host_copy(global.face_left());
  const auto face_right = host_copy(global.face_right());
  const auto face_marker = host_copy(global.face_marker());

  const index_t n_owned = dist_.n_owned();
  const index_t n_local = dist_.n_local();
  const std::vector<std::int64_t>& cells = dist_.local_to_global();

  // Local nodes: those of owned cells, then those only ghosts use.
  const auto nodes_of = [&](index_t begin, index_t end) {
    std::vector<std::int64_t> nodes;
    for (index_t lc = begin; lc < end; ++lc) {
      const std::int64_t g = cells[static_cast<std::size_t>(lc)];
      for (index_t k = cell_offsets(g); k < cell_offsets(g + 1); ++k)
        nodes.push_back(cell_nodes(k));
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return nodes;
  };
  node_global_ = nodes_of(0, n_owned);
  n_owned_nodes_ = static_cast<index_t>(node_global_.size());
  for (std::int64_t g : nodes_of(n_owned, n_local))
    if (!std::binary_search(node_global_.begin(), node_global_.begin() + n_owned_nodes_, g))
      node_global_.push_back(g);
  std::vector<index_t> node_local(static_cast<std::size_t>(n_global_nodes_), -1);
  for (std::size_t i = 0; i < node_global_.size(); ++i)
    node_local[static_cast<std::size_t>(node_global_[i])] = static_cast<index_t>(i);

  MeshData data;
  data.dim = global.dim();
  data.source = "DistributedMesh (rank " + std::to_string(dist_.rank()) + ")";
  for (std::int64_t g : node_global_) {
    if (data.dim == 3)
      data.add_node(coords(g, 0), coords(g, 1), coords(g, 2));
    else
      data.add_node(coords(g, 0), coords(g, 1));
  }
  std::vector<index_t> local_nodes;
  for (index_t lc = 0; lc < n_local; ++lc) {
    const std::int64_t g = cells[static_cast<std::size_t>(lc)];
    local_nodes.clear();
    for (index_t k = cell_offsets(g); k < cell_offsets(g + 1); ++k)
      local_nodes.push_back(node_local[static_cast<std::size_t>(cell_nodes(k))]);
    data.add_cell(cell_types(g), local_nodes.data(), static_cast<int>(local_nodes.size()));
  }
  // Every marker is kept (empty ones too), so marker indices match the
  // global mesh's; a marked face is kept if its cell is local.
  for (const Marker& m : global.markers()) data.add_marker(m.name);
  for (index_t f = 0; f < global.n_faces(); ++f) {
    const int mk = face_marker(f);
    if (mk < 0 || face_right(f) >= 0 || dist_.local_id(face_left(f)) < 0) continue;
    local_nodes.clear();
    for (index_t k = face_offsets(f); k < face_offsets(f + 1); ++k)
      local_nodes.push_back(node_local[static_cast<std::size_t>(face_nodes(k))]);
    data.markers[static_cast<std::size_t>(mk)].add_element(local_nodes.data(),
                                                          static_cast<int>(local_nodes.size()));
  }
  // Cells were counter-clockwise (2-D) or of positive volume (3-D) in the
  // global mesh; a reversal here would mean a bug in the copy.
  local_ = Mesh::from_cells(std::move(data), Orientation::require);

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

  // The shared node numbering of file_block(): a node belongs to the lowest
  // rank owning one of its cells; rank r's nodes follow those of ranks < r,
  // by global id within a rank.
  const int n_ranks = dist_.size();
  std::vector<int> node_owner(static_cast<std::size_t>(n_global_nodes_),
                              std::numeric_limits<int>::max());
  for (index_t c = 0; c < global.n_cells(); ++c)
    for (index_t k = cell_offsets(c); k < cell_offsets(c + 1); ++k) {
      int& owner = node_owner[static_cast<std::size_t>(cell_nodes(k))];
      owner = std::min(owner, part[static_cast<std::size_t>(c)]);
    }
  std::vector<std::int64_t> next(static_cast<std::size_t>(n_ranks) + 1, 0);
  for (int owner : node_owner)
    if (owner < n_ranks) ++next[static_cast<std::size_t>(owner) + 1];
  for (int r = 0; r < n_ranks; ++r) next[r + 1] += next[r];
  file_node_offset_ = next[static_cast<std::size_t>(dist_.rank())];
  n_file_nodes_ = static_cast<index_t>(next[static_cast<std::size_t>(dist_.rank()) + 1] -
                                       file_node_offset_);
  std::vector<std::int64_t> file_id(static_cast<std::size_t>(n_global_nodes_), -1);
  for (std::size_t g = 0; g < file_id.size(); ++g)
    if (node_owner[g] < n_ranks) file_id[g] = next[static_cast<std::size_t>(node_owner[g])]++;
  node_file_id_.resize(node_global_.size());
  for (std::size_t i = 0; i < node_global_.size(); ++i)
    node_file_id_[i] = file_id[static_cast<std::size_t>(node_global_[i])];
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

DistributedMesh DistributedMesh::read(const std::string& path, MPI_Comm comm,
                                      const par::PartitionOptions& options) {
  return DistributedMesh(read_mesh(path, comm), comm, options);
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
