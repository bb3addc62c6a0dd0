#include <camber/mesh/mesh_chunk.hpp>

#include <cstring>
#include <filesystem>

#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/parallel/collectives.hpp>

namespace camber::mesh {

namespace {

bool ends_with(const std::string& s, const std::string& ext) {
  return s.size() >= ext.size() && s.compare(s.size() - ext.size(), ext.size(), ext) == 0;
}

std::int64_t share(std::int64_t n, int rank, int n_ranks) {
  return n * rank / n_ranks;
}

// A chunk as one stream of integers and one of doubles (marker names as
// their characters), for sending it whole.
void pack(const MeshChunk& c, std::vector<std::int64_t>& ints, std::vector<double>& reals) {
  const auto put = [&](const auto& v) {
    ints.push_back(static_cast<std::int64_t>(v.size()));
    for (const auto& x : v) ints.push_back(static_cast<std::int64_t>(x));
  };
  ints.insert(ints.end(), {c.dim, c.n_global_nodes, c.n_global_cells, c.node_begin, c.cell_begin});
  put(c.cell_types);
  put(c.cell_offsets);
  put(c.cell_nodes);
  put(c.cell_lines);
  ints.push_back(static_cast<std::int64_t>(c.marker_names.size()));
  for (const std::string& name : c.marker_names) put(name);
  put(c.face_marker);
  put(c.face_offsets);
  put(c.face_nodes);
  put(c.face_lines);
  put(c.source);
  reals = c.coords;
}

MeshChunk unpack(const std::vector<std::int64_t>& ints, std::vector<double> reals) {
  size_t at = 0;
  const auto next = [&] { return ints.at(at++); };
  const auto get = [&](auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    v.resize(static_cast<size_t>(next()));
    for (auto& x : v) x = static_cast<T>(next());
  };
  MeshChunk c;
  c.dim = static_cast<int>(next());
  c.n_global_nodes = next();
  c.n_global_cells = next();
  c.node_begin = next();
  c.cell_begin = next();
  get(c.cell_types);
  get(c.cell_offsets);
  get(c.cell_nodes);
  get(c.cell_lines);
  c.marker_names.resize(static_cast<size_t>(next()));
  for (std::string& name : c.marker_names) get(name);
  get(c.face_marker);
  get(c.face_offsets);
  get(c.face_nodes);
  get(c.face_lines);
  get(c.source);
  c.coords = std::move(reals);
  return c;
}

}  // namespace

MeshChunk chunk_of(const MeshData& data, int rank, int n_ranks) {
  CAMBER_REQUIRE(n_ranks >= 1 && rank >= 0 && rank < n_ranks,
                 "chunk_of: rank " << rank << " of " << n_ranks);
  MeshChunk c;
  c.dim = data.dim;
  c.source = data.source;
  c.n_global_nodes = data.n_nodes();
  c.n_global_cells = data.n_cells();
  c.node_begin = share(c.n_global_nodes, rank, n_ranks);
  const std::int64_t node_end = share(c.n_global_nodes, rank + 1, n_ranks);
  c.coords.assign(data.coords.begin() + c.node_begin * data.dim,
                  data.coords.begin() + node_end * data.dim);
  c.cell_begin = share(c.n_global_cells, rank, n_ranks);
  const std::int64_t cell_end = share(c.n_global_cells, rank + 1, n_ranks);
  for (std::int64_t g = c.cell_begin; g < cell_end; ++g) {
    const auto gs = static_cast<size_t>(g);
    c.cell_types.push_back(data.cell_types[gs]);
    c.cell_nodes.insert(c.cell_nodes.end(), data.cell_nodes.begin() + data.cell_offsets[gs],
                        data.cell_nodes.begin() + data.cell_offsets[gs + 1]);
    c.cell_offsets.push_back(static_cast<index_t>(c.cell_nodes.size()));
    if (!data.cell_lines.empty()) c.cell_lines.push_back(data.cell_lines[gs]);
  }
  for (size_t m = 0; m < data.markers.size(); ++m) {
    const MeshData::Marker& marker = data.markers[m];
    c.marker_names.push_back(marker.name);
    const index_t n = marker.n_elements();
    for (index_t e = share(n, rank, n_ranks); e < share(n, rank + 1, n_ranks); ++e) {
      const auto es = static_cast<size_t>(e);
      c.face_marker.push_back(static_cast<int>(m));
      c.face_nodes.insert(c.face_nodes.end(), marker.nodes.begin() + marker.offsets[es],
                          marker.nodes.begin() + marker.offsets[es + 1]);
      c.face_offsets.push_back(static_cast<index_t>(c.face_nodes.size()));
      c.face_lines.push_back(marker.lines.empty() ? 0 : marker.lines[es]);
    }
  }
  // Lines only where the file gave them.
  bool any_line = false;
  for (long l : c.face_lines) any_line = any_line || l != 0;
  if (!any_line) c.face_lines.clear();
  return c;
}

MeshChunk chunk_of(const Mesh& mesh, int rank, int n_ranks) {
  CAMBER_REQUIRE(n_ranks >= 1 && rank >= 0 && rank < n_ranks,
                 "chunk_of: rank " << rank << " of " << n_ranks);
  const auto coords = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.coords());
  const auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_offsets());
  const auto nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_nodes());
  const auto types = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_types());
  const auto f_offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_offsets());
  const auto f_nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_nodes());
  MeshChunk c;
  c.dim = mesh.dim();
  c.source = mesh.source();
  c.n_global_nodes = mesh.n_nodes();
  c.n_global_cells = mesh.n_cells();
  c.node_begin = share(c.n_global_nodes, rank, n_ranks);
  for (std::int64_t n = c.node_begin; n < share(c.n_global_nodes, rank + 1, n_ranks); ++n)
    for (int d = 0; d < c.dim; ++d) c.coords.push_back(coords(n, d));
  c.cell_begin = share(c.n_global_cells, rank, n_ranks);
  for (std::int64_t g = c.cell_begin; g < share(c.n_global_cells, rank + 1, n_ranks); ++g) {
    c.cell_types.push_back(types(g));
    for (index_t k = offsets(g); k < offsets(g + 1); ++k) c.cell_nodes.push_back(nodes(k));
    c.cell_offsets.push_back(static_cast<index_t>(c.cell_nodes.size()));
  }
  for (size_t m = 0; m < mesh.markers().size(); ++m) {
    const Marker& marker = mesh.markers()[m];
    c.marker_names.push_back(marker.name);
    const auto faces = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), marker.faces);
    const index_t n = marker.n_faces();
    for (index_t e = share(n, rank, n_ranks); e < share(n, rank + 1, n_ranks); ++e) {
      const index_t f = faces(e);
      c.face_marker.push_back(static_cast<int>(m));
      for (index_t k = f_offsets(f); k < f_offsets(f + 1); ++k) c.face_nodes.push_back(f_nodes(k));
      c.face_offsets.push_back(static_cast<index_t>(c.face_nodes.size()));
    }
  }
  return c;
}

MeshChunk read_mesh_chunk(const std::string& path, MPI_Comm comm) {
  collective_guard(comm, [&] {
    if (!ends_with(path, ".su2") && !ends_with(path, ".msh") && !ends_with(path, ".cgns"))
      throw_bad_input("cannot tell the format of mesh file '" + path +
                      "'; expected the extension .su2 (SU2), .msh (Gmsh 4.1 ASCII) or .cgns "
                      "(CGNS)");
    if (!std::filesystem::is_regular_file(path))
      throw_bad_input("cannot open mesh file '" + path + "'; check the path and permissions");
  });
  if (ends_with(path, ".su2")) return read_su2_chunk(path, comm);
  if (ends_with(path, ".cgns")) return read_cgns_chunk(path, comm);

  // Gmsh: rank 0 reads (node tags need not be contiguous, so the ranges
  // cannot be found without the whole node section) and sends each rank
  // its chunk; only rank 0 holds the file's mesh, and only while reading.
  const int size = comm_size(comm), rank = comm_rank(comm);
  std::vector<std::vector<std::int64_t>> ints(static_cast<size_t>(size));
  std::vector<std::vector<double>> reals(static_cast<size_t>(size));
  collective_guard(comm, [&] {
    if (rank != 0) return;
    const MeshData data = read_mesh_data(path);
    for (int r = 0; r < size; ++r)
      pack(chunk_of(data, r, size), ints[static_cast<size_t>(r)], reals[static_cast<size_t>(r)]);
  });
  std::vector<std::int64_t> my_ints = par::exchange(ints, comm);
  ints.clear();
  std::vector<double> my_reals = par::exchange(reals, comm);
  reals.clear();
  return unpack(my_ints, std::move(my_reals));
}

}  // namespace camber::mesh
