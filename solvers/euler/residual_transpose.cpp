// detail::ResidualTranspose (detail/residual_transpose.hpp): the transposed
// exact Jacobian of the residual, swept in reverse without forming it.
#include "detail/residual_transpose.hpp"

#include <cmath>
#include <string>
#include <vector>

#include <camber/autodiff/dual.hpp>
#include <camber/autodiff/jacobian.hpp>
#include <camber/core/error.hpp>

#include "detail/discretization_kernels.hpp"
#include "detail/face_flux.hpp"
#include "detail/reconstruction_kernels.hpp"

namespace camber::solvers::euler::detail {

namespace {

using Range = Kokkos::RangePolicy<>;

// d/da and d/db of smooth_max_above(a, b, delta).
KOKKOS_INLINE_FUNCTION void smooth_max_partials(double a, double b, double delta, double& da,
                                                double& db) {
  const double d = a - b;
  const double s = ad::sqrt(d * d + delta * delta);
  da = 0.5 * (1.0 + d / s);
  db = 0.5 * (1.0 - d / s);
}

}  // namespace

ResidualTranspose::ResidualTranspose(const Discretization& disc)
    : disc_(&disc),
      dim_(disc.dim()),
      nv_(disc.n_vars()),
      n_owned_(disc.n_owned()),
      n_local_(disc.n_local()),
      n_faces_(disc.n_faces()),
      reconstruct_(disc.spatial().order == 2) {
  CAMBER_REQUIRE(!disc.flow().far_field_vortex,
                 "the transposed residual does not differentiate the far-field vortex's "
                 "dependence on the lift; solve with FlowConditions::far_field_vortex off");
  if (!reconstruct_) return;
  // The transposed stencil, on the host once: entries in ascending order
  // per local cell.
  const auto nb_offset = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), disc.reconstruction().neighbor_offset());
  const auto nb_cell = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(),
                                                           disc.reconstruction().neighbor_cell());
  n_entries_ = nb_offset(n_owned_);
  std::vector<index_t> count(static_cast<size_t>(n_local_) + 1, 0), cell(static_cast<size_t>(n_entries_));
  for (index_t c = 0; c < n_owned_; ++c)
    for (index_t e = nb_offset(c); e < nb_offset(c + 1); ++e) {
      cell[static_cast<size_t>(e)] = c;
      ++count[static_cast<size_t>(nb_cell(e)) + 1];
    }
  for (index_t m = 0; m < n_local_; ++m)
    count[static_cast<size_t>(m) + 1] += count[static_cast<size_t>(m)];
  std::vector<index_t> entry(static_cast<size_t>(n_entries_)), next(count.begin(), count.end() - 1);
  for (index_t e = 0; e < n_entries_; ++e)
    entry[static_cast<size_t>(next[static_cast<size_t>(nb_cell(e))]++)] = e;
  // The gather's streams in its own order: each transposed entry's cell and
  // least-squares coefficients; and each owned cell's sum of its
  // coefficients (the stencil centre's share).
  const auto coefficient = Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), disc.reconstruction().geometry().coefficient);
  std::vector<index_t> t_cell(static_cast<size_t>(n_entries_));
  std::vector<double> t_coef(static_cast<size_t>(n_entries_ * dim_)),
      sum(static_cast<size_t>(n_owned_ * dim_), 0.0);
  for (index_t t = 0; t < n_entries_; ++t) {
    const index_t e = entry[static_cast<size_t>(t)];
    t_cell[static_cast<size_t>(t)] = cell[static_cast<size_t>(e)];
    for (int d = 0; d < dim_; ++d) t_coef[static_cast<size_t>(t * dim_ + d)] = coefficient(e, d);
  }
  for (index_t c = 0; c < n_owned_; ++c)
    for (index_t e = nb_offset(c); e < nb_offset(c + 1); ++e)
      for (int d = 0; d < dim_; ++d) sum[static_cast<size_t>(c * dim_ + d)] += coefficient(e, d);
  const auto copy_real = [](const std::vector<double>& v, index_t rows, int cols, const char* label) {
    Kokkos::View<double**> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                             static_cast<size_t>(rows), static_cast<size_t>(cols));
    const auto h = Kokkos::create_mirror_view(d);
    for (index_t i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) h(i, j) = v[static_cast<size_t>(i * cols + j)];
    Kokkos::deep_copy(d, h);
    return d;
  };
  t_offset_ = to_device(count, "euler::transpose_offset");
  t_entry_ = to_device(entry, "euler::transpose_entry");
  t_cell_ = to_device(t_cell, "euler::transpose_cell");
  t_coefficient_ = copy_real(t_coef, n_entries_, dim_, "euler::transpose_coefficient");
  coefficient_sum_ = copy_real(sum, n_owned_, dim_, "euler::coefficient_sum");
}

void ResidualTranspose::linearize(Tensor& U) {
  CAMBER_REQUIRE(U.shape() == (Shape{n_local_, nv_}),
                 "euler ResidualTranspose::linearize: U has shape "
                     << shape_string(U.shape()) << ", expected " << shape_string({n_local_, nv_}));
  const SpatialOptions& spatial = disc_->spatial();
  live_ = reconstruct_ && !spatial.freeze_limiter && spatial.limiter != LimiterKind::none;
  if (dim_ == 3)
    linearize_in<3>(U);
  else
    linearize_in<2>(U);
  // The products' work arrays, once.
  const auto work = [](const char* label, index_t rows, int cols) {
    return Kokkos::View<double**>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                                  static_cast<size_t>(rows), static_cast<size_t>(cols));
  };
  if (qbar_.extent(0) == 0) {
    qbar_ = work("euler::transpose_qbar", n_faces_, 2 * nv_);
    Wbar_ = work("euler::transpose_Wbar", n_owned_, nv_);
    Gbar_ = work("euler::transpose_Gbar", reconstruct_ ? n_owned_ : 0, nv_ * dim_);
  }
  if (live_ && phibar_.extent(0) == 0) phibar_ = work("euler::transpose_phibar", n_owned_, nv_);
  linearized_ = true;
}

template <int Dim>
void ResidualTranspose::linearize_in(Tensor& U) {
  constexpr int nv = Dim + 2, bs = nv * nv;
  const Discretization& disc = *disc_;
  disc.mesh().halo().forward(U);
  const Field<double> u = field_of(U);
  const index_t n_owned = n_owned_;
  W_ = Field<double>("euler::transpose_W", static_cast<size_t>(n_local_), nv);
  L_ = Field<double>("euler::transpose_L", static_cast<size_t>(n_local_), nv * Dim);
  if (reconstruct_) {
    G_ = Field<double>("euler::transpose_G", static_cast<size_t>(n_owned_), nv * Dim);
    phi_ = Field<double>("euler::transpose_phi", static_cast<size_t>(n_owned_), nv);
    disc.limited_gradients<double, double>(disc.reconstruction().geometry(), u, W_, L_, G_, phi_);
  } else {
    disc.primitive_field<double>(u, W_);  // L stays zero: the face states are W
  }
  const Field<double> W = W_, L = L_, G = G_;
  const IdealGas gas = disc.gas();

  P_ = Kokkos::View<double**>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "euler::transpose_dW_dU"),
                              static_cast<size_t>(n_local_), bs);
  const auto P = P_;
  Kokkos::parallel_for(
      "euler::transpose_dW_dU", Range(0, n_local_), KOKKOS_LAMBDA(const index_t c) {
        double x[nv], y[nv], J[nv][nv];
        for (int k = 0; k < nv; ++k) x[k] = u(c, k);
        ad::jacobian(ToPrimitive<Dim>{gas}, x, y, J);
        for (int k = 0; k < nv; ++k)
          for (int b = 0; b < nv; ++b) P(c, nv * k + b) = J[k][b];
      });

  // dF/dq of each owned side of each face.
  A_ = Kokkos::View<double**>("euler::transpose_dF_dq", static_cast<size_t>(n_faces_), 2 * bs);
  const auto A = A_;
  const auto left = disc.face_left(), right = disc.face_right();
  const auto kind = disc.face_kind();
  const auto normal = disc.geometry().face_normal;
  const auto to_center = disc.face_to_center_;
  const auto outer = disc.outer_state_;
  const int scheme = static_cast<int>(disc.scheme());
  Kokkos::parallel_for(
      "euler::transpose_face_jacobians", Range(0, n_faces_), KOKKOS_LAMBDA(const index_t f) {
        for (int side = 0; side < 2; ++side) {
          const index_t c = side == 0 ? left(f) : right(f);
          if (c < 0 || c >= n_owned) continue;
          double J[nv][nv];
          side_flux_jacobian<Dim>(gas, scheme, left, right, kind, outer, normal, to_center, W, L,
                                  f, side, J);
          for (int a = 0; a < nv; ++a)
            for (int k = 0; k < nv; ++k) A(f, side * bs + nv * a + k) = J[a][k];
        }
      });

  dphi_dentry_ = {};
  extreme_entry_ = {};
  extreme_partial_ = {};
  if (!live_) {
    dphi_dgrad_ = {};
    dphi_dsum_ = {};
    Kokkos::fence();
    return;
  }
  // The live limiter's partials: phi_c,k = phi(d_max, d_min, grad W_c,k)
  // by a Dual over those 2 + Dim inputs, then d_max and d_min in the
  // stencil entries' differences W_m - W_c: for the classic and Wang forms
  // the extremes' entries (two per cell and variable), for the smooth form
  // every entry, through its folds of smooth maxima differentiated
  // backwards (stored by transposed entry, for the gather).
  const SpatialOptions& spatial = disc.spatial();
  const LimiterForm form = limiter_form(spatial.limiter);
  const bool smooth = form == LimiterForm::smooth;
  smooth_ = smooth;
  const double wang_eps2 = spatial.wang_epsilon * spatial.wang_epsilon;
  const double width = spatial.smooth_width * spatial.wang_epsilon;
  const auto face_offset = disc.cell_face_offset_;
  const auto nb_offset = disc.reconstruction().neighbor_offset();
  const auto nb_cell = disc.reconstruction().neighbor_cell();
  const auto to_face = disc.reconstruction().geometry().to_face;
  const auto eps2 = disc.reconstruction().geometry().eps2;
  const auto alloc = [](const char* label, index_t rows, int cols) {
    return Kokkos::View<double**>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                                  static_cast<size_t>(rows), static_cast<size_t>(cols));
  };
  dphi_dgrad_ = alloc("euler::transpose_dphi_dgrad", n_owned_, nv * Dim);
  dphi_dsum_ = alloc("euler::transpose_dphi_dsum", n_owned_, nv);
  Kokkos::View<double*> prefix;
  if (smooth) {
    if (t_position_.extent(0) == 0) {
      t_position_ = Kokkos::View<index_t*>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "euler::transpose_position"),
          static_cast<size_t>(n_entries_));
      const auto position = t_position_;
      const auto t_entry = t_entry_;
      Kokkos::parallel_for(
          "euler::transpose_position", Range(0, n_entries_),
          KOKKOS_LAMBDA(const index_t t) { position(t_entry(t)) = t; });
    }
    dphi_dentry_ = Kokkos::View<double**>("euler::transpose_dphi_dentry",
                                          static_cast<size_t>(n_entries_), nv);
    prefix = Kokkos::View<double*>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "euler::transpose_fold"),
        static_cast<size_t>(n_entries_));
  } else {
    extreme_entry_ = Kokkos::View<index_t**>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "euler::transpose_extreme_entry"),
        static_cast<size_t>(n_owned_), 2 * nv);
    extreme_partial_ = alloc("euler::transpose_extreme_partial", n_owned_, 2 * nv);
  }
  const auto dgrad = dphi_dgrad_, dentry = dphi_dentry_, dsum = dphi_dsum_;
  const auto extreme_entry = extreme_entry_;
  const auto extreme_partial = extreme_partial_;
  const auto position = t_position_;
  Kokkos::parallel_for(
      "euler::transpose_limiter", Range(0, n_owned_), KOKKOS_LAMBDA(const index_t c) {
        using DP = ad::Dual<double, 2 + Dim>;
        const index_t n0 = nb_offset(c), n1 = nb_offset(c + 1);
        const index_t j0 = face_offset(c), j1 = face_offset(c + 1);
        for (int k = 0; k < nv; ++k) {
          double d_max = 0.0, d_min = 0.0;
          index_t c_max = c, c_min = c;
          if (smooth)
            smooth_neighbour_range(W, c, k, nb_cell, n0, n1, width, d_max, d_min);
          else {
            neighbour_extremes(W, c, k, nb_cell, n0, n1, c_max, c_min);
            d_max = W(c_max, k) - W(c, k);
            d_min = W(c_min, k) - W(c, k);
          }
          DP dmx(d_max), dmn(d_min), g[Dim];
          dmx.der(0) = 1.0;
          dmn.der(1) = 1.0;
          for (int d = 0; d < Dim; ++d) {
            g[d] = DP(G(c, Dim * k + d));
            g[d].der(2 + d) = 1.0;
          }
          const DP p = form == LimiterForm::classic
                           ? venkatakrishnan_cell(dmx, dmn, g, to_face, j0, j1, form, eps2(c))
                           : venkatakrishnan_cell(dmx, dmn, g, to_face, j0, j1, form, wang_eps2);
          const double p_max = p.der(0), p_min = p.der(1);
          for (int d = 0; d < Dim; ++d) dgrad(c, Dim * k + d) = p.der(2 + d);
          if (!smooth) {
            // The first entry holding the extreme cell (the forward's
            // choice); none (-1) when the cell itself is the extreme (a
            // zero difference).
            index_t e_max = -1, e_min = -1;
            for (index_t e = n0; e < n1; ++e) {
              if (e_max < 0 && c_max != c && nb_cell(e) == c_max) e_max = e;
              if (e_min < 0 && c_min != c && nb_cell(e) == c_min) e_min = e;
            }
            extreme_entry(c, k) = e_max;
            extreme_entry(c, nv + k) = e_min;
            extreme_partial(c, k) = p_max;
            extreme_partial(c, nv + k) = p_min;
            dsum(c, k) = (e_max >= 0 ? p_max : 0.0) + (e_min >= 0 ? p_min : 0.0);
            continue;
          }
          // d_max = D_n, D_e = smooth_max_above(D_{e-1}, delta_e), D_0 = 0;
          // d_min = -(the same fold of -delta_e).
          double sum = 0.0;
          for (int sense = 0; sense < 2; ++sense) {
            const double s = sense == 0 ? 1.0 : -1.0;
            double D = 0.0;
            for (index_t e = n0; e < n1; ++e) {
              prefix(e) = D;
              D = smooth_max_above(D, s * (W(nb_cell(e), k) - W(c, k)), width);
            }
            double rho = sense == 0 ? p_max : p_min;
            for (index_t e = n1; e-- > n0;) {
              double da, db;
              smooth_max_partials(prefix(e), s * (W(nb_cell(e), k) - W(c, k)), width, da, db);
              dentry(position(e), k) += rho * db;
              sum += rho * db;
              rho *= da;
            }
          }
          dsum(c, k) = sum;
        }
      });
  Kokkos::fence();
}

template <int Dim>
void ResidualTranspose::flux_adjoint(const Field<double>& v,
                                     const Kokkos::View<double**>& qbar) const {
  constexpr int nv = Dim + 2, bs = nv * nv;
  const auto A = A_;
  const auto left = disc_->face_left(), right = disc_->face_right();
  const index_t n_owned = n_owned_;
  Kokkos::parallel_for(
      "euler::transpose_fluxes", Range(0, n_faces_), KOKKOS_LAMBDA(const index_t f) {
        const index_t l = left(f), r = right(f);
        double vbar[nv];
        for (int a = 0; a < nv; ++a) vbar[a] = v(l, a) - (r >= 0 ? v(r, a) : 0.0);
        for (int side = 0; side < 2; ++side) {
          const index_t c = side == 0 ? l : r;
          const bool owned = c >= 0 && c < n_owned;
          for (int k = 0; k < nv; ++k) {
            double s = 0.0;
            if (owned)
              for (int a = 0; a < nv; ++a) s += A(f, side * bs + nv * a + k) * vbar[a];
            qbar(f, side * nv + k) = s;
          }
        }
      });
}

template <int Dim>
void ResidualTranspose::force_adjoint(const std::array<double, 3>& weights,
                                      const Kokkos::View<double**>& qbar) const {
  constexpr int nv = Dim + 2, up = Dim - 1;
  Kokkos::deep_copy(qbar, 0.0);
  const auto walls = disc_->wall_faces_;
  const auto normal = disc_->geometry().face_normal;
  const auto center = disc_->geometry().face_center;
  const double xm = disc_->flow().moment_point[0], zm = disc_->flow().moment_point[Dim - 1];
  const double w0 = weights[0], w1 = weights[1], w2 = weights[2];
  // The load of a wall face is linear in its pressure (wall_face_load):
  // dG/dp = (n_x, n_up, the moment's arm), entering the pressure of the
  // wall cell's face state.
  Kokkos::parallel_for(
      "euler::transpose_forces", Range(0, static_cast<index_t>(walls.extent(0))),
      KOKKOS_LAMBDA(const index_t w) {
        const index_t f = walls(w);
        const double nx = normal(f, 0), nu = normal(f, up);
        const double dx = center(f, 0) - xm, dz = center(f, up) - zm;
        const double arm = Dim == 2 ? dx * nu - dz * nx : dz * nx - dx * nu;
        qbar(f, nv - 1) = w0 * nx + w1 * nu + w2 * arm;
      });
}

template <int Dim>
void ResidualTranspose::reconstruction_adjoint(const Kokkos::View<double**>& qbar, Tensor& Y) const {
  constexpr int nv = Dim + 2;
  const Discretization& disc = *disc_;
  const index_t n_owned = n_owned_;
  const bool reconstruct = reconstruct_, live = live_;
  const Field<double> W = W_, L = L_, G = G_, phi = phi_;
  const auto P = P_;
  const auto face_offset = disc.cell_face_offset_;
  const auto faces = disc.cell_face_;
  const auto left = disc.face_left();
  const auto to_center = disc.face_to_center_;
  const auto coefficient_sum = coefficient_sum_, t_coefficient = t_coefficient_;
  const auto dgrad = dphi_dgrad_, dentry = dphi_dentry_, dsum = dphi_dsum_;
  const auto extreme_entry = extreme_entry_;
  const auto extreme_partial = extreme_partial_;
  const bool smooth = smooth_;
  const auto t_offset = t_offset_, t_cell = t_cell_, t_entry = t_entry_;
  const auto Wbar = Wbar_, Gbar = Gbar_, phibar = phibar_;
  // Each owned cell: its faces' adjoints into W_c and its limited
  // gradient, then through the limiter to the gradient and the stencil's
  // centre.
  Kokkos::parallel_for(
      "euler::transpose_cells", Range(0, n_owned_), KOKKOS_LAMBDA(const index_t c) {
        double wb[nv] = {}, lb[nv][Dim] = {};
        for (index_t j = face_offset(c); j < face_offset(c + 1); ++j) {
          const index_t f = faces(j);
          const int side = left(f) == c ? 0 : 1;
          double a[nv];
          for (int k = 0; k < nv; ++k) {
            a[k] = qbar(f, side * nv + k);
            wb[k] += a[k];
          }
          if (!reconstruct) continue;
          double dx[Dim];
          for (int d = 0; d < Dim; ++d) dx[d] = to_center(f, Dim * side + d);
          // reconstructed_state's positivity fallback: the state is W_c.
          double rho = W(c, 0), p = W(c, nv - 1);
          for (int d = 0; d < Dim; ++d) {
            rho += L(c, d) * dx[d];
            p += L(c, Dim * (nv - 1) + d) * dx[d];
          }
          if (!(rho > 0.0) || !(p > 0.0)) continue;
          for (int k = 0; k < nv; ++k)
            for (int d = 0; d < Dim; ++d) lb[k][d] += a[k] * dx[d];
        }
        if (reconstruct) {
          for (int k = 0; k < nv; ++k) {
            double pb = 0.0, gb[Dim];
            for (int d = 0; d < Dim; ++d) pb += lb[k][d] * G(c, Dim * k + d);
            for (int d = 0; d < Dim; ++d) {
              gb[d] = phi(c, k) * lb[k][d] + (live ? pb * dgrad(c, Dim * k + d) : 0.0);
              Gbar(c, Dim * k + d) = gb[d];
            }
            if (live) phibar(c, k) = pb;
            // The stencil centre: minus the sums over its entries.
            double s = live ? pb * dsum(c, k) : 0.0;
            for (int d = 0; d < Dim; ++d) s += coefficient_sum(c, d) * gb[d];
            wb[k] -= s;
          }
        }
        for (int k = 0; k < nv; ++k) Wbar(c, k) = wb[k];
      });
  // Each local cell: its own terms and those of the stencils holding it,
  // then dW/dU transposed.
  const Field<double> y = field_of(Y);
  Kokkos::parallel_for(
      "euler::transpose_gather", Range(0, n_local_), KOKKOS_LAMBDA(const index_t m) {
        double wb[nv];
        for (int k = 0; k < nv; ++k) wb[k] = m < n_owned ? Wbar(m, k) : 0.0;
        if (reconstruct)
          for (index_t t = t_offset(m); t < t_offset(m + 1); ++t) {
            const index_t c = t_cell(t);
            double a[Dim];
            for (int d = 0; d < Dim; ++d) a[d] = t_coefficient(t, d);
            const index_t e = t_entry(t);
            for (int k = 0; k < nv; ++k) {
              double s = 0.0;
              if (live && smooth) {
                s = phibar(c, k) * dentry(t, k);
              } else if (live) {
                if (extreme_entry(c, k) == e) s += phibar(c, k) * extreme_partial(c, k);
                if (extreme_entry(c, nv + k) == e) s += phibar(c, k) * extreme_partial(c, nv + k);
              }
              for (int d = 0; d < Dim; ++d) s += a[d] * Gbar(c, Dim * k + d);
              wb[k] += s;
            }
          }
        for (int b = 0; b < nv; ++b) {
          double s = 0.0;
          for (int k = 0; k < nv; ++k) s += P(m, nv * k + b) * wb[k];
          y(m, b) = s;
        }
      });
  Kokkos::fence();
  Y.mark_modified();
  disc.mesh().halo().reverse_add(Y);
}

void ResidualTranspose::apply(Tensor& V, Tensor& Y) const {
  CAMBER_REQUIRE(linearized_, "euler ResidualTranspose::apply: call linearize(U) first");
  CAMBER_REQUIRE(V.shape() == (Shape{n_local_, nv_}),
                 "euler ResidualTranspose::apply: V has shape "
                     << shape_string(V.shape()) << ", expected " << shape_string({n_local_, nv_}));
  if (Y.shape() != (Shape{n_local_, nv_})) Y = Tensor({n_local_, nv_});
  disc_->mesh().halo().forward(V);
  if (dim_ == 3) {
    flux_adjoint<3>(field_of(V), qbar_);
    reconstruction_adjoint<3>(qbar_, Y);
  } else {
    flux_adjoint<2>(field_of(V), qbar_);
    reconstruction_adjoint<2>(qbar_, Y);
  }
}

Tensor ResidualTranspose::force_gradient(const std::array<double, 3>& weights) const {
  CAMBER_REQUIRE(linearized_, "euler ResidualTranspose::force_gradient: call linearize(U) first");
  Tensor Y({n_local_, nv_});
  if (dim_ == 3) {
    force_adjoint<3>(weights, qbar_);
    reconstruction_adjoint<3>(qbar_, Y);
  } else {
    force_adjoint<2>(weights, qbar_);
    reconstruction_adjoint<2>(qbar_, Y);
  }
  return Y;
}

template void ResidualTranspose::linearize_in<2>(Tensor&);
template void ResidualTranspose::linearize_in<3>(Tensor&);

}  // namespace camber::solvers::euler::detail
