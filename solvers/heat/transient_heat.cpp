#include <camber/solvers/heat/transient_heat.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <sstream>
#include <utility>

#include <camber/autodiff/dual.hpp>
#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>
#include <camber/mesh/geometry.hpp>
#include <camber/parallel/collectives.hpp>
#include <camber/core/runtime.hpp>

namespace camber::solvers::heat {

namespace detail {

enum HeatFaceKind : int { interior = 0, held = 1, insulated = 2 };

// The flux F from the left cell to the right one (outward at the
// boundary), W per unit depth; m = log k.
template <class S>
KOKKOS_INLINE_FUNCTION S heat_face_flux(const S& tl, const S& tr, const S& ml, const S& mr, double weight,
                                        int kind, double g) {
  using kmath::exp;  // a Dual's exp comes by argument-dependent lookup
  if (kind == interior) return 2.0 * weight * (tl - tr) / (exp(-ml) + exp(-mr));
  if (kind == held) return weight * exp(ml) * (tl - g);
  return S(0.0);
}

// The flux is affine in T: F = a_L T_L + a_R T_R + b, with a_L, a_R, b
// functions of (m_L, m_R). One evaluation of heat_face_flux on nested Duals
// (outer tangents T_L, T_R at T = 0; inner m_L, m_R) gives them all and
// their m-derivatives, exactly, once per conductivity field:
//   coef(f, 0..2) = a_L, a_R, b
//   coef(f, 3..5) = d(a_L, a_R, b)/dm_L,  coef(f, 6..8) = d(a_L, a_R, b)/dm_R
struct HeatFaceCoefficients {
  Kokkos::View<const index_t*> left, right;
  Kokkos::View<const double*> weight, value, m;
  Kokkos::View<const int*> kind;
  Kokkos::View<double**> coef;

  KOKKOS_INLINE_FUNCTION void operator()(const index_t f) const {
    using Inner = ad::Dual<double, 2>;
    using Outer = ad::Dual<Inner, 2>;
    const index_t l = left(f), r = right(f);
    Inner ml(m(l)), mr(r >= 0 ? m(r) : 0.0);
    ml.der(0) = 1.0;
    mr.der(1) = 1.0;
    Outer tl(Inner(0.0)), tr(Inner(0.0));
    tl.der(0) = Inner(1.0);
    tr.der(1) = Inner(1.0);
    const Outer F = heat_face_flux(tl, tr, Outer(ml), Outer(mr), weight(f), kind(f), value(f));
    const Inner parts[3] = {F.der(0), F.der(1), F.val()};
    for (int i = 0; i < 3; ++i) {
      coef(f, i) = parts[i].val();
      coef(f, 3 + i) = parts[i].der(0);
      coef(f, 6 + i) = parts[i].der(1);
    }
  }
};

struct HeatKernel {
  Kokkos::View<const index_t*> offset, face, left, right;
  Kokkos::View<const double*> sign, inv_capacity, source, T, v;
  Kokkos::View<const double**> coef;
  Kokkos::View<double*> out;
  int what;  // 0 rhs, 1 jvp, 2 vjp_T, 3 vjp_m, 4 diagonal

  KOKKOS_INLINE_FUNCTION void operator()(const index_t c) const {
    double sum = 0.0;
    for (index_t k = offset(c); k < offset(c + 1); ++k) {
      const index_t f = face(k);
      const index_t l = left(f), r = right(f);
      const bool is_left = sign(k) > 0.0;
      const double tl = T(l), tr = r >= 0 ? T(r) : 0.0;
      switch (what) {
        case 0: sum -= sign(k) * (coef(f, 0) * tl + coef(f, 1) * tr + coef(f, 2)); break;
        case 1: sum -= sign(k) * (coef(f, 0) * v(l) + (r >= 0 ? coef(f, 1) * v(r) : 0.0)); break;
        case 4: sum -= sign(k) * coef(f, is_left ? 0 : 1); break;
        default: {
          // F enters f_l with -F / (rho_c V_l) and f_r with +F / (rho_c V_r).
          const double dual_w = -v(l) * inv_capacity(l) + (r >= 0 ? v(r) * inv_capacity(r) : 0.0);
          double dF;
          if (what == 2) {
            dF = coef(f, is_left ? 0 : 1);  // dF/dT_c
          } else {
            const int o = is_left ? 3 : 6;  // dF/dm_c
            dF = coef(f, o) * tl + coef(f, o + 1) * tr + coef(f, o + 2);
          }
          sum += dF * dual_w;
        }
      }
    }
    if (what == 0) out(c) = sum * inv_capacity(c) + source(c);
    else if (what == 1 || what == 4) out(c) = sum * inv_capacity(c);
    else out(c) = sum;
  }
};

}  // namespace detail

namespace {

using HostConst = Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using HostOut = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

std::string marker_list(const mesh::Mesh& m) {
  std::string s;
  for (const mesh::Marker& k : m.markers()) s += (s.empty() ? "" : ", ") + k.name;
  return s.empty() ? std::string("(none)") : s;
}

}  // namespace

TransientHeat::TransientHeat(mesh::DistributedMesh& dm, TransientHeatModel model) : dm_(&dm) {
  const mesh::Mesh& local = dm.local();
  const MPI_Comm comm = dm.comm();
  n_owned_ = dm.n_owned_cells();
  n_local_ = dm.n_local_cells();
  heat_capacity_ = model.heat_capacity;
  const index_t n_faces = dm.n_owned_faces();

  collective_guard(comm, [&] {
    CAMBER_INPUT_REQUIRE(std::isfinite(model.heat_capacity) && model.heat_capacity > 0.0,
                         "heat: heat_capacity (rho c) must be > 0 J/(m^3 K), got " << model.heat_capacity);
    for (const auto& [name, bc] : model.boundary) {
      CAMBER_INPUT_REQUIRE(local.marker_index(name) >= 0,
                           "heat: a boundary condition for marker '" << name << "', which the mesh does not have; "
                                                                     << "its markers are: " << marker_list(local));
      CAMBER_INPUT_REQUIRE(bc.kind != HeatBoundary::Kind::temperature || std::isfinite(bc.value),
                           "heat: the temperature of marker '" << name << "' is " << bc.value);
    }
    for (const mesh::Marker& k : local.markers())
      CAMBER_INPUT_REQUIRE(model.boundary.count(k.name) == 1,
                           "heat: marker '" << k.name << "' has no boundary condition; give it a "
                                            << "temperature or make it insulated");
  });

  const mesh::Geometry g = mesh::compute_geometry(local);
  const auto left = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_left());
  const auto right = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_right());
  const auto marker = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), local.face_marker());
  const auto centroid = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_centroid);
  const auto normal = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_normal);
  const auto area = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_area);
  const auto center = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.face_center);
  const auto volume = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_volume);

  face_left_ = Kokkos::View<index_t*>("heat::face_left", n_faces);
  face_right_ = Kokkos::View<index_t*>("heat::face_right", n_faces);
  face_kind_ = Kokkos::View<int*>("heat::face_kind", n_faces);
  face_weight_ = Kokkos::View<double*>("heat::face_weight", n_faces);
  face_value_ = Kokkos::View<double*>("heat::face_value", n_faces);
  auto fl = Kokkos::create_mirror_view(face_left_);
  auto fr = Kokkos::create_mirror_view(face_right_);
  auto fk = Kokkos::create_mirror_view(face_kind_);
  auto fw = Kokkos::create_mirror_view(face_weight_);
  auto fv = Kokkos::create_mirror_view(face_value_);
  std::ostringstream bad;
  for (index_t f = 0; f < n_faces; ++f) {
    const index_t l = left(f), r = right(f);
    const double s = area(f), nx = normal(f, 0) / s, ny = normal(f, 1) / s;
    const double ex = (r >= 0 ? centroid(r, 0) : center(f, 0)) - centroid(l, 0);
    const double ey = (r >= 0 ? centroid(r, 1) : center(f, 1)) - centroid(l, 1);
    const double d = ex * nx + ey * ny;
    if (!(d > 0.0) && bad.tellp() == 0)
      bad << "heat: at the face centred at (" << center(f, 0) << ", " << center(f, 1)
          << ") the orthogonal distance between the centroids is " << d
          << "; the mesh is too distorted for the two-point flux";
    fl(f) = l;
    fr(f) = r;
    fw(f) = s / d;
    fv(f) = 0.0;
    if (r >= 0) {
      fk(f) = detail::interior;
    } else {
      const HeatBoundary& bc = model.boundary.at(local.markers()[static_cast<size_t>(marker(f))].name);
      fk(f) = bc.kind == HeatBoundary::Kind::temperature ? detail::held : detail::insulated;
      fv(f) = bc.value;
    }
  }
  collective_guard(comm, [&] { CAMBER_INPUT_REQUIRE(bad.tellp() == 0, bad.str()); });
  Kokkos::deep_copy(face_left_, fl);
  Kokkos::deep_copy(face_right_, fr);
  Kokkos::deep_copy(face_kind_, fk);
  Kokkos::deep_copy(face_weight_, fw);
  Kokkos::deep_copy(face_value_, fv);

  inv_capacity_ = Kokkos::View<double*>("heat::inv_capacity", n_local_);
  source_ = Kokkos::View<double*>("heat::source", n_owned_);
  auto ic = Kokkos::create_mirror_view(inv_capacity_);
  auto q = Kokkos::create_mirror_view(source_);
  for (index_t c = 0; c < n_local_; ++c) {
    ic(c) = 1.0 / (heat_capacity_ * volume(c));
    if (c < n_owned_) {
      volume_.push_back(volume(c));
      cx_.push_back(centroid(c, 0));
      cy_.push_back(centroid(c, 1));
      q(c) = model.source ? model.source(centroid(c, 0), centroid(c, 1)) : 0.0;
    }
  }
  Kokkos::deep_copy(inv_capacity_, ic);
  Kokkos::deep_copy(source_, q);
  cell_faces_ = mesh::owned_cell_faces(dm);
  {
    const auto off = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cell_faces_.offset);
    const auto cf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cell_faces_.face);
    host_offset_.assign(off.data(), off.data() + off.extent(0));
    host_face_.assign(cf.data(), cf.data() + cf.extent(0));
    host_left_.assign(fl.data(), fl.data() + n_faces);
    host_right_.assign(fr.data(), fr.data() + n_faces);
    host_weight_.assign(fw.data(), fw.data() + n_faces);
  }
  s_ = Tensor({n_local_});
  coef_ = Kokkos::View<double**>("heat::face_coefficients", n_faces, 9);
  out_ = Kokkos::View<double*>("heat::out", n_owned_);
  m_ = Tensor({n_local_});
  T_ = Tensor({n_local_});
  v_ = Tensor({n_local_});
}

void TransientHeat::load(const double* owned, Tensor& local) {
  const HostConst src(owned, static_cast<size_t>(n_owned_));
  Kokkos::deep_copy(Kokkos::subview(local.view(), std::make_pair(index_t(0), n_owned_)), src);
  local.mark_modified();
  dm_->halo().forward(local);
}

void TransientHeat::set_log_conductivity(const std::vector<double>& m) {
  collective_guard(dm_->comm(), [&] {
    CAMBER_INPUT_REQUIRE(static_cast<index_t>(m.size()) == n_owned_,
                         "heat: log-conductivity has " << m.size() << " values, this rank owns " << n_owned_
                                                       << " cells");
    for (double x : m) CAMBER_INPUT_REQUIRE(std::isfinite(x), "heat: log-conductivity holds " << x);
  });
  load(m.data(), m_);
  has_conductivity_ = true;
  detail::HeatFaceCoefficients k{face_left_, face_right_, face_weight_, face_value_, m_.view(), face_kind_, coef_};
  Kokkos::parallel_for("camber::solvers::heat::TransientHeat::coefficients",
                       Kokkos::RangePolicy<>(0, static_cast<index_t>(coef_.extent(0))), k);
  Kokkos::fence();
}

std::vector<double> TransientHeat::at_centroids(const std::function<double(double, double)>& f) const {
  std::vector<double> out(static_cast<size_t>(n_owned_));
  for (size_t c = 0; c < out.size(); ++c) out[c] = f(cx_[c], cy_[c]);
  return out;
}

std::vector<double> TransientHeat::volumes() const { return volume_; }

double TransientHeat::smoothness(const std::vector<double>& m, std::vector<double>* gradient) {
  collective_guard(dm_->comm(), [&] {
    CAMBER_INPUT_REQUIRE(static_cast<index_t>(m.size()) == n_owned_,
                         "heat: smoothness of a field with " << m.size() << " values, this rank owns "
                                                             << n_owned_ << " cells");
  });
  load(m.data(), s_);
  const std::vector<double> v = s_.to_vector();
  if (gradient != nullptr) gradient->assign(static_cast<size_t>(n_owned_), 0.0);
  // Each face is seen from both its cells (on one rank or two): a quarter
  // of w (m_L - m_R)^2 from each side makes the half in S.
  double sum = 0.0;
  for (index_t c = 0; c < n_owned_; ++c) {
    double g = 0.0;
    for (index_t k = host_offset_[static_cast<size_t>(c)]; k < host_offset_[static_cast<size_t>(c) + 1]; ++k) {
      const size_t f = static_cast<size_t>(host_face_[static_cast<size_t>(k)]);
      if (host_right_[f] < 0) continue;
      const index_t other = host_left_[f] == c ? host_right_[f] : host_left_[f];
      const double jump = v[static_cast<size_t>(c)] - v[static_cast<size_t>(other)];
      sum += 0.25 * host_weight_[f] * jump * jump;
      g += host_weight_[f] * jump;
    }
    if (gradient != nullptr) (*gradient)[static_cast<size_t>(c)] = g;
  }
  return par::allreduce_sum(sum, dm_->comm());
}

void TransientHeat::apply(Product what, const double* T, const double* v, double* out) {
  load(T, T_);
  if (v != nullptr) load(v, v_);
  CAMBER_REQUIRE(has_conductivity_, "TransientHeat: set_log_conductivity before the first product");
  detail::HeatKernel k{cell_faces_.offset, cell_faces_.face, face_left_, face_right_, cell_faces_.sign,
                       inv_capacity_,      source_,          T_.view(),  v_.view(),  coef_,
                       out_,               static_cast<int>(what)};
  Kokkos::parallel_for("camber::solvers::heat::TransientHeat::apply", Kokkos::RangePolicy<>(0, n_owned_), k);
  Kokkos::fence();
  Kokkos::deep_copy(HostOut(out, static_cast<size_t>(n_owned_)), out_);
}

void TransientHeat::rhs(const double* T, double* out) { apply(Product::rhs, T, nullptr, out); }
void TransientHeat::jvp(const double* T, const double* v, double* out) { apply(Product::jvp, T, v, out); }
void TransientHeat::vjp_T(const double* T, const double* w, double* out) { apply(Product::vjp_T, T, w, out); }
void TransientHeat::vjp_m(const double* T, const double* w, double* out) { apply(Product::vjp_m, T, w, out); }
void TransientHeat::jacobian_diagonal(const double* T, double* out) { apply(Product::diagonal, T, nullptr, out); }

ode::DistributedOdeSystem TransientHeat::system() {
  ode::DistributedOdeSystem s;
  s.comm = dm_->comm();
  s.n_local = n_owned_;
  s.n_local_p = n_owned_;
  s.rhs = [this](double, const double* y, double* ydot) { rhs(y, ydot); };
  s.jvp = [this](double, const double* y, const double* v, double* o) { jvp(y, v, o); };
  s.vjp_y = [this](double, const double* y, const double* w, double* o) { vjp_T(y, w, o); };
  s.vjp_p = [this](double, const double* y, const double* w, double* o) { vjp_m(y, w, o); };
  s.jacobian_diagonal = [this](double, const double* y, double* o) { jacobian_diagonal(y, o); };
  return s;
}

}  // namespace camber::solvers::heat
