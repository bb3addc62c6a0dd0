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
/// derivatives in 2-D and 3-D).
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

// Venkatakrishnan's limiter value of one face: d1 the neighbours' range
// (max_j W_j - W_i if d2 > 0, min_j W_j - W_i if d2 < 0), d2 the
// unlimited increment to the face. 1 at d2 = 0. May exceed 1 where d1 >
// 2 d2; callers take the min with 1.
template <class T, class E>
KOKKOS_INLINE_FUNCTION T venkatakrishnan_phi(const T& d1, const T& d2, const E& eps2) {
  const T d1_2 = d1 * d1;
  return (d1_2 + eps2 + 2.0 * d1 * d2) / (d1_2 + 2.0 * d2 * d2 + d1 * d2 + eps2);
}

// The smooth cap of venkatakrishnan_wang: x below 1 - delta, 1 above 1,
// and between them the cubic Hermite blend with value and slope matched at
// both ends (C^1, monotone, equal to 1 with slope 0 at x = 1). Venkatakrishnan's
// function is 1 for linear data and exceeds 1 where the neighbours' range
// is wide (up to ~1.06), so min(1, phi) puts smooth regions on a kink; the
// cap leaves them flat at 1.
template <class T>
KOKKOS_INLINE_FUNCTION T smooth_cap(const T& x, double delta = 0.5) {
  if (x >= 1.0) return T(1.0);
  if (x <= 1.0 - delta) return x;
  const T t = (x - (1.0 - delta)) / delta;
  const T t2 = t * t, t3 = t2 * t;
  return (1.0 - delta) * (2.0 * t3 - 3.0 * t2 + 1.0) + delta * (t3 - 2.0 * t2 + t) +
         (-2.0 * t3 + 3.0 * t2);
}

// Smooth maximum of a and b: (a + b + sqrt((a - b)^2 + delta^2)) / 2, at
// least max(a, b) and at most max(a, b) + delta / 2 (at a = b); C^infinity.
template <class T>
KOKKOS_INLINE_FUNCTION T smooth_max_above(const T& a, const T& b, double delta) {
  const T d = a - b;
  return 0.5 * (a + b + ad::sqrt(d * d + delta * delta));
}
// Smooth minimum of a and b that stays between them:
// (a + b + delta - sqrt((a - b)^2 + delta^2)) / 2, equal to a at a = b and
// within delta / 2 above min(a, b); C^infinity.
template <class T>
KOKKOS_INLINE_FUNCTION T smooth_min_between(const T& a, const T& b, double delta) {
  const T d = a - b;
  return 0.5 * (a + b + delta - ad::sqrt(d * d + delta * delta));
}

// The limiter's switches, from the most to the least switching.
enum class LimiterForm : int { classic, wang, smooth };

inline LimiterForm limiter_form(LimiterKind kind) {
  return kind == LimiterKind::venkatakrishnan_smooth ? LimiterForm::smooth
         : kind == LimiterKind::venkatakrishnan_wang ? LimiterForm::wang
                                                     : LimiterForm::classic;
}

// venkatakrishnan_smooth's width of the minimum over faces, in units of
// phi (that of the neighbours' extremes is SpatialOptions::smooth_width;
// 0.01 here instead of 0.05 did not change which solutions Newton found on
// the 48 x 24 grid of the design tests).
constexpr double smooth_face_width = 0.05;

// The limiter of one cell and variable: the smallest face value over the
// cell's faces, d_max and d_min the neighbours' largest and smallest values
// minus the cell's, g the unlimited gradient, to_face(j, .) = x_f - x_i for
// the cell's face entries j in [j0, j1), eps2 the threshold squared
// (venkatakrishnan_wang: the global one, with the smooth cap). The kinks
// (which face, d_max or d_min) are chosen on values, as ad::min does.
template <int Dim, class T, class TF, class E>
KOKKOS_INLINE_FUNCTION T venkatakrishnan_cell(const T& d_max, const T& d_min, const T (&g)[Dim],
                                              const TF& to_face, index_t j0, index_t j1,
                                              LimiterForm form, const E& eps2) {
  T p = T(1.0);
  for (index_t j = j0; j < j1; ++j) {
    T d2 = g[0] * to_face(j, 0);
    for (int d = 1; d < Dim; ++d) d2 += g[d] * to_face(j, d);
    if (form != LimiterForm::classic) {
      // Near d2 = 0 the function exceeds 1 on both sides, so the cap
      // removes the switch between d_max and d_min there too.
      if (!(d2 > 0.0) && !(d2 < 0.0)) continue;
      const T f = smooth_cap(venkatakrishnan_phi(d2 > 0.0 ? d_max : d_min, d2, eps2));
      p = form == LimiterForm::smooth ? smooth_min_between(p, f, smooth_face_width) : ad::min(p, f);
    } else if (d2 > 0.0) {
      p = ad::min(p, venkatakrishnan_phi(d_max, d2, eps2));
    } else if (d2 < 0.0) {
      p = ad::min(p, venkatakrishnan_phi(d_min, d2, eps2));
    }
  }
  return p;
}

// The cells holding the largest and the smallest value of variable k among
// cell c and its neighbours neighbor(j0 .. j1) (the first of equal values
// wins, as ad::max and ad::min choose), found on plain values.
template <class T, class N>
KOKKOS_INLINE_FUNCTION void neighbour_extremes(const Field<T>& W, index_t c, int k,
                                               const N& neighbor, index_t j0, index_t j1,
                                               index_t& c_max, index_t& c_min) {
  c_max = c;
  c_min = c;
  double v_max = ad::value(W(c, k)), v_min = v_max;
  for (index_t j = j0; j < j1; ++j) {
    const index_t nb = neighbor(j);
    const double v = ad::value(W(nb, k));
    if (v_max < v) {
      v_max = v;
      c_max = nb;
    }
    if (v < v_min) {
      v_min = v;
      c_min = nb;
    }
  }
}

// Adds one neighbour's difference d to venkatakrishnan_smooth's running
// d_max (smooth maximum) and d_min (smooth minimum).
template <class T>
KOKKOS_INLINE_FUNCTION void smooth_range_add(T& d_max, T& d_min, const T& d, double delta) {
  d_max = smooth_max_above(d_max, d, delta);
  d_min = -smooth_max_above(-d_min, -d, delta);
}

// venkatakrishnan_smooth's d_max and d_min of variable k at cell c: smooth
// maxima (minima) of W_j - W_c over the neighbours and the cell itself
// (0), folded in neighbour order; d_max >= the largest difference >= 0 and
// d_min <= the smallest <= 0, each within delta / 2 per neighbour.
template <class T, class N>
KOKKOS_INLINE_FUNCTION void smooth_neighbour_range(const Field<T>& W, index_t c, int k,
                                                   const N& neighbor, index_t j0, index_t j1,
                                                   double delta, T& d_max, T& d_min) {
  d_max = T(0.0);
  d_min = T(0.0);
  for (index_t j = j0; j < j1; ++j)
    smooth_range_add(d_max, d_min, T(W(neighbor(j), k) - W(c, k)), delta);
}

// The owned rows a reconstruction kernel computes: all n_owned of them
// (cells == nullptr) or the listed ones; row(i) for i in [0, n).
struct OwnedRows {
  OwnedRows(index_t n_owned, const Kokkos::View<const index_t*>* cells)
      : all(cells == nullptr),
        list(all ? Kokkos::View<const index_t*>() : *cells),
        n(all ? n_owned : static_cast<index_t>(list.extent(0))) {}
  KOKKOS_INLINE_FUNCTION index_t row(index_t i) const { return all ? i : list(i); }
  bool all;
  Kokkos::View<const index_t*> list;
  index_t n;
};

// The primitive state of row c of W ({rows, Dim + 2}).
template <int Dim, class T>
KOKKOS_INLINE_FUNCTION Primitive<T, Dim> primitive_row(const Field<T>& W, index_t c) {
  Primitive<T, Dim> w;
  w.rho = W(c, 0);
  for (int d = 0; d < Dim; ++d) w.vel[d] = W(c, 1 + d);
  w.p = W(c, Dim + 1);
  return w;
}

// W + L . dx for the cell row c of W (primitive, {rows, Dim + 2}) and of
// the limited gradients L ({rows, (Dim + 2) Dim}: L(c, Dim k + d) = phi_k
// dW_k/dx_d), or W itself where the result's density or pressure is not
// positive.
template <int Dim, class T, class G>
KOKKOS_INLINE_FUNCTION Primitive<T, Dim> reconstructed_state(const Field<T>& W, const Field<T>& L,
                                                             index_t c, const G (&dx)[Dim]) {
  T q[Dim + 2];
  for (int k = 0; k < Dim + 2; ++k) {
    q[k] = W(c, k);
    for (int d = 0; d < Dim; ++d) q[k] += L(c, Dim * k + d) * dx[d];
  }
  if (!(q[0] > 0.0) || !(q[Dim + 1] > 0.0)) return primitive_row<Dim>(W, c);
  Primitive<T, Dim> w;
  w.rho = q[0];
  for (int d = 0; d < Dim; ++d) w.vel[d] = q[1 + d];
  w.p = q[Dim + 1];
  return w;
}

// reconstructed_state at the midpoint of face f from the side of cell c:
// to_center(f, Dim side + d) = x_f - x_c (side 0: c is the face's left
// cell, 1: its right one).
template <int Dim, class T, class V>
KOKKOS_INLINE_FUNCTION auto face_state(const Field<T>& W, const Field<T>& L, index_t c,
                                       const V& to_center, index_t f, int side) {
  std::remove_const_t<typename V::value_type> dx[Dim];
  for (int d = 0; d < Dim; ++d) dx[d] = to_center(f, Dim * side + d);
  return reconstructed_state<Dim>(W, L, c, dx);
}

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
