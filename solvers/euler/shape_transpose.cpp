// detail::ShapeTranspose (detail/shape_transpose.hpp): the shape derivative
// of the residual and the wall load, swept in reverse.
#include "detail/shape_transpose.hpp"

#include <cmath>

#include <camber/autodiff/dual.hpp>
#include <camber/core/error.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/solvers/euler/flux.hpp>

#include "detail/face_flux.hpp"
#include "detail/reconstruction_kernels.hpp"

namespace camber::solvers::euler::detail {

namespace {

using Range = Kokkos::RangePolicy<>;

// The face offsets x_f - x_c of one cell's faces as the limiter reads them
// (to_face(j, d), j in [j0, j0 + n)), held in Dual numbers.
template <class D, int Dim>
struct LocalOffsets {
  D v[2 * Dim][Dim];
  index_t j0;
  KOKKOS_INLINE_FUNCTION const D& operator()(index_t j, int d) const { return v[j - j0][d]; }
};

}  // namespace

Tensor ShapeTranspose::apply(const Discretization& disc, Tensor& U, const Tensor& psi,
                             const std::array<double, 3>& weights) {
  const index_t nl = disc.n_local();
  const int nv = disc.n_vars();
  CAMBER_REQUIRE(U.shape() == (Shape{nl, nv}) && psi.shape() == (Shape{nl, nv}),
                 "euler shape derivative: U and psi must have shape "
                     << shape_string({nl, nv}) << "; they have " << shape_string(U.shape())
                     << " and " << shape_string(psi.shape()));
  CAMBER_REQUIRE(!disc.flow().far_field_vortex,
                 "the reverse shape derivative does not differentiate the far-field vortex's "
                 "dependence on the lift and the face centres; solve with "
                 "FlowConditions::far_field_vortex off");
  return disc.dim() == 3 ? apply_in<3>(disc, U, psi, weights) : apply_in<2>(disc, U, psi, weights);
}

template <int Dim>
Tensor ShapeTranspose::apply_in(const Discretization& disc, Tensor& U, const Tensor& psi,
                                const std::array<double, 3>& weights) {
  constexpr int nv = Dim + 2, up = Dim - 1;
  const mesh::Mesh& local = disc.dm_->local();
  const index_t n_owned = disc.n_owned_, n_local = disc.n_local_, n_faces = disc.n_faces_;
  CAMBER_REQUIRE(local.n_cells() == n_local,
                 "euler shape derivative: the local mesh has " << local.n_cells()
                                                               << " cells, the discretization "
                                                               << n_local);
  const bool reconstruct = disc.spatial_.order == 2;
  const bool live = reconstruct && !disc.spatial_.freeze_limiter &&
                    disc.spatial_.limiter != LimiterKind::none;
  disc.dm_->halo().forward(U);
  const Field<double> u = field_of(U);
  const Field<double> ps = field_of(psi);

  // The forward values: W and L (every local cell), G and phi (owned).
  Field<double> W("euler::shape_W", static_cast<size_t>(n_local), nv);
  Field<double> L("euler::shape_L", static_cast<size_t>(n_local), nv * Dim);
  Field<double> G, phi;
  if (reconstruct) {
    G = Field<double>("euler::shape_G", static_cast<size_t>(n_owned), nv * Dim);
    phi = Field<double>("euler::shape_phi", static_cast<size_t>(n_owned), nv);
    disc.limited_gradients<double, double>(disc.reconstruction_.geometry(), u, W, L, G, phi);
  } else {
    disc.primitive_field<double>(u, W);
  }

  // The geometry's bars (zero-initialized), and that of L.
  const index_t n_mesh_faces = local.n_faces();
  mesh::GeometryFields<double> bar;
  bar.face_normal = Kokkos::View<double**>("euler::shape_nbar", static_cast<size_t>(n_mesh_faces), Dim);
  bar.face_center = Kokkos::View<double**>("euler::shape_xfbar", static_cast<size_t>(n_mesh_faces), Dim);
  bar.cell_centroid = Kokkos::View<double**>("euler::shape_xcbar", static_cast<size_t>(n_local), Dim);
  bar.cell_volume = Kokkos::View<double*>("euler::shape_vbar", reconstruct && live ? n_local : 0);
  Field<double> Lbar("euler::shape_Lbar", static_cast<size_t>(reconstruct ? n_local : 0), nv * Dim);
  const auto nbar = bar.face_normal, xfbar = bar.face_center, xcbar = bar.cell_centroid;
  const auto vbar = bar.cell_volume;

  Kokkos::View<int*> is_wall("euler::shape_is_wall", static_cast<size_t>(n_faces));
  {
    const auto walls = disc.wall_faces_;
    Kokkos::parallel_for(
        "euler::shape_walls", Range(0, static_cast<index_t>(walls.extent(0))),
        KOKKOS_LAMBDA(const index_t w) { is_wall(walls(w)) = 1; });
  }

  // 1-2. Faces.
  const auto left = disc.face_left_, right = disc.face_right_;
  const auto kind = disc.face_kind_;
  const auto outer = disc.outer_state_;
  const auto normal = disc.geometry_.face_normal;
  const auto center = disc.geometry_.face_center;
  const auto to_center = disc.face_to_center_;
  const IdealGas gas = disc.gas_;
  const int scheme = static_cast<int>(disc.scheme_);
  const double p_inf = 1.0 / disc.flow_.gamma;
  const double xm = disc.flow_.moment_point[0], zm = disc.flow_.moment_point[Dim - 1];
  const double w0 = weights[0], w1 = weights[1], w2 = weights[2];
  Kokkos::parallel_for(
      "euler::shape_faces", Range(0, n_faces), KOKKOS_LAMBDA(const index_t f) {
        constexpr int N = Dim + 2 * nv;
        using D = ad::Dual<double, N>;
        const index_t l = left(f), r = right(f);
        const bool lo = l < n_owned, ro = r >= 0 && r < n_owned, wall = is_wall(f) != 0;
        double fb[nv];
        bool any = wall;
        for (int k = 0; k < nv; ++k) {
          fb[k] = -((lo ? ps(l, k) : 0.0) - (ro ? ps(r, k) : 0.0));
          any = any || fb[k] != 0.0;
        }
        if (!any) return;
        // The two face states as the residual makes them (primitive, seeded
        // after the normal).
        Primitive<double, Dim> q[2];
        if (reconstruct) {
          q[0] = face_state<Dim>(W, L, l, to_center, f, 0);
          q[1] = r >= 0 ? face_state<Dim>(W, L, r, to_center, f, 1) : q[0];
        }
        D n[Dim];
        for (int d = 0; d < Dim; ++d) {
          n[d] = D(normal(f, d));
          n[d].der(d) = 1.0;
        }
        Conserved<D, Dim> us[2];
        for (int s = 0; s < 2; ++s) {
          if (!reconstruct) {
            const index_t c = s == 0 ? l : (r >= 0 ? r : l);
            for (int k = 0; k < nv; ++k) us[s][k] = D(u(c, k));
            continue;
          }
          Primitive<D, Dim> w;
          const int o = Dim + s * nv;
          w.rho = D(q[s].rho);
          w.rho.der(o) = 1.0;
          for (int d = 0; d < Dim; ++d) {
            w.vel[d] = D(q[s].vel[d]);
            w.vel[d].der(o + 1 + d) = 1.0;
          }
          w.p = D(q[s].p);
          w.p.der(o + nv - 1) = 1.0;
          us[s] = to_conserved(gas, w);
        }
        D y[nv];
        if (r >= 0) {
          InteriorFlux<D, Dim> flux{gas, {}, scheme};
          for (int d = 0; d < Dim; ++d) flux.n[d] = n[d];
          D x[2 * nv];
          for (int k = 0; k < nv; ++k) {
            x[k] = us[0][k];
            x[nv + k] = us[1][k];
          }
          flux(x, y);
        } else {
          BoundaryFlux<D, Dim> flux{gas, {}, scheme, kind(f), outer_state<Dim>(outer, f)};
          for (int d = 0; d < Dim; ++d) flux.n[d] = n[d];
          D x[nv];
          for (int k = 0; k < nv; ++k) x[k] = us[0][k];
          flux(x, y);
        }
        double nb[Dim], cb[Dim] = {}, qb[2][nv];
        for (int j = 0; j < Dim; ++j) {
          nb[j] = 0.0;
          for (int k = 0; k < nv; ++k) nb[j] += fb[k] * y[k].der(j);
        }
        for (int s = 0; s < 2; ++s)
          for (int j = 0; j < nv; ++j) {
            qb[s][j] = 0.0;
            for (int k = 0; k < nv; ++k) qb[s][j] += fb[k] * y[k].der(Dim + s * nv + j);
          }
        if (wall) {
          // w . G of this face: G = (dp n_x, dp n_up, the moment), dp = p -
          // p_inf (wall_face_load).
          Conserved<double, Dim> ul;
          for (int k = 0; k < nv; ++k) ul[k] = u(l, k);
          const double p = reconstruct ? q[0].p : pressure(gas, ul);
          const double dp = p - p_inf, nx = normal(f, 0), nu = normal(f, up);
          const double dx = center(f, 0) - xm, dz = center(f, up) - zm;
          // The moment is sigma (dx g_up - dz g_x), sigma = 1 in 2-D and -1
          // in 3-D (wall_face_load).
          const double sigma = Dim == 2 ? 1.0 : -1.0;
          nb[0] += dp * (w0 - sigma * w2 * dz);
          nb[up] += dp * (w1 + sigma * w2 * dx);
          cb[0] += sigma * w2 * dp * nu;
          cb[up] -= sigma * w2 * dp * nx;
          qb[0][nv - 1] += w0 * nx + w1 * nu + sigma * w2 * (dx * nu - dz * nx);
        }
        if (reconstruct)
          for (int s = 0; s < 1 + (r >= 0 ? 1 : 0); ++s) {
            const index_t c = s == 0 ? l : r;
            // reconstructed_state's positivity fallback: the state is W_c.
            double rho = W(c, 0), p = W(c, nv - 1);
            for (int d = 0; d < Dim; ++d) {
              rho += L(c, d) * to_center(f, Dim * s + d);
              p += L(c, Dim * (nv - 1) + d) * to_center(f, Dim * s + d);
            }
            if (!(rho > 0.0) || !(p > 0.0)) continue;
            for (int d = 0; d < Dim; ++d) {
              const double dx = to_center(f, Dim * s + d);
              double db = 0.0;
              for (int k = 0; k < nv; ++k) {
                db += qb[s][k] * L(c, Dim * k + d);
                Kokkos::atomic_add(&Lbar(c, Dim * k + d), qb[s][k] * dx);
              }
              cb[d] += db;
              Kokkos::atomic_add(&xcbar(c, d), -db);
            }
          }
        for (int d = 0; d < Dim; ++d) {
          nbar(f, d) = nb[d];
          xfbar(f, d) = cb[d];
        }
      });
  Kokkos::fence();

  if (reconstruct) {
    // 3. Ghost cells' Lbar to their owners.
    Tensor raw = raw_tensor(Lbar);
    raw.mark_modified();
    disc.dm_->halo().reverse_add(raw);

    // 4. Owned cells: the limiter, the fit.
    const SpatialOptions& spatial = disc.spatial_;
    const LimiterForm form = limiter_form(spatial.limiter);
    const bool smooth = form == LimiterForm::smooth;
    const double wang_eps2 = spatial.wang_epsilon * spatial.wang_epsilon;
    const double width = spatial.smooth_width * spatial.wang_epsilon;
    const double k3 = spatial.venkatakrishnan_k * spatial.venkatakrishnan_k *
                      spatial.venkatakrishnan_k;
    const auto face_offset = disc.cell_face_offset_;
    const auto faces = disc.cell_face_;
    const auto nb_offset = disc.reconstruction_.neighbor_offset();
    const auto nb_cell = disc.reconstruction_.neighbor_cell();
    const auto to_face = disc.reconstruction_.geometry().to_face;
    const auto eps2 = disc.reconstruction_.geometry().eps2;
    const auto centroid = disc.geometry_.cell_centroid;
    const auto volume = disc.geometry_.cell_volume;
    Kokkos::parallel_for(
        "euler::shape_cells", Range(0, n_owned), KOKKOS_LAMBDA(const index_t c) {
          double gb[nv][Dim], pb[nv];
          for (int k = 0; k < nv; ++k) {
            pb[k] = 0.0;
            for (int d = 0; d < Dim; ++d) {
              const double lb = Lbar(c, Dim * k + d);
              pb[k] += lb * G(c, Dim * k + d);
              gb[k][d] = phi(c, k) * lb;
            }
          }
          const index_t j0 = face_offset(c), j1 = face_offset(c + 1);
          const index_t n0 = nb_offset(c), n1 = nb_offset(c + 1);
          if (live) {
            // phi_k(G_k, x_f - x_c of each face, eps^2) by one Dual per
            // variable; d_max and d_min depend on W only.
            constexpr int M = Dim + 2 * Dim * Dim + 1;
            using D = ad::Dual<double, M>;
            const bool classic = form == LimiterForm::classic;
            double tb[2 * Dim][Dim] = {}, eb = 0.0;
            for (int k = 0; k < nv; ++k) {
              if (pb[k] == 0.0) continue;
              double d_max = 0.0, d_min = 0.0;
              if (smooth) {
                smooth_neighbour_range(W, c, k, nb_cell, n0, n1, width, d_max, d_min);
              } else {
                index_t c_max = c, c_min = c;
                neighbour_extremes(W, c, k, nb_cell, n0, n1, c_max, c_min);
                d_max = W(c_max, k) - W(c, k);
                d_min = W(c_min, k) - W(c, k);
              }
              D g[Dim];
              for (int d = 0; d < Dim; ++d) {
                g[d] = D(G(c, Dim * k + d));
                g[d].der(d) = 1.0;
              }
              LocalOffsets<D, Dim> tf;
              tf.j0 = j0;
              for (index_t j = j0; j < j1; ++j)
                for (int d = 0; d < Dim; ++d) {
                  tf.v[j - j0][d] = D(to_face(j, d));
                  tf.v[j - j0][d].der(Dim + Dim * static_cast<int>(j - j0) + d) = 1.0;
                }
              D e(classic ? eps2(c) : wang_eps2);
              if (classic) e.der(M - 1) = 1.0;
              const D p = venkatakrishnan_cell(D(d_max), D(d_min), g, tf, j0, j1, form, e);
              for (int d = 0; d < Dim; ++d) gb[k][d] += pb[k] * p.der(d);
              for (index_t j = j0; j < j1; ++j)
                for (int d = 0; d < Dim; ++d)
                  tb[j - j0][d] += pb[k] * p.der(Dim + Dim * static_cast<int>(j - j0) + d);
              eb += pb[k] * p.der(M - 1);
            }
            // to_face(j) = x_f - x_c; eps^2 = K^3 |V|^(3 / Dim).
            for (index_t j = j0; j < j1; ++j)
              for (int d = 0; d < Dim; ++d) {
                Kokkos::atomic_add(&xfbar(faces(j), d), tb[j - j0][d]);
                Kokkos::atomic_add(&xcbar(c, d), -tb[j - j0][d]);
              }
            if (classic && eb != 0.0) {
              const double v = volume(c), a = v < 0.0 ? -v : v;
              const double s = v < 0.0 ? -1.0 : 1.0;
              // h = |V|^(1 / Dim) and dh/d|V|.
              const double h = Dim == 2 ? ad::sqrt(a) : ad::cbrt(a);
              const double dh = Dim == 2 ? 0.5 / h : 1.0 / (3.0 * h * h);
              Kokkos::atomic_add(&vbar(c), eb * 3.0 * k3 * h * h * dh * s);
            }
          }
          // The fit: abar_e = Gbar (W_m - W_c), then a_e = w_e M^-1 d_e
          // reversed (detail/shape_transpose.hpp).
          double xc[Dim];
          for (int d = 0; d < Dim; ++d) xc[d] = centroid(c, d);
          // Entry e's d_e = x_m - x_c, its weight 1 / |d_e|^2 and abar_e.
          const auto entry = [&](index_t e, double (&dv)[Dim], double (&ab)[Dim]) {
            const index_t mcell = nb_cell(e);
            double d2 = 0.0;
            for (int d = 0; d < Dim; ++d) {
              dv[d] = centroid(mcell, d) - xc[d];
              d2 += dv[d] * dv[d];
              ab[d] = 0.0;
            }
            for (int k = 0; k < nv; ++k) {
              const double dw = W(mcell, k) - W(c, k);
              for (int d = 0; d < Dim; ++d) ab[d] += gb[k][d] * dw;
            }
            return 1.0 / d2;
          };
          double m[Dim][Dim] = {};
          for (index_t e = n0; e < n1; ++e) {
            double dv[Dim], ab[Dim];
            const double w = entry(e, dv, ab);
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b) m[a][b] += w * dv[a] * dv[b];
          }
          double adj[Dim][Dim], det, det_floor;
          normal_matrix_adjugate<Dim>(m, adj, det, det_floor);
          if (!(det > det_floor)) return;  // a zero gradient: no dependence
          double A[Dim][Dim];
          for (int a = 0; a < Dim; ++a)
            for (int b = 0; b < Dim; ++b) A[a][b] = adj[a][b] / det;
          // S = sum_e w_e abar_e d_e^T; Mbar = -A S A.
          double S[Dim][Dim] = {};
          for (index_t e = n0; e < n1; ++e) {
            double dv[Dim], ab[Dim];
            const double w = entry(e, dv, ab);
            for (int a = 0; a < Dim; ++a)
              for (int b = 0; b < Dim; ++b) S[a][b] += w * ab[a] * dv[b];
          }
          double T[Dim][Dim], Mb[Dim][Dim];
          for (int a = 0; a < Dim; ++a)
            for (int b = 0; b < Dim; ++b) {
              T[a][b] = 0.0;
              for (int k = 0; k < Dim; ++k) T[a][b] += S[a][k] * A[k][b];
            }
          for (int a = 0; a < Dim; ++a)
            for (int b = 0; b < Dim; ++b) {
              Mb[a][b] = 0.0;
              for (int k = 0; k < Dim; ++k) Mb[a][b] -= A[a][k] * T[k][b];
            }
          double cb_self[Dim] = {};
          for (index_t e = n0; e < n1; ++e) {
            double dv[Dim], ab[Dim];
            const double w = entry(e, dv, ab);
            double Ad[Dim], Aab[Dim], Md[Dim];
            double wb = 0.0;
            for (int a = 0; a < Dim; ++a) {
              Ad[a] = Aab[a] = Md[a] = 0.0;
              for (int b = 0; b < Dim; ++b) {
                Ad[a] += A[a][b] * dv[b];
                Aab[a] += A[a][b] * ab[b];
                Md[a] += (Mb[a][b] + Mb[b][a]) * dv[b];
              }
            }
            for (int a = 0; a < Dim; ++a) {
              wb += ab[a] * Ad[a];
              for (int b = 0; b < Dim; ++b) wb += dv[a] * Mb[a][b] * dv[b];
            }
            for (int d = 0; d < Dim; ++d) {
              const double db = w * Aab[d] + w * Md[d] - 2.0 * wb * w * w * dv[d];
              Kokkos::atomic_add(&xcbar(nb_cell(e), d), db);
              cb_self[d] -= db;
            }
          }
          for (int d = 0; d < Dim; ++d) Kokkos::atomic_add(&xcbar(c, d), cb_self[d]);
        });
    Kokkos::fence();
  }

  // 5. The geometry to the nodes.
  const Kokkos::View<double**> xbar = mesh::geometry_transpose(local, local.coords(), bar);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), xbar);
  std::vector<double> out(static_cast<size_t>(local.n_nodes()) * Dim);
  for (index_t n = 0; n < local.n_nodes(); ++n)
    for (int d = 0; d < Dim; ++d) out[static_cast<size_t>(n * Dim + d)] = h(n, d);
  return Tensor::from_host({local.n_nodes(), static_cast<index_t>(Dim)}, out);
}

template Tensor ShapeTranspose::apply_in<2>(const Discretization&, Tensor&, const Tensor&,
                                            const std::array<double, 3>&);
template Tensor ShapeTranspose::apply_in<3>(const Discretization&, Tensor&, const Tensor&,
                                            const std::array<double, 3>&);

}  // namespace camber::solvers::euler::detail
