/// @file
/// camber::mesh::MeshSource — where a problem's mesh comes from: one of the
/// generated airfoil grids (airfoil_grid.hpp), a generated rectangle
/// (generators.hpp, rectangle()) or a mesh file (.su2, .msh or .cgns,
/// read_mesh.hpp), and the calls that build it whole, as this rank's chunk,
/// or distributed over the ranks.
///
/// @code
///   mesh::MeshSource src;                        // an airfoil_ogrid, NACA 0012
///   src.grid.cells_around = 192;
///   mesh::DistributedMesh dm = mesh::build_distributed_mesh(src, comm);
///
///   src.kind = mesh::MeshSourceKind::file;       // or a file, read in parallel
///   src.file = "wing.su2";
///   dm = mesh::build_distributed_mesh(src, comm);
///
///   src.kind = mesh::MeshSourceKind::rectangle;  // or [0, 2] x [0, 1] in 32 x 16 quads
///   src.rectangle = {32, 16, 2.0, 1.0};
///   dm = mesh::build_distributed_mesh(src, comm);
/// @endcode
///
/// A file is read in parallel, each rank its chunk (mesh_chunk.hpp): no rank
/// holds it whole. A generated mesh is made on every rank, which keeps its
/// chunk and drops the rest before the partition (whose set-up is the
/// memory peak). A deck's mesh section describes a MeshSource through the
/// key tables in deck_keys.hpp (mesh_source_keys(), rectangle_source_keys()).
#pragma once

#include <mpi.h>

#include <array>
#include <functional>
#include <string>

#include <camber/core/enum_names.hpp>
#include <camber/mesh/airfoil_grid.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/mesh/mesh_chunk.hpp>

namespace camber::mesh {

/// generated: an airfoil grid; rectangle: rectangle(); file: a mesh file.
enum class MeshSourceKind { generated, file, rectangle };
inline constexpr std::array<EnumName<MeshSourceKind>, 3> mesh_source_kind_names{
    {{MeshSourceKind::generated, "generated"},
     {MeshSourceKind::file, "file"},
     {MeshSourceKind::rectangle, "rectangle"}}};

/// [0, length_x_m] x [0, length_y_m] in cells_x x cells_y uniform quads,
/// markers left, right, bottom, top (rectangle()).
struct RectangleSettings {
  index_t cells_x = 64;
  index_t cells_y = 64;
  double length_x_m = 1.0;
  double length_y_m = 1.0;
};

struct MeshSource {
  MeshSourceKind kind = MeshSourceKind::generated;
  std::string file;             ///< kind file: a .su2, .msh or .cgns file (by extension)
  AirfoilGridSettings grid;     ///< kind generated: the grid (its kind names the generator)
  RectangleSettings rectangle;  ///< kind rectangle
};

/// Told the member of MeshSource ("file", or "grid." and the member of
/// AirfoilGridSettings, or "rectangle." and the member of
/// RectangleSettings) and what is wrong; must throw.
using MeshSourceReject = std::function<void(const std::string& member, const std::string& what)>;

/// Checks what building needs, the first fault to `reject`: a file source
/// names a file and that file exists (its extension and contents are the
/// readers' to check: bad_input naming the file and line); a generated grid
/// passes validate_airfoil_grid(); a rectangle has at least one cell each
/// way and positive lengths.
void validate_mesh_source(const MeshSource& s, const MeshSourceReject& reject);

/// The mesh `s` describes, the same on every rank of `comm` (collective; a
/// file is read by rank 0 and sent). For tools that need the whole mesh; a
/// solver uses the chunk or the distributed mesh below. Validated first:
/// bad_input naming the member, or `reject` when given, on every rank.
Mesh build_mesh(const MeshSource& s, MPI_Comm comm, const MeshSourceReject& reject = nullptr);

/// This rank's chunk of that mesh (collective): a file's chunk read in
/// parallel; a generated grid made on every rank, which keeps its chunk.
MeshChunk build_mesh_chunk(const MeshSource& s, MPI_Comm comm,
                           const MeshSourceReject& reject = nullptr);

/// That chunk distributed over the ranks of `comm` (a mesh with fewer
/// cells than ranks is bad_input, DistributedMesh's).
DistributedMesh build_distributed_mesh(const MeshSource& s, MPI_Comm comm,
                                       const MeshSourceReject& reject = nullptr);

}  // namespace camber::mesh
