/// @file
/// What a flow solution shows a designer, from the nondimensional state:
/// cell fields in physical units for ParaView, the pressure coefficient
/// along the walls, and a design gradient's adjoint and surface
/// sensitivity dJ/dn. In 2-D and 3-D alike; collective over the mesh's
/// communicator where stated.
///
/// @code
///   std::vector<io::Field> f = aero::flow_fields(disc, U);   // Density [kg/m^3], ...
///   io::write_vtk(..., dm.owned_piece(f), comm);
///   std::vector<aero::WallPoint> cp = aero::wall_cp(disc, U, conditions);  // rank 0
///   // after flow.vjp(...) (a gradient):
///   std::vector<io::Field> g = aero::sensitivity_fields(flow, {"airfoil"}, "cd");
/// @endcode
///
/// dJ/dn: the gradient dJ/dX of the objective with respect to the wall
/// nodes' coordinates, summed over ranks, projected on each wall face's
/// unit normal out of the body and averaged over the face's nodes; a cell
/// with wall faces gets their area-weighted mean (0 elsewhere). It is the
/// change of J per unit displacement of one wall node along the wall's
/// outward normal (per mesh length unit): where it is negative, pushing
/// the wall out there lowers J.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <camber/core/tensor.hpp>
#include <camber/io/vtk_writer.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/solvers/euler/steady_flow.hpp>

namespace camber::solvers::aero {

/// Cell fields of the state U ({n_local, dim + 2}, nondimensional) in
/// physical units (FlowConditions' scales), for the owned cells:
/// "Density [kg/m^3]", "Velocity [m/s]" (3 components; z = 0 in 2-D),
/// "Pressure [Pa]", "Mach", "Cp" and "Entropy deviation s/s_inf - 1".
std::vector<io::Field> flow_fields(const euler::Discretization& disc, const Tensor& U);

/// One wall face: its midpoint (z = 0 in 2-D) and pressure coefficient.
struct WallPoint {
  double x = 0.0, y = 0.0, z = 0.0, cp = 0.0;
};

/// Cp at the wall faces of every slip-wall marker of `conditions` (the
/// reconstructed face pressure at second order), gathered on rank 0
/// (empty on the others): in 2-D ordered around the body (by angle about
/// its centre), in 3-D by x, then y, then z. Collective.
std::vector<WallPoint> wall_cp(const euler::Discretization& disc, const Tensor& U,
                               const std::vector<euler::BoundaryCondition>& conditions);

/// dJ/dn per owned cell (0 away from the walls; see the file comment) of
/// the wall markers `walls`, from this rank's share of dJ/dX at the global
/// node ids `node_rows` (dX_share {node_rows.size(), dim}; the shares of
/// all ranks are summed, a node may be a row of several). Collective.
std::vector<double> surface_sensitivity(const euler::Discretization& disc,
                                        const std::vector<std::string>& walls,
                                        const std::vector<std::int64_t>& node_rows,
                                        const Tensor& dX_share);

/// The first gradient's adjoint ("Adjoint of <objective> (...)", n_vars
/// components per cell) and surface sensitivity ("Surface sensitivity
/// d<objective>/dn [1/m]") of the flow's last converged state; empty if no
/// gradient was taken there. Collective.
std::vector<io::Field> sensitivity_fields(euler::SteadyFlow& flow,
                                          const std::vector<std::string>& walls,
                                          const std::string& objective);

}  // namespace camber::solvers::aero
