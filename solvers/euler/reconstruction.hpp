/// @file
/// Second-order face states for the finite-volume Euler residual: least-
/// squares gradients of the primitive variables W = (rho, u_1 .. u_Dim, p)
/// (Dim + 2 of them: (rho, u, v, p) in 2-D, (rho, u, v, w, p) in 3-D) and
/// Venkatakrishnan's limiter, on the owned cells of a DistributedMesh.
///
///   grad W_i = argmin_g sum_j w_ij (W_j - W_i - g . d_ij)^2,
///              d_ij = x_j - x_i,  w_ij = 1 / |d_ij|^2
///              (j: the cells sharing a node with i, or its face neighbours)
///   W_f     = W_i + phi_i grad W_i . (x_f - x_i)         (x_f: face midpoint)
///   phi_i   = min(1, min over faces f of i of phi(D1, D2)),  per variable,
///   phi(D1, D2) = (D1^2 + eps^2 + 2 D1 D2) / (D1^2 + 2 D2^2 + D1 D2 + eps^2),
///   D2 = grad W_i . (x_f - x_i),  D1 = max_j W_j - W_i if D2 > 0,
///   min_j W_j - W_i if D2 < 0 (phi = 1 if D2 = 0),  eps^2 = (K h_i)^3,
///   h_i = V_i^(1/Dim) (sqrt of the area in 2-D, cube root of the volume in 3-D).
///
/// Venkatakrishnan, "Convergence to steady state solutions of the Euler
/// equations on unstructured grids with limiters", J. Comput. Phys. 118
/// (1995); the weights are SU2's weighted least squares. Most users want
/// Discretization (solvers/euler/discretization.hpp), which takes a
/// SpatialOptions and does all of this inside its residual:
///
///   euler::SpatialOptions second;  second.order = 2;  second.venkatakrishnan_k = 5.0;
///   euler::Discretization disc(dm, flow, conditions, euler::FluxScheme::roe, second);
///   Tensor R = disc.residual(U);             // second order, limited
///   disc.freeze_limiter(U);                  // phi fixed at this U from now on
///   Tensor phi = disc.limiter(U);            // {n_local, Dim + 2}
///
/// Choices, and why:
///  - Node neighbours for triangles, face neighbours for quads by default
///    (SpatialOptions::gradient_stencil = mixed): a triangle has three face
///    neighbours for the two unknowns of its gradient, and a wall triangle
///    two; fits that thin and min/max bounds that narrow gave transonic
///    solutions that depended on the limiter's threshold and the solver's
///    path. Measured on Vassberg and Jameson's 64^2 grid split into
///    triangles (M 0.8, alpha 1.25 deg, wang_epsilon 0.05): face neighbours
///    CL 0.3377 against the quads' 0.3514; node neighbours 0.3475, the same
///    to ten digits along five solver paths; unlimited, the face-neighbour
///    scheme did not converge on the triangles and the node-neighbour one
///    did. On quads the node stencil (eight cells) gave 37% more spurious
///    drag than the face stencil in subsonic flow (128^2, M 0.5, threshold
///    0.1: CD 1.44e-3 against 1.05e-3, CL 0.26% lower), so quads keep their four face
///    neighbours (docs/performance.md, "Triangles and the gradient
///    stencil"). Diskin and Thomas (AIAA J. 49(4), 2011) compare the two
///    stencils for cell-centred schemes. The ghost layer of a
///    DistributedMesh holds every node neighbour of an owned cell, so
///    either stencil is complete on every rank.
///  - In 3-D the same rule: face neighbours only for the hexahedra, the
///    cells whose faces come in opposite pairs as a quad's do (their face
///    fit is a central difference along each cell direction); node
///    neighbours for every other cell. A tetrahedron has four face
///    neighbours for three unknowns (three at a wall, fewer in a corner),
///    thinner than a triangle's. A prism and a pyramid have five faces
///    each, but a prism of a layer extruded from a triangulated surface sees
///    only its three lateral neighbours within the layer (the triangle's
///    thin fit again, with the two caps across it), and a pyramid joins
///    hexahedra to tetrahedra, its four triangular faces meeting
///    tetrahedra. Measured on SU2's bricks (the gradient of 1 + 0.1 sin(3x +
///    5y + 4z), error relative to its size, RMS and largest over the
///    cells): prisms, faces 0.042 and 1.0 (40 corner prisms without a
///    spanning fit), nodes 0.036 and 0.14; pyramids, faces 0.089 and 0.13,
///    nodes 0.066 and 0.13; tetrahedra, faces 0.046 and 0.95 (4 without a
///    fit), nodes 0.045 and 0.19; hexahedra, faces 0.027 and 0.11, nodes
///    0.054 and 0.20. So the mixed stencil takes node neighbours for every
///    cell that is not a quad or a hexahedron (fewer than 2^Dim nodes).
///  - Inverse-distance-squared weights: on the stretched, curved cells of an
///    O-grid the unweighted fit lets far neighbours dominate; weighted, the
///    gradient is still exact for linear W (any weights are).
///  - Boundary faces are left out of the fit and of the limiter's min/max
///    (but not of its min over faces, so wall and far-field face states are
///    limited too): a slip wall or far-field face has no state of its own,
///    only a function of the interior one, and putting the interior state at
///    the face midpoint would force a zero normal gradient (wrong for the
///    wall pressure of a curved body). A cell keeps at least Dim
///    neighbours on any reasonable mesh; one whose neighbours do not span
///    the space (det of the Dim x Dim normal matrix below 1e-12 of its
///    trace to the power Dim, e.g. a triangle in a corner) gets a zero
///    gradient: first order there. With weights 1 / |d|^2 the normal matrix
///    is a sum of outer products of unit vectors, so this test does not
///    depend on the cell size (an isotropic stencil has det / trace^Dim =
///    Dim^-Dim).
///  - The limiter is differentiable except where a min/max changes its
///    argument or D2 changes sign (a kink; a Dual takes the selected side,
///    conventions of autodiff/dual.hpp); phi is continuous everywhere (phi
///    -> 1 as D2 -> 0). eps^2 = (K h)^3 lets variations below about eps
///    through unlimited (phi -> 1 where D1, D2 << eps), so smooth extrema
///    are clipped less as the mesh is refined; K = 0 limits everywhere.
///  - Positivity: a face state whose reconstructed density or pressure is
///    not positive falls back to the cell's own state (first order on that
///    side of that face only). With the limiter on this practically never
///    happens (W_f stays within the neighbours' range up to O(eps)); with
///    limiter none, or a frozen phi far from the state it was computed at,
///    it may.
///
/// Ownership: a Reconstruction holds its own Views (per owned cell and face
/// entry: neighbour, fit coefficients, x_f - x_i; per owned cell eps^2),
/// built once from the geometry; fields passed to it are the caller's.
/// Layouts, with nv = Dim + 2: W and phi {rows, nv}; gradients G and
/// limited gradients L {rows, nv Dim}, G(c, Dim k + d) = dW_k/dx_d.
/// Kernels are templates on the dimension (2 or 3, chosen at run time from
/// the mesh) and on the scalar, explicitly instantiated for double and
/// ad::Dual<double, 1>, <double, 4> and <double, 5> (forward mode: the
/// tangent of gradient, limiter and face state is exact away from the kinks
/// above; Dual<double, Dim + 2> carries the columns of one cell block of
/// the Jacobian by colouring, solvers/euler/exact_jacobian.hpp), and
/// Dual<double, 2> and <double, 3> with the geometry in it (node-coordinate
/// derivatives in 2-D and 3-D; Dual<double, 1> for one direction).
#pragma once

#include <Kokkos_Core.hpp>

#include <array>
#include <type_traits>

#include <camber/autodiff/dual.hpp>
#include <camber/core/enum_names.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/core/tensor.hpp>

namespace camber::solvers::euler {

// A cell or face field of n_vars values per row, row-major: the layout of
// a Tensor of shape {rows, n_vars}, so the two share storage.
template <class T>
using Field = Kokkos::View<T**, Kokkos::LayoutRight>;

enum class LimiterKind : int {
  venkatakrishnan = 0,
  none = 1,  // unlimited: for smooth flows and accuracy studies only
  // Venkatakrishnan's function with one global threshold per variable
  // (Wang's modification) and a smooth cap at 1: C^1 in the states away
  // from shocks, so Newton converges on it without freezing.
  venkatakrishnan_wang = 2,
  // venkatakrishnan_wang with its remaining switches smoothed: the
  // neighbours' largest and smallest values and the smallest face value
  // are smooth maxima and minima (smooth_max_above, smooth_min_between), so
  // the limited residual is C^1 in the states everywhere a reconstructed
  // face state stays positive. Newton's steps on the switching functions
  // can cycle between their pieces (Wang's form: a period-5 cycle at 5e-3
  // of the reference residual on the second design of the README's
  // optimization with lift held); here there is no switch to cycle on (the
  // same design then stalls at 4e-3 without cycling: a stall with another
  // cause). Widths: SpatialOptions::smooth_width, smooth_face_width.
  venkatakrishnan_smooth = 3,
};
// The limiters' names (the deck's flow.limiter values), the default first.
inline constexpr std::array<EnumName<LimiterKind>, 4> limiter_kind_names{
    {{LimiterKind::venkatakrishnan_wang, "venkatakrishnan_wang"},
     {LimiterKind::venkatakrishnan_smooth, "venkatakrishnan_smooth"},
     {LimiterKind::venkatakrishnan, "venkatakrishnan"},
     {LimiterKind::none, "none"}}};
// "venkatakrishnan", "none", "venkatakrishnan_wang", "venkatakrishnan_smooth"
const char* limiter_kind_name(LimiterKind kind);

// The cells the least-squares fit and the limiter's min/max take around a
// cell: its face neighbours, every cell sharing a node with it, or (mixed)
// the face neighbours of quads and hexahedra and the node neighbours of
// every other cell (triangles, tetrahedra, prisms, pyramids).
enum class GradientStencil : int { faces = 0, nodes = 1, mixed = 2 };
// The stencils' names (the deck's flow.gradient_stencil values), the default
// first.
inline constexpr std::array<EnumName<GradientStencil>, 3> gradient_stencil_names{
    {{GradientStencil::mixed, "mixed"},
     {GradientStencil::nodes, "nodes"},
     {GradientStencil::faces, "faces"}}};

// Whether a cell of a dim-dimensional mesh with n_nodes nodes takes its
// node neighbours under `stencil` (mixed: all but quads, 4 nodes in 2-D,
// and hexahedra, 8 nodes in 3-D).
inline bool uses_node_stencil(GradientStencil stencil, int dim, index_t n_nodes) {
  return stencil == GradientStencil::nodes ||
         (stencil == GradientStencil::mixed && n_nodes < (index_t{1} << dim));
}

// The spatial discretization's order and limiter. The defaults give the
// first-order scheme.
struct SpatialOptions {
  int order = 1;  // 1: cell states at the faces; 2: reconstructed face states
  // The deck's default too: one threshold per variable, so Newton converges
  // without freezing and a design's function is differentiable.
  LimiterKind limiter = LimiterKind::venkatakrishnan_wang;
  double venkatakrishnan_k = 5.0;  // eps^2 = (K h)^3; larger K limits less
  // venkatakrishnan_wang: eps = wang_epsilon times the variable's free-
  // stream scale (rho_inf; c_inf for u and v; rho_inf c_inf^2 for p: all 1
  // in the nondimensional variables), the same in every cell; larger
  // limits less. 0.1 with node-neighbour stencils: every solver path tried
  // converged to one CL (to 1e-9) on SU2's QuickStart mesh (five paths),
  // the triangle grid at alpha 0 to the symmetric flow, and the 64^2
  // triangles to within 0.4% of the quads; with 0.05 the QuickStart mesh
  // still has three discrete solutions (CL 0.3390, 0.3462, 0.3540), and 0.3
  // limits too little at shocks (128^2 Karman-Trefftz triangles 3.9% above
  // the quads). With face-neighbour stencils 0.3 was the smallest unique
  // threshold, and the triangles landed 10.6% above the quads there
  // (docs/performance.md, "Is the discrete solution unique?").
  double wang_epsilon = 0.1;
  // venkatakrishnan_smooth: the width of the smooth maxima and minima of
  // the neighbours' differences, as a fraction of wang_epsilon (differences
  // below it are smooth data to the limiter). Narrower is closer to the
  // Wang form's extremes. Neither 0.25 nor 0.02 gave one solution
  // everywhere: on Vassberg and Jameson's 128^2 grid 0.25 cycled on two of
  // six solver paths where 0.02 converged all six to one CL (ten digits);
  // on the 48 x 24 transonic O-grid of the design tests 0.25 gave three
  // CLs over six paths at the baseline and 0.02 one, but 0.02 (and 0.05,
  // 0.1) gave two solutions at designs 1e-3 away where 0.25 gave one, and
  // the narrower widths' sharper functions need central-difference steps
  // below 1e-6 to meet 1e-5 against the adjoint (docs/performance.md, "The
  // smooth limiter's width").
  double smooth_width = 0.25;
  // Order 2: the residual uses a fixed phi, computed by
  // Discretization::freeze_limiter(U) or given by set_limiter(phi), instead
  // of phi(U); its Jacobian is then the exact one for that fixed phi (what
  // the adjoint uses). A residual evaluated before a limiter was stored is
  // an error.
  bool freeze_limiter = false;
  // Order 2: the fit's and the limiter's neighbours (see the file comment).
  GradientStencil gradient_stencil = GradientStencil::mixed;
};

// The geometric data of the least-squares gradients and the limiter, in
// the geometry's scalar G (double; a Dual for derivatives with respect to
// node coordinates). Entry j of owned cell i (the cell-face layout): the
// fit coefficients c_j with grad W_i = sum_j c_j (W_j - W_i) ({entries,
// dim}), and x_f - x_i ({face entries, dim}); per owned cell the limiter's
// eps^2 = (K V_i^(1/dim))^3.
template <class G>
struct StencilGeometry {
  Kokkos::View<G**> coefficient, to_face;
  Kokkos::View<G*> eps2;
};

class Reconstruction {
 public:
  Reconstruction() = default;
  // Owned cell i's faces are cell_face(cell_face_offset(i) ..)
  // (Discretization's layout). Its fit's and limiter's neighbours (local cells,
  // not i) are neighbor_cell(neighbor_offset(i) .. neighbor_offset(i + 1)).
  // The dimension is the geometry's (its centroids' columns, 2 or 3).
  Reconstruction(const mesh::Geometry& geometry, index_t n_owned,
                 const Kokkos::View<index_t*>& cell_face_offset,
                 const Kokkos::View<index_t*>& cell_face, const SpatialOptions& options,
                 const Kokkos::View<index_t*>& neighbor_offset,
                 const Kokkos::View<index_t*>& neighbor_cell);

  int dim() const noexcept { return dim_; }
  // Primitive variables per cell, dim + 2, and gradient entries, n_vars dim.
  int n_vars() const noexcept { return dim_ + 2; }
  int n_gradients() const noexcept { return (dim_ + 2) * dim_; }

  // Owned rows of G ({rows >= n_owned, n_gradients()}, G(c, dim k + d) =
  // dW_k/dx_d) from W ({n_local, n_vars()}, ghost rows current).
  template <class T>
  void gradients(const Field<T>& W, const Field<T>& G) const {
    gradients_with<T, double>(geometry_, W, G);
  }

  // Owned rows of phi ({rows >= n_owned, n_vars()}) from W and G as above
  // (1 everywhere for LimiterKind::none).
  template <class T>
  void limiters(const Field<T>& W, const Field<T>& G, const Field<T>& phi) const {
    limiters_with<T, double>(geometry_, W, G, phi);
  }

  // The same two with the stencil's geometry given (e.g. in Dual numbers of
  // the node coordinates, from stencil_geometry); T must hold products of
  // G and T.
  // Given `cells` (owned cell indices, possibly none), only those rows are computed (the
  // wall cells of a force derivative); the others are left as they are.
  template <class T, class Gs>
  void gradients_with(const StencilGeometry<Gs>& geometry, const Field<T>& W, const Field<T>& G,
                      const Kokkos::View<const index_t*>* cells = nullptr) const;
  template <class T, class Gs>
  void limiters_with(const StencilGeometry<Gs>& geometry, const Field<T>& W, const Field<T>& G,
                     const Field<T>& phi, const Kokkos::View<const index_t*>* cells = nullptr) const;

  // The stencil geometry of other cell geometry (same mesh and layout):
  // centroids, face centres and volumes in G.
  template <class Gs>
  StencilGeometry<Gs> stencil_geometry(const mesh::GeometryFields<Gs>& geometry) const;

  // The stencil geometry of the mesh this was built on.
  const StencilGeometry<double>& geometry() const noexcept { return geometry_; }

  // The fit's and the limiter's neighbours of owned cell i:
  // neighbor_cell()(neighbor_offset()(i) .. neighbor_offset()(i + 1)).
  const Kokkos::View<index_t*>& neighbor_offset() const noexcept { return nb_offset_; }
  const Kokkos::View<index_t*>& neighbor_cell() const noexcept { return nb_cell_; }
  const SpatialOptions& options() const noexcept { return options_; }

  // Owned cells whose neighbours do not span the space (zero gradient).
  index_t n_degenerate() const noexcept { return n_degenerate_; }

 private:
  int dim_ = 2;
  index_t n_owned_ = 0;
  SpatialOptions options_;
  // Entry j of owned cell i (the layout of cell_face_offset): the face and
  // the neighbour across it (-1 on the boundary).
  Kokkos::View<index_t*> offset_, face_;
  // The fit's and the limiter's neighbours of owned cell i:
  // nb_cell_(nb_offset_(i) .. nb_offset_(i + 1)).
  Kokkos::View<index_t*> nb_offset_, nb_cell_;
  StencilGeometry<double> geometry_;
  index_t n_degenerate_ = 0;
};

}  // namespace camber::solvers::euler
