#include <camber/design/airfoil_wall.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <camber/autodiff/ops.hpp>
#include <camber/core/error.hpp>

namespace camber::design {

const char* surface_name(Surface s) { return s == Surface::upper ? "upper" : "lower"; }

double bernstein(int n, int i, double x) {
  CAMBER_REQUIRE(n >= 0 && i >= 0 && i <= n,
                 "bernstein: needs 0 <= i <= n, got i = " << i << ", n = " << n);
  double binom = 1.0;
  for (int k = 1; k <= i; ++k) binom = binom * (n - i + k) / k;
  return binom * std::pow(x, i) * std::pow(1.0 - x, n - i);
}

AirfoilWall::AirfoilWall(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers)
    : AirfoilWall(design_boundary(mesh, wall_markers)) {}

AirfoilWall::AirfoilWall(const DesignBoundary& boundary)
    : n_mesh_nodes_(boundary.n_mesh_nodes), markers_(boundary.wall_markers) {
  // The node adjacency along the wall curve (faces in the boundary's order).
  std::map<index_t, std::vector<index_t>> adjacent;
  for (const auto& face : boundary.wall_faces) {
    auto link = [&adjacent](index_t p, index_t q) {
      std::vector<index_t>& v = adjacent[p];
      if (std::find(v.begin(), v.end(), q) == v.end()) v.push_back(q);
    };
    link(face[0], face[1]);
    link(face[1], face[0]);
  }
  CAMBER_INPUT_REQUIRE(!adjacent.empty(), "AirfoilWall: the wall markers have no faces");

  std::vector<index_t> ends;
  for (const auto& [node, nb] : adjacent) {
    CAMBER_INPUT_REQUIRE(nb.size() <= 2, "AirfoilWall: wall node "
                                             << node << " has " << nb.size()
                                             << " wall neighbours; the wall must be one curve "
                                                "(one airfoil element, no branches)");
    if (nb.size() == 1) ends.push_back(node);
  }
  CAMBER_INPUT_REQUIRE(ends.empty() || ends.size() == 2,
                       "AirfoilWall: the wall has " << ends.size()
                                                    << " free ends; expected a closed curve or "
                                                       "one open curve (one airfoil element)");
  closed_ = ends.empty();
  for (const auto& kv : adjacent) nodes_.push_back(kv.first);  // increasing (std::map)
  const index_t n = n_nodes();
  const auto px = [&boundary](index_t node) {
    return boundary.wall_coords[static_cast<size_t>(2 * boundary.wall_index(node))];
  };
  const auto py = [&boundary](index_t node) {
    return boundary.wall_coords[static_cast<size_t>(2 * boundary.wall_index(node) + 1)];
  };

  // Order the curve: from a free end, or (closed) from the node of largest x.
  index_t start = ends.empty() ? nodes_[0] : ends[0];
  if (closed_)
    for (index_t node : nodes_)
      if (px(node) > px(start)) start = node;
  std::vector<index_t> order{start};
  index_t prev = -1, cur = start;
  for (;;) {
    const std::vector<index_t>& nb = adjacent[cur];
    index_t next = -1;
    for (index_t q : nb)
      if (q != prev) {
        next = q;
        break;
      }
    // A node of degree <= 2 ends the walk at a free end or back at the start.
    if (next < 0 || next == start) break;
    order.push_back(next);
    prev = cur;
    cur = next;
  }
  CAMBER_INPUT_REQUIRE(static_cast<index_t>(order.size()) == n,
                       "AirfoilWall: the wall nodes form more than one curve (reached "
                           << order.size() << " of " << n
                           << " nodes from one end); one airfoil element is supported");

  if (closed_) {
    te_ = {px(start), py(start)};
  } else {
    te_ = {0.5 * (px(ends[0]) + px(ends[1])), 0.5 * (py(ends[0]) + py(ends[1]))};
  }
  index_t le_pos = 0;
  double far = -1.0;
  for (index_t k = 0; k < n; ++k) {
    const index_t node = order[static_cast<size_t>(k)];
    const double d = std::hypot(px(node) - te_[0], py(node) - te_[1]);
    if (d > far) {
      far = d;
      le_pos = k;
    }
  }
  const index_t le_node = order[static_cast<size_t>(le_pos)];
  le_ = {px(le_node), py(le_node)};
  chord_ = far;
  CAMBER_INPUT_REQUIRE(chord_ > 0.0, "AirfoilWall: the wall has zero chord");
  const double ex = (te_[0] - le_[0]) / chord_, ey = (te_[1] - le_[1]) / chord_;
  normal_ = {-ey, ex};

  // The two arcs between LE and TE along the ordered curve: positions
  // [first, le_pos) and (le_pos, end], less the closed curve's TE (position 0).
  const index_t first = closed_ ? 1 : 0;
  auto eta = [&](index_t node) {
    return (px(node) - le_[0]) * normal_[0] + (py(node) - le_[1]) * normal_[1];
  };
  double sum_a = 0, sum_b = 0;
  index_t n_a = 0, n_b = 0;
  for (index_t k = first; k < le_pos; ++k, ++n_a) sum_a += eta(order[static_cast<size_t>(k)]);
  for (index_t k = le_pos + 1; k < n; ++k, ++n_b) sum_b += eta(order[static_cast<size_t>(k)]);
  CAMBER_INPUT_REQUIRE(n_a > 0 && n_b > 0,
                       "AirfoilWall: no wall nodes between the leading and trailing edge on "
                       "one side; the wall is not an airfoil");
  const bool a_is_upper = sum_a / static_cast<double>(n_a) > sum_b / static_cast<double>(n_b);

  std::map<index_t, Surface> side;
  for (index_t k = 0; k < n; ++k) {
    const bool in_a = k >= first && k < le_pos;
    const bool in_b = k > le_pos;
    Surface s = Surface::upper;  // LE, closed TE
    if (in_a) s = a_is_upper ? Surface::upper : Surface::lower;
    if (in_b) s = a_is_upper ? Surface::lower : Surface::upper;
    side[order[static_cast<size_t>(k)]] = s;
  }

  std::vector<double> c(static_cast<size_t>(2 * n));
  x_.resize(static_cast<size_t>(n));
  surface_.resize(static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) {
    const index_t node = nodes_[static_cast<size_t>(k)];
    c[static_cast<size_t>(2 * k)] = px(node);
    c[static_cast<size_t>(2 * k + 1)] = py(node);
    const double xi = ((px(node) - le_[0]) * ex + (py(node) - le_[1]) * ey) / chord_;
    x_[static_cast<size_t>(k)] = std::min(1.0, std::max(0.0, xi));
    surface_[static_cast<size_t>(k)] = side[node];
  }
  coords_ = Tensor::from_host({n, 2}, c);
}

ShapeParametrization::ShapeParametrization(AirfoilWall wall)
    : wall_(std::make_shared<const AirfoilWall>(std::move(wall))) {}

ShapeParametrization::ShapeParametrization(AirfoilWall wall, Tensor basis, const std::string& name)
    : ShapeParametrization(std::move(wall)) {
  set_basis(std::move(basis), name);
}

void ShapeParametrization::set_basis(Tensor basis, const std::string& name) {
  CAMBER_REQUIRE(basis.rank() == 3 && basis.dim(0) == wall_->n_nodes() && basis.dim(1) == 2,
                 name << ": the basis must be (n_wall, 2, n_design) with n_wall = "
                      << wall_->n_nodes() << ", got " << shape_string(basis.shape()));
  n_design_ = basis.dim(2);
  map_ = std::make_shared<const DenseMap>(std::move(basis), name);
}

Tensor ShapeParametrization::displacement(const Tensor& a) const { return map_->apply(a); }

ad::Var ShapeParametrization::displacement(const ad::Var& a) const {
  return apply_linear(map_, a);
}

Tensor ShapeParametrization::wall_coordinates(const Tensor& a) const {
  Tensor x = map_->apply(a);
  x += wall_->coordinates();
  return x;
}

ad::Var ShapeParametrization::wall_coordinates(const ad::Var& a) const {
  return apply_linear(map_, a, wall_->coordinates());
}

namespace detail {
int require_marker(const mesh::Mesh& mesh, const std::string& name, const char* who) {
  const int m = mesh.marker_index(name);
  if (m < 0) {
    std::string known;
    for (const mesh::Marker& mk : mesh.markers())
      known += (known.empty() ? "'" : ", '") + mk.name + "'";
    throw_bad_input(std::string(who) + ": the mesh has no marker '" + name +
                    "'; its markers are " + (known.empty() ? std::string("none") : known));
  }
  return m;
}
}  // namespace detail

}  // namespace camber::design
