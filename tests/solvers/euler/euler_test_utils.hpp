// Shared helpers of the Euler test suites: deterministic random fields and
// distorted meshes (the same on every rank count), a smooth non-uniform
// state, the small mesh and flows the derivative tests use, and error
// measures over owned rows and ranks.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <limits>
#include <random>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/generators.hpp>
#include <camber/mesh/mesh.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/solvers/euler/discretization.hpp>
#include <camber/core/config.hpp>
#if CAMBER_WITH_PETSC
#include <camber/solvers/euler/exact_jacobian.hpp>
#include <camber/solvers/petsc/petsc_error.hpp>
#include <camber/solvers/petsc/petsc_handle.hpp>
#endif
#include <camber/solvers/euler/ideal_gas.hpp>
#include <camber/solvers/euler/pseudo_transient_newton.hpp>
#include <camber/solvers/euler/shape_derivative.hpp>
#include <camber/core/tensor.hpp>
#include "tests/common/central_difference.hpp"
#include "tests/mpi_test_utils.hpp"

namespace camber::solvers::euler::test_utils {

constexpr double pi = 3.14159265358979323846;
constexpr double eps = std::numeric_limits<double>::epsilon();  // 2.2e-16
constexpr int nv = 4;  // the conserved variables of a 2-D mesh (Discretization::n_vars())

inline MPI_Comm world() { return test::world(); }
inline int rank() { return test::rank(); }
using test::say;

// ------------------------------------------------------------------ random numbers

// splitmix64: a portable hash, so that random fields and meshes are the same
// on every rank, every rank count and every standard library.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
// Uniform in [0, 1) from a 64-bit draw.
inline double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }
// Uniform in [-1, 1), a function of (seed, global cell id, component) only.
inline double hashed_uniform(std::uint64_t seed, std::int64_t id, int k) {
  return 2.0 * unit(splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(id) * 8 + k))) - 1.0;
}

// ------------------------------------------------------------------ meshes

// nx x ny cells on [0, lx] x [0, ly], interior nodes moved by a random
// vector of length up to `amplitude` times the spacing h = min(lx/nx,
// ly/ny) (uniform direction, so that no cell folds), boundary nodes
// slid along their side by up to `amplitude` times that side's spacing (the
// sides stay straight), corners fixed. About 40% of the quads are split into
// two triangles along a random diagonal. Finally the whole mesh is rotated
// by `rotate_deg` about the origin. Markers left/right/bottom/top.
// Deterministic (seeded), so every rank builds the same mesh.
inline mesh::Mesh distorted_rectangle(int nx, int ny, double lx, double ly, double amplitude,
                               double rotate_deg, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const double hx = lx / nx, hy = ly / ny, h = std::min(hx, hy);
  const double c = std::cos(rotate_deg * pi / 180.0), s = std::sin(rotate_deg * pi / 180.0);
  mesh::MeshData d;
  const auto node = [&](int i, int j) { return static_cast<index_t>(j) * (nx + 1) + i; };
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      double x = i * hx, y = j * hy;
      const bool side_x = i == 0 || i == nx, side_y = j == 0 || j == ny;
      const double a = unit(rng()), b = unit(rng());
      if (!side_x && !side_y) {
        const double r = amplitude * h * std::sqrt(a), phi = 2.0 * pi * b;
        x += r * std::cos(phi);
        y += r * std::sin(phi);
      } else if (side_y && !side_x) {
        x += amplitude * hx * (2.0 * a - 1.0);
      } else if (side_x && !side_y) {
        y += amplitude * hy * (2.0 * a - 1.0);
      }
      if (rotate_deg != 0.0) {
        const double xr = c * x - s * y, yr = s * x + c * y;
        x = xr;
        y = yr;
      }
      d.add_node(x, y);
    }
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const index_t a = node(i, j), b = node(i + 1, j), cc = node(i + 1, j + 1),
                    dd = node(i, j + 1);
      const double split = unit(rng()), diagonal = unit(rng());
      if (split >= 0.4) {
        d.add_cell(mesh::CellType::quad, {a, b, cc, dd});
      } else if (diagonal < 0.5) {
        d.add_cell(mesh::CellType::triangle, {a, b, cc});
        d.add_cell(mesh::CellType::triangle, {a, cc, dd});
      } else {
        d.add_cell(mesh::CellType::triangle, {a, b, dd});
        d.add_cell(mesh::CellType::triangle, {b, cc, dd});
      }
    }
  for (const char* name : {"left", "right", "bottom", "top"}) d.add_marker(name);
  for (int j = 0; j < ny; ++j) {
    d.markers[0].add_element({node(0, j + 1), node(0, j)});
    d.markers[1].add_element({node(nx, j), node(nx, j + 1)});
  }
  for (int i = 0; i < nx; ++i) {
    d.markers[2].add_element({node(i, 0), node(i + 1, 0)});
    d.markers[3].add_element({node(i + 1, ny), node(i, ny)});
  }
  return mesh::Mesh::from_cells(std::move(d), mesh::Orientation::require);
}

// ------------------------------------------------------------------ helpers

// The largest size of a flux component of state u through a unit normal:
// mass rho |u|, momentum rho |u|^2 + p, energy (rho E + p) |u|. A face's
// flux terms are at most this times its length.
inline double flux_scale(const IdealGas& gas, const Conserved<double, 2>& u) {
  const Primitive<double, 2> w = to_primitive(gas, u);
  const double speed = std::sqrt(w.vel[0] * w.vel[0] + w.vel[1] * w.vel[1]);
  return std::max({w.rho * speed, w.rho * speed * speed + w.p, (u.rho_E() + w.p) * speed});
}

// Per owned cell, the sum of its faces' lengths.
inline std::vector<double> perimeters(const Discretization& disc) {
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.face_right());
  const auto area =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().face_area);
  std::vector<double> p(static_cast<size_t>(disc.n_owned()), 0.0);
  for (index_t f = 0; f < disc.n_faces(); ++f) {
    if (left(f) < disc.n_owned()) p[static_cast<size_t>(left(f))] += area(f);
    if (right(f) >= 0 && right(f) < disc.n_owned()) p[static_cast<size_t>(right(f))] += area(f);
  }
  return p;
}

// A cell field {n_local, 4} whose owned rows are hashed_uniform(seed, global
// id, k): the same vector on every partition. Ghost rows zero.
inline Tensor random_field(const Discretization& disc, std::uint64_t seed) {
  Tensor v({disc.n_local(), nv});
  const auto& gid = disc.mesh().cell_global_ids();
  std::vector<double> values(static_cast<size_t>(disc.n_local() * nv), 0.0);
  for (index_t c = 0; c < disc.n_owned(); ++c)
    for (int k = 0; k < nv; ++k)
      values[static_cast<size_t>(c * nv + k)] =
          hashed_uniform(seed, gid[static_cast<size_t>(c)], k);
  v.assign(values);
  return v;
}

// Sum over owned rows and ranks of a . b.
inline double dot_owned(const Discretization& disc, const Tensor& a, const Tensor& b) {
  const std::vector<double> x = a.to_vector(), y = b.to_vector();
  double s = 0.0;
  for (index_t i = 0; i < disc.n_owned() * nv; ++i)
    s += x[static_cast<size_t>(i)] * y[static_cast<size_t>(i)];
  return par::allreduce_sum(s, disc.mesh().comm());
}

// Free stream plus a smooth perturbation of density (+-10%), velocity
// (+-0.1 M) and pressure (+-10%), evaluated at the cell centroids of the
// unit square: a non-uniform state with every flux branch in its interior.
inline Tensor perturbed_state(const Discretization& disc) {
  const auto centroid =
      Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), disc.geometry().cell_centroid);
  const FlowConditions& flow = disc.flow();
  const double a = flow.alpha_deg * pi / 180.0, m = flow.mach, g = flow.gamma;
  std::vector<double> values(static_cast<size_t>(disc.n_local() * nv));
  for (index_t c = 0; c < disc.n_local(); ++c) {
    const double x = centroid(c, 0), y = centroid(c, 1);
    Primitive<double, 2> w;
    w.rho = 1.0 + 0.1 * std::sin(2.0 * pi * x + 0.3) * std::cos(pi * y);
    w.vel[0] = m * std::cos(a) + 0.1 * m * std::sin(pi * x + 0.3) * std::sin(2.0 * pi * y);
    w.vel[1] = m * std::sin(a) + 0.1 * m * std::cos(2.0 * pi * x) * std::sin(pi * y + 0.5);
    w.p = (1.0 + 0.1 * std::cos(pi * x) * std::sin(2.0 * pi * y + 0.2)) / g;
    const Conserved<double, 2> u = to_conserved(disc.gas(), w);
    for (int k = 0; k < nv; ++k) values[static_cast<size_t>(c * nv + k)] = u[k];
  }
  Tensor U({disc.n_local(), nv});
  U.assign(values);
  return U;
}

// Rows of nv values per owned cell, on rank 0 by global cell id
// (collective).
inline std::map<std::int64_t, std::vector<double>> gathered(const Discretization& disc, const Tensor& R,
                                                    int n_vars) {
  const std::vector<double> r = R.to_vector();
  std::vector<double> mine;
  for (index_t c = 0; c < disc.n_owned(); ++c) {
    mine.push_back(static_cast<double>(disc.mesh().cell_global_ids()[c]));
    for (int k = 0; k < n_vars; ++k) mine.push_back(r[static_cast<size_t>(c * n_vars + k)]);
  }
  const std::vector<double> rows = par::gather_on_root(mine, disc.mesh().comm());
  std::map<std::int64_t, std::vector<double>> by_id;
  for (size_t i = 0; i < rows.size(); i += static_cast<size_t>(n_vars) + 1)
    by_id[static_cast<std::int64_t>(rows[i])] =
        std::vector<double>(rows.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                            rows.begin() + static_cast<std::ptrdiff_t>(i) + 1 + n_vars);
  return by_id;
}

// max over owned entries and ranks of |a - b|, and of |b| ({n_local, nv}
// Tensors).
inline std::pair<double, double> owned_difference(const Discretization& disc, const Tensor& a,
                                                  const Tensor& b) {
  const std::vector<double> x = a.to_vector(), y = b.to_vector();
  const index_t n = disc.n_owned() * b.shape()[1];
  double e = 0.0, top = 0.0;
  for (index_t i = 0; i < n; ++i) {
    e = std::max(e, std::abs(x[static_cast<size_t>(i)] - y[static_cast<size_t>(i)]));
    top = std::max(top, std::abs(y[static_cast<size_t>(i)]));
  }
  return {par::allreduce_max(e, disc.mesh().comm()), par::allreduce_max(top, disc.mesh().comm())};
}

#if CAMBER_WITH_PETSC
// The reverse shape derivative (ShapeDerivative's default) against the
// node colouring's forward mode at U: the largest difference and entry of
// the total dJ/dX for psi and the weights w, of (dR/dX) V and of (dG/dX) V
// (V {n_global_nodes, dim}).
struct ShapeMethodsDifference {
  int n_colors;
  double err, top, dr_err, dr_top, dg_err, dg_top;
};
inline ShapeMethodsDifference compare_shape_methods(const Discretization& disc, Tensor& U,
                                                    const Tensor& psi,
                                                    const std::array<double, 3>& w,
                                                    const Tensor& V) {
  ShapeDerivative reverse(disc);
  ShapeDerivative colouring(disc, ShapeDerivative::pattern(disc, ShapeMethod::colouring));
  EXPECT_EQ(reverse.method(), ShapeMethod::reverse);
  EXPECT_EQ(reverse.rows().size(), static_cast<size_t>(disc.mesh().local().n_nodes()));
  ShapeMethodsDifference d{colouring.n_colors(), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  const std::vector<double> a = reverse.total_derivative(U, psi, w).to_vector();
  const std::vector<double> b = colouring.total_derivative(U, psi, w).to_vector();
  for (size_t i = 0; i < a.size(); ++i) {
    d.err = std::max(d.err, std::abs(a[i] - b[i]));
    d.top = std::max(d.top, std::abs(b[i]));
  }
  std::array<double, 3> dg_reverse{}, dg_colouring{};
  const Tensor dr_reverse = reverse.directional(U, V, dg_reverse);
  const Tensor dr_colouring = colouring.directional(U, V, dg_colouring);
  std::tie(d.dr_err, d.dr_top) = owned_difference(disc, dr_reverse, dr_colouring);
  for (int m = 0; m < 3; ++m) {
    d.dg_err = std::max(d.dg_err, std::abs(dg_reverse[m] - dg_colouring[m]));
    d.dg_top = std::max(d.dg_top, std::abs(dg_colouring[m]));
  }
  return d;
}
#endif

#if CAMBER_WITH_PETSC
// y = A x over the owned rows of {n_local, n_vars} Tensors (transpose:
// A^T x).
inline Tensor apply(const ExactJacobian& jac, const Discretization& disc, const Tensor& x,
                    bool transpose = false) {
  const PetscInt bs = disc.n_vars();
  const PetscInt n = disc.n_owned() * bs;
  Tensor y({disc.n_local(), disc.n_vars()});
  Tensor xc = x.clone();
  petsc::VecHandle xv, yv;
  const MPI_Comm comm = disc.mesh().comm();
  CAMBER_CHECK_PETSC(VecCreateMPIWithArray(comm, bs, n, PETSC_DETERMINE, xc.data(), xv.out()));
  CAMBER_CHECK_PETSC(VecCreateMPIWithArray(comm, bs, n, PETSC_DETERMINE, y.data(), yv.out()));
  if (transpose)
    CAMBER_CHECK_PETSC(MatMultTranspose(jac.matrix(), xv.get(), yv.get()));
  else
    CAMBER_CHECK_PETSC(MatMult(jac.matrix(), xv.get(), yv.get()));
  return y;
}
#endif

// max over owned rows and ranks of |a - b| / max(scale).
inline double max_error(const Discretization& disc, const Tensor& a, const Tensor& b, double scale) {
  const std::vector<double> x = a.to_vector(), y = b.to_vector();
  double e = 0.0;
  for (index_t i = 0; i < disc.n_owned() * nv; ++i)
    e = std::max(e, std::abs(x[static_cast<size_t>(i)] - y[static_cast<size_t>(i)]));
  return par::allreduce_max(e, disc.mesh().comm()) / scale;
}

inline double max_owned(const Discretization& disc, const Tensor& a) {
  const std::vector<double> x = a.to_vector();
  double e = 0.0;
  for (index_t i = 0; i < disc.n_owned() * nv; ++i)
    e = std::max(e, std::abs(x[static_cast<size_t>(i)]));
  return par::allreduce_max(e, disc.mesh().comm());
}

// A small distorted mesh (10 x 8 quads, some split into triangles) with a
// slip wall below and far field elsewhere, so that every face kind has
// blocks; the state is perturbed_state(). Subsonic (M = 0.5) and
// supersonic (M = 1.3: the far-field state takes the upstream values)
// flow at 20 degrees, so that no far-field face sits near the inflow/outflow
// switch q_b = 0 (|q| >= M sin 20 - 0.1 M > 0.1).
// Built per use: a static one would outlive Kokkos (its Views are freed at
// exit, after Runtime finalized Kokkos).
inline mesh::Mesh derivative_mesh() { return distorted_rectangle(10, 8, 1.0, 1.0, 0.3, 0.0, 4242); }
inline const std::vector<BoundaryCondition> derivative_conditions = {{"left", BoundaryKind::far_field},
                                                              {"right", BoundaryKind::far_field},
                                                              {"bottom", BoundaryKind::slip_wall},
                                                              {"top", BoundaryKind::far_field}};

// venkatakrishnan_wang's threshold in the derivative tests: the perturbed
// state varies by ~0.03-0.06 per cell of derivative_mesh(), so with
// eps = 0.02 most cells are limited (phi in the cap's blend or below it),
// while the default 0.05 would leave many at phi = 1, untested.
inline constexpr double derivative_wang_epsilon = 0.02;

// The orders and limiters (live and frozen) of the derivative tests.
struct LimiterCase {
  const char* name;
  int order;
  LimiterKind limiter;
  bool freeze;
  double smooth_width = 0.25;  // venkatakrishnan_smooth only
};
inline const LimiterCase limiter_cases[] = {{"first order", 1, LimiterKind::none, false},
                      {"second order, no limiter", 2, LimiterKind::none, false},
                      {"second order, Venkatakrishnan live", 2, LimiterKind::venkatakrishnan, false},
                      {"second order, Venkatakrishnan frozen", 2, LimiterKind::venkatakrishnan, true},
                      {"second order, Venkatakrishnan-Wang live", 2, LimiterKind::venkatakrishnan_wang, false},
                      {"second order, Venkatakrishnan-Wang frozen", 2, LimiterKind::venkatakrishnan_wang, true},
                      {"second order, smooth Venkatakrishnan live", 2, LimiterKind::venkatakrishnan_smooth, false},
                      {"second order, smooth Venkatakrishnan live, width 0.02", 2, LimiterKind::venkatakrishnan_smooth, false, 0.02}};

inline FlowConditions derivative_flow(double mach) {
  FlowConditions flow;
  flow.mach = mach;
  flow.alpha_deg = 20.0;
  return flow;
}

// The size of the flux terms summed into a residual entry, max over cells:
// perimeter * flux_scale of the free stream (the perturbed state's fluxes
// are within ~30% of it). FD errors are measured against it.
inline double residual_term_scale(const Discretization& disc) {
  const std::vector<double> p = perimeters(disc);
  double m = 0.0;
  for (double x : p) m = std::max(m, x);
  return par::allreduce_max(m, disc.mesh().comm()) *
         flux_scale(disc.gas(), disc.flow().free_stream());
}

// Central difference of residual() in direction V with step h.
inline Tensor central_difference(const Discretization& disc, const Tensor& U, const Tensor& V, double h) {
  return camber::test::central_difference(
      [&](double t) {
        Tensor u = U.clone();
        u.axpy(t, V);
        return disc.residual(u);
      },
      0.0, h);
}

// The 2-D mesh extruded in z by `layers` layers of thickness dz: quads to
// hexahedra, triangles to prisms (cell c of layer k is 3-D cell k n + c,
// node i of level k node k n_nodes + i), each marker's edges to quads, and
// the end planes as markers z_lo and z_hi. The 2-D cells are counter-
// clockwise (Mesh::from_cells makes them so).
inline mesh::Mesh extruded(const mesh::Mesh& m2, int layers, double dz,
                           const std::string& source = "extruded") {
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m2.coords());
  const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m2.cell_offsets());
  const auto cn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m2.cell_nodes());
  const auto f_off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m2.face_offsets());
  const auto fn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m2.face_nodes());
  mesh::MeshData d;
  d.dim = 3;
  d.source = source;
  const index_t n = m2.n_nodes();
  for (int k = 0; k <= layers; ++k)
    for (index_t i = 0; i < n; ++i) d.add_node(x(i, 0), x(i, 1), k * dz);
  const auto at = [&](index_t node, int k) { return node + k * n; };
  for (int k = 0; k < layers; ++k)
    for (index_t c = 0; c < m2.n_cells(); ++c) {
      // VTK's orders: a hexahedron's base counter-clockwise seen from its
      // top, a wedge's base clockwise.
      const bool hex = off(c + 1) - off(c) == 4;
      std::vector<index_t> nodes;
      for (int level : {k, k + 1})
        for (index_t j = off(c); j < off(c + 1); ++j)
          nodes.push_back(at(cn(hex ? j : off(c + 1) - 1 - (j - off(c))), level));
      d.add_cell(hex ? mesh::CellType::hexahedron : mesh::CellType::prism, nodes.data(),
                 static_cast<int>(nodes.size()));
    }
  for (const mesh::Marker& m : m2.markers()) {
    const auto faces = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.faces);
    auto& m3 = d.add_marker(m.name);
    for (int k = 0; k < layers; ++k)
      for (index_t e = 0; e < m.n_faces(); ++e) {
        const index_t a = fn(f_off(faces(e))), b = fn(f_off(faces(e)) + 1);
        m3.add_element({at(a, k), at(b, k), at(b, k + 1), at(a, k + 1)});
      }
  }
  for (const auto& [name, k] : {std::pair<const char*, int>{"z_lo", 0}, {"z_hi", layers}}) {
    auto& m3 = d.add_marker(name);
    for (index_t c = 0; c < m2.n_cells(); ++c) {
      std::vector<index_t> nodes;
      for (index_t j = off(c); j < off(c + 1); ++j) nodes.push_back(at(cn(j), k));
      m3.add_element(nodes.data(), static_cast<int>(nodes.size()));
    }
  }
  return mesh::Mesh::from_cells(d, mesh::Orientation::require);
}

// ------------------------------------------------------------------ airfoil solves

// A wing of span 0.6 along y (lift along z, as the 3-D solver has it)
// between symmetry planes, at M 0.5, alpha 2 deg: extruded_wing().
constexpr double span = 0.6;

inline const std::vector<BoundaryCondition> wing_conditions = {
    {"airfoil", BoundaryKind::slip_wall},
    {"farfield", BoundaryKind::far_field},
    {"z_lo", BoundaryKind::symmetry},
    {"z_hi", BoundaryKind::symmetry}};

inline FlowConditions wing_flow() {
  FlowConditions flow;
  flow.mach = 0.5;
  flow.alpha_deg = 2.0;
  flow.reference_area = span;  // chord 1
  flow.moment_point = {0.25, 0.0, 0.0};
  return flow;
}

// The host coordinates of a mesh, {n_nodes, dim} row-major (the shape
// Mesh::with_coordinates takes back).
inline std::vector<double> host_coords(const mesh::Mesh& m) {
  const auto x = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m.coords());
  const int dim = m.dim();
  std::vector<double> c(static_cast<size_t>(m.n_nodes()) * static_cast<size_t>(dim));
  for (index_t n = 0; n < m.n_nodes(); ++n)
    for (int d = 0; d < dim; ++d) c[static_cast<size_t>(dim * n + d)] = x(n, d);
  return c;
}

// The O-grid extruded along z, turned by 90 degrees about x so that the
// span runs along y in [0, span] and the section lies in the x-z plane
// ((x, y, z) -> (x, z, -y), a rotation), then the section thinned towards
// y = span near the airfoil: z scaled by 1 - 0.25 (y / span) exp(-r^2), r
// the distance from mid-chord. Symmetry planes stay planes (y is
// unchanged).
inline mesh::Mesh extruded_wing(mesh::CellShape shape) {
  const mesh::Mesh m2 = mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 32, 10,
                                            0.25 / 32, 20.0, nullptr, shape);
  const mesh::Mesh m3 = extruded(m2, 3, span / 3, "wing");
  std::vector<double> x = host_coords(m3);
  for (index_t n = 0; n < m3.n_nodes(); ++n) {
    double* p = &x[static_cast<size_t>(3 * n)];
    const double y = p[2], z = -p[1];
    const double r2 = (p[0] - 0.5) * (p[0] - 0.5) + z * z;
    p[1] = y;
    p[2] = z * (1.0 - 0.25 * (y / span) * std::exp(-r2));
  }
  return m3.with_coordinates(Tensor::from_host({m3.n_nodes(), 3}, x));
}

inline const std::vector<BoundaryCondition> airfoil_conditions = {{"airfoil", BoundaryKind::slip_wall},
                                                           {"farfield", BoundaryKind::far_field}};

// Second order, Roe, the smooth Venkatakrishnan-Wang limiter: the scheme
// of the airfoil regression tests.
inline Discretization airfoil_discretization(mesh::DistributedMesh& dm, const FlowConditions& flow) {
  SpatialOptions spatial;
  spatial.order = 2;
  spatial.limiter = LimiterKind::venkatakrishnan_wang;
  return Discretization(dm, flow, airfoil_conditions, FluxScheme::roe, spatial);
}

// M 0.8, alpha 1.25 deg, second order with the smooth limiter live on a
// 48x24 NACA 0012 O-grid: the transonic case of the design tests.
inline FlowConditions transonic_flow() {
  FlowConditions flow;
  flow.mach = 0.8;
  flow.alpha_deg = 1.25;
  return flow;
}
inline SpatialOptions smooth_limited_second_order() {
  SpatialOptions spatial;
  spatial.order = 2;
  spatial.limiter = LimiterKind::venkatakrishnan_smooth;
  return spatial;
}
inline mesh::Mesh naca_ogrid_48x24() {
  return mesh::airfoil_ogrid(mesh::naca4("0012", /*sharp_te=*/true), 48, 24, 0.25 / 48, 50.0);
}

// A converged solution at `flow` (second order, limiter frozen at phi if
// given, else frozen once the residual fell 1e-4 and returned in phi), the
// density residual at ~1e-14 (round-off) either way.
struct Solved {
  Tensor U;
  Forces forces;
};

inline Solved solve_frozen(mesh::DistributedMesh& dm, const FlowConditions& flow, Tensor& phi,
                           const Tensor* start,
                           const std::vector<BoundaryCondition>& conditions = airfoil_conditions) {
  SpatialOptions spatial;
  spatial.order = 2;
  Discretization disc(dm, flow, conditions, FluxScheme::roe, spatial);
  SteadyOptions o;
  o.max_iterations = 200;
  o.rel_tolerance = 1e-12;
  Tensor U = start ? start->clone() : disc.free_stream_field();
  if (!phi.empty()) {
    // From the baseline solution: its residual at a nearby alpha or mesh is
    // small (1e-3 .. 1e-6), and 1e-10 of that below round-off (~2e-14): stop
    // at 1e-13 then.
    disc.set_limiter(phi);
    o.first_order_drop = 0.0;
    o.rel_tolerance = 1e-10;
    o.abs_tolerance = 1e-13;
  } else {
    o.freeze_limiter_drop = 1e-4;
    // Round-off, where the initial residual is small (a thin 3-D wing's
    // 1e-2: 1e-12 of it is below round-off).
    o.abs_tolerance = 1e-13;
  }
  const SteadyResult r = solve_steady(disc, U, o);
  say("[adjoint] solve at alpha %.4f: %d steps, %.2f s, residual %.2e of %.2e\n",
      flow.alpha_deg, r.iterations, r.history.back().seconds, r.history.back().residual_density,
      r.reference_residual);
  EXPECT_TRUE(r.converged) << "alpha " << flow.alpha_deg;
  if (phi.empty()) phi = r.limiter;
  return {U, r.forces};
}

}  // namespace camber::solvers::euler::test_utils
