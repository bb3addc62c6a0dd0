#include <camber/mesh/su2_writer.hpp>

#include <filesystem>
#include <fstream>
#include <iomanip>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>

namespace camber::mesh {

void write_su2(const Mesh& mesh, const std::string& path) {
  const int dim = mesh.dim();
  CAMBER_REQUIRE(dim == 2 || dim == 3, "write_su2: 2-D or 3-D meshes, got a " << dim << "-D mesh");
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.coords());
  const auto types = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_types());
  const auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_offsets());
  const auto nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_nodes());
  const auto face_offsets =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_offsets());
  const auto face_nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.face_nodes());
  write_file_atomically(path, [&](std::ostream& out) {
    out << "% written by camber\nNDIME= " << dim << "\nNELEM= " << mesh.n_cells() << '\n';
    for (index_t c = 0; c < mesh.n_cells(); ++c) {
      out << static_cast<int>(types(c));
      for (index_t a = offsets(c); a < offsets(c + 1); ++a) out << ' ' << nodes(a);
      out << ' ' << c << '\n';
    }
    out << "NPOIN= " << mesh.n_nodes() << '\n' << std::setprecision(17);
    for (index_t n = 0; n < mesh.n_nodes(); ++n) {
      for (int k = 0; k < dim; ++k) out << x(n, k) << ' ';
      out << n << '\n';
    }
    out << "NMARK= " << mesh.markers().size() << '\n';
    for (const Marker& m : mesh.markers()) {
      const auto faces = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.faces);
      out << "MARKER_TAG= " << m.name << "\nMARKER_ELEMS= " << m.n_faces() << '\n';
      for (index_t i = 0; i < m.n_faces(); ++i) {
        const index_t f = faces(i);
        // A line in 2-D; a triangle or a quad (by its node count) in 3-D.
        const index_t n_face = face_offsets(f + 1) - face_offsets(f);
        const CellType type = dim == 2 ? CellType::line : n_face == 3 ? CellType::triangle : CellType::quad;
        out << static_cast<int>(type);
        for (index_t a = face_offsets(f); a < face_offsets(f + 1); ++a) out << ' ' << face_nodes(a);
        out << '\n';
      }
    }
  });
}

}  // namespace camber::mesh
