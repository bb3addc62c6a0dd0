/// @file
/// camber::io::write_vtu / write_pvtu — unstructured grids for ParaView,
/// written by the VTK library as VTK XML files.
///
/// An UnstructuredPiece is this rank's part of a mesh with its fields, in
/// plain vectors (this header does not include VTK): point coordinates, cell
/// connectivity in VTK's layout (cell c uses connectivity[offsets[c-1] ..
/// offsets[c]), with offsets[-1] = 0) and VTK cell type ids, plus cell and
/// point fields whose names carry their units.
///
/// @code
///   camber::io::UnstructuredPiece piece;
///   piece.points_xyz = {0,0,0, 1,0,0, 1,1,0, 0,1,0};
///   piece.connectivity = {0, 1, 2, 3};
///   piece.offsets = {4};
///   piece.cell_types = {camber::io::vtk_cell::quad};
///   piece.cell_data.push_back({"Temperature [K]", 1, {300.0}});
///   camber::io::write_vtu("out/square.vtu", piece);              // one file
///   camber::io::write_pvtu("out/flow_0003", piece, comm);         // every rank
/// @endcode
///
/// write_pvtu writes out/flow_0003.pvtu (on rank 0) and each rank's piece as
/// `out/flow_0003/flow_0003_<rank>.vtu`; ranks with an empty piece write none.
/// Files are binary, appended and zlib-compressed, 64-bit headers and ids;
/// values are Float64. ParaView opens the .pvtu, or a time series of them
/// through camber::io::PvdSeries (src/io/pvd_series.hpp), which most
/// programs want for time steps or optimisation iterations.
///
/// Atomicity: every file is written as "<file>.tmp" and renamed, and the
/// .pvtu summary is written only after every piece is in place, so a crash
/// leaves either the previous complete output or none: never a summary that
/// points at missing or half-written pieces.
///
/// Surfaces (wall faces with Cp, say) go to PolyData files the same way:
/// write_vtp / write_pvtp with a SurfacePiece.
///
/// Keep the base name of a .pvtu distinct from that of any other multi-piece
/// output (.vtm, .pvts) in the same folder: their pieces share the folder
/// named after the base.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace camber::io {

/// VTK cell type ids (vtkCellType.h) of the cells Camber meshes use.
namespace vtk_cell {
inline constexpr std::uint8_t vertex = 1;
inline constexpr std::uint8_t line = 3;
inline constexpr std::uint8_t triangle = 5;
inline constexpr std::uint8_t polygon = 7;
inline constexpr std::uint8_t quad = 9;
inline constexpr std::uint8_t tetra = 10;
inline constexpr std::uint8_t hexahedron = 12;
inline constexpr std::uint8_t wedge = 13;
inline constexpr std::uint8_t pyramid = 14;
}  // namespace vtk_cell

/// A named field: `components` values per point or per cell, interleaved
/// (x0 y0 z0 x1 y1 z1 ...\ for a vector). Put the units in the name, e.g.
/// "Temperature [K]", "Velocity [m/s]", "Cp [-]".
struct Field {
  std::string name;
  int components = 1;
  std::vector<double> values;
};

struct UnstructuredPiece {
  std::vector<double> points_xyz;            ///< 3 per point (z = 0 in 2-D)
  std::vector<std::int64_t> connectivity;    ///< point ids of every cell, in order
  std::vector<std::int64_t> offsets;         ///< end of each cell in connectivity
  std::vector<std::uint8_t> cell_types;      ///< vtk_cell ids, one per cell
  std::vector<Field> cell_data;
  std::vector<Field> point_data;

  std::int64_t n_points() const { return static_cast<std::int64_t>(points_xyz.size() / 3); }
  std::int64_t n_cells() const { return static_cast<std::int64_t>(cell_types.size()); }
};

/// A surface for VTK PolyData (.vtp): the same layout as UnstructuredPiece,
/// restricted to vertex, line, triangle, quad and polygon cells, e.g.\ the
/// wall faces of a 2-D mesh as lines with Cp as a cell field. VTK stores a
/// PolyData's vertices, then lines, then polygons; the writers reorder cells
/// (and cell fields) that way, so a .vtp read back lists cells in that order.
struct SurfacePiece : UnstructuredPiece {};

/// Checks sizes, offsets, point ids, node counts of the fixed-size cell types
/// and field sizes and names; throws camber::Error saying what is wrong.
void validate(const UnstructuredPiece& piece);
/// As above, and every cell is a vertex, line, triangle, quad or polygon.
void validate(const SurfacePiece& surface);

/// Writes one .vtu file from this process alone (any rank may call it).
/// Creates parent directories. Returns the path written.
std::string write_vtu(const std::string& path, const UnstructuredPiece& piece);

/// Collective over `comm`: each rank passes its piece; writes the pieces and
/// the .pvtu summary (see above). `path` with or without ".pvtu". All ranks
/// must pass the same `path` and fields with the same names and components,
/// in the same order (checked). Returns the path of the .pvtu.
std::string write_pvtu(const std::string& path, const UnstructuredPiece& piece,
                       MPI_Comm comm = MPI_COMM_WORLD);

/// The PolyData counterparts of write_vtu and write_pvtu, with the same
/// atomicity and rules: write_vtp writes one .vtp from this process;
/// write_pvtp (collective) writes `<base>.pvtp` on rank 0 and each non-empty
/// piece as `<base>/<base>_<rank>.vtp`. Keep `<base>` distinct from any .pvtu
/// in the same folder (their pieces would share `<base>/`).
std::string write_vtp(const std::string& path, const SurfacePiece& surface);
std::string write_pvtp(const std::string& path, const SurfacePiece& surface,
                       MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace camber::io
