#include <camber/design/cst.hpp>

#include <cmath>
#include <utility>

#include <camber/core/error.hpp>

namespace camber::design {

double cst_class_function(double x, double n1, double n2) {
  return std::pow(x, n1) * std::pow(1.0 - x, n2);
}

Cst::Cst(const mesh::Mesh& mesh, const std::vector<std::string>& wall_markers,
         const CstOptions& options)
    : Cst(AirfoilWall(mesh, wall_markers), options) {}

Cst::Cst(AirfoilWall wall, const CstOptions& options)
    : ShapeParametrization(std::move(wall)), options_(options) {
  CAMBER_INPUT_REQUIRE(options_.order >= 0, "Cst: order must be >= 0, got " << options_.order);
  CAMBER_INPUT_REQUIRE(options_.n1 >= 0.0 && options_.n2 >= 0.0,
                       "Cst: the class function exponents must be >= 0, got N1 = "
                           << options_.n1 << ", N2 = " << options_.n2);
  const AirfoilWall& w = this->wall();
  const int n = options_.order;
  const index_t n_wall = w.n_nodes();
  const index_t n_dv = 2 * (n + 1) + (options_.trailing_edge_thickness ? 2 : 0);
  std::vector<double> b(static_cast<size_t>(n_wall * 2 * n_dv), 0.0);
  for (index_t i = 0; i < n_wall; ++i) {
    const double x = w.chord_coordinate()[static_cast<size_t>(i)];
    const Surface s = w.surface()[static_cast<size_t>(i)];
    const double c = cst_class_function(x, options_.n1, options_.n2);
    auto put = [&](index_t k, double dy) {
      for (int d = 0; d < 2; ++d)
        b[static_cast<size_t>((i * 2 + d) * n_dv + k)] = dy * w.normal()[static_cast<size_t>(d)];
    };
    for (int j = 0; j <= n; ++j) put(coefficient_index(s, j), c * bernstein(n, j, x));
    if (options_.trailing_edge_thickness) put(trailing_edge_index(s), x);
  }
  set_basis(Tensor::from_host({n_wall, 2, n_dv}, b), "cst");
}

index_t Cst::coefficient_index(Surface surface, int i) const {
  CAMBER_REQUIRE(i >= 0 && i <= options_.order,
                 "Cst: coefficient " << i << " out of range 0.." << options_.order);
  return (surface == Surface::upper ? 0 : options_.order + 1) + i;
}

index_t Cst::trailing_edge_index(Surface surface) const {
  CAMBER_REQUIRE(options_.trailing_edge_thickness,
                 "Cst: trailing_edge_index needs CstOptions::trailing_edge_thickness");
  return 2 * (options_.order + 1) + (surface == Surface::upper ? 0 : 1);
}

}  // namespace camber::design
