#include <camber/mesh/su2_writer.hpp>

#include <filesystem>
#include <fstream>
#include <iomanip>

#include <algorithm>
#include <limits>
#include <sstream>
#include <vector>

#include <camber/core/atomic_file.hpp>
#include <camber/core/error.hpp>
#include <camber/core/runtime.hpp>
#include <camber/parallel/collectives.hpp>

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

namespace {

// Writes `text` at byte `offset` of `file` (independent I/O, in pieces
// within MPI's int counts).
void write_at(MPI_File file, std::int64_t offset, const std::string& text) {
  constexpr std::size_t piece = std::size_t{1} << 30;
  for (std::size_t at = 0; at < text.size(); at += piece) {
    const int n = static_cast<int>(std::min(piece, text.size() - at));
    CAMBER_CHECK_MPI(MPI_File_write_at(file, static_cast<MPI_Offset>(offset) + static_cast<MPI_Offset>(at),
                                       text.data() + at, n, MPI_CHAR, MPI_STATUS_IGNORE));
  }
}

}  // namespace

void write_su2(const DistributedMesh& dm, const std::string& path) {
  const MPI_Comm comm = dm.comm();
  const Mesh& local = dm.local();
  const int dim = local.dim(), me = dm.rank();
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.coords());
  const auto types = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.cell_types());
  const auto offsets = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.cell_offsets());
  const auto nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.cell_nodes());
  const auto face_offsets =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_offsets());
  const auto face_nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_nodes());
  const std::vector<std::int64_t>& file_id = dm.node_file_ids();

  // The file's sections, this rank's part of each: cells, points, then
  // every marker's faces. Rank 0's parts open with the section headers.
  const std::int64_t n_cells = dm.n_global_cells();
  std::int64_t cell_offset = 0, n_owned = dm.n_owned_cells();
  CAMBER_CHECK_MPI(MPI_Exscan(&n_owned, &cell_offset, 1, MPI_INT64_T, MPI_SUM, comm));
  if (me == 0) cell_offset = 0;
  std::int64_t n_points = dm.n_file_nodes();
  CAMBER_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &n_points, 1, MPI_INT64_T, MPI_SUM, comm));
  std::vector<std::string> parts;
  {
    std::ostringstream out;
    if (me == 0) out << "% written by camber\nNDIME= " << dim << "\nNELEM= " << n_cells << '\n';
    for (index_t c = 0; c < dm.n_owned_cells(); ++c) {
      out << static_cast<int>(types(c));
      for (index_t a = offsets(c); a < offsets(c + 1); ++a)
        out << ' ' << file_id[static_cast<size_t>(nodes(a))];
      out << ' ' << cell_offset + c << '\n';
    }
    parts.push_back(out.str());
  }
  {
    // This rank's file nodes, by file id.
    std::vector<index_t> at(static_cast<size_t>(dm.n_file_nodes()), -1);
    for (index_t n = 0; n < dm.n_local_nodes(); ++n) {
      const std::int64_t row = file_id[static_cast<size_t>(n)] - dm.file_node_offset();
      if (row >= 0 && row < dm.n_file_nodes()) at[static_cast<size_t>(row)] = n;
    }
    std::ostringstream out;
    out << std::setprecision(17);
    if (me == 0) out << "NPOIN= " << n_points << '\n';
    for (size_t row = 0; row < at.size(); ++row) {
      CAMBER_REQUIRE(at[row] >= 0, "write_su2: file node " << dm.file_node_offset() + static_cast<std::int64_t>(row)
                                                           << " is not among this rank's nodes");
      for (int k = 0; k < dim; ++k) out << x(at[row], k) << ' ';
      out << dm.file_node_offset() + static_cast<std::int64_t>(row) << '\n';
    }
    parts.push_back(out.str());
  }
  for (size_t m = 0; m < local.markers().size(); ++m) {
    const Marker& marker = local.markers()[m];
    const std::vector<index_t> faces = dm.owned_marker_faces(marker.name);
    std::int64_t count = static_cast<std::int64_t>(faces.size());
    CAMBER_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &count, 1, MPI_INT64_T, MPI_SUM, comm));
    std::ostringstream out;
    if (me == 0) {
      if (m == 0) out << "NMARK= " << local.markers().size() << '\n';
      out << "MARKER_TAG= " << marker.name << "\nMARKER_ELEMS= " << count << '\n';
    }
    for (index_t f : faces) {
      const index_t n_face = face_offsets(f + 1) - face_offsets(f);
      const CellType type = dim == 2 ? CellType::line : n_face == 3 ? CellType::triangle : CellType::quad;
      out << static_cast<int>(type);
      for (index_t a = face_offsets(f); a < face_offsets(f + 1); ++a)
        out << ' ' << file_id[static_cast<size_t>(face_nodes(a))];
      out << '\n';
    }
    parts.push_back(out.str());
  }
  if (local.markers().empty() && me == 0) parts.push_back("NMARK= 0\n");
  // The same number of sections on every rank (rank 0 may have one more:
  // "NMARK= 0" alone, which no other rank adds to).
  int n_parts = static_cast<int>(parts.size());
  CAMBER_CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &n_parts, 1, MPI_INT, MPI_MAX, comm));
  parts.resize(static_cast<size_t>(n_parts));

  // Each part's offset: the sections one after another, in each the ranks'
  // parts in rank order.
  std::vector<std::int64_t> size(parts.size()), before(parts.size(), 0), total(parts.size());
  for (size_t k = 0; k < parts.size(); ++k) size[k] = static_cast<std::int64_t>(parts[k].size());
  CAMBER_CHECK_MPI(MPI_Exscan(size.data(), before.data(), n_parts, MPI_INT64_T, MPI_SUM, comm));
  if (me == 0) std::fill(before.begin(), before.end(), 0);
  CAMBER_CHECK_MPI(MPI_Allreduce(size.data(), total.data(), n_parts, MPI_INT64_T, MPI_SUM, comm));

  // Every rank writes its part into one temporary file, committed (fsync,
  // rename, directory fsync) by rank 0 once all have closed it.
  const std::string temporary = temporary_path(path).string();
  MPI_File file = MPI_FILE_NULL;
  collective_guard(comm, [&] {
    const int rc = MPI_File_open(comm, temporary.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY,
                                 MPI_INFO_NULL, &file);
    CAMBER_REQUIRE(rc == MPI_SUCCESS, "write_su2: cannot open '" << temporary << "' for writing");
  });
  CAMBER_CHECK_MPI(MPI_File_set_size(file, 0));
  std::int64_t section = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    write_at(file, section + before[k], parts[k]);
    section += total[k];
  }
  CAMBER_CHECK_MPI(MPI_File_close(&file));
  commit_file_collective(temporary, path, comm);
}

}  // namespace camber::mesh
