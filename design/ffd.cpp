#include <camber/design/ffd.hpp>

#include <algorithm>
#include <utility>

#include <camber/core/error.hpp>

namespace camber::design {

FreeFormDeformation::FreeFormDeformation(const mesh::Mesh& mesh,
                                         const std::vector<std::string>& wall_markers,
                                         const FfdOptions& options)
    : FreeFormDeformation(AirfoilWall(mesh, wall_markers), options) {}

FreeFormDeformation::FreeFormDeformation(AirfoilWall wall, const FfdOptions& options)
    : ShapeParametrization(std::move(wall)), options_(options) {
  CAMBER_INPUT_REQUIRE(options_.degree_x >= 1 && options_.degree_y >= 1,
                       "FreeFormDeformation: degrees must be >= 1, got degree_x = "
                           << options_.degree_x << ", degree_y = " << options_.degree_y);
  const AirfoilWall& w = this->wall();
  const std::vector<double> c = w.coordinates().to_vector();
  const index_t n_wall = w.n_nodes();
  double x0 = c[0], x1 = c[0], y0 = c[1], y1 = c[1];
  for (index_t i = 0; i < n_wall; ++i) {
    x0 = std::min(x0, c[static_cast<size_t>(2 * i)]);
    x1 = std::max(x1, c[static_cast<size_t>(2 * i)]);
    y0 = std::min(y0, c[static_cast<size_t>(2 * i + 1)]);
    y1 = std::max(y1, c[static_cast<size_t>(2 * i + 1)]);
  }
  if (options_.box.x_max > options_.box.x_min) {
    box_ = options_.box;
    CAMBER_INPUT_REQUIRE(box_.y_max > box_.y_min, "FreeFormDeformation: the box has y_max = "
                                                      << box_.y_max << " <= y_min = " << box_.y_min);
    CAMBER_INPUT_REQUIRE(box_.x_min <= x0 && x1 <= box_.x_max && box_.y_min <= y0 &&
                             y1 <= box_.y_max,
                         "FreeFormDeformation: the box [" << box_.x_min << ", " << box_.x_max
                             << "] x [" << box_.y_min << ", " << box_.y_max
                             << "] does not contain the wall, whose bounding box is [" << x0
                             << ", " << x1 << "] x [" << y0 << ", " << y1 << "]");
  } else {
    CAMBER_INPUT_REQUIRE(options_.margin > 0.0,
                         "FreeFormDeformation: margin must be > 0, got " << options_.margin);
    const double g = options_.margin * w.chord();
    box_ = {x0 - g, x1 + g, y0 - g, y1 + g};
  }

  const index_t n_cp = n_control_points();
  const index_t n_dv = options_.move_x ? 2 * n_cp : n_cp;
  std::vector<double> b(static_cast<size_t>(n_wall * 2 * n_dv), 0.0), wk;
  for (index_t i = 0; i < n_wall; ++i) {
    weights(c[static_cast<size_t>(2 * i)], c[static_cast<size_t>(2 * i + 1)], wk);
    for (index_t k = 0; k < n_cp; ++k) {
      b[static_cast<size_t>((i * 2 + 1) * n_dv + k)] = wk[static_cast<size_t>(k)];
      if (options_.move_x) b[static_cast<size_t>((i * 2) * n_dv + n_cp + k)] = wk[static_cast<size_t>(k)];
    }
  }
  set_basis(Tensor::from_host({n_wall, 2, n_dv}, b), "ffd");
}

void FreeFormDeformation::weights(double x, double y, std::vector<double>& w) const {
  const int l = options_.degree_x, m = options_.degree_y;
  const double s = (x - box_.x_min) / (box_.x_max - box_.x_min);
  const double t = (y - box_.y_min) / (box_.y_max - box_.y_min);
  w.assign(static_cast<size_t>(n_control_points()), 0.0);
  for (int i = 0; i <= l; ++i) {
    const double bs = bernstein(l, i, s);
    for (int j = 0; j <= m; ++j) w[static_cast<size_t>(i * (m + 1) + j)] = bs * bernstein(m, j, t);
  }
}

Tensor FreeFormDeformation::control_points() const {
  const int l = options_.degree_x, m = options_.degree_y;
  std::vector<double> p;
  for (int i = 0; i <= l; ++i)
    for (int j = 0; j <= m; ++j) {
      p.push_back(box_.x_min + (box_.x_max - box_.x_min) * i / l);
      p.push_back(box_.y_min + (box_.y_max - box_.y_min) * j / m);
    }
  return Tensor::from_host({n_control_points(), 2}, p);
}

Tensor FreeFormDeformation::displacement_at(const Tensor& points, const Tensor& a) const {
  CAMBER_REQUIRE(points.rank() == 2 && points.dim(1) == 2,
                 "FreeFormDeformation::displacement_at: points must be (n, 2), got "
                     << shape_string(points.shape()));
  CAMBER_REQUIRE(a.shape() == Shape{n_design()},
                 "FreeFormDeformation::displacement_at: the design vector has shape "
                     << shape_string(a.shape()) << ", expected {" << n_design() << "}");
  const std::vector<double> p = points.to_vector(), av = a.to_vector();
  const index_t n = points.dim(0), n_cp = n_control_points();
  std::vector<double> out(static_cast<size_t>(2 * n), 0.0), wk;
  for (index_t q = 0; q < n; ++q) {
    const double x = p[static_cast<size_t>(2 * q)], y = p[static_cast<size_t>(2 * q + 1)];
    if (x < box_.x_min || x > box_.x_max || y < box_.y_min || y > box_.y_max) continue;
    weights(x, y, wk);
    for (index_t k = 0; k < n_cp; ++k) {
      out[static_cast<size_t>(2 * q + 1)] += wk[static_cast<size_t>(k)] * av[static_cast<size_t>(k)];
      if (options_.move_x)
        out[static_cast<size_t>(2 * q)] +=
            wk[static_cast<size_t>(k)] * av[static_cast<size_t>(n_cp + k)];
    }
  }
  return Tensor::from_host({n, 2}, out);
}

}  // namespace camber::design
