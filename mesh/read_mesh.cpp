#include <camber/mesh/read_mesh.hpp>

#include <cstdint>
#include <vector>

#include <camber/core/error.hpp>
#include <camber/mesh/cgns_reader.hpp>
#include <camber/mesh/gmsh_reader.hpp>
#include <camber/mesh/su2_reader.hpp>
#include <camber/core/runtime.hpp>

namespace camber::mesh {

namespace {

bool ends_with(const std::string& s, const std::string& ext) {
  return s.size() >= ext.size() && s.compare(s.size() - ext.size(), ext.size(), ext) == 0;
}

// Broadcast of a vector of trivially copyable values: size, then bytes.
template <class T>
void broadcast_vector(std::vector<T>& v, int root, MPI_Comm comm) {
  std::int64_t n = static_cast<std::int64_t>(v.size());
  CAMBER_CHECK_MPI(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm));
  v.resize(static_cast<size_t>(n));
  const size_t bytes = static_cast<size_t>(n) * sizeof(T);
  // MPI counts are int: send in chunks below 2^30 bytes.
  constexpr size_t chunk = size_t(1) << 30;
  auto* p = reinterpret_cast<char*>(v.data());
  for (size_t done = 0; done < bytes; done += chunk) {
    const int count = static_cast<int>(std::min(chunk, bytes - done));
    CAMBER_CHECK_MPI(MPI_Bcast(p + done, count, MPI_BYTE, root, comm));
  }
}

void broadcast_string(std::string& s, int root, MPI_Comm comm) {
  std::vector<char> v(s.begin(), s.end());
  broadcast_vector(v, root, comm);
  s.assign(v.begin(), v.end());
}

}  // namespace

MeshData read_mesh_data(const std::string& path) {
  if (ends_with(path, ".su2")) return read_su2_data(path);
  if (ends_with(path, ".msh")) return read_gmsh_data(path);
  if (ends_with(path, ".cgns")) return read_cgns_data(path);
  throw_bad_input("cannot tell the format of mesh file '" + path +
                  "'; expected the extension .su2 (SU2), .msh (Gmsh 4.1 ASCII) or .cgns (CGNS)");
}

Mesh read_mesh(const std::string& path) {
  return Mesh::from_cells(read_mesh_data(path), Orientation::fix);
}

Mesh read_mesh(const std::string& path, MPI_Comm comm) {
  MeshData data;
  Mesh mesh;
  // Rank 0 reads and builds (every check of the reader and of from_cells
  // runs there, with line numbers); the others only wait for the verdict.
  collective_guard(comm, [&] {
    if (comm_rank(comm) == 0) {
      data = read_mesh_data(path);
      MeshData copy = data;
      mesh = Mesh::from_cells(std::move(copy), Orientation::fix);
    }
  });
  if (comm_size(comm) == 1) return mesh;
  broadcast(data, 0, comm);
  if (comm_rank(comm) != 0) mesh = Mesh::from_cells(std::move(data), Orientation::fix);
  return mesh;
}

void broadcast(MeshData& data, int root, MPI_Comm comm) {
  CAMBER_CHECK_MPI(MPI_Bcast(&data.dim, 1, MPI_INT, root, comm));
  broadcast_string(data.source, root, comm);
  broadcast_vector(data.coords, root, comm);
  broadcast_vector(data.cell_types, root, comm);
  broadcast_vector(data.cell_offsets, root, comm);
  broadcast_vector(data.cell_nodes, root, comm);
  data.cell_lines.clear();
  std::int64_t n_markers = static_cast<std::int64_t>(data.markers.size());
  CAMBER_CHECK_MPI(MPI_Bcast(&n_markers, 1, MPI_INT64_T, root, comm));
  data.markers.resize(static_cast<size_t>(n_markers));
  for (auto& m : data.markers) {
    broadcast_string(m.name, root, comm);
    broadcast_vector(m.offsets, root, comm);
    broadcast_vector(m.nodes, root, comm);
    m.lines.clear();
  }
}

}  // namespace camber::mesh
