#include <camber/design/mesh_deformation.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <utility>

#include <camber/core/error.hpp>
#include <camber/core/kokkos_math.hpp>
#include <camber/mesh/distributed_mesh.hpp>
#include <camber/mesh/geometry.hpp>

namespace camber::design {

namespace {

constexpr index_t interior_node = -1;
constexpr index_t anchor_node = -2;

/// w = 1 / r^p from r^2. Integer exponents (the usual 2..6) multiply
/// sqrt(r^2) instead of calling pow, which dominates the cost otherwise.
KOKKOS_INLINE_FUNCTION double idw_weight(double r2, double p, int integer_p) {
  if (integer_p > 0) {
    double rp = 1.0;
    if (integer_p % 2 == 0) {
      for (int k = 0; k < integer_p / 2; ++k) rp *= r2;
    } else {
      const double r = kmath::sqrt(r2);
      rp = r;
      for (int k = 0; k < integer_p / 2; ++k) rp *= r2;
    }
    return 1.0 / rp;
  }
  return kmath::pow(r2, -0.5 * p);
}

}  // namespace

// Kernels live in functions with external linkage, outside constructors:
// CUDA's extended lambdas need such an enclosing function.
namespace detail {

struct IdwData {
  Tensor x0_storage;                 // keeps x0's memory (a Tensor's View does not)
  Kokkos::View<double*> x0;          // node coordinates, flat (n_nodes * 2)
  Kokkos::View<index_t*> kind;       // wall index, interior_node or anchor_node
  Kokkos::View<index_t*> interior;   // the interior nodes
  Kokkos::View<double*> sources;     // wall nodes, then anchors, flat
  Kokkos::View<index_t*> wall_row;   // row of wall node j (-1: not a row)
  Kokkos::View<double*> inv_den;     // 1 / sum_s w_is, interior nodes
  index_t n_sources = 0;
  double p = 3.0;
  int integer_p = 0;
};

void idw_denominators(const IdwData& d) {
  const auto x0v = d.x0, src = d.sources, inv = d.inv_den;
  const auto in = d.interior;
  const index_t ns = d.n_sources;
  const double pp = d.p;
  const int ip = d.integer_p;
  Kokkos::parallel_for(
      "camber::design::idw_denominator",
      Kokkos::RangePolicy<>(0, static_cast<index_t>(in.extent(0))),
      KOKKOS_LAMBDA(const index_t q) {
        const index_t i = in(q);
        const double xi = x0v(2 * i), yi = x0v(2 * i + 1);
        double den = 0.0;
        for (index_t s = 0; s < ns; ++s) {
          const double dx = xi - src(2 * s), dy = yi - src(2 * s + 1);
          den += idw_weight(dx * dx + dy * dy, pp, ip);
        }
        inv(i) = 1.0 / den;
      });
}

// First interior node whose denominator is infinite or NaN (it sits on a
// source), or a value >= n_nodes if none.
index_t idw_first_singular_node(const IdwData& d) {
  const auto inv = d.inv_den;
  const auto in = d.interior;
  index_t bad = 0;
  Kokkos::parallel_reduce(
      "camber::design::idw_check", Kokkos::RangePolicy<>(0, static_cast<index_t>(in.extent(0))),
      KOKKOS_LAMBDA(const index_t q, index_t& first) {
        const index_t i = in(q);
        const double v = inv(i);
        if (!(v > 0.0 && v < 1e300) && i < first) first = i;  // 1/den is 0 or NaN
      },
      Kokkos::Min<index_t>(bad));
  return bad;  // Kokkos::Min starts from the largest index_t
}

void idw_apply(const IdwData& d, const Tensor& wall_displacement, const Tensor& out) {
  const auto dv = wall_displacement.view(), ov = out.view();
  const auto x0v = d.x0, src = d.sources, inv = d.inv_den;
  const auto kind = d.kind;
  const index_t nw = static_cast<index_t>(d.wall_row.extent(0));
  const double pp = d.p;
  const int ip = d.integer_p;
  Kokkos::parallel_for(
      "camber::design::idw_apply", Kokkos::RangePolicy<>(0, static_cast<index_t>(kind.extent(0))),
      KOKKOS_LAMBDA(const index_t i) {
        const index_t k = kind(i);
        if (k >= 0) {
          ov(2 * i) = dv(2 * k);
          ov(2 * i + 1) = dv(2 * k + 1);
          return;
        }
        if (k == anchor_node) {
          ov(2 * i) = 0.0;
          ov(2 * i + 1) = 0.0;
          return;
        }
        const double xi = x0v(2 * i), yi = x0v(2 * i + 1);
        double sx = 0.0, sy = 0.0;
        for (index_t j = 0; j < nw; ++j) {
          const double dx = xi - src(2 * j), dy = yi - src(2 * j + 1);
          const double w = idw_weight(dx * dx + dy * dy, pp, ip);
          sx += w * dv(2 * j);
          sy += w * dv(2 * j + 1);
        }
        ov(2 * i) = inv(i) * sx;
        ov(2 * i + 1) = inv(i) * sy;
      });
}

void idw_apply_transpose(const IdwData& d, const Tensor& node_cotangent, const Tensor& out) {
  const auto gv = node_cotangent.view(), ov = out.view();
  const auto x0v = d.x0, src = d.sources, inv = d.inv_den;
  const auto in = d.interior, wall = d.wall_row;
  const index_t n_in = static_cast<index_t>(in.extent(0));
  const double pp = d.p;
  const int ip = d.integer_p;
  // One wall node per thread, a loop over interior nodes: no atomics.
  Kokkos::parallel_for(
      "camber::design::idw_apply_transpose",
      Kokkos::RangePolicy<>(0, static_cast<index_t>(wall.extent(0))),
      KOKKOS_LAMBDA(const index_t j) {
        const index_t row = wall(j);
        const double sxj = src(2 * j), syj = src(2 * j + 1);
        double gx = row >= 0 ? gv(2 * row) : 0.0, gy = row >= 0 ? gv(2 * row + 1) : 0.0;
        for (index_t q = 0; q < n_in; ++q) {
          const index_t i = in(q);
          const double dx = x0v(2 * i) - sxj, dy = x0v(2 * i + 1) - syj;
          const double w = idw_weight(dx * dx + dy * dy, pp, ip) * inv(i);
          gx += w * gv(2 * i);
          gy += w * gv(2 * i + 1);
        }
        ov(2 * j) = gx;
        ov(2 * j + 1) = gy;
      });
}

/// Signed area of cell c at flat node coordinates (x0, y0, x1, y1, ...).
struct CellArea {
  static constexpr int max_nodes = 8;
  Kokkos::View<index_t*> offsets, nodes;
  Tensor::View xy;
  KOKKOS_INLINE_FUNCTION double operator()(const index_t c) const {
    double x[max_nodes], y[max_nodes];
    const int n = static_cast<int>(offsets(c + 1) - offsets(c));
    if (n > max_nodes) return -1.0;  // not a 2-D cell: reported as inverted
    for (int k = 0; k < n; ++k) {
      const index_t node = nodes(offsets(c) + k);
      x[k] = xy(2 * node);
      y[k] = xy(2 * node + 1);
    }
    return mesh::polygon_area(x, y, n);
  }
};

}  // namespace detail

namespace {

/// The IDW map L: wall displacement (n_wall, 2) -> node displacement
/// (n_nodes, 2), applied by the kernels above.
class IdwMap final : public LinearMap {
 public:
  explicit IdwMap(detail::IdwData data) : d_(std::move(data)) {
    n_nodes_ = static_cast<index_t>(d_.kind.extent(0));
    n_wall_ = static_cast<index_t>(d_.wall_row.extent(0));
  }
  Shape input_shape() const override { return {n_wall_, 2}; }
  Shape output_shape() const override { return {n_nodes_, 2}; }
  std::string name() const override { return "idw"; }

  Tensor apply(const Tensor& d) const override {
    CAMBER_REQUIRE(d.shape() == input_shape(), "idw: the wall displacement has shape "
                                                   << shape_string(d.shape()) << ", expected "
                                                   << shape_string(input_shape()));
    Tensor out = Tensor::uninitialized(output_shape());
    detail::idw_apply(d_, d, out);
    return out;
  }

  Tensor apply_transpose(const Tensor& g) const override {
    CAMBER_REQUIRE(g.shape() == output_shape(), "idw_transpose: the cotangent has shape "
                                                    << shape_string(g.shape()) << ", expected "
                                                    << shape_string(output_shape()));
    Tensor out = Tensor::uninitialized(input_shape());
    detail::idw_apply_transpose(d_, g, out);
    return out;
  }

 private:
  detail::IdwData d_;
  index_t n_nodes_ = 0, n_wall_ = 0;
};

// Radial basis function interpolation over the sources (wall nodes, then
// anchors; see the header): c = M^-1 [d; 0] with M_ts = phi(|x_t - x_s|),
// u_i = sum_s c_s phi(|x_i - x_s|) at the interior nodes. The map from the
// wall displacement to the interior nodes, E = Phi_int (M^-1)_wall columns
// (n_interior x n_wall), is formed once, so that apply() and
// apply_transpose() are E and E^T to round-off (the source matrix of a
// wide support is ill-conditioned: applying its factors forward and
// transposed agreed only to 5e-10 in the dot-product test).
class RbfMap final : public LinearMap {
 public:
  RbfMap(const std::vector<double>& x0, std::vector<index_t> kind,
         const std::vector<index_t>& interior, const std::vector<double>& sources,
         index_t n_wall, double support)
      : kind_(std::move(kind)), interior_(interior), n_wall_(n_wall), support_(support) {
    const index_t ns = static_cast<index_t>(sources.size() / 2);
    const auto phi_at = [&](double x, double y, index_t t) {
      return phi(std::hypot(x - sources[static_cast<size_t>(2 * t)],
                            y - sources[static_cast<size_t>(2 * t + 1)]));
    };
    Eigen::MatrixXd m(ns, ns);
    for (index_t t = 0; t < ns; ++t)
      for (index_t u = 0; u < ns; ++u)
        m(t, u) = phi_at(sources[static_cast<size_t>(2 * t)], sources[static_cast<size_t>(2 * t + 1)], u);
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(m);
    CAMBER_INPUT_REQUIRE(std::isfinite(lu.rcond()) && lu.rcond() > 1e-14,
                         "MeshDeformation: the RBF source matrix is singular (reciprocal "
                         "condition number "
                             << lu.rcond() << "); do two boundary nodes coincide?");
    const Eigen::MatrixXd unit = Eigen::MatrixXd::Identity(ns, n_wall_);
    const Eigen::MatrixXd coef = lu.solve(unit);  // (ns, n_wall)
    // E's rows by explicit sums in source order (not a blocked product,
    // whose summation order depends on how many rows there are): a row is
    // the same bits on every rank that holds its node.
    const index_t ni = static_cast<index_t>(interior_.size());
    e_.assign(static_cast<size_t>(ni * n_wall_), 0.0);
    std::vector<double> phi_row(static_cast<size_t>(ns));
    for (index_t q = 0; q < ni; ++q) {
      const index_t i = interior_[static_cast<size_t>(q)];
      for (index_t t = 0; t < ns; ++t)
        phi_row[static_cast<size_t>(t)] =
            phi_at(x0[static_cast<size_t>(2 * i)], x0[static_cast<size_t>(2 * i + 1)], t);
      double* row = e_.data() + q * n_wall_;
      for (index_t t = 0; t < ns; ++t) {
        const double p = phi_row[static_cast<size_t>(t)];
        if (p == 0.0) continue;  // beyond the support
        for (index_t j = 0; j < n_wall_; ++j) row[j] += p * coef(t, j);
      }
    }
  }
  Shape input_shape() const override { return {n_wall_, 2}; }
  Shape output_shape() const override { return {static_cast<index_t>(kind_.size()), 2}; }
  std::string name() const override { return "rbf"; }

  Tensor apply(const Tensor& d) const override {
    CAMBER_REQUIRE(d.shape() == input_shape(), "rbf: the wall displacement has shape "
                                                   << shape_string(d.shape()) << ", expected "
                                                   << shape_string(input_shape()));
    const std::vector<double> dv = d.to_vector();
    std::vector<double> out(kind_.size() * 2, 0.0);
    for (size_t i = 0; i < kind_.size(); ++i)
      if (kind_[i] >= 0)
        for (size_t c = 0; c < 2; ++c) out[2 * i + c] = dv[static_cast<size_t>(2 * kind_[i]) + c];
    for (size_t q = 0; q < interior_.size(); ++q) {
      const double* row = e_.data() + static_cast<index_t>(q) * n_wall_;
      double ux = 0.0, uy = 0.0;
      for (index_t j = 0; j < n_wall_; ++j) {
        ux += row[j] * dv[static_cast<size_t>(2 * j)];
        uy += row[j] * dv[static_cast<size_t>(2 * j + 1)];
      }
      out[static_cast<size_t>(2 * interior_[q])] = ux;
      out[static_cast<size_t>(2 * interior_[q]) + 1] = uy;
    }
    return Tensor::from_host(output_shape(), out);
  }

  Tensor apply_transpose(const Tensor& g) const override {
    CAMBER_REQUIRE(g.shape() == output_shape(), "rbf_transpose: the cotangent has shape "
                                                    << shape_string(g.shape()) << ", expected "
                                                    << shape_string(output_shape()));
    const std::vector<double> gv = g.to_vector();
    std::vector<double> out(static_cast<size_t>(2 * n_wall_), 0.0);
    for (size_t q = 0; q < interior_.size(); ++q) {
      const double* row = e_.data() + static_cast<index_t>(q) * n_wall_;
      const double gx = gv[static_cast<size_t>(2 * interior_[q])];
      const double gy = gv[static_cast<size_t>(2 * interior_[q]) + 1];
      for (index_t j = 0; j < n_wall_; ++j) {
        out[static_cast<size_t>(2 * j)] += row[j] * gx;
        out[static_cast<size_t>(2 * j + 1)] += row[j] * gy;
      }
    }
    for (size_t i = 0; i < kind_.size(); ++i)
      if (kind_[i] >= 0)
        for (size_t c = 0; c < 2; ++c) out[static_cast<size_t>(2 * kind_[i]) + c] += gv[2 * i + c];
    return Tensor::from_host(input_shape(), out);
  }

 private:
  // Wendland's C2 kernel (1 - r/R)^4 (4 r/R + 1) for r < R.
  double phi(double r) const {
    const double q = r / support_;
    if (q >= 1.0) return 0.0;
    const double a = 1.0 - q;
    return a * a * a * a * (4.0 * q + 1.0);
  }

  std::vector<index_t> kind_, interior_;
  index_t n_wall_ = 0;
  double support_ = 1.0;
  std::vector<double> e_;  // (n_interior, n_wall), row-major
};

template <class T>
Kokkos::View<T*> to_device(const std::vector<T>& v, const char* label) {
  Kokkos::View<T*> d(std::string(label), v.size());
  auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < v.size(); ++i) h(i) = v[i];
  Kokkos::deep_copy(d, h);
  return d;
}

}  // namespace

namespace {

std::vector<std::int64_t> every_node(index_t n) {
  std::vector<std::int64_t> rows(static_cast<size_t>(n));
  for (index_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = i;
  return rows;
}

// The mesh's coordinates at `rows` (every node when empty), (n_rows, 2).
Tensor coordinates_at(const mesh::Mesh& mesh, const std::vector<std::int64_t>& rows) {
  CAMBER_INPUT_REQUIRE(mesh.dim() == 2, "MeshDeformation: needs a 2-D mesh, got dim " << mesh.dim());
  const auto xy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.coords());
  const std::vector<std::int64_t> all = rows.empty() ? every_node(mesh.n_nodes()) : rows;
  std::vector<double> x(2 * all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    CAMBER_REQUIRE(all[i] >= 0 && all[i] < mesh.n_nodes(),
                   "MeshDeformation: row node " << all[i] << " is not a node of the mesh of "
                                                << mesh.n_nodes() << " nodes");
    x[2 * i] = xy(all[i], 0);
    x[2 * i + 1] = xy(all[i], 1);
  }
  return Tensor::from_host({static_cast<index_t>(all.size()), 2}, x);
}

}  // namespace

MeshDeformation::MeshDeformation(const mesh::Mesh& mesh,
                                 const std::vector<std::string>& wall_markers,
                                 const DeformationOptions& options, std::vector<std::int64_t> rows)
    : MeshDeformation(design_boundary(mesh, wall_markers), options,
                      rows.empty() ? every_node(mesh.n_nodes()) : rows, coordinates_at(mesh, rows)) {}

MeshDeformation::MeshDeformation(const DesignBoundary& boundary, const DeformationOptions& options,
                                 std::vector<std::int64_t> rows, const Tensor& row_coordinates)
    : options_(options), n_mesh_nodes_(boundary.n_mesh_nodes), rows_(std::move(rows)) {
  for (std::int64_t r : rows_)
    CAMBER_REQUIRE(r >= 0 && r < n_mesh_nodes_, "MeshDeformation: row node " << r
                                                                              << " is not a node of the mesh of "
                                                                              << n_mesh_nodes_ << " nodes");
  n_nodes_ = static_cast<index_t>(rows_.size());
  CAMBER_REQUIRE(row_coordinates.rank() == 2 && row_coordinates.dim(0) == n_nodes_ &&
                     row_coordinates.dim(1) == 2,
                 "MeshDeformation: the rows' coordinates have shape "
                     << shape_string(row_coordinates.shape()) << ", expected (" << n_nodes_
                     << ", 2)");
  CAMBER_INPUT_REQUIRE(options_.exponent > 0.0 && std::isfinite(options_.exponent),
                       "MeshDeformation: the IDW exponent must be > 0, got " << options_.exponent);
  CAMBER_INPUT_REQUIRE(options_.rbf_support > 0.0 && std::isfinite(options_.rbf_support),
                       "MeshDeformation: the RBF support must be > 0, got " << options_.rbf_support);
  CAMBER_INPUT_REQUIRE(!boundary.wall_nodes.empty(), "MeshDeformation: the wall markers have no faces");
  wall_nodes_.assign(boundary.wall_nodes.begin(), boundary.wall_nodes.end());
  n_anchors_ = static_cast<index_t>(boundary.anchors.size());

  // Every row's kind (wall index, anchor or interior).
  const std::vector<double> x0 = row_coordinates.to_vector();
  std::vector<index_t> kind(static_cast<size_t>(n_nodes_));
  std::vector<index_t> interior;
  // The row of each wall node (-1: not among the rows).
  std::vector<index_t> wall_row(wall_nodes_.size(), -1);
  for (index_t i = 0; i < n_nodes_; ++i) {
    const std::int64_t node = rows_[static_cast<size_t>(i)];
    const std::int64_t w = boundary.wall_index(node);
    index_t& k = kind[static_cast<size_t>(i)];
    k = w >= 0 ? w : boundary.anchor_index(node) >= 0 ? anchor_node : interior_node;
    if (k == interior_node) interior.push_back(i);
    if (k >= 0) wall_row[static_cast<size_t>(k)] = i;
  }
  std::vector<double> sources = boundary.wall_coords;
  sources.insert(sources.end(), boundary.anchor_coords.begin(), boundary.anchor_coords.end());

  x0_ = Tensor::from_host({n_nodes_, 2}, x0);
  if (options_.method == DeformationMethod::rbf) {
    double extent = 0.0;  // the wall's largest node distance (the chord)
    const std::vector<double>& w = boundary.wall_coords;
    for (size_t a = 0; a < wall_nodes_.size(); ++a)
      for (size_t b = 0; b < wall_nodes_.size(); ++b)
        extent = std::max(extent, std::hypot(w[2 * a] - w[2 * b], w[2 * a + 1] - w[2 * b + 1]));
    map_ = std::make_shared<const RbfMap>(x0, kind, interior, sources, n_wall(),
                                          options_.rbf_support * extent);
    return;
  }
  detail::IdwData data;
  // The map may outlive this object (map(), and the graph ops that hold it).
  data.x0_storage = x0_;
  data.x0 = x0_.view();
  data.kind = to_device(kind, "camber::design::idw_kind");
  data.interior = to_device(interior, "camber::design::idw_interior");
  data.sources = to_device(sources, "camber::design::idw_sources");
  data.wall_row = to_device(wall_row, "camber::design::idw_wall_rows");
  data.inv_den = Kokkos::View<double*>("camber::design::idw_inv_den", n_nodes_);
  data.n_sources = static_cast<index_t>(sources.size() / 2);
  data.p = options_.exponent;
  const double r = std::round(data.p);
  data.integer_p = (r == data.p && r >= 1.0 && r <= 16.0) ? static_cast<int>(r) : 0;
  detail::idw_denominators(data);

  // A node on top of a source has an infinite weight: report it.
  const index_t bad = detail::idw_first_singular_node(data);
  CAMBER_INPUT_REQUIRE(bad >= n_nodes_, "MeshDeformation: node "
                                            << rows_[static_cast<size_t>(bad)] << " at ("
                                            << x0[static_cast<size_t>(2 * bad)] << ", "
                                            << x0[static_cast<size_t>(2 * bad + 1)]
                                            << ") coincides with a boundary node; IDW needs "
                                               "distinct node positions");
  map_ = std::make_shared<const IdwMap>(std::move(data));
}

Tensor MeshDeformation::displacement(const Tensor& wall_displacement) const {
  return map_->apply(wall_displacement);
}

Tensor MeshDeformation::coordinates(const Tensor& wall_displacement) const {
  Tensor x = map_->apply(wall_displacement);
  x += x0_;
  return x;
}

ad::Var MeshDeformation::coordinates(const ad::Var& wall_displacement) const {
  return apply_linear(map_, wall_displacement, x0_);
}

namespace {

void require_same_wall(const ShapeParametrization& shape, const MeshDeformation& deformation) {
  CAMBER_REQUIRE(shape.wall().n_mesh_nodes() == deformation.n_mesh_nodes() &&
                     shape.wall().nodes() == deformation.wall_nodes(),
                 "deformed_coordinates: the parametrization's wall ("
                     << shape.wall().n_nodes() << " nodes of a mesh of "
                     << shape.wall().n_mesh_nodes() << ") is not the deformation's wall ("
                     << deformation.n_wall() << " nodes of a mesh of " << deformation.n_mesh_nodes()
                     << "); build both on the same mesh and wall markers");
}
}  // namespace

ad::Var deformed_coordinates(const ShapeParametrization& shape, const MeshDeformation& deformation,
                             const ad::Var& design) {
  require_same_wall(shape, deformation);
  return deformation.coordinates(shape.displacement(design));
}

Tensor deformed_coordinates(const ShapeParametrization& shape, const MeshDeformation& deformation,
                            const Tensor& design) {
  require_same_wall(shape, deformation);
  return deformation.coordinates(shape.displacement(design));
}

namespace {

struct InvertedCell {
  index_t count = 0;  // cells with area <= 0 (or NaN) among those checked
  index_t first = 0;  // the lowest such local cell
  int type = 0;
  double cx = 0.0, cy = 0.0, cz = 0.0, area = 0.0;  // its vertex centroid and signed area (volume)
  int dim = 2;
};

// Cells [0, n_cells) of `mesh` at flat coordinates `coords` (the first
// mesh.n_nodes() rows are read).
// `key` (optional, one per cell): report the inverted cell of smallest key
// (a distributed mesh's global ids) instead of the first in local order.
InvertedCell find_inverted_3d(const mesh::Mesh& mesh, const Tensor& coords, index_t n_cells,
                              const std::vector<std::int64_t>* key) {
  // The volumes of compute_geometry (those the flow takes) at the first
  // mesh.n_nodes() rows.
  const index_t n_nodes = mesh.n_nodes();
  Kokkos::View<double**> x("camber::design::check_coords", n_nodes, 3);
  const auto flat = coords.view();
  Kokkos::parallel_for(
      "camber::design::check_coords", Kokkos::RangePolicy<>(0, n_nodes), KOKKOS_LAMBDA(const index_t i) {
        for (int d = 0; d < 3; ++d) x(i, d) = flat(3 * i + d);
      });
  const auto g = mesh::compute_geometry(mesh, x);
  const auto volume = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.cell_volume);
  InvertedCell out;
  for (index_t c = 0; c < n_cells; ++c)
    if (!(volume(c) > 0.0)) {
      if (out.count++ == 0 ||
          (key && (*key)[static_cast<size_t>(c)] < (*key)[static_cast<size_t>(out.first)]))
        out.first = c;
    }
  if (out.count == 0) return out;
  const auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_offsets());
  const auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_nodes());
  const auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_types());
  const auto h = coords.host();
  const index_t first = out.first;
  const int n = static_cast<int>(ho(first + 1) - ho(first));
  for (index_t k = ho(first); k < ho(first + 1); ++k) {
    out.cx += h(3 * hn(k)) / n;
    out.cy += h(3 * hn(k) + 1) / n;
    out.cz += h(3 * hn(k) + 2) / n;
  }
  out.area = volume(first);
  out.type = static_cast<int>(ht(first));
  return out;
}

InvertedCell find_inverted(const mesh::Mesh& mesh, const Tensor& coords, index_t n_cells,
                           const std::vector<std::int64_t>* key = nullptr) {
  if (mesh.dim() == 3) return find_inverted_3d(mesh, coords, n_cells, key);
  const detail::CellArea cell_area{mesh.cell_offsets(), mesh.cell_nodes(), coords.view()};
  InvertedCell out;
  Kokkos::parallel_reduce(
      "camber::design::count_inverted_cells", Kokkos::RangePolicy<>(0, n_cells),
      KOKKOS_LAMBDA(const index_t c, index_t& count) {
        if (!(cell_area(c) > 0.0)) ++count;
      },
      out.count);
  if (out.count == 0) return out;
  index_t first = n_cells;
  Kokkos::parallel_reduce(
      "camber::design::first_inverted_cell", Kokkos::RangePolicy<>(0, n_cells),
      KOKKOS_LAMBDA(const index_t c, index_t& f) {
        if (!(cell_area(c) > 0.0) && c < f) f = c;
      },
      Kokkos::Min<index_t>(first));
  if (key) {
    // The inverted cell of smallest key: its key from a reduction, then
    // the cell on the host.
    Kokkos::View<std::int64_t*> k("camber::design::inverted_key", n_cells);
    Kokkos::deep_copy(k, Kokkos::View<const std::int64_t*, Kokkos::HostSpace,
                                      Kokkos::MemoryTraits<Kokkos::Unmanaged>>(key->data(),
                                                                               static_cast<size_t>(n_cells)));
    std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
    Kokkos::parallel_reduce(
        "camber::design::smallest_inverted_key", Kokkos::RangePolicy<>(0, n_cells),
        KOKKOS_LAMBDA(const index_t c, std::int64_t& m) {
          if (!(cell_area(c) > 0.0) && k(c) < m) m = k(c);
        },
        Kokkos::Min<std::int64_t>(smallest));
    first = static_cast<index_t>(std::find(key->begin(), key->begin() + n_cells, smallest) -
                                 key->begin());
  }
  out.first = first;

  // The offending cell on the host: centroid, area, type.
  const auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_offsets());
  const auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_nodes());
  const auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mesh.cell_types());
  const auto h = coords.host();
  const int n = static_cast<int>(ho(first + 1) - ho(first));
  std::vector<double> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) {
    const index_t node = hn(ho(first) + k);
    x[static_cast<size_t>(k)] = h(2 * node);
    y[static_cast<size_t>(k)] = h(2 * node + 1);
    out.cx += x[static_cast<size_t>(k)] / n;
    out.cy += y[static_cast<size_t>(k)] / n;
  }
  out.area = mesh::polygon_area(x.data(), y.data(), n);
  out.type = static_cast<int>(ht(first));
  return out;
}

[[noreturn]] void report_inverted(std::int64_t cell, const InvertedCell& c, std::int64_t n_bad,
                                  std::int64_t n_cells, int dim) {
  throw_bad_input(CAMBER_MSG("check_cell_volumes: cell "
                             << cell << " (" << mesh::cell_type_name(static_cast<mesh::CellType>(c.type))
                             << ") with vertex centroid (" << c.cx << ", " << c.cy
                             << (dim == 3 ? ", " + std::to_string(c.cz) : std::string()) << ") has "
                             << (dim == 3 ? "volume " : "signed area ") << c.area << " <= 0; "
                             << n_bad << " of " << n_cells
                             << " cells are inverted. The shape change is too large for this "
                             << (dim == 3 ? "mesh: reduce the design step or the bound"
                                          : "mesh: reduce the design step, or use a larger IDW "
                                            "exponent")));
}

}  // namespace

void check_cell_volumes(const mesh::Mesh& mesh, const Tensor& coords) {
  CAMBER_INPUT_REQUIRE(mesh.dim() == 2, "check_cell_volumes: needs a 2-D mesh, got dim "
                                            << mesh.dim());
  CAMBER_REQUIRE(coords.shape() == (Shape{mesh.n_nodes(), 2}),
                 "check_cell_volumes: coords has shape " << shape_string(coords.shape())
                                                         << ", expected {" << mesh.n_nodes()
                                                         << ", 2}");
  const InvertedCell c = find_inverted(mesh, coords, mesh.n_cells());
  if (c.count > 0) report_inverted(c.first, c, c.count, mesh.n_cells(), 2);
}

void check_cell_volumes(const mesh::DistributedMesh& dm, const Tensor& coords) {
  const mesh::Mesh& local = dm.local();
  const int dim = local.dim();
  CAMBER_REQUIRE(coords.rank() == 2 && coords.shape()[1] == dim &&
                     coords.shape()[0] >= dm.n_local_nodes(),
                 "check_cell_volumes: coords has shape " << shape_string(coords.shape())
                                                         << ", expected at least {"
                                                         << dm.n_local_nodes() << ", " << dim
                                                         << "}");
  const InvertedCell c =
      find_inverted(local, coords, dm.n_owned_cells(), &dm.cell_global_ids());
  // The lowest global id among the ranks' inverted cells, and its owner.
  long long counts[1] = {static_cast<long long>(c.count)}, total[1] = {0};
  CAMBER_CHECK_MPI(MPI_Allreduce(counts, total, 1, MPI_LONG_LONG, MPI_SUM, dm.comm()));
  if (total[0] == 0) return;
  struct {
    double id;
    int rank;
  } mine{c.count > 0 ? static_cast<double>(dm.cell_global_ids()[static_cast<size_t>(c.first)])
                     : std::numeric_limits<double>::infinity(),
         dm.rank()},
      lowest{};
  CAMBER_CHECK_MPI(MPI_Allreduce(&mine, &lowest, 1, MPI_DOUBLE_INT, MPI_MINLOC, dm.comm()));
  double fields[5] = {static_cast<double>(c.type), c.cx, c.cy, c.area, c.cz};
  CAMBER_CHECK_MPI(MPI_Bcast(fields, 5, MPI_DOUBLE, lowest.rank, dm.comm()));
  InvertedCell first;
  first.type = static_cast<int>(fields[0]);
  first.cx = fields[1];
  first.cy = fields[2];
  first.area = fields[3];
  first.cz = fields[4];
  report_inverted(static_cast<std::int64_t>(lowest.id), first, total[0], dm.n_global_cells(), dim);
}

}  // namespace camber::design
