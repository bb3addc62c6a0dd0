/// @file
/// camber::io::write_xdmf_mesh — a large mesh with its fields as parallel
/// HDF5 datasets plus an XDMF file that tells ParaView how to read them.
///
/// Every rank passes its block of rows of the global mesh (an
/// UnstructuredPiece read with global numbering): points_xyz is this rank's
/// block of the global points, which are stacked in rank order (rank r's
/// first point is global point n_0 + ... + n_{r-1}); the cells are this
/// rank's block of the global cells, also stacked in rank order, and their
/// connectivity holds GLOBAL point ids; cell_data and point_data have one
/// row per cell / point of the block. The HDF5 file (written collectively
/// through H5File, one row block per rank, atomically) holds
///
/// @code
///   /mesh/points          {n_points, 3}
///   /mesh/topology        XDMF "Mixed" topology, flat: per cell its XDMF type
///                         (Triangle 4, Quadrilateral 5, Tetrahedron 6,
///                         Pyramid 7, Wedge 8, Hexahedron 9; Polygon 3,
///                         Polyline 2 and Polyvertex 1 followed by the node
///                         count), then its point ids
///   /cell_data/field_<i>  {n_cells, components} (or {n_cells} for scalars)
///   /point_data/field_<i> likewise per point
/// @endcode
///
/// and rank 0 writes the .xdmf (XDMF 3 XML, atomically) naming each field
/// with its user name ("Volume [m^2]") and the HDF5 file relative to it.
/// All values are 64-bit floats (H5File's only type), so point ids are exact
/// up to 2^53.
///
/// @code
///   camber::io::UnstructuredPiece block = dm.file_block({{"Rank", 1, ranks}});
///   camber::io::write_xdmf_mesh("out/grid.h5", "out/grid.xdmf", block, comm);
/// @endcode
///
/// Most users with a DistributedMesh get the block from
/// mesh::DistributedMesh::file_block(). For small meshes and time series
/// prefer write_pvtu with PvdSeries (src/io/pvd_series.hpp); XDMF + HDF5 is
/// for fields too large for one file per rank, and for post-processing tools
/// that read HDF5 directly. Limitations: one time step per file pair; the
/// XDMF file is written after the HDF5 file is in place, so a crash between
/// the two leaves a new .h5 next to the previous .xdmf.
#pragma once

#include <mpi.h>

#include <string>

#include <camber/io/vtk_writer.hpp>

namespace camber::io {

/// Collective over `comm`; see above. Errors (sizes, point ids out of the
/// global range, ranks disagreeing on fields) are camber::Error on every
/// rank. Returns the path of the .xdmf.
std::string write_xdmf_mesh(const std::string& h5_path, const std::string& xdmf_path,
                            const UnstructuredPiece& block, MPI_Comm comm = MPI_COMM_WORLD);

}  // namespace camber::io
