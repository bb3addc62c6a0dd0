#include <camber/solvers/euler/discretization.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <utility>

#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/jacobian.hpp>
#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>
#include <camber/solvers/euler/boundary.hpp>
#include <camber/solvers/euler/flux.hpp>

#include "detail/face_flux.hpp"
#include "detail/reconstruction_kernels.hpp"

namespace camber::solvers::euler {

namespace {

using detail::BoundaryFlux;
using detail::InteriorFlux;
using detail::field_of;
using detail::outer_state;
using detail::raw_tensor;
using detail::OwnedRows;
using detail::face_state;

// The local cells' states as Dual<double, NV> whose derivative part is the
// identity in the cells where seeded(c) != 0 and zero elsewhere: the seed
// matrix of one colour of a column colouring (NV = n_vars).
template <int NV>
Field<ad::Dual<double, NV>> seed_block_columns(const Field<double>& u,
                                               const Kokkos::View<const int*>& seeded,
                                               index_t n_local) {
  using D = ad::Dual<double, NV>;
  Field<D> ud("euler::U_seeded", static_cast<size_t>(n_local), NV);
  Kokkos::parallel_for(
      "euler::seed_columns", Kokkos::RangePolicy<>(0, n_local), KOKKOS_LAMBDA(const index_t c) {
        const bool on = seeded(c) != 0;
        for (int k = 0; k < NV; ++k) {
          ud(c, k) = D(u(c, k));
          if (on) ud(c, k).der(k) = 1.0;
        }
      });
  return ud;
}

// The pitch-plane load of the fluid on the body through wall face f with
// pressure p, area-weighted normal n (out of the fluid) and midpoint x_f:
// g = (f_x, f_y, m_z) in 2-D, the moment about (xm, zm) = moment_point's
// (x, y); g = (f_x, f_z, m_y) in 3-D, about (xm, zm) = moment_point's
// (x, z). The free-stream pressure integrates to zero over a closed wall
// and is subtracted for accuracy.
template <int Dim, class T, class G>
KOKKOS_INLINE_FUNCTION void wall_face_load(const T& p, double p_inf,
                                           const Kokkos::View<G**>& normal,
                                           const Kokkos::View<G**>& center, index_t f, double xm,
                                           double zm, T (&g)[3]) {
  constexpr int up = Dim - 1;  // the lift axis: y in 2-D, z in 3-D
  const T dp = p - p_inf;
  g[0] = dp * normal(f, 0);
  g[1] = dp * normal(f, up);
  const G dx = center(f, 0) - xm, dz = center(f, up) - zm;
  if constexpr (Dim == 2)
    g[2] = dx * g[1] - dz * g[0];
  else
    g[2] = dz * g[0] - dx * g[1];
}

// x_f - x_left, x_f - x_right of every face ({n_faces, 2 dim}: the left
// cell's dim entries, then the right cell's, 0 on the boundary), in the
// geometry's scalar.
template <class G>
Kokkos::View<G**> face_to_centers(const mesh::GeometryFields<G>& geometry,
                                  const Kokkos::View<index_t*>& left,
                                  const Kokkos::View<index_t*>& right, index_t n_faces) {
  const int dim = static_cast<int>(geometry.cell_centroid.extent(1));
  Kokkos::View<G**> to_center("euler::face_to_center", static_cast<size_t>(n_faces), 2 * dim);
  const auto centroid = geometry.cell_centroid;
  const auto center = geometry.face_center;
  Kokkos::parallel_for(
      "euler::face_to_center", Kokkos::RangePolicy<>(0, n_faces), KOKKOS_LAMBDA(const index_t f) {
        const index_t l = left(f), r = right(f);
        for (int d = 0; d < dim; ++d) {
          to_center(f, d) = center(f, d) - centroid(l, d);
          to_center(f, dim + d) = r >= 0 ? G(center(f, d) - centroid(r, d)) : G(0.0);
        }
      });
  return to_center;
}

// The pressure on wall face f of cell l: reconstructed at the face
// midpoint (second order: W, L, to_center) or the cell's (first order: U).
template <int Dim, class T, class V>
KOKKOS_INLINE_FUNCTION T wall_pressure(bool reconstruct, const IdealGas& gas, const Field<T>& U,
                                       const Field<T>& W, const Field<T>& L, index_t l,
                                       const V& to_center, index_t f) {
  if (reconstruct) return face_state<Dim>(W, L, l, to_center, f, 0).p;
  Conserved<T, Dim> s;
  for (int k = 0; k < Dim + 2; ++k) s[k] = U(l, k);
  return pressure(gas, s);
}

// Row c of a conserved field as a state.
template <int Dim, class T>
KOKKOS_INLINE_FUNCTION Conserved<T, Dim> conserved_row(const Field<T>& U, index_t c) {
  Conserved<T, Dim> s;
  for (int k = 0; k < Dim + 2; ++k) s[k] = U(c, k);
  return s;
}

// The flux y through face f of the face states ul (left) and ur (right):
// the numerical flux on an interior face, the boundary condition's flux of
// ul on a boundary face (ur unused).
template <int Dim, class T, class G>
KOKKOS_INLINE_FUNCTION void face_flux(const IdealGas& gas, int scheme, int kind,
                                      const Kokkos::View<double**>& outer,
                                      const Kokkos::View<G**>& normal, index_t f, bool interior,
                                      const Conserved<T, Dim>& ul, const Conserved<T, Dim>& ur,
                                      T (&y)[Dim + 2]) {
  constexpr int nv = Dim + 2;
  if (interior) {
    InteriorFlux<G, Dim> flux{gas, {}, scheme};
    for (int d = 0; d < Dim; ++d) flux.n[d] = normal(f, d);
    T x[2 * nv];
    for (int k = 0; k < nv; ++k) {
      x[k] = ul[k];
      x[nv + k] = ur[k];
    }
    flux(x, y);
  } else {
    BoundaryFlux<G, Dim> flux{gas, {}, scheme, kind, outer_state<Dim>(outer, f)};
    for (int d = 0; d < Dim; ++d) flux.n[d] = normal(f, d);
    T x[nv];
    for (int k = 0; k < nv; ++k) x[k] = ul[k];
    flux(x, y);
  }
}

// The first-order face fluxes in Dim dimensions: the numerical flux of the
// two cells' states on interior faces, the boundary condition's flux of the
// cell's state on boundary faces.
template <int Dim, class T, class G>
void first_order_fluxes(const Kokkos::View<index_t*>& left, const Kokkos::View<index_t*>& right,
                        const Kokkos::View<int*>& kind, const IdealGas& gas, int scheme,
                        const Kokkos::View<double**>& outer, const Kokkos::View<G**>& normal,
                        const Field<T>& U, const Field<T>& F, index_t n_faces) {
  Kokkos::parallel_for(
      "euler::face_fluxes", Kokkos::RangePolicy<>(0, n_faces), KOKKOS_LAMBDA(const index_t f) {
        const index_t l = left(f), r = right(f);
        T y[Dim + 2];
        face_flux<Dim, T, G>(gas, scheme, kind(f), outer, normal, f, r >= 0,
                             conserved_row<Dim>(U, l), conserved_row<Dim>(U, r >= 0 ? r : l), y);
        for (int k = 0; k < Dim + 2; ++k) F(f, k) = y[k];
      });
}

// The second-order face fluxes in Dim dimensions: face_flux of the states
// reconstructed at the face midpoint from W and the limited gradients L.
template <int Dim, class T, class G>
void reconstructed_face_fluxes(const Kokkos::View<index_t*>& left,
                               const Kokkos::View<index_t*>& right, const Kokkos::View<int*>& kind,
                               const IdealGas& gas, int scheme, const Kokkos::View<double**>& outer,
                               const Kokkos::View<G**>& normal, const Kokkos::View<G**>& to_center,
                               const Field<T>& W, const Field<T>& L, const Field<T>& F,
                               index_t n_faces) {
  Kokkos::parallel_for(
      "euler::reconstructed_fluxes", Kokkos::RangePolicy<>(0, n_faces),
      KOKKOS_LAMBDA(const index_t f) {
        const index_t l = left(f), r = right(f);
        const Conserved<T, Dim> ul = to_conserved(gas, face_state<Dim>(W, L, l, to_center, f, 0));
        const Conserved<T, Dim> ur =
            r >= 0 ? to_conserved(gas, face_state<Dim>(W, L, r, to_center, f, 1)) : ul;
        T y[Dim + 2];
        face_flux<Dim, T, G>(gas, scheme, kind(f), outer, normal, f, r >= 0, ul, ur, y);
        for (int k = 0; k < Dim + 2; ++k) F(f, k) = y[k];
      });
}

// W = (rho, u_1 .. u_Dim, p) of U in cells [0, n).
template <int Dim, class T>
void primitive_cells(const IdealGas& gas, const Field<T>& U, const Field<T>& W, index_t n) {
  Kokkos::parallel_for(
      "euler::primitive", Kokkos::RangePolicy<>(0, n), KOKKOS_LAMBDA(const index_t c) {
        const Primitive<T, Dim> w = to_primitive(gas, conserved_row<Dim>(U, c));
        W(c, 0) = w.rho;
        for (int d = 0; d < Dim; ++d) W(c, 1 + d) = w.vel[d];
        W(c, Dim + 1) = w.p;
      });
}

// dF/dU_L and dF/dU_R of every face's first-order flux into J ({n_faces,
// nv, 2 nv}, row-major; the U_R half zero on boundary faces).
template <int Dim>
void face_jacobian_blocks(const Kokkos::View<index_t*>& left, const Kokkos::View<index_t*>& right,
                          const Kokkos::View<int*>& kind, const IdealGas& gas, int scheme,
                          const Kokkos::View<double**>& outer,
                          const Kokkos::View<double**>& normal, const Field<double>& u, double* jp,
                          index_t n_faces) {
  constexpr int nv = Dim + 2;
  Kokkos::parallel_for(
      "euler::face_jacobians", Kokkos::RangePolicy<>(0, n_faces), KOKKOS_LAMBDA(const index_t f) {
        const index_t l = left(f), r = right(f);
        double* jf = jp + f * nv * 2 * nv;
        double y[nv];
        if (r >= 0) {
          InteriorFlux<double, Dim> flux{gas, {}, scheme};
          for (int d = 0; d < Dim; ++d) flux.n[d] = normal(f, d);
          double x[2 * nv], jac[nv][2 * nv];
          for (int k = 0; k < nv; ++k) {
            x[k] = u(l, k);
            x[nv + k] = u(r, k);
          }
          ad::jacobian(flux, x, y, jac);
          for (int i = 0; i < nv; ++i)
            for (int k = 0; k < 2 * nv; ++k) jf[i * 2 * nv + k] = jac[i][k];
        } else {
          BoundaryFlux<double, Dim> flux{gas, {}, scheme, kind(f), outer_state<Dim>(outer, f)};
          for (int d = 0; d < Dim; ++d) flux.n[d] = normal(f, d);
          double x[nv], jac[nv][nv];
          for (int k = 0; k < nv; ++k) x[k] = u(l, k);
          ad::jacobian(flux, x, y, jac);
          for (int i = 0; i < nv; ++i)
            for (int k = 0; k < 2 * nv; ++k) jf[i * 2 * nv + k] = k < nv ? jac[i][k] : 0.0;
        }
      });
  Kokkos::fence();
}

// Sum over the faces of each owned cell of (|u.n^| + c) |n|.
template <int Dim>
void spectral_radii(const IdealGas& gas, const Field<double>& u,
                    const Kokkos::View<index_t*>& offset, const Kokkos::View<index_t*>& faces,
                    const Kokkos::View<double**>& normal, const Kokkos::View<double*>& area,
                    double* lp, index_t n_owned) {
  Kokkos::parallel_for(
      "euler::spectral_radius", Kokkos::RangePolicy<>(0, n_owned), KOKKOS_LAMBDA(const index_t c) {
        Conserved<double, Dim> s;
        for (int k = 0; k < Dim + 2; ++k) s[k] = u(c, k);
        const Primitive<double, Dim> w = to_primitive(gas, s);
        const double a = sound_speed(gas, w);
        double sum = 0.0;
        for (index_t j = offset(c); j < offset(c + 1); ++j) {
          const index_t f = faces(j);
          double un = 0.0;
          for (int d = 0; d < Dim; ++d) un += w.vel[d] * normal(f, d);
          sum += kmath::fabs(un) + a * area(f);
        }
        lp[c] = sum;
      });
  Kokkos::fence();
}

// The faces of every owned cell in an order that does not depend on the
// partition: by their sorted global node ids. The local mesh numbers faces
// in an order that does (a face shared with a ghost comes elsewhere than
// on one rank), and the sums over a cell's faces (the residual, the smooth
// limiter's minimum, which is not associative) follow that order. 3-D only
// so far: 2-D meshes keep the local order, and with it their results.
mesh::OwnedCellFaces partition_independent(mesh::OwnedCellFaces faces,
                                           const mesh::DistributedMesh& dm) {
  const mesh::Mesh& local = dm.local();
  if (local.dim() != 3) return faces;
  const std::vector<std::int64_t>& node_gid = dm.node_global_ids();
  const auto node_offset = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                               local.face_offsets());
  const auto nodes = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_nodes());
  const auto offset = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), faces.offset);
  auto face = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), faces.face);
  auto sign = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), faces.sign);
  using Key = std::array<std::int64_t, 4>;
  const auto key_of = [&](index_t f) {
    Key k;
    k.fill(std::numeric_limits<std::int64_t>::max());
    for (index_t a = node_offset(f); a < node_offset(f + 1); ++a)
      k[static_cast<size_t>(a - node_offset(f))] = node_gid[static_cast<size_t>(nodes(a))];
    std::sort(k.begin(), k.end());
    return k;
  };
  std::vector<std::tuple<Key, index_t, double>> entries;
  for (index_t c = 0; c < dm.n_owned_cells(); ++c) {
    entries.clear();
    for (index_t j = offset(c); j < offset(c + 1); ++j)
      entries.emplace_back(key_of(face(j)), face(j), sign(j));
    std::sort(entries.begin(), entries.end());
    for (index_t j = offset(c); j < offset(c + 1); ++j) {
      face(j) = std::get<1>(entries[static_cast<size_t>(j - offset(c))]);
      sign(j) = std::get<2>(entries[static_cast<size_t>(j - offset(c))]);
    }
  }
  Kokkos::deep_copy(faces.face, face);
  Kokkos::deep_copy(faces.sign, sign);
  return faces;
}

}  // namespace

Discretization::Discretization(mesh::DistributedMesh& dm, const FlowConditions& flow,
                               const std::vector<BoundaryCondition>& conditions,
                               FluxScheme scheme, const SpatialOptions& spatial)
    : dm_(&dm), flow_(flow), gas_{flow.gamma}, scheme_(scheme), spatial_(spatial) {
  collective_guard(dm.comm(), [&] {
    CAMBER_INPUT_REQUIRE(spatial.order == 1 || spatial.order == 2,
                         "spatial order " << spatial.order << " is not supported; use 1 or 2");
    CAMBER_INPUT_REQUIRE(std::isfinite(spatial.venkatakrishnan_k) &&
                             spatial.venkatakrishnan_k >= 0.0,
                         "venkatakrishnan_k = " << spatial.venkatakrishnan_k
                                                << " must be a finite number >= 0 (5 is usual)");
    CAMBER_INPUT_REQUIRE(std::isfinite(spatial.wang_epsilon) && spatial.wang_epsilon > 0.0,
                         "wang_epsilon = " << spatial.wang_epsilon
                                           << " must be a finite number > 0 (0.1 is the default)");
    CAMBER_INPUT_REQUIRE(std::isfinite(spatial.smooth_width) && spatial.smooth_width > 0.0,
                         "smooth_width = " << spatial.smooth_width
                                           << " must be a finite number > 0 (0.25 is the default)");
  });
  const mesh::Mesh& local = dm.local();
  dim_ = local.dim();
  collective_guard(dm.comm(), [&] {
    CAMBER_INPUT_REQUIRE(dim_ == 2 || !flow.far_field_vortex,
                         "the far-field vortex is a 2-D correction; not with a 3-D mesh");
  });
  n_owned_ = dm.n_owned_cells();
  n_local_ = dm.n_local_cells();
  n_faces_ = dm.n_owned_faces();

  // Every condition names a marker of the mesh, and every marker has a
  // condition. The mesh is the same on every rank, so every rank agrees.
  std::map<std::string, BoundaryKind> kind_of;
  collective_guard(dm.comm(), [&] {
    std::vector<std::string> markers;
    for (const mesh::Marker& m : local.markers()) markers.push_back(m.name);
    const BoundaryProblem problem = check_boundary_conditions(markers, conditions);
    CAMBER_INPUT_REQUIRE(problem.kind == BoundaryProblem::Kind::none, problem.message);
    for (const BoundaryCondition& c : conditions) kind_of[c.marker] = c.kind;
  });

  geometry_ = mesh::compute_geometry(local);

  const auto left_h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_left());
  const auto right_h =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_right());
  const auto marker_h =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_marker());
  std::vector<int> marker_kind(local.markers().size());
  for (size_t m = 0; m < marker_kind.size(); ++m)
    marker_kind[m] = static_cast<int>(kind_of.at(local.markers()[m].name));

  face_left_ = Kokkos::View<index_t*>("euler::face_left", n_faces_);
  face_right_ = Kokkos::View<index_t*>("euler::face_right", n_faces_);
  face_kind_ = Kokkos::View<int*>("euler::face_kind", n_faces_);
  auto fl = Kokkos::create_mirror_view(face_left_);
  auto fr = Kokkos::create_mirror_view(face_right_);
  auto fk = Kokkos::create_mirror_view(face_kind_);
  std::vector<index_t> walls;
  int unmarked = 0;
  index_t first_unmarked = -1;
  for (index_t f = 0; f < n_faces_; ++f) {
    fl(f) = left_h(f);
    fr(f) = right_h(f);
    fk(f) = -1;
    if (right_h(f) < 0) {
      if (marker_h(f) < 0) {
        if (unmarked++ == 0) first_unmarked = f;
      } else {
        fk(f) = marker_kind[static_cast<size_t>(marker_h(f))];
        if (fk(f) == static_cast<int>(BoundaryKind::slip_wall)) walls.push_back(f);
      }
    }
  }
  const double n_unmarked = par::allreduce_sum(static_cast<double>(unmarked), dm.comm());
  if (n_unmarked > 0.0) {
    // The first unmarked face of the lowest rank that has one, on every
    // rank, so that the message names a place.
    struct {
      int none, rank;
    } in{unmarked > 0 ? 0 : 1, dm.rank()}, out{};
    CAMBER_CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, dm.comm()));
    double at[3] = {0.0, 0.0, 0.0};
    if (first_unmarked >= 0) {
      const auto center =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geometry_.face_center);
      for (int d = 0; d < dim_; ++d) at[d] = center(first_unmarked, d);
    }
    CAMBER_CHECK_MPI(MPI_Bcast(at, 3, MPI_DOUBLE, out.rank, dm.comm()));
    std::ostringstream where;
    where << "(" << at[0] << ", " << at[1];
    if (dim_ == 3) where << ", " << at[2];
    where << ")";
    std::string names;
    for (const mesh::Marker& m : local.markers()) names += (names.empty() ? "" : ", ") + m.name;
    collective_guard(dm.comm(), [&] {
      CAMBER_INPUT_REQUIRE(false, static_cast<long long>(n_unmarked)
                                      << " boundary faces of the mesh have no marker (one at "
                                      << where.str()
                                      << "), so the markers do not close the domain; every "
                                         "boundary face needs a marker to get a boundary "
                                         "condition (the mesh's markers: "
                                      << (names.empty() ? std::string("none") : names) << ")");
    });
  }
  Kokkos::deep_copy(face_left_, fl);
  Kokkos::deep_copy(face_right_, fr);
  Kokkos::deep_copy(face_kind_, fk);

  const mesh::OwnedCellFaces cell_faces = partition_independent(mesh::owned_cell_faces(dm), dm);
  cell_face_offset_ = cell_faces.offset;
  cell_face_ = cell_faces.face;
  cell_face_sign_ = cell_faces.sign;

  wall_faces_ = Kokkos::View<index_t*>("euler::wall_faces", walls.size());
  auto wh = Kokkos::create_mirror_view(wall_faces_);
  for (size_t i = 0; i < walls.size(); ++i) wh(i) = walls[i];
  Kokkos::deep_copy(wall_faces_, wh);
  {
    std::vector<index_t> cells;
    for (const index_t f : walls) {
      CAMBER_REQUIRE(left_h(f) < n_owned_, "euler: wall face " << f << " of this rank has a ghost cell");
      cells.push_back(left_h(f));
    }
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    Kokkos::View<index_t*> wc("euler::wall_cells", cells.size());
    auto ch = Kokkos::create_mirror_view(wc);
    for (size_t i = 0; i < cells.size(); ++i) ch(i) = cells[i];
    Kokkos::deep_copy(wc, ch);
    wall_cells_ = wc;
  }

  if (flow.far_field_vortex) {
    const double vortex_mach = flow.mach;
    collective_guard(dm.comm(), [&] {
      CAMBER_INPUT_REQUIRE(vortex_mach < 1.0,
                           "the far-field vortex needs a subsonic free stream; mach = "
                               << vortex_mach);
    });
  }
  outer_state_ = Kokkos::View<double**>("euler::outer_state", n_faces_, n_vars());
  far_field_lift_ = std::make_shared<double>(0.0);
  fill_outer_states(0.0);

  face_to_center_ = face_to_centers(geometry_, face_left_, face_right_, n_faces_);
  // The reconstruction's neighbours: every cell sharing a node (all local:
  // the ghost layer is the node layer, mesh/distributed_mesh.hpp) for the
  // cells the stencil option gives them to, the face neighbours otherwise.
  Kokkos::View<index_t*> nb_off, nb_cell;
  {
    const GradientStencil stencil =
        spatial_.order == 2 ? spatial_.gradient_stencil : GradientStencil::faces;
    std::vector<std::int64_t> xadj, adjncy;
    if (stencil != GradientStencil::faces) mesh::node_graph(dm.local(), xadj, adjncy);
    const auto lh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), face_left_);
    const auto rh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), face_right_);
    const auto co = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cell_face_offset_);
    const auto cf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cell_face_);
    const auto nodes_of =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.cell_offsets());
    const std::vector<std::int64_t>& gid = dm.cell_global_ids();
    std::vector<index_t> off{0}, cells;
    for (index_t c = 0; c < n_owned_; ++c) {
      if (uses_node_stencil(stencil, dim_, nodes_of(c + 1) - nodes_of(c))) {
        const auto first = static_cast<std::ptrdiff_t>(cells.size());
        for (std::int64_t k = xadj[static_cast<size_t>(c)]; k < xadj[static_cast<size_t>(c) + 1]; ++k)
          cells.push_back(static_cast<index_t>(adjncy[static_cast<size_t>(k)]));
        // In global id order (local ids put the ghosts after the owned
        // cells), so that the fit's sums and the smooth limiter's folds run
        // in the same order on every partition (on one rank: unchanged).
        std::sort(cells.begin() + first, cells.end(), [&](index_t a, index_t b) {
          return gid[static_cast<size_t>(a)] < gid[static_cast<size_t>(b)];
        });
      } else {
        for (index_t j = co(c); j < co(c + 1); ++j) {
          const index_t f = cf(j);
          const index_t nb = lh(f) == c ? rh(f) : lh(f);
          if (nb >= 0) cells.push_back(nb);
        }
      }
      off.push_back(static_cast<index_t>(cells.size()));
    }
    nb_off = Kokkos::View<index_t*>("euler::recon_nb_offset", off.size());
    nb_cell = Kokkos::View<index_t*>("euler::recon_nb_cell", cells.size());
    auto oh = Kokkos::create_mirror_view(nb_off);
    auto ch = Kokkos::create_mirror_view(nb_cell);
    for (size_t i = 0; i < off.size(); ++i) oh(i) = off[i];
    for (size_t i = 0; i < cells.size(); ++i) ch(i) = cells[i];
    Kokkos::deep_copy(nb_off, oh);
    Kokkos::deep_copy(nb_cell, ch);
  }
  reconstruction_ = Reconstruction(geometry_, n_owned_, cell_face_offset_, cell_face_,
                                   spatial_, nb_off, nb_cell);
  Kokkos::fence();
}

Discretization Discretization::first_order() const {
  Discretization copy(*this);
  copy.spatial_.order = 1;
  return copy;
}

Discretization Discretization::with_flow(const FlowConditions& flow) const {
  Discretization copy(*this);
  copy.flow_ = flow;
  copy.gas_ = IdealGas{flow.gamma};
  copy.outer_state_ = Kokkos::View<double**>("euler::outer_state", n_faces_, n_vars());
  copy.far_field_lift_ = std::make_shared<double>(*far_field_lift_);
  copy.fill_outer_states(*far_field_lift_);
  return copy;
}

void Discretization::set_far_field_lift(double cl) const {
  if (flow_.far_field_vortex) fill_outer_states(cl);
}

void Discretization::fill_outer_states(double cl) const {
  *far_field_lift_ = cl;
  const auto h = Kokkos::create_mirror_view(outer_state_);
  if (dim_ == 3) {
    const Conserved<double, 3> fs3 = flow_.free_stream<3>();
    for (index_t f = 0; f < n_faces_; ++f)
      for (int k = 0; k < 5; ++k) h(f, k) = fs3[k];
    Kokkos::deep_copy(outer_state_, h);
    return;
  }
  const Conserved<double, 2> fs = flow_.free_stream();
  const auto kind = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), face_kind_);
  const auto center =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), geometry_.face_center);
  const double m = flow_.mach, a = flow_.alpha_deg * M_PI / 180.0;
  const double beta = std::sqrt(std::max(0.0, 1.0 - m * m));
  const double circulation = 0.5 * cl * flow_.reference_length * m;
  const double g = flow_.gamma;
  for (index_t f = 0; f < n_faces_; ++f) {
    for (int k = 0; k < 4; ++k) h(f, k) = fs[k];
    if (!flow_.far_field_vortex || kind(f) != static_cast<int>(BoundaryKind::far_field)) continue;
    const double dx = center(f, 0) - flow_.moment_point[0];
    const double dy = center(f, 1) - flow_.moment_point[1];
    const double r = std::hypot(dx, dy), theta = std::atan2(dy, dx);
    const double sn = std::sin(theta - a);
    const double w = circulation * beta / (2.0 * M_PI * r * (1.0 - m * m * sn * sn));
    Primitive<double, 2> s;
    s.vel[0] = m * std::cos(a) + w * std::sin(theta);
    s.vel[1] = m * std::sin(a) - w * std::cos(theta);
    // The free stream's total enthalpy c^2 / (g - 1) + q^2 / 2 and entropy
    // p / rho^g (there c = 1, rho = 1, p = 1 / g).
    const double q2 = s.vel[0] * s.vel[0] + s.vel[1] * s.vel[1];
    const double c2 = 1.0 + 0.5 * (g - 1.0) * (m * m - q2);
    s.rho = std::pow(c2, 1.0 / (g - 1.0));
    s.p = s.rho * c2 / g;
    const Conserved<double, 2> u = to_conserved(gas_, s);
    for (int k = 0; k < 4; ++k) h(f, k) = u[k];
  }
  Kokkos::deep_copy(outer_state_, h);
}

Tensor Discretization::free_stream_field() const {
  double fs[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  if (dim_ == 3) {
    const Conserved<double, 3> s = flow_.free_stream<3>();
    for (int k = 0; k < 5; ++k) fs[k] = s[k];
  } else {
    const Conserved<double, 2> s = flow_.free_stream<2>();
    for (int k = 0; k < 4; ++k) fs[k] = s[k];
  }
  const double f0 = fs[0], f1 = fs[1], f2 = fs[2], f3 = fs[3], f4 = fs[4];
  const int nv = n_vars();
  Tensor U({n_local_, nv});
  const Field<double> u = field_of(U);
  Kokkos::parallel_for(
      "euler::free_stream", Kokkos::RangePolicy<>(0, n_local_), KOKKOS_LAMBDA(const index_t c) {
        const double v[5] = {f0, f1, f2, f3, f4};
        for (int k = 0; k < nv; ++k) u(c, k) = v[k];
      });
  return U;
}

void Discretization::require_2d(const char* what) const {
  CAMBER_REQUIRE(dim_ == 2, "euler::Discretization::" << what
                                << " is 2-D only so far; this mesh is 3-D (the 3-D "
                                   "discretization has the residual at either order, its "
                                   "derivatives, the steady solver, the adjoint and the shape "
                                   "derivative)");
}

template <class T, class G>
void Discretization::face_fluxes(const Kokkos::View<G**>& normal, const Field<T>& U,
                                 const Field<T>& F) const {
  if (dim_ == 3)
    first_order_fluxes<3, T, G>(face_left_, face_right_, face_kind_, gas_, static_cast<int>(scheme_),
                                outer_state_, normal, U, F, n_faces_);
  else
    first_order_fluxes<2, T, G>(face_left_, face_right_, face_kind_, gas_, static_cast<int>(scheme_),
                                outer_state_, normal, U, F, n_faces_);
}

template <class T>
void Discretization::primitive_field(const Field<T>& U, const Field<T>& W) const {
  if (dim_ == 3)
    primitive_cells<3, T>(gas_, U, W, n_local_);
  else
    primitive_cells<2, T>(gas_, U, W, n_local_);
}

template <class T, class Gs>
void Discretization::limited_gradients(const StencilGeometry<Gs>& stencil, const Field<T>& U,
                                       const Field<T>& W, const Field<T>& L, Field<T> G,
                                       Field<T> phi,
                                       const Kokkos::View<const index_t*>* cells) const {
  const int nv = n_vars(), dim = dim_;
  primitive_field<T>(U, W);
  if (G.extent(0) == 0) G = Field<T>("euler::G", static_cast<size_t>(n_owned_), nv * dim);
  if (phi.extent(0) == 0) phi = Field<T>("euler::phi", static_cast<size_t>(n_owned_), nv);
  const OwnedRows rows(n_owned_, cells);
  reconstruction_.gradients_with<T, Gs>(stencil, W, G, cells);
  if (spatial_.freeze_limiter) {
    // Every rank holds a frozen limiter or none (they are stored
    // collectively), so every rank throws alike: no collective check.
    CAMBER_REQUIRE(!frozen_phi_.empty(),
                   "the Euler limiter is frozen (SpatialOptions::freeze_limiter) but no limiter "
                   "was stored: call Discretization::freeze_limiter(U) or set_limiter(phi) first");
    const Field<double> stored = field_of(frozen_phi_);
    Kokkos::parallel_for(
        "euler::limit_frozen", Kokkos::RangePolicy<>(0, rows.n), KOKKOS_LAMBDA(const index_t i) {
          const index_t c = rows.row(i);
          for (int k = 0; k < nv; ++k) phi(c, k) = T(stored(c, k));
        });
  } else {
    reconstruction_.limiters_with<T, Gs>(stencil, W, G, phi, cells);
  }
  Kokkos::parallel_for(
      "euler::limit", Kokkos::RangePolicy<>(0, rows.n), KOKKOS_LAMBDA(const index_t i) {
        const index_t c = rows.row(i);
        for (int k = 0; k < nv; ++k)
          for (int d = 0; d < dim; ++d) L(c, dim * k + d) = phi(c, k) * G(c, dim * k + d);
      });
  Kokkos::fence();
  if (!rows.all) return;
  Tensor raw = raw_tensor(L);
  dm_->halo().forward(raw);
}

// For the stencil assembly (stencil_jacobian.cpp).
template void Discretization::primitive_field<double>(const Field<double>&,
                                                      const Field<double>&) const;
template void Discretization::limited_gradients<double, double>(
    const StencilGeometry<double>&, const Field<double>&, const Field<double>&,
    const Field<double>&, Field<double>, Field<double>, const Kokkos::View<const index_t*>*) const;

template <class T, class G>
void Discretization::reconstructed_fluxes(const Kokkos::View<G**>& normal,
                                          const Kokkos::View<G**>& to_center, const Field<T>& W,
                                          const Field<T>& L, const Field<T>& F) const {
  if (dim_ == 3)
    reconstructed_face_fluxes<3, T, G>(face_left_, face_right_, face_kind_, gas_,
                                       static_cast<int>(scheme_), outer_state_, normal, to_center,
                                       W, L, F, n_faces_);
  else
    reconstructed_face_fluxes<2, T, G>(face_left_, face_right_, face_kind_, gas_,
                                       static_cast<int>(scheme_), outer_state_, normal, to_center,
                                       W, L, F, n_faces_);
}

template <class T, class G>
void Discretization::fluxes(const Kokkos::View<G**>& normal, const Kokkos::View<G**>& to_center,
                            const StencilGeometry<G>& stencil, const Field<T>& U,
                            const Field<T>& F) const {
  if (spatial_.order == 1) {
    face_fluxes<T, G>(normal, U, F);
    return;
  }
  Field<T> W("euler::W", static_cast<size_t>(n_local_), n_vars());
  Field<T> L("euler::L", static_cast<size_t>(n_local_), n_vars() * dim_);
  limited_gradients<T, G>(stencil, U, W, L);
  reconstructed_fluxes<T, G>(normal, to_center, W, L, F);
}

template <class T>
void Discretization::fluxes(const Field<T>& U, const Field<T>& F) const {
  fluxes<T, double>(geometry_.face_normal, face_to_center_, reconstruction_.geometry(), U, F);
}

template <class T>
void Discretization::gather_residual(const Field<T>& F, const Field<T>& R) const {
  const auto offset = cell_face_offset_;
  const auto faces = cell_face_;
  const auto sign = cell_face_sign_;
  const int nv = n_vars();
  Kokkos::parallel_for(
      "euler::gather_residual", Kokkos::RangePolicy<>(0, n_owned_), KOKKOS_LAMBDA(const index_t c) {
        T sum[5] = {};
        for (index_t j = offset(c); j < offset(c + 1); ++j)
          for (int k = 0; k < nv; ++k) sum[k] += sign(j) * F(faces(j), k);
        for (int k = 0; k < nv; ++k) R(c, k) = sum[k];
      });
}

Tensor Discretization::residual(Tensor& U) const {
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, n_vars()}),
                 "euler residual: U has shape " << shape_string(U.shape()) << ", expected "
                                                << shape_string({n_local_, n_vars()}));
  dm_->halo().forward(U);
  Field<double> F("euler::F", static_cast<size_t>(n_faces_), n_vars());
  fluxes<double>(field_of(U), F);
  Tensor R({n_local_, n_vars()});
  gather_residual<double>(F, field_of(R));
  Kokkos::fence();
  return R;
}

void Discretization::residual_and_tangent(Tensor& U, Tensor& V, Tensor& R, Tensor& dR) const {
  using D = ad::Dual<double, 1>;
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, n_vars()}) && V.shape() == U.shape(),
                 "euler residual_and_tangent: U and V must have shape "
                     << shape_string({n_local_, n_vars()}));
  dm_->halo().forward(U);
  dm_->halo().forward(V);
  const Field<double> u = field_of(U), v = field_of(V);
  const int nv = n_vars();
  Field<D> ud("euler::U_dual", static_cast<size_t>(n_local_), nv);
  Kokkos::parallel_for(
      "euler::seed", Kokkos::RangePolicy<>(0, n_local_), KOKKOS_LAMBDA(const index_t c) {
        for (int k = 0; k < nv; ++k) {
          ud(c, k) = D(u(c, k));
          ud(c, k).der(0) = v(c, k);
        }
      });
  Field<D> fd("euler::F_dual", static_cast<size_t>(n_faces_), nv);
  Field<D> rd("euler::R_dual", static_cast<size_t>(n_local_), nv);
  fluxes<D>(ud, fd);
  gather_residual<D>(fd, rd);
  R = Tensor({n_local_, nv});
  dR = Tensor({n_local_, nv});
  const Field<double> r = field_of(R), dr = field_of(dR);
  Kokkos::parallel_for(
      "euler::unseed", Kokkos::RangePolicy<>(0, n_owned_), KOKKOS_LAMBDA(const index_t c) {
        for (int k = 0; k < nv; ++k) {
          r(c, k) = rd(c, k).val();
          dr(c, k) = rd(c, k).der(0);
        }
      });
  Kokkos::fence();
}

Tensor Discretization::primitive_gradients(Tensor& U) const {
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, n_vars()}),
                 "euler primitive_gradients: U has shape " << shape_string(U.shape())
                                                           << ", expected "
                                                           << shape_string({n_local_, n_vars()}));
  dm_->halo().forward(U);
  Field<double> W("euler::W", static_cast<size_t>(n_local_), n_vars());
  primitive_field<double>(field_of(U), W);
  Tensor G({n_local_, n_vars(), dim_});
  reconstruction_.gradients<double>(
      W, Field<double>(G.data(), static_cast<size_t>(n_local_), n_vars() * dim_));
  Kokkos::fence();
  dm_->halo().forward(G);
  return G;
}

Tensor Discretization::limiter(Tensor& U) const {
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, n_vars()}),
                 "euler limiter: U has shape " << shape_string(U.shape()) << ", expected "
                                               << shape_string({n_local_, n_vars()}));
  dm_->halo().forward(U);
  if (spatial_.freeze_limiter && !frozen_phi_.empty()) return frozen_phi_.clone();
  Field<double> W("euler::W", static_cast<size_t>(n_local_), n_vars());
  primitive_field<double>(field_of(U), W);
  Field<double> G("euler::G", static_cast<size_t>(n_owned_), n_vars() * dim_);
  reconstruction_.gradients<double>(W, G);
  Tensor phi({n_local_, n_vars()});
  reconstruction_.limiters<double>(W, G, field_of(phi));
  Kokkos::fence();
  dm_->halo().forward(phi);
  return phi;
}

void Discretization::freeze_limiter(Tensor& U) {
  spatial_.freeze_limiter = false;
  frozen_phi_ = limiter(U);
  spatial_.freeze_limiter = true;
}

void Discretization::set_limiter(const Tensor& phi) {
  CAMBER_REQUIRE(phi.rank() == 2 && phi.dim(1) == n_vars() &&
                     (phi.dim(0) == n_owned_ || phi.dim(0) == n_local_),
                 "euler set_limiter: phi has shape " << shape_string(phi.shape()) << ", expected "
                                                     << shape_string({n_owned_, n_vars()}) << " or "
                                                     << shape_string({n_local_, n_vars()}));
  Tensor stored({n_local_, n_vars()});
  Kokkos::deep_copy(Kokkos::subview(stored.view(), std::make_pair(index_t{0}, n_owned_ * n_vars())),
                    Kokkos::subview(phi.view(), std::make_pair(index_t{0}, n_owned_ * n_vars())));
  dm_->halo().forward(stored);
  frozen_phi_ = stored;
  spatial_.freeze_limiter = true;
}

void Discretization::unfreeze_limiter() {
  spatial_.freeze_limiter = false;
  frozen_phi_ = Tensor();
}

Tensor Discretization::face_jacobians(const Tensor& U) const {
  const int nv = n_vars();
  Tensor J({n_faces_, nv, 2 * nv});
  if (dim_ == 3)
    face_jacobian_blocks<3>(face_left_, face_right_, face_kind_, gas_, static_cast<int>(scheme_),
                            outer_state_, geometry_.face_normal, field_of(U), J.data(), n_faces_);
  else
    face_jacobian_blocks<2>(face_left_, face_right_, face_kind_, gas_, static_cast<int>(scheme_),
                            outer_state_, geometry_.face_normal, field_of(U), J.data(), n_faces_);
  return J;
}

Tensor Discretization::spectral_radius(const Tensor& U) const {
  Tensor lambda({n_owned_});
  if (dim_ == 3)
    spectral_radii<3>(gas_, field_of(U), cell_face_offset_, cell_face_, geometry_.face_normal,
                      geometry_.face_area, lambda.data(), n_owned_);
  else
    spectral_radii<2>(gas_, field_of(U), cell_face_offset_, cell_face_, geometry_.face_normal,
                      geometry_.face_area, lambda.data(), n_owned_);
  return lambda;
}

Forces Discretization::forces(const Tensor& U) const {
  const Field<double> u = field_of(U);
  // Second order: the wall pressure is the reconstructed face pressure, from
  // a halo-filled copy of U.
  const bool reconstruct = spatial_.order == 2;
  Field<double> W, L;
  if (reconstruct) {
    Tensor filled = U.clone();
    dm_->halo().forward(filled);
    W = Field<double>("euler::W", static_cast<size_t>(n_local_), n_vars());
    L = Field<double>("euler::L", static_cast<size_t>(n_local_), n_vars() * dim_);
    limited_gradients<double, double>(reconstruction_.geometry(), field_of(filled), W, L);
  }
  return dim_ == 3 ? wall_forces<3>(u, W, L) : wall_forces<2>(u, W, L);
}

Tensor Discretization::wall_face_pressures(const Tensor& U) const {
  const bool reconstruct = spatial_.order == 2;
  Tensor filled = U.clone();
  dm_->halo().forward(filled);
  const Field<double> u = field_of(filled);
  Field<double> W, L;
  if (reconstruct) {
    W = Field<double>("euler::W", static_cast<size_t>(n_local_), n_vars());
    L = Field<double>("euler::L", static_cast<size_t>(n_local_), n_vars() * dim_);
    limited_gradients<double, double>(reconstruction_.geometry(), u, W, L);
  }
  Tensor P({n_faces_});
  double* p = P.data();
  const auto to_center = face_to_center_;
  const auto left = face_left_;
  const auto right = face_right_;
  const IdealGas gas = gas_;
  const bool three = dim_ == 3;
  Kokkos::parallel_for(
      "euler::wall_face_pressures", Kokkos::RangePolicy<>(0, n_faces_),
      KOKKOS_LAMBDA(const index_t f) {
        if (right(f) >= 0) return;
        p[f] = three ? wall_pressure<3>(reconstruct, gas, u, W, L, left(f), to_center, f)
                     : wall_pressure<2>(reconstruct, gas, u, W, L, left(f), to_center, f);
      });
  Kokkos::fence();
  return P;
}

template <int Dim>
Forces Discretization::wall_forces(const Field<double>& u, const Field<double>& W,
                                   const Field<double>& L) const {
  // The wall pressure: the wall cell's (first order) or reconstructed at
  // the face midpoint (second order).
  const bool reconstruct = spatial_.order == 2;
  const auto to_center = face_to_center_;
  const auto walls = wall_faces_;
  const auto left = face_left_;
  const auto normal = geometry_.face_normal;
  const auto center = geometry_.face_center;
  const IdealGas gas = gas_;
  const double p_inf = 1.0 / flow_.gamma;
  // The pitch plane's axes: x and y in 2-D, x and z in 3-D.
  const double xm = flow_.moment_point[0], zm = flow_.moment_point[Dim - 1];
  // Components: the Dim force components, then the pitching moment
  // (wall_face_load's, the one load the shape derivative differentiates).
  constexpr int n_sums = Dim + 1;
  // Each wall face's terms in a kernel, their sums on the host in face
  // order: the same bits on any number of threads (a parallel_reduce sums
  // in an order that follows the threads).
  const index_t n_walls = static_cast<index_t>(walls.extent(0));
  Kokkos::View<double**> loads(Kokkos::view_alloc(Kokkos::WithoutInitializing, "euler::wall_loads"),
                               static_cast<size_t>(n_walls), n_sums);
  Kokkos::parallel_for(
      "euler::forces", Kokkos::RangePolicy<>(0, n_walls), KOKKOS_LAMBDA(const index_t w) {
        const index_t f = walls(w);
        const double p = wall_pressure<Dim>(reconstruct, gas, u, W, L, left(f), to_center, f);
        for (int component = 0; component < Dim; ++component)
          loads(w, component) = (p - p_inf) * normal(f, component);
        double g[3];
        wall_face_load<Dim, double, double>(p, p_inf, normal, center, f, xm, zm, g);
        loads(w, Dim) = g[2];
      });
  const auto h_loads = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), loads);
  double sums[n_sums] = {};
  for (index_t w = 0; w < n_walls; ++w)
    for (int component = 0; component < n_sums; ++component) sums[component] += h_loads(w, component);
  double total[n_sums];
  CAMBER_CHECK_MPI(MPI_Allreduce(sums, total, n_sums, MPI_DOUBLE, MPI_SUM, dm_->comm()));
  // The coefficients from the pitch-plane load (f_x, f_up, m).
  const auto w = force_coefficient_weights();
  const double g[3] = {total[0], total[Dim - 1], total[Dim]};
  Forces r;
  r.fx = total[0];
  r.fy = total[1];
  if constexpr (Dim == 3) r.fz = total[2];
  r.cl = w[0][0] * g[0] + w[0][1] * g[1] + w[0][2] * g[2];
  r.cd = w[1][0] * g[0] + w[1][1] * g[1] + w[1][2] * g[2];
  r.cm = w[2][0] * g[0] + w[2][1] * g[1] + w[2][2] * g[2];
  return r;
}

std::array<std::array<double, 3>, 3> Discretization::force_coefficient_weights() const {
  const double a = flow_.alpha_deg * M_PI / 180.0;
  const double q = 0.5 * flow_.mach * flow_.mach;  // rho = 1
  const double c = flow_.reference_length;
  if (dim_ == 3) {
    // Against (f_x, f_z, m_y): lift along z turned by alpha about y, drag
    // along the free stream; m_y (right-handed about y) is nose up.
    const double qs = q * flow_.reference_area;
    return {{{-std::sin(a) / qs, std::cos(a) / qs, 0.0},
             {std::cos(a) / qs, std::sin(a) / qs, 0.0},
             {0.0, 0.0, 1.0 / (qs * c)}}};
  }
  // Lift is normal to the free stream, drag along it; a counterclockwise
  // moment is nose down.
  return {{{-std::sin(a) / (q * c), std::cos(a) / (q * c), 0.0},
           {std::cos(a) / (q * c), std::sin(a) / (q * c), 0.0},
           {0.0, 0.0, -1.0 / (q * c * c)}}};
}

void Discretization::residual_block_columns(Tensor& U, const Kokkos::View<const int*>& seeded,
                                            Tensor& R, Tensor& D) const {
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, n_vars()}) &&
                     static_cast<index_t>(seeded.extent(0)) == n_local_,
                 "euler residual_block_columns: U must have shape "
                     << shape_string({n_local_, n_vars()}) << " and seeded " << n_local_
                     << " entries");
  if (dim_ == 3)
    residual_block_columns_in<3>(U, seeded, R, D);
  else
    residual_block_columns_in<2>(U, seeded, R, D);
}

template <int Dim>
void Discretization::residual_block_columns_in(Tensor& U, const Kokkos::View<const int*>& seeded,
                                               Tensor& R, Tensor& D) const {
  constexpr int nv = Dim + 2;
  using DN = ad::Dual<double, nv>;
  dm_->halo().forward(U);
  const Field<DN> ud = seed_block_columns<nv>(field_of(U), seeded, n_local_);
  Field<DN> fd("euler::F_seeded", static_cast<size_t>(n_faces_), nv);
  Field<DN> rd("euler::R_seeded", static_cast<size_t>(n_local_), nv);
  fluxes<DN>(ud, fd);
  gather_residual<DN>(fd, rd);
  R = Tensor({n_local_, nv});
  D = Tensor({n_local_, nv, nv});
  const Field<double> r = field_of(R);
  double* dp = D.data();
  Kokkos::parallel_for(
      "euler::unseed_columns", Kokkos::RangePolicy<>(0, n_owned_), KOKKOS_LAMBDA(const index_t c) {
        for (int i = 0; i < nv; ++i) {
          r(c, i) = rd(c, i).val();
          for (int j = 0; j < nv; ++j) dp[(c * nv + i) * nv + j] = rd(c, i).der(j);
        }
      });
  Kokkos::fence();
}

Tensor Discretization::force_block_columns(const Tensor& U,
                                           const Kokkos::View<const int*>& seeded) const {
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, n_vars()}) &&
                     static_cast<index_t>(seeded.extent(0)) == n_local_,
                 "euler force_block_columns: U must have shape "
                     << shape_string({n_local_, n_vars()}) << " and seeded " << n_local_
                     << " entries");
  return dim_ == 3 ? force_block_columns_in<3>(U, seeded) : force_block_columns_in<2>(U, seeded);
}

template <int Dim>
Tensor Discretization::force_block_columns_in(const Tensor& U,
                                              const Kokkos::View<const int*>& seeded) const {
  constexpr int nv = Dim + 2;
  using DN = ad::Dual<double, nv>;
  Tensor filled = U.clone();
  dm_->halo().forward(filled);
  const Field<DN> ud = seed_block_columns<nv>(field_of(filled), seeded, n_local_);
  const bool reconstruct = spatial_.order == 2;
  Field<DN> W, L;
  if (reconstruct) {
    W = Field<DN>("euler::W_seeded", static_cast<size_t>(n_local_), nv);
    L = Field<DN>("euler::L_seeded", static_cast<size_t>(n_local_), nv * Dim);
    // The wall force reads W and L of the wall cells only.
    limited_gradients<DN, double>(reconstruction_.geometry(), ud, W, L, {}, {}, &wall_cells_);
  }
  return wall_force_derivatives<Dim, nv, double>(ud, W, L, geometry_.face_normal,
                                                 geometry_.face_center, face_to_center_);
}

void Discretization::shape_block_columns(Tensor& U, const Kokkos::View<const int*>& seeded_nodes,
                                         Tensor& DR, Tensor& DF) const {
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, n_vars()}) &&
                     static_cast<index_t>(seeded_nodes.extent(0)) == dm_->local().n_nodes(),
                 "euler shape_block_columns: U must have shape "
                     << shape_string({n_local_, n_vars()}) << " and seeded_nodes "
                     << dm_->local().n_nodes() << " entries");
  if (dim_ == 3)
    shape_block_columns_in<3>(U, seeded_nodes, DR, DF);
  else
    shape_block_columns_in<2>(U, seeded_nodes, DR, DF);
}

template <int Dim>
void Discretization::shape_block_columns_in(Tensor& U,
                                            const Kokkos::View<const int*>& seeded_nodes,
                                            Tensor& DR, Tensor& DF) const {
  constexpr int nv = Dim + 2;
  using DD = ad::Dual<double, Dim>;
  const mesh::Mesh& local = dm_->local();
  // Coordinates seeded in every direction at the marked nodes.
  const auto coords = local.coords();
  Kokkos::View<DD**> x("euler::coords_seeded", static_cast<size_t>(local.n_nodes()), Dim);
  Kokkos::parallel_for(
      "euler::seed_nodes", Kokkos::RangePolicy<>(0, local.n_nodes()), KOKKOS_LAMBDA(const index_t n) {
        for (int d = 0; d < Dim; ++d) {
          x(n, d) = DD(coords(n, d));
          if (seeded_nodes(n) != 0) x(n, d).der(d) = 1.0;
        }
      });
  Field<DD> rd;
  shape_sweep_in<Dim, Dim>(U, x, rd, DF);
  DR = Tensor({n_local_, nv, Dim});
  double* dr = DR.data();
  Kokkos::parallel_for(
      "euler::unseed_shape", Kokkos::RangePolicy<>(0, n_owned_), KOKKOS_LAMBDA(const index_t c) {
        for (int i = 0; i < nv; ++i)
          for (int d = 0; d < Dim; ++d) dr[(c * nv + i) * Dim + d] = rd(c, i).der(d);
      });
  Kokkos::fence();
}

void Discretization::shape_directional(Tensor& U, const Tensor& V, Tensor& DR,
                                       std::array<double, 3>& dG) const {
  const index_t n_nodes = dm_->local().n_nodes();
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, n_vars()}) &&
                     V.shape() == (Shape{n_nodes, static_cast<index_t>(dim_)}),
                 "euler shape_directional: U must have shape "
                     << shape_string({n_local_, n_vars()}) << " and V "
                     << shape_string({n_nodes, static_cast<index_t>(dim_)}));
  if (dim_ == 3)
    shape_directional_in<3>(U, V, DR, dG);
  else
    shape_directional_in<2>(U, V, DR, dG);
}

template <int Dim>
void Discretization::shape_directional_in(Tensor& U, const Tensor& V, Tensor& DR,
                                          std::array<double, 3>& dG) const {
  constexpr int nv = Dim + 2;
  using D1 = ad::Dual<double, 1>;
  const mesh::Mesh& local = dm_->local();
  // Coordinates with the tangent V.
  const auto coords = local.coords();
  const Field<double> v = field_of(V);
  Kokkos::View<D1**> x("euler::coords_tangent", static_cast<size_t>(local.n_nodes()), Dim);
  Kokkos::parallel_for(
      "euler::seed_tangent", Kokkos::RangePolicy<>(0, local.n_nodes()), KOKKOS_LAMBDA(const index_t n) {
        for (int d = 0; d < Dim; ++d) {
          x(n, d) = D1(coords(n, d));
          x(n, d).der(0) = v(n, d);
        }
      });
  Field<D1> rd;
  Tensor DF;
  shape_sweep_in<Dim, 1>(U, x, rd, DF);
  DR = Tensor({n_local_, nv});
  const Field<double> dr = field_of(DR);
  Kokkos::parallel_for(
      "euler::unseed_tangent", Kokkos::RangePolicy<>(0, n_owned_), KOKKOS_LAMBDA(const index_t c) {
        for (int i = 0; i < nv; ++i) dr(c, i) = rd(c, i).der(0);
      });
  Kokkos::fence();
  const auto fh = DF.host();
  double g[3] = {0.0, 0.0, 0.0};
  for (index_t c = 0; c < n_owned_; ++c)
    for (int m = 0; m < 3; ++m) g[m] += fh(c * 3 + m);
  CAMBER_CHECK_MPI(MPI_Allreduce(g, dG.data(), 3, MPI_DOUBLE, MPI_SUM, dm_->comm()));
}

template <int Dim, int N>
void Discretization::shape_sweep_in(Tensor& U, const Kokkos::View<ad::Dual<double, N>**>& x,
                                    Field<ad::Dual<double, N>>& rd, Tensor& DF) const {
  constexpr int nv = Dim + 2;
  using DD = ad::Dual<double, N>;
  dm_->halo().forward(U);
  // The geometry, the reconstruction stencil and x_f - x_c follow the
  // coordinates' Dual numbers.
  const mesh::GeometryFields<DD> g = mesh::compute_geometry(dm_->local(), x);
  const Kokkos::View<DD**> to_center = face_to_centers(g, face_left_, face_right_, n_faces_);
  const StencilGeometry<DD> stencil = reconstruction_.stencil_geometry(g);

  const Field<double> u = field_of(U);
  Field<DD> ud("euler::U_shape", static_cast<size_t>(n_local_), nv);
  Kokkos::parallel_for(
      "euler::promote", Kokkos::RangePolicy<>(0, n_local_), KOKKOS_LAMBDA(const index_t c) {
        for (int k = 0; k < nv; ++k) ud(c, k) = DD(u(c, k));
      });
  Field<DD> fd("euler::F_shape", static_cast<size_t>(n_faces_), nv);
  rd = Field<DD>("euler::R_shape", static_cast<size_t>(n_local_), nv);
  fluxes<DD, DD>(g.face_normal, to_center, stencil, ud, fd);
  gather_residual<DD>(fd, rd);

  // Wall forces: the face pressure (reconstructed at second order with the
  // seeded stencil), the seeded normal and midpoint.
  Field<DD> W, L;
  if (spatial_.order == 2) {
    W = Field<DD>("euler::W_shape", static_cast<size_t>(n_local_), nv);
    L = Field<DD>("euler::L_shape", static_cast<size_t>(n_local_), nv * Dim);
    limited_gradients<DD, DD>(stencil, ud, W, L);
  }
  DF = wall_force_derivatives<Dim, N, DD>(ud, W, L, g.face_normal, g.face_center, to_center);
}

template <int Dim, int N, class G>
Tensor Discretization::wall_force_derivatives(const Field<ad::Dual<double, N>>& ud,
                                              const Field<ad::Dual<double, N>>& W,
                                              const Field<ad::Dual<double, N>>& L,
                                              const Kokkos::View<G**>& normal,
                                              const Kokkos::View<G**>& center,
                                              const Kokkos::View<G**>& to_center) const {
  using D = ad::Dual<double, N>;
  const bool reconstruct = spatial_.order == 2;
  const auto walls = wall_faces_;
  const auto left = face_left_;
  const IdealGas gas = gas_;
  const double p_inf = 1.0 / flow_.gamma;
  const double xm = flow_.moment_point[0], zm = flow_.moment_point[Dim - 1];
  const index_t n_walls = static_cast<index_t>(walls.extent(0));
  Kokkos::View<double***> per_face("euler::wall_force_derivatives", static_cast<size_t>(n_walls),
                                   3, N);
  Kokkos::parallel_for(
      "euler::wall_force_derivatives", Kokkos::RangePolicy<>(0, n_walls),
      KOKKOS_LAMBDA(const index_t w) {
        const index_t f = walls(w);
        const D p = wall_pressure<Dim>(reconstruct, gas, ud, W, L, left(f), to_center, f);
        D gf[3];
        wall_face_load<Dim, D, G>(p, p_inf, normal, center, f, xm, zm, gf);
        for (int m = 0; m < 3; ++m)
          for (int j = 0; j < N; ++j) per_face(w, m, j) = gf[m].der(j);
      });
  Kokkos::fence();
  // Wall faces are owned faces of their (owned) left cell; a cell may have
  // several.
  const auto ph = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), per_face);
  const auto wh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), walls);
  const auto lh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), left);
  std::vector<double> out(static_cast<size_t>(n_owned_) * 3 * N, 0.0);
  for (index_t w = 0; w < n_walls; ++w) {
    const index_t c = lh(wh(w));
    for (int m = 0; m < 3; ++m)
      for (int j = 0; j < N; ++j) out[static_cast<size_t>((c * 3 + m) * N + j)] += ph(w, m, j);
  }
  return Tensor::from_host({n_owned_, 3, N}, out);
}

}  // namespace camber::solvers::euler
