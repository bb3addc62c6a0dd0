/// @file
/// Camber — umbrella header. Includes the public headers of every module
/// this installation was built with.
///
/// @code
///   #include <camber.hpp>
///   camber::Runtime runtime(argc, argv);
/// @endcode
///
/// Module headers can also be included one by one (<camber/core/tensor.hpp>,
/// <camber/mesh/mesh.hpp>, ...).
#pragma once

#include <camber/core/allocator.hpp>
#include <camber/core/atomic_file.hpp>
#include <camber/core/config.hpp>
#include <camber/core/enum_names.hpp>
#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>
#include <camber/core/log.hpp>
#include <camber/core/progress.hpp>
#include <camber/core/runtime.hpp>
#include <camber/core/tensor.hpp>
#include <camber/core/timer.hpp>
#include <camber/core/version.hpp>
#include <camber/trust/signature.hpp>

#include <camber/parallel/cell_distribution.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/parallel/communicator.hpp>
#include <camber/parallel/halo_exchange.hpp>
#include <camber/parallel/partition.hpp>

#include <camber/autodiff/distributed_ops.hpp>
#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/functional.hpp>
#include <camber/autodiff/fusion.hpp>
#include <camber/autodiff/gradcheck.hpp>
#include <camber/autodiff/graph.hpp>
#include <camber/autodiff/jacobian.hpp>
#include <camber/autodiff/ops.hpp>
#include <camber/autodiff/variable.hpp>
#include <camber/shard/collectives.hpp>
#include <camber/shard/device_mesh.hpp>
#include <camber/shard/planner.hpp>
#include <camber/shard/sharded_var.hpp>

#include <camber/nn/data_parallel.hpp>
#include <camber/nn/init.hpp>
#include <camber/nn/layers.hpp>
#include <camber/nn/lbfgs.hpp>
#include <camber/nn/loss.hpp>
#include <camber/nn/module.hpp>
#include <camber/nn/normalization.hpp>
#include <camber/nn/optim.hpp>
#include <camber/nn/quantize.hpp>
#include <camber/nn/sampling.hpp>
#include <camber/nn/schedule.hpp>
#include <camber/nn/surrogate.hpp>
#include <camber/nn/ensemble.hpp>
#include <camber/nn/tensor_parallel.hpp>
#include <camber/nn/trainer.hpp>

#include <camber/optimization/history.hpp>
#include <camber/optimization/optimizer.hpp>
#include <camber/optimization/trust_region.hpp>

#include <camber/mesh/cell_faces.hpp>
#include <camber/mesh/cgns_reader.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/airfoil_grid.hpp>
#if CAMBER_WITH_DECK
#include <camber/mesh/deck_keys.hpp>
#endif
#include <camber/mesh/karman_trefftz_ogrid.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/mesh/gmsh_reader.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/mesh/mesh_chunk.hpp>
#include <camber/mesh/mesh_source.hpp>
#include <camber/mesh/quality.hpp>
#include <camber/mesh/reorder.hpp>
#include <camber/mesh/read_mesh.hpp>
#include <camber/mesh/su2_reader.hpp>
#include <camber/mesh/su2_writer.hpp>

#include <camber/solvers/linear/block_sparse_matrix.hpp>
#include <camber/solvers/linear/gmres.hpp>
#include <camber/solvers/linear/linear_operator.hpp>
#include <camber/solvers/linear/partitioned_ilu.hpp>

#include <camber/design/airfoil_section.hpp>
#include <camber/design/airfoil_wall.hpp>
#include <camber/design/cst.hpp>
#include <camber/design/design_boundary.hpp>
#include <camber/design/ffd.hpp>
#include <camber/design/ffd_volume.hpp>
#include <camber/design/hicks_henne.hpp>
#include <camber/design/linear_map.hpp>
#include <camber/design/mesh_deformation.hpp>
#include <camber/design/parametrization.hpp>
#include <camber/design/wing_thickness.hpp>
#include <camber/design/wing_twist.hpp>

#if CAMBER_WITH_DECK
#include <camber/deck/deck.hpp>
#include <camber/deck/keys.hpp>
#include <camber/deck/reference.hpp>
#include <camber/deck/schema.hpp>
#endif
#if CAMBER_WITH_IO
#include <camber/io/hdf5_file.hpp>
#include <camber/io/gnuplot.hpp>
#include <camber/io/pvd_series.hpp>
#include <camber/io/vtk_session.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/io/xdmf_writer.hpp>
#include <camber/nn/io/checkpoint.hpp>
#include <camber/nn/io/csv_table.hpp>
#include <camber/nn/io/dataset.hpp>
#include <camber/nn/io/evaluation.hpp>
#include <camber/nn/io/inference.hpp>
#include <camber/nn/io/model_file.hpp>
#include <camber/nn/io/prediction_check.hpp>
#include <camber/nn/io/sample_campaign.hpp>
#include <camber/nn/io/surrogate_training.hpp>
#if CAMBER_WITH_DECK
#include <camber/nn/io/deck_keys.hpp>
#endif
#include <camber/nn/registry/entry_text.hpp>
#include <camber/nn/registry/registry.hpp>
#endif
#if CAMBER_WITH_SUNDIALS
#include <camber/solvers/ode/arkode.hpp>
#include <camber/solvers/ode/cvodes.hpp>
#if CAMBER_WITH_DECK
#include <camber/solvers/ode/deck_keys.hpp>
#endif
#include <camber/solvers/ode/distributed_cvodes.hpp>
#include <camber/solvers/ode/idas.hpp>
#include <camber/solvers/ode/models.hpp>
#include <camber/solvers/ode/ode_case.hpp>
#include <camber/solvers/ode/ode_op.hpp>
#endif
#if CAMBER_WITH_ONNX
#include <camber/nn/onnx/onnx_export.hpp>
#endif
#if CAMBER_WITH_SERVE
#include <camber/nn/serve/auth.hpp>
#include <camber/nn/serve/batcher.hpp>
#include <camber/nn/serve/inference_protocol.hpp>
#include <camber/nn/serve/metrics.hpp>
#include <camber/nn/serve/request.hpp>
#include <camber/nn/serve/server.hpp>
#include <camber/nn/serve/reloader.hpp>
#include <camber/nn/serve/served_models.hpp>
#endif
// solvers/heat is built with PETSc and SUNDIALS both (solvers/CMakeLists.txt).
#if CAMBER_WITH_PETSC && CAMBER_WITH_SUNDIALS
#include <camber/solvers/heat/conductivity_inverse.hpp>
#include <camber/solvers/heat/heat_conduction.hpp>
#include <camber/solvers/heat/transient_heat.hpp>
#include <camber/solvers/heat/twin_experiment.hpp>
#if CAMBER_WITH_DECK
#include <camber/solvers/heat/deck_keys.hpp>
#endif
#if CAMBER_WITH_IO
#include <camber/solvers/heat/heat_output.hpp>
#endif
#endif
#if CAMBER_WITH_PETSC
#include <camber/solvers/petsc/block_ilu.hpp>
#include <camber/solvers/petsc/linear_solver.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#include <camber/solvers/petsc/petsc_numbering.hpp>
#include <camber/solvers/petsc/petsc_session.hpp>
#include <camber/solvers/euler/adjoint.hpp>
#include <camber/solvers/euler/exact_jacobian.hpp>
#include <camber/solvers/euler/shape_derivative.hpp>
#include <camber/solvers/euler/steady_flow.hpp>
#if CAMBER_WITH_DECK
#include <camber/solvers/euler/deck_keys.hpp>
#endif
#endif
// solvers/euler without PETSc: the residual, the steady solver's device
// path, the unsteady solver.
#include <camber/solvers/euler/boundary.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/flow_conditions.hpp>
#include <camber/solvers/euler/flux.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/solvers/euler/reconstruction.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/euler/unsteady.hpp>
#if CAMBER_WITH_PETSC && CAMBER_WITH_IO
#include <camber/solvers/aero/airfoil_design.hpp>
#include <camber/solvers/aero/airfoil_sampler.hpp>
#include <camber/solvers/aero/flow_case.hpp>
#include <camber/solvers/aero/design_file.hpp>
#include <camber/solvers/aero/design_outputs.hpp>
#include <camber/solvers/aero/design_record.hpp>
#include <camber/solvers/aero/flow_output.hpp>
#include <camber/solvers/aero/flow_state.hpp>
#include <camber/solvers/aero/shape_design.hpp>
#include <camber/solvers/aero/surrogate_design.hpp>
#include <camber/solvers/aero/surrogate_model.hpp>
#include <camber/solvers/aero/surrogate_optimum.hpp>
#include <camber/solvers/aero/wing_design.hpp>
#include <camber/solvers/aero/wing_sections.hpp>
#if CAMBER_WITH_DECK
#include <camber/solvers/aero/deck_keys.hpp>
#endif
#endif
