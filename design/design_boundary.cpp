#include <camber/design/design_boundary.hpp>

#include <algorithm>
#include <map>
#include <utility>

#include <camber/core/error.hpp>
#include <camber/design/airfoil_wall.hpp>
#include <camber/parallel/collectives.hpp>

namespace camber::design {

namespace {

// This mesh's boundary faces as flat lists: wall faces (node pairs) and the
// nodes of every other boundary face, each node with its coordinates.
// `global` maps a node of `mesh` to its global id; faces [0, n_faces) are
// looked at.
struct BoundaryPart {
  std::vector<std::int64_t> wall_faces;  // pairs
  std::vector<std::int64_t> nodes;       // global ids of every node listed
  std::vector<double> coords;            // their coordinates (2 each)
  std::vector<std::int64_t> other;       // other boundary nodes' ids
};

template <class Global>
BoundaryPart boundary_part(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers,
                           index_t n_faces, const Global& global) {
  CAMBER_INPUT_REQUIRE(mesh.dim() == 2,
                       "DesignBoundary: needs a 2-D mesh, got dim " << mesh.dim());
  CAMBER_INPUT_REQUIRE(!wall_markers.empty(), "DesignBoundary: no wall markers given");
  const auto fo = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_offsets());
  const auto fn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_nodes());
  const auto fr = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_right());
  const auto xy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.coords());
  std::vector<char> on_wall(static_cast<size_t>(mesh.n_faces()), 0);
  BoundaryPart part;
  const auto add_node = [&](index_t node) {
    part.nodes.push_back(global(node));
    part.coords.push_back(xy(node, 0));
    part.coords.push_back(xy(node, 1));
  };
  for (const std::string& name : wall_markers) {
    const int m = detail::require_marker(mesh, name, "DesignBoundary");
    const auto faces =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.markers()[m].faces);
    for (std::size_t i = 0; i < faces.extent(0); ++i) {
      const index_t f = faces(i);
      if (f >= n_faces || on_wall[static_cast<size_t>(f)]) continue;
      on_wall[static_cast<size_t>(f)] = 1;
      const index_t a = fn(fo(f)), b = fn(fo(f) + 1);
      part.wall_faces.push_back(std::min(global(a), global(b)));
      part.wall_faces.push_back(std::max(global(a), global(b)));
      add_node(a);
      add_node(b);
    }
  }
  for (index_t f = 0; f < n_faces; ++f) {
    if (fr(f) >= 0 || on_wall[static_cast<size_t>(f)]) continue;
    for (index_t q = fo(f); q < fo(f + 1); ++q) {
      part.other.push_back(global(fn(q)));
      add_node(fn(q));
    }
  }
  return part;
}

DesignBoundary assemble(std::int64_t n_mesh_nodes, const std::vector<std::string>& wall_markers,
                        const std::vector<std::int64_t>& wall_faces,
                        const std::vector<std::int64_t>& nodes,
                        const std::vector<double>& coords,
                        const std::vector<std::int64_t>& other) {
  DesignBoundary b;
  b.n_mesh_nodes = n_mesh_nodes;
  b.wall_markers = wall_markers;
  for (size_t k = 0; k + 1 < wall_faces.size(); k += 2)
    b.wall_faces.push_back({wall_faces[k], wall_faces[k + 1]});
  std::sort(b.wall_faces.begin(), b.wall_faces.end());
  b.wall_faces.erase(std::unique(b.wall_faces.begin(), b.wall_faces.end()), b.wall_faces.end());
  CAMBER_INPUT_REQUIRE(!b.wall_faces.empty(), "DesignBoundary: the wall markers have no faces");
  std::map<std::int64_t, std::array<double, 2>> at;
  for (size_t k = 0; k < nodes.size(); ++k) at[nodes[k]] = {coords[2 * k], coords[2 * k + 1]};
  for (const auto& f : b.wall_faces) {
    b.wall_nodes.push_back(f[0]);
    b.wall_nodes.push_back(f[1]);
  }
  std::sort(b.wall_nodes.begin(), b.wall_nodes.end());
  b.wall_nodes.erase(std::unique(b.wall_nodes.begin(), b.wall_nodes.end()), b.wall_nodes.end());
  for (std::int64_t node : other)
    if (!std::binary_search(b.wall_nodes.begin(), b.wall_nodes.end(), node)) b.anchors.push_back(node);
  std::sort(b.anchors.begin(), b.anchors.end());
  b.anchors.erase(std::unique(b.anchors.begin(), b.anchors.end()), b.anchors.end());
  for (std::int64_t node : b.wall_nodes) {
    b.wall_coords.push_back(at.at(node)[0]);
    b.wall_coords.push_back(at.at(node)[1]);
  }
  for (std::int64_t node : b.anchors) {
    b.anchor_coords.push_back(at.at(node)[0]);
    b.anchor_coords.push_back(at.at(node)[1]);
  }
  return b;
}

std::int64_t index_in(const std::vector<std::int64_t>& sorted, std::int64_t node) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), node);
  return it != sorted.end() && *it == node ? static_cast<std::int64_t>(it - sorted.begin()) : -1;
}

}  // namespace

std::int64_t DesignBoundary::wall_index(std::int64_t node) const {
  return index_in(wall_nodes, node);
}

std::int64_t DesignBoundary::anchor_index(std::int64_t node) const {
  return index_in(anchors, node);
}

DesignBoundary design_boundary(const mesh::Mesh& mesh,
                               const std::vector<std::string>& wall_markers) {
  const BoundaryPart part = boundary_part(mesh, wall_markers, mesh.n_faces(),
                                          [](index_t node) { return static_cast<std::int64_t>(node); });
  return assemble(mesh.n_nodes(), wall_markers, part.wall_faces, part.nodes, part.coords,
                  part.other);
}

DesignBoundary design_boundary(const mesh::DistributedMesh& dm,
                               const std::vector<std::string>& wall_markers) {
  // Every rank has every marker's name, so a bad marker fails on all alike.
  const std::vector<std::int64_t>& ids = dm.node_global_ids();
  const BoundaryPart part =
      boundary_part(dm.local(), wall_markers, dm.n_owned_faces(),
                    [&ids](index_t node) { return ids[static_cast<size_t>(node)]; });
  const MPI_Comm comm = dm.comm();
  const std::vector<std::int64_t> faces = par::all_gather(part.wall_faces, comm);
  // A wall without faces on any rank: the same verdict everywhere.
  CAMBER_INPUT_REQUIRE(!faces.empty(), "DesignBoundary: the wall markers have no faces");
  return assemble(dm.n_global_nodes(), wall_markers, faces, par::all_gather(part.nodes, comm),
                  par::all_gather(part.coords, comm), par::all_gather(part.other, comm));
}

}  // namespace camber::design
