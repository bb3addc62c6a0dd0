// C++ API tour 2: reading a mesh and its geometry (component: mesh).
//
// Shows: mesh::read_mesh (SU2 or Gmsh, by extension), counts and markers,
// mesh::compute_geometry (cell areas, face normals and centres) and
// mesh::total_volume. Checks the area two independent ways: the sum of the
// cell areas, and the divergence theorem over the boundary faces,
// area = sum over boundary faces of x_f n_x,f (exact for straight faces).
//
//   build-tour/tour_mesh ../shared/data/meshes/naca0012_inviscid_su2_quickstart.su2
#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include <camber/core/error.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/core/runtime.hpp>

namespace mesh = camber::mesh;
using camber::index_t;

// Divergence theorem with the field (x, 0): area = sum_f x_f n_x,f over
// boundary faces, whose area-weighted normals point outward.
double boundary_integral(const mesh::Mesh& m, const mesh::Geometry& g) {
  const auto right = m.face_right();
  const auto center = g.face_center;
  const auto normal = g.face_normal;
  double sum = 0.0;
  Kokkos::parallel_reduce(
      "boundary_integral", Kokkos::RangePolicy<>(0, m.n_faces()),
      KOKKOS_LAMBDA(const index_t f, double& s) {
        if (right(f) < 0) s += center(f, 0) * normal(f, 0);
      },
      sum);
  return sum;
}

int main(int argc, char** argv) {
  camber::Runtime runtime(argc, argv);
  return camber::run_guarded(runtime.comm(), [&] {
    CAMBER_INPUT_REQUIRE(argc == 2, "usage: tour_mesh MESH_FILE (.su2, .msh or .cgns)");
    // Collective: rank 0 reads; a bad file is one error on every rank.
    const mesh::Mesh m = mesh::read_mesh(argv[1], runtime.comm());
    const mesh::Geometry g = mesh::compute_geometry(m);
    const double by_faces = boundary_integral(m, g);
    const double area = mesh::total_volume(m);

    if (runtime.rank() == 0) {
      std::printf("%s: %lld nodes, %lld cells, %lld faces (%lld on the boundary)\n",
                  argv[1], static_cast<long long>(m.n_nodes()),
                  static_cast<long long>(m.n_cells()), static_cast<long long>(m.n_faces()),
                  static_cast<long long>(m.n_boundary_faces()));
      for (const mesh::Marker& marker : m.markers())
        std::printf("  marker %-10s %lld faces\n", marker.name.c_str(),
                    static_cast<long long>(marker.n_faces()));
      std::printf("area: sum of cells %.12f, boundary integral %.12f\n", area, by_faces);
    }
    const double rel = std::abs(area - by_faces) / area;
    CAMBER_REQUIRE(rel < 1e-11, "the two areas differ by " << rel << " (relative)");
    return 0;
  });
}
