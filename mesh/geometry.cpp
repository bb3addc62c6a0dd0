#include <camber/mesh/geometry.hpp>

#include <camber/core/error.hpp>

namespace camber::mesh {

namespace detail {

void require_2d(const Mesh& mesh, const char* what) {
  CAMBER_INPUT_REQUIRE(mesh.dim() == 2, what << ": only 2-D meshes are supported yet; this mesh is "
                                             << mesh.dim() << "-D");
}

void require_2d_or_3d(const Mesh& mesh, const char* what) {
  CAMBER_INPUT_REQUIRE(mesh.dim() == 2 || mesh.dim() == 3,
                       what << ": meshes are 2-D or 3-D; this one is " << mesh.dim() << "-D");
}

Kokkos::View<index_t*> wall_faces(const Mesh& mesh, const std::vector<std::string>& markers) {
  CAMBER_INPUT_REQUIRE(!markers.empty(), "wall_distance: no wall markers given");
  std::vector<index_t> faces;
  for (const std::string& name : markers) {
    const int m = mesh.marker_index(name);
    if (m < 0) {
      std::string known;
      for (const Marker& mk : mesh.markers()) known += (known.empty() ? "'" : ", '") + mk.name + "'";
      throw_bad_input("wall_distance: the mesh has no marker '" + name + "'; its markers are " +
                      (known.empty() ? std::string("none") : known));
    }
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.markers()[m].faces);
    for (std::size_t i = 0; i < h.extent(0); ++i) faces.push_back(h(i));
  }
  CAMBER_INPUT_REQUIRE(!faces.empty(), "wall_distance: the wall markers have no faces");
  Kokkos::View<index_t*> v("camber::mesh::wall_faces", faces.size());
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t i = 0; i < faces.size(); ++i) h(i) = faces[i];
  Kokkos::deep_copy(v, h);
  return v;
}

}  // namespace detail

Geometry compute_geometry(const Mesh& mesh) {
  return compute_geometry<double>(mesh, mesh.coords());
}

double total_volume(const Mesh& mesh) {
  const Geometry g = compute_geometry(mesh);
  const auto volume = g.cell_volume;
  double total = 0.0;
  Kokkos::parallel_reduce(
      "camber::mesh::total_volume", Kokkos::RangePolicy<>(0, mesh.n_cells()),
      KOKKOS_LAMBDA(const index_t c, double& sum) { sum += volume(c); }, total);
  return total;
}

Kokkos::View<double*> wall_distance(const Mesh& mesh, const Geometry& geometry,
                                    const std::vector<std::string>& wall_markers) {
  return wall_distance<double>(mesh, mesh.coords(), geometry.cell_centroid, wall_markers);
}

// Compile-check the templates for the types the derivative tests and the
// flow solver use.
template GeometryFields<double> compute_geometry<double>(const Mesh&,
                                                         const Kokkos::View<double**>&);
template GeometryFields<ad::Dual<double, 2>> compute_geometry<ad::Dual<double, 2>>(
    const Mesh&, const Kokkos::View<ad::Dual<double, 2>**>&);
template Kokkos::View<ad::Dual<double, 2>*> wall_distance<ad::Dual<double, 2>>(
    const Mesh&, const Kokkos::View<ad::Dual<double, 2>**>&,
    const Kokkos::View<ad::Dual<double, 2>**>&, const std::vector<std::string>&);

}  // namespace camber::mesh
