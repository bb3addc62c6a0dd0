// camber::solvers::euler::Discretization — the steady compressible Euler
// residual on an unstructured 2-D mesh split over MPI ranks.
//
// Cell-centred finite volumes, first order: the state of a cell is constant
// in it, and the residual of cell i is the net flux out of it,
//
//   R_i(U) = sum over faces f of i of  s_if F(U_L(f), U_R(f), n_f),
//
// with n_f the area-weighted normal from the left cell to the right one and
// s_if = +1 when i is the left cell, -1 when it is the right one. Interior
// faces use the numerical flux (Roe or HLLC, solvers/euler/flux.hpp);
// boundary faces use the condition of their marker:
//
//   slip_wall, symmetry   pressure only, (0, p n, 0)
//   far_field             numerical flux against the characteristic state
//                         from Riemann invariants (solvers/euler/boundary.hpp)
//   supersonic_inflow     the free stream's physical flux
//   supersonic_outflow    the interior's physical flux
//
// Nondimensional internally: free-stream density 1, speed of sound 1,
// pressure 1/gamma, speed = Mach; lengths as the mesh gives them. A
// FlowConditions object converts to physical units for output.
//
//   mesh::DistributedMesh dm = mesh::DistributedMesh::read("naca0012.su2", comm);
//   euler::FlowConditions flow;  flow.mach = 0.5;  flow.alpha_deg = 1.25;
//   euler::Discretization disc(dm, flow, {{"airfoil", euler::BoundaryKind::slip_wall},
//                                         {"farfield", euler::BoundaryKind::far_field}});
//   Tensor U = disc.free_stream_field();          // {n_local_cells, 4}
//   Tensor R = disc.residual(U);                  // halo exchange inside
//   euler::Forces f = disc.forces(U);             // CL, CD, CM (all ranks)
//
// Derivatives: the face kernels are templates on the scalar, so
// residual_and_tangent() gives R and the exact directional derivative
// (dR/dU) V with one Dual<double, 1> evaluation, and face_jacobians() the
// exact 4x4 blocks dF/dU_L, dF/dU_R from Dual<double, 8>: assembled, they
// are the exact Jacobian of this first-order residual (what the Newton
// solver of solvers/euler/steady_solver.hpp uses). At the kinks of |.|, min
// and max in the fluxes the conventions of autodiff/dual.hpp apply.
//
// Ownership and limits: holds copies of the local mesh's Views, its
// geometry and a face/cell layout; the DistributedMesh must outlive it (its
// halo exchange is used). Geometry is fixed (double): derivatives with
// respect to node coordinates come with the shape-optimization work. 2-D
// only; every boundary face of an owned cell must carry a marker with a
// condition (a bad_input error names the marker otherwise).
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/tensor.hpp>

namespace camber::solvers::euler {

enum class BoundaryKind : int {
  slip_wall = 0,
  symmetry = 1,
  far_field = 2,
  supersonic_inflow = 3,
  supersonic_outflow = 4,
};
// "slip_wall", "symmetry", ...
const char* boundary_kind_name(BoundaryKind kind);

enum class FluxScheme : int { roe = 0, hllc = 1 };

// A cell or face field of n_vars values per row, row-major: the layout of
// a Tensor of shape {rows, n_vars}, so the two share storage.
template <class T>
using Field = Kokkos::View<T**, Kokkos::LayoutRight>;

struct BoundaryCondition {
  std::string marker;
  BoundaryKind kind = BoundaryKind::slip_wall;
};

// Free stream and reference quantities, in the deck's physical units.
struct FlowConditions {
  double mach = 0.5;
  double alpha_deg = 0.0;
  double gamma = 1.4;
  double gas_constant = 287.058;  // J/(kg K)
  double pressure = 101325.0;     // Pa
  double temperature = 288.15;    // K
  double reference_length = 1.0;  // chord, in mesh units (m)
  std::array<double, 2> moment_point = {0.25, 0.0};

  // Physical scales of the nondimensional variables.
  double density_scale() const { return pressure / (gas_constant * temperature); }
  double velocity_scale() const;  // free-stream speed of sound, m/s
  double pressure_scale() const { return density_scale() * velocity_scale() * velocity_scale(); }
  // The nondimensional free-stream state (rho = 1, c = 1, |u| = mach).
  Conserved<double, 2> free_stream() const;
};

// Pressure forces on the wall markers, as coefficients (all ranks).
struct Forces {
  double cl = 0.0, cd = 0.0, cm = 0.0;  // cm about moment_point, nose up positive
  double fx = 0.0, fy = 0.0;            // nondimensional force components
};

class Discretization {
 public:
  static constexpr int n_vars = 4;

  Discretization(mesh::DistributedMesh& dm, const FlowConditions& flow,
                 const std::vector<BoundaryCondition>& conditions,
                 FluxScheme scheme = FluxScheme::roe);

  const FlowConditions& flow() const noexcept { return flow_; }
  const IdealGas& gas() const noexcept { return gas_; }
  mesh::DistributedMesh& mesh() const noexcept { return *dm_; }
  const mesh::Geometry& geometry() const noexcept { return geometry_; }
  index_t n_owned() const noexcept { return n_owned_; }
  index_t n_local() const noexcept { return n_local_; }

  // The free stream in every local cell, shape {n_local, 4}.
  Tensor free_stream_field() const;

  // R(U), shape {n_local, 4}: owned rows hold the residual, ghost rows 0.
  // Fills U's ghost rows first (collective).
  Tensor residual(Tensor& U) const;
  // R(U) and (dR/dU) V in one Dual evaluation; fills the ghost rows of U
  // and V (collective).
  void residual_and_tangent(Tensor& U, Tensor& V, Tensor& R, Tensor& dR) const;

  // dF/dU_L and dF/dU_R of every face flux (face f of the local mesh in
  // [0, n_owned_faces)), shape {n_faces, 4, 8}: [.., 0:4] for U_L and
  // [.., 4:8] for U_R (zero on boundary faces, whose flux depends on U_L
  // only). U's ghost rows must be current.
  Tensor face_jacobians(const Tensor& U) const;

  // Sum over the faces of each owned cell of (|u.n^| + c) |n|: the
  // convective spectral radius, for local time steps dt = CFL V / that.
  // Shape {n_owned}. U's ghost rows must be current.
  Tensor spectral_radius(const Tensor& U) const;

  // CL, CD, CM from the wall pressure (first order: the wall cell's
  // pressure), summed over ranks.
  Forces forces(const Tensor& U) const;

  // Faces [0, n_owned_faces) of the local mesh: left/right cell (right -1
  // on the boundary) and, for boundary faces, the BoundaryKind as int.
  const Kokkos::View<index_t*>& face_left() const noexcept { return face_left_; }
  const Kokkos::View<index_t*>& face_right() const noexcept { return face_right_; }
  const Kokkos::View<int*>& face_kind() const noexcept { return face_kind_; }
  index_t n_faces() const noexcept { return n_faces_; }

 private:
  template <class T>
  void face_fluxes(const Field<T>& U, const Field<T>& F) const;
  template <class T>
  void gather_residual(const Field<T>& F, const Field<T>& R) const;

  mesh::DistributedMesh* dm_;
  FlowConditions flow_;
  IdealGas gas_;
  FluxScheme scheme_;
  index_t n_owned_ = 0, n_local_ = 0, n_faces_ = 0;
  mesh::Geometry geometry_;
  Kokkos::View<index_t*> face_left_, face_right_;
  Kokkos::View<int*> face_kind_;  // -1 interior
  // Owned cell i's faces: cell_face_(cell_face_offset_(i) ..), with the sign
  // +1 (i is the face's left cell) or -1 in cell_face_sign_.
  Kokkos::View<index_t*> cell_face_offset_, cell_face_;
  Kokkos::View<double*> cell_face_sign_;
  // Wall faces (slip_wall markers) among [0, n_faces): for forces.
  Kokkos::View<index_t*> wall_faces_;
};

}  // namespace camber::solvers::euler
