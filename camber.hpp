// Camber — umbrella header. Includes the public headers of every module
// this installation was built with.
//
//   #include <camber.hpp>
//   camber::Runtime runtime(argc, argv);
//
// Module headers can also be included one by one ("src/tensor.hpp", ...).
#pragma once

#include "src/config.hpp"
#include "src/error.hpp"
#include "src/log.hpp"
#include "src/progress.hpp"
#include "src/runtime.hpp"
#include "src/tensor.hpp"
#include "src/timer.hpp"
#include "src/version.hpp"

#include "parallel/cell_distribution.hpp"
#include "parallel/collectives.hpp"
#include "parallel/communicator.hpp"
#include "parallel/halo_exchange.hpp"
#include "parallel/partition.hpp"

#include "autodiff/distributed_ops.hpp"
#include "autodiff/dual.hpp"
#include "autodiff/graph.hpp"
#include "autodiff/jacobian.hpp"

#include "mesh/distributed_mesh.hpp"
#include "mesh/generators.hpp"
#include "mesh/geometry.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/mesh.hpp"
#include "mesh/quality.hpp"
#include "mesh/su2_reader.hpp"

#if CAMBER_WITH_DECK
#include "src/deck/deck.hpp"
#include "src/deck/reference.hpp"
#include "src/deck/schema.hpp"
#endif
#if CAMBER_WITH_IO
#include "src/io/hdf5_file.hpp"
#include "src/io/pvd_series.hpp"
#include "src/io/vtk_session.hpp"
#include "src/io/vtk_writer.hpp"
#include "src/io/xdmf_writer.hpp"
#endif
#if CAMBER_WITH_PETSC
#include "solvers/heat_conduction.hpp"
#include "solvers/linear_solver.hpp"
#include "solvers/petsc_error.hpp"
#include "solvers/petsc_session.hpp"
#endif
