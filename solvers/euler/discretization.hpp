/// @file
/// camber::solvers::euler::Discretization — the steady compressible Euler
/// residual on an unstructured 2-D or 3-D mesh split over MPI ranks.
///
/// Cell-centred finite volumes: the residual of cell i is the net flux out
/// of it,
///
///   R_i(U) = sum over faces f of i of  s_if F(U_L(f), U_R(f), n_f),
///
/// with n_f the area-weighted normal from the left cell to the right one and
/// s_if = +1 when i is the left cell, -1 when it is the right one. First
/// order (SpatialOptions::order = 1, the default): U_L, U_R are the two
/// cells' states. Second order (order = 2): they are reconstructed at the
/// face midpoint x_f from the primitive variables W = (rho, u, v[, w], p),
///
///   W_L = W_i + phi_i grad W_i . (x_f - x_i),
///
/// with least-squares gradients and Venkatakrishnan's limiter phi (per cell
/// and variable; solvers/euler/reconstruction.hpp says how, and how boundary
/// faces and non-positive face states are treated). Interior faces use the
/// numerical flux (Roe or HLLC, solvers/euler/flux.hpp); boundary faces use
/// the condition of their marker with the (reconstructed) interior state:
///
///   slip_wall, symmetry   pressure only, (0, p n, 0)
///   far_field             numerical flux against the characteristic state
///                         from Riemann invariants (solvers/euler/boundary.hpp)
///   supersonic_inflow     the free stream's physical flux
///   supersonic_outflow    the interior's physical flux
///
/// Nondimensional internally: free-stream density 1, speed of sound 1,
/// pressure 1/gamma, speed = Mach; lengths as the mesh gives them. A
/// FlowConditions object converts to physical units for output.
///
///   mesh::DistributedMesh dm = mesh::DistributedMesh::read("naca0012.su2", comm);
///   euler::FlowConditions flow;  flow.mach = 0.5;  flow.alpha_deg = 1.25;
///   euler::Discretization disc(dm, flow, {{"airfoil", euler::BoundaryKind::slip_wall},
///                                         {"farfield", euler::BoundaryKind::far_field}});
///   Tensor U = disc.free_stream_field();          // {n_local_cells, 4}
///   Tensor R = disc.residual(U);                  // halo exchange inside
///   euler::Forces f = disc.forces(U);             // CL, CD, CM (all ranks)
///
/// Which Jacobian to take, and where:
///
///   the matrix-free product (dR/dU) V   residual_and_tangent() below
///   the assembled exact dR/dU           ExactJacobian (solvers/euler/exact_jacobian.hpp)
///   sensitivities of CL, CD, CM         Adjoint (solvers/euler/adjoint.hpp) for the
///                                       flow's parameters, ShapeDerivative
///                                       (solvers/euler/shape_derivative.hpp) for the
///                                       node coordinates
///
/// The face kernels, gradients, limiter and reconstruction are templates on
/// the scalar, so residual_and_tangent() gives R and the exact directional
/// derivative (dR/dU) V with one Dual<double, 1> evaluation, at either order
/// (with a frozen limiter: the derivative with phi fixed). At the kinks of
/// |.|, min and max in the fluxes and the limiter the conventions of
/// autodiff/dual.hpp apply. The building blocks those classes assemble from
/// (first-order face blocks, colouring columns, the stencil assembly) are
/// private; the library's assemblers reach them through
/// solvers/euler/detail/discretization_kernels.hpp.
///
///   euler::SpatialOptions second;  second.order = 2;   // Wang's limiter, the default
///   euler::Discretization disc2(dm, flow, conditions, euler::FluxScheme::roe, second);
///   disc2.residual_and_tangent(U, V, R, dR);           // dR = (dR/dU) V, exact
///   disc2.freeze_limiter(U);                           // phi(U) kept from now on
///
/// Ownership and limits: holds copies of the local mesh's Views, its
/// geometry and a face/cell layout; the DistributedMesh must outlive it (its
/// halo exchange is used). Geometry is fixed (double) here: derivatives
/// with respect to node coordinates are ShapeDerivative's
/// (solvers/euler/shape_derivative.hpp). The
/// frozen limiter is state of this object (freeze_limiter, set_limiter); the
/// rest is fixed at construction. Every boundary face of an owned cell must
/// carry a marker with a condition (a bad_input error names the marker
/// otherwise).
///
/// 3-D meshes (5 variables per cell; shapes {n_local, 5}): the residual at
/// either order with every limiter and boundary condition, its tangent,
/// the gradients and limiter (live, frozen or set), the forces, and every
/// Jacobian above, so the adjoint and the shape derivative too. The
/// far-field vortex is 2-D only (a bad_input error).
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <camber/core/enum_names.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/solvers/euler/flow_conditions.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/solvers/euler/reconstruction.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::euler {

namespace detail {
class DiscretizationKernels;
class ResidualTranspose;
struct ShapeTranspose;
struct StencilTarget;
}

// The steady Euler residual on a distributed mesh and what is evaluated
// beside it (forces, gradients, limiter), grouped below by use. Its
// Jacobian: the assembled exact dR/dU is ExactJacobian's
// (solvers/euler/exact_jacobian.hpp), the matrix-free product (dR/dU) V is
// residual_and_tangent(), and the adjoint and the shape derivative are
// Adjoint's and ShapeDerivative's (adjoint.hpp, shape_derivative.hpp).
class Discretization {
 public:
  // ---- Construction and copies

  // spatial.order == 2 makes the residual second order (see the header
  // comment); the default is the first-order scheme.
  Discretization(mesh::DistributedMesh& dm, const FlowConditions& flow,
                 const std::vector<BoundaryCondition>& conditions,
                 FluxScheme scheme = FluxScheme::roe, const SpatialOptions& spatial = {});
  // This discretization at first order: a copy sharing the mesh, geometry
  // and layout (Views), for first-order start-up steps and preconditioners.
  Discretization first_order() const;
  // This discretization at other free-stream conditions (Mach number, angle
  // of attack, gas, reference quantities): a copy sharing the mesh,
  // geometry, layout and frozen limiter. For sensitivities to them.
  Discretization with_flow(const FlowConditions& flow) const;
  const FlowConditions& flow() const noexcept { return flow_; }
  const IdealGas& gas() const noexcept { return gas_; }
  FluxScheme scheme() const noexcept { return scheme_; }
  const SpatialOptions& spatial() const noexcept { return spatial_; }

  // ---- State and residual

  // The free stream in every local cell, shape {n_local, n_vars()}.
  Tensor free_stream_field() const;

  // FlowConditions::far_field_vortex: the far-field faces' states from a
  // point vortex of lift coefficient cl (no effect without the option).
  // The states live in a View shared by this Discretization's copies
  // (first_order(), a frozen-limiter copy; not with_flow()), so one call
  // sets the far field of all of them; const for that reason: the
  // circulation is part of the state being solved for, not of the scheme.
  // The residual then depends on cl as a parameter: dR/dU, the exact
  // Jacobians and the adjoint hold it fixed.
  void set_far_field_lift(double cl) const;
  double far_field_lift() const noexcept { return *far_field_lift_; }

  // R(U), shape {n_local, n_vars()}: owned rows hold the residual, ghost
  // rows 0.
  // Fills U's ghost rows first (collective).
  Tensor residual(Tensor& U) const;
  // R(U) and (dR/dU) V in one Dual evaluation; fills the ghost rows of U
  // and V (collective). The matrix-free Jacobian product; the assembled
  // matrix is ExactJacobian's.
  void residual_and_tangent(Tensor& U, Tensor& V, Tensor& R, Tensor& dR) const;

  // Sum over the faces of each owned cell of (|u.n^| + c) |n|: the
  // convective spectral radius, for local time steps dt = CFL V / that.
  // Shape {n_owned}. U's ghost rows must be current.
  Tensor spectral_radius(const Tensor& U) const;

  // ---- Gradients and limiter

  // Least-squares gradients of the primitive variables (rho, u, v[, w], p),
  // unlimited, shape {n_local, n_vars(), dim()}: [c, k, d] = dW_k/dx_d,
  // ghost rows from their owners. Fills U's ghost rows (collective). Any
  // order.
  Tensor primitive_gradients(Tensor& U) const;

  // The limiter phi in use at U, shape {n_local, n_vars()} (per cell and primitive
  // variable, ghost rows from their owners): the frozen one if the limiter
  // is frozen, else Venkatakrishnan's phi(U) (1 for LimiterKind::none).
  // Fills U's ghost rows (collective). Any order.
  Tensor limiter(Tensor& U) const;
  // Freezes the limiter at phi(U): from now on the residual, its tangent and
  // the forces use this phi (spatial().freeze_limiter becomes true). Fills
  // U's ghost rows (collective).
  void freeze_limiter(Tensor& U);
  // Freezes the limiter at a given phi, shape {n_owned, n_vars()} or
  // {n_local, n_vars()}
  // (ghost rows are refilled from their owners; collective).
  void set_limiter(const Tensor& phi);
  // Back to phi(U) in every evaluation.
  void unfreeze_limiter();
  bool limiter_frozen() const noexcept { return spatial_.freeze_limiter; }

  // ---- Forces and surface output

  // CL, CD, CM from the wall pressure, summed over ranks (collective). First
  // order: the wall cell's pressure; second order: the reconstructed
  // pressure at the wall face's midpoint (same limiter and positivity
  // fallback as the residual; U's ghost rows are read from a halo-filled
  // copy, U itself is not touched).
  Forces forces(const Tensor& U) const;
  // Weights w such that (CL, CD, CM) = w . G summed over the wall, G the
  // pitch-plane load (f_x, f_y, m_z) in 2-D, (f_x, f_z, m_y) in 3-D: row 0
  // CL, row 1 CD, row 2 CM.
  std::array<std::array<double, 3>, 3> force_coefficient_weights() const;
  // The pressure at every boundary face as forces() takes it at the walls
  // (the boundary cell's at first order, reconstructed at the face midpoint
  // at second): shape {n_faces}, 0 on interior faces. What a surface Cp
  // plot should show. Collective (a halo-filled copy of U).
  Tensor wall_face_pressures(const Tensor& U) const;

  // ---- Mesh layout

  // The mesh's dimension (2 or 3) and the conserved variables per cell,
  // dim + 2: (rho, rho u, rho v[, rho w], rho E).
  int dim() const noexcept { return dim_; }
  int n_vars() const noexcept { return dim_ + 2; }
  // What 3-D meshes do not have yet (see the file comment): an error naming
  // `what` when the mesh is 3-D.
  void require_2d(const char* what) const;
  mesh::DistributedMesh& mesh() const noexcept { return *dm_; }
  const mesh::Geometry& geometry() const noexcept { return geometry_; }
  index_t n_owned() const noexcept { return n_owned_; }
  index_t n_local() const noexcept { return n_local_; }
  // The reconstruction (its stencils: neighbour lists of the owned cells).
  const Reconstruction& reconstruction() const noexcept { return reconstruction_; }
  // Faces [0, n_owned_faces) of the local mesh: left/right cell (right -1
  // on the boundary) and, for boundary faces, the BoundaryKind as int.
  const Kokkos::View<index_t*>& face_left() const noexcept { return face_left_; }
  const Kokkos::View<index_t*>& face_right() const noexcept { return face_right_; }
  const Kokkos::View<int*>& face_kind() const noexcept { return face_kind_; }
  index_t n_faces() const noexcept { return n_faces_; }

 private:
  // The Jacobian building blocks of the library's assemblers (Newton
  // matrix, ExactJacobian, Adjoint, ShapeDerivative), documented in and
  // reached through detail::DiscretizationKernels
  // (solvers/euler/detail/discretization_kernels.hpp; the stencil assembly
  // is defined in stencil_jacobian.cpp).
  friend class detail::DiscretizationKernels;
  friend class detail::ResidualTranspose;  // the transposed Jacobian (residual_transpose.cpp)
  friend struct detail::ShapeTranspose;    // the reverse shape derivative (shape_transpose.cpp)
  Tensor face_jacobians(const Tensor& U) const;
  void residual_block_columns(Tensor& U, const Kokkos::View<const int*>& seeded, Tensor& R,
                              Tensor& D) const;
  Tensor force_block_columns(const Tensor& U, const Kokkos::View<const int*>& seeded) const;
  void shape_block_columns(Tensor& U, const Kokkos::View<const int*>& seeded_nodes, Tensor& DR,
                           Tensor& DF) const;
  // (dR/dX) V ({n_local, n_vars}, owned rows) and (dG/dX) V (summed over
  // ranks) at fixed U for a displacement V of the local nodes ({n_local
  // nodes, dim}; a node on several ranks moved alike): one Dual<double, 1>
  // sweep of the geometry, the stencil, the residual and the wall forces
  // (collective).
  void shape_directional(Tensor& U, const Tensor& V, Tensor& DR, std::array<double, 3>& dG) const;
  // visit(row, n, cols, blocks) of the stencil assembly's rows of ghost
  // cells.
  using BlockVisitor =
      std::function<void(index_t row, index_t n, const index_t* cols, const double* blocks)>;

 public:
  // Kernel hosts: the member functions from here to the data members hold
  // Kokkos lambdas, which CUDA's extended lambdas refuse inside private or
  // protected member functions. They are internals all the same, reached
  // through the public members above and detail::DiscretizationKernels.
  /// @cond CAMBER_INTERNAL
  // Face fluxes of the first-order scheme (U: conserved, ghost rows
  // current), with face normals in G (double, or Dual for node-coordinate
  // derivatives).
  template <class T, class G>
  void face_fluxes(const Kokkos::View<G**>& normal, const Field<T>& U, const Field<T>& F) const;
  // W = (rho, u, v[, w], p) of U in every local cell.
  template <class T>
  void primitive_field(const Field<T>& U, const Field<T>& W) const;
  // W = primitive(U) in every local cell, and the limited gradients L
  // ({n_local, n_vars dim}, L(c, dim k + d) = phi_k dW_k/dx_d; ghost rows by
  // a halo exchange of T's storage), with the stencil geometry given. G
  // ({n_owned, n_vars dim}, unlimited) and phi ({n_owned, n_vars}) are kept
  // where given. Given
  // `cells` (owned, possibly none), G, phi and L are computed in those rows only and no
  // halo exchange is made (every rank must pass cells or none alike).
  template <class T, class Gs>
  void limited_gradients(const StencilGeometry<Gs>& stencil, const Field<T>& U,
                         const Field<T>& W, const Field<T>& L, Field<T> G = {},
                         Field<T> phi = {}, const Kokkos::View<const index_t*>* cells = nullptr) const;
  // Face fluxes of the second-order scheme from W and L.
  template <class T, class G>
  void reconstructed_fluxes(const Kokkos::View<G**>& normal, const Kokkos::View<G**>& to_center,
                            const Field<T>& W, const Field<T>& L, const Field<T>& F) const;
  // The order's face fluxes from U (ghost rows current), with the geometry
  // given, and with this discretization's own.
  template <class T, class G>
  void fluxes(const Kokkos::View<G**>& normal, const Kokkos::View<G**>& to_center,
              const StencilGeometry<G>& stencil, const Field<T>& U, const Field<T>& F) const;
  template <class T>
  void fluxes(const Field<T>& U, const Field<T>& F) const;
  // The derivative parts of the wall force and moment of every owned cell
  // ({n_owned, 3, N}) from Dual states (conserved U; W, L at second order)
  // and the wall faces' geometry in G.
  template <int Dim, int N, class G>
  Tensor wall_force_derivatives(const Field<ad::Dual<double, N>>& U,
                                const Field<ad::Dual<double, N>>& W,
                                const Field<ad::Dual<double, N>>& L, const Kokkos::View<G**>& normal,
                                const Kokkos::View<G**>& center,
                                const Kokkos::View<G**>& to_center) const;
  template <class T>
  void gather_residual(const Field<T>& F, const Field<T>& R) const;
  // residual_block_columns, force_block_columns and shape_block_columns
  // in Dim dimensions.
  template <int Dim>
  void residual_block_columns_in(Tensor& U, const Kokkos::View<const int*>& seeded, Tensor& R,
                                 Tensor& D) const;
  template <int Dim>
  Tensor force_block_columns_in(const Tensor& U, const Kokkos::View<const int*>& seeded) const;
  template <int Dim>
  void shape_block_columns_in(Tensor& U, const Kokkos::View<const int*>& seeded_nodes,
                              Tensor& DR, Tensor& DF) const;
  template <int Dim>
  void shape_directional_in(Tensor& U, const Tensor& V, Tensor& DR, std::array<double, 3>& dG) const;
  // The residual (rd, every owned row) and the wall forces' derivative parts
  // (DF, as wall_force_derivatives) with the local node coordinates x in
  // Dual numbers (their seeds chosen by the caller); fills U's ghost rows.
  template <int Dim, int N>
  void shape_sweep_in(Tensor& U, const Kokkos::View<ad::Dual<double, N>**>& x,
                      Field<ad::Dual<double, N>>& rd, Tensor& DF) const;
  // The stencil assembly in Dim dimensions (stencil_jacobian.cpp).
  template <int Dim>
  void stencil_blocks(Tensor& U, const detail::StencilTarget& target,
                      const BlockVisitor& ghost_rows) const;
  // forces() in Dim dimensions, with W and L as limited_gradients gives
  // them at second order (empty at first).
  template <int Dim>
  Forces wall_forces(const Field<double>& u, const Field<double>& W, const Field<double>& L) const;
  /// @endcond

 private:
  mesh::DistributedMesh* dm_;
  FlowConditions flow_;
  IdealGas gas_;
  FluxScheme scheme_;
  SpatialOptions spatial_;
  int dim_ = 2;
  index_t n_owned_ = 0, n_local_ = 0, n_faces_ = 0;
  mesh::Geometry geometry_;
  Kokkos::View<index_t*> face_left_, face_right_;
  Kokkos::View<int*> face_kind_;  // -1 interior
  // The state outside each boundary face ({n_faces, n_vars}): the free stream,
  // or on far-field faces with FlowConditions::far_field_vortex the vortex-
  // corrected one for the lift *far_field_lift_ (both shared by copies).
  Kokkos::View<double**> outer_state_;
  std::shared_ptr<double> far_field_lift_;
  void fill_outer_states(double cl) const;
  // Owned cell i's faces: cell_face_(cell_face_offset_(i) ..), with the sign
  // +1 (i is the face's left cell) or -1 in cell_face_sign_.
  Kokkos::View<index_t*> cell_face_offset_, cell_face_;
  Kokkos::View<double*> cell_face_sign_;
  // Wall faces (slip_wall markers) among [0, n_faces): for forces.
  Kokkos::View<index_t*> wall_faces_;
  // The owned cells left of them, each once: the rows a wall force's
  // derivative reconstructs (force_block_columns).
  Kokkos::View<const index_t*> wall_cells_;
  // Order 2: x_f - x_left, x_f - x_right of every face ({n_faces, 2 dim};
  // the right cell's entries 0 on the boundary), the gradient/limiter
  // stencil, and the frozen limiter ({n_local, n_vars}, empty until
  // frozen).
  Kokkos::View<double**> face_to_center_;
  Reconstruction reconstruction_;
  Tensor frozen_phi_;
};

}  // namespace camber::solvers::euler
